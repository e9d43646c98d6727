//! The request-scoped context every call runs in ([`ToolContext`]), what it carries (headers,
//! a root, typed extensions, the sinks for audit records and UI events, the approver asked
//! before calls that need a person's yes), and the extractors a handler can take from it
//! ([`FromContext`]).
//!
//! The modules stand in layers: the leaves ([`RequestHeaders`], [`ToolRoot`], the audit and
//! event types) know nothing of the context; `tool_context` builds on them; `extract` on it.

mod approval;
mod audit;
mod events;
mod extract;
mod headers;
mod principal;
mod root;
mod tool_context;

pub use approval::{
    ApprovalFuture, ApprovalRequest, ApprovalScope, Approver, Decision, Remember, Remembering,
};
pub use audit::{AuditRecord, AuditSink, JsonLinesAudit, TracingAudit};
pub use events::{BroadcastEvents, EventSink, LogLevel, ToolEvent, TracingEvents};
pub use extract::{FromContext, State};
pub use headers::RequestHeaders;
pub use principal::Principal;
pub use root::ToolRoot;
pub(crate) use tool_context::NestedCalls;
pub use tool_context::{ContextBuilder, ToolContext};
