//! The values a handler can take from the context instead of from the model's input.

use std::any::type_name;
use std::ops::Deref;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::headers::RequestHeaders;
use super::principal::Principal;
use super::tool_context::ToolContext;
use crate::error::ToolError;

/// A parameter type a handler can take from the context instead of from the model's input.
///
/// A `#[tool]` takes one where its parameter is marked `#[ctx]` (`&ToolContext` alone needs no
/// mark). Built in: [`ToolContext`] (a clone), [`State<T>`], [`CancellationToken`] and
/// [`RequestHeaders`]; implement it for your own types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from the tool context",
    label = "not a context value",
    note = "a parameter marked #[ctx] must implement tool_core::context::FromContext; parameters that come from the model's input need no #[ctx]"
)]
pub trait FromContext: Sized {
    /// Takes the value from the context.
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError>;
}

impl FromContext for ToolContext {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.clone())
    }
}

impl FromContext for CancellationToken {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.cancellation().clone())
    }
}

impl FromContext for RequestHeaders {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.headers().clone())
    }
}

/// The authenticated caller. Refused (`permission_denied`) where the server established no
/// caller, as over stdio or behind a static token: take `Option<Principal>` to run there too.
impl FromContext for Principal {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.principal().cloned().ok_or_else(|| {
            ToolError::permission_denied(
                "this tool needs an authenticated caller, and the server established none \
                 (serve it over HTTP with OAuth, or take Option<Principal>)",
            )
        })
    }
}

impl FromContext for Option<Principal> {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.principal().cloned())
    }
}

/// Shared state of type `T`, configured with
/// [`ContextBuilder::extension`](crate::context::ContextBuilder::extension) as an `Arc<T>`.
///
/// ```
/// use std::sync::Arc;
/// use tool_core::{context::FromContext, context::State, ToolContext};
/// struct Db { url: &'static str }
/// let ctx = ToolContext::builder().extension(Arc::new(Db { url: "mem:" })).build();
/// let State(db) = State::<Db>::from_context(&ctx).unwrap();
/// assert_eq!(db.url, "mem:");
/// ```
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + Send + Sync + 'static> FromContext for State<T> {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        match ctx.extension::<Arc<T>>() {
            Some(state) => Ok(State(state.clone())),
            None => Err(ToolError::internal(format!(
                "State<{}> is not configured: add it with ContextBuilder::extension(Arc::new(..)), \
                 or `args.state(..)` in `tool_cli::main!`",
                type_name::<T>()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_state_names_the_type() {
        let err = State::<String>::from_context(&ToolContext::new())
            .err()
            .expect("state is not configured");
        assert!(err.message().contains("String"), "{err}");
    }
}
