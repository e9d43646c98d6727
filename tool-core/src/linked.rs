//! The const record that `#[tool]` submits to `inventory` for every tool, and `domain!`: the
//! macros' half of a definition, public only through `__private`.
//!
//! Everything here is `'static` data and `fn` pointers, so a definition costs nothing at start-up
//! and the macro's expansion stays small: the heavy lifting (schemas, decoding, calling) lives in
//! ordinary runtime code that takes these records as input. A user reads a definition through
//! [`Tool`](crate::registry::Tool); a `ToolDef`'s handler runs a tool bare, so it is not for users.

use std::time::Duration;

use schemars::Schema;
use serde_json::Value;

use crate::call::CallFuture;
use crate::context::ToolContext;
use crate::definition::{Annotations, Domain, Example, Icon, Location};

/// Declares a domain that tools can name in `#[tool(domain = ...)]`.
///
/// The domain becomes an empty braced struct: it lives in the type namespace only, so a local
/// variable or parameter of the same name (a `time` parameter in the `time` domain) is not
/// affected. Import it like any item (`use crate::domains::time;`). A misspelled domain in
/// `#[tool]` is an ordinary "cannot find type" error with rustc's own spelling suggestion.
///
/// ```
/// use tool_core::prelude::*;
/// tool_core::domain!(pub account, "The signed-in account: profile, email, plan");
///
/// /// Returns the signed-in user's email address.
/// #[tool(domain = account, label = "Reading the email", hint = "The user's email")]
/// fn get_email() -> String {
///     "ada@example.com".into()
/// }
///
/// let registry = Registry::linked().unwrap();
/// assert_eq!(registry.get("get_email").unwrap().domain().name, "account");
/// ```
///
/// Names must be snake_case; anything else fails at compile time:
///
/// ```compile_fail
/// tool_core::domain!(pub MyDomain, "Bad name");
/// ```
#[macro_export]
macro_rules! domain {
    ($vis:vis $name:ident, $description:expr $(,)?) => {
        #[allow(non_camel_case_types)]
        #[doc = $description]
        $vis struct $name {}

        impl $crate::definition::DeclaredDomain for $name {
            const DOMAIN: &'static $crate::definition::Domain = &$crate::definition::Domain {
                name: ::core::stringify!($name),
                description: $description,
            };
        }

        const _: () = ::core::assert!(
            $crate::__private::is_domain_name(::core::stringify!($name)),
            ::core::concat!(
                "domain `", ::core::stringify!($name),
                "` is not snake_case: use lowercase ASCII letters, digits and single underscores",
            ),
        );
        const _: () = ::core::assert!(
            !$crate::__private::is_blank($description),
            ::core::concat!("domain `", ::core::stringify!($name), "` needs a one-line description"),
        );
    };
}

/// Builds the root schema of a tool's input type.
pub type SchemaFn = fn() -> Schema;

/// Builds the root schema of a tool's output type, when it has one.
pub type OutputSchemaFn = fn() -> Option<Schema>;

/// Decodes the input and starts the handler; the future owns everything it needs. The context
/// is borrowed: a sync tool runs before this returns, and an async tool that reads the context
/// clones it into its future, so a call that does not need it costs no reference count.
pub type HandlerFn = fn(Value, &ToolContext) -> CallFuture;

/// A function of a definition that only tool-core calls: the macro's expansion seals it with
/// [`Sealed::new`] and nothing outside tool-core can take it out, so a definition collected
/// with `inventory` gives no way to run a tool, read a resource or get a prompt past the
/// executor.
#[derive(Clone, Copy)]
pub struct Sealed<F>(F);

impl<F> Sealed<F> {
    /// Seals `f`.
    pub const fn new(f: F) -> Self {
        Self(f)
    }

    /// The function, for tool-core alone.
    pub(crate) fn open(self) -> F {
        self.0
    }
}

impl<F> std::fmt::Debug for Sealed<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealed")
    }
}

/// The definition of a tool written with `#[tool]`. Built by the macro only; read it through
/// [`Tool`](crate::registry::Tool) in a [`Registry`](crate::Registry).
#[derive(Debug)]
pub struct ToolDef {
    /// Unique snake_case verb_noun name.
    pub name: &'static str,
    /// For the model: what the tool returns and when to use it (the doc comment).
    pub description: &'static str,
    /// Whether `description` is the doc comment as written, not yet made the text the model
    /// reads: so when any part of it came from an expression (`#[doc = include_str!("..")]`),
    /// which the macro cannot read. The registry trims it as the macro trims `///` lines.
    pub raw_description: bool,
    /// The domain the tool belongs to.
    pub domain: &'static Domain,
    /// Shown to people while the tool runs, e.g. "Reading the clock".
    pub label: &'static str,
    /// One catalog sentence.
    pub hint: &'static str,
    /// Offered on every round (otherwise deferred and found by search).
    pub core: bool,
    /// Behaviour hints.
    pub annotations: Annotations,
    /// Whether a voice UI should speak the label while the tool runs.
    pub voiced: bool,
    /// Whether the result goes back to the model for another pass.
    pub feeds_back: bool,
    /// Whether an MCP result carries the text mirror of its structured content (the echo) as
    /// well as the content itself; `false` only for a tool with an output schema.
    pub mirror: bool,
    /// A sync function that may block for long: run on the blocking pool, not on the async
    /// workers.
    pub blocking: bool,
    /// Whether, over MCP, a call from a client that declared the tasks extension
    /// (`io.modelcontextprotocol/tasks`, protocol 2026-07-28) may or must be answered with a
    /// task the client polls, instead of the result. For every other caller it is a normal call.
    pub task: crate::definition::TaskSupport,
    /// How long a call runs before it becomes a task (`#[tool(task_after = "0s")]`); the
    /// server's threshold when `None`.
    pub task_after: Option<Duration>,
    /// A call needs a person's yes before it runs (`#[tool(approval)]`), with the message to
    /// show them; `None`: only when the executor's policy says so.
    pub approval: Option<ApprovalDef>,
    /// Per-tool time limit, enforced by the executor.
    pub timeout: Option<Duration>,
    /// Attempts after the first for transient errors, enforced by the executor.
    pub retries: u32,
    /// OAuth scopes a caller must hold to see and call the tool, beyond the server's own
    /// (`#[tool(scopes("issues:write"))]`). Enforced where the server established a caller.
    pub scopes: &'static [&'static str],
    /// Optional "view in app" link.
    pub source: Option<&'static str>,
    /// What a host that renders MCP Apps shows for the tool's calls (`view`, `card`).
    pub view: ViewDef,
    /// Who the tool is offered to (`visibility`).
    pub visibility: crate::definition::Visibility,
    /// Icons a client can show for the tool (MCP's `icons`).
    pub icons: &'static [Icon],
    /// Sample inputs.
    pub examples: &'static [Example],
    /// The input key the body of a tag call fills (`#[arg(body)]`), in the text tag protocol.
    pub body: Option<&'static str>,
    /// Schema of the input object.
    pub input_schema: SchemaFn,
    /// Schema of the structured output (`None` when the output type does not implement
    /// `JsonSchema`).
    pub output_schema: OutputSchemaFn,
    /// Decode and run.
    pub handler: Sealed<HandlerFn>,
    /// Whether the handler is an `async fn`.
    pub is_async: bool,
    /// Where the tool was written.
    pub location: Location,
}

inventory::collect!(ToolDef);

/// `#[tool(view = "...")]` or `#[tool(card)]`: the tool's view, if it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewDef {
    /// No view of its own (a server may still show the default card for it).
    None,
    /// The HTML file `view` named, read at compile time.
    Html(&'static str),
    /// The framework's card.
    Card,
}

/// `#[tool(approval)]` or `#[tool(approval = "...")]`: a call needs a person's yes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApprovalDef {
    /// What the person reads, `{name}` standing for the argument `name` (checked at compile
    /// time); `None` for the default message.
    pub message: Option<&'static str>,
}
