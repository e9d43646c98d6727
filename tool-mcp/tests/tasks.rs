//! Long calls as MCP tasks, over raw JSON-RPC on the stdio transport (and the SDK's own loop):
//! a call that becomes a task and is polled to its end, its result as `tools/call` would give
//! it; failed and cancelled tasks; another caller refused; a client without the extension, and
//! a session, answered as today; results past their time to live gone; and tasks that outlive
//! the process that ran them (SQLite), taken over when it stopped; and the SDK's own client
//! following a task.
//!
//! Time runs on Tokio's paused clock, the store's included ([`TestStore`]): tools that take a
//! while, thresholds, leases and times to live cost no real time, and a client asks
//! `tasks/get` again when the store says a task changed, not at a fixed interval. Only the test
//! over Streamable HTTP, on real sockets, runs on the real clock, with tools the test lets
//! finish.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::ElicitRequestParams;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream};
use tokio::sync::watch;
use tool_core::exec::Executor;
use tool_core::{
    Registry, ToolContext, ToolError, ToolOutput,
    context::FromContext as _,
    context::Principal,
    definition::{Annotations, TaskSupport},
    registry::DynamicTool,
    registry::ToolApproval,
};
use tool_mcp::tool_tasks::{
    Answered, Ending, Input, ListFilter, MemoryStore, NewTask, Renewal, SqliteStore, StoreFuture,
    TaskRecord, TaskStatus, TaskStore,
};
use tool_mcp::{McpPeer, McpServer, ServerOptions, TaskOptions, serve_io};

const MODERN: &str = "2026-07-28";

/// How often `remove_item` ran.
static REMOVED: AtomicUsize = AtomicUsize::new(0);

/// A permit for each call of `hold` the test lets finish (one test calls it).
static RELEASE: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);

fn tools() -> Registry {
    let mut registry = Registry::empty();
    let object = json!({"type": "object"});
    let idempotent = Annotations::default().idempotent(true);
    let writes = Annotations::default().read_only(false).idempotent(false);
    let item_schema = json!({
        "type": "object",
        "properties": {"item": {"type": "string"}},
        "required": ["item"],
    });
    registry
        .register_all([
            // Sleeps `ms`, telling its progress, and answers how long it slept.
            DynamicTool::new("wait_ms", "Waits.", object.clone())
                .task(true)
                .annotations(idempotent)
                .vouched(true)
                .handler(|input, ctx| async move {
                    let ms = input["ms"].as_u64().unwrap_or(0);
                    ctx.progress(0, Some(ms), "started waiting");
                    tokio::time::sleep(Duration::from_millis(ms / 2)).await;
                    ctx.progress(ms / 2, Some(ms), "half way");
                    tokio::time::sleep(Duration::from_millis(ms - ms / 2)).await;
                    Ok(ToolOutput::new(json!({"slept_ms": ms})))
                }),
            // The same, but neither idempotent nor read-only: never run twice.
            DynamicTool::new("send_report", "Sends a report.", object.clone())
                .task(true)
                .annotations(writes)
                .vouched(true)
                .handler(|input, _| async move {
                    let ms = input["ms"].as_u64().unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    Ok(ToolOutput::new(json!({"sent": true})))
                }),
            // Fails in its own terms after a while: a completed task whose result is an error.
            DynamicTool::new("break_slowly", "Fails.", object.clone())
                .task(true)
                .handler(|_, _| async move {
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    Err::<ToolOutput, _>(ToolError::failed("the build broke"))
                }),
            // Asks its user two things, one after the other, only after it became a task: the
            // task waits for each answer and runs again with it.
            DynamicTool::new("ask_late", "Asks late.", object.clone())
                .task(true)
                .handler(|_, ctx: ToolContext| async move {
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    let client = McpPeer::from_context(&ctx)?;
                    let ask = |message: &str| {
                        serde_json::from_value::<ElicitRequestParams>(json!({
                            "message": message,
                            "requestedSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
                        }))
                        .map_err(ToolError::internal)
                    };
                    let name = client.elicit(ask("Your name?")?).await?;
                    let city = client.elicit(ask("Your city?")?).await?;
                    Ok(ToolOutput::new(json!({
                        "name": name.content.unwrap_or_default()["text"],
                        "city": city.content.unwrap_or_default()["text"],
                    })))
                }),
            // Needs a person's yes; counts its runs.
            DynamicTool::new("remove_item", "Removes an item.", item_schema.clone())
                .annotations(writes)
                .vouched(true)
                .approval(ToolApproval::with_message("Remove the item {item}?"))
                .handler(|input, _| async move {
                    REMOVED.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolOutput::new(json!({"removed": input["item"]})))
                }),
            // Removes an item through `remove_item` once it became a task: the approval is
            // asked in the task's `input_required`.
            DynamicTool::new("tidy_late", "Tidies late.", item_schema)
                .task(true)
                .annotations(writes)
                .vouched(true)
                .handler(|input, ctx: ToolContext| async move {
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    ctx.call_tool("remove_item", json!({"item": input["item"]}))
                        .await
                }),
            // Breaks (an internal error, as a panic is): a failed task, not a result.
            DynamicTool::new("break_inside", "Breaks.", object.clone())
                .task(true)
                .handler(|_, _| async move {
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    Err::<ToolOutput, _>(ToolError::internal("the disk vanished"))
                }),
            // Its calls must be tasks, even one over at once.
            DynamicTool::new("train_model", "Trains.", object.clone())
                .task_support(TaskSupport::Required)
                .handler(|_, _| async move { Ok(ToolOutput::new(json!({"score": 0.9}))) }),
            // A task at once, whatever it does first.
            DynamicTool::new("export_now", "Exports.", object.clone())
                .task(true)
                .task_after(Duration::ZERO)
                .handler(|_, _| async move { Ok(ToolOutput::new(json!({"exported": true}))) }),
            // Runs until the test lets it finish (a permit of `RELEASE`) or its call is
            // cancelled: a call that outlives the threshold on the real clock, for as long as
            // the test needs and no longer.
            DynamicTool::new("hold", "Holds.", object.clone())
                .task(true)
                .annotations(idempotent)
                .vouched(true)
                .handler(|_, _| async move {
                    RELEASE.acquire().await.unwrap().forget();
                    Ok(ToolOutput::new(json!({"held": true})))
                }),
            // Not marked: never a task.
            DynamicTool::new("wait_plain", "Waits.", object).handler(|input, _| async move {
                let ms = input["ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ToolOutput::new(json!({"slept_ms": ms})))
            }),
        ])
        .unwrap();
    registry
}

/// Milliseconds since the Unix epoch on the wall clock, as the server reads its time.
fn wall_ms() -> u64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    u64::try_from(since.as_millis()).unwrap()
}

/// The store the servers of a test share: a store of `tool-tasks`, with two things of the
/// test's own.
///
/// - Its clock is Tokio's. The server passes its times in (the wall clock's, which instances
///   share); each is checked to be the wall clock's now and read as this store's now, the paused
///   clock's, and a lease's end keeps its distance from it. So leases and times to live run out
///   as the test's time passes, at no cost in real time, as the store's trait means to allow
///   ("tests can move time").
/// - It says when a task changed (`watch`): created, given a new status line, ended, waiting
///   for input or answered, cancelled, taken over, given up or removed. A client asks
///   `tasks/get` again then, where a client of the protocol asks every `pollIntervalMs`:
///   between two changes it could see nothing new.
struct TestStore {
    inner: Arc<dyn TaskStore>,
    /// The store's time when it was made, and Tokio's.
    epoch_ms: u64,
    started: tokio::time::Instant,
    changes: watch::Sender<u64>,
}

impl TestStore {
    fn memory() -> Arc<Self> {
        Self::starting_at(Arc::new(MemoryStore::new()), wall_ms())
    }

    /// `inner`, with a clock that reads `epoch_ms` now (a restarted process's store goes on
    /// from the time its last one reached).
    fn starting_at(inner: Arc<dyn TaskStore>, epoch_ms: u64) -> Arc<Self> {
        Arc::new(Self {
            inner,
            epoch_ms,
            started: tokio::time::Instant::now(),
            changes: watch::Sender::new(0),
        })
    }

    /// The store's time now, in milliseconds since the epoch.
    fn now_ms(&self) -> u64 {
        self.epoch_ms + u64::try_from(self.started.elapsed().as_millis()).unwrap()
    }

    /// When the store's clock reads `ms`.
    fn instant_at(&self, ms: u64) -> tokio::time::Instant {
        self.started + Duration::from_millis(ms - self.epoch_ms)
    }

    /// The store's now, for a `now` the server passed: its wall clock's, within a minute.
    fn now(&self, passed: u64) -> u64 {
        let wall = wall_ms();
        assert!(
            passed.abs_diff(wall) < 60_000,
            "the server passed {passed} as the time, the wall clock says {wall}"
        );
        self.now_ms()
    }

    /// A time the server set from its `now` (a lease's end), as far from `now`, in store time.
    fn shifted(now: u64, passed_now: u64, passed: u64) -> u64 {
        now + passed.saturating_sub(passed_now)
    }

    fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
    }

    /// Told of the changes from now on.
    fn watch(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// The record as the store keeps it (asked at time 0: whatever its time to live).
    async fn record(&self, id: &str) -> TaskRecord {
        self.inner.get(id, 0).await.unwrap().unwrap()
    }

    /// Every record the store keeps (asked at time 0: whatever their time to live).
    async fn records(&self) -> Vec<TaskRecord> {
        self.inner.list(ListFilter::default(), 0).await.unwrap()
    }

    /// Waits until `holds` of the records the store keeps, checking again at each change, for
    /// `within` of the test's clock at most.
    async fn until(&self, within: Duration, what: &str, holds: impl Fn(&[TaskRecord]) -> bool) {
        let mut changes = self.watch();
        let waiting = async {
            loop {
                changes.borrow_and_update();
                if holds(&self.records().await) {
                    return;
                }
                changes.changed().await.unwrap();
            }
        };
        if tokio::time::timeout(within, waiting).await.is_err() {
            panic!("{what}: {:?}", self.records().await);
        }
    }
}

impl TaskStore for TestStore {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn create(&self, mut task: NewTask) -> StoreFuture<'_, ()> {
        let now = self.now(task.now_ms);
        task.lease_until_ms = Self::shifted(now, task.now_ms, task.lease_until_ms);
        task.now_ms = now;
        Box::pin(async move {
            self.inner.create(task).await?;
            self.changed();
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        self.inner.get(id, self.now(now_ms))
    }

    fn list(&self, filter: ListFilter, now_ms: u64) -> StoreFuture<'_, Vec<TaskRecord>> {
        self.inner.list(filter, self.now(now_ms))
    }

    fn renew<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        lease_until_ms: u64,
        status_message: Option<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, Renewal> {
        let now = self.now(now_ms);
        let until = Self::shifted(now, now_ms, lease_until_ms);
        // A renewal that only moves the lease changes nothing a client sees.
        let tells = status_message.is_some();
        Box::pin(async move {
            let renewal = self
                .inner
                .renew(id, holder, until, status_message, now)
                .await?;
            if tells && matches!(renewal, Renewal::Held { .. }) {
                self.changed();
            }
            Ok(renewal)
        })
    }

    fn finish<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        mut ending: Ending,
    ) -> StoreFuture<'a, bool> {
        ending.now_ms = self.now(ending.now_ms);
        Box::pin(async move {
            let ended = self.inner.finish(id, holder, ending).await?;
            if ended {
                self.changed();
            }
            Ok(ended)
        })
    }

    fn wait_for_input<'a>(
        &'a self,
        id: &'a str,
        holder: &'a str,
        mut input: Input,
    ) -> StoreFuture<'a, bool> {
        input.now_ms = self.now(input.now_ms);
        Box::pin(async move {
            let waits = self.inner.wait_for_input(id, holder, input).await?;
            if waits {
                self.changed();
            }
            Ok(waits)
        })
    }

    fn answer<'a>(
        &'a self,
        id: &'a str,
        responses: &'a serde_json::Map<String, Value>,
        holder: &'a str,
        lease_until_ms: u64,
        now_ms: u64,
    ) -> StoreFuture<'a, Answered> {
        let now = self.now(now_ms);
        let until = Self::shifted(now, now_ms, lease_until_ms);
        Box::pin(async move {
            let answered = self.inner.answer(id, responses, holder, until, now).await?;
            if !matches!(answered, Answered::NotWaiting) {
                self.changed();
            }
            Ok(answered)
        })
    }

    fn request_cancel<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, bool> {
        let now = self.now(now_ms);
        Box::pin(async move {
            let asked = self.inner.request_cancel(id, now).await?;
            if asked {
                self.changed();
            }
            Ok(asked)
        })
    }

    fn claim_expired<'a>(
        &'a self,
        holder: &'a str,
        now_ms: u64,
        lease_until_ms: u64,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>> {
        let now = self.now(now_ms);
        let until = Self::shifted(now, now_ms, lease_until_ms);
        Box::pin(async move {
            let claimed = self.inner.claim_expired(holder, now, until, limit).await?;
            if !claimed.is_empty() {
                self.changed();
            }
            Ok(claimed)
        })
    }

    fn release<'a>(&'a self, id: &'a str, holder: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let released = self.inner.release(id, holder).await?;
            if released {
                self.changed();
            }
            Ok(released)
        })
    }

    fn purge(&self, now_ms: u64) -> StoreFuture<'_, u64> {
        let now = self.now(now_ms);
        Box::pin(async move {
            let removed = self.inner.purge(now).await?;
            if removed > 0 {
                self.changed();
            }
            Ok(removed)
        })
    }
}

fn task_options(store: &Arc<TestStore>) -> TaskOptions {
    let mut tasks = TaskOptions::new(store.clone());
    tasks.after = Duration::from_millis(50);
    tasks.lease = Duration::from_millis(300);
    tasks.poll_interval = Duration::from_millis(20);
    tasks
}

fn server(tasks: TaskOptions, caller: Option<&str>, sdk_transport: bool) -> McpServer {
    let mut options = ServerOptions::named("tasks", "1.0.0");
    options.tasks = Some(tasks);
    options.sdk_transport = sdk_transport;
    let server = McpServer::with_options(Executor::new(tools()), options);
    match caller {
        Some(subject) => server.with_base_context(
            ToolContext::builder()
                .principal(Principal::new(subject).with_issuer("https://issuer.test"))
                .build(),
        ),
        None => server,
    }
}

/// A client on one stdio connection, raw JSON-RPC.
struct Client {
    read: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    write: tokio::io::WriteHalf<DuplexStream>,
    next: i64,
    serving: tokio::task::JoinHandle<()>,
}

impl Client {
    fn connect(server: McpServer) -> Self {
        let (client, served) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(served);
        let serving = tokio::spawn(async move {
            let _ = serve_io(server, read, write, Default::default()).await;
        });
        let (read, write) = tokio::io::split(client);
        Self {
            read: BufReader::new(read),
            write,
            next: 1,
            serving,
        }
    }

    /// Sends a request and reads lines until its answer (notifications are skipped).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        loop {
            let mut line = String::new();
            let n = tokio::time::timeout(Duration::from_secs(20), self.read.read_line(&mut line))
                .await
                .expect("an answer within 20 s")
                .unwrap();
            assert!(n > 0, "the server ended before answering {method}");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    async fn initialize(&mut self, capabilities: Value) {
        let answer = self
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                       "clientInfo": {"name": "t", "version": "1"}}),
            )
            .await;
        assert!(answer.get("result").is_some(), "{answer}");
        self.write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .await
            .unwrap();
    }

    /// Ends the input; the server must then end (a task still running does not hold it).
    async fn close(mut self) {
        self.write.shutdown().await.unwrap();
        tokio::time::timeout(Duration::from_secs(10), self.serving)
            .await
            .expect("the server ends at the end of its input")
            .unwrap();
    }
}

/// `_meta` of a 2026-07-28 request; `tasks`: the client declares the extension.
fn meta(tasks: bool, more: Value) -> Value {
    let mut capabilities = if tasks {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({})
    };
    if let (Some(c), Some(more)) = (capabilities.as_object_mut(), more.as_object()) {
        c.extend(more.clone());
    }
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    })
}

fn call(tool: &str, arguments: Value, tasks: bool) -> Value {
    json!({"name": tool, "arguments": arguments, "_meta": meta(tasks, json!({}))})
}

fn task_ref(id: &str) -> Value {
    json!({"taskId": id, "_meta": meta(true, json!({}))})
}

/// Asks `tasks/get` until `done` holds of its answer: once, then again each time the store says
/// a task changed (a client of the protocol asks every `pollIntervalMs`; in between it could see
/// nothing new), for a minute of the test's clock at most; that answer.
async fn poll_until(
    client: &mut Client,
    store: &TestStore,
    id: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let mut changes = store.watch();
    let asking = async {
        loop {
            changes.borrow_and_update();
            let answer = client.request("tasks/get", task_ref(id)).await;
            if done(&answer) {
                return answer;
            }
            changes.changed().await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(60), asking)
        .await
        .unwrap_or_else(|_| panic!("task {id} did not get there"))
}

/// Polls `tasks/get` until the task is terminal; its last answer.
async fn poll(client: &mut Client, store: &TestStore, id: &str) -> Value {
    let answer = poll_until(client, store, id, |answer| {
        let status = answer["result"]["status"]
            .as_str()
            .unwrap_or_else(|| panic!("{answer}"));
        matches!(status, "completed" | "failed" | "cancelled")
    })
    .await;
    answer["result"].clone()
}

/// Starts a call that must become a task; its id.
async fn start(client: &mut Client, tool: &str, arguments: Value) -> String {
    let answer = client
        .request("tools/call", call(tool, arguments, true))
        .await;
    let result = &answer["result"];
    assert_eq!(result["resultType"], "task", "{answer}");
    assert_eq!(result["status"], "working", "{answer}");
    result["taskId"].as_str().unwrap().to_owned()
}

#[tokio::test(start_paused = true)]
async fn a_long_call_becomes_a_task_polled_to_its_result() {
    for sdk_transport in [false, true] {
        let store = TestStore::memory();
        let mut client = Client::connect(server(task_options(&store), None, sdk_transport));
        let answer = client
            .request("tools/call", call("wait_ms", json!({"ms": 400}), true))
            .await;
        let created = &answer["result"];
        assert_eq!(created["resultType"], "task", "{answer}");
        let id = created["taskId"].as_str().unwrap();
        assert_eq!(id.len(), 32, "{answer}");
        assert_eq!(created["ttlMs"], 3_600_000, "{answer}");
        assert_eq!(created["pollIntervalMs"], 20, "{answer}");
        assert!(
            created["createdAt"].as_str().unwrap().ends_with('Z'),
            "{answer}"
        );
        assert_eq!(
            created["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "tasks",
            "{answer}"
        );
        assert!(created.get("requestState").is_none(), "{answer}");

        // The progress of the running tool is the task's status line.
        let running = poll_until(&mut client, &store, id, |answer| {
            answer["result"]["statusMessage"] == "half way"
        })
        .await;
        assert_eq!(running["result"]["resultType"], "complete", "{running}");
        assert_eq!(running["result"]["status"], "working", "{running}");
        assert_eq!(running["result"]["statusMessage"], "half way", "{running}");

        let done = poll(&mut client, &store, id).await;
        assert_eq!(done["status"], "completed", "{done}");
        // The tool's last progress, not the one the store saw at a renewal.
        assert_eq!(done["statusMessage"], "half way", "{done}");
        // Exactly what `tools/call` answers a client without the extension.
        let plain = client
            .request("tools/call", call("wait_ms", json!({"ms": 400}), false))
            .await;
        assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
        let mut expected = plain["result"].clone();
        expected.as_object_mut().unwrap().remove("resultType");
        let mut got = done["result"].clone();
        got.as_object_mut().unwrap().remove("resultType");
        assert_eq!(got, expected, "sdk_transport: {sdk_transport}");
        assert_eq!(got["structuredContent"], json!({"slept_ms": 400}));
        client.close().await;
    }
}

#[tokio::test(start_paused = true)]
async fn short_calls_and_clients_without_the_extension_get_plain_results() {
    let store = TestStore::memory();
    let mut client = Client::connect(server(task_options(&store), None, false));
    // Done before the threshold: a plain result.
    let quick = client
        .request("tools/call", call("wait_ms", json!({"ms": 1}), true))
        .await;
    assert_eq!(quick["result"]["resultType"], "complete", "{quick}");
    // A tool not marked `task`, however long.
    let unmarked = client
        .request("tools/call", call("wait_plain", json!({"ms": 200}), true))
        .await;
    assert_eq!(unmarked["result"]["resultType"], "complete", "{unmarked}");
    // A client that did not declare the extension waits for the result.
    let undeclared = client
        .request("tools/call", call("wait_ms", json!({"ms": 200}), false))
        .await;
    assert_eq!(
        undeclared["result"]["resultType"], "complete",
        "{undeclared}"
    );
    assert_eq!(
        undeclared["result"]["structuredContent"],
        json!({"slept_ms": 200})
    );
    // And may not follow tasks: -32021, the capability it lacks.
    let refused = client
        .request(
            "tasks/get",
            json!({"taskId": "x", "_meta": meta(false, json!({}))}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    let unknown = client.request("tasks/get", task_ref("no-such-task")).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    // Every record the store keeps (listed as of a time when none is past its time to live).
    assert!(store.records().await.is_empty(), "no call became a task");
    client.close().await;

    // A session (`initialize`) never gets a task, even declaring the extension there.
    let mut session = Client::connect(server(task_options(&store), None, false));
    session
        .initialize(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
        .await;
    let answer = session
        .request(
            "tools/call",
            json!({"name": "wait_ms", "arguments": {"ms": 200}}),
        )
        .await;
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"slept_ms": 200}),
        "{answer}"
    );
    assert!(answer["result"].get("taskId").is_none(), "{answer}");
    assert!(
        store.records().await.is_empty(),
        "a session's call became a task"
    );
    session.close().await;
}

#[tokio::test(start_paused = true)]
async fn failed_and_cancelled_tasks() {
    let store = TestStore::memory();
    let mut client = Client::connect(server(task_options(&store), None, false));

    // A tool's own error: the task completes, its result the error result.
    let id = start(&mut client, "break_slowly", json!({})).await;
    let done = poll(&mut client, &store, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "the build broke",
        "{done}"
    );

    // A question the client did not declare it can answer: failed, with the JSON-RPC error
    // (-32021) naming the capability.
    let id = start(&mut client, "ask_late", json!({})).await;
    let failed = poll(&mut client, &store, &id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32021, "{failed}");
    assert!(
        failed["error"]["data"]["requiredCapabilities"]["elicitation"].is_object(),
        "{failed}"
    );
    assert!(failed.get("result").is_none(), "{failed}");

    // Cancelled while it runs: cancelled, never completed, and cancelling again is fine.
    let id = start(&mut client, "wait_ms", json!({"ms": 30_000})).await;
    let ack = client.request("tasks/cancel", task_ref(&id)).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let cancelled = poll(&mut client, &store, &id).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(cancelled.get("result").is_none(), "{cancelled}");
    let again = client.request("tasks/cancel", task_ref(&id)).await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
    // tasks/update of a task that waits for nothing is acknowledged, and changes nothing.
    let update = client
        .request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {}, "_meta": meta(true, json!({}))}),
        )
        .await;
    assert_eq!(update["result"]["resultType"], "complete", "{update}");
    // The server ends only once the tasks it ran have ended and been written: nothing wrote
    // over the cancellation.
    client.close().await;
    let still = store.record(&id).await;
    assert_eq!(still.status, TaskStatus::Cancelled, "{still:?}");
}

/// A tool whose calls must be tasks: -32021 for a 2026-07-28 client without the extension,
/// before it runs; a task even when it is over at once for one with it; its result for a
/// session. An internal error fails a task (-32603 inlined, no result); a threshold of zero
/// makes a task at once.
#[tokio::test(start_paused = true)]
async fn required_tasks_failed_runs_and_tasks_at_once() {
    let store = TestStore::memory();
    let mut client = Client::connect(server(task_options(&store), None, false));

    let refused = client
        .request("tools/call", call("train_model", json!({}), false))
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"]
            ["io.modelcontextprotocol/tasks"]
            .is_object(),
        "{refused}"
    );
    let answer = client
        .request("tools/call", call("train_model", json!({}), true))
        .await;
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    let id = answer["result"]["taskId"].as_str().unwrap().to_owned();
    let done = poll(&mut client, &store, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"]["score"], 0.9, "{done}");

    let id = start(&mut client, "break_inside", json!({})).await;
    let failed = poll(&mut client, &store, &id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(
        failed["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("the disk vanished")),
        "{failed}"
    );
    assert!(failed.get("result").is_none(), "{failed}");

    let id = start(&mut client, "export_now", json!({})).await;
    let done = poll(&mut client, &store, &id).await;
    assert_eq!(
        done["result"]["structuredContent"]["exported"], true,
        "{done}"
    );
    client.close().await;

    // A session has no tasks: the call's result.
    let mut session = Client::connect(server(task_options(&store), None, false));
    session.initialize(json!({})).await;
    let plain = session
        .request(
            "tools/call",
            json!({"name": "train_model", "arguments": {}}),
        )
        .await;
    assert_eq!(
        plain["result"]["structuredContent"]["score"], 0.9,
        "{plain}"
    );
    session.close().await;
}

/// `tasks/get` until the task leaves `working`; its last answer.
async fn poll_while_working(client: &mut Client, store: &TestStore, id: &str) -> Value {
    let answer = poll_until(client, store, id, |answer| {
        answer["result"]["status"] != "working"
    })
    .await;
    answer["result"].clone()
}

/// The one question a task in `input_required` shows: its key and its message.
fn question(task: &Value) -> (String, String) {
    assert_eq!(task["status"], "input_required", "{task}");
    let requests = task["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{task}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create", "{task}");
    (
        key.clone(),
        request["params"]["message"].as_str().unwrap().to_owned(),
    )
}

fn update(id: &str, responses: Value) -> Value {
    json!({"taskId": id, "inputResponses": responses, "_meta": meta(true, json!({}))})
}

fn accept(text: &str) -> Value {
    json!({"action": "accept", "content": {"text": text}})
}

/// A task whose tool asks its user after the call became a task: `input_required` with the
/// question, answered with `tasks/update` (on any instance sharing the store), and run again
/// with the answers until it completes; answers to keys not asked are ignored; a waiting task
/// is cancelled at once.
#[tokio::test(start_paused = true)]
async fn a_task_asks_its_client_and_goes_on_with_the_answers() {
    let store = TestStore::memory();
    let mut client = Client::connect(server(task_options(&store), Some("ada"), false));
    let mut elsewhere = Client::connect(server(task_options(&store), Some("ada"), false));
    let elicits = json!({"elicitation": {"form": {}}});
    let answer = client
        .request(
            "tools/call",
            json!({"name": "ask_late", "arguments": {}, "_meta": meta(true, elicits.clone())}),
        )
        .await;
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    let id = answer["result"]["taskId"].as_str().unwrap().to_owned();

    let waiting = poll_while_working(&mut client, &store, &id).await;
    let (first, message) = question(&waiting);
    assert_eq!(message, "Your name?");
    assert!(
        waiting["statusMessage"]
            .as_str()
            .unwrap()
            .contains("tasks/update"),
        "{waiting}"
    );
    // Asked again, the same question under the same key.
    let again = client.request("tasks/get", task_ref(&id)).await;
    assert_eq!(question(&again["result"]), (first.clone(), message));

    // An answer to a key never asked is ignored: still waiting.
    let ack = elsewhere
        .request(
            "tasks/update",
            update(&id, json!({"never-asked": accept("x")})),
        )
        .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let still = elsewhere.request("tasks/get", task_ref(&id)).await;
    assert_eq!(question(&still["result"]).0, first);

    // Answered on another instance: it runs there again, and asks the second question.
    let ack = elsewhere
        .request(
            "tasks/update",
            update(&id, json!({first.clone(): accept("Ada")})),
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let waiting = poll_while_working(&mut client, &store, &id).await;
    let (second, message) = question(&waiting);
    assert_eq!(message, "Your city?");
    assert_ne!(second, first);
    // A late answer to the first question changes nothing.
    client
        .request("tasks/update", update(&id, json!({first: accept("Bob")})))
        .await;
    client
        .request(
            "tasks/update",
            update(&id, json!({second: accept("Paris")})),
        )
        .await;
    let done = poll(&mut client, &store, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"name": "Ada", "city": "Paris"}),
        "{done}"
    );

    // Cancelled while it waits: cancelled at once, nothing runs it any more.
    let answer = client
        .request(
            "tools/call",
            json!({"name": "ask_late", "arguments": {}, "_meta": meta(true, elicits)}),
        )
        .await;
    let id = answer["result"]["taskId"].as_str().unwrap().to_owned();
    let (key, _) = question(&poll_while_working(&mut client, &store, &id).await);
    let ack = client.request("tasks/cancel", task_ref(&id)).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let cancelled = client.request("tasks/get", task_ref(&id)).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    assert!(
        cancelled["result"].get("inputRequests").is_none(),
        "{cancelled}"
    );
    client
        .request("tasks/update", update(&id, json!({key: accept("Ada")})))
        .await;
    // Each server ends only once the tasks it ran have ended and been written: the answer ran
    // nothing that wrote over the cancellation.
    client.close().await;
    elsewhere.close().await;
    let still = store.record(&id).await;
    assert_eq!(still.status, TaskStatus::Cancelled, "{still:?}");
}

/// Starts `tidy_late` on `item` and waits for its question: the task's id, and the question's
/// key and message. The form has no field to tick and none required.
async fn start_tidy(
    client: &mut Client,
    store: &TestStore,
    item: &str,
) -> (String, (String, String)) {
    let elicits = json!({"elicitation": {"form": {}}});
    let answer = client
        .request(
            "tools/call",
            json!({"name": "tidy_late", "arguments": {"item": item},
                   "_meta": meta(true, elicits)}),
        )
        .await;
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    let id = answer["result"]["taskId"].as_str().unwrap().to_owned();
    let waiting = poll_while_working(client, store, &id).await;
    let asked = question(&waiting);
    let requests = waiting["inputRequests"].as_object().unwrap();
    let schema = &requests[&asked.0]["params"]["requestedSchema"];
    assert!(schema.get("required").is_none(), "{schema}");
    assert!(schema["properties"].get("approve").is_none(), "{schema}");
    (id, asked)
}

/// The approval a task's tool needs, asked in the task's `input_required`: the form has
/// nothing to tick, and the host's Accept with the form left empty runs the call once; a
/// Decline, with its reason, leaves it unrun.
#[tokio::test(start_paused = true)]
async fn a_tasks_approval_is_an_accept_or_a_decline() {
    let store = TestStore::memory();
    let mut client = Client::connect(server(task_options(&store), Some("ada"), false));
    let before = REMOVED.load(Ordering::SeqCst);
    let (id, (key, message)) = start_tidy(&mut client, &store, "old-logs").await;
    assert!(
        message.starts_with("Remove the item old-logs?"),
        "{message}"
    );
    let accepted = json!({"action": "accept", "content": {}});
    let ack = client
        .request("tasks/update", update(&id, json!({key: accepted})))
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = poll(&mut client, &store, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"removed": "old-logs"}),
        "{done}"
    );
    assert_eq!(REMOVED.load(Ordering::SeqCst), before + 1);

    let (id, (key, _)) = start_tidy(&mut client, &store, "new-logs").await;
    let declined = json!({"action": "decline", "content": {"reason": "still needed"}});
    client
        .request("tasks/update", update(&id, json!({key: declined})))
        .await;
    let done = poll(&mut client, &store, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("still needed"), "{done}");
    assert_eq!(
        REMOVED.load(Ordering::SeqCst),
        before + 1,
        "a declined call ran"
    );
    client.close().await;
}

#[tokio::test(start_paused = true)]
async fn a_task_is_its_callers_alone_on_every_instance() {
    let store = TestStore::memory();
    let mut alice = Client::connect(server(task_options(&store), Some("alice"), false));
    let mut bob = Client::connect(server(task_options(&store), Some("bob"), false));
    // Alice again, on another instance sharing the store.
    let mut alice_elsewhere = Client::connect(server(task_options(&store), Some("alice"), false));
    let id = start(&mut alice, "wait_ms", json!({"ms": 300})).await;
    for method in ["tasks/get", "tasks/cancel"] {
        let refused = bob.request(method, task_ref(&id)).await;
        assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("of yours"),
            "{refused}"
        );
    }
    let done = poll(&mut alice_elsewhere, &store, &id).await;
    assert_eq!(
        done["status"], "completed",
        "bob's cancel did nothing: {done}"
    );
    for client in [alice, bob, alice_elsewhere] {
        client.close().await;
    }
}

#[tokio::test(start_paused = true)]
async fn results_go_when_their_time_to_live_is_over() {
    let store = TestStore::memory();
    let mut options = task_options(&store);
    options.ttl = Some(Duration::from_millis(700));
    let mut client = Client::connect(server(options, None, false));
    let id = start(&mut client, "wait_ms", json!({"ms": 100})).await;
    let done = poll(&mut client, &store, &id).await;
    assert_eq!(done["ttlMs"], 700, "{done}");
    // The time to live is counted from the task's creation on the store's clock (the wall
    // clock's for instances, the paused clock's here): kept until its last millisecond, gone
    // at the next.
    let expires = store.instant_at(store.record(&id).await.created_ms + 700);
    let left = expires - tokio::time::Instant::now();
    tokio::time::advance(left - Duration::from_millis(1)).await;
    let kept = client.request("tasks/get", task_ref(&id)).await;
    assert_eq!(kept["result"]["status"], "completed", "{kept}");
    tokio::time::advance(Duration::from_millis(1)).await;
    let gone = client.request("tasks/get", task_ref(&id)).await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    // The sweep (every third of the lease) removes it from the store too.
    store
        .until(
            Duration::from_secs(1),
            "the sweep did not remove it",
            |kept| kept.is_empty(),
        )
        .await;
    client.close().await;
}

/// A runtime on the paused clock, as `#[tokio::test(start_paused = true)]` builds.
fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap()
}

/// Runs `work` against a server on a runtime of its own, then drops the runtime with
/// whatever still runs on it: as if the process had been killed.
fn in_process_that_dies<F, Fut>(work: F)
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    std::thread::spawn(move || {
        let runtime = paused_runtime();
        runtime.block_on(work());
        runtime.shutdown_background();
    })
    .join()
    .unwrap();
}

#[test]
fn tasks_outlive_the_process_and_a_stopped_ones_are_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.sqlite3");
    // The ids, and the store's time when the process died: the next one's store goes on
    // from there.
    let died = Arc::new(std::sync::Mutex::new((Vec::new(), 0)));
    {
        let (path, died) = (path.clone(), died.clone());
        in_process_that_dies(move || async move {
            let sqlite = Arc::new(SqliteStore::open(&path).unwrap());
            let store = TestStore::starting_at(sqlite, wall_ms());
            let mut client = Client::connect(server(task_options(&store), None, false));
            let done = start(&mut client, "wait_ms", json!({"ms": 100})).await;
            assert_eq!(
                poll(&mut client, &store, &done).await["status"],
                "completed"
            );
            // Two that are still running when the process dies.
            let again = start(&mut client, "wait_ms", json!({"ms": 500})).await;
            let never_twice = start(&mut client, "send_report", json!({"ms": 500})).await;
            *died.lock().unwrap() = (vec![done, again, never_twice], store.now_ms());
        });
    }
    let (ids, died_at) = died.lock().unwrap().clone();
    let [done, again, never_twice] = <[String; 3]>::try_from(ids).unwrap();
    paused_runtime().block_on(async {
        let sqlite = Arc::new(SqliteStore::open(&path).unwrap());
        let store = TestStore::starting_at(sqlite, died_at.max(wall_ms()));
        let mut client = Client::connect(server(task_options(&store), None, false));
        // The result written before the restart.
        let kept = client.request("tasks/get", task_ref(&done)).await;
        assert_eq!(kept["result"]["status"], "completed", "{kept}");
        assert_eq!(
            kept["result"]["result"]["structuredContent"],
            json!({"slept_ms": 100})
        );
        // The idempotent call is run again once its lease runs out, and finishes.
        let rerun = poll(&mut client, &store, &again).await;
        assert_eq!(rerun["status"], "completed", "{rerun}");
        assert_eq!(
            rerun["result"]["structuredContent"],
            json!({"slept_ms": 500})
        );
        // The other is failed with the reason, not run again.
        let failed = poll(&mut client, &store, &never_twice).await;
        assert_eq!(failed["status"], "failed", "{failed}");
        let message = failed["error"]["message"].as_str().unwrap();
        assert!(message.contains("stopped before it finished"), "{message}");
        assert!(
            message.contains("`send_report` is not marked idempotent"),
            "{message}"
        );
        let records = store.records().await;
        let attempts = |id: &str| records.iter().find(|r| r.id == id).unwrap().attempts;
        assert_eq!((attempts(&again), attempts(&never_twice)), (2, 2));
        assert!(records.iter().all(|r| r.status.is_terminal()));
        assert!(records.iter().any(|r| r.status == TaskStatus::Failed));
        client.close().await;
    });
}

/// An instance that stops (its input ends) lets its tasks finish within the grace period,
/// then gives up the leases of those still running: another instance sharing the store takes
/// them over at its next sweep, long before the lease would have run out.
#[tokio::test(start_paused = true)]
async fn a_stopping_instance_gives_its_running_tasks_to_another() {
    let store = TestStore::memory();
    let mut options = task_options(&store);
    // A lease no test waits out.
    options.lease = Duration::from_secs(600);
    let stopping = {
        let mut server_options = ServerOptions::named("tasks", "1.0.0");
        server_options.tasks = Some(options.clone());
        server_options.shutdown_grace = Duration::from_millis(400);
        McpServer::with_options(Executor::new(tools()), server_options)
    };
    let mut client = Client::connect(stopping);
    let finishes = start(&mut client, "wait_ms", json!({"ms": 200})).await;
    let again = start(&mut client, "wait_ms", json!({"ms": 1_500})).await;
    let never_twice = start(&mut client, "send_report", json!({"ms": 1_500})).await;
    client.close().await;

    // Within the grace: written as it ended. Still running then: given up, not ended.
    assert_eq!(store.record(&finishes).await.status, TaskStatus::Completed);
    for id in [&again, &never_twice] {
        let given_up = store.record(id).await;
        assert_eq!(given_up.status, TaskStatus::Working, "{given_up:?}");
        assert_eq!(given_up.lease_until_ms, 0, "{given_up:?}");
    }

    // Another instance takes them over at its first sweep.
    options.lease = Duration::from_millis(300);
    let mut other = Client::connect(server(options, None, false));
    let rerun = poll(&mut other, &store, &again).await;
    assert_eq!(rerun["status"], "completed", "{rerun}");
    let failed = poll(&mut other, &store, &never_twice).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    other.close().await;
}

/// Asks `tasks/get` with the SDK's client until the task ends: once, then again each time the
/// store says a task changed, for a minute of the test's clock at most; its last state.
async fn until_ended(
    client: &rmcp::service::RunningService<rmcp::RoleClient, TaskClient>,
    store: &TestStore,
    id: &str,
) -> rmcp::model::GetTaskResult {
    let mut changes = store.watch();
    let asking = async {
        loop {
            changes.borrow_and_update();
            let params = rmcp::model::GetTaskParams::new(id);
            let got = client.get_task(params).await.unwrap();
            if got.task.status().is_terminal() {
                return got;
            }
            changes.changed().await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(60), asking)
        .await
        .unwrap_or_else(|_| panic!("task {id} did not end"))
}

/// A client of the SDK's own that declares the extension.
#[derive(Clone, Default)]
struct TaskClient;

impl rmcp::ClientHandler for TaskClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        info.capabilities = rmcp::model::ClientCapabilities::builder()
            .enable_tasks()
            .build();
        info
    }
}

/// The SDK's own client (rmcp, 2026-07-28 by `server/discover`): the server advertises the
/// extension, a call comes back as a task, `tasks/get` polls it to the tool's result, and a
/// cancelled one ends cancelled.
#[tokio::test(start_paused = true)]
async fn the_sdks_client_follows_a_task() {
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, ProtocolVersion, TaskPayload,
    };
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};

    let store = TestStore::memory();
    let (served, pipe) = tokio::io::duplex(1 << 16);
    let server = server(task_options(&store), None, false);
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(served);
        let _ = serve_io(server, read, write, Default::default()).await;
    });
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = TaskClient
        .serve_with_lifecycle(pipe, lifecycle)
        .await
        .expect("discover succeeds");
    let info = client.peer_info().expect("the server's capabilities");
    assert!(info.capabilities.supports_tasks(), "{info:?}");

    let call = |ms: u64| {
        let arguments = json!({"ms": ms}).as_object().cloned().unwrap();
        CallToolRequestParams::new("wait_ms").with_arguments(arguments)
    };
    let CallToolResponse::Task(created) = client.call_tool_once(call(300)).await.unwrap() else {
        panic!("a task");
    };
    let id = created.task.task_id.clone();
    let done = until_ended(&client, &store, &id).await;
    let TaskPayload::Completed { result } = &done.task.payload else {
        panic!("completed: {done:?}");
    };
    assert_eq!(result["structuredContent"], json!({"slept_ms": 300}));

    let CallToolResponse::Task(long) = client.call_tool_once(call(30_000)).await.unwrap() else {
        panic!("a task");
    };
    let id = long.task.task_id.clone();
    client
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    let ended = until_ended(&client, &store, &id).await;
    assert!(
        matches!(ended.task.payload, TaskPayload::Cancelled),
        "{ended:?}"
    );
    let _ = client.cancel().await;
}

/// A POST to the Streamable HTTP endpoint; the JSON-RPC message of its answer (a JSON body,
/// or the last `data:` of an event stream).
async fn post(
    http: &reqwest::Client,
    url: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> (u16, Option<String>, Value) {
    let mut request = http
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .json(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let reply = request.send().await.unwrap();
    let status = reply.status().as_u16();
    let session = reply
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = reply.text().await.unwrap();
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|d| !d.is_empty())
        .unwrap_or(text.trim());
    let message = if json.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    (status, session, message)
}

async fn serve_http(store: &Arc<TestStore>, stateless: bool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let mut http = tool_mcp::HttpOptions::default();
    http.stateless = stateless;
    let server = server(task_options(store), None, false);
    tokio::spawn(async move {
        let _ = tool_mcp::serve_http(server, listener, &http, Default::default()).await;
    });
    url
}

/// `ask` (a `tasks/get`) once, then again each time the store says a task changed, until its
/// answer's status is `status`, for 10 s at most; that answer.
async fn ask_until<F, Fut>(store: &TestStore, status: &str, mut ask: F) -> Value
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let mut changes = store.watch();
    let asking = async {
        loop {
            changes.borrow_and_update();
            let got = ask().await;
            if got["result"]["status"] == status {
                return got;
            }
            changes.changed().await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(10), asking)
        .await
        .unwrap_or_else(|_| panic!("the task was never {status}"))
}

/// Over Streamable HTTP: a stateless server's 2026-07-28 call becomes a task, followed with
/// `tasks/get` and `tasks/cancel` (each naming the task in `Mcp-Name`); a session begun with
/// `initialize` gets the plain result. On real sockets, so on the real clock: the tool runs
/// until the test lets it finish, and the test asks again when the store changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_over_streamable_http_stateless_and_sessions() {
    // Plain HTTP on loopback; the client still needs its TLS set up to be built.
    let http = reqwest::Client::builder()
        .tls_backend_preconfigured(tool_http::tls_config().unwrap())
        .build()
        .unwrap();
    let store = TestStore::memory();
    let url = serve_http(&store, true).await;
    let call_headers = |tool: &'static str| {
        [
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", tool),
        ]
    };
    let body = |id: u64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    // Still running after the threshold: a task.
    let (status, _, created) = post(
        &http,
        &url,
        &body(1, "tools/call", call("hold", json!({}), true)),
        &call_headers("hold"),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let task_headers = |method: &'static str, id: &str| {
        vec![
            ("MCP-Protocol-Version", MODERN.to_owned()),
            ("Mcp-Method", method.to_owned()),
            ("Mcp-Name", id.to_owned()),
        ]
    };
    let send_task = |method: &'static str, id: String, n: u64| {
        let http = http.clone();
        let url = url.clone();
        async move {
            let headers = task_headers(method, &id);
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            post(&http, &url, &body(n, method, task_ref(&id)), &headers)
                .await
                .2
        }
    };
    let working = send_task("tasks/get", id.clone(), 2).await;
    assert_eq!(working["result"]["status"], "working", "{working}");
    RELEASE.add_permits(1);
    let mut n = 10;
    let done = ask_until(&store, "completed", || {
        n += 1;
        send_task("tasks/get", id.clone(), n)
    })
    .await;
    assert_eq!(
        done["result"]["result"]["structuredContent"],
        json!({"held": true}),
        "{done}"
    );

    let (_, _, long) = post(
        &http,
        &url,
        &body(3, "tools/call", call("hold", json!({}), true)),
        &call_headers("hold"),
    )
    .await;
    let long = long["result"]["taskId"].as_str().unwrap().to_owned();
    let ack = send_task("tasks/cancel", long.clone(), 4).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let mut n = 300;
    let ended = ask_until(&store, "cancelled", || {
        n += 1;
        send_task("tasks/get", long.clone(), n)
    })
    .await;
    assert!(ended["result"].get("result").is_none(), "{ended}");

    // Sessions: `initialize`, then a tool whose calls become tasks at once for a client that
    // declares the extension in a 2026-07-28 request: a plain result.
    let store = TestStore::memory();
    let url = serve_http(&store, false).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "clientInfo": {"name": "t", "version": "1"}}});
    let (_, session, _) = post(&http, &url, &init, &[]).await;
    let session = session.expect("a session id");
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    post(
        &http,
        &url,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        &headers,
    )
    .await;
    let (_, _, answer) = post(
        &http,
        &url,
        &body(
            5,
            "tools/call",
            json!({"name": "export_now", "arguments": {}}),
        ),
        &headers,
    )
    .await;
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"exported": true}),
        "{answer}"
    );
    assert!(answer["result"].get("taskId").is_none(), "{answer}");
    assert!(
        store.records().await.is_empty(),
        "a session's call became a task"
    );
}
