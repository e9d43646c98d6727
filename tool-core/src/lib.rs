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

pub mod check;
pub mod context;
pub mod definition;
pub mod defs;
pub mod error;
pub mod exec;
pub mod output;
pub mod registry;
pub mod render;
pub mod schema;

#[cfg(feature = "cli")]
pub mod cli;

pub use context::{
    AuditRecord, AuditSink, ContextBuilder, EventSink, FromContext, RequestHeaders, State,
    ToolContext, ToolEvent, ToolRoot, TracingAudit, TracingEvents,
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
        ToolError, ToolOutput, ToolRoot, domain, tool,
    };
}

/// Items the `#[tool]` expansion names. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use crate::ToolError;
    pub use crate::definition::{is_blank, is_domain_name};
    pub use crate::exec::{Fields, Missing};
    pub use crate::schema::ObjectSchema;

    use std::marker::PhantomData;

    use schemars::{JsonSchema, Schema, SchemaGenerator};
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    use crate::exec::{CallFuture, CallResult};
    use crate::{FromContext, IntoOutput, ToolContext};

    /// How one plain parameter is decoded and described.
    pub struct Param<T> {
        /// Decodes the parameter's value.
        pub decode: fn(Value) -> Result<T, ToolError>,
        /// The parameter's subschema.
        pub schema: fn(&mut SchemaGenerator) -> Schema,
    }

    /// The one place the expansion names a parameter's type, so a type that cannot be a
    /// parameter gives one error, on the parameter.
    pub const fn param<T: ToolParam>() -> Param<T> {
        Param {
            decode: crate::exec::decode_value::<T>,
            schema: SchemaGenerator::subschema_for::<T>,
        }
    }

    /// How an `Input<T>` parameter (the whole input) is decoded and described.
    pub struct Whole<T> {
        /// Decodes the whole input.
        pub decode: fn(Value) -> Result<T, ToolError>,
        /// The input's root schema.
        pub schema: fn() -> Schema,
    }

    /// The one place the expansion names the type of an `Input<T>` parameter.
    pub const fn whole<T: ToolParam>() -> Whole<T> {
        Whole {
            decode: crate::exec::decode::<T>,
            schema: crate::schema::root_schema::<T>,
        }
    }

    /// A parameter's default, as JSON for the schema.
    pub fn default_json<T: serde::Serialize>(default: fn() -> T) -> Option<Value> {
        serde_json::to_value(default()).ok()
    }

    /// The input passed every check but a value is absent: cannot happen; no panic if it does.
    pub fn input_bug() -> ToolError {
        ToolError::internal("a decoded parameter went missing")
    }

    /// Finishes a handler that returned a plain value or a `ToolOutput`.
    pub fn finish<R: IntoOutput>(value: R) -> CallResult {
        crate::exec::finish(value)
    }

    /// Finishes a handler that returned a `Result`.
    pub fn finish_result<T: IntoOutput, E: Into<ToolError>>(result: Result<T, E>) -> CallResult {
        crate::exec::finish_result(result)
    }

    /// A call that fails before it starts.
    pub fn fail(error: ToolError) -> CallFuture {
        crate::exec::fail(error)
    }

    /// Takes an extractor from the context.
    pub fn extract<T: FromContext>(ctx: &ToolContext) -> Result<T, ToolError> {
        T::from_context(ctx)
    }

    /// A type the model's input can provide.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool parameter",
        label = "this parameter must implement serde::Deserialize and schemars::JsonSchema",
        note = "derive both on your type (#[derive(Deserialize, JsonSchema)]), or, if the value comes from the tool context, implement tool_core::FromContext and mark the parameter #[ctx]"
    )]
    pub trait ToolParam: DeserializeOwned + JsonSchema {}
    impl<T: DeserializeOwned + JsonSchema> ToolParam for T {}

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
