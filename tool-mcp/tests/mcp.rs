//! The MCP server and mounts, driven by the official Rust SDK's client: listing with pages,
//! calls, error results, notifications in order, cancellation, `list_changed`; and, over real
//! Streamable HTTP on loopback, sessions and stateless mode, Origin and bearer-token checks,
//! header forwarding, and a server mounted by URL.

// MCP logging, deprecated upstream (SEP-2577), is still served and so tested.
#![allow(deprecated)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientRequest, LoggingMessageNotificationParam,
    ProgressNotificationParam, Request,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tool_core::exec::Executor;
use tool_core::{Registry, ToolError, ToolOutput, context::LogLevel, registry::DynamicTool};
#[cfg(feature = "mount")]
use tool_mcp::MountSpec;
use tool_mcp::{self as mcp, HttpOptions, McpPeer, McpServer, ServerOptions};

/// Tools that exercise every path: echo, headers, progress and logs, a wait that only ends
/// when cancelled, a failure.
fn registry(waits: Arc<Waits>) -> Registry {
    let object = json!({"type": "object"});
    let mut r = Registry::empty();
    let tools = [
        DynamicTool::new("echo_input", "Echoes its input.", object.clone())
            .core(true)
            .output_schema(json!({"type": "object"}))
            .handler(|input, _| async move { Ok(ToolOutput::new(input)) }),
        DynamicTool::new(
            "show_headers",
            "Returns the forwarded headers.",
            object.clone(),
        )
        .handler(|_, ctx| async move {
            let headers: serde_json::Map<String, Value> = ctx
                .headers()
                .iter()
                .map(|(n, v)| (n.to_owned(), v.into()))
                .collect();
            Ok(ToolOutput::new(Value::Object(headers)))
        }),
        DynamicTool::new("count_steps", "Counts to three, out loud.", object.clone()).handler(
            |_, ctx| async move {
                for i in 1..=3 {
                    ctx.log(LogLevel::Info, format!("step {i}"));
                    ctx.progress(i, Some(3), format!("step {i} of 3"));
                }
                ctx.log(LogLevel::Debug, "done counting");
                Ok(ToolOutput::text("counted"))
            },
        ),
        DynamicTool::new("wait_forever", "Waits until cancelled.", object.clone()).handler(
            move |_, _| {
                // Counted when the call stops, whether it returns or is aborted.
                let stopped = Stopped(waits.clone());
                async move {
                    stopped.0.began.notify_one();
                    std::future::pending::<()>().await;
                    Err(ToolError::failed("unreachable"))
                }
            },
        ),
        DynamicTool::new("fail_always", "Fails.", object.clone())
            .handler(|_, _| async move { Err(ToolError::not_found("no such record: 42")) }),
    ];
    for tool in tools {
        r.register(tool).unwrap();
    }
    r
}

/// What `wait_forever` tells a test: that a call of it began, and how many calls stopped.
#[derive(Default)]
struct Waits {
    began: tokio::sync::Notify,
    stopped: AtomicUsize,
    stop: tokio::sync::Notify,
}

impl Waits {
    /// Waits until a call of `wait_forever` runs.
    async fn began(&self) {
        tokio::time::timeout(Duration::from_secs(10), self.began.notified())
            .await
            .expect("the call began");
    }

    /// Waits until a call of `wait_forever` stopped; how many have.
    async fn stopped(&self) -> usize {
        tokio::time::timeout(Duration::from_secs(10), self.stop.notified())
            .await
            .expect("the call stopped");
        self.stopped.load(Ordering::SeqCst)
    }
}

struct Stopped(Arc<Waits>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.stopped.fetch_add(1, Ordering::SeqCst);
        self.0.stop.notify_one();
    }
}

fn server(options: ServerOptions) -> (McpServer, Arc<Waits>) {
    let waits = Arc::new(Waits::default());
    let executor = Executor::new(registry(waits.clone()));
    (McpServer::with_options(executor, options), waits)
}

/// A client that records the notifications it gets, in order.
#[derive(Clone, Default)]
struct Recorder {
    seen: Arc<Mutex<Vec<String>>>,
    list_changed: Arc<tokio::sync::Notify>,
}

impl Recorder {
    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

impl ClientHandler for Recorder {
    async fn on_progress(&self, p: ProgressNotificationParam, _: NotificationContext<RoleClient>) {
        let total = p.total.unwrap_or_default();
        self.seen
            .lock()
            .unwrap()
            .push(format!("progress {}/{total}", p.progress));
    }

    async fn on_logging_message(
        &self,
        p: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(p.level).unwrap();
        self.seen
            .lock()
            .unwrap()
            .push(format!("log {} {}", level.as_str().unwrap(), p.data));
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }
}

/// The client's end of an in-memory pipe on which `server` is served, as stdio is.
fn serve_pipe(server: &McpServer) -> tokio::io::DuplexStream {
    let (served, client) = tokio::io::duplex(1 << 16);
    let server = server.clone();
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(served);
        let _ = tool_mcp::serve_io(server, read, write, Default::default()).await;
    });
    client
}

/// A client connected to `server` through an in-memory pipe.
async fn connect(server: &McpServer, recorder: Recorder) -> RunningService<RoleClient, Recorder> {
    recorder
        .serve(serve_pipe(server))
        .await
        .expect("the client connects")
}

/// The text of a result's first content block.
fn text(result: &rmcp::model::CallToolResult) -> &str {
    &result.content[0].as_text().expect("a text block").text
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(map) = args else {
        panic!("arguments are an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(map)
}

#[tokio::test]
async fn lists_every_page_with_full_definitions() {
    let mut options = ServerOptions::named("test", "1.0");
    options.page_size = 2;
    let (server, _) = server(options);
    let client = connect(&server, Recorder::default()).await;
    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 2);
    assert!(first.next_cursor.is_some());
    let all = client.list_all_tools().await.unwrap();
    let names: Vec<_> = all.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names.len(), 5, "{names:?}");
    let echo = all.iter().find(|t| t.name == "echo_input").unwrap();
    let annotations = echo.annotations.as_ref().unwrap();
    assert!(annotations.read_only_hint.is_some() && annotations.open_world_hint.is_some());
    assert!(echo.output_schema.is_some());

    let bad = client
        .list_tools(Some(
            rmcp::model::PaginatedRequestParams::default().with_cursor(Some("99".into())),
        ))
        .await
        .unwrap_err();
    assert!(bad.to_string().contains("cursor"), "{bad}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_pages_list_every_tool_in_order_as_small_ones_do() {
    // Pages of more than 32 tools are built on the blocking pool, over the cores; smaller ones
    // where the request runs. Both must give the same tools, in the same order.
    let registry = || {
        let mut registry = Registry::empty();
        registry
            .register_all((0..150).map(|i| {
                let schema =
                    json!({"type": "object", "properties": {format!("p{i}"): {"type": "integer"}}});
                DynamicTool::new(format!("tool_{i:03}"), format!("Tool number {i}."), schema)
            }))
            .unwrap();
        registry
    };
    let mut listed = Vec::new();
    for page_size in [500, 100, 7] {
        let mut options = ServerOptions::named("test", "1.0");
        options.page_size = page_size;
        let server = McpServer::with_options(Executor::new(registry()), options);
        let client = connect(&server, Recorder::default()).await;
        let all: Vec<(String, Value)> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| (t.name.to_string(), Value::Object((*t.input_schema).clone())))
            .collect();
        assert_eq!(all.len(), 150, "pages of {page_size}");
        listed.push(all);
    }
    assert_eq!(listed[0][42].0, "tool_042");
    assert_eq!(listed[0][42].1["properties"]["p42"]["type"], "integer");
    assert_eq!(listed[0], listed[1]);
    assert_eq!(listed[0], listed[2]);
}

#[tokio::test]
async fn hidden_deferred_tools_are_callable_but_not_listed() {
    let mut options = ServerOptions::default();
    options.deferred = mcp::DeferredTools::Hidden;
    let (server, _) = server(options);
    let client = connect(&server, Recorder::default()).await;
    let names: Vec<_> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["echo_input"]);
    let out = client
        .call_tool(call("fail_always", json!({})))
        .await
        .unwrap();
    assert_eq!(out.is_error, Some(true));
}

#[tokio::test]
async fn calls_results_errors_and_unknown_tools() {
    let (server, _) = server(ServerOptions::default());
    let client = connect(&server, Recorder::default()).await;

    let out = client
        .call_tool(call("echo_input", json!({"a": [1, 2]})))
        .await
        .unwrap();
    assert_eq!(out.is_error, Some(false));
    assert_eq!(out.structured_content, Some(json!({"a": [1, 2]})));
    assert_eq!(text(&out), r#"{"a":[1,2]}"#);

    let failed = client
        .call_tool(call("fail_always", json!({})))
        .await
        .unwrap();
    assert_eq!(failed.is_error, Some(true));
    assert!(text(&failed).contains("no such record: 42"));

    let unknown = client
        .call_tool(call("echo_inptu", json!({})))
        .await
        .unwrap_err();
    let text = unknown.to_string();
    assert!(
        text.contains("echo_inptu") && text.contains("echo_input"),
        "{text}"
    );
}

#[tokio::test]
async fn every_call_reaches_its_own_client() {
    let mut tools = registry(Arc::default());
    let has_client = DynamicTool::new(
        "has_client",
        "Says whether the call can reach its client.",
        json!({"type": "object"}),
    )
    .handler(|_, ctx| async move {
        let peer = ctx.extension::<McpPeer>();
        let reachable = peer
            .and_then(|p| p.peer())
            .is_some_and(|p| !p.is_transport_closed());
        Ok(ToolOutput::new(json!(reachable)))
    });
    tools.register(has_client).unwrap();
    let server = McpServer::new(Executor::new(tools));
    let first = connect(&server, Recorder::default()).await;
    let second = connect(&server, Recorder::default()).await;
    // The first call of a connection adds its client to the context; later ones reuse it.
    for client in [&first, &second, &first, &second] {
        let out = client
            .call_tool(call("has_client", json!({})))
            .await
            .unwrap();
        assert_eq!(text(&out), "true");
    }
    first.cancel().await.unwrap();
    let out = second
        .call_tool(call("has_client", json!({})))
        .await
        .unwrap();
    assert_eq!(text(&out), "true");
}

// One thread: the SDK's client hands each notification to a task of its own, so only a
// first-in-first-out scheduler shows the order they came in on the wire.
#[tokio::test]
async fn progress_and_logs_arrive_in_order_before_the_result() {
    let (server, _) = server(ServerOptions::default());
    let recorder = Recorder::default();
    let client = connect(&server, recorder.clone()).await;
    // The SDK's client sends a progress token with every request.
    let out = client
        .call_tool(call("count_steps", json!({})))
        .await
        .unwrap();
    assert_eq!(text(&out), "counted");
    let expected = [
        r#"log info "step 1""#,
        "progress 1/3",
        r#"log info "step 2""#,
        "progress 2/3",
        r#"log info "step 3""#,
        "progress 3/3",
        r#"log debug "done counting""#,
    ];
    assert_eq!(recorder.seen(), expected);

    // After logging/setLevel warning, info and debug messages are not sent.
    client
        .set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Warning,
        ))
        .await
        .unwrap();
    recorder.seen.lock().unwrap().clear();
    client
        .call_tool(call("count_steps", json!({})))
        .await
        .unwrap();
    assert_eq!(
        recorder.seen(),
        ["progress 1/3", "progress 2/3", "progress 3/3"]
    );
}

#[tokio::test]
async fn a_cancelled_request_cancels_the_call() {
    let (server, waits) = server(ServerOptions::default());
    let client = connect(&server, Recorder::default()).await;
    let request = ClientRequest::CallToolRequest(Request::new(call("wait_forever", json!({}))));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    waits.began().await;
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    assert_eq!(waits.stopped().await, 1, "the call was stopped");
    // The session goes on.
    let out = client
        .call_tool(call("echo_input", json!({})))
        .await
        .unwrap();
    assert_eq!(out.is_error, Some(false));
}

#[tokio::test]
async fn changing_the_tool_set_notifies_connected_clients() {
    let (server, _) = server(ServerOptions::default());
    let recorder = Recorder::default();
    let client = connect(&server, recorder.clone()).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 5);
    server
        .update(|r| {
            r.register(
                DynamicTool::new("greet_person", "Greets.", json!({"type": "object"}))
                    .handler(|_, _| async { Ok(ToolOutput::text("hello")) }),
            )
        })
        .unwrap();
    tokio::time::timeout(Duration::from_secs(5), recorder.list_changed.notified())
        .await
        .expect("notifications/tools/list_changed arrives");
    assert_eq!(client.list_all_tools().await.unwrap().len(), 6);
    let out = client
        .call_tool(call("greet_person", json!({})))
        .await
        .unwrap();
    assert_eq!(text(&out), "hello");
    // A change that fails leaves the set as it was.
    let clash = server.update(|r| {
        r.register(DynamicTool::new(
            "greet_person",
            "Again.",
            json!({"type": "object"}),
        ))
    });
    assert!(clash.is_err());
    assert_eq!(server.executor().registry().len(), 6);
}

/// An HTTP server on an ephemeral loopback port; returns its base URL.
async fn http_server(server: McpServer, options: HttpOptions) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = mcp::serve_http(server, listener, &options, Default::default()).await;
    });
    format!("http://{addr}/mcp")
}

/// One raw HTTP/1.1 POST; returns the status, the lowercased head and the body read so far (an
/// SSE stream may stay open, so reading stops after a moment).
async fn raw_post(url: &str, body: &Value, headers: &[(&str, &str)]) -> (u16, String, String) {
    let addr = url.trim_start_matches("http://").split('/').next().unwrap();
    let body = body.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(2), stream.read_to_end(&mut response)).await;
    let text = String::from_utf8_lossy(&response).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status in {text:?}"));
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (status, head.to_ascii_lowercase(), body.to_owned())
}

async fn raw_initialize(url: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let (status, head, _) = raw_post(url, &body, headers).await;
    (status, head)
}

/// Calls `show_headers` with one stateless POST carrying `headers`; returns what the tool saw.
async fn headers_seen_by_tools(url: &str, headers: &[(&str, &str)]) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "show_headers", "arguments": {}}});
    let mut all = headers.to_vec();
    all.push(("MCP-Protocol-Version", "2025-06-18"));
    let (status, _, body) = raw_post(url, &call, &all).await;
    assert_eq!(status, 200, "{body}");
    let response: Value =
        serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{e}: {body}"));
    response["result"]["structuredContent"].clone()
}

#[tokio::test]
async fn http_checks_origin_and_sessions() {
    let (server, _) = server(ServerOptions::default());
    let url = http_server(server.clone(), HttpOptions::default()).await;
    let (status, head) = raw_initialize(&url, &[]).await;
    assert_eq!(status, 200);
    assert!(
        head.contains("mcp-session-id"),
        "sessions by default: {head}"
    );
    let (status, _) = raw_initialize(&url, &[("Origin", "http://localhost:5173")]).await;
    assert_eq!(status, 200, "loopback origins pass");
    let (status, _) = raw_initialize(&url, &[("Origin", "https://evil.example")]).await;
    assert_eq!(status, 403, "other origins are refused");

    let mut options = HttpOptions::default();
    options.stateless = true;
    let url = http_server(server, options).await;
    let (status, head) = raw_initialize(&url, &[]).await;
    assert_eq!(status, 200);
    assert!(
        !head.contains("mcp-session-id"),
        "no session when stateless: {head}"
    );
}

#[tokio::test]
async fn http_bearer_auth_guards_the_server_and_stays_out_of_tools() {
    let mut options = ServerOptions::default();
    options.forward_headers = vec!["authorization".into(), "x-tenant".into()];
    let (server, _) = server(options);
    let mut http = HttpOptions::default();
    http.bearer_token = Some("s3cret".into());
    http.stateless = true;
    let url = http_server(server, http).await;

    let (status, head) = raw_initialize(&url, &[]).await;
    assert_eq!(status, 401);
    assert!(head.contains("www-authenticate: bearer"), "{head}");
    let (status, _) = raw_initialize(&url, &[("Authorization", "Bearer wrong")]).await;
    assert_eq!(status, 401);
    let (status, _) = raw_initialize(&url, &[("Authorization", "bearer s3cret")]).await;
    assert_eq!(status, 200, "the scheme is case-insensitive");

    // The server's token is not the tools' to forward; the allowlisted header still is.
    let seen = headers_seen_by_tools(
        &url,
        &[("Authorization", "Bearer s3cret"), ("X-Tenant", "acme")],
    )
    .await;
    assert_eq!(seen, json!({"x-tenant": "acme"}));
}

#[tokio::test]
async fn http_passes_allowlisted_headers_to_tools_but_never_credentials() {
    let mut options = ServerOptions::default();
    options.forward_headers = ["authorization", "Cookie", "proxy-authorization", "x-tenant"]
        .map(String::from)
        .into();
    let (server, _) = server(options);
    let mut http = HttpOptions::default();
    http.stateless = true;
    let url = http_server(server, http).await;
    let seen = headers_seen_by_tools(
        &url,
        &[
            ("Authorization", "Bearer user-token"),
            ("Cookie", "session=1"),
            ("Proxy-Authorization", "Basic cHJveHk6cHc="),
            ("X-Tenant", "acme"),
            ("X-Other", "not forwarded"),
        ],
    )
    .await;
    // No server checked that token: listed or not, it is no tool's to pass on.
    assert_eq!(seen, json!({"x-tenant": "acme"}));
}

// Several threads, as `toolctl serve` runs: notifications and responses then race for real.
#[cfg(feature = "mount")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mounting_a_server_by_url_offers_its_tools() {
    let (remote, waits) = server(ServerOptions::named("remote", "1.0"));
    let url = http_server(remote, HttpOptions::default()).await;
    let spec: MountSpec = format!("far={url}").parse().unwrap();
    let mounted = mcp::mount(&spec).await.unwrap();
    assert_eq!(mounted.len(), 5);
    let mut registry = Registry::empty();
    mounted.register(&mut registry).unwrap();
    let tool = registry
        .get("far__echo_input")
        .expect("prefixed by the mount's name");
    assert_eq!(tool.domain().name, "far");
    assert!(tool.output_schema().is_some());

    assert!(registry.get("far__echo_input").is_some());

    // The same server mounted into a running local server, beside its own tools.
    let (local, _) = server(ServerOptions::default());
    let mounted = mcp::mount(&spec).await.unwrap();
    local.update(|r| mounted.register(r)).unwrap();
    assert_eq!(local.executor().registry().len(), 10);
    let client = connect(&local, Recorder::default()).await;
    let out = client
        .call_tool(call("far__echo_input", json!({"via": "mount"})))
        .await
        .unwrap();
    assert_eq!(out.structured_content, Some(json!({"via": "mount"})));
    let failed = client
        .call_tool(call("far__fail_always", json!({})))
        .await
        .unwrap();
    assert_eq!(failed.is_error, Some(true));
    assert!(text(&failed).contains("no such record: 42"));

    // Progress of the remote call comes back through the local one.
    let recorder = Recorder::default();
    let client = connect(&local, recorder.clone()).await;
    client
        .call_tool(call("far__count_steps", json!({})))
        .await
        .unwrap();
    // rmcp's client handles each notification in a task of its own, so the relay may see the
    // remote steps out of order, and a step handled after the remote result is dropped (no
    // progress follows an answer); the local server drops progress that does not increase
    // (MCP requires it to). So some steps arrive, each one of the remote's, in order.
    let progress: Vec<_> = recorder
        .seen()
        .into_iter()
        .filter(|s| s.starts_with("progress"))
        .collect();
    let steps = ["progress 1/3", "progress 2/3", "progress 3/3"];
    assert!(!progress.is_empty(), "no progress came back");
    assert!(
        progress.iter().all(|p| steps.contains(&p.as_str())) && progress.is_sorted(),
        "{progress:?}"
    );

    // Cancelling the local call cancels the remote one.
    let request =
        ClientRequest::CallToolRequest(Request::new(call("far__wait_forever", json!({}))));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    waits.began().await;
    handle.cancel(None).await.unwrap();
    assert_eq!(waits.stopped().await, 1, "the remote tool was cancelled");
}

/// Protocol 2026-07-28: no `initialize` (`server/discover`, metadata on every request), and
/// `list_changed` through a `subscriptions/listen` request.
#[tokio::test]
async fn the_newest_protocol_lists_calls_and_subscribes() {
    use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};

    let (server, _) = server(ServerOptions::default());
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = Recorder::default()
        .serve_with_lifecycle(serve_pipe(&server), lifecycle)
        .await
        .expect("discover succeeds");
    assert_eq!(client.list_all_tools().await.unwrap().len(), 5);
    let out = client
        .call_tool(call("echo_input", json!({"n": 1})))
        .await
        .unwrap();
    assert_eq!(out.structured_content, Some(json!({"n": 1})));

    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut subscription = client.listen(filter).await.expect("listen is accepted");
    assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));
    server
        .update(|r| {
            r.register(
                DynamicTool::new("greet_person", "Greets.", json!({"type": "object"}))
                    .handler(|_, _| async { Ok(ToolOutput::text("hello")) }),
            )
        })
        .unwrap();
    let next = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("a notification arrives")
        .unwrap();
    assert!(
        matches!(
            next,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{next:?}"
    );
}

/// The transcript of a raw stdio client that asks `ask_client` (which elicits, then samples)
/// and answers the server's two requests, served by this crate's transport or by the SDK's own
/// (`sdk_transport`).
async fn ask_over_stdio(sdk_transport: bool) -> Vec<Value> {
    use tokio::io::AsyncBufReadExt as _;
    let ask = DynamicTool::new(
        "ask_client",
        "Asks the user, then the model.",
        json!({"type": "object"}),
    )
    .handler(|_, ctx| async move {
        let client = ctx.extension::<McpPeer>().expect("over MCP").clone();
        let form = serde_json::from_value(json!({"mode": "form", "message": "Your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}))
        .unwrap();
        let user = client.elicit(form).await?;
        let question = serde_json::from_value(json!({"messages": [{"role": "user",
                "content": {"type": "text", "text": "A greeting"}}], "maxTokens": 20}))
        .unwrap();
        let model = client.sample(question).await?;
        Ok(ToolOutput::new(
            json!({"user": user.content, "model": model.model}),
        ))
    });
    let mut registry = Registry::empty();
    registry.register(ask).unwrap();
    let mut options = ServerOptions::default();
    options.sdk_transport = sdk_transport;
    let server = McpServer::with_options(Executor::new(registry), options);
    let client = serve_pipe(&server);
    let (read, mut write) = tokio::io::split(client);
    let mut read = tokio::io::BufReader::new(read);
    let mut transcript = Vec::new();
    let next = async |read: &mut tokio::io::BufReader<_>, transcript: &mut Vec<Value>| {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(5), read.read_line(&mut line))
            .await
            .expect("the server answers")
            .unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        transcript.push(message.clone());
        message
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "clientInfo": {"name": "t", "version": "1"},
        "capabilities": {"elicitation": {}, "sampling": {}}}});
    let send = |message: Value| format!("{message}\n");
    write.write_all(send(initialize).as_bytes()).await.unwrap();
    next(&mut read, &mut transcript).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "ask_client", "arguments": {}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    write
        .write_all((send(initialized) + &send(call)).as_bytes())
        .await
        .unwrap();
    let elicit = next(&mut read, &mut transcript).await;
    assert_eq!(elicit["method"], "elicitation/create", "{elicit}");
    let accept = json!({"jsonrpc": "2.0", "id": elicit["id"],
        "result": {"action": "accept", "content": {"name": "Ada"}}});
    write.write_all(send(accept).as_bytes()).await.unwrap();
    let sample = next(&mut read, &mut transcript).await;
    assert_eq!(sample["method"], "sampling/createMessage", "{sample}");
    let reply = json!({"jsonrpc": "2.0", "id": sample["id"], "result": {"model": "m-1",
        "role": "assistant", "content": {"type": "text", "text": "Hello"}}});
    write.write_all(send(reply).as_bytes()).await.unwrap();
    next(&mut read, &mut transcript).await;
    transcript
}

/// A call answered by the stdio transport reaches its client exactly as one answered through
/// the SDK's loop: the same elicitation and sampling requests on the wire, the same answer.
/// (The SDK's per-request task-locals, absent around such a call, only pick a Streamable HTTP
/// stream.)
#[tokio::test]
async fn a_tool_asks_its_client_the_same_on_both_stdio_paths() {
    let ours = ask_over_stdio(false).await;
    let sdk = ask_over_stdio(true).await;
    assert_eq!(ours, sdk);
    let answer = &ours[3]["result"]["structuredContent"];
    assert_eq!(
        answer,
        &json!({"user": {"name": "Ada"}, "model": "m-1"}),
        "{ours:#?}"
    );
}

/// A server that speaks protocol 2026-07-28 alone: `initialize` is refused.
#[cfg(feature = "mount")]
#[derive(Clone)]
struct ModernOnly(McpServer);

#[cfg(feature = "mount")]
impl rmcp::ServerHandler for ModernOnly {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        self.0.get_info()
    }

    fn supported_protocol_versions(
        &self,
    ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        const ONLY: &[rmcp::model::ProtocolVersion] = &[rmcp::model::ProtocolVersion::V_2026_07_28];
        std::borrow::Cow::Borrowed(ONLY)
    }

    async fn list_tools(
        &self,
        request: Option<rmcp::model::PaginatedRequestParams>,
        cx: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, rmcp::ErrorData> {
        self.0.list_tools(request, cx).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        self.0.call_tool(request, cx).await
    }
}

/// POSTs one 2026-07-28 `tools/call` of `tool` (with `extra` params) to `url`; the message.
#[cfg(feature = "mount")]
async fn modern_post(url: &str, tool: &str, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": {"who": "test"}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}});
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().cloned().unwrap_or_default());
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params});
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    let (_, _, body) = raw_post(url, &call, &headers).await;
    let json = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|d| !d.is_empty())
        .unwrap_or(body.trim());
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// A server that speaks only 2026-07-28 is mounted (discover, then per-request `_meta`), its
/// tools are called, and one that asks the user has its question passed on to the mounting
/// server's own client, whose answer reaches it on the retry.
#[cfg(feature = "mount")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_speaks_only_2026_is_mounted_and_its_questions_passed_on() {
    use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let ask = DynamicTool::new(
        "ask_name",
        "Asks the user's name.",
        json!({"type": "object"}),
    )
    .handler(|_, ctx| async move {
        let client = ctx.extension::<McpPeer>().expect("over MCP").clone();
        let form = serde_json::from_value(json!({"message": "Your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}))
        .unwrap();
        let answer = client.elicit(form).await?;
        Ok(ToolOutput::new(
            json!({"name": answer.content.unwrap_or_default()["name"]}),
        ))
    });
    let echo = DynamicTool::new("echo_input", "Echoes.", json!({"type": "object"}))
        .handler(|input, _| async move { Ok(ToolOutput::new(input)) });
    let mut registry = Registry::empty();
    registry.register_all([ask, echo]).unwrap();
    let remote = McpServer::new(Executor::new(registry));
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(ModernOnly(remote.connection())),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let app = axum::Router::new().route_service("/mcp", service);
    tokio::spawn(async move { axum::serve(listener, app).await });

    // It is a 2026-07-28 server alone: a client of the session era cannot begin.
    let (_, _, refused) = raw_post(
        &url,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        &[],
    )
    .await;
    assert!(refused.contains("-32022"), "{refused}");

    let mounted = mcp::mount(&format!("far={url}").parse().unwrap())
        .await
        .unwrap();
    assert_eq!(mounted.len(), 2);
    let mut registry = Registry::empty();
    mounted.register(&mut registry).unwrap();
    let local = McpServer::new(Executor::new(registry));
    let mut options = HttpOptions::default();
    options.stateless = true;
    let local_url = http_server(local, options).await;

    let echoed = modern_post(&local_url, "far__echo_input", json!({})).await;
    assert_eq!(
        echoed["result"]["structuredContent"],
        json!({"who": "test"}),
        "{echoed}"
    );

    let asked = modern_post(&local_url, "far__ask_name", json!({})).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let requests = asked["result"]["inputRequests"].as_object().unwrap();
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["params"]["message"], "Your name?", "{asked}");
    let retry = json!({
        "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
        "requestState": asked["result"]["requestState"],
    });
    let done = modern_post(&local_url, "far__ask_name", retry).await;
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"name": "Ada"}),
        "{done}"
    );
}

/// A tool with icons and without its text mirror, beside one that keeps it.
fn pictured() -> McpServer {
    use tool_core::registry::ToolIcon;
    let object = json!({"type": "object"});
    let mut registry = Registry::empty();
    let counters = json!({"type": "object", "properties": {"requests": {"type": "integer"}}});
    registry
        .register_all([
            DynamicTool::new("get_counters", "Returns the counters.", object.clone())
                .output_schema(counters.clone())
                .mirror(false)
                .icon(ToolIcon::new("https://example.com/counter.png").sizes(["48x48"]))
                .icon(
                    ToolIcon::new("https://example.com/counter-dark.svg")
                        .mime_type("image/svg+xml")
                        .sizes(["any"])
                        .theme("dark"),
                )
                .handler(|_, _| async { Ok(ToolOutput::new(json!({"requests": 7}))) }),
            DynamicTool::new("count_requests", "Returns the counters.", object)
                .output_schema(counters)
                .handler(|_, _| async { Ok(ToolOutput::new(json!({"requests": 7}))) }),
        ])
        .unwrap();
    McpServer::with_options(Executor::new(registry), ServerOptions::default())
}

/// What a client of `server` is told of `get_counters` (its icons) and answered when it calls
/// it and `count_requests` (whether their results carry text).
async fn icons_and_texts(
    client: &RunningService<RoleClient, impl rmcp::service::Service<RoleClient>>,
) -> (Vec<rmcp::model::Icon>, bool, bool) {
    let tools = client.list_all_tools().await.unwrap();
    let listed = tools.iter().find(|t| t.name == "get_counters").unwrap();
    let icons = listed.icons.clone().unwrap_or_default();
    let mut texts = [false; 2];
    for (name, text) in ["get_counters", "count_requests"].iter().zip(&mut texts) {
        let out = client.call_tool(call(name, json!({}))).await.unwrap();
        assert_eq!(
            out.structured_content,
            Some(json!({"requests": 7})),
            "{name}"
        );
        *text = !out.content.is_empty();
    }
    (icons, texts[0], texts[1])
}

/// A client of protocol 2025-03-26, which has no structured content.
#[derive(Clone)]
struct OldClient;

impl ClientHandler for OldClient {
    fn get_info(&self) -> rmcp::model::ClientInfo {
        let mut info = rmcp::model::ClientInfo::default();
        info.protocol_version = rmcp::model::ProtocolVersion::V_2025_03_26;
        info
    }
}

#[tokio::test]
async fn icons_are_listed_and_a_tool_without_its_mirror_answers_in_structured_content_only() {
    use rmcp::model::{IconTheme, ProtocolVersion};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};

    let server = pictured();
    // A session begun with `initialize`, and a 2026-07-28 client: the stdio transport's own
    // listing and results.
    let session = connect(&server, Recorder::default()).await;
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let modern = Recorder::default()
        .serve_with_lifecycle(serve_pipe(&server), lifecycle)
        .await
        .expect("discover succeeds");
    for (icons, mirrored, kept) in [
        icons_and_texts(&session).await,
        icons_and_texts(&modern).await,
    ] {
        assert_eq!(icons.len(), 2);
        assert_eq!(icons[0].src, "https://example.com/counter.png");
        assert_eq!(icons[0].sizes.as_deref(), Some(&["48x48".to_owned()][..]));
        assert_eq!(icons[1].mime_type.as_deref(), Some("image/svg+xml"));
        assert_eq!(icons[1].theme, Some(IconTheme::Dark));
        assert!(!mirrored, "no text beside the structured content");
        assert!(kept, "the tool that keeps its mirror sends its text");
    }
    // A client whose protocol has no structured content is sent the text.
    let old = OldClient.serve(serve_pipe(&server)).await.unwrap();
    let (_, mirrored, _) = icons_and_texts(&old).await;
    assert!(mirrored, "a 2025-03-26 client reads only text");
}

/// A mounted server's tools keep their icons and their mirror setting: this server lists the
/// icons and answers as the mounted server does. Mounted by URL, so the remote's own answers
/// travel over Streamable HTTP.
#[cfg(feature = "mount")]
#[tokio::test]
async fn a_mounted_tool_keeps_its_icons_and_its_mirror() {
    let url = http_server(pictured(), HttpOptions::default()).await;
    let spec: MountSpec = format!("far={url}").parse().unwrap();
    let mounted = mcp::mount(&spec).await.unwrap();
    let mut registry = Registry::empty();
    mounted.register(&mut registry).unwrap();
    let tool = registry.get("far__get_counters").unwrap();
    assert_eq!(tool.icons().len(), 2);
    assert_eq!(tool.icons()[1].theme.as_deref(), Some("dark"));
    assert!(!tool.mirror());
    assert!(registry.get("far__count_requests").unwrap().mirror());

    let local = McpServer::with_options(Executor::new(registry), ServerOptions::default());
    let client = connect(&local, Recorder::default()).await;
    let tools = client.list_all_tools().await.unwrap();
    let listed = tools
        .iter()
        .find(|t| t.name == "far__get_counters")
        .unwrap();
    assert_eq!(listed.icons.as_ref().map(Vec::len), Some(2));
    let out = client
        .call_tool(call("far__get_counters", json!({})))
        .await
        .unwrap();
    assert_eq!(out.structured_content, Some(json!({"requests": 7})));
    assert!(out.content.is_empty(), "{:?}", out.content);
    let out = client
        .call_tool(call("far__count_requests", json!({})))
        .await
        .unwrap();
    assert_eq!(text(&out), r#"{"requests":7}"#);
}

/// A mounted server's resource and prompt pass the mounting server's layers, as its own items
/// do: a redaction hides the remote's secret in a read (through the executor and to an MCP
/// client) and in a prompt's messages, and a refusing layer refuses a read.
#[cfg(feature = "mount")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_servers_items_pass_the_mounting_servers_layers() {
    use tool_core::exec::{Item, layer_fn};
    use tool_core::prompt::{Prompt, PromptArgs, PromptContent, PromptReply};
    use tool_core::resource::{Body, Resource, ResourceContent};
    let mut remote = Registry::empty();
    remote
        .add_resource(
            Resource::new("vault://{key}", "secret", "A secret.", |r, _| async move {
                let key = r.variable("key").unwrap_or_default().to_owned();
                Ok(vec![ResourceContent::text(format!("{key}: hunter2"))])
            })
            .unwrap(),
        )
        .unwrap();
    remote
        .add_prompt(
            Prompt::new("log_in", "Logs in.", [], |_, _| async {
                Ok(PromptReply::user("Log in with hunter2"))
            })
            .unwrap(),
        )
        .unwrap();
    let url = http_server(
        McpServer::new(Executor::new(remote)),
        HttpOptions::default(),
    )
    .await;
    let mounted = mcp::mount(&format!("far={url}").parse().unwrap())
        .await
        .unwrap();
    let mut registry = Registry::empty();
    mounted.register(&mut registry).unwrap();
    let layered = Executor::builder(registry)
        .layer(layer_fn(async |call, next| {
            let prod = matches!(call.item(), Item::Resource(_))
                && call.input()["uri"]
                    .as_str()
                    .is_some_and(|u| u.contains("prod"));
            if prod {
                return Err(ToolError::refused("production stays put"));
            }
            let mut reply = next.run(call).await?;
            for text in reply.texts_mut() {
                *text = text.replace("hunter2", "[redacted]");
            }
            Ok(reply)
        }))
        .build();
    let ctx = tool_core::ToolContext::new();
    let read = layered.read_resource("vault://db", &ctx).await.unwrap();
    assert_eq!(read[0].body, Body::Text("db: [redacted]".into()));
    let got = layered
        .get_prompt("far__log_in", PromptArgs::default(), &ctx)
        .await
        .unwrap();
    assert_eq!(
        got.messages[0].content,
        PromptContent::Text("Log in with [redacted]".into())
    );
    let err = layered
        .read_resource("vault://prod", &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), tool_core::error::ErrorKind::Refused);

    // And to an MCP client of the mounting server.
    let local = McpServer::new(layered);
    let client = connect(&local, Recorder::default()).await;
    let read = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new("vault://db"))
        .await
        .unwrap();
    let text = serde_json::to_value(&read.contents[0]).unwrap();
    assert_eq!(text["text"], "db: [redacted]", "{text}");
    let refused = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new("vault://prod"))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("production stays put"),
        "{refused}"
    );
}
