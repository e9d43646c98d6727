//! Asking a person before a call runs, over MCP: the question is an elicitation to the call's
//! own client (a request in a session, a question in the call's `InputRequiredResult` in
//! 2026-07-28, `input_required` in a task), in every era; a client that cannot be asked gets a
//! refusal it can show, never a silent run.

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Value, json};
use tool_core::{ApprovalFuture, ApprovalRequest, Approver, Decision, FromContext as _, Remember};

use crate::ask::McpPeer;

/// The server's approver: asks the call's client to ask its user ([`McpPeer::elicit`]), with
/// a form that shows the call and offers, as explicit choices, to approve identical calls or
/// every call of the tool for the rest of the session. A [`McpServer`](crate::McpServer)
/// installs it (wrapped in [`tool_core::Remembering`]) unless its base context has an
/// approver of its own.
///
/// The answer comes from the client's user: MCP clients show an elicitation to a person and
/// never to the model, so a model cannot approve its own call.
#[derive(Debug, Default, Clone, Copy)]
pub struct ElicitApprover;

/// The choices of the form's `remember` field, as shown, and what each keeps.
const REMEMBER: [(&str, Remember); 3] = [
    ("only this call", Remember::No),
    ("identical calls", Remember::SameArguments),
    ("every call of this tool", Remember::AnyArguments),
];

/// The form a person fills: whether to run the call, how far the answer reaches, and why not.
fn form(request: &ApprovalRequest<'_>) -> Option<ElicitRequestParams> {
    let choices: Vec<&str> = REMEMBER.iter().map(|(label, _)| *label).collect();
    let message = format!(
        "{}\n\n(The tool `{}` asks for approval before it runs.)",
        request.message, request.tool
    );
    serde_json::from_value(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Run this call",
                    "description": "Yes runs the call; no declines it.",
                    "default": false,
                },
                "remember": {
                    "type": "string",
                    "title": "This answer covers",
                    "enum": choices,
                    "default": REMEMBER[0].0,
                },
                "reason": {
                    "type": "string",
                    "title": "Why not (if you decline)",
                },
            },
            "required": ["approve"],
        },
    }))
    .ok()
}

/// The decision an elicitation's answer gives.
fn decision(answer: ElicitResult) -> Decision {
    let content = answer.content.unwrap_or(Value::Null);
    let reason = content
        .get("reason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned);
    match answer.action {
        ElicitationAction::Accept if content.get("approve") == Some(&Value::Bool(true)) => {
            let chosen = content.get("remember").and_then(Value::as_str);
            let remember = REMEMBER
                .iter()
                .find(|(label, _)| Some(*label) == chosen)
                .map_or(Remember::No, |(_, r)| *r);
            Decision::Approved { remember }
        }
        ElicitationAction::Accept => Decision::denied(reason),
        ElicitationAction::Decline => {
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

    fn answer(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
        let mut result = ElicitResult::new(action);
        result.content = content;
        result
    }

    #[test]
    fn the_form_reads_as_an_elicitation_and_its_answers_as_decisions() {
        let ctx = ToolContext::new();
        let arguments = json!({"branch": "main"});
        let request = ApprovalRequest::new("delete_branch", &arguments, "Delete main?", &ctx);
        let params = form(&request).expect("a valid elicitation");
        let wire = serde_json::to_value(&params).unwrap();
        assert_eq!(wire["requestedSchema"]["required"], json!(["approve"]));
        assert!(
            wire["message"]
                .as_str()
                .unwrap()
                .starts_with("Delete main?")
        );

        use ElicitationAction::{Accept, Cancel, Decline};
        let cases = [
            (
                answer(Accept, Some(json!({"approve": true}))),
                Decision::approved(),
            ),
            (
                answer(
                    Accept,
                    Some(json!({"approve": true, "remember": "identical calls"})),
                ),
                Decision::Approved {
                    remember: Remember::SameArguments,
                },
            ),
            (
                answer(
                    Accept,
                    Some(json!({"approve": true, "remember": "every call of this tool"})),
                ),
                Decision::Approved {
                    remember: Remember::AnyArguments,
                },
            ),
            (
                answer(
                    Accept,
                    Some(json!({"approve": false, "reason": " too risky "})),
                ),
                Decision::denied(Some("too risky".to_owned())),
            ),
            // A form accepted without `approve: true` is no yes.
            (answer(Accept, Some(json!({}))), Decision::denied(None)),
            (answer(Accept, None), Decision::denied(None)),
            (
                answer(Decline, None),
                Decision::denied(Some("the user declined".to_owned())),
            ),
            (
                answer(Cancel, None),
                Decision::denied(Some("the user dismissed the question".to_owned())),
            ),
        ];
        for (answer, expected) in cases {
            assert_eq!(decision(answer.clone()), expected, "{answer:?}");
        }
    }
}
