//! A call held for a person's yes, as the pages see it: where the question is
//! ([`ApprovalState`]), the event they are sent about it ([`ApprovalEvent`]), and why an answer
//! is not taken ([`AnswerError`]). The hub sends these and the approver asks through the hub,
//! so they sit below both.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::context::Remember;

/// Where a question to the person is, in an [`ApprovalEvent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ApprovalState {
    /// Waiting for an answer: the card shows the buttons.
    Pending,
    /// The person approved (`remember` says for what else).
    Approved,
    /// The person denied (`reason`, when they gave one, goes to the model).
    Denied,
    /// No answer came in time: the call counts as denied.
    TimedOut,
    /// The call was cancelled while it waited.
    Cancelled,
    /// The call no longer waits for this page (answered elsewhere, say).
    Withdrawn,
}

/// A call held for a person's yes, as `GET /events` sends it (the `data:` of an
/// `event: approval`): once when it starts waiting (`pending`), once when that ends.
///
/// Every key is always present (`null` when it does not apply):
///
/// ```json
/// {"seq": 4, "id": 1, "call_id": "call_rm", "tool": "delete_file", "label": "Deleting a file",
///  "message": "Delete notes.txt?", "arguments": {"path": "notes.txt"}, "state": "denied",
///  "remember": null, "reason": "keep my notes", "timeout_ms": 300000, "elapsed_ms": 5120}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApprovalEvent {
    /// The event's number, in the same sequence as the tool events (also the SSE `id`).
    pub seq: u64,
    /// The question's number: `POST /approvals/{id}` answers it.
    pub id: u64,
    /// The call's id (the card it belongs to).
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The tool's label.
    pub label: String,
    /// What the person is asked, with the call's arguments; characters that could hide text
    /// (control, escape and invisible format characters) are shown as `\u{..}` escapes.
    pub message: String,
    /// The arguments the call would run with.
    pub arguments: Value,
    /// Where the question is.
    pub state: ApprovalState,
    /// When approved, what else the approval covers: `once`, `same_arguments` (identical
    /// calls this session) or `any_arguments` (every call of the tool this session).
    pub remember: Option<String>,
    /// When denied, the person's reason.
    pub reason: Option<String>,
    /// How long the person has, from when it was asked, when the wait is bounded.
    pub timeout_ms: Option<u64>,
    /// Milliseconds since it was asked.
    pub elapsed_ms: u64,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// No call waits under this number: answered already, timed out, or cancelled.
    #[error("no call waits for an answer to question {0}: it was answered, timed out or cancelled")]
    NotWaiting(u64),
    /// Only approved or denied answers a question.
    #[error("an answer approves or denies")]
    NotAnAnswer,
}

/// The word of [`ApprovalEvent::remember`] for `remember`.
pub(crate) fn remember_word(remember: Remember) -> &'static str {
    match remember {
        Remember::SameArguments => "same_arguments",
        Remember::AnyArguments => "any_arguments",
        _ => "once",
    }
}
