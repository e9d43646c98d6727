//! When a call needs a person's yes ([`ApprovalPolicy`]), and the gate the executor holds it
//! at: after its input is checked, before anything of the tool runs and before its time limit
//! starts.

use std::time::Duration;

use serde_json::Value;

use crate::context::{ApprovalRequest, Decision, ToolContext};
use crate::error::{ErrorKind, ToolError};
use crate::registry::Tool;

/// Which calls need a person's yes besides those of tools that declare it
/// (`#[tool(approval)]`, which always do), and how long a person has to answer. The default
/// adds none.
///
/// ```
/// use tool_core::exec::ApprovalPolicy;
/// let policy: ApprovalPolicy = "destructive".parse().unwrap();
/// assert!(policy.destructive && !policy.write);
/// let policy = ApprovalPolicy::from_args(["write", "send_email", "domain:billing"]).unwrap();
/// assert!(policy.write);
/// assert_eq!(policy.tools, ["send_email"]);
/// assert_eq!(policy.domains, ["billing"]);
/// assert!(ApprovalPolicy::from_args(["never", "write"]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApprovalPolicy {
    /// Every destructive tool (`destructiveHint`, and not read-only).
    pub destructive: bool,
    /// Every tool that is not read-only.
    pub write: bool,
    /// These tools, by name.
    pub tools: Vec<String>,
    /// The tools of these domains.
    pub domains: Vec<String>,
    /// How long a person has to answer; then the call counts as denied. Default 5 minutes.
    pub timeout: Duration,
}

impl Default for ApprovalPolicy {
    fn default() -> Self {
        Self {
            destructive: false,
            write: false,
            tools: Vec::new(),
            domains: Vec::new(),
            timeout: Duration::from_secs(300),
        }
    }
}

/// A policy word that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// `never` with anything else.
    #[error("`never` cannot go with other approval rules (`{0}`)")]
    NeverWithOthers(String),
    /// Neither a rule nor a tool name nor `domain:NAME`.
    #[error(
        "`{0}` is not an approval rule: give destructive, write, never, a tool's name or domain:NAME"
    )]
    Unknown(String),
}

impl ApprovalPolicy {
    /// No call needs approval but those of tools that declare it.
    pub fn never() -> Self {
        Self::default()
    }

    /// The policy the words of `--approval` give: `destructive`, `write`, `never`, tool names
    /// and `domain:NAME`, any number (but `never` alone).
    pub fn from_args<S: AsRef<str>>(
        words: impl IntoIterator<Item = S>,
    ) -> Result<Self, PolicyError> {
        let mut policy = Self::default();
        let mut never = false;
        let mut others = None;
        for word in words {
            let word = word.as_ref();
            match word {
                "never" => never = true,
                "destructive" => policy.destructive = true,
                "write" => policy.write = true,
                _ => {
                    if let Some(domain) = word.strip_prefix("domain:") {
                        if !crate::definition::is_domain_name(domain) {
                            return Err(PolicyError::Unknown(word.to_owned()));
                        }
                        policy.domains.push(domain.to_owned());
                    } else if crate::definition::is_tool_name(word) {
                        policy.tools.push(word.to_owned());
                    } else {
                        return Err(PolicyError::Unknown(word.to_owned()));
                    }
                }
            }
            if word != "never" {
                others.get_or_insert_with(|| word.to_owned());
            }
        }
        match (never, others) {
            (true, Some(other)) => Err(PolicyError::NeverWithOthers(other)),
            _ => Ok(policy),
        }
    }

    /// Whether the policy itself asks for approval of `tool`'s calls (not counting the tool's
    /// own declaration: see [`needs`](Self::needs)).
    /// It goes by what the application trusts of the tool
    /// ([`Tool::trusted_annotations`]): a remote server's claim that its tool only reads
    /// does not spare a person the question.
    pub fn covers(&self, tool: &Tool) -> bool {
        let a = tool.trusted_annotations();
        (self.destructive && a.destructive && !a.read_only)
            || (self.write && !a.read_only)
            || self.tools.iter().any(|t| t == tool.name())
            || self.domains.iter().any(|d| *d == tool.domain().name)
    }

    /// Whether a call of `tool` needs a person's yes: the tool says so, or the policy does.
    pub fn needs(&self, tool: &Tool) -> bool {
        tool.approval().is_some() || self.covers(tool)
    }

    /// Whether the policy adds nothing to the tools' own declarations.
    pub fn is_never(&self) -> bool {
        !self.destructive && !self.write && self.tools.is_empty() && self.domains.is_empty()
    }
}

impl std::str::FromStr for ApprovalPolicy {
    type Err = PolicyError;

    /// One word or several, separated by commas or spaces.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::from_args(text.split([',', ' ']).filter(|w| !w.is_empty()))
    }
}

/// What a person is shown about a call of `tool` with `arguments`: the tool's message with
/// each `{name}` replaced by the argument (a string as it is, anything else as JSON, `(none)`
/// when absent), or the default: the tool's label and name, and the arguments. Control and
/// invisible characters a model put in the arguments (a right-to-left override, say) are shown
/// escaped ([`reveal`](crate::error::sanitize::reveal)), so what the person reads is what would run.
///
/// ```
/// use serde_json::json;
/// use tool_core::{registry::DynamicTool, Registry, registry::ToolApproval};
/// let mut registry = Registry::empty();
/// registry.register(
///     DynamicTool::new("delete_branch", "Deletes a branch.", json!({"type": "object"}))
///         .label("Deleting a branch")
///         .approval(ToolApproval::with_message("Delete the branch {branch} ({force})?")),
/// ).unwrap();
/// let tool = registry.get("delete_branch").unwrap();
/// let message = tool_core::exec::approval_message(tool, &json!({"branch": "main"}));
/// assert_eq!(message, "Delete the branch main ((none))?");
/// ```
pub fn approval_message(tool: &Tool, arguments: &Value) -> String {
    let template = tool.approval().and_then(|a| a.message());
    if let Some(parts) = template.and_then(|t| crate::definition::approval_template(t).ok()) {
        let mut message = String::new();
        for part in parts {
            match part {
                crate::definition::TemplatePart::Text(text) => message.push_str(text),
                crate::definition::TemplatePart::Argument(name) => match arguments.get(name) {
                    Some(Value::String(text)) => message.push_str(text),
                    None | Some(Value::Null) => message.push_str("(none)"),
                    Some(other) => message.push_str(&other.to_string()),
                },
            }
        }
        return crate::error::sanitize::reveal(&message).into_owned();
    }
    let arguments = serde_json::to_string_pretty(arguments).unwrap_or_default();
    let message = format!(
        "{} (`{}`) with these arguments:\n{arguments}\nAllow this call?",
        tool.label(),
        tool.name()
    );
    crate::error::sanitize::reveal(&message).into_owned()
}

/// `timeout` as people read it: `300 s`, `1.5 s`, `50 ms`.
fn seconds(timeout: Duration) -> String {
    match timeout.as_millis() {
        ms if ms < 1000 => format!("{ms} ms"),
        ms if ms % 1000 == 0 => format!("{} s", ms / 1000),
        ms => format!("{:.1} s", ms as f64 / 1000.0),
    }
}

/// What the gate decided, for the audit record: the decision's word and the message shown.
pub(crate) struct Asked {
    pub(crate) decision: &'static str,
    pub(crate) message: String,
}

/// Asks the approver on `ctx` (the caller's) about the call `call_id` of `tool` with
/// `arguments` (checked already): `Ok` to run it, else the error the call ends with. Bounded by
/// `timeout` and by the call's cancellation.
pub(crate) async fn ask(
    tool: &Tool,
    arguments: &Value,
    ctx: &ToolContext,
    call_id: &str,
    timeout: Duration,
) -> (Result<(), ToolError>, Asked) {
    let message = approval_message(tool, arguments);
    let not = |text: String| ToolError::new(ErrorKind::NotApproved, text);
    let Some(approver) = ctx.approver() else {
        let error = not(format!(
            "`{}` needs a person's approval, and no one can be asked here: the call was not run",
            tool.name()
        ));
        return (
            Err(error),
            Asked {
                decision: "unavailable",
                message,
            },
        );
    };
    // One instant for the timer and the request: an approver dropped by the timer finds the
    // deadline passed.
    let deadline = std::time::Instant::now() + timeout;
    let request = ApprovalRequest {
        tool: tool.name(),
        label: tool.label(),
        call_id,
        arguments,
        message: &message,
        annotations: tool.trusted_annotations(),
        deadline: Some(deadline),
        context: ctx,
    };
    let decision = tokio::select! {
        biased;
        () = ctx.cancellation().cancelled() => None,
        decision = tokio::time::timeout_at(deadline.into(), approver.approve(&request)) => Some(decision),
    };
    let (result, word) = match decision {
        None => (
            Err(ToolError::new(
                ErrorKind::Cancelled,
                format!(
                    "the call to `{}` was cancelled while it waited for approval",
                    tool.name()
                ),
            )),
            "cancelled",
        ),
        Some(Err(_)) => (
            Err(not(format!(
                "no one approved the call to `{}` within {}: it counts as denied and was not run",
                tool.name(),
                seconds(timeout)
            ))),
            "timed_out",
        ),
        Some(Ok(decision)) => {
            let word = decision.as_str();
            let result = match decision {
                Decision::Approved { .. } => Ok(()),
                Decision::Denied { reason } => Err(not(match reason {
                    Some(reason) if !reason.trim().is_empty() => format!(
                        "a person declined the call to `{}`: {reason}; it was not run",
                        tool.name()
                    ),
                    _ => format!(
                        "a person declined the call to `{}`; it was not run",
                        tool.name()
                    ),
                })),
                Decision::Unavailable { why } => Err(not(format!(
                    "`{}` needs a person's approval, and no one could be asked ({why}): the call \
                     was not run",
                    tool.name()
                ))),
                Decision::Asked { why } => Err(not(why)),
            };
            (result, word)
        }
    };
    (
        result,
        Asked {
            decision: word,
            message,
        },
    )
}
