//! The calls and listings the Streamable HTTP endpoint answers itself (one JSON body), beside
//! those it leaves to the SDK's service (an SSE stream): the same answers either way, in a
//! session and in protocol 2026-07-28; and every request of a session answered once, even one
//! that reuses the id of a request in progress, which the SDK's service would leave without an
//! answer.

use std::time::Duration;

use serde_json::{Value, json};
use tool_core::exec::Executor;
use tool_core::{Registry, ToolOutput, registry::DynamicTool};
use tool_mcp::{self as mcp, HttpOptions, McpServer};

const SESSION_ERA: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

/// A permit for each call of `hold` that began.
static HELD: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);
/// A permit for each call of `hold` let go.
static RELEASE: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);

fn server() -> McpServer {
    let object = json!({"type": "object"});
    let mut registry = Registry::empty();
    registry
        .register_all([
            DynamicTool::new("echo_input", "Echoes its input.", object.clone())
                .handler(|input, _| async move { Ok(ToolOutput::new(input)) }),
            DynamicTool::new("hold", "Holds until it is let go.", object).handler(|_, _| {
                HELD.add_permits(1);
                async move {
                    RELEASE.acquire().await.unwrap().forget();
                    Ok(ToolOutput::text("let go"))
                }
            }),
        ])
        .unwrap();
    McpServer::new(Executor::new(registry))
}

/// Plain HTTP on loopback; the client still needs its TLS set up to be built.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .tls_backend_preconfigured(tool_http::tls_config().unwrap())
        .build()
        .unwrap()
}

async fn serve(stateless: bool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = format!("http://{}/mcp", listener.local_addr().unwrap());
    let mut options = HttpOptions::default();
    options.stateless = stateless;
    tokio::spawn(async move {
        let _ = mcp::serve_http(server(), listener, &options, Default::default()).await;
    });
    addr
}

/// A POST's status, content type and JSON-RPC message (the body, or the SSE event that
/// carries the answer).
async fn post(
    client: &reqwest::Client,
    url: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> (u16, String, Value) {
    let mut request = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = tokio::time::timeout(Duration::from_secs(10), request.send())
        .await
        .expect("an answer within 10 s")
        .unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let text = response.text().await.unwrap();
    let message = if content_type.starts_with("text/event-stream") {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .rfind(|d| !d.is_empty())
            .map_or(Value::Null, |d| serde_json::from_str(d).unwrap())
    } else if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    (status, content_type, message)
}

/// Begins a session whose client declares `capabilities`; its id.
async fn session(client: &reqwest::Client, url: &str, capabilities: Value) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": SESSION_ERA, "capabilities": capabilities,
        "clientInfo": {"name": "raw", "version": "1"}}});
    let response = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(initialize.to_string())
        .send()
        .await
        .unwrap();
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = response.text().await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", SESSION_ERA),
    ];
    let (status, _, _) = post(client, url, &initialized, &headers).await;
    assert_eq!(status, 202);
    id
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
}

fn modern(mut request: Value, meta: Value) -> Value {
    let mut all = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    all.as_object_mut()
        .unwrap()
        .extend(meta.as_object().unwrap().clone());
    request["params"]["_meta"] = all;
    request
}

/// In a session whose client can be asked nothing, a call and a listing are answered with one
/// JSON body; where the client may be asked, or the request wants progress, with the SDK's
/// stream. The answers are the same.
#[tokio::test]
async fn a_session_is_answered_the_same_with_or_without_a_stream() {
    let url = serve(false).await;
    let client = client();
    let plain = session(&client, &url, json!({})).await;
    let asked = session(&client, &url, json!({"elicitation": {}})).await;
    let requests = [
        call(1, "echo_input", json!({"n": 1, "s": "é\u{1F600}"})),
        call(2, "no_such_tool", json!({})),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": "four", "method": "tools/list", "params": {"cursor": "9"}}),
    ];
    let plain_headers = [("mcp-session-id", plain.as_str())];
    let asked_headers = [("mcp-session-id", asked.as_str())];
    for request in &requests {
        let direct = post(&client, &url, request, &plain_headers).await;
        let sdk = post(&client, &url, request, &asked_headers).await;
        assert_eq!(direct.1, "application/json", "{request}: {direct:?}");
        assert!(sdk.1.starts_with("text/event-stream"), "{request}: {sdk:?}");
        assert_eq!((direct.0, &direct.2), (sdk.0, &sdk.2), "{request}");
        // With a progress token, the same session's call goes on a stream.
        let mut with_progress = request.clone();
        if with_progress.get("params").is_some() {
            with_progress["params"]["_meta"] = json!({"progressToken": "p"});
            let streamed = post(&client, &url, &with_progress, &plain_headers).await;
            assert!(streamed.1.starts_with("text/event-stream"), "{streamed:?}");
            assert_eq!(streamed.2, sdk.2, "{request}");
        }
    }
}

/// A 2026-07-28 call or listing, with sessions and stateless, is answered with one JSON body
/// when its headers agree with it; the same request asking for logs (whose notifications need
/// a stream) gets the same answer from the SDK.
#[tokio::test]
async fn a_modern_request_is_answered_the_same_with_or_without_a_stream() {
    for stateless in [false, true] {
        let url = serve(stateless).await;
        let client = client();
        let cases = [
            (call(1, "echo_input", json!({"n": 2})), "echo_input"),
            (call(2, "no_such_tool", json!({})), "no_such_tool"),
            (
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}),
                "",
            ),
        ];
        for (request, name) in &cases {
            let method = request["method"].as_str().unwrap();
            let mut headers = vec![("mcp-protocol-version", MODERN), ("mcp-method", method)];
            if !name.is_empty() {
                headers.push(("mcp-name", name));
            }
            let direct = post(&client, &url, &modern(request.clone(), json!({})), &headers).await;
            let logged = modern(
                request.clone(),
                json!({"io.modelcontextprotocol/logLevel": "debug"}),
            );
            let sdk = post(&client, &url, &logged, &headers).await;
            assert_eq!(direct.1, "application/json", "{request}: {direct:?}");
            assert_eq!(direct.0, sdk.0, "{request}: {sdk:?}");
            assert_eq!(direct.2, sdk.2, "stateless {stateless}: {request}");
        }
    }
}

/// A request that reuses the id of a request of its session still in progress is refused at
/// once (400, -32600, `"id": null`), whoever answers the first; the first is answered, and
/// the id may be used again once it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_id_is_refused_and_the_first_request_answered() {
    let url = serve(false).await;
    let client = client();
    for capabilities in [json!({}), json!({"sampling": {}})] {
        let id = session(&client, &url, capabilities.clone()).await;
        let headers = [("mcp-session-id", id.as_str())];
        let first = {
            let (client, url, id) = (client.clone(), url.clone(), id.clone());
            tokio::spawn(async move {
                let headers = [("mcp-session-id", id.as_str())];
                post(&client, &url, &call(7, "hold", json!({})), &headers).await
            })
        };
        let began = tokio::time::timeout(Duration::from_secs(10), HELD.acquire())
            .await
            .expect("the first call began")
            .unwrap();
        began.forget();
        for reuse in [
            call(7, "echo_input", json!({})),
            json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
        ] {
            let (status, _, message) = post(&client, &url, &reuse, &headers).await;
            assert_eq!(status, 400, "{capabilities}: {message}");
            assert_eq!(message["error"]["code"], -32600, "{message}");
            assert_eq!(message["id"], Value::Null, "{message}");
        }
        // The same id in another session is another request.
        let other = session(&client, &url, capabilities.clone()).await;
        let (status, _, message) = post(
            &client,
            &url,
            &call(7, "echo_input", json!({"x": 1})),
            &[("mcp-session-id", other.as_str())],
        )
        .await;
        assert_eq!(
            (status, &message["result"]["structuredContent"]),
            (200, &json!({"x": 1}))
        );
        RELEASE.add_permits(1);
        let (status, _, message) = first.await.unwrap();
        assert_eq!(status, 200, "{message}");
        assert_eq!(
            message["result"]["content"][0]["text"], "let go",
            "{message}"
        );
        let (status, _, message) = post(
            &client,
            &url,
            &call(7, "echo_input", json!({"y": 2})),
            &headers,
        )
        .await;
        assert_eq!(
            (status, &message["result"]["structuredContent"]),
            (200, &json!({"y": 2})),
            "{message}"
        );
    }
}

/// 64 clients at once, 2,000 calls in one session and 2,000 stateless, each with its own id:
/// every call is answered once, with its own result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_under_load_is_answered_once() {
    for stateless in [false, true] {
        let url = serve(stateless).await;
        let client = client();
        let session_id = if stateless {
            None
        } else {
            Some(session(&client, &url, json!({})).await)
        };
        let next = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(1));
        let workers: Vec<_> = (0..64)
            .map(|_| {
                let (client, url, session_id, next) = (
                    client.clone(),
                    url.clone(),
                    session_id.clone(),
                    next.clone(),
                );
                tokio::spawn(async move {
                    let mut answered = Vec::new();
                    loop {
                        let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if n > 2_000 {
                            return answered;
                        }
                        let headers: Vec<(&str, &str)> = session_id
                            .iter()
                            .map(|id| ("mcp-session-id", id.as_str()))
                            .collect();
                        let (status, _, message) = post(
                            &client,
                            &url,
                            &call(n, "echo_input", json!({"n": n})),
                            &headers,
                        )
                        .await;
                        assert_eq!(status, 200, "{message}");
                        assert_eq!(message["id"], n, "{message}");
                        assert_eq!(message["result"]["structuredContent"]["n"], n, "{message}");
                        answered.push(n);
                    }
                })
            })
            .collect();
        let mut all = Vec::new();
        for worker in workers {
            all.extend(worker.await.unwrap());
        }
        all.sort_unstable();
        assert_eq!(
            all,
            (1..=2_000).collect::<Vec<_>>(),
            "stateless {stateless}"
        );
    }
}
