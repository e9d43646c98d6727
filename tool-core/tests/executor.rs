//! The executor's pipeline end to end, with real `#[tool]`s: panic isolation, time limits,
//! cancellation, retries, ordered parallel batches, caps, sanitised errors, audit, events,
//! tracing spans and tools calling tools.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tool_core::context::{AuditRecord, AuditSink, BroadcastEvents, EventSink, ToolEvent};
use tool_core::exec::{ExecPolicy, Executor, ToolCall};
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Tools that misbehave on purpose");

/// Returns its input number plus one.
#[tool(domain = demo, label = "Adding one", hint = "Adds one")]
fn add_one(n: i64) -> i64 {
    n + 1
}

/// Panics.
#[tool(domain = demo, label = "Panicking", hint = "Panics", check = false)]
fn do_panic() -> u8 {
    panic!("the tool fell over")
}

/// Sleeps for `ms` milliseconds, noticing cancellation.
#[tool(domain = demo, label = "Sleeping", hint = "Sleeps", timeout = 100ms)]
async fn sleep_for(#[ctx] token: CancellationToken, ms: u64) -> String {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(ms)) => "woke".into(),
        () = token.cancelled() => "cancelled".into(),
    }
}

/// Says it runs (progress 0), then waits until its call is cancelled.
#[tool(domain = demo, label = "Waiting to be stopped", hint = "Waits for cancellation")]
async fn wait_cancelled(ctx: &ToolContext) -> &'static str {
    ctx.progress(0, None, "waiting");
    ctx.cancellation().cancelled().await;
    "cancelled"
}

static DROPPED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Waits forever; says when its future is dropped.
#[tool(domain = demo, label = "Waiting", hint = "Waits", timeout = 1h)]
async fn wait_forever() -> u8 {
    struct Flag;
    impl Drop for Flag {
        fn drop(&mut self) {
            DROPPED.notify_one();
        }
    }
    let _flag = Flag;
    std::future::pending::<()>().await;
    0
}

static FLAKY_CALLS: AtomicU32 = AtomicU32::new(0);

/// Fails twice as unavailable, then succeeds.
#[tool(domain = demo, label = "Trying", hint = "Flaky", retries = 3)]
fn get_flaky() -> Result<u32, ToolError> {
    match FLAKY_CALLS.fetch_add(1, Ordering::SeqCst) {
        0 | 1 => Err(ToolError::unavailable("the backend is busy")),
        n => Ok(n + 1),
    }
}

static DELETE_CALLS: AtomicU32 = AtomicU32::new(0);

/// Deletes something; always unavailable. Destructive: never retried.
#[tool(domain = demo, label = "Deleting", hint = "Deletes", destructive, retries = 3)]
fn delete_thing(id: String) -> Result<String, ToolError> {
    DELETE_CALLS.fetch_add(1, Ordering::SeqCst);
    Err(ToolError::unavailable(format!("could not delete {id}")))
}

/// Deletes a record; always succeeds. Not read-only, so audited.
#[tool(domain = demo, label = "Deleting a record", hint = "Deletes a record", destructive)]
fn delete_record(id: String) -> String {
    format!("deleted {id}")
}

static MEETING: std::sync::LazyLock<tokio::sync::Barrier> =
    std::sync::LazyLock::new(|| tokio::sync::Barrier::new(2));

/// Waits until a second call of it arrives: both finish only if they run at the same time.
#[tool(domain = demo, label = "Meeting", hint = "Waits for a partner", timeout = 5s)]
async fn meet_partner() -> &'static str {
    MEETING.wait().await;
    "met"
}

/// Returns a long text.
#[tool(domain = demo, label = "Talking", hint = "Talks")]
fn get_long_text() -> String {
    "word ".repeat(10_000)
}

/// Fails with an error that leaks internals.
#[tool(domain = demo, label = "Leaking", hint = "Leaks")]
fn get_leaky() -> Result<u8, ToolError> {
    Err(ToolError::unavailable(
        "connect to postgres://app:hunter2@db.internal:5432/prod failed: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2ln",
    )
    .with_path("query"))
}

/// Reports progress twice, then returns.
#[tool(domain = demo, label = "Working through", hint = "Progress")]
async fn do_steps(ctx: &ToolContext) -> &'static str {
    ctx.progress(1, Some(2), "first half");
    ctx.progress(2, Some(2), "second half");
    "done"
}

/// Adds one twice by calling `add_one` as a tool.
#[tool(domain = demo, label = "Adding two", hint = "Adds two", idempotent)]
async fn add_two(ctx: &ToolContext, n: i64) -> Result<i64, ToolError> {
    let once = ctx.call_tool("add_one", json!({"n": n})).await?;
    let n1 = once.data().and_then(|v| v.as_i64()).unwrap_or_default();
    let twice = ctx.call_tool("add_one", json!({"n": n1})).await?;
    Ok(twice.data().and_then(|v| v.as_i64()).unwrap_or_default())
}

/// Calls itself until the depth limit stops it.
#[tool(domain = demo, label = "Recursing", hint = "Recurses")]
async fn call_self(ctx: &ToolContext) -> Result<usize, ToolError> {
    ctx.call_tool("call_self", json!({}))
        .await
        .map(|_| ctx.depth())
}

static COUNTED: AtomicU32 = AtomicU32::new(0);

/// Counts its runs.
#[tool(domain = demo, label = "Counting", hint = "Counts")]
fn count_runs() -> u32 {
    COUNTED.fetch_add(1, Ordering::SeqCst) + 1
}

/// Returns the call's id and whether it has a deadline.
#[tool(domain = demo, label = "Reading the call", hint = "Call id")]
fn get_call_info(ctx: &ToolContext) -> String {
    format!("{} {}", ctx.call_id(), ctx.deadline().is_some())
}

/// Cancels its own call's token.
#[tool(domain = demo, label = "Stopping", hint = "Cancels itself")]
fn stop_self(#[ctx] token: CancellationToken) -> bool {
    token.cancel();
    true
}

fn executor() -> Executor {
    Executor::new(Registry::linked().expect("tools link"))
}

#[tokio::test]
async fn a_panicking_tool_is_an_internal_error_and_the_rest_keeps_working() {
    let ex = executor();
    let err = ex
        .call("do_panic", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Internal);
    assert!(err.message().contains("panicked"), "{err}");
    let out = ex
        .call("add_one", json!({"n": 1}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.echo(), "2");
}

// On the paused clock: the 100 ms limit and the 5 s sleep are virtual, and the limit wins.
#[tokio::test(start_paused = true)]
async fn the_tools_time_limit_stops_it() {
    let started = tokio::time::Instant::now();
    let real = Instant::now();
    let err = executor()
        .call("sleep_for", json!({"ms": 5000}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(100) && took < Duration::from_secs(1),
        "{took:?}"
    );
    assert!(real.elapsed() < Duration::from_secs(2));
}

/// Cancels `token` once the call's tool says it runs (its first progress event).
/// A context with a token to cancel it by and the events that say when its call runs.
fn cancellable() -> (
    ToolContext,
    CancellationToken,
    tokio::sync::broadcast::Receiver<ToolEvent>,
) {
    let token = CancellationToken::new();
    let events = Arc::new(BroadcastEvents::new(16));
    let running = events.subscribe();
    let ctx = ToolContext::builder()
        .cancellation(token.clone())
        .events(events)
        .build();
    (ctx, token, running)
}

async fn cancel_once_running(
    mut events: tokio::sync::broadcast::Receiver<ToolEvent>,
    token: CancellationToken,
) {
    loop {
        match events.recv().await {
            Ok(ToolEvent::Progress { .. }) => break,
            Ok(_) => {}
            Err(e) => panic!("no progress from the tool: {e}"),
        }
    }
    token.cancel();
}

// Paused: had the cancellation not stopped it, the 60 s default limit would end the call at
// once, as a timeout, and the test fail.
#[tokio::test(start_paused = true)]
async fn cancelling_the_context_cancels_the_call() {
    let (ctx, token, running) = cancellable();
    let ex = executor();
    let call = ex.call("wait_cancelled", json!({}), &ctx);
    let (out, ()) = tokio::join!(call, cancel_once_running(running, token));
    assert_eq!(out.unwrap_err().kind(), ErrorKind::Cancelled);
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_never_runs_the_tool() {
    let token = CancellationToken::new();
    token.cancel();
    let ctx = ToolContext::builder().cancellation(token).build();
    let err = executor()
        .call("count_runs", json!({}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled);
    assert_eq!(COUNTED.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_call_drops_the_tools_future() {
    let ex = executor();
    let ctx = ToolContext::new();
    let call = ex.call("wait_forever", json!({}), &ctx);
    assert!(
        tokio::time::timeout(Duration::from_millis(50), call)
            .await
            .is_err()
    );
    tokio::time::timeout(Duration::from_secs(5), DROPPED.notified())
        .await
        .expect("the dropped call dropped the tool's future");
}

// Paused: the backoff between attempts takes no real time.
#[tokio::test(start_paused = true)]
async fn transient_failures_are_retried_for_read_only_tools_only() {
    let ex = executor();
    let out = ex
        .call("get_flaky", json!({}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.echo(), "3");
    assert_eq!(FLAKY_CALLS.load(Ordering::SeqCst), 3);

    let err = ex
        .call("delete_thing", json!({"id": "a1"}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert_eq!(
        DELETE_CALLS.load(Ordering::SeqCst),
        1,
        "a destructive tool is never retried"
    );
}

#[tokio::test]
async fn a_batch_runs_concurrently_and_answers_in_call_order() {
    let calls = vec![
        ToolCall::new("1", "meet_partner", json!({})),
        ToolCall::new("2", "add_one", json!({"n": "not a number"})),
        ToolCall::new("3", "meet_partner", json!({})),
        ToolCall::new("4", "add_one", r#"{"n": 41}"#),
    ];
    let results = executor().call_batch(calls, &ToolContext::new()).await;
    // The two meetings could only finish together: the batch ran them concurrently.
    assert_eq!(results[0].as_ref().unwrap().echo(), "met");
    let err = results[1].as_ref().unwrap_err();
    assert_eq!(err.path(), Some("n"));
    assert_eq!(results[2].as_ref().unwrap().echo(), "met");
    assert_eq!(results[3].as_ref().unwrap().echo(), "42");
}

#[tokio::test]
async fn limits_hold_on_the_way_in_and_out() {
    let policy = ExecPolicy::default()
        .max_input_bytes(1000)
        .max_echo_bytes(100);
    let ex = Executor::with_policy(Registry::linked().unwrap(), policy);
    let ctx = ToolContext::new();
    let big = json!({"n": 1, "pad": "x".repeat(5000)});
    let err = ex.call("add_one", big, &ctx).await.unwrap_err();
    assert!(err.message().contains("1000-byte limit"), "{err}");
    let deep = format!(
        r#"{{"n": {}1{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let err = executor()
        .call("add_one", deep.as_str(), &ctx)
        .await
        .unwrap_err();
    assert!(err.message().contains("levels deep"), "{err}");
    let out = ex.call("get_long_text", json!({}), &ctx).await.unwrap();
    assert!(out.echo().len() < 200);
    assert!(out.echo().contains("[truncated:"), "{}", out.echo());
    assert_eq!(
        out.data().unwrap().as_str().unwrap().len(),
        50_000,
        "data is kept whole"
    );
}

#[tokio::test]
async fn the_model_sees_a_sanitised_error() {
    let err = executor()
        .call("get_leaky", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    let text = err.to_string();
    for secret in ["hunter2", "db.internal", "eyJhbGciOiJIUzI1NiJ9"] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
    assert_eq!(err.path(), Some("query"));
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    let source = std::error::Error::source(&err).expect("operators keep the full error");
    assert!(source.to_string().contains("hunter2"));
}

#[derive(Default)]
struct Recorded(Mutex<Vec<AuditRecord>>);

impl AuditSink for Recorded {
    fn record(&self, record: &AuditRecord) {
        self.0.lock().unwrap().push(record.clone());
    }
}

#[tokio::test]
async fn calls_to_tools_that_change_things_are_audited() {
    let audit = Arc::new(Recorded::default());
    let ctx = ToolContext::builder()
        .principal("user-7")
        .audit(audit.clone())
        .build();
    let ex = executor();
    let _ = ex.call("add_one", json!({"n": 1}), &ctx).await;
    assert!(
        audit.0.lock().unwrap().is_empty(),
        "read-only calls are not audited"
    );
    let _ = ex.call("delete_record", json!({"id": "x9"}), &ctx).await;
    let _ = ex.call("delete_record", json!({"id": 9}), &ctx).await;
    let records = audit.0.lock().unwrap();
    let r = &records[0];
    assert_eq!(
        (r.tool.as_str(), r.principal.as_deref()),
        ("delete_record", Some("user-7"))
    );
    assert_eq!(r.outcome, "ok");
    assert_eq!(records[1].outcome, "invalid_input");
    assert!(r.input_digest.starts_with("sha256:") && !r.input_digest.contains("x9"));
}

#[tokio::test]
async fn ui_events_follow_the_call() {
    let events = Arc::new(BroadcastEvents::new(16));
    let mut rx = events.subscribe();
    let ctx = ToolContext::builder().call_id("c1").events(events).build();
    executor().call("do_steps", json!({}), &ctx).await.unwrap();
    let mut seen = Vec::new();
    while let Ok(e) = rx.try_recv() {
        seen.push(e);
    }
    assert!(matches!(&seen[0], ToolEvent::Started { label, .. } if label == "Working through"));
    assert!(matches!(
        &seen[1],
        ToolEvent::Progress {
            done: 1,
            total: Some(2),
            ..
        }
    ));
    assert!(matches!(&seen[2], ToolEvent::Progress { done: 2, .. }));
    assert!(matches!(&seen[3], ToolEvent::Finished { call_id, .. } if call_id == "c1"));
}

/// Records every event, and says it does not want the executor's own.
#[derive(Default)]
struct ToolEventsOnly(Mutex<Vec<ToolEvent>>);

impl EventSink for ToolEventsOnly {
    fn emit(&self, event: &ToolEvent) {
        self.0.lock().unwrap().push(event.clone());
    }
    fn wants_lifecycle(&self) -> bool {
        false
    }
}

#[tokio::test]
async fn a_sink_not_wanting_lifecycle_events_still_gets_what_tools_send() {
    let events = Arc::new(ToolEventsOnly::default());
    let ctx = ToolContext::builder().events(events.clone()).build();
    executor().call("do_steps", json!({}), &ctx).await.unwrap();
    let seen = events.0.lock().unwrap();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen.iter().all(|e| matches!(e, ToolEvent::Progress { .. })));
}

#[tokio::test]
async fn tools_call_tools_within_a_depth_limit() {
    let ex = executor();
    let out = ex
        .call("add_two", json!({"n": 40}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.echo(), "42");
    let err = ex
        .call("call_self", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.message().contains("levels deep"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn a_context_made_for_one_call_is_taken_over_as_it_is() {
    let ex = executor();
    let ctx = ToolContext::builder().call_id("req-7").build();
    let out = ex.call_in("get_call_info", json!({}), ctx).await.unwrap();
    assert_eq!(out.data(), Some(&json!("req-7 true")));
    // Tools it calls run under it, as under `call`.
    let ctx = ToolContext::builder().call_id("req-8").build();
    let out = ex.call_in("add_two", json!({"n": 1}), ctx).await.unwrap();
    assert_eq!(out.data(), Some(&json!(3)));
    // Its token is the call's own, not a child's: a tool that cancels it cancels it.
    let token = CancellationToken::new();
    let ctx = ToolContext::builder().cancellation(token.clone()).build();
    ex.call_in("stop_self", json!({}), ctx).await.unwrap();
    assert!(token.is_cancelled());
    let token = CancellationToken::new();
    let ctx = ToolContext::builder().cancellation(token.clone()).build();
    ex.call("stop_self", json!({}), &ctx).await.unwrap();
    assert!(!token.is_cancelled(), "`call` derives a child");
    // And cancelling it cancels the call.
    let (ctx, token, running) = cancellable();
    let call = ex.call_in("wait_cancelled", json!({}), ctx);
    let (out, ()) = tokio::join!(call, cancel_once_running(running, token));
    assert_eq!(out.unwrap_err().kind(), ErrorKind::Cancelled);
}

#[tokio::test]
async fn a_context_still_held_elsewhere_is_derived_from_not_changed() {
    let ex = executor();
    let token = CancellationToken::new();
    let ctx = ToolContext::builder()
        .call_id("req-9")
        .cancellation(token.clone())
        .build();
    let kept = ctx.clone();
    let out = ex.call_in("get_call_info", json!({}), ctx).await.unwrap();
    assert_eq!(out.data(), Some(&json!("req-9 true")));
    ex.call_in("stop_self", json!({}), kept.clone())
        .await
        .unwrap();
    assert_eq!(kept.deadline(), None);
    assert!(!token.is_cancelled());
}
