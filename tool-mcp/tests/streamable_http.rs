//! The Streamable HTTP transport, rule by rule, against a real server on loopback: the status
//! codes the specification (2025-11-25 for sessions, 2026-07-28 for what stateless servers
//! answer to GET and DELETE) gives for each kind of POST, for GET and DELETE with and without a
//! session, for a missing or ended session, a bad `Accept`, a bad `MCP-Protocol-Version` and a
//! body that is not a message; and a tool that asks the client for something where nothing can
//! carry the request, which must fail at once rather than wait for an answer that cannot come.
//!
//! Requests are written by hand on a TCP socket, so each test says exactly what crosses it.

// Sampling, deprecated upstream (SEP-2577), is still served and so tested.
#![allow(deprecated)]

use std::time::{Duration, Instant};

use rmcp::model::{CreateMessageRequestParams, ElicitRequestParams, SamplingMessage};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tool_core::exec::Executor;
use tool_core::{
    Registry, ToolError, ToolOutput, context::FromContext as _, registry::DynamicTool,
};
use tool_mcp::{self as mcp, HttpOptions, McpPeer, McpServer, ServerOptions};

const PROTOCOL: &str = "2025-11-25";

/// A permit for each call of `wait_a_while` that began (one test calls it).
static WAITING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);

/// A permit for each call of `wait_a_while` the test lets finish.
static FINISH: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);

/// `echo_input`, and two tools that ask the client: for a completion, for the user's input.
fn server() -> McpServer {
    let object = json!({"type": "object"});
    let mut registry = Registry::empty();
    registry
        .register_all([
            DynamicTool::new("echo_input", "Echoes its input.", object.clone())
                .handler(|input, _| async move { Ok(ToolOutput::new(input)) }),
            DynamicTool::new("wait_a_while", "Waits until it is let go.", object.clone()).handler(
                |_, _| {
                    WAITING.add_permits(1);
                    async move {
                        FINISH.acquire().await.unwrap().forget();
                        Ok(ToolOutput::text("waited"))
                    }
                },
            ),
            DynamicTool::new("ask_model", "Asks the client's model.", object.clone()).handler(
                |_, ctx| async move {
                    let client = McpPeer::from_context(&ctx)?;
                    let message = SamplingMessage::user_text("Say hello");
                    let params = CreateMessageRequestParams::new(vec![message], 20);
                    let answer = client.sample(params).await?;
                    Ok(ToolOutput::new(serde_json::to_value(answer).unwrap()))
                },
            ),
            DynamicTool::new("ask_user", "Asks the client's user.", object).handler(
                |_, ctx| async move {
                    let client = McpPeer::from_context(&ctx)?;
                    let params: ElicitRequestParams = serde_json::from_value(json!({
                        "message": "Your name?",
                        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
                    }))
                    .map_err(ToolError::internal)?;
                    let answer = client.elicit(params).await?;
                    Ok(ToolOutput::new(serde_json::to_value(answer).unwrap()))
                },
            ),
        ])
        .unwrap();
    McpServer::new(Executor::new(registry))
}

/// Serves until `shutdown` is cancelled; the address, and the serving task.
async fn serve_until(
    stateless: bool,
    shutdown: tokio_util::sync::CancellationToken,
) -> (String, tokio::task::JoinHandle<Result<(), mcp::ServeError>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let mut options = HttpOptions::default();
    options.stateless = stateless;
    let serving =
        tokio::spawn(async move { mcp::serve_http(server(), listener, &options, shutdown).await });
    (addr, serving)
}

/// Serves on an ephemeral loopback port; returns the endpoint's address (`127.0.0.1:PORT`).
async fn serve(stateless: bool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let mut options = HttpOptions::default();
    options.stateless = stateless;
    tokio::spawn(async move {
        let _ = mcp::serve_http(server(), listener, &options, Default::default()).await;
    });
    addr
}

/// An HTTP response: its status, its headers (names lowercased) and its body, de-chunked.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC message of the body: the JSON object, or the last `data:` of an SSE stream.
    fn message(&self) -> Value {
        let text = match self.header("content-type") {
            Some(t) if t.starts_with("text/event-stream") => self
                .body
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .rfind(|d| !d.is_empty())
                .unwrap_or_default(),
            _ => self.body.trim(),
        };
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }
}

/// One request; `headers` are sent as given (no `Accept` unless listed). A GET that opens an
/// SSE stream is answered with the head alone: the stream stays open.
async fn send(addr: &str, method: &str, headers: &[(&str, &str)], body: Option<&Value>) -> Reply {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        request.push_str("Content-Type: application/json\r\n");
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();

    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .expect("a response head within 10 s")
            .unwrap();
        assert!(n > 0, "the connection closed before a response head");
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut reply = Reply {
        status,
        headers,
        body: String::new(),
    };
    let streams = reply
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/event-stream"));
    if method == "GET" && streams {
        return reply;
    }
    let mut rest = raw[head_end + 4..].to_vec();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut rest))
        .await
        .expect("the response ends within 10 s")
        .unwrap();
    reply.body = if reply.header("transfer-encoding") == Some("chunked") {
        dechunk(&rest)
    } else {
        String::from_utf8_lossy(&rest).into_owned()
    };
    reply
}

fn dechunk(mut raw: &[u8]) -> String {
    let mut body = Vec::new();
    while let Some(at) = raw.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&raw[..at]).unwrap().trim();
        let size = usize::from_str_radix(size, 16).unwrap();
        if size == 0 {
            break;
        }
        body.extend_from_slice(&raw[at + 2..at + 2 + size]);
        raw = &raw[at + 2 + size + 2..];
    }
    String::from_utf8(body).unwrap()
}

const ACCEPT_BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", PROTOCOL);

/// A POST as a client sends it: both media types accepted, the protocol version, `extra`.
async fn post(addr: &str, body: &Value, extra: &[(&str, &str)]) -> Reply {
    let mut headers = vec![ACCEPT_BOTH, VERSION];
    headers.extend_from_slice(extra);
    send(addr, "POST", &headers, Some(body)).await
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {"sampling": {}, "elicitation": {}},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

fn request(id: u32, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// Initializes a session and says so; returns its id.
async fn session(addr: &str) -> String {
    let reply = post(addr, &initialize(), &[]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let id = reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let reply = post(addr, &initialized(), &[("Mcp-Session-Id", &id)]).await;
    assert_eq!(reply.status, 202, "{reply:?}");
    id
}

#[tokio::test]
async fn a_notification_or_a_response_is_accepted_with_202_and_no_body() {
    let addr = serve(false).await;
    let id = session(&addr).await;
    let with_session = [("Mcp-Session-Id", id.as_str())];
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    let reply = post(&addr, &progress, &with_session).await;
    assert_eq!((reply.status, reply.body.as_str()), (202, ""), "{reply:?}");
    // A response to a request the server never sent is still a response: accepted.
    let response = json!({"jsonrpc": "2.0", "id": 99, "result": {}});
    let reply = post(&addr, &response, &with_session).await;
    assert_eq!((reply.status, reply.body.as_str()), (202, ""), "{reply:?}");
}

#[tokio::test]
async fn a_request_is_answered_with_200_and_its_response() {
    let addr = serve(false).await;
    let id = session(&addr).await;
    let call = request(
        1,
        "tools/call",
        json!({"name": "echo_input", "arguments": {"n": 1}}),
    );
    let reply = post(&addr, &call, &[("Mcp-Session-Id", &id)]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(
        content_type.starts_with("text/event-stream")
            || content_type.starts_with("application/json"),
        "{reply:?}"
    );
    assert_eq!(reply.header("allow"), None, "{reply:?}");
    let message = reply.message();
    assert_eq!(message["id"], 1);
    assert_eq!(message["result"]["structuredContent"], json!({"n": 1}));
}

#[tokio::test]
async fn get_opens_a_stream_for_a_session_and_needs_one() {
    let addr = serve(false).await;
    let id = session(&addr).await;
    let accept_sse = ("Accept", "text/event-stream");
    let reply = send(
        &addr,
        "GET",
        &[accept_sse, VERSION, ("Mcp-Session-Id", &id)],
        None,
    )
    .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(
        reply
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream")),
        "{reply:?}"
    );
    let reply = send(&addr, "GET", &[accept_sse, VERSION], None).await;
    assert_eq!(reply.status, 400, "no session id: {reply:?}");
}

#[tokio::test]
async fn a_request_without_a_session_id_is_400() {
    let addr = serve(false).await;
    session(&addr).await;
    let reply = post(&addr, &request(1, "tools/list", json!({})), &[]).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    let reply = post(&addr, &initialized(), &[]).await;
    assert_eq!(reply.status, 400, "a notification too: {reply:?}");
}

#[tokio::test]
async fn an_unknown_session_is_404() {
    let addr = serve(false).await;
    let unknown = [("Mcp-Session-Id", "no-such-session")];
    let reply = post(&addr, &request(1, "tools/list", json!({})), &unknown).await;
    assert_eq!(reply.status, 404, "{reply:?}");
    let accept_sse = ("Accept", "text/event-stream");
    let reply = send(&addr, "GET", &[accept_sse, VERSION, unknown[0]], None).await;
    assert_eq!(reply.status, 404, "{reply:?}");
    let reply = send(&addr, "DELETE", &[VERSION, unknown[0]], None).await;
    assert_eq!(reply.status, 404, "{reply:?}");
}

/// The official clients take 200 or 204 (the Python SDK logs "Session termination failed" for
/// anything else); both official SDK servers answer 200. The session is then gone: 404.
#[tokio::test]
async fn delete_ends_the_session_with_200_and_then_it_is_404() {
    let addr = serve(false).await;
    let id = session(&addr).await;
    let with_session = [VERSION, ("Mcp-Session-Id", id.as_str())];
    let reply = send(&addr, "DELETE", &with_session, None).await;
    assert_eq!((reply.status, reply.body.as_str()), (200, ""), "{reply:?}");
    let reply = post(
        &addr,
        &request(1, "tools/list", json!({})),
        &[("Mcp-Session-Id", &id)],
    )
    .await;
    assert_eq!(
        reply.status, 404,
        "a request on the ended session: {reply:?}"
    );
    let reply = send(&addr, "DELETE", &with_session, None).await;
    assert_eq!(reply.status, 404, "a second DELETE: {reply:?}");
    let reply = send(&addr, "DELETE", &[VERSION], None).await;
    assert_eq!(reply.status, 400, "no session id: {reply:?}");
}

#[tokio::test]
async fn accept_must_name_what_the_server_may_answer_with() {
    let addr = serve(false).await;
    let id = session(&addr).await;
    let session = ("Mcp-Session-Id", id.as_str());
    let list = request(1, "tools/list", json!({}));
    for accept in ["application/json", "text/event-stream"] {
        let reply = send(
            &addr,
            "POST",
            &[("Accept", accept), VERSION, session],
            Some(&list),
        )
        .await;
        assert_eq!(reply.status, 406, "POST with Accept {accept}: {reply:?}");
    }
    let reply = send(&addr, "POST", &[VERSION, session], Some(&list)).await;
    assert_eq!(reply.status, 406, "POST without Accept: {reply:?}");
    let reply = send(
        &addr,
        "GET",
        &[("Accept", "application/json"), VERSION, session],
        None,
    )
    .await;
    assert_eq!(
        reply.status, 406,
        "GET without text/event-stream: {reply:?}"
    );
}

/// A body that is not one JSON-RPC message is a bad request, answered with a JSON-RPC parse
/// error, as the official SDKs' servers answer it; a body that is not JSON at all by its
/// `Content-Type` is 415.
#[tokio::test]
async fn a_body_that_is_not_a_message_is_400_with_a_parse_error() {
    for stateless in [false, true] {
        let addr = serve(stateless).await;
        for body in [json!("not a message"), json!({"jsonrpc": "2.0"}), json!([])] {
            let reply = post(&addr, &body, &[]).await;
            assert_eq!(reply.status, 400, "{body}: {reply:?}");
            assert_eq!(
                reply.message()["error"]["code"],
                -32700,
                "{body}: {reply:?}"
            );
        }
        let headers = [ACCEPT_BOTH, VERSION, ("Content-Type", "text/plain")];
        let reply = send(&addr, "POST", &headers, None).await;
        assert_eq!(reply.status, 415, "{reply:?}");
    }
}

#[tokio::test]
async fn an_unsupported_protocol_version_is_400() {
    let addr = serve(false).await;
    let id = session(&addr).await;
    let bad = ("MCP-Protocol-Version", "1999-01-01");
    let headers = [ACCEPT_BOTH, bad, ("Mcp-Session-Id", id.as_str())];
    let reply = send(
        &addr,
        "POST",
        &headers,
        Some(&request(1, "tools/list", json!({}))),
    )
    .await;
    assert_eq!(reply.status, 400, "{reply:?}");
    let reply = send(&addr, "POST", &[ACCEPT_BOTH, bad], Some(&initialize())).await;
    assert_eq!(
        reply.status, 400,
        "initialize naming another version: {reply:?}"
    );
    let stateless = serve(true).await;
    let reply = send(
        &stateless,
        "POST",
        &[ACCEPT_BOTH, bad],
        Some(&request(1, "tools/list", json!({}))),
    )
    .await;
    assert_eq!(reply.status, 400, "stateless: {reply:?}");
}

#[tokio::test]
async fn stateless_get_and_delete_are_405() {
    let addr = serve(true).await;
    let reply = send(
        &addr,
        "GET",
        &[("Accept", "text/event-stream"), VERSION],
        None,
    )
    .await;
    assert_eq!(reply.status, 405, "{reply:?}");
    assert_eq!(reply.header("allow"), Some("POST"), "{reply:?}");
    let reply = send(&addr, "DELETE", &[VERSION, ("Mcp-Session-Id", "any")], None).await;
    assert_eq!(reply.status, 405, "{reply:?}");
}

#[tokio::test]
async fn stateless_posts_are_answered_by_kind() {
    let addr = serve(true).await;
    let reply = post(&addr, &initialize(), &[]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.header("mcp-session-id"), None, "{reply:?}");
    let reply = post(&addr, &initialized(), &[]).await;
    assert_eq!((reply.status, reply.body.as_str()), (202, ""), "{reply:?}");
    let reply = post(&addr, &request(1, "tools/list", json!({})), &[]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(reply.message()["result"]["tools"].is_array(), "{reply:?}");
    // No request of the server's is pending to answer: the response cannot be taken.
    let response = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
    let reply = post(&addr, &response, &[]).await;
    assert_eq!(reply.status, 400, "{reply:?}");
}

/// Without a session nothing can carry the server's request to the client: the tool's
/// sampling and elicitation fail at once, and say why.
#[tokio::test]
async fn stateless_sampling_and_elicitation_fail_at_once() {
    let addr = serve(true).await;
    for tool in ["ask_model", "ask_user"] {
        let call = request(7, "tools/call", json!({"name": tool, "arguments": {}}));
        let started = Instant::now();
        let reply = post(&addr, &call, &[]).await;
        let took = started.elapsed();
        assert_eq!(reply.status, 200, "{reply:?}");
        let result = &reply.message()["result"];
        assert_eq!(result["isError"], true, "{reply:?}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.contains("this server is stateless") && text.contains("needs an MCP session"),
            "{text}"
        );
        assert!(took < Duration::from_secs(1), "{tool} took {took:?}");
        eprintln!("{tool}: the error came back in {took:?}");
    }
}

/// A 2026-07-28 POST of `tools/call` for `tool` with `params` besides its name and `_meta`;
/// `capabilities` are the client's.
async fn modern_call(addr: &str, tool: &str, capabilities: Value, params: Value) -> Value {
    let mut call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
    "name": tool, "arguments": {"why": "test"},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }}});
    call["params"]
        .as_object_mut()
        .unwrap()
        .extend(params.as_object().cloned().unwrap_or_default());
    let headers = [
        ACCEPT_BOTH,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    let reply = send(addr, "POST", &headers, Some(&call)).await;
    // A result is 200; rmcp answers some protocol errors of 2026-07-28 (-32021) with 400.
    let message = reply.message();
    let error = message.get("error").is_some();
    assert!(
        reply.status == 200 || (error && reply.status == 400),
        "{reply:?}"
    );
    message
}

/// Serves `server_with(options)` statelessly; the address.
async fn serve_stateless_with(options: ServerOptions) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let mut http = HttpOptions::default();
    http.stateless = true;
    let server = McpServer::with_options(server().executor(), options);
    tokio::spawn(async move {
        let _ = mcp::serve_http(server, listener, &http, Default::default()).await;
    });
    addr
}

/// Protocol 2026-07-28 has no requests from the server to the client: a tool that asks ends
/// its call with an `InputRequiredResult` (the question, and a sealed `requestState`), and
/// the retry that brings the answer runs it to the end, with sessions or without.
#[tokio::test]
async fn a_client_on_the_newest_protocol_is_asked_in_the_result() {
    for stateless in [false, true] {
        let addr = serve(stateless).await;
        let asked = modern_call(&addr, "ask_user", json!({"elicitation": {}}), json!({})).await;
        let result = &asked["result"];
        assert_eq!(result["resultType"], "input_required", "{asked}");
        let requests = result["inputRequests"].as_object().unwrap();
        assert_eq!(requests.len(), 1, "{asked}");
        let (key, request) = requests.iter().next().unwrap();
        assert_eq!(request["method"], "elicitation/create", "{asked}");
        assert_eq!(request["params"]["message"], "Your name?", "{asked}");
        let state = result["requestState"].as_str().unwrap();
        assert!(result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());

        let answer = json!({"action": "accept", "content": {"name": "Ada"}});
        let retry = json!({"inputResponses": {key: answer}, "requestState": state});
        let done = modern_call(&addr, "ask_user", json!({"elicitation": {}}), retry).await;
        let result = &done["result"];
        assert_eq!(result["resultType"], "complete", "{done}");
        assert_eq!(result["isError"], false, "{done}");
        assert_eq!(
            result["structuredContent"]["content"]["name"], "Ada",
            "{done}"
        );

        // A state changed by the client opens nowhere: a protocol error, not a run.
        let forged = json!({"inputResponses": {key: answer}, "requestState": format!("{state}x")});
        let refused = modern_call(&addr, "ask_user", json!({"elicitation": {}}), forged).await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("requestState")
        );
    }
}

/// A client that did not declare the capability is not asked: -32021, naming it.
#[tokio::test]
async fn a_newest_client_without_the_capability_gets_minus_32021() {
    let addr = serve(true).await;
    let refused = modern_call(&addr, "ask_model", json!({"elicitation": {}}), json!({})).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    let required = &refused["error"]["data"]["requiredCapabilities"];
    assert!(required["sampling"].is_object(), "{refused}");
}

/// Instances that share a `requestState` key accept each other's states: the retry may land
/// on any of them. One with a key of its own refuses them.
#[tokio::test]
async fn a_retry_lands_on_any_instance_that_shares_the_key() {
    let key = b"0123456789abcdef0123456789abcdef-shared".to_vec();
    let shared = || {
        let mut options = ServerOptions::default();
        options.request_state = Some(rmcp::model::RequestStateCodec::try_new(key.clone()).unwrap());
        options
    };
    let first = serve_stateless_with(shared()).await;
    let second = serve_stateless_with(shared()).await;
    let alone = serve_stateless_with(ServerOptions::default()).await;
    let sampling = json!({"sampling": {}});
    let asked = modern_call(&first, "ask_model", sampling.clone(), json!({})).await;
    let result = &asked["result"];
    let key = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let state = result["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"role": "assistant", "model": "m", "stopReason": "endTurn",
                        "content": {"type": "text", "text": "hello"}});
    let retry = json!({"inputResponses": {&key: answer}, "requestState": state});
    let done = modern_call(&second, "ask_model", sampling.clone(), retry.clone()).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["content"]["text"], "hello",
        "{done}"
    );
    let refused = modern_call(&alone, "ask_model", sampling, retry).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

/// A shutdown (SIGTERM, for `toolctl`) while calls run: new connections are refused at once,
/// every call in flight is answered with its result, and then the server returns; with
/// sessions and without.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_answers_the_calls_in_flight() {
    for stateless in [true, false] {
        let shutdown = tokio_util::sync::CancellationToken::new();
        let (addr, serving) = serve_until(stateless, shutdown.clone()).await;
        let mut session = Vec::new();
        if !stateless {
            let reply = post(&addr, &initialize(), &[]).await;
            let id = reply
                .header("mcp-session-id")
                .expect("a session id")
                .to_owned();
            session.push(id);
            let reply = post(&addr, &initialized(), &[("Mcp-Session-Id", &session[0])]).await;
            assert_eq!(reply.status, 202, "{reply:?}");
        }
        let calls: Vec<_> = (0..20)
            .map(|n| {
                let addr = addr.clone();
                let session = session.clone();
                tokio::spawn(async move {
                    let call = request(n, "tools/call", json!({"name": "wait_a_while"}));
                    let extra: Vec<(&str, &str)> = session
                        .iter()
                        .map(|id| ("Mcp-Session-Id", id.as_str()))
                        .collect();
                    post(&addr, &call, &extra).await
                })
            })
            .collect();
        // Every call runs.
        let began = tokio::time::timeout(Duration::from_secs(10), WAITING.acquire_many(20))
            .await
            .expect("the calls began")
            .unwrap();
        began.forget();
        let stopped = Instant::now();
        shutdown.cancel();
        // The listener closes as the server takes the shutdown in, which shows outside only
        // as refused connections. A connection made before is reset or closed by then (one in
        // the listener's backlog is reset as it closes; one the server took is closed, as an
        // idle connection is at a shutdown): each is waited on until it ends, then another is
        // tried, until one is refused, for 10 s at most.
        let refused = tokio::time::timeout(Duration::from_secs(10), async {
            while let Ok(mut early) = tokio::net::TcpStream::connect(&addr).await {
                let _ = early.read(&mut [0; 64]).await;
            }
        })
        .await;
        assert!(
            refused.is_ok(),
            "new connections after the shutdown were still taken (stateless: {stateless})"
        );
        // Held until now: the calls were in flight all through the shutdown.
        FINISH.add_permits(20);
        for call in calls {
            let reply = call.await.unwrap();
            assert_eq!(reply.status, 200, "stateless: {stateless}: {reply:?}");
            let message = reply.message();
            assert_eq!(
                message["result"]["content"][0]["text"], "waited",
                "stateless: {stateless}: {message}"
            );
        }
        let ended = tokio::time::timeout(Duration::from_secs(10), serving)
            .await
            .expect("the server returns after its calls are answered")
            .unwrap();
        assert!(ended.is_ok(), "{ended:?}");
        let took = stopped.elapsed();
        assert!(
            took < Duration::from_secs(3),
            "stateless: {stateless}: took {took:?}"
        );
    }
}

/// A 2026-07-28 POST whose `Mcp-Method` or `Mcp-Name` header disagrees with its body is
/// refused with -32020 (header mismatch), and one without them is not served as if it agreed.
#[tokio::test]
async fn a_newest_post_must_name_its_method_and_tool_in_its_headers() {
    for stateless in [false, true] {
        let addr = serve(stateless).await;
        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "echo_input", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }}});
        for (method, name) in [("tools/call", "ask_user"), ("tools/list", "echo_input")] {
            let headers = [
                ACCEPT_BOTH,
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", method),
                ("Mcp-Name", name),
            ];
            let reply = send(&addr, "POST", &headers, Some(&call)).await;
            let message = reply.message();
            assert_eq!(
                message["error"]["code"], -32020,
                "{method} {name}: {reply:?}"
            );
        }
        let headers = [ACCEPT_BOTH, ("MCP-Protocol-Version", "2026-07-28")];
        let reply = send(&addr, "POST", &headers, Some(&call)).await;
        assert!(
            reply.message().get("error").is_some(),
            "no headers: {reply:?}"
        );
    }
}
