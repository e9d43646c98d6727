//! The transport against a raw client: every request answered once, calls that wait for room,
//! cancellation, the end of input, backpressure. (The differential tests against the SDK's own
//! transport, over generated lines, are in `tests/stdio_jsonrpc.rs`.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use proptest::prelude::*;
use rmcp::ServiceExt as _;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream, ReadHalf, WriteHalf,
};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::frame::MAX_LINE;
use super::*;
use crate::ServerOptions;
use tool_core::exec::Executor;
use tool_core::{Registry, ToolError, ToolOutput, registry::DynamicTool};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn object() -> Value {
    json!({"type": "object"})
}

fn add_numbers() -> DynamicTool {
    DynamicTool::new("add_numbers", "Adds a and b.", object()).handler(|input, _| async move {
        let sum = input["a"].as_i64().unwrap_or(0) + input["b"].as_i64().unwrap_or(0);
        Ok(ToolOutput::text(sum.to_string()))
    })
}

fn wait_forever() -> DynamicTool {
    wait_forever_telling(&Began::default())
}

fn wait_a_little() -> DynamicTool {
    wait_a_little_telling(&Began::default())
}

/// Told by a tool when a call of it runs.
type Began = Arc<tokio::sync::Notify>;

/// Waits until `began` is told (a call runs).
async fn running(began: &Began) {
    tokio::time::timeout(Duration::from_secs(5), began.notified())
        .await
        .expect("the call runs");
}

/// `wait_forever`, telling `began` when a call of it runs.
fn wait_forever_telling(began: &Began) -> DynamicTool {
    let began = began.clone();
    DynamicTool::new("wait_forever", "Waits until cancelled.", object()).handler(move |_, ctx| {
        began.notify_one();
        async move {
            ctx.cancellation().cancelled().await;
            Err(ToolError::failed("cancelled"))
        }
    })
}

/// `wait_a_little`, telling `began` when a call of it runs.
fn wait_a_little_telling(began: &Began) -> DynamicTool {
    let began = began.clone();
    DynamicTool::new("wait_a_little", "Waits 50 ms.", object()).handler(move |_, _| {
        began.notify_one();
        async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(ToolOutput::text("waited"))
        }
    })
}

fn serving(tools: impl IntoIterator<Item = DynamicTool>) -> McpServer {
    serving_with(tools, ServerOptions::default())
}

fn serving_with(tools: impl IntoIterator<Item = DynamicTool>, options: ServerOptions) -> McpServer {
    let mut registry = Registry::empty();
    registry.register_all(tools).unwrap();
    McpServer::with_options(Executor::new(registry), options)
}

fn call(id: i64, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

fn add(id: i64, a: i64, b: i64) -> String {
    call(id, "add_numbers", json!({"a": a, "b": b}))
}

/// A raw client: the test's end of a connection served by [`Lines`].
struct Raw {
    write: Option<WriteHalf<DuplexStream>>,
    read: BufReader<ReadHalf<DuplexStream>>,
    connection: McpServer,
    shutdown: CancellationToken,
    served: JoinHandle<Result<(), String>>,
}

impl Raw {
    fn serving(server: McpServer) -> Self {
        Self::tuned(server, |_| {})
    }

    /// Serves `server`, after `tune` has set what tests may set on the transport.
    fn tuned(server: McpServer, tune: impl FnOnce(&mut Lines<ReadHalf<DuplexStream>>)) -> Self {
        let (client, served) = tokio::io::duplex(1 << 16);
        let connection = server.connection();
        let shutdown = CancellationToken::new();
        let (read, write) = tokio::io::split(served);
        let mut transport = Lines::new(connection.clone(), read, write, shutdown.clone());
        tune(&mut transport);
        let handle = connection.clone();
        let served = tokio::spawn(async move {
            let running = handle.serve(transport).await.map_err(|e| e.to_string())?;
            running.waiting().await.map(drop).map_err(|e| e.to_string())
        });
        let (read, write) = tokio::io::split(client);
        Self {
            write: Some(write),
            read: BufReader::new(read),
            connection,
            shutdown,
            served,
        }
    }

    async fn send(&mut self, bytes: &[u8]) {
        let write = self.write.as_mut().expect("input is open");
        write.write_all(bytes).await.unwrap();
    }

    async fn send_line(&mut self, line: &str) {
        self.send(format!("{line}\n").as_bytes()).await;
    }

    /// Ends the input, as a client closing the server's stdin.
    async fn close(&mut self) {
        let mut write = self.write.take().expect("input is open");
        write.shutdown().await.unwrap();
    }

    async fn line(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(5), self.read.read_line(&mut line))
            .await
            .expect("an answer in time")
            .unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// Every line until the server closes its end.
    async fn rest(&mut self) -> Vec<Value> {
        let mut answers = Vec::new();
        loop {
            let mut line = String::new();
            let n = tokio::time::timeout(Duration::from_secs(20), self.read.read_line(&mut line))
                .await
                .expect("the server ends")
                .unwrap();
            if n == 0 {
                return answers;
            }
            answers.push(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}")));
        }
    }

    /// Initializes, and waits until calls are answered by the transport.
    async fn initialized(&mut self) {
        self.send(format!("{INITIALIZE}\n{INITIALIZED}\n").as_bytes())
            .await;
        assert_eq!(self.line().await["id"], 0);
        started(&self.connection);
    }

    /// How the serving ended.
    async fn ended(self) -> Result<(), String> {
        tokio::time::timeout(Duration::from_secs(10), self.served)
            .await
            .expect("the server ends")
            .unwrap()
    }
}

/// Asserts that the connection's session has begun: the server keeps its client before it
/// answers the first request, so the answer the test has read is the signal.
fn started(connection: &McpServer) {
    assert!(
        connection.session_peer().is_some(),
        "the session began before its first answer"
    );
}

fn text(answer: &Value) -> &Value {
    &answer["result"]["content"][0]["text"]
}

/// A listing of a session begun with `initialize` is this transport's to write, whether or not
/// it names a protocol version; before that, it is the SDK's.
#[tokio::test]
async fn a_listing_is_written_here_once_the_session_has_started() {
    let mut raw = Raw::serving(serving([add_numbers(), wait_forever()]));
    let (_client, served) = tokio::io::duplex(64);
    let (read, write) = tokio::io::split(served);
    let mut lines = Lines::new(
        raw.connection.clone(),
        read,
        write,
        CancellationToken::new(),
    );
    let list = br#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#;
    let versioned = br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}"#;
    lines.line(list, false);
    assert_eq!(lines.to_sdk.len(), 1, "before the session, the SDK's");
    raw.initialized().await;
    lines.line(versioned, false);
    assert_eq!(
        lines.to_sdk.len(),
        1,
        "a versioned request, this transport's too"
    );
    raw.send_line(std::str::from_utf8(list).unwrap()).await;
    let answer = raw.line().await;
    let names: Vec<&str> = answer["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        (&answer["id"], names),
        (&json!(6), vec!["add_numbers", "wait_forever"])
    );
}

// Paused: had the cancellation been missed, the grace period at the end of input (5 s,
// virtual) would end the call with an answer, and the test fail.
#[tokio::test(start_paused = true)]
async fn a_cancelled_call_stops_and_is_not_answered() {
    let began = Began::default();
    let mut raw = Raw::serving(serving([add_numbers(), wait_forever_telling(&began)]));
    raw.initialized().await;
    raw.send_line(&call(3, "wait_forever", json!({}))).await;
    running(&began).await;
    raw.send_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
    )
    .await;
    raw.send_line(&add(4, 1, 2)).await;
    // The call returns when cancelled; every answer the server ever writes is read here.
    raw.close().await;
    let answers = raw.rest().await;
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [&json!(4)], "{answers:?}");
    raw.ended().await.unwrap();
}

/// A call that does not finish in its first poll goes on in a task: it is answered when it
/// finishes, after calls that came later and finished at once.
#[tokio::test(start_paused = true)]
async fn a_call_still_running_is_answered_when_it_finishes() {
    let mut raw = Raw::serving(serving([add_numbers(), wait_a_little()]));
    raw.initialized().await;
    raw.send(
        format!(
            "{}\n{}\n",
            call(1, "wait_a_little", json!({})),
            add(2, 1, 2)
        )
        .as_bytes(),
    )
    .await;
    let (first, second) = (raw.line().await, raw.line().await);
    assert_eq!((&first["id"], text(&first)), (&json!(2), &json!("3")));
    assert_eq!(
        (&second["id"], text(&second)),
        (&json!(1), &json!("waited"))
    );
}

/// The end of input is not the end of the calls in flight: each is answered, then the server
/// ends without an error.
#[tokio::test(start_paused = true)]
async fn calls_in_flight_at_the_end_of_input_are_answered() {
    let mut raw = Raw::serving(serving([add_numbers(), wait_a_little()]));
    raw.initialized().await;
    let mut input = String::new();
    for id in 1..=20 {
        input.push_str(&call(id, "wait_a_little", json!({})));
        input.push('\n');
    }
    // The last line needs no newline.
    input.push_str(&add(21, 20, 1));
    raw.send(input.as_bytes()).await;
    raw.close().await;
    let mut answers = raw.rest().await;
    answers.sort_by_key(|a| a["id"].as_i64());
    let ids: Vec<i64> = answers.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, (1..=21).collect::<Vec<_>>());
    assert!(answers[..20].iter().all(|a| text(a) == "waited"));
    assert_eq!(text(&answers[20]), "21");
    raw.ended().await.unwrap();
}

/// A call that outlives the grace period is cancelled, and answers that it was. Paused: the
/// grace and the 50 ms call are virtual.
#[tokio::test(start_paused = true)]
async fn the_grace_period_ends_the_calls_that_do_not_finish() {
    let options = ServerOptions {
        shutdown_grace: Duration::from_millis(100),
        ..ServerOptions::default()
    };
    let mut raw = Raw::serving(serving_with([wait_forever(), wait_a_little()], options));
    raw.initialized().await;
    raw.send_line(&call(1, "wait_forever", json!({}))).await;
    raw.send_line(&call(2, "wait_a_little", json!({}))).await;
    raw.close().await;
    let mut answers = raw.rest().await;
    answers.sort_by_key(|a| a["id"].as_i64());
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["result"]["isError"], true, "{}", answers[0]);
    assert_eq!(
        answers[0]["result"]["_meta"]["tool-core/error"],
        "cancelled"
    );
    assert_eq!(text(&answers[1]), "waited");
    raw.ended().await.unwrap();
}

/// A shutdown ends input as the end of stdin does: nothing more is read, the calls in flight
/// are answered, and the server ends without an error.
#[tokio::test(start_paused = true)]
async fn a_shutdown_ends_input_and_answers_the_calls_in_flight() {
    let began = Began::default();
    let mut raw = Raw::serving(serving([add_numbers(), wait_a_little_telling(&began)]));
    raw.initialized().await;
    raw.send_line(&call(1, "wait_a_little", json!({}))).await;
    running(&began).await;
    raw.shutdown.cancel();
    // Written after the shutdown (before the server saw it, but the reader looks at the
    // shutdown first): never read.
    raw.send_line(&add(2, 1, 1)).await;
    let answers = raw.rest().await;
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(
        (&answers[0]["id"], text(&answers[0])),
        (&json!(1), &json!("waited"))
    );
    raw.ended().await.unwrap();
}

/// Once a call is answered its token is cancelled: work it left in the background stops,
/// whether the call finished in its first poll or in a task.
#[tokio::test(start_paused = true)]
async fn an_answered_call_cancels_its_token() {
    let stopped = Arc::new(tokio::sync::Semaphore::new(0));
    let tool = |name: &'static str, wait: bool| {
        let stopped = stopped.clone();
        DynamicTool::new(name, "Leaves a watcher behind.", object()).handler(move |_, ctx| {
            let stopped = stopped.clone();
            async move {
                let token = ctx.cancellation().clone();
                tokio::spawn(async move {
                    token.cancelled().await;
                    stopped.add_permits(1);
                });
                if wait {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Ok(ToolOutput::text("left a watcher"))
            }
        })
    };
    let mut raw = Raw::serving(serving([
        tool("watch_now", false),
        tool("watch_later", true),
    ]));
    raw.initialized().await;
    raw.send_line(&call(1, "watch_now", json!({}))).await;
    raw.send_line(&call(2, "watch_later", json!({}))).await;
    for _ in 0..2 {
        assert_eq!(text(&raw.line().await), "left a watcher");
    }
    let both = tokio::time::timeout(Duration::from_secs(5), stopped.acquire_many(2)).await;
    assert!(both.is_ok(), "the watchers were not stopped");
}

/// The connection gone altogether: a call still running is stopped once the grace period is
/// over (its answer has nowhere to go).
#[tokio::test(start_paused = true)]
async fn a_call_still_running_stops_when_the_connection_ends() {
    /// Dropped with the handler's future: when the executor stops the cancelled call.
    struct Stopped(Arc<tokio::sync::Notify>);
    impl Drop for Stopped {
        fn drop(&mut self) {
            self.0.notify_one();
        }
    }
    let stopped = Arc::new(tokio::sync::Notify::new());
    let seen = stopped.clone();
    let began = Began::default();
    let told = began.clone();
    let wait = DynamicTool::new("wait_forever", "Waits.", object()).handler(move |_, _| {
        told.notify_one();
        let stopped = Stopped(seen.clone());
        async move {
            let _stopped = stopped;
            std::future::pending::<()>().await;
            Ok(ToolOutput::text("never"))
        }
    });
    let options = ServerOptions {
        shutdown_grace: Duration::from_millis(50),
        ..ServerOptions::default()
    };
    let mut raw = Raw::serving(serving_with([wait], options));
    raw.initialized().await;
    raw.send_line(&call(3, "wait_forever", json!({}))).await;
    running(&began).await;
    drop(raw);
    tokio::time::timeout(Duration::from_secs(5), stopped.notified())
        .await
        .expect("the call is stopped when the connection ends");
}

/// Beyond the most calls that may run at once, the next wait their turn, in order; one that is
/// cancelled while it waits never runs and is never answered.
#[tokio::test(start_paused = true)]
async fn calls_beyond_the_most_that_run_wait_their_turn() {
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let tool = {
        let (running, most) = (running.clone(), most.clone());
        DynamicTool::new("take_turns", "Waits 30 ms.", object()).handler(move |input, _| {
            let (running, most) = (running.clone(), most.clone());
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(30)).await;
                running.fetch_sub(1, Ordering::SeqCst);
                Ok(ToolOutput::text(input["n"].to_string()))
            }
        })
    };
    let mut raw = Raw::tuned(serving([tool]), |lines| lines.calls.max_running = 2);
    raw.initialized().await;
    let mut input = String::new();
    for n in 1..=6 {
        input.push_str(&call(n, "take_turns", json!({"n": n})));
        input.push('\n');
    }
    input.push_str(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#,
    );
    input.push('\n');
    raw.send(input.as_bytes()).await;
    let mut answers = Vec::new();
    for _ in 0..5 {
        answers.push(raw.line().await);
    }
    // (Input still open: at its end, every request that waits starts at once.)
    raw.close().await;
    answers.extend(raw.rest().await);
    let ids: Vec<i64> = answers.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [1, 2, 3, 4, 6], "in turn, and 5 never");
    assert!(answers.iter().all(|a| text(a) == &a["id"].to_string()));
    assert_eq!(most.load(Ordering::SeqCst), 2);
}

/// A client that writes without reading stops being read once the answers waiting for it pass
/// the high-water mark; once it reads, every call is answered exactly once.
// One thread on the paused clock: time moves only when no task can run, so a wait returns
// only once the writer is stuck (or done) and the server idle.
#[tokio::test(start_paused = true)]
async fn a_client_that_does_not_read_is_not_read_either() {
    let mut raw = Raw::serving(serving([add_numbers()]));
    raw.initialized().await;
    const CALLS: usize = 4_000;
    let pad = "x".repeat(4096);
    let written = Arc::new(AtomicUsize::new(0));
    let mut write = raw.write.take().unwrap();
    let writer = tokio::spawn({
        let written = written.clone();
        let pad = pad.clone();
        async move {
            for i in 0..CALLS {
                let line = format!(
                    "{}\n",
                    json!({"jsonrpc": "2.0", "id": format!("{i}-{pad}"), "method": "tools/call",
                           "params": {"name": "add_numbers", "arguments": {"a": i, "b": 1}}})
                );
                write.write_all(line.as_bytes()).await.unwrap();
                written.fetch_add(line.len(), Ordering::SeqCst);
            }
            write.shutdown().await.unwrap();
        }
    });
    // Until the client's writes stall: the server has stopped reading. On the paused clock
    // this sleep ends only when every task waits, the writer on a full pipe.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let last = written.load(Ordering::SeqCst);
    assert!(!writer.is_finished(), "the writer was never held back");
    let all = CALLS * (pad.len() + 120);
    assert!(
        last < 8 << 20,
        "the server read {last} of {all} bytes while none of its answers were read"
    );
    let answers = raw.rest().await;
    writer.await.unwrap();
    let mut seen = std::collections::HashSet::new();
    for answer in &answers {
        let id = answer["id"].as_str().unwrap();
        let i: i64 = id.split('-').next().unwrap().parse().unwrap();
        assert_eq!(text(answer), &json!((i + 1).to_string()));
        assert!(seen.insert(i), "answered twice: {i}");
    }
    assert_eq!(seen.len(), CALLS);
}

#[tokio::test]
async fn a_line_too_long_is_refused_and_the_next_one_read() {
    let mut raw = Raw::serving(serving([add_numbers()]));
    raw.initialized().await;
    // A call at the end of an over-long line is part of that line: refused with it.
    let mut long = vec![b' '; MAX_LINE + 10];
    long.extend_from_slice(add(99, 1, 1).as_bytes());
    long.push(b'\n');
    raw.send(&long).await;
    raw.send_line(&add(5, 2, 2)).await;
    let refused = raw.line().await;
    assert_eq!(
        (&refused["id"], &refused["error"]["code"]),
        (&Value::Null, &json!(-32600))
    );
    let answer = raw.line().await;
    assert_eq!(answer["id"], 5, "{answer}");
}

/// Notifications and responses before `initialize` are dropped: the SDK's handshake would end
/// the connection on them.
#[tokio::test]
async fn a_notification_before_initialize_does_not_end_the_server() {
    let mut raw = Raw::serving(serving([add_numbers()]));
    raw.send_line(INITIALIZED).await;
    raw.send_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    )
    .await;
    raw.send_line(r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#)
        .await;
    raw.initialized().await;
    raw.send_line(&add(1, 2, 3)).await;
    assert_eq!(text(&raw.line().await), "5");
}

/// A second request with the id of one still in progress would get an answer the client
/// cannot tell from the first's: it is refused with `"id": null`, and the first is answered.
#[tokio::test]
async fn a_request_reusing_an_id_in_progress_is_refused() {
    let mut raw = Raw::serving(serving([add_numbers(), wait_a_little()]));
    raw.initialized().await;
    raw.send_line(&call(1, "wait_a_little", json!({}))).await;
    raw.send_line(&add(1, 1, 1)).await;
    let refused = raw.line().await;
    assert_eq!(
        (&refused["id"], &refused["error"]["code"]),
        (&Value::Null, &json!(-32600))
    );
    let answer = raw.line().await;
    assert_eq!(
        (&answer["id"], text(&answer)),
        (&json!(1), &json!("waited"))
    );
    // Once answered, the id is free again.
    raw.send_line(&add(1, 1, 1)).await;
    assert_eq!(text(&raw.line().await), "2");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// However the bytes are cut into reads (a call may arrive before the session has
    /// started, and go the SDK's way), every call is answered once, with its own sum.
    #[test]
    fn answers_do_not_depend_on_how_the_input_is_cut(
        cuts in proptest::collection::vec(0usize..2000, 0..12),
        calls in 1usize..20,
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let mut raw = Raw::serving(serving([add_numbers()]));
            let mut input = format!("{INITIALIZE}\n{INITIALIZED}\n");
            for i in 1..=calls {
                let i = i as i64;
                input.push_str(&add(i, i, 10 * i));
                input.push('\n');
            }
            let input = input.into_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % input.len()).collect();
            cuts.sort_unstable();
            let mut from = 0;
            for cut in cuts.into_iter().chain([input.len()]) {
                raw.send(&input[from..cut]).await;
                tokio::task::yield_now().await;
                from = cut;
            }
            raw.close().await;
            let mut seen = std::collections::BTreeMap::new();
            for answer in raw.rest().await {
                let id = answer["id"].as_i64().unwrap();
                if id > 0 {
                    assert_eq!(text(&answer), &json!((11 * id).to_string()), "{answer}");
                }
                assert!(seen.insert(id, ()).is_none(), "answered twice: {id}");
            }
            assert_eq!(seen.len(), calls + 1);
        });
    }
}

/// The `_meta` of a 2026-07-28 request, with `extra` members.
fn modern_meta(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    });
    meta.as_object_mut()
        .unwrap()
        .extend(extra.as_object().cloned().unwrap_or_default());
    meta
}

fn modern_call(id: i64, tool: &str, arguments: Value, extra_meta: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments, "_meta": modern_meta(extra_meta)}})
    .to_string()
}

fn modern_list(id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list",
           "params": {"_meta": modern_meta(json!({}))}})
    .to_string()
}

/// A tool that logs at debug and at warning, and reports progress, before it answers.
fn chatty() -> DynamicTool {
    DynamicTool::new("log_things", "Logs.", object()).handler(|_, ctx| async move {
        ctx.log(tool_core::context::LogLevel::Debug, "a detail");
        ctx.log(tool_core::context::LogLevel::Warning, "a warning");
        ctx.progress(1, Some(2), "half");
        tokio::time::sleep(Duration::from_millis(300)).await;
        ctx.progress(2, Some(2), "done");
        Ok(ToolOutput::text("logged"))
    })
}

/// A session of protocol 2026-07-28 begins with its first request, which the SDK answers; the
/// transport answers the rest, in the shape the SDK gives that protocol.
#[tokio::test]
async fn a_2026_session_is_answered_here_after_its_first_request() {
    let mut raw = Raw::serving(serving([add_numbers()]));
    raw.send_line(&modern_list(1)).await;
    let first = raw.line().await;
    assert_eq!(first["result"]["resultType"], "complete", "{first}");
    started(&raw.connection);

    let (_client, served) = tokio::io::duplex(64);
    let (read, write) = tokio::io::split(served);
    let mut lines = Lines::new(
        raw.connection.clone(),
        read,
        write,
        CancellationToken::new(),
    );
    lines.line(
        modern_call(2, "add_numbers", json!({}), json!({})).as_bytes(),
        false,
    );
    lines.line(modern_list(3).as_bytes(), false);
    assert!(lines.to_sdk.is_empty(), "answered by the transport");

    raw.send_line(&modern_call(
        2,
        "add_numbers",
        json!({"a": 2, "b": 3}),
        json!({}),
    ))
    .await;
    let called = raw.line().await;
    assert_eq!(called["id"], 2);
    assert_eq!(called["result"]["resultType"], "complete", "{called}");
    assert_eq!(text(&called), "5");
    let info = &called["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(info["name"], "tool-mcp", "{called}");
    raw.send_line(&modern_list(3)).await;
    let listed = raw.line().await;
    assert_eq!(listed["result"]["resultType"], "complete");
    assert_eq!(listed["result"]["cacheScope"], "public", "{listed}");
    assert_eq!(listed["result"]["ttlMs"], 60_000);
    assert_eq!(listed["result"]["_meta"], first["result"]["_meta"]);
    assert_eq!(listed["result"]["tools"], first["result"]["tools"]);
}

/// What the SDK answers a 2026-07-28 request it cannot serve, the transport answers too, once
/// the session has begun: a version it does not speak, a request that does not say who asks.
#[tokio::test]
async fn a_2026_request_is_checked_as_the_sdk_checks_it() {
    let mut raw = Raw::serving(serving([add_numbers()]));
    raw.send_line(&modern_list(1)).await;
    raw.line().await;
    started(&raw.connection);
    let future = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "add_numbers", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2027-01-01",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    raw.send_line(&future.to_string()).await;
    let refused = raw.line().await;
    assert_eq!(refused["id"], 2);
    assert_eq!(refused["error"]["code"], -32022, "{refused}");
    let supported = refused["error"]["data"]["supported"].as_array().unwrap();
    assert!(supported.contains(&json!("2026-07-28")), "{refused}");
    assert!(supported.contains(&json!("2025-06-18")), "{refused}");

    let anonymous = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "add_numbers", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
    raw.send_line(&anonymous.to_string()).await;
    let refused = raw.line().await;
    assert_eq!(refused["id"], 3);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("clientCapabilities"), "{message}");
    // A session without `initialize` needs it on every request.
    raw.send_line(&call(4, "add_numbers", json!({}))).await;
    assert_eq!(raw.line().await["error"]["code"], -32602);
}

fn logged(answers: &[Value]) -> Vec<&str> {
    answers
        .iter()
        .filter(|a| a["method"] == "notifications/message")
        .filter_map(|a| a["params"]["level"].as_str())
        .collect()
}

/// A 2026-07-28 call gets log messages only when its `_meta` names a level, and only from that
/// level up; a session's calls keep the level `logging/setLevel` set (debug until then).
#[tokio::test(start_paused = true)]
async fn logs_go_only_to_requests_that_ask_for_them() {
    for (request, expected) in [
        (modern_call(1, "log_things", json!({}), json!({})), vec![]),
        (
            modern_call(
                1,
                "log_things",
                json!({}),
                json!({"io.modelcontextprotocol/logLevel": "warning"}),
            ),
            vec!["warning"],
        ),
        (
            modern_call(
                1,
                "log_things",
                json!({}),
                json!({"io.modelcontextprotocol/logLevel": "debug"}),
            ),
            vec!["debug", "warning"],
        ),
    ] {
        let mut raw = Raw::serving(serving([chatty()]));
        // The first request goes the SDK's way, the second this transport's: both must hold.
        let second = request.replace(r#""id":1"#, r#""id":2"#);
        raw.send_line(&request).await;
        raw.send_line(&second).await;
        raw.close().await;
        let answers = raw.rest().await;
        let results = answers.iter().filter(|a| a.get("result").is_some()).count();
        assert_eq!(results, 2, "{answers:?}");
        let mut twice = expected.clone();
        twice.extend(expected.iter());
        let mut got = logged(&answers);
        got.sort_unstable();
        twice.sort_unstable();
        assert_eq!(got, twice, "{request}: {answers:?}");
    }

    let mut raw = Raw::serving(serving([chatty()]));
    raw.initialized().await;
    raw.send_line(&call(1, "log_things", json!({}))).await;
    let set_level =
        r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}"#;
    let mut answers = Vec::new();
    loop {
        let line = raw.line().await;
        let done = line["id"] == 1;
        answers.push(line);
        if done {
            break;
        }
    }
    assert_eq!(logged(&answers), ["debug", "warning"], "{answers:?}");
    raw.send_line(set_level).await;
    assert_eq!(raw.line().await["id"], 2);
    raw.send_line(&call(3, "log_things", json!({}))).await;
    raw.close().await;
    let answers = raw.rest().await;
    assert_eq!(logged(&answers), ["warning"], "{answers:?}");
}

/// A call that reports progress is answered when input ends while it runs, in either era, and
/// its progress goes out before its answer.
#[tokio::test(start_paused = true)]
async fn a_call_that_reports_progress_is_answered_at_the_end_of_input() {
    let session = call(1, "log_things", json!({})).replace(
        r#""arguments":{}"#,
        r#""arguments":{},"_meta":{"progressToken":7}"#,
    );
    let modern = modern_call(1, "log_things", json!({}), json!({"progressToken": 7}));
    for (handshake, request) in [(true, session), (false, modern)] {
        let mut raw = Raw::serving(serving([chatty()]));
        if handshake {
            raw.initialized().await;
        }
        raw.send_line(&request).await;
        raw.close().await;
        let answers = raw.rest().await;
        let progress: Vec<&Value> = answers
            .iter()
            .filter(|a| a["method"] == "notifications/progress")
            .map(|a| &a["params"]["progress"])
            .collect();
        assert_eq!(progress, [&json!(1.0), &json!(2.0)], "{answers:?}");
        let last = answers.last().unwrap();
        assert_eq!(
            (&last["id"], text(last)),
            (&json!(1), &json!("logged")),
            "{answers:?}"
        );
        assert!(raw.ended().await.is_ok());
    }
}
