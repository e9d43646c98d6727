//! A framework for agent tools: write a Rust function, put `#[tool]` on it, link it.
//!
//! The macro generates the definition, the input schema (schemars, JSON Schema 2020-12) and the
//! handler glue; `inventory` collects every tool at link time, so [`Registry::linked`] sees them
//! all with no registration step.
//!
//! ```
//! use tool_core::prelude::*;
//!
//! tool_core::domain!(pub greeting, "Saying hello");
//!
//! /// Returns a greeting for `name`. Use it to greet someone by name.
//! #[tool(domain = greeting, label = "Greeting", hint = "Greets a person by name")]
//! fn greet_person(#[arg(description = "Who to greet")] name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let registry = Registry::linked().unwrap();
//! let out = registry
//!     .call("greet_person", serde_json::json!({"name": "Ada"}), &ToolContext::new())
//!     .await
//!     .unwrap();
//! assert_eq!(out.echo(), "Hello, Ada!");
//! # });
//! ```

// The macro's expansion names `::tool_core`, which must also resolve inside this crate.
extern crate self as tool_core;

pub mod context;
pub mod definition;
pub mod error;
pub mod exec;
pub mod output;
pub mod registry;
pub mod schema;

#[cfg(feature = "cli")]
pub mod cli;

pub use context::{
    AuditRecord, AuditSink, ContextBuilder, EventSink, FromContext, RequestHeaders, State,
    ToolContext, ToolEvent, TracingAudit, TracingEvents,
};
pub use definition::{Annotations, DeclaredDomain, Domain, Example, Location, ToolDef};
pub use error::{ErrorKind, Origin, RegistryError, ToolError};
pub use output::{IntoOutput, Media, MediaKind, ToolOutput};
pub use registry::{DomainInfo, DynamicTool, Registry, Tool, ToolExample};
pub use tokio_util::sync::CancellationToken;
pub use tool_macros::tool;

/// A handler parameter that takes the whole input as one struct deriving `Deserialize` and
/// `JsonSchema`, whose field docs become the parameter descriptions.
///
/// ```
/// use tool_core::prelude::*;
/// use tool_core::__private::{schemars, serde};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// # #[serde(crate = "tool_core::__private::serde")]
/// # #[schemars(crate = "tool_core::__private::schemars")]
/// struct Query {
///     /// Words to look for.
///     text: String,
/// }
///
/// tool_core::domain!(docs, "Documentation");
///
/// /// Returns how many words the query has.
/// #[tool(domain = docs, label = "Counting", hint = "Counts words")]
/// fn count_words(Input(q): Input<Query>) -> usize {
///     q.text.split_whitespace().count()
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Input<T>(pub T);

/// The names most handlers need.
pub mod prelude {
    pub use crate::{
        CancellationToken, ErrorKind, Input, Media, Registry, RequestHeaders, State, ToolContext,
        ToolError, ToolOutput, domain, tool,
    };
}

/// Items the `#[tool]` expansion names. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use crate::definition::{is_blank, is_domain_name};
    pub use crate::exec::decode;
    pub use crate::schema::root_schema;

    use std::marker::PhantomData;

    use schemars::{JsonSchema, Schema};
    use serde::de::DeserializeOwned;

    use crate::exec::{CallFuture, CallResult};
    use crate::{FromContext, IntoOutput, ToolContext, ToolError};

    /// Finishes a handler that returned a plain value or a `ToolOutput`.
    pub fn finish<R: IntoOutput>(value: R) -> CallResult {
        crate::exec::finish(value)
    }

    /// Finishes a handler that returned a `Result`.
    pub fn finish_result<T: IntoOutput, E: IntoToolError>(result: Result<T, E>) -> CallResult {
        crate::exec::finish_result(result.map_err(IntoToolError::into_tool_error))
    }

    /// A call that fails before it starts.
    pub fn fail(error: ToolError) -> CallFuture {
        crate::exec::fail(error)
    }

    /// Takes an extractor from the context.
    pub fn extract<T: FromContext>(ctx: &ToolContext) -> Result<T, ToolError> {
        T::from_context(ctx)
    }

    /// Checks, at the parameter's span, that it can come from the model's input.
    pub fn assert_param<T: ToolParam>() {}

    /// Checks, at the parameter's span, that it can come from the context.
    pub fn assert_extractor<T: FromContext>() {}

    /// Checks, at the return type's span, that it is a tool output.
    pub fn assert_output<T: IntoOutput>() {}

    /// Checks, at the return type's span, that its error converts into `ToolError`.
    pub fn assert_error<E: IntoToolError>() {}

    /// A type the model's input can provide.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool parameter",
        label = "this parameter must implement serde::Deserialize and schemars::JsonSchema",
        note = "derive both on your type (#[derive(Deserialize, JsonSchema)]), or, if the value comes from the tool context, implement tool_core::FromContext and mark the parameter #[ctx]"
    )]
    pub trait ToolParam: DeserializeOwned + JsonSchema {}
    impl<T: DeserializeOwned + JsonSchema> ToolParam for T {}

    /// An error type a tool may return.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be returned as a tool error",
        label = "the error type must convert into tool_core::ToolError",
        note = "implement `From<{Self}> for ToolError` (ToolError::internal(e) keeps the cause), or map the error with `.map_err(ToolError::internal)`"
    )]
    pub trait IntoToolError {
        /// Converts.
        fn into_tool_error(self) -> ToolError;
    }
    impl<E: Into<ToolError>> IntoToolError for E {
        fn into_tool_error(self) -> ToolError {
            self.into()
        }
    }

    /// The input of a tool without parameters: an empty object, extra keys refused.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct NoArgs {}

    /// Autoref probe: does the output data type have a schema?
    pub struct Probe<T>(PhantomData<T>);
    impl<T> Probe<T> {
        /// The probe value.
        pub const NEW: Self = Probe(PhantomData);
    }

    /// Chosen when the output type implements `JsonSchema`.
    pub trait OutputWithSchema {
        /// The output schema.
        fn output_schema(self) -> Option<Schema>;
    }
    impl<T: JsonSchema> OutputWithSchema for &&Probe<T> {
        fn output_schema(self) -> Option<Schema> {
            Some(crate::schema::root_schema::<T>())
        }
    }

    /// Chosen otherwise.
    pub trait OutputWithoutSchema {
        /// No output schema.
        fn output_schema(self) -> Option<Schema>;
    }
    impl<T> OutputWithoutSchema for &Probe<T> {
        fn output_schema(self) -> Option<Schema> {
            None
        }
    }
}
