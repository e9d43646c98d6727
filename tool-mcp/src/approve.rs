//! Asking a person before a call runs, over MCP: the question is an elicitation to the call's
//! own client (a request in a session, a question in the call's `InputRequiredResult` in
//! 2026-07-28, `input_required` in a task), in every era; a client that cannot be asked gets a
//! refusal it can show, never a silent run.

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Value, json};
use tool_core::{
    context::FromContext as _,
    context::{ApprovalFuture, ApprovalRequest, Approver, Decision, Remember},
};

use crate::ask::McpPeer;

/// The server's approver: asks the call's client to ask its user ([`McpPeer::elicit`]), with
/// a form that shows the call and reads as a person expects: the host's own Accept runs the
/// call, Decline refuses it, Cancel (or closing the question) leaves it unrun. The form holds
/// only how far a yes reaches (this call, identical calls, or every call of the tool for the
/// rest of the session: explicit choices, this call alone by default) and an optional reason
/// for a no. A [`McpServer`](crate::McpServer) installs it (wrapped in
/// [`tool_core::context::Remembering`]) unless its base context has an approver of its own.
///
/// The answer comes from the client's user: MCP clients show an elicitation to a person and
/// never to the model, so a model cannot approve its own call.
#[derive(Debug, Default, Clone, Copy)]
pub struct ElicitApprover;

/// The choices of the form's `remember` field, as shown, and what each keeps. The first is the
/// default: an Accept with an empty form runs this call once and keeps nothing.
const REMEMBER: [(&str, Remember); 3] = [
    ("only this call", Remember::No),
    ("identical calls", Remember::SameArguments),
    ("every call of this tool", Remember::AnyArguments),
];

/// The form a person fills: how far a yes reaches, and why not. Whether to run the call is the
/// host's Accept or Decline, never a field, so no field is required.
fn form(request: &ApprovalRequest<'_>) -> Option<ElicitRequestParams> {
    let choices: Vec<&str> = REMEMBER.iter().map(|(label, _)| *label).collect();
    let message = format!(
        "{}\n\n(The tool `{}` asks for approval before it runs: accept to run it, decline to \
         refuse it.)",
        request.message, request.tool
    );
    serde_json::from_value(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "remember": {
                    "type": "string",
                    "title": "Accepting runs",
                    "description": "Identical calls, or every call of this tool, run without \
                                    asking again for the rest of this session.",
                    "enum": choices,
                    "default": REMEMBER[0].0,
                },
                "reason": {
                    "type": "string",
                    "title": "Why not (if you decline)",
                    "description": "Shown to the model that made the call.",
                },
            },
        },
    }))
    .ok()
}

/// The decision an elicitation's answer gives: Accept approves, Decline denies (with the
/// person's reason, if the answer carries one), Cancel denies as dismissed.
///
/// An accepted answer that the form does not allow (no content, content that is not an
/// object, a `remember` that is none of the choices: another string, a number) approves this
/// call alone and keeps nothing. Such a choice is ignored rather than refused: whatever the
/// form holds, the person accepted this call, and this call alone is the least their Accept
/// says; a choice that cannot be read never widens it.
fn decision(answer: ElicitResult) -> Decision {
    let content = answer.content.unwrap_or(Value::Null);
    match answer.action {
        ElicitationAction::Accept => {
            let chosen = content.get("remember");
            let remember = match chosen {
                None | Some(Value::Null) => Remember::No,
                Some(value) => REMEMBER
                    .iter()
                    .find(|(label, _)| value.as_str() == Some(*label))
                    .map(|(_, remember)| *remember)
                    .unwrap_or_else(|| {
                        tracing::warn!(
                            remember = %value,
                            "an approval's `remember` is none of the form's choices: this call \
                             alone is approved"
                        );
                        Remember::No
                    }),
            };
            Decision::Approved { remember }
        }
        ElicitationAction::Decline => {
            let reason = content
                .get("reason")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(str::to_owned);
            Decision::denied(reason.or_else(|| Some("the user declined".to_owned())))
        }
        _ => Decision::denied(Some("the user dismissed the question".to_owned())),
    }
}

impl Approver for ElicitApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        Box::pin(async move {
            let client = match McpPeer::from_context(request.context) {
                Ok(client) => client,
                Err(_) => {
                    return Decision::Unavailable {
                        why: "the call did not come over MCP".into(),
                    };
                }
            };
            if let Err(why) = client.can_elicit() {
                return Decision::Unavailable { why };
            }
            let Some(params) = form(request) else {
                return Decision::Unavailable {
                    why: "the approval form could not be made".into(),
                };
            };
            match client.elicit(params).await {
                Ok(answer) => decision(answer),
                // Asked through the call's answer (2026-07-28): the client's user answers, and
                // the call is made again with the answer.
                Err(_) if client.asks_by_answer() => Decision::Asked {
                    why: format!(
                        "`{}` waits for the user's approval: the question goes back with this \
                         answer, and the call is made again with theirs",
                        request.tool
                    ),
                },
                Err(error) => Decision::Unavailable {
                    why: error.message().to_owned(),
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tool_core::ToolContext;

    use ElicitationAction::{Accept, Cancel, Decline};

    fn answer(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
        let mut result = ElicitResult::new(action);
        result.content = content;
        result
    }

    fn once() -> Decision {
        Decision::approved()
    }

    #[test]
    fn the_form_asks_only_how_far_a_yes_reaches_and_why_not() {
        let ctx = ToolContext::new();
        let arguments = json!({"branch": "main"});
        let request = ApprovalRequest::new("delete_branch", &arguments, "Delete main?", &ctx);
        let params = form(&request).expect("a valid elicitation");
        let wire = serde_json::to_value(&params).unwrap();
        let message = wire["message"].as_str().unwrap();
        assert!(message.starts_with("Delete main?"), "{message}");
        assert!(message.contains("accept to run it"), "{message}");
        let schema = &wire["requestedSchema"];
        // Nothing to tick: the host's Accept is the yes, and an empty form is a valid answer.
        assert!(schema.get("required").is_none(), "{schema}");
        let fields: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(fields, ["remember", "reason"], "{schema}");
        let remember = &schema["properties"]["remember"];
        assert_eq!(remember["default"], "only this call");
        assert_eq!(
            remember["enum"],
            json!([
                "only this call",
                "identical calls",
                "every call of this tool"
            ])
        );
        // The default choice keeps nothing.
        assert_eq!(
            decision(answer(
                Accept,
                Some(json!({"remember": remember["default"]}))
            )),
            once()
        );
    }

    #[test]
    fn accept_runs_the_call_remembering_only_what_was_chosen() {
        let cases = [
            // An empty form, or none at all: this call, once.
            (Some(json!({})), once()),
            (None, once()),
            (Some(json!({"remember": "only this call"})), once()),
            (
                Some(json!({"remember": "identical calls"})),
                Decision::Approved {
                    remember: Remember::SameArguments,
                },
            ),
            (
                Some(json!({"remember": "every call of this tool"})),
                Decision::Approved {
                    remember: Remember::AnyArguments,
                },
            ),
            // A reason with an Accept is no refusal.
            (Some(json!({"reason": "fine"})), once()),
        ];
        for (content, expected) in cases {
            let answer = answer(Accept, content);
            assert_eq!(decision(answer.clone()), expected, "{answer:?}");
        }
    }

    /// What no form of ours asks for is ignored: the person accepted this call, and a choice
    /// that cannot be read widens nothing.
    #[test]
    fn a_malformed_accept_approves_this_call_alone() {
        for content in [
            json!({"remember": "forever"}),
            json!({"remember": "Identical calls"}),
            json!({"remember": 2}),
            json!({"remember": ["identical calls"]}),
            json!({"remember": {"choice": "every call of this tool"}}),
            json!({"remember": null}),
            json!("identical calls"),
            json!(["every call of this tool"]),
            json!(true),
            json!(null),
        ] {
            assert_eq!(
                decision(answer(Accept, Some(content.clone()))),
                once(),
                "{content}"
            );
        }
    }

    #[test]
    fn decline_and_cancel_leave_the_call_unrun() {
        let cases = [
            (
                answer(Decline, Some(json!({"reason": " too risky "}))),
                Decision::denied(Some("too risky".to_owned())),
            ),
            // A remember choice with a Decline keeps nothing.
            (
                answer(
                    Decline,
                    Some(json!({"remember": "every call of this tool"})),
                ),
                Decision::denied(Some("the user declined".to_owned())),
            ),
            (
                answer(Decline, Some(json!({"reason": "  "}))),
                Decision::denied(Some("the user declined".to_owned())),
            ),
            (
                answer(Decline, Some(json!({"reason": 7}))),
                Decision::denied(Some("the user declined".to_owned())),
            ),
            (
                answer(Decline, None),
                Decision::denied(Some("the user declined".to_owned())),
            ),
            (
                answer(Cancel, None),
                Decision::denied(Some("the user dismissed the question".to_owned())),
            ),
            (
                answer(Cancel, Some(json!({"remember": "identical calls"}))),
                Decision::denied(Some("the user dismissed the question".to_owned())),
            ),
        ];
        for (answer, expected) in cases {
            assert_eq!(decision(answer.clone()), expected, "{answer:?}");
        }
    }

    /// The answer as a client sends it, read the way every era reads it (a request's result,
    /// an `inputResponses` entry, a task's `tasks/update`): JSON to `ElicitResult`.
    #[test]
    fn answers_on_the_wire_read_as_decisions() {
        let read = |wire: Value| decision(serde_json::from_value(wire).unwrap());
        assert_eq!(read(json!({"action": "accept", "content": {}})), once());
        assert_eq!(read(json!({"action": "accept"})), once());
        assert_eq!(
            read(json!({"action": "decline", "content": {"reason": "keep it"}})),
            Decision::denied(Some("keep it".to_owned()))
        );
        assert!(matches!(
            read(json!({"action": "cancel"})),
            Decision::Denied { .. }
        ));
    }
}
