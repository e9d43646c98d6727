//! Calls held for a person's yes, asked on the page: the [`Approver`] that puts the question
//! to the pages and waits, and what an answer from the page says. What the pages are sent about
//! a question ([`ApprovalEvent`]) is `question`'s, below the hub that sends it.

use std::time::Instant;

use serde::Deserialize;
use tool_core::context::{ApprovalFuture, ApprovalRequest, Approver, Decision, Remember};
use tool_core::error::sanitize::reveal;

use crate::hub::Presence;
use crate::question::ApprovalState;

/// An [`Approver`] that asks on the presence page: the call's card shows the question with
/// Approve and Deny (and, as choices of their own, approving identical calls or every call of
/// the tool for the session), and the person's click is the answer. It waits until the answer
/// comes, however long: the executor bounds the wait (its policy's timeout) and ends it when
/// the call is cancelled, and the card then says so.
///
/// Answers come only from the page's own script, sent by a person's click: `POST
/// /approvals/{id}` with the page's secret (see [`Presence::router`]), from a loopback origin.
/// A model's arguments are shown on the card as text and never read as an answer.
///
/// ```
/// use std::sync::Arc;
/// use tool_core::{ToolContext, context::{Decision, Remembering, ApprovalScope}};
/// use tool_presence::{Presence, PresenceApprover};
///
/// let presence = Presence::new();
/// // Keep what the person chose for this session ("approve identical calls", ...).
/// let approver = Remembering::new(PresenceApprover::new(presence.clone()));
/// let ctx = ToolContext::builder()
///     .events(Arc::new(presence.clone()))
///     .approver(Arc::new(approver))
///     .extension(ApprovalScope("page session".into()))
///     .build();
/// # let _ = ctx;
/// ```
#[derive(Debug, Clone)]
pub struct PresenceApprover {
    presence: Presence,
}

impl PresenceApprover {
    /// Asks on the pages `presence` serves.
    pub fn new(presence: Presence) -> Self {
        Self { presence }
    }
}

impl Approver for PresenceApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        Box::pin(async move {
            let message = reveal(request.message).into_owned();
            let (id, answer) = self.presence.ask(request, message);
            let mut waiting = Waiting {
                presence: &self.presence,
                request,
                id,
                done: false,
            };
            let decision = answer.await;
            waiting.done = true;
            decision.unwrap_or_else(|_| Decision::Unavailable {
                why: "the page's question was dropped".to_owned(),
            })
        })
    }
}

/// A question on the page; dropped before its answer (the call was cancelled, timed out, or
/// answered elsewhere), it tells the pages why.
struct Waiting<'p, 'a> {
    presence: &'p Presence,
    request: &'a ApprovalRequest<'a>,
    id: u64,
    done: bool,
}

impl Drop for Waiting<'_, '_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let why = if self.request.context.cancellation().is_cancelled() {
            ApprovalState::Cancelled
        } else if self
            .request
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            ApprovalState::TimedOut
        } else {
            ApprovalState::Withdrawn
        };
        self.presence.withdraw(self.id, why);
    }
}

/// An answer as the page sends it: `{"decision": "approve", "remember": "same_arguments"}`,
/// `{"decision": "deny", "reason": "..."}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PageAnswer {
    decision: PageDecision,
    #[serde(default)]
    remember: Option<PageRemember>,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum PageDecision {
    Approve,
    Deny,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum PageRemember {
    Once,
    SameArguments,
    AnyArguments,
}

/// The longest reason kept, in characters.
const REASON_CHARS: usize = 500;

impl PageAnswer {
    /// The decision it says, or why it says none.
    pub(crate) fn decision(self) -> Result<Decision, String> {
        match self.decision {
            PageDecision::Approve => {
                if self.reason.is_some() {
                    return Err("`reason` goes with `deny` only".to_owned());
                }
                let remember = match self.remember {
                    None | Some(PageRemember::Once) => Remember::No,
                    Some(PageRemember::SameArguments) => Remember::SameArguments,
                    Some(PageRemember::AnyArguments) => Remember::AnyArguments,
                };
                Ok(Decision::Approved { remember })
            }
            PageDecision::Deny => {
                if self.remember.is_some() {
                    return Err("`remember` goes with `approve` only".to_owned());
                }
                let reason = self
                    .reason
                    .map(|r| r.trim().chars().take(REASON_CHARS).collect::<String>())
                    .filter(|r| !r.is_empty());
                Ok(Decision::denied(reason))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::{AnswerError, ApprovalEvent};
    use std::sync::Arc;
    use std::time::Duration;
    use tool_core::{ToolContext, context::EventSink};

    fn read(body: &str) -> Result<Decision, String> {
        serde_json::from_str::<PageAnswer>(body)
            .map_err(|e| e.to_string())
            .and_then(PageAnswer::decision)
    }

    #[test]
    fn page_answers() {
        assert_eq!(read(r#"{"decision": "approve"}"#), Ok(Decision::approved()));
        assert_eq!(
            read(r#"{"decision": "approve", "remember": "any_arguments"}"#),
            Ok(Decision::Approved {
                remember: Remember::AnyArguments
            })
        );
        assert_eq!(
            read(r#"{"decision": "deny", "reason": "  not now "}"#),
            Ok(Decision::denied("not now".to_owned()))
        );
        assert_eq!(
            read(r#"{"decision": "deny", "reason": "  "}"#),
            Ok(Decision::denied(None))
        );
        for bad in [
            r#"{"decision": "maybe"}"#,
            r#"{"decision": "approve", "reason": "x"}"#,
            r#"{"decision": "deny", "remember": "once"}"#,
            r#"{"decision": "approve", "remember": "forever"}"#,
            r#"{"decision": "approve", "extra": 1}"#,
            r#"{}"#,
            "approve",
        ] {
            assert!(read(bad).is_err(), "{bad}");
        }
        let long = format!(r#"{{"decision": "deny", "reason": "{}"}}"#, "x".repeat(900));
        match read(&long) {
            Ok(Decision::Denied { reason: Some(r) }) => assert_eq!(r.len(), REASON_CHARS),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn an_answer_reaches_the_waiting_call_once() {
        let presence = Presence::new();
        let approver = PresenceApprover::new(presence.clone());
        let ctx = ToolContext::builder().call_id("call_1").build();
        let arguments = serde_json::json!({"path": "a\u{202e}b"});
        let mut request =
            ApprovalRequest::new("delete_file", &arguments, "Delete a\u{202e}b?", &ctx);
        request.deadline = Some(Instant::now() + Duration::from_secs(60));
        let asking = approver.approve(&request);
        let answering = async {
            while presence.pending_approvals().is_empty() {
                tokio::task::yield_now().await;
            }
            let pending = presence.pending_approvals();
            assert_eq!(pending.len(), 1);
            let question = &pending[0];
            assert_eq!(question.state, ApprovalState::Pending);
            assert_eq!(question.call_id, "call_1");
            assert_eq!(question.message, "Delete a\\u{202e}b?");
            let timeout = question.timeout_ms.unwrap();
            assert!(timeout > 59_000 && timeout <= 60_000, "{timeout}");
            assert_eq!(
                presence.answer(question.id, Decision::denied("no".to_owned())),
                Ok(ApprovalState::Denied)
            );
            // Once: a second answer finds nothing waiting.
            assert_eq!(
                presence.answer(question.id, Decision::approved()),
                Err(AnswerError::NotWaiting(question.id))
            );
        };
        let (decision, ()) = tokio::join!(asking, answering);
        assert_eq!(decision, Decision::denied("no".to_owned()));
        assert!(presence.pending_approvals().is_empty());
        assert_eq!(
            presence.answer(9, Decision::Unavailable { why: String::new() }),
            Err(AnswerError::NotAnAnswer)
        );
    }

    #[tokio::test]
    async fn a_wait_that_ends_unanswered_says_why() {
        let presence = Presence::new();
        let approver = Arc::new(PresenceApprover::new(presence.clone()));
        let arguments = serde_json::json!({});
        let states = |presence: &Presence| -> Vec<(u64, String)> {
            let (frames, _) = presence.subscribe_after(None);
            frames
                .into_iter()
                .filter_map(|f| match f.kind {
                    crate::hub::FrameKind::Approval(json) => {
                        let e: ApprovalEvent = serde_json::from_str(&json).unwrap();
                        Some((
                            e.id,
                            serde_json::to_value(e.state)
                                .unwrap()
                                .as_str()
                                .unwrap()
                                .to_owned(),
                        ))
                    }
                    _ => None,
                })
                .collect()
        };
        // Past its time.
        let ctx = ToolContext::new();
        let mut request = ApprovalRequest::new("delete_file", &arguments, "Delete?", &ctx);
        request.deadline = Some(Instant::now() + Duration::from_millis(30));
        assert!(
            tokio::time::timeout(Duration::from_millis(60), approver.approve(&request))
                .await
                .is_err()
        );
        // Cancelled.
        ctx.cancellation().cancel();
        assert!(
            tokio::time::timeout(Duration::from_millis(10), approver.approve(&request))
                .await
                .is_err()
        );
        // Dropped for another reason, before its time.
        let other = ToolContext::new();
        let request = ApprovalRequest::new("delete_file", &arguments, "Delete?", &other);
        assert!(
            tokio::time::timeout(Duration::from_millis(10), approver.approve(&request))
                .await
                .is_err()
        );
        assert_eq!(
            states(&presence),
            [
                (1, "pending".to_owned()),
                (1, "timed_out".to_owned()),
                (2, "pending".to_owned()),
                (2, "cancelled".to_owned()),
                (3, "pending".to_owned()),
                (3, "withdrawn".to_owned()),
            ]
        );
        assert!(presence.pending_approvals().is_empty());
    }

    #[tokio::test]
    async fn a_late_page_always_sees_the_calls_still_waiting() {
        let presence = Presence::with_replay(3);
        let approver = PresenceApprover::new(presence.clone());
        let ctx = ToolContext::new();
        let arguments = serde_json::json!({});
        let request = ApprovalRequest::new("delete_file", &arguments, "Delete?", &ctx);
        let asking = approver.approve(&request);
        tokio::pin!(asking);
        let waits = tokio::time::timeout(Duration::from_millis(10), &mut asking).await;
        assert!(waits.is_err(), "it waits for an answer");
        // More events than the replay keeps.
        for i in 0..5 {
            presence.emit(&crate::lifecycle::started(&format!("c{i}"), "t", "T"));
        }
        let (frames, _) = presence.subscribe_after(None);
        assert_eq!(frames.len(), 4, "the question, then the replay");
        assert!(matches!(frames[0].kind, crate::hub::FrameKind::Approval(_)));
        assert!(frames.windows(2).all(|w| w[0].seq < w[1].seq));
        // A new run clears the cards, and sends the question again.
        presence.new_run();
        let (frames, _) = presence.subscribe_after(None);
        assert_eq!(frames.len(), 1);
        assert!(matches!(frames[0].kind, crate::hub::FrameKind::Approval(_)));
        let id = presence.pending_approvals()[0].id;
        presence.answer(id, Decision::approved()).unwrap();
        assert_eq!(asking.await, Decision::approved());
    }
}
