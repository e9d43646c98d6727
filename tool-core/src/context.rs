//! The request-scoped context every call runs in, and the extractors a handler can take from it.

use std::any::{Any, TypeId, type_name};
use std::fmt;
use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::call::CallResult;
use crate::error::ToolError;

/// What a call runs with: its id, the caller's forwarded headers, a cancellation token, typed
/// extensions (configuration and shared state) and the sinks for audit records and UI events.
///
/// Cloning is cheap (one `Arc`). A handler takes `&ToolContext`, or an extractor such as
/// [`State<T>`], [`CancellationToken`] or [`RequestHeaders`].
///
/// ```
/// use tool_core::{ToolContext, RequestHeaders};
/// struct Root(&'static str);
/// let ctx = ToolContext::builder()
///     .call_id("call_1")
///     .headers(RequestHeaders::from_pairs([("Authorization", "Bearer t")]))
///     .extension(Root("/srv"))
///     .build();
/// assert_eq!(ctx.call_id(), "call_1");
/// assert_eq!(ctx.extension::<Root>().map(|r| r.0), Some("/srv"));
/// assert_eq!(ctx.headers().get("authorization"), Some("Bearer t"));
/// ```
#[derive(Clone)]
pub struct ToolContext {
    inner: Arc<Inner>,
}

struct Inner {
    call_id: String,
    principal: Option<String>,
    root: Option<ToolRoot>,
    /// When the call must be done by (set by the executor; inner calls inherit it).
    deadline: Option<Instant>,
    /// How many tool calls enclose this one (0 for a call from a model).
    depth: usize,
    /// What runs the call, for calls a tool makes to other tools.
    caller: Option<Arc<dyn NestedCalls>>,
    headers: RequestHeaders,
    cancel: CancellationToken,
    extensions: Arc<Extensions>,
    audit: Arc<dyn AuditSink>,
    events: Arc<dyn EventSink>,
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
                caller: inner.caller.clone(),
                headers: inner.headers.clone(),
                cancel: inner.cancel.child_token(),
                extensions: inner.extensions.clone(),
                audit: inner.audit.clone(),
                events: inner.events.clone(),
            }),
        }
    }

    /// A builder for a context that starts from this one: the same principal, root, headers,
    /// extensions (the builder's own extensions are layered over them) and sinks, a new call id,
    /// and a cancellation token cancelled when this one is. Servers use it to make each
    /// request's context from one configured base.
    ///
    /// ```
    /// use tool_core::{RequestHeaders, ToolContext};
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
        }
    }

    /// The id of this call (from the model's tool call, or generated).
    pub fn call_id(&self) -> &str {
        &self.inner.call_id
    }

    /// Who the call is made for, when known (recorded in audit records).
    pub fn principal(&self) -> Option<&str> {
        self.inner.principal.as_deref()
    }

    /// When the call must be done by, if there is a limit.
    pub fn deadline(&self) -> Option<Instant> {
        self.inner.deadline
    }

    /// How many tool calls enclose this one (0 for a call from a model).
    pub fn depth(&self) -> usize {
        self.inner.depth
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
                caller: Some(caller),
                headers: inner.headers.clone(),
                cancel: inner.cancel.child_token(),
                extensions: inner.extensions.clone(),
                audit: inner.audit.clone(),
                events: inner.events.clone(),
            }),
        }
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

    /// The audit sink.
    pub fn audit(&self) -> &dyn AuditSink {
        &*self.inner.audit
    }

    /// The event sink, for adapters that pass a call's events on to it (see
    /// [`EventSink::wants_lifecycle`] for the executor's own events).
    pub fn events(&self) -> &dyn EventSink {
        &*self.inner.events
    }

    /// Emits a UI event for this call.
    pub fn emit(&self, event: ToolEvent) {
        self.emit_ref(&event);
    }

    /// [`emit`](Self::emit) for an event owned elsewhere (a sink passing events on).
    pub(crate) fn emit_ref(&self, event: &ToolEvent) {
        self.inner.events.emit(event);
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
    principal: Option<String>,
    root: Option<ToolRoot>,
    headers: RequestHeaders,
    cancel: Cancel,
    extensions: Extensions,
    audit: Arc<dyn AuditSink>,
    events: Arc<dyn EventSink>,
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
        }
    }
}

impl ContextBuilder {
    /// Sets the call id (default: a process-unique `call_N`).
    pub fn call_id(mut self, id: impl Into<String>) -> Self {
        self.call_id = Some(id.into());
        self
    }

    /// Sets who the calls are made for (an account id, a user name), for audit records.
    pub fn principal(mut self, principal: impl Into<String>) -> Self {
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

/// The directory that tools touching files work under (the `fs` tools read only inside it;
/// error messages never show paths outside it). Canonical: symlinks resolved.
///
/// ```
/// let root = tool_core::ToolRoot::new(".").unwrap();
/// assert!(root.path().is_absolute());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRoot(Arc<Path>);

impl ToolRoot {
    /// The root at `dir`, which must exist and be a directory.
    pub fn new(dir: impl AsRef<Path>) -> std::io::Result<Self> {
        let dir = dir.as_ref().canonicalize()?;
        if !dir.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", dir.display()),
            ));
        }
        Ok(Self(dir.into()))
    }

    /// The canonical directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
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

/// Headers of the incoming request that tools may forward downstream (for example
/// `authorization`). Names are compared case-insensitively; values never appear in `Debug`.
#[derive(Clone, Default)]
pub struct RequestHeaders {
    pairs: Arc<[(String, String)]>,
}

impl RequestHeaders {
    /// Headers from name/value pairs; names are lowercased.
    pub fn from_pairs<N: AsRef<str>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (N, V)>,
    ) -> Self {
        let pairs: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(n, v)| (n.as_ref().to_ascii_lowercase(), v.into()))
            .collect();
        Self {
            pairs: pairs.into(),
        }
    }

    /// The first value of `name`, compared case-insensitively.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every (name, value) pair, names lowercased.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Whether there are no headers.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

impl fmt::Debug for RequestHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.pairs.iter().map(|(n, _)| format!("{n}: <redacted>")))
            .finish()
    }
}

/// A record of a call to a tool that is not read-only.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AuditRecord {
    /// The tool's name.
    pub tool: String,
    /// The call id.
    pub call_id: String,
    /// Who asked, when known.
    pub principal: Option<String>,
    /// A digest of the input, never the input itself.
    pub input_digest: String,
    /// `ok`, or the error kind.
    pub outcome: String,
    /// How long the call took, in milliseconds.
    pub duration_ms: u64,
}

/// Where audit records go.
pub trait AuditSink: Send + Sync {
    /// Records one call.
    fn record(&self, record: &AuditRecord);
}

/// The default audit sink: one `tracing` event per record, target `tool_core::audit`.
#[derive(Debug, Default, Clone, Copy)]
pub struct TracingAudit;

impl AuditSink for TracingAudit {
    fn record(&self, r: &AuditRecord) {
        tracing::info!(
            target: "tool_core::audit",
            tool = %r.tool,
            call_id = %r.call_id,
            principal = r.principal.as_deref().unwrap_or("-"),
            input_digest = %r.input_digest,
            outcome = %r.outcome,
            duration_ms = r.duration_ms,
            "tool call",
        );
    }
}

/// What UIs are told about a call while it runs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolEvent {
    /// The call started; `label` is the tool's UI text.
    Started {
        /// The call id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// The tool's label.
        label: String,
    },
    /// The tool logged a message.
    Log {
        /// The call id.
        call_id: String,
        /// How severe.
        level: LogLevel,
        /// The message.
        message: String,
    },
    /// The tool reported progress.
    Progress {
        /// The call id.
        call_id: String,
        /// Units done.
        done: u64,
        /// Units in all, when known.
        total: Option<u64>,
        /// What is happening.
        message: String,
    },
    /// The call succeeded.
    Finished {
        /// The call id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// The event name for UI cards, when the tool set one.
        event: Option<String>,
        /// The structured result, when there is one.
        payload: Option<serde_json::Value>,
    },
    /// The call failed.
    Failed {
        /// The call id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// The error kind.
        kind: crate::ErrorKind,
        /// The message for the model.
        message: String,
    },
}

/// The severity of a message a tool logs with [`ToolContext::log`] (the syslog levels MCP uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Action is needed now.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// Where UI events go.
pub trait EventSink: Send + Sync {
    /// Delivers one event; must not block.
    fn emit(&self, event: &ToolEvent);

    /// Whether the sink does anything with the executor's own events (`Started`, `Finished`,
    /// `Failed`). When it does not, the executor does not build them: they copy the call's
    /// names and its output. Events tools send (progress, logs) are delivered either way.
    fn wants_lifecycle(&self) -> bool {
        true
    }
}

/// The default event sink: `tracing` debug events, target `tool_core::events`.
#[derive(Debug, Default, Clone, Copy)]
pub struct TracingEvents;

impl EventSink for TracingEvents {
    fn emit(&self, event: &ToolEvent) {
        tracing::debug!(target: "tool_core::events", ?event, "tool event");
    }

    fn wants_lifecycle(&self) -> bool {
        tracing::enabled!(target: "tool_core::events", tracing::Level::DEBUG)
    }
}

/// An event sink that broadcasts to every subscriber (UIs, a server's progress notifications).
/// Slow subscribers miss old events rather than slowing calls down.
///
/// ```
/// use std::sync::Arc;
/// use tool_core::{BroadcastEvents, ToolContext};
/// let events = Arc::new(BroadcastEvents::new(64));
/// let mut rx = events.subscribe();
/// let ctx = ToolContext::builder().events(events.clone()).build();
/// ctx.progress(1, Some(2), "halfway");
/// assert!(matches!(rx.try_recv(), Ok(tool_core::ToolEvent::Progress { done: 1, .. })));
/// ```
#[derive(Debug)]
pub struct BroadcastEvents {
    sender: tokio::sync::broadcast::Sender<ToolEvent>,
}

impl BroadcastEvents {
    /// A sink that keeps up to `capacity` events for slow subscribers.
    pub fn new(capacity: usize) -> Self {
        Self {
            sender: tokio::sync::broadcast::channel(capacity.max(1)).0,
        }
    }

    /// A receiver of every event emitted from now on.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<ToolEvent> {
        self.sender.subscribe()
    }
}

impl EventSink for BroadcastEvents {
    fn emit(&self, event: &ToolEvent) {
        // No subscriber is not an error: events are for whoever listens.
        let _ = self.sender.send(event.clone());
    }

    fn wants_lifecycle(&self) -> bool {
        self.sender.receiver_count() > 0
    }
}

/// A parameter type a handler can take from the context instead of from the model's input.
///
/// Built in: [`ToolContext`] (also as `&ToolContext`), [`State<T>`], [`CancellationToken`] and
/// [`RequestHeaders`]. Implement it for your own types and mark the parameter `#[ctx]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from the tool context",
    label = "not an extractor",
    note = "a parameter marked #[ctx] must implement tool_core::FromContext; parameters that come from the model's input need no #[ctx]"
)]
pub trait FromContext: Sized {
    /// Takes the value from the context.
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError>;
}

impl FromContext for ToolContext {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.clone())
    }
}

impl FromContext for CancellationToken {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.inner.cancel.clone())
    }
}

impl FromContext for RequestHeaders {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.inner.headers.clone())
    }
}

/// Shared state of type `T`, configured with [`ContextBuilder::extension`] as an `Arc<T>`.
///
/// ```
/// use std::sync::Arc;
/// use tool_core::{FromContext, State, ToolContext};
/// struct Db { url: &'static str }
/// let ctx = ToolContext::builder().extension(Arc::new(Db { url: "mem:" })).build();
/// let State(db) = State::<Db>::from_context(&ctx).unwrap();
/// assert_eq!(db.url, "mem:");
/// ```
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + Send + Sync + 'static> FromContext for State<T> {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        match ctx.extension::<Arc<T>>() {
            Some(state) => Ok(State(state.clone())),
            None => Err(ToolError::internal(format!(
                "State<{}> is not configured: add it with ContextBuilder::extension(Arc::new(..))",
                type_name::<T>()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_case_insensitive_and_redacted() {
        let h = RequestHeaders::from_pairs([("X-Api-Key", "secret")]);
        assert_eq!(h.get("x-api-key"), Some("secret"));
        assert_eq!(h.get("X-API-KEY"), Some("secret"));
        assert!(!format!("{h:?}").contains("secret"));
    }

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
    fn missing_state_names_the_type() {
        let err = State::<String>::from_context(&ToolContext::new())
            .err()
            .expect("state is not configured");
        assert!(err.message().contains("String"), "{err}");
    }

    #[test]
    fn call_ids_are_unique() {
        assert_ne!(ToolContext::new().call_id(), ToolContext::new().call_id());
    }
}
