//! Keeping a person's answers: [`Remembering`] answers the later calls an approval covers
//! without asking again, bound to the caller ([`ApprovalScope`] when no one is signed in).
//! Who is asked and what ([`Approver`], [`ApprovalRequest`]) is the context's
//! (`tool_context`), what they answer is `decision`'s; when a call needs approval is the
//! executor's to say ([`ApprovalPolicy`](crate::exec::ApprovalPolicy)).

use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};

use super::decision::{Decision, Remember};
use super::tool_context::{ApprovalFuture, ApprovalRequest, Approver};

/// Who an approval belongs to when the caller is not authenticated: a session, a connection,
/// a terminal. Put it on the context (as an extension) where such a scope exists; without it
/// and without a [`Principal`](crate::context::Principal), no approval is remembered.
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
/// use tool_core::{definition::Annotations, context::{ApprovalFuture, ApprovalRequest, Approver, Decision}};
/// use tool_core::{ToolContext, context::{Remember, Remembering}};
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
                String::from_utf8_lossy(&crate::exec::canonical_json(request.arguments))
                    .into_owned();
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
