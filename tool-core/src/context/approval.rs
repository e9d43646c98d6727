//! Holding a call for a person: who is asked (an [`Approver`] on the context, as the audit and
//! event sinks are), what they are asked ([`ApprovalRequest`]), and what they answer
//! ([`Decision`]). When a call needs approval is the executor's to say
//! ([`ApprovalPolicy`](crate::exec::ApprovalPolicy)).

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use serde_json::Value;

use super::tool_context::ToolContext;
use crate::definition::Annotations;

/// What a person is asked about one call: the tool, the arguments it would run with (checked
/// against its input already), and the message to show.
#[derive(Debug)]
#[non_exhaustive]
pub struct ApprovalRequest<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The tool's label ("Deleting the branch").
    pub label: &'a str,
    /// The call's id.
    pub call_id: &'a str,
    /// The arguments, as the call gives them.
    pub arguments: &'a Value,
    /// What to show the person: the tool's approval message with the arguments put in, or the
    /// default one that names the tool and shows the arguments.
    pub message: &'a str,
    /// The tool's behaviour hints (read-only, destructive, ...).
    pub annotations: Annotations,
    /// When the wait ends and the call counts as denied, if the asker bounds it (the executor
    /// always does: its policy's timeout from when it asks), so an approver can show the time
    /// left, and tell a wait that timed out (dropped at or after it) from one that was
    /// withdrawn.
    pub deadline: Option<Instant>,
    /// The context of the call's caller: its principal, its extensions (an MCP server's
    /// client, say), its cancellation.
    pub context: &'a ToolContext,
}

/// A person's answer, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Run the call; `remember` says whether this answer stands for other calls too.
    Approved {
        /// What the answer covers beyond this call (never more than the person chose).
        remember: Remember,
    },
    /// Do not run it, with the person's reason when they gave one.
    Denied {
        /// Why, in the person's words.
        reason: Option<String>,
    },
    /// No one could be asked (no approver, a client that cannot be asked, a closed page): the
    /// call is not run.
    Unavailable {
        /// Why no one could be asked.
        why: String,
    },
    /// The question went out with the call's own answer (MCP 2026-07-28: an
    /// `InputRequiredResult`); the call is made again with the person's answer, and asked
    /// again then. The call is not run now.
    Asked {
        /// What happens next, for the caller.
        why: String,
    },
}

impl Decision {
    /// Approved for this call alone.
    pub fn approved() -> Self {
        Self::Approved {
            remember: Remember::No,
        }
    }

    /// Denied, with the person's reason if any.
    pub fn denied(reason: impl Into<Option<String>>) -> Self {
        Self::Denied {
            reason: reason.into(),
        }
    }

    /// The word the audit record keeps: `approved`, `denied`, `unavailable`, `asked`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Approved { .. } => "approved",
            Self::Denied { .. } => "denied",
            Self::Unavailable { .. } => "unavailable",
            Self::Asked { .. } => "asked",
        }
    }
}

/// What an approval covers beyond the call it answers. Never a default: the person chooses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Remember {
    /// This call alone.
    #[default]
    No,
    /// Calls of the same tool with the same arguments, by the same caller.
    SameArguments,
    /// Every call of the same tool by the same caller, whatever its arguments.
    AnyArguments,
}

/// What an [`Approver`] returns.
pub type ApprovalFuture<'a> = Pin<Box<dyn Future<Output = Decision> + Send + 'a>>;

/// Who is asked before a call that needs approval runs: a person at a terminal, on a page, in
/// an MCP client. Installed on the context ([`ContextBuilder::approver`]), it reaches calls that
/// tools make to other tools too. The executor bounds the wait
/// ([`ApprovalPolicy::timeout`](crate::exec::ApprovalPolicy::timeout)) and stops it when the
/// call is cancelled, so an approver may wait as long as it likes.
///
/// Its answer must come from a person, never from anything a model can write: not from the
/// call's arguments, nor from a tool's output.
///
/// ```
/// use tool_core::{ApprovalFuture, ApprovalRequest, Approver, Decision};
/// /// Approves what may not change anything, and nothing else.
/// struct ReadOnlyOnly;
/// impl Approver for ReadOnlyOnly {
///     fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
///         let read_only = request.annotations.read_only;
///         Box::pin(async move {
///             if read_only { Decision::approved() } else { Decision::denied("writes".to_owned()) }
///         })
///     }
/// }
/// ```
///
/// [`ContextBuilder::approver`]: crate::ContextBuilder::approver
pub trait Approver: Send + Sync {
    /// Asks about `request`, and returns the answer.
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a>;
}

impl<A: Approver + ?Sized> Approver for std::sync::Arc<A> {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        (**self).approve(request)
    }
}

/// Who an approval belongs to when the caller is not authenticated: a session, a connection,
/// a terminal. Put it on the context (as an extension) where such a scope exists; without it
/// and without a [`Principal`](crate::Principal), no approval is remembered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ApprovalScope(pub std::sync::Arc<str>);

/// An [`Approver`] that keeps the approvals a person chose to keep ([`Remember`]) and answers
/// later calls they cover without asking. Each is bound to its caller (the principal's issuer
/// and subject, or else the context's [`ApprovalScope`]; a call with neither is always asked),
/// to the tool, and, unless the person chose every call of the tool, to the exact arguments
/// (compared as JSON, whatever the order of their members): an approval for one call never
/// runs another.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use tool_core::{Annotations, ApprovalFuture, ApprovalRequest, Approver, Decision};
/// use tool_core::{Remember, Remembering, ToolContext};
/// struct Once(AtomicUsize);
/// impl Approver for Once {
///     fn approve<'a>(&'a self, _: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
///         self.0.fetch_add(1, Ordering::Relaxed);
///         Box::pin(async { Decision::Approved { remember: Remember::SameArguments } })
///     }
/// }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let approver = Remembering::new(Once(AtomicUsize::new(0)));
/// let ctx = ToolContext::builder().principal("ada").build();
/// let ask = |arguments: serde_json::Value| {
///     let approver = &approver;
///     let ctx = &ctx;
///     async move {
///         let request = ApprovalRequest::new("delete_branch", &arguments, "Delete?", ctx);
///         approver.approve(&request).await
///     }
/// };
/// assert!(matches!(ask(serde_json::json!({"b": "x"})).await, Decision::Approved { .. }));
/// assert!(matches!(ask(serde_json::json!({"b": "x"})).await, Decision::Approved { .. }));
/// ask(serde_json::json!({"b": "y"})).await; // other arguments: asked again
/// assert_eq!(approver.inner().0.load(Ordering::Relaxed), 2);
/// # });
/// ```
pub struct Remembering<A> {
    inner: A,
    kept: Mutex<HashSet<Kept>>,
}

/// One kept approval: who, which tool, and which arguments (`None`: any).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Kept {
    who: String,
    tool: String,
    arguments: Option<String>,
}

impl<A> Remembering<A> {
    /// Keeps what `inner`'s answers say to keep.
    pub fn new(inner: A) -> Self {
        Self {
            inner,
            kept: Mutex::new(HashSet::new()),
        }
    }

    /// The approver it asks.
    pub fn inner(&self) -> &A {
        &self.inner
    }

    /// Forgets every kept approval (a session that ends, a person who changes their mind).
    pub fn forget(&self) {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

/// Who a request's caller is, for keeping approvals: `None` when it cannot be told apart.
fn who(request: &ApprovalRequest<'_>) -> Option<String> {
    if let Some(principal) = request.context.principal() {
        return Some(
            serde_json::json!(["principal", principal.issuer(), principal.subject()]).to_string(),
        );
    }
    let scope = request.context.extension::<ApprovalScope>()?;
    Some(serde_json::json!(["scope", &*scope.0]).to_string())
}

impl<A: Approver> Approver for Remembering<A> {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        Box::pin(async move {
            let Some(who) = who(request) else {
                return self.inner.approve(request).await;
            };
            let arguments =
                String::from_utf8_lossy(&crate::json::canonical(request.arguments)).into_owned();
            let exact = Kept {
                who: who.clone(),
                tool: request.tool.to_owned(),
                arguments: Some(arguments.clone()),
            };
            let any = Kept {
                arguments: None,
                ..exact.clone()
            };
            {
                let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
                if kept.contains(&exact) || kept.contains(&any) {
                    return Decision::Approved {
                        remember: Remember::No,
                    };
                }
            }
            let decision = self.inner.approve(request).await;
            if let Decision::Approved { remember } = &decision {
                let keep = match remember {
                    Remember::No => None,
                    Remember::SameArguments => Some(exact),
                    Remember::AnyArguments => Some(any),
                };
                if let Some(keep) = keep {
                    self.kept
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(keep);
                }
            }
            decision
        })
    }
}

impl<'a> ApprovalRequest<'a> {
    /// A request about a call of `tool` with `arguments`, showing `message`, made in `context`
    /// (for approvers' tests and for adapters that ask outside the executor).
    pub fn new(
        tool: &'a str,
        arguments: &'a Value,
        message: &'a str,
        context: &'a ToolContext,
    ) -> Self {
        Self {
            tool,
            label: tool,
            call_id: context.call_id(),
            arguments,
            message,
            annotations: Annotations::default(),
            deadline: None,
            context,
        }
    }
}
