//! The context itself: what a call runs with, how one is built and derived, and how a tool's
//! calls to other tools reach the executor running it; and who it asks before a call that
//! needs a person's yes ([`Approver`]) and what ([`ApprovalRequest`]): the context carries the
//! approver and the question carries the context, so the two are written together.

use std::any::{Any, TypeId};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::audience::Audience;
use super::audit::{AuditSink, TracingAudit};
use super::decision::Decision;
use super::events::{EventSink, LogLevel, ToolEvent, TracingEvents};
use super::headers::RequestHeaders;
use super::principal::Principal;
use super::root::ToolRoot;
use crate::annotations::Annotations;
use crate::call::CallResult;
use crate::error::ToolError;

/// What a call runs with: its id, the caller's forwarded headers, a cancellation token, typed
/// extensions (configuration and shared state) and the sinks for audit records and UI events.
///
/// Cloning is cheap (one `Arc`). A handler takes `&ToolContext`, or a value from it marked
/// `#[ctx]`, such as [`State<T>`](crate::context::State), [`CancellationToken`] or [`RequestHeaders`].
///
/// ```
/// use tool_core::{ToolContext, context::RequestHeaders};
/// struct Root(&'static str);
/// let ctx = ToolContext::builder()
///     .call_id("call_1")
///     .headers(RequestHeaders::from_pairs([("X-Tenant", "acme")]))
///     .extension(Root("/srv"))
///     .build();
/// assert_eq!(ctx.call_id(), "call_1");
/// assert_eq!(ctx.extension::<Root>().map(|r| r.0), Some("/srv"));
/// assert_eq!(ctx.headers().get("x-tenant"), Some("acme"));
/// ```
#[derive(Clone)]
pub struct ToolContext {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    call_id: String,
    principal: Option<Principal>,
    root: Option<ToolRoot>,
    /// When the call must be done by (set by the executor; inner calls inherit it).
    deadline: Option<Instant>,
    /// How many tool calls enclose this one (0 for a call from a model).
    depth: usize,
    /// Who the call is made for: the tools it may reach.
    audience: Audience,
    /// What runs the call, for calls a tool makes to other tools.
    caller: Option<Arc<dyn NestedCalls>>,
    headers: RequestHeaders,
    cancel: CancellationToken,
    extensions: Arc<Extensions>,
    audit: Arc<dyn AuditSink>,
    events: Arc<dyn EventSink>,
    /// Who is asked before a call that needs approval; none: no one can be.
    approver: Option<Arc<dyn Approver>>,
    /// The executor only checks the input and the context's values: the tool must not run.
    validating: bool,
}

/// What runs the calls a tool makes to other tools ([`ToolContext::call_tool`]): the executor
/// running a call puts itself here, so the context, below the executor, needs no executor type.
pub(crate) trait NestedCalls: Send + Sync {
    /// Runs `name` with `input` as a call made from the call whose context is `parent`.
    fn call_nested<'a>(
        self: Arc<Self>,
        name: &'a str,
        input: serde_json::Value,
        parent: &'a ToolContext,
    ) -> std::pin::Pin<Box<dyn Future<Output = CallResult> + Send + 'a>>;
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.inner.call_id)
            .field("principal", &self.inner.principal)
            .field("depth", &self.inner.depth)
            .field("headers", &self.inner.headers)
            .field("cancelled", &self.inner.cancel.is_cancelled())
            .field("extensions", &self.inner.extensions.len())
            .finish_non_exhaustive()
    }
}

impl Default for ToolContext {
    fn default() -> Self {
        Self::builder().build()
    }
}

impl ToolContext {
    /// A context with a fresh call id and nothing else configured.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a context with every part chosen.
    pub fn builder() -> ContextBuilder {
        ContextBuilder::default()
    }

    /// A context for another call that shares this one's headers, extensions and sinks, with a
    /// new call id and a cancellation token that is cancelled when this one is.
    pub fn for_call(&self, call_id: impl Into<String>) -> Self {
        let inner = &self.inner;
        Self {
            inner: Arc::new(Inner {
                call_id: call_id.into(),
                principal: inner.principal.clone(),
                root: inner.root.clone(),
                deadline: inner.deadline,
                depth: inner.depth,
                audience: inner.audience,
                caller: inner.caller.clone(),
                headers: inner.headers.clone(),
                cancel: inner.cancel.child_token(),
                extensions: inner.extensions.clone(),
                audit: inner.audit.clone(),
                events: inner.events.clone(),
                approver: inner.approver.clone(),
                validating: false,
            }),
        }
    }

    /// A builder for a context that starts from this one: the same principal, root, headers,
    /// extensions (the builder's own extensions are layered over them) and sinks, a new call id,
    /// and a cancellation token cancelled when this one is. Servers use it to make each
    /// request's context from one configured base.
    ///
    /// ```
    /// use tool_core::{ToolContext, context::RequestHeaders};
    /// struct Config(u32);
    /// struct Caller(&'static str);
    /// let base = ToolContext::builder().extension(Config(7)).build();
    /// let ctx = base
    ///     .derive()
    ///     .call_id("req_1")
    ///     .headers(RequestHeaders::from_pairs([("x-user", "ada")]))
    ///     .extension(Caller("ada"))
    ///     .build();
    /// assert_eq!(ctx.extension::<Config>().map(|c| c.0), Some(7));
    /// assert_eq!(ctx.extension::<Caller>().map(|c| c.0), Some("ada"));
    /// assert!(base.extension::<Caller>().is_none());
    /// ```
    pub fn derive(&self) -> ContextBuilder {
        let inner = &self.inner;
        ContextBuilder {
            call_id: None,
            principal: inner.principal.clone(),
            root: inner.root.clone(),
            headers: inner.headers.clone(),
            cancel: Cancel::ChildOf(inner.cancel.clone()),
            extensions: Extensions {
                values: Vec::new(),
                parent: Some(inner.extensions.clone()),
            },
            audit: inner.audit.clone(),
            events: inner.events.clone(),
            approver: inner.approver.clone(),
            audience: inner.audience,
        }
    }

    /// The id of this call (from the model's tool call, or generated).
    pub fn call_id(&self) -> &str {
        &self.inner.call_id
    }

    /// Who the call is made for, when the server established it (its subject is recorded in
    /// audit records).
    pub fn principal(&self) -> Option<&Principal> {
        self.inner.principal.as_ref()
    }

    /// When the call must be done by, if there is a limit.
    pub fn deadline(&self) -> Option<Instant> {
        self.inner.deadline
    }

    /// How many tool calls enclose this one (0 for a call from a model).
    pub fn depth(&self) -> usize {
        self.inner.depth
    }

    /// Who the call is made for ([`Audience`]): the executor refuses a tool it may not see.
    pub fn audience(&self) -> Audience {
        self.inner.audience
    }

    /// This context for calls made for `audience`, [narrowed](Audience::narrowed) from this
    /// one's (never wider): the same call, id and cancellation. What an agent loop gives the
    /// model's calls, and code mode a script's.
    ///
    /// ```
    /// use tool_core::{ToolContext, context::Audience};
    /// let model = ToolContext::new().for_audience(Audience::Model);
    /// assert_eq!(model.audience(), Audience::Model);
    /// assert_eq!(model.for_audience(Audience::Any).audience(), Audience::Model);
    /// ```
    #[must_use]
    pub fn for_audience(&self, audience: Audience) -> Self {
        let mut inner = Inner::clone(&self.inner);
        inner.audience = inner.audience.narrowed(audience);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Calls another tool from inside a tool (a "skill" that aggregates tools): the inner call
    /// carries this call's headers, principal, cancellation and deadline, is audited and traced
    /// as a child, and the depth of such calls is bounded.
    ///
    /// Only calls run by an [`Executor`](crate::exec::Executor) can do this.
    pub async fn call_tool(&self, name: &str, input: serde_json::Value) -> CallResult {
        match &self.inner.caller {
            Some(caller) => Arc::clone(caller).call_nested(name, input, self).await,
            None => Err(ToolError::internal(
                "this call was not started by an Executor, so it cannot call other tools",
            )),
        }
    }

    /// A context for a call run by `caller`: a child of this one with its own id, cancelled
    /// when this one is, one level deeper, done by `deadline` at the latest.
    pub(crate) fn for_executor(
        &self,
        call_id: String,
        caller: Arc<dyn NestedCalls>,
        deadline: Option<Instant>,
        nested: bool,
    ) -> Self {
        let inner = &self.inner;
        let deadline = earliest(inner.deadline, deadline);
        Self {
            inner: Arc::new(Inner {
                call_id,
                principal: inner.principal.clone(),
                root: inner.root.clone(),
                deadline,
                depth: inner.depth + usize::from(nested),
                audience: inner.audience,
                caller: Some(caller),
                headers: inner.headers.clone(),
                cancel: inner.cancel.child_token(),
                extensions: inner.extensions.clone(),
                audit: inner.audit.clone(),
                events: inner.events.clone(),
                approver: inner.approver.clone(),
                validating: false,
            }),
        }
    }

    /// This context with `value` among its extensions (replacing one of the same type, for this
    /// call and those made under it): the same call, id and cancellation. What a layer hands
    /// the tool with [`Call::extension`](crate::exec::Call::extension).
    pub(crate) fn with_extension<T: Send + Sync + 'static>(&self, value: T) -> Self {
        let mut inner = Inner::clone(&self.inner);
        let mut added = Extensions {
            values: Vec::new(),
            parent: Some(inner.extensions.clone()),
        };
        added.insert(value);
        inner.extensions = Arc::new(added);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// This context done by `deadline` at the latest: the same call (the same cancellation
    /// token, not a child), so a layer or an approver that kept the context sees what the tool
    /// does to it.
    pub(crate) fn with_deadline(&self, deadline: Instant) -> Self {
        let mut inner = Inner::clone(&self.inner);
        inner.deadline = earliest(inner.deadline, Some(deadline));
        Self {
            inner: Arc::new(inner),
        }
    }

    /// A context in which a call only checks its input (decodes it, takes its context values)
    /// and does not run: what the executor uses before asking a person about the call.
    pub(crate) fn for_validation(&self) -> Self {
        let mut ctx = self.for_call(self.call_id().to_owned());
        if let Some(inner) = Arc::get_mut(&mut ctx.inner) {
            inner.validating = true;
        }
        ctx
    }

    /// Whether the call only checks its input ([`for_validation`](Self::for_validation)).
    pub(crate) fn is_validating(&self) -> bool {
        self.inner.validating
    }

    /// Who is asked before a call that needs approval, when someone can be
    /// ([`ContextBuilder::approver`]).
    pub fn approver(&self) -> Option<&Arc<dyn Approver>> {
        self.inner.approver.as_ref()
    }

    /// This context, made for one call alone, as the context of that call run by `caller`:
    /// updated in place when nothing else holds it (no second context, no child token), else
    /// a child as [`for_executor`](Self::for_executor) makes.
    pub(crate) fn into_executor(
        mut self,
        caller: Arc<dyn NestedCalls>,
        deadline: Option<Instant>,
    ) -> Self {
        let Some(inner) = Arc::get_mut(&mut self.inner) else {
            let call_id = self.inner.call_id.clone();
            return self.for_executor(call_id, caller, deadline, false);
        };
        inner.deadline = earliest(inner.deadline, deadline);
        inner.caller = Some(caller);
        self
    }

    /// The directory tools that touch files work under, when one is configured.
    pub fn root(&self) -> Option<&ToolRoot> {
        self.inner.root.as_ref()
    }

    /// Headers of the incoming request that may be forwarded downstream.
    pub fn headers(&self) -> &RequestHeaders {
        &self.inner.headers
    }

    /// The call's cancellation token.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// A typed extension, if one was configured.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.extensions.get::<T>()
    }

    /// The audit sink: the executor's alone, so a tool cannot write a record of its own.
    pub(crate) fn audit(&self) -> &dyn AuditSink {
        &*self.inner.audit
    }

    /// The event sink, for adapters that pass a call's events on to it (see
    /// [`EventSink::wants_lifecycle`] for the executor's own events).
    pub fn events(&self) -> &dyn EventSink {
        &*self.inner.events
    }

    /// Emits a UI event for this call: the executor's lifecycle events, and the logs and
    /// progress a tool reports with [`log`](Self::log) and [`progress`](Self::progress).
    pub(crate) fn emit(&self, event: ToolEvent) {
        self.inner.events.emit(&event);
    }

    /// Whether the context's sink wants the executor's own events (see
    /// [`EventSink::wants_lifecycle`]).
    pub(crate) fn wants_lifecycle(&self) -> bool {
        self.inner.events.wants_lifecycle()
    }

    /// Sends a log message about this call to UIs (and to MCP clients, as a logging
    /// notification, when the client's level lets it through).
    pub fn log(&self, level: LogLevel, message: impl Into<String>) {
        self.emit(ToolEvent::Log {
            call_id: self.inner.call_id.clone(),
            level,
            message: message.into(),
        });
    }

    /// Reports progress of a long call to UIs (and to MCP clients that asked for it).
    pub fn progress(&self, done: u64, total: Option<u64>, message: impl Into<String>) {
        self.emit(ToolEvent::Progress {
            call_id: self.inner.call_id.clone(),
            done,
            total,
            message: message.into(),
        });
    }
}

/// Builds a [`ToolContext`].
pub struct ContextBuilder {
    call_id: Option<String>,
    principal: Option<Principal>,
    root: Option<ToolRoot>,
    headers: RequestHeaders,
    cancel: Cancel,
    extensions: Extensions,
    audit: Arc<dyn AuditSink>,
    events: Arc<dyn EventSink>,
    approver: Option<Arc<dyn Approver>>,
    audience: Audience,
}

impl Default for ContextBuilder {
    fn default() -> Self {
        Self {
            call_id: None,
            principal: None,
            root: None,
            headers: RequestHeaders::default(),
            cancel: Cancel::New,
            extensions: Extensions::default(),
            audit: Arc::new(TracingAudit),
            events: Arc::new(TracingEvents),
            approver: None,
            audience: Audience::Any,
        }
    }
}

impl ContextBuilder {
    /// Sets the call id (default: a process-unique `call_N`).
    pub fn call_id(mut self, id: impl Into<String>) -> Self {
        self.call_id = Some(id.into());
        self
    }

    /// Sets who the calls are made for: a [`Principal`], or a subject alone (an account id, a
    /// user name). Its subject goes into audit records.
    pub fn principal(mut self, principal: impl Into<Principal>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Sets the directory tools that touch files work under.
    pub fn root(mut self, root: ToolRoot) -> Self {
        self.root = Some(root);
        self
    }

    /// Sets the forwarded request headers.
    pub fn headers(mut self, headers: RequestHeaders) -> Self {
        self.headers = headers;
        self
    }

    /// Uses `token` to cancel the call.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = Cancel::Given(token);
        self
    }

    /// Adds a typed extension, replacing one of the same type.
    pub fn extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }

    /// Sets where audit records go (default: tracing).
    pub fn audit(mut self, sink: Arc<dyn AuditSink>) -> Self {
        self.audit = sink;
        self
    }

    /// Sets where UI events go (default: tracing).
    pub fn events(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.events = sink;
        self
    }

    /// Sets who is asked before a call that needs approval (default: no one, so such a call is
    /// refused). Calls that tools make to other tools ask the same approver.
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Sets who the calls are made for (default: [`Audience::Any`]); a context derived from
    /// one narrower keeps the narrower.
    pub fn audience(mut self, audience: Audience) -> Self {
        self.audience = self.audience.narrowed(audience);
        self
    }

    /// Finishes the context.
    pub fn build(self) -> ToolContext {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let call_id = self
            .call_id
            .unwrap_or_else(|| format!("call_{}", NEXT.fetch_add(1, Ordering::Relaxed)));
        ToolContext {
            inner: Arc::new(Inner {
                call_id,
                principal: self.principal,
                root: self.root,
                deadline: None,
                depth: 0,
                audience: self.audience,
                caller: None,
                headers: self.headers,
                cancel: match self.cancel {
                    Cancel::Given(token) => token,
                    Cancel::ChildOf(parent) => parent.child_token(),
                    Cancel::New => CancellationToken::new(),
                },
                extensions: Arc::new(self.extensions),
                audit: self.audit,
                events: self.events,
                approver: self.approver,
                validating: false,
            }),
        }
    }
}

/// The token a built context gets, made at [`ContextBuilder::build`]: a server that passes each
/// request's own token (as the MCP server does) then makes no child token only to drop it.
enum Cancel {
    /// Set with [`ContextBuilder::cancellation`].
    Given(CancellationToken),
    /// A child of the context derived from ([`ToolContext::derive`]).
    ChildOf(CancellationToken),
    New,
}

/// The earlier of two deadlines, either of which may be unset.
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A type map of configuration and shared state, layered over the map of the context it was
/// derived from.
///
/// A layer holds a handful of values (one per call over MCP), so it is a list searched in
/// order, not a hash map: no table to allocate and no hashing on the path of every call.
#[derive(Default)]
struct Extensions {
    values: Vec<(TypeId, Box<dyn Any + Send + Sync>)>,
    parent: Option<Arc<Extensions>>,
}

impl Extensions {
    /// Adds `value`, replacing one of the same type in this layer.
    fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        let id = TypeId::of::<T>();
        let value: Box<dyn Any + Send + Sync> = Box::new(value);
        match self.values.iter_mut().find(|(t, _)| *t == id) {
            Some(slot) => slot.1 = value,
            None => self.values.push((id, value)),
        }
    }

    fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let id = TypeId::of::<T>();
        match self.values.iter().find(|(t, _)| *t == id) {
            Some((_, value)) => value.downcast_ref(),
            None => self.parent.as_deref()?.get(),
        }
    }

    fn len(&self) -> usize {
        self.values.len() + self.parent.as_deref().map_or(0, Self::len)
    }
}

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
/// use tool_core::{context::{ApprovalFuture, ApprovalRequest, Approver, Decision}};
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
/// [`ContextBuilder::approver`]: crate::context::ContextBuilder::approver
pub trait Approver: Send + Sync {
    /// Asks about `request`, and returns the answer.
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a>;
}

impl<A: Approver + ?Sized> Approver for std::sync::Arc<A> {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        (**self).approve(request)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_call_shares_extensions_and_cancellation() {
        let parent = ToolContext::builder().extension(7u8).build();
        let child = parent.for_call("inner");
        assert_eq!(child.extension::<u8>(), Some(&7));
        parent.cancellation().cancel();
        assert!(child.is_cancelled());
    }

    #[test]
    fn a_derived_context_is_cancelled_with_its_base_unless_given_its_own_token() {
        let base = ToolContext::new();
        let derived = base.derive().build();
        let own = CancellationToken::new();
        let given = base.derive().cancellation(own.clone()).build();
        // Cancelling a derived context leaves its base alone.
        derived.cancellation().cancel();
        assert!(!base.is_cancelled());
        let derived = base.derive().build();
        base.cancellation().cancel();
        assert!(derived.is_cancelled());
        assert!(!given.is_cancelled());
        own.cancel();
        assert!(given.is_cancelled());
        assert!(!ToolContext::builder().build().is_cancelled());
    }

    #[test]
    fn an_extension_replaces_one_of_its_type_and_shadows_the_base() {
        let base = ToolContext::builder()
            .extension(1u8)
            .extension("base")
            .extension(2u8)
            .build();
        assert_eq!(base.extension::<u8>(), Some(&2));
        assert_eq!(base.extension::<&str>(), Some(&"base"));
        let derived = base.derive().extension(3u8).build();
        assert_eq!(derived.extension::<u8>(), Some(&3));
        assert_eq!(derived.extension::<&str>(), Some(&"base"));
        assert_eq!(derived.extension::<u16>(), None);
        assert_eq!(base.extension::<u8>(), Some(&2));
        assert_eq!(derived.inner.extensions.len(), 3);
    }

    #[test]
    fn call_ids_are_unique() {
        assert_ne!(ToolContext::new().call_id(), ToolContext::new().call_id());
    }
}
