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

#![warn(missing_docs)]

// The macro's expansion names `::tool_core`, which must also resolve inside this crate.
extern crate self as tool_core;

mod call;
pub mod catalog;
pub mod check;
pub mod context;
pub mod definition;
pub mod defs;
pub mod error;
pub mod exec;
pub mod output;
pub mod parallel;
pub mod protocol;
pub mod registry;
pub mod render;
pub mod sanitize;
pub mod schema;

#[cfg(test)]
mod test_json;

pub use context::{
    AuditRecord, AuditSink, BroadcastEvents, ContextBuilder, EventSink, FromContext, LogLevel,
    RequestHeaders, State, ToolContext, ToolEvent, ToolRoot, TracingAudit, TracingEvents,
};
pub use definition::{Annotations, DeclaredDomain, Domain, Example, Location, ToolDef};
pub use error::{ErrorKind, ToolError};
pub use output::{IntoOutput, Media, MediaKind, ToolOutput};
pub use registry::{DomainInfo, DynamicTool, Origin, Registry, RegistryError, Tool, ToolExample};
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
pub mod __private;
