//! Layers: behaviour that runs around every call an [`Executor`](super::Executor) makes, as
//! tower's middleware runs around a service. A layer sees a call after the caller's scopes and
//! the input's size and shape were checked, and before the call is checked against the tool's
//! schema, put to a person and run; it may rewrite the arguments, refuse the call, or pass it
//! on and rewrite (or redact) what comes back. The executor's own stages stand around and
//! under the layers in a fixed order (see [`Executor`](super::Executor)), so no layer can skip
//! a scope check, an approval or a time limit, and a tool's calls to other tools pass the
//! same layers.
//!
//! A layer is a trait object with one method rather than tower's `Layer`/`Service` pair:
//! the stack is built once, its order is the order layers were added, and a call walks it by
//! a slice index, with one boxed future per layer and none when there is no layer.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::call::CallResult;
use crate::context::ToolContext;
use crate::registry::Tool;

/// The future a layer returns.
pub type LayerFuture<'a> = Pin<Box<dyn Future<Output = CallResult> + Send + 'a>>;

/// One call as a layer sees it: the tool, the call's context and its arguments (parsed, within
/// the executor's size and depth limits, not yet checked against the tool's schema).
pub struct Call<'a> {
    tool: &'a Tool,
    ctx: &'a ToolContext,
    input: Value,
}

impl<'a> Call<'a> {
    pub(crate) fn new(tool: &'a Tool, ctx: &'a ToolContext, input: Value) -> Self {
        Self { tool, ctx, input }
    }

    /// The tool called.
    pub fn tool(&self) -> &'a Tool {
        self.tool
    }

    /// The call's context: its id, the caller's principal, headers and extensions.
    pub fn context(&self) -> &'a ToolContext {
        self.ctx
    }

    /// The arguments.
    pub fn input(&self) -> &Value {
        &self.input
    }

    /// The arguments, to rewrite before the call goes on. What a layer writes here is what the
    /// schema check, the person asked and the tool see.
    pub fn input_mut(&mut self) -> &mut Value {
        &mut self.input
    }

    pub(crate) fn into_input(self) -> Value {
        self.input
    }
}

impl fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("tool", &self.tool.name())
            .field("call_id", &self.ctx.call_id())
            .finish_non_exhaustive()
    }
}

/// What runs under a layer: the layers after it, then the executor's own stages and the tool.
/// Run it once to pass the call on; drop it to refuse the call.
pub struct Next<'a> {
    layers: &'a [Arc<dyn Layer>],
    last: &'a (dyn Fn(Call<'a>) -> LayerFuture<'a> + Send + Sync + 'a),
}

impl<'a> Next<'a> {
    pub(crate) fn new(
        layers: &'a [Arc<dyn Layer>],
        last: &'a (dyn Fn(Call<'a>) -> LayerFuture<'a> + Send + Sync + 'a),
    ) -> Self {
        Self { layers, last }
    }

    /// Passes `call` on and returns what the rest of the stack made of it.
    pub fn run(self, call: Call<'a>) -> LayerFuture<'a> {
        match self.layers.split_first() {
            Some((layer, rest)) => layer.call(call, Next::new(rest, self.last)),
            None => (self.last)(call),
        }
    }
}

impl fmt::Debug for Next<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Next")
            .field("layers", &self.layers.len())
            .finish_non_exhaustive()
    }
}

/// Behaviour around every call an executor makes. Implement it on a type, or wrap a closure
/// with [`layer_fn`].
///
/// A layer that refuses returns an error without running `next` (the call ends with that error,
/// audited and shown as any other); one that rewrites the arguments changes
/// [`Call::input_mut`] first; one that redacts maps the result `next` returns.
///
/// ```
/// use serde_json::json;
/// use tool_core::exec::{Call, Executor, Layer, LayerFuture, Next};
/// use tool_core::{DynamicTool, Registry, ToolContext, ToolError, ToolOutput};
///
/// /// Refuses every call whose `path` leaves /srv.
/// struct StayInSrv;
///
/// impl Layer for StayInSrv {
///     fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> LayerFuture<'a> {
///         let outside = call.input()["path"].as_str().is_some_and(|p| !p.starts_with("/srv/"));
///         if outside {
///             return Box::pin(async { Err(ToolError::refused("only files under /srv/ may be read")) });
///         }
///         next.run(call)
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("read_file", "Reads a file.", json!({"type": "object"}))
///     .handler(|input, _| async move { Ok(ToolOutput::new(input)) })).unwrap();
/// let executor = Executor::builder(registry).layer(StayInSrv).build();
/// let ctx = ToolContext::new();
/// assert!(executor.call("read_file", json!({"path": "/srv/a.txt"}), &ctx).await.is_ok());
/// let refused = executor.call("read_file", json!({"path": "/etc/passwd"}), &ctx).await.unwrap_err();
/// assert_eq!(refused.kind(), tool_core::ErrorKind::Refused);
/// # });
/// ```
pub trait Layer: Send + Sync + 'static {
    /// Handles one call: pass it on with `next.run(call)`, or not.
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> LayerFuture<'a>;

    /// A name for the layer in debug output.
    fn name(&self) -> &str {
        std::any::type_name::<Self>()
    }
}

/// A layer from a closure that takes the call and what comes next, and returns a boxed future.
///
/// ```
/// use serde_json::json;
/// use tool_core::exec::{Executor, layer_fn};
/// use tool_core::{DynamicTool, Registry, ToolContext, ToolOutput};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("get_user", "Finds a user.", json!({"type": "object"}))
///     .handler(|_, _| async { Ok(ToolOutput::new(json!({"name": "Ada", "email": "ada@example.com"}))) })).unwrap();
/// // Redacts every `email` in a result.
/// let redact = layer_fn(|call, next| Box::pin(async move {
///     let mut out = next.run(call).await?;
///     if let Some(email) = out.data_mut().and_then(|data| data.get_mut("email")) {
///         *email = json!("[redacted]");
///     }
///     Ok(out)
/// }));
/// let executor = Executor::builder(registry).layer(redact).build();
/// let out = executor.call("get_user", json!({}), &ToolContext::new()).await.unwrap();
/// assert_eq!(out.data().unwrap()["email"], "[redacted]");
/// # });
/// ```
pub fn layer_fn<F>(f: F) -> LayerFn<F>
where
    F: for<'a> Fn(Call<'a>, Next<'a>) -> LayerFuture<'a> + Send + Sync + 'static,
{
    LayerFn(f)
}

/// A [`Layer`] made by [`layer_fn`].
#[derive(Clone, Copy)]
pub struct LayerFn<F>(F);

impl<F> fmt::Debug for LayerFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LayerFn")
    }
}

impl<F> Layer for LayerFn<F>
where
    F: for<'a> Fn(Call<'a>, Next<'a>) -> LayerFuture<'a> + Send + Sync + 'static,
{
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> LayerFuture<'a> {
        (self.0)(call, next)
    }

    fn name(&self) -> &str {
        "layer_fn"
    }
}
