//! Long calls as MCP tasks (the extension `io.modelcontextprotocol/tasks`, protocol
//! 2026-07-28): when a call becomes one, how a running task is kept alive in the store, and how
//! a task looks on the wire.
//!
//! A call of a tool marked `task`, from a 2026-07-28 client that declared the extension, runs in
//! a Tokio task of its own with a cancellation token of its own (the request's is cancelled once
//! the request is answered). If it finishes within [`TaskOptions::after`] it is answered as any
//! call; otherwise a record is written to the store and the answer is a `CreateTaskResult`. The
//! instance then renews the task's lease while the tool runs (which is also how it learns of a
//! `tasks/cancel` that reached another instance) and writes its end once. Instances sharing a
//! store take over the tasks of one that stopped ([`McpServer`](crate::McpServer)'s sweep): an
//! idempotent call is run again, any other is failed with an error that says why.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::{CreateTaskResult, DetailedTask, Task, TaskPayload, TaskStatus as WireStatus};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tool_core::context::{EventSink, Principal, ToolEvent};
use tool_tasks::{TaskRecord, TaskStatus, TaskStore};

use crate::sync::lock;

/// The capability key a client declares under `extensions` to be answered with tasks.
pub(crate) const EXTENSION: &str = rmcp::model::TASKS_EXTENSION_ID;

/// How a server serves tasks: the store, and when and for how long.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use tool_mcp::{ServerOptions, TaskOptions};
/// let mut tasks = TaskOptions::new(Arc::new(tool_tasks::MemoryStore::new()));
/// tasks.after = Duration::ZERO; // every call of a task tool becomes a task at once
/// let mut options = ServerOptions::default();
/// options.tasks = Some(tasks);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct TaskOptions {
    /// Where tasks are kept: every instance that shares it answers for every task.
    pub store: Arc<dyn TaskStore>,
    /// How long a call runs as a plain call before it becomes a task. Default 1 s; zero makes
    /// every call of a task tool a task at once.
    pub after: Duration,
    /// How long after its creation a task is kept, its result included (`ttlMs`); `None`:
    /// until removed by hand. Default 1 hour. A task still running then is stopped.
    pub ttl: Option<Duration>,
    /// How often clients are asked to poll (`pollIntervalMs`). Default 1 s.
    pub poll_interval: Duration,
    /// How long an instance's hold on a running task lasts without renewal: the time after
    /// which an instance that stopped has its tasks taken over. Renewed every third of it.
    /// Default 15 s.
    pub lease: Duration,
}

impl TaskOptions {
    /// Tasks kept in `store`, with the defaults.
    pub fn new(store: Arc<dyn TaskStore>) -> Self {
        Self {
            store,
            after: Duration::from_secs(1),
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_secs(1),
            lease: Duration::from_secs(15),
        }
    }
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("store", &self.store.kind())
            .field("after", &self.after)
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .field("lease", &self.lease)
            .finish()
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The tasks this instance serves: the options, its name in the store, and the tasks it runs.
pub(crate) struct Tasks {
    pub(crate) options: TaskOptions,
    /// This instance's name as a holder of leases: random, so a restarted process is another.
    pub(crate) instance: String,
    running: Mutex<HashMap<String, Running>>,
    /// Told each time a task stops running here.
    untracked: tokio::sync::Notify,
    /// Cancelled when the instance stops: the tasks still running here give up their leases
    /// for another instance to take over, and the sweep stops.
    pub(crate) stopping: CancellationToken,
}

/// A task this instance runs.
struct Running {
    cancel: CancellationToken,
    status: Arc<StatusLine>,
}

impl Tasks {
    pub(crate) fn new(options: TaskOptions) -> Self {
        Self {
            options,
            instance: tool_tasks::new_task_id(),
            running: Mutex::new(HashMap::new()),
            untracked: tokio::sync::Notify::new(),
            stopping: CancellationToken::new(),
        }
    }

    /// Waits until no task runs here, or `limit` has passed; whether none does.
    pub(crate) async fn idle_within(&self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let untracked = self.untracked.notified();
            tokio::pin!(untracked);
            untracked.as_mut().enable();
            if lock(&self.running).is_empty() {
                return true;
            }
            tokio::select! {
                () = untracked => {}
                () = tokio::time::sleep_until(deadline) => {
                    return lock(&self.running).is_empty();
                }
            }
        }
    }

    pub(crate) fn store(&self) -> &dyn TaskStore {
        &*self.options.store
    }

    pub(crate) fn ttl_ms(&self) -> Option<u64> {
        self.options.ttl.map(millis)
    }

    pub(crate) fn poll_ms(&self) -> u64 {
        millis(self.options.poll_interval)
    }

    /// Until when a lease taken or renewed now runs.
    pub(crate) fn lease_until(&self, now: u64) -> u64 {
        now.saturating_add(millis(self.options.lease))
    }

    /// How often a running task's lease is renewed, and the store swept.
    pub(crate) fn beat(&self) -> Duration {
        (self.options.lease / 3).max(Duration::from_millis(10))
    }

    pub(crate) fn track(&self, id: &str, cancel: CancellationToken, status: Arc<StatusLine>) {
        lock(&self.running).insert(id.to_owned(), Running { cancel, status });
    }

    pub(crate) fn untrack(&self, id: &str) {
        lock(&self.running).remove(id);
        self.untracked.notify_waiters();
    }

    /// Cancels the task if it runs here; `false` if it does not.
    pub(crate) fn cancel_local(&self, id: &str) -> bool {
        match lock(&self.running).get(id) {
            Some(running) => {
                running.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Whether the task runs on this instance.
    pub(crate) fn runs_here(&self, id: &str) -> bool {
        lock(&self.running).contains_key(id)
    }

    /// The latest status line of a task that runs here (fresher than the store's).
    pub(crate) fn live_status(&self, id: &str) -> Option<String> {
        lock(&self.running).get(id).and_then(|r| r.status.peek())
    }
}

/// The latest progress message of a task's tool: its `statusMessage`.
#[derive(Default)]
pub(crate) struct StatusLine {
    /// The message, and whether the store has not seen it yet.
    line: Mutex<(Option<String>, bool)>,
}

impl StatusLine {
    fn set(&self, message: String) {
        let mut line = lock(&self.line);
        if line.0.as_deref() != Some(message.as_str()) {
            *line = (Some(message), true);
        }
    }

    /// The message, if it changed since the last call.
    pub(crate) fn take_new(&self) -> Option<String> {
        let mut line = lock(&self.line);
        if !line.1 {
            return None;
        }
        line.1 = false;
        line.0.clone()
    }

    /// The latest message.
    pub(crate) fn peek(&self) -> Option<String> {
        lock(&self.line).0.clone()
    }
}

/// The event sink of a call that may become a task: events go on to the call's own sink (its
/// notifications, until it becomes a task), and progress becomes the task's status line.
pub(crate) struct TaskEvents {
    /// The call's own sink (none for a call run again after its instance stopped).
    pub(crate) inner: Option<Arc<dyn EventSink>>,
    pub(crate) status: Arc<StatusLine>,
}

impl EventSink for TaskEvents {
    fn emit(&self, event: &ToolEvent) {
        if let ToolEvent::Progress {
            done,
            total,
            message,
            ..
        } = event
        {
            let line = match (message.is_empty(), total) {
                (false, _) => message.clone(),
                (true, Some(total)) => format!("{done} of {total}"),
                (true, None) => format!("{done} done"),
            };
            self.status.set(line);
        }
        if let Some(inner) = &self.inner {
            inner.emit(event);
        }
    }

    fn wants_lifecycle(&self) -> bool {
        self.inner
            .as_ref()
            .is_some_and(|inner| inner.wants_lifecycle())
    }
}

/// Whether a request's `_meta` declares the tasks extension among its client's capabilities.
pub(crate) fn declared(capabilities: Option<&Value>) -> bool {
    capabilities
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some()
}

/// The owner key of a task: the caller's issuer and subject, unambiguous as JSON.
pub(crate) fn owner_key(caller: Option<&Principal>) -> Option<String> {
    caller.map(|p| json!([p.issuer(), p.subject()]).to_string())
}

/// What a task keeps of its call, to run it again (on another instance, or with its
/// client's answers): who called, with which scopes, and what the client declared it can
/// answer. The access token is not kept: a call run again reaches no downstream service with
/// the caller's token.
pub(crate) fn origin(caller: Option<&Principal>, capabilities: Option<&Value>) -> Value {
    let mut origin = serde_json::Map::new();
    if let Some(p) = caller {
        origin.insert("subject".into(), json!(p.subject()));
        origin.insert("issuer".into(), json!(p.issuer()));
        origin.insert("client_id".into(), json!(p.client_id()));
        origin.insert("scopes".into(), json!(p.scopes()));
    }
    if let Some(capabilities) = capabilities {
        origin.insert("client_capabilities".into(), capabilities.clone());
    }
    Value::Object(origin)
}

/// The client capabilities [`origin`] kept, if any.
pub(crate) fn capabilities(origin: &Value) -> Option<Value> {
    origin.get("client_capabilities").cloned()
}

/// The caller [`origin`] kept, if any.
pub(crate) fn principal(origin: &Value) -> Option<Principal> {
    let subject = origin.get("subject")?.as_str()?;
    let mut principal = Principal::new(subject);
    if let Some(issuer) = origin.get("issuer").and_then(Value::as_str) {
        principal = principal.with_issuer(issuer);
    }
    if let Some(client) = origin.get("client_id").and_then(Value::as_str) {
        principal = principal.with_client_id(client);
    }
    let scopes = origin
        .get("scopes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    Some(principal.with_scopes(scopes))
}

/// An RFC 3339 timestamp of `ms` since the epoch.
fn timestamp(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    jiff::Timestamp::from_millisecond(ms)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_string()
}

fn wire_status(status: TaskStatus) -> WireStatus {
    match status {
        TaskStatus::Working => WireStatus::Working,
        TaskStatus::InputRequired => WireStatus::InputRequired,
        TaskStatus::Completed => WireStatus::Completed,
        TaskStatus::Failed => WireStatus::Failed,
        TaskStatus::Cancelled => WireStatus::Cancelled,
    }
}

/// The wire form of a task's fields, with `status_message` in place of the record's when the
/// task runs here.
pub(crate) fn wire_task(record: &TaskRecord, status_message: Option<String>) -> Task {
    let mut task = Task::new(
        record.id.clone(),
        wire_status(record.status),
        timestamp(record.created_ms),
        timestamp(record.updated_ms),
    );
    task.ttl_ms = record.ttl_ms;
    task.poll_interval_ms = record.poll_interval_ms;
    task.status_message = status_message.or_else(|| record.status_message.clone());
    task
}

/// The `CreateTaskResult` of a task just created.
pub(crate) fn created(record: &TaskRecord) -> CreateTaskResult {
    CreateTaskResult::new(wire_task(record, None))
}

/// A task as `tasks/get` answers it: its fields, and by its status the questions it waits on,
/// the call's result (as `tools/call` would have returned it) or its JSON-RPC error.
pub(crate) fn detailed(record: &TaskRecord, status_message: Option<String>) -> DetailedTask {
    let object = |value: &Option<Value>| match value {
        Some(Value::Object(map)) => map.clone(),
        _ => serde_json::Map::new(),
    };
    let payload = match record.status {
        TaskStatus::Working => TaskPayload::Working,
        TaskStatus::InputRequired => TaskPayload::InputRequired {
            // Written by this server from rmcp's own requests: each reads back.
            input_requests: record
                .input_requests
                .iter()
                .filter_map(|(key, request)| {
                    let request = serde_json::from_value(request.clone()).ok()?;
                    Some((key.clone(), request))
                })
                .collect(),
        },
        TaskStatus::Completed => TaskPayload::Completed {
            result: object(&record.outcome),
        },
        TaskStatus::Failed => TaskPayload::Failed {
            error: object(&record.outcome),
        },
        TaskStatus::Cancelled => TaskPayload::Cancelled,
    };
    DetailedTask::new(wire_task(record, status_message), payload)
}

/// The JSON-RPC error of a task whose call failed with `error`.
pub(crate) fn error_object(error: &rmcp::ErrorData) -> Value {
    serde_json::to_value(error)
        .unwrap_or_else(|_| json!({"code": -32603, "message": "internal error"}))
}

/// The status message of a task whose run asked its client for input.
pub(crate) const WAITING: &str =
    "waiting for the client's answers (tasks/get shows the questions; answer with tasks/update)";

/// The error of a task whose tool this server no longer serves, when it was to run again.
pub(crate) fn gone(tool: &str) -> Value {
    json!({
        "code": -32602,
        "message": format!("`{tool}` is no longer served, so the task cannot go on"),
    })
}

/// The error of a task whose instance stopped while it ran, for a tool not run again.
pub(crate) fn stopped(tool: &str) -> Value {
    json!({
        "code": -32603,
        "message": format!(
            "the server instance running this task stopped before it finished; `{tool}` is \
             not marked idempotent, so it was not run again: call it again if that is safe"
        ),
    })
}
