//! The executor: every call goes through the same pipeline, so every tool is safe in the same
//! way. The caller's scopes before anything else; input caps before decoding; a time limit;
//! cancellation; panic isolation; retries of transient failures for tools that may be retried;
//! an output cap; a sanitised message for the model and the full error for operators; audit
//! records, UI events and tracing spans.

use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio_util::task::AbortOnDropHandle;
use tracing::Instrument;

use super::layer::{Call, Item, Layer, LayerFuture, Next, Reply};
use super::{approval, limits, retry};
use crate::call::{self, CallFuture, CallResult};
use crate::context::{AuditRecord, NestedCalls, ToolContext, ToolEvent};
use crate::error::{ErrorKind, ToolError};
use crate::registry::{Registry, Tool};

/// Limits and policies of an [`Executor`]. The defaults suit a model-facing agent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExecPolicy {
    /// Largest input, in bytes of JSON (checked before decoding). Default 1 MiB.
    pub max_input_bytes: usize,
    /// Deepest nesting of arrays and objects in an input (checked before decoding). Default 64.
    pub max_input_depth: usize,
    /// Longest model-facing echo, in bytes; longer echoes are cut with a marker. Default 64 KiB.
    pub max_echo_bytes: usize,
    /// Time limit of a tool that sets none. Default 60 s.
    pub default_timeout: Duration,
    /// Time limit no tool exceeds, whatever it sets. Default 10 min.
    pub max_timeout: Duration,
    /// How many calls of one batch run at once. Default 8.
    pub max_concurrency: usize,
    /// How deep tools may call tools. Default 4.
    pub max_call_depth: usize,
    /// Backoff of retries.
    pub retry: retry::Backoff,
    /// Which calls need a person's yes besides those of tools that declare it, and how long a
    /// person has to answer. Default: none besides those.
    pub approval: approval::ApprovalPolicy,
}

/// Builders: set one field each, the others kept (the struct is `#[non_exhaustive]`, so a
/// literal cannot be written outside this crate).
impl ExecPolicy {
    /// Sets `max_input_bytes`: largest input, in bytes of JSON (checked before decoding). Default 1 MiB.
    #[must_use]
    pub fn max_input_bytes(mut self, max_input_bytes: usize) -> Self {
        self.max_input_bytes = max_input_bytes;
        self
    }

    /// Sets `max_input_depth`: deepest nesting of arrays and objects in an input (checked before decoding). Default 64.
    #[must_use]
    pub fn max_input_depth(mut self, max_input_depth: usize) -> Self {
        self.max_input_depth = max_input_depth;
        self
    }

    /// Sets `max_echo_bytes`: longest model-facing echo, in bytes; longer echoes are cut with a marker. Default 64 KiB.
    #[must_use]
    pub fn max_echo_bytes(mut self, max_echo_bytes: usize) -> Self {
        self.max_echo_bytes = max_echo_bytes;
        self
    }

    /// Sets `default_timeout`: time limit of a tool that sets none. Default 60 s.
    #[must_use]
    pub fn default_timeout(mut self, default_timeout: Duration) -> Self {
        self.default_timeout = default_timeout;
        self
    }

    /// Sets `max_timeout`: time limit no tool exceeds, whatever it sets. Default 10 min.
    #[must_use]
    pub fn max_timeout(mut self, max_timeout: Duration) -> Self {
        self.max_timeout = max_timeout;
        self
    }

    /// Sets `max_concurrency`: how many calls of one batch run at once. Default 8.
    #[must_use]
    pub fn max_concurrency(mut self, max_concurrency: usize) -> Self {
        self.max_concurrency = max_concurrency;
        self
    }

    /// Sets `max_call_depth`: how deep tools may call tools. Default 4.
    #[must_use]
    pub fn max_call_depth(mut self, max_call_depth: usize) -> Self {
        self.max_call_depth = max_call_depth;
        self
    }

    /// Sets `retry`: backoff of retries.
    #[must_use]
    pub fn retry(mut self, retry: retry::Backoff) -> Self {
        self.retry = retry;
        self
    }

    /// Sets `approval`: which calls need a person's yes besides those of tools that declare it, and how long a.
    #[must_use]
    pub fn approval(mut self, approval: approval::ApprovalPolicy) -> Self {
        self.approval = approval;
        self
    }
}

impl ExecPolicy {
    /// Parses JSON text as the pipeline does: size and depth checked on the raw text first.
    pub fn parse(&self, text: &str) -> Result<Value, ToolError> {
        limits::parse_checked(text, self.max_input_bytes, self.max_input_depth)
    }
}

impl Default for ExecPolicy {
    fn default() -> Self {
        Self {
            max_input_bytes: 1024 * 1024,
            max_input_depth: 64,
            max_echo_bytes: 64 * 1024,
            default_timeout: Duration::from_secs(60),
            max_timeout: Duration::from_secs(600),
            max_concurrency: 8,
            max_call_depth: 4,
            retry: retry::Backoff::default(),
            approval: approval::ApprovalPolicy::default(),
        }
    }
}

/// One call a model asked for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The model's id for the call (becomes the context's call id).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The input, as the model sent it.
    pub input: CallInput,
}

/// A call's input: JSON text as a model wrote it, or an already parsed value.
#[derive(Debug, Clone, PartialEq)]
pub enum CallInput {
    /// JSON text (size and depth are checked before it is parsed).
    Text(String),
    /// A parsed value.
    Value(Value),
}

impl From<Value> for CallInput {
    fn from(value: Value) -> Self {
        Self::Value(value)
    }
}

impl From<&str> for CallInput {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<String> for CallInput {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl ToolCall {
    /// A call with an id, a tool name and an input.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        input: impl Into<CallInput>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input: input.into(),
        }
    }
}

/// The context a call runs in: derived from the caller's, or the caller's own.
enum Within<'a> {
    /// A child of `parent`: its own id and token, one level deeper when `nested`.
    Child {
        parent: &'a ToolContext,
        call_id: String,
        nested: bool,
    },
    /// A context built for this call alone, taken over.
    Own(ToolContext),
}

/// Runs calls through the pipeline: the one way to run a tool. Cloning is cheap; build one per
/// registry and share it.
///
/// Every call passes these stages, outermost first: tracing, events, audit and the model's
/// view of an error (around everything, so every outcome is recorded); the caller's scopes;
/// the input's size and depth, parsing, and the arguments a [transform](crate::registry::transform) hid;
/// the application's [layers](Layer), in the order added; a person's approval, for a call that
/// needs one (the input checked as the tool decodes it first); the time limit, cancellation,
/// panic isolation and retries; the tool. Calls tools make to tools
/// ([`ToolContext::call_tool`]) pass them all again.
///
/// ```
/// use serde_json::json;
/// use tool_core::exec::{Executor, ToolCall};
/// use tool_core::{registry::DynamicTool, Registry, ToolContext, ToolOutput};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("echo_text", "Echoes.", json!({"type": "object"}))
///     .handler(|input, _| async move { Ok(ToolOutput::new(input)) })).unwrap();
/// let executor = Executor::new(registry);
/// let results = executor
///     .call_batch(vec![
///         ToolCall::new("a", "echo_text", json!({"n": 1})),
///         ToolCall::new("b", "no_such_tool", json!({})),
///         ToolCall::new("c", "echo_text", r#"{"n": 3}"#),
///     ], &ToolContext::new())
///     .await;
/// assert_eq!(results[0].as_ref().unwrap().echo(), r#"{"n":1}"#);
/// assert!(results[1].is_err()); // one failure does not fail the others
/// assert_eq!(results[2].as_ref().unwrap().echo(), r#"{"n":3}"#);
/// # });
/// ```
#[derive(Clone)]
pub struct Executor {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Registry,
    policy: ExecPolicy,
    /// The application's layers, outermost first.
    layers: Vec<Arc<dyn Layer>>,
}

impl NestedCalls for Inner {
    fn call_nested<'a>(
        self: Arc<Self>,
        name: &'a str,
        input: Value,
        parent: &'a ToolContext,
    ) -> std::pin::Pin<Box<dyn Future<Output = CallResult> + Send + 'a>> {
        Box::pin(async move {
            Executor { inner: self }
                .call_nested(name, input, parent)
                .await
        })
    }
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("tools", &self.inner.registry.len())
            .field("policy", &self.inner.policy)
            .finish()
    }
}

impl Executor {
    /// What a resource's reader or a prompt's getter calls tools through: this executor.
    pub(super) fn nested(&self) -> Arc<dyn NestedCalls> {
        self.inner.clone()
    }

    /// An executor over `registry` with the default policy.
    pub fn new(registry: Registry) -> Self {
        Self::with_policy(registry, ExecPolicy::default())
    }

    /// An executor over `registry` with `policy`.
    pub fn with_policy(registry: Registry, policy: ExecPolicy) -> Self {
        Self::builder(registry).policy(policy).build()
    }

    /// Starts an executor over `registry`, to give a policy and [layers](Layer).
    pub fn builder(registry: Registry) -> ExecutorBuilder {
        ExecutorBuilder {
            registry,
            policy: ExecPolicy::default(),
            layers: Vec::new(),
        }
    }

    /// An executor with this one's policy and layers over a copy of its tools changed by
    /// `change` (a server's tool set changed at run time, code mode's tools): with what `change`
    /// returns, or its error, and this executor unchanged. The copy cannot leave `change`
    /// ([`Edit`](crate::registry::Edit)), so nothing this executor runs can be run without its
    /// layers.
    pub fn edit<R, E>(
        &self,
        change: impl FnOnce(&mut crate::registry::Edit<'_>) -> Result<R, E>,
    ) -> Result<(Self, R), E> {
        let mut registry = self.inner.registry.copy();
        let result = change(&mut crate::registry::Edit::new(&mut registry))?;
        Ok((self.with_registry(registry), result))
    }

    /// An executor with this one's policy and layers over another set of tools.
    pub fn with_registry(&self, registry: Registry) -> Self {
        Self {
            inner: Arc::new(Inner {
                registry,
                policy: self.inner.policy.clone(),
                layers: self.inner.layers.clone(),
            }),
        }
    }

    /// Its layers, outermost first.
    pub(super) fn layer_stack(&self) -> &[Arc<dyn Layer>] {
        &self.inner.layers
    }

    /// The names of its layers, outermost first.
    pub fn layers(&self) -> impl Iterator<Item = &str> {
        self.inner.layers.iter().map(|l| l.name())
    }

    /// The tools it runs.
    pub fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    /// Its policy.
    pub fn policy(&self) -> &ExecPolicy {
        &self.inner.policy
    }

    /// Runs one call. The context's call id names the call.
    pub async fn call(
        &self,
        name: &str,
        input: impl Into<CallInput>,
        ctx: &ToolContext,
    ) -> CallResult {
        let within = Within::Child {
            parent: ctx,
            call_id: ctx.call_id().to_owned(),
            nested: false,
        };
        self.run(within, name, input.into()).await
    }

    /// Runs one call in `ctx`, a context built for this call alone (as a server builds one per
    /// request): it is taken over as it is, not derived from, so the call is cancelled by
    /// `ctx`'s own token and a tool that cancels its token cancels `ctx`. Cheaper than
    /// [`call`](Self::call) on every request.
    pub async fn call_in(
        &self,
        name: &str,
        input: impl Into<CallInput>,
        ctx: ToolContext,
    ) -> CallResult {
        self.run(Within::Own(ctx), name, input.into()).await
    }

    /// Runs a batch of calls concurrently (at most `max_concurrency` at once) and returns the
    /// results in call order; one failure does not fail the others.
    pub async fn call_batch(&self, calls: Vec<ToolCall>, ctx: &ToolContext) -> Vec<CallResult> {
        self.batch(calls, ctx, false).await
    }

    /// Runs calls made on behalf of the call `parent` runs (a script's calls in code mode), as
    /// [`call_batch`](Self::call_batch) does, but each as a nested call: one level deeper than
    /// `parent`, refused past the policy's `max_call_depth`, a child of `parent` in the audit
    /// and events. A single call runs in the caller's task.
    pub async fn call_batch_within(
        &self,
        calls: Vec<ToolCall>,
        parent: &ToolContext,
    ) -> Vec<CallResult> {
        self.batch(calls, parent, true).await
    }

    async fn batch(
        &self,
        calls: Vec<ToolCall>,
        ctx: &ToolContext,
        nested: bool,
    ) -> Vec<CallResult> {
        if nested && ctx.depth() + 1 > self.inner.policy.max_call_depth {
            return calls
                .iter()
                .map(|call| Err(self.too_deep(&call.name)))
                .collect();
        }
        if nested && let [_] = calls.as_slice() {
            let Some(call) = calls.into_iter().next() else {
                return Vec::new();
            };
            let within = Within::Child {
                parent: ctx,
                call_id: call.id,
                nested,
            };
            return vec![self.run(within, &call.name, call.input).await];
        }
        let limit = Arc::new(tokio::sync::Semaphore::new(
            self.inner.policy.max_concurrency.max(1),
        ));
        let mut tasks = Vec::with_capacity(calls.len());
        for call in calls {
            let executor = self.clone();
            let ctx = ctx.clone();
            let limit = limit.clone();
            tasks.push(AbortOnDropHandle::new(tokio::spawn(async move {
                let _permit = limit.acquire_owned().await;
                let within = Within::Child {
                    parent: &ctx,
                    call_id: call.id,
                    nested,
                };
                executor.run(within, &call.name, call.input).await
            })));
        }
        let mut results = Vec::with_capacity(tasks.len());
        for task in tasks {
            results.push(match task.await {
                Ok(result) => result,
                Err(e) => Err(ToolError::internal(format!(
                    "the call could not finish: {e}"
                ))),
            });
        }
        results
    }

    /// A call made by a tool through [`ToolContext::call_tool`].
    async fn call_nested(&self, name: &str, input: Value, parent: &ToolContext) -> CallResult {
        if parent.depth() + 1 > self.inner.policy.max_call_depth {
            return Err(self.too_deep(name));
        }
        let within = Within::Child {
            parent,
            call_id: format!("{}/{name}", parent.call_id()),
            nested: true,
        };
        self.run(within, name, CallInput::Value(input)).await
    }

    #[cold]
    fn too_deep(&self, name: &str) -> ToolError {
        ToolError::failed(format!(
            "tools may call tools {} levels deep; `{name}` would be one more",
            self.inner.policy.max_call_depth
        ))
    }

    async fn run(&self, within: Within<'_>, name: &str, input: CallInput) -> CallResult {
        let registry = &self.inner.registry;
        let caller = match &within {
            Within::Child { parent, .. } => *parent,
            Within::Own(ctx) => ctx,
        };
        // A tool the caller's audience may not see (one for views only, to a model or its
        // script) is as unknown to it as a name no tool has.
        let Some(tool) = registry
            .get(name)
            .filter(|t| caller.audience().sees(t.visibility()))
        else {
            // Only tools the caller may call: a suggestion must not name what its scopes hide.
            return Err(call::unknown_tool(
                name,
                &registry.suggest_for(name, caller.principal()),
            ));
        };
        let needs_approval = self.inner.policy.approval.needs(tool);
        // Layers and a person's approval stand between the input and the run: a call that meets
        // either takes the longer way, whose time limit starts after them; every other call
        // (nearly all) the short one, with its deadline set as its context is made.
        let layered =
            needs_approval || !self.inner.layers.is_empty() || !tool.hidden_args().is_empty();
        let started = Instant::now();
        let deadline = (!layered).then(|| started + self.timeout(tool));
        let ctx = match within {
            Within::Child {
                parent,
                call_id,
                nested,
            } => parent.for_executor(call_id, self.inner.clone(), deadline, nested),
            Within::Own(ctx) => ctx.into_executor(self.inner.clone(), deadline),
        };
        let span = tracing::info_span!(
            "execute_tool",
            otel.name = %format!("execute_tool {name}"),
            otel.kind = "internal",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = %name,
            gen_ai.tool.call.id = %ctx.call_id(),
            gen_ai.tool.type = "function",
            error.type = tracing::field::Empty,
        );
        // Only audited calls need a digest: do not hash (and serialize) every read-only input.
        let audited = needs_approval || !tool.trusted_annotations().read_only;
        // A caller without the tool's scopes is refused before its input is read: it gets no
        // decoding errors that describe the tool, no layer, no question to a person, no
        // attempt, retry or timer.
        if let Some(refused) = refusal(tool, &ctx) {
            let asked = needs_approval.then(Approved::default);
            let digest = audited.then(|| self.unparsed_digest(&input));
            return self.finish(tool, &ctx, &span, started, digest, asked, Err(refused));
        }
        let input = match self.parse(input) {
            Ok(input) => input,
            Err(refused) => {
                let (error, input) = *refused;
                let asked = needs_approval.then(Approved::default);
                let digest = audited.then(|| self.unparsed_digest(&input));
                return self.finish(tool, &ctx, &span, started, digest, asked, Err(error));
            }
        };
        if !layered {
            // The input runs as it came: its digest is the audit's.
            let digest = audited.then(|| digest(&input));
            // A call starts (for its events) where it runs: past its scopes and input here, past
            // the layers and a person in `gate`. One refused before that only fails.
            started_event(tool, &ctx);
            // Boxed: a call's future is moved whole (into a spawned task, by a server's
            // dispatch) before it is first polled, and this part is most of it.
            let attempts = self.retrying(tool, input, &ctx).instrument(span.clone());
            let result = Box::pin(attempts).await;
            return self.finish(tool, &ctx, &span, started, digest, None, result);
        }
        let stages = Stages {
            audited,
            ..Stages::default()
        };
        let result = Box::pin(self.layered(tool, input, &ctx, &span, &stages)).await;
        let Stages {
            asked,
            started: ran,
            digest,
            ..
        } = stages;
        let asked = asked.into_inner().unwrap_or_else(PoisonError::into_inner);
        let ran = ran.into_inner().unwrap_or_else(PoisonError::into_inner);
        let digest = digest.into_inner().unwrap_or_else(PoisonError::into_inner);
        let asked = needs_approval.then(|| asked.unwrap_or_default());
        self.finish(
            tool,
            &ctx,
            &span,
            ran.unwrap_or(started),
            digest,
            asked,
            result,
        )
    }

    /// A call's time limit: the tool's own, else the policy's default, never over the policy's
    /// most.
    fn timeout(&self, tool: &Tool) -> Duration {
        tool.timeout()
            .unwrap_or(self.inner.policy.default_timeout)
            .min(self.inner.policy.max_timeout)
    }

    /// The longer way: the arguments a transform hid filled in, then the application's
    /// layers, then [`gate`](Self::gate). `ctx` has no deadline yet.
    #[cold]
    async fn layered(
        &self,
        tool: &Tool,
        mut input: Value,
        ctx: &ToolContext,
        span: &tracing::Span,
        stages: &Stages,
    ) -> CallResult {
        // Hidden arguments first: every layer, the person asked and the audit see the call as
        // it will run.
        if !tool.hidden_args().is_empty() {
            tool.fill_hidden(&mut input, ctx)?;
        }
        // Until the call passes the layers, the audit knows it as they received it.
        stages.digest(&input);
        let last = last_stage(|call: Call<'_>| {
            Box::pin(async move { self.gate(tool, call, span, stages).await.map(Reply::Tool) })
        });
        Next::new(&self.inner.layers, &last)
            .run(Call::new(Item::Tool(tool), ctx, input))
            .await
            .and_then(Reply::into_tool)
    }

    /// Under the layers: the input as a layer left it, held to the same limits; for a call
    /// that needs a person's yes, checked as the tool would decode it and then put to the
    /// approver on `ctx`; then run within the time limit, which starts here.
    async fn gate(
        &self,
        tool: &Tool,
        call: Call<'_>,
        span: &tracing::Span,
        stages: &Stages,
    ) -> CallResult {
        let (ctx, input) = call.into_parts();
        let ctx: &ToolContext = &ctx;
        let policy = &self.inner.policy;
        // The call as it runs, layers' rewrites and all.
        stages.digest(&input);
        limits::check_value(&input, policy.max_input_bytes, policy.max_input_depth)?;
        if policy.approval.needs(tool) {
            validate(tool, &input, ctx).await?;
            let (answer, asked) =
                approval::ask(tool, &input, ctx, ctx.call_id(), policy.approval.timeout).await;
            *stages.asked.lock().unwrap_or_else(PoisonError::into_inner) = Some(Approved {
                decision: Some(asked.decision),
                message: Some(asked.message),
            });
            answer?;
        }
        let started = Instant::now();
        *stages
            .started
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(started);
        let ctx = ctx.with_deadline(started + self.timeout(tool));
        started_event(tool, &ctx);
        let attempts = self.retrying(tool, input, &ctx).instrument(span.clone());
        Box::pin(attempts).await
    }

    /// The digest of an input refused before it was parsed (or because it could not be): that
    /// of its value, when it is JSON within the policy's limits; else of its bytes.
    #[cold]
    fn unparsed_digest(&self, input: &CallInput) -> String {
        match input {
            CallInput::Value(value) => digest(value),
            CallInput::Text(text) => match self.inner.policy.parse(text) {
                Ok(value) => digest(&value),
                Err(_) => sha256(text.as_bytes()),
            },
        }
    }

    /// Parses a call's input as the policy allows: size and depth checked first. A refused
    /// input comes back with its error, for the audit's digest.
    fn parse(&self, input: CallInput) -> Result<Value, Box<(ToolError, CallInput)>> {
        let policy = &self.inner.policy;
        let checked = match &input {
            CallInput::Text(text) => policy.parse(text),
            CallInput::Value(value) => {
                limits::check_value(value, policy.max_input_bytes, policy.max_input_depth)
                    .map(|()| Value::Null)
            }
        };
        match (checked, input) {
            (Ok(parsed), CallInput::Text(_)) => Ok(parsed),
            (Ok(_), CallInput::Value(value)) => Ok(value),
            (Err(error), input) => Err(Box::new((error, input))),
        }
    }

    /// Runs, retrying transient failures of tools that may be retried, within the call's
    /// deadline.
    async fn retrying(&self, tool: &Tool, input: Value, ctx: &ToolContext) -> CallResult {
        let policy = &self.inner.policy;
        let trusted = tool.trusted_annotations();
        let retryable = trusted.read_only || trusted.idempotent;
        let max_attempts = if retryable { 1 + tool.retries() } else { 1 };
        let mut attempt = 1;
        let mut input = Some(input);
        loop {
            // The input is cloned only while another attempt may follow.
            let this = match attempt < max_attempts {
                true => input.clone(),
                false => input.take(),
            };
            let error = match self.attempt(tool, this.unwrap_or_default(), ctx).await {
                Ok(output) => return Ok(output),
                Err(error) => error,
            };
            let delay = policy.retry.delay(attempt);
            let in_time = ctx.deadline().is_none_or(|d| Instant::now() + delay < d);
            if !error.is_transient() || attempt >= max_attempts || !in_time || ctx.is_cancelled() {
                return Err(error);
            }
            tracing::info!(attempt, delay_ms = delay.as_millis() as u64, error = %error, "retrying a transient failure");
            // Dropped before waiting: nothing of a failed attempt is kept across the wait.
            drop(error);
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// One attempt, raced against the deadline and the cancellation token. The handler runs
    /// in the caller's task, with a panic caught as an internal error (not a crash); a tool
    /// marked `blocking` runs on the blocking pool. Dropping the attempt stops the handler.
    async fn attempt(&self, tool: &Tool, input: Value, ctx: &ToolContext) -> CallResult {
        // Decoding happens inside too, so nothing about a call can take the caller down.
        let run = async {
            if !tool.is_blocking() {
                // In this task, not a new one: a spawned task is often stolen by another worker,
                // and each call then pays two cross-thread wake-ups.
                return CatchPanic::start(|| tool.call(input, ctx)).await;
            }
            // Marked `blocking`: keep it off the async workers.
            let (owned_tool, owned_ctx) = (tool.clone(), ctx.clone());
            let handle = tokio::runtime::Handle::current();
            let task = AbortOnDropHandle::new(tokio::task::spawn_blocking(move || {
                handle.block_on(owned_tool.call(input, &owned_ctx))
            }));
            match task.await {
                Ok(result) => Ok(result),
                Err(e) if e.is_panic() => Err(Stopped::Panicked(e.into_panic())),
                Err(e) => Err(Stopped::Other(e.to_string())),
            }
        };
        let cancelled = || {
            Err(ToolError::new(
                ErrorKind::Cancelled,
                format!("the call to `{}` was cancelled", tool.name()),
            ))
        };
        let timed_out = || {
            Err(ToolError::new(
                ErrorKind::Timeout,
                format!("`{}` did not finish in time", tool.name()),
            ))
        };
        // Most tools finish on their first poll: that one is made without setting a timer or
        // a cancellation waiter. Checked first, as the race below checks them first.
        let deadline = ctx.deadline();
        if ctx.is_cancelled() {
            return cancelled();
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return timed_out();
        }
        let mut run = std::pin::pin!(run);
        let first = std::future::poll_fn(|cx| Poll::Ready(run.as_mut().poll(cx))).await;
        if let Poll::Ready(outcome) = first {
            return settle(tool, outcome);
        }
        let out_of_time = async move {
            match deadline {
                Some(d) => tokio::time::sleep_until(d.into()).await,
                None => std::future::pending().await,
            }
        };
        // Biased: once the call is cancelled or out of time, that is its outcome, even if the
        // tool noticed first and returned something. Boxed: only a call still running after its
        // first poll races, and inline, the race's timer and waiter would sit in every call's
        // future (which its caller may copy several times before polling it).
        Box::pin(async move {
            tokio::select! {
                biased;
                () = ctx.cancellation().cancelled() => cancelled(),
                () = out_of_time => timed_out(),
                outcome = run => settle(tool, outcome),
            }
        })
        .await
    }

    /// Records the outcome: the echo capped, tracing for operators (full error), a sanitised
    /// error for the model, audit for tools that are not read-only, and the UI event.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        tool: &Tool,
        ctx: &ToolContext,
        span: &tracing::Span,
        started: Instant,
        digest: Option<String>,
        asked: Option<Approved>,
        result: CallResult,
    ) -> CallResult {
        let duration = started.elapsed();
        let result = match result {
            // Capped here, under everything that made it: a layer's rewrite is held to the cap too.
            Ok(output) => Ok(limits::cap_echo(output, self.inner.policy.max_echo_bytes)),
            Err(error) => {
                span.record("error.type", error.kind().as_str());
                tracing::warn!(parent: span, tool = tool.name(), call_id = ctx.call_id(), error = ?error, "tool call failed");
                Err(for_model(error, ctx.root()))
            }
        };
        if let Some(digest) = digest {
            ctx.audit().record(&AuditRecord {
                tool: tool.name().to_owned(),
                call_id: ctx.call_id().to_owned(),
                principal: ctx.principal().map(|p| p.subject().to_owned()),
                input_digest: digest,
                outcome: match &result {
                    Ok(_) => "ok".to_owned(),
                    Err(e) => e.kind().as_str().to_owned(),
                },
                duration_ms: duration.as_millis() as u64,
                approval: asked.as_ref().and_then(|a| a.decision).map(str::to_owned),
                approval_message: asked.and_then(|a| a.message),
            });
        }
        if !ctx.wants_lifecycle() {
            return result;
        }
        ctx.emit(match &result {
            Ok(output) => ToolEvent::Finished {
                call_id: ctx.call_id().to_owned(),
                tool: tool.name().to_owned(),
                event: output.event().map(str::to_owned),
                payload: output.data().cloned(),
            },
            Err(e) => ToolEvent::Failed {
                call_id: ctx.call_id().to_owned(),
                tool: tool.name().to_owned(),
                kind: e.kind(),
                message: e.to_string(),
            },
        });
        result
    }
}

/// An [`Executor`] being set up: its policy and its layers. Made by [`Executor::builder`].
#[must_use = "an executor is made by `build`"]
pub struct ExecutorBuilder {
    registry: Registry,
    policy: ExecPolicy,
    layers: Vec<Arc<dyn Layer>>,
}

impl std::fmt::Debug for ExecutorBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecutorBuilder")
            .field("tools", &self.registry.len())
            .field("policy", &self.policy)
            .field(
                "layers",
                &self.layers.iter().map(|l| l.name()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl ExecutorBuilder {
    /// The limits and policies (default: [`ExecPolicy::default`]).
    pub fn policy(mut self, policy: ExecPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Adds a layer inside those added before it: the first added sees a call first and its
    /// result last.
    pub fn layer(mut self, layer: impl Layer) -> Self {
        self.layers.push(Arc::new(layer));
        self
    }

    /// [`layer`](Self::layer) for a layer already shared.
    pub fn layer_arc(mut self, layer: Arc<dyn Layer>) -> Self {
        self.layers.push(layer);
        self
    }

    /// The executor.
    pub fn build(self) -> Executor {
        Executor {
            inner: Arc::new(Inner {
                registry: self.registry,
                policy: self.policy,
                layers: self.layers,
            }),
        }
    }
}

/// What the approval gate asked about a call, for its audit record (a call that needs approval
/// is audited whatever its hints).
#[derive(Default)]
struct Approved {
    /// The decision's word; `None` when the call ended before anyone was asked.
    decision: Option<&'static str>,
    /// What the person was shown.
    message: Option<String>,
}

/// Tells the context's sink, when it wants the executor's own events, that the call runs: the
/// one place a `Started` event is made, by either way through the pipeline.
fn started_event(tool: &Tool, ctx: &ToolContext) {
    if ctx.wants_lifecycle() {
        ctx.emit(ToolEvent::Started {
            call_id: ctx.call_id().to_owned(),
            tool: tool.name().to_owned(),
            label: tool.label().to_owned(),
        });
    }
}

/// What the stages under the layers tell the audit record of a layered call: what was asked,
/// when the run (and its clock) started, and the input as it ran.
#[derive(Default)]
struct Stages {
    /// Whether the call is audited, so needs a digest.
    audited: bool,
    asked: Mutex<Option<Approved>>,
    started: Mutex<Option<Instant>>,
    digest: Mutex<Option<String>>,
}

impl Stages {
    /// The audit's digest of the call, as far as it got: `input` as this stage has it.
    fn digest(&self, input: &Value) {
        if self.audited {
            *self.digest.lock().unwrap_or_else(PoisonError::into_inner) = Some(digest(input));
        }
    }
}

/// The stage under the layers, as [`Next`] takes it: one lifetime for the call and the future,
/// which a closure's own signature cannot name.
pub(super) fn last_stage<'a, F>(f: F) -> F
where
    F: Fn(Call<'a>) -> LayerFuture<'a> + Send + Sync + 'a,
{
    f
}

/// Checks `input` as the call would, without running the tool: a tool written with `#[tool]`
/// decodes it and takes its context values in a context that only validates; a tool built at
/// run time (whose handler decodes as it runs) has it validated against its input schema,
/// when tool-core has a validator (feature `check`); without one, its handler is left to refuse
/// bad input once it runs.
async fn validate(tool: &Tool, input: &Value, ctx: &ToolContext) -> Result<(), ToolError> {
    if tool.has_linked_handler() {
        let checking = ctx.for_validation();
        // Decoding and the context values run here too: a panic in either is the call's
        // `internal` error, as in an attempt, never the caller's.
        let checked = CatchPanic::start(|| tool.call(input.clone(), &checking)).await;
        return settle(tool, checked).map(|_| ());
    }
    if tool.hidden_args().is_empty() {
        return validate_against_schema(tool, input);
    }
    // The schema a transform left has no hidden argument, and may allow no other key: the
    // input is checked as the model sent it, the hidden values being the operator's own.
    let mut sent = input.clone();
    if let Value::Object(fields) = &mut sent {
        for arg in tool.hidden_args() {
            fields.remove(arg.name.as_ref());
        }
    }
    validate_against_schema(tool, &sent)
}

#[cfg(feature = "check")]
fn validate_against_schema(tool: &Tool, input: &Value) -> Result<(), ToolError> {
    crate::definition::schema::validate_input(tool.input_schema(), input)
}

#[cfg(not(feature = "check"))]
fn validate_against_schema(_tool: &Tool, _input: &Value) -> Result<(), ToolError> {
    Ok(())
}

/// Why the call's caller may not call `tool`: it needs scopes the context's [`Principal`] was
/// not granted. `None` when the tool needs none, when it holds them all, and when the context
/// carries no principal: a transport that authenticates no one (stdio, a static token) grants
/// everything, so there is no grant to hold the call to. Nested calls carry their parent's
/// principal, so a tool cannot reach what its caller may not.
///
/// [`Principal`]: crate::context::Principal
#[inline]
fn refusal(tool: &Tool, ctx: &ToolContext) -> Option<ToolError> {
    if tool.scopes().is_empty() {
        return None;
    }
    let principal = ctx.principal()?;
    let missing = tool.missing_scopes(principal);
    (!missing.is_empty())
        .then(|| missing_scopes(format_args!("calling `{}`", tool.name()), &missing))
}

/// `permission_denied`, naming what was refused (`calling `tool``) and every scope the caller
/// lacks.
#[cold]
pub(super) fn missing_scopes(action: std::fmt::Arguments<'_>, missing: &[&str]) -> ToolError {
    let listed = match missing.split_last() {
        Some((only, [])) => format!("the scope `{only}`"),
        Some((last, rest)) => {
            let rest: Vec<String> = rest.iter().map(|s| format!("`{s}`")).collect();
            format!("the scopes {} and `{last}`", rest.join(", "))
        }
        None => "scopes".to_owned(),
    };
    ToolError::permission_denied(format!(
        "{action} needs {listed}, which the caller was not granted"
    ))
}

/// A SHA-256 of the input as the call ran it, for audit records (never the input itself): over
/// its canonical JSON (keys sorted, no spaces), so one input has one digest whether it came as
/// text or as a value, and whatever the order of its keys.
pub(super) fn digest(input: &Value) -> String {
    sha256(&crate::exec::canonical_json(input))
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let bytes = Sha256::digest(bytes);
    let mut hex = String::with_capacity(7 + 64);
    hex.push_str("sha256:");
    for b in bytes {
        use std::fmt::Write;
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// What a finished attempt returns: the tool's result, or why it stopped.
fn settle(tool: &Tool, outcome: Result<CallResult, Stopped>) -> CallResult {
    match outcome {
        Ok(result) => result,
        Err(Stopped::Panicked(payload)) => Err(ToolError::internal(format!(
            "`{}` panicked: {}",
            tool.name(),
            panic_message(payload)
        ))),
        Err(Stopped::Other(e)) => Err(ToolError::new(
            ErrorKind::Cancelled,
            format!("`{}` was stopped: {e}", tool.name()),
        )),
    }
}

/// Why an attempt ended without a result.
pub(super) enum Stopped {
    Panicked(Box<dyn std::any::Any + Send>),
    /// The blocking task was stopped (the runtime shutting down).
    Other(String),
}

/// A handler's call whose panic becomes [`Stopped::Panicked`] instead of unwinding into the
/// caller.
pub(super) enum CatchPanic<F = CallFuture> {
    Running(F),
    /// A sync tool runs as its call starts, so it can panic before there is a future.
    Panicked(Option<Box<dyn std::any::Any + Send>>),
}

impl<F> CatchPanic<F> {
    pub(super) fn start(call: impl FnOnce() -> F) -> Self {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)) {
            Ok(future) => Self::Running(future),
            Err(payload) => Self::Panicked(Some(payload)),
        }
    }
}

impl<F: Future + Unpin> Future for CatchPanic<F> {
    type Output = Result<F::Output, Stopped>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<Self::Output> {
        let future = match &mut *self {
            Self::Running(future) => future,
            Self::Panicked(payload) => {
                let payload = payload.take().unwrap_or_else(|| Box::new("polled again"));
                return Poll::Ready(Err(Stopped::Panicked(payload)));
            }
        };
        // The future is not polled again after a panic: it is dropped with the attempt.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            std::pin::Pin::new(&mut *future).poll(cx)
        })) {
            Ok(Poll::Ready(result)) => Poll::Ready(Ok(result)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(Stopped::Panicked(payload))),
        }
    }
}

pub(super) fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// The error as the model sees it: the kind and path kept, the message sanitised (no internal
/// hosts, tokens, paths outside the root or stack traces).
pub(super) fn for_model(error: ToolError, root: Option<&crate::context::ToolRoot>) -> ToolError {
    let mut sanitizer = crate::error::sanitize::Sanitizer::new();
    if let Some(root) = root {
        sanitizer = sanitizer.with_root(root.path());
    }
    let message = sanitizer.sanitize(error.message());
    let path = error.path().map(str::to_owned);
    let mut clean = ToolError::new(error.kind(), message);
    if let Some(path) = path {
        clean = clean.with_path(path);
    }
    clean.with_source(error)
}
