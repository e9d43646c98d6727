//! The request-scoped context every call runs in ([`ToolContext`]), what it carries (headers,
//! a root, typed extensions, the sinks for audit records and UI events, the approver asked
//! before calls that need a person's yes), and the extractors a handler can take from it
//! ([`FromContext`]).
//!
//! The modules stand in layers: the leaves ([`RequestHeaders`], [`ToolRoot`], the audit and
//! event types, a person's [`Decision`]) know nothing of the context; `tool_context` builds on
//! them, with the [`Approver`] it carries and the [`ApprovalRequest`] that carries it (each
//! names the other); `approval` (keeping a person's answers) and `extract` build on it.

mod approval;
mod audience;
mod audit;
mod decision;
mod events;
mod extract;
mod headers;
mod principal;
mod rerun;
mod root;
mod tool_context;

pub use approval::{ApprovalScope, Remembering};
pub use audience::Audience;
pub use audit::{AuditRecord, AuditSink, JsonLinesAudit, TracingAudit};
pub use decision::{Decision, Remember};
pub use events::{BroadcastEvents, EventSink, LogLevel, ToolEvent, TracingEvents};
pub use extract::{FromContext, State};
pub use headers::RequestHeaders;
pub use principal::Principal;
pub use rerun::Rerun;
pub use root::ToolRoot;
/// The token a call is cancelled through: a `#[ctx]` parameter of this type is the call's.
pub use tokio_util::sync::CancellationToken;
pub(crate) use tool_context::NestedCalls;
pub use tool_context::{ApprovalFuture, ApprovalRequest, Approver, ContextBuilder, ToolContext};
