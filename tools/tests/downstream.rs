//! Tools that call a downstream service, run through the executor against a real HTTP server on
//! 127.0.0.1: the caller's token (issued for the service's audience) and allowlisted headers are
//! forwarded and no others, a 503 is retried
//! for a read-only tool and never for a destructive one, and a slow service hits the time limit.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::json;
use tool_core::context::Principal;
use tool_core::exec::Executor;
use tool_core::prelude::*;
use tool_http::{HttpClient, HttpConfig};

tool_core::domain!(pub orders, "Orders in a downstream service");

/// Returns the order with the given id from the orders service.
#[tool(domain = orders, label = "Looking up an order", hint = "One order by id", retries = 3)]
async fn get_order(#[ctx] http: HttpClient, id: String) -> Result<String, ToolError> {
    Ok(http
        .get("orders", &format!("/orders/{id}"))
        .send()
        .await?
        .text())
}

/// Cancels the order with the given id in the orders service.
#[tool(domain = orders, label = "Cancelling an order", hint = "Cancels an order", destructive, retries = 3)]
async fn cancel_order(#[ctx] http: HttpClient, id: String) -> Result<String, ToolError> {
    let path = format!("/orders/{id}/cancel");
    let response = http
        .request(tool_http::Method::POST, "orders", &path)
        .send()
        .await?;
    Ok(response.text())
}

/// Returns the slow report from the orders service.
#[tool(domain = orders, label = "Waiting for a report", hint = "A slow report", timeout = 300ms)]
async fn get_report(#[ctx] http: HttpClient) -> Result<String, ToolError> {
    Ok(http.get("orders", "/report").send().await?.text())
}

/// A scripted service: answers each request with the next (status, held) of `script`, then
/// 200s; records every request's head. A held answer is written only once the service is
/// dropped, at the end of the test: a service slower than any time limit.
struct Service {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
    served: Arc<AtomicUsize>,
    /// Dropped with the service: held answers go out then.
    _release: mpsc::Sender<()>,
}

fn service(script: Vec<(u16, bool)>) -> Service {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let served = Arc::new(AtomicUsize::new(0));
    let (log, count) = (requests.clone(), served.clone());
    let (release, released) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { break };
            let n = count.fetch_add(1, Ordering::SeqCst);
            let mut head = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line.to_ascii_lowercase());
            }
            log.lock().unwrap().push(head);
            let (status, held) = script.get(n).copied().unwrap_or((200, false));
            if held {
                // Ends when the sender is dropped; nothing is ever sent.
                let _ = released.recv();
            }
            let body = format!("answer {n}");
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Service {
        port,
        requests,
        served,
        _release: release,
    }
}

fn executor_for(service: &Service) -> (Executor, ToolContext) {
    let client = HttpClient::new(
        HttpConfig::default()
            .service_with_audience(
                "orders",
                format!("http://127.0.0.1:{}/", service.port),
                "https://orders.example.com",
            )
            .forward_header("x-request-id"),
    )
    .unwrap();
    let ctx = ToolContext::builder()
        .principal(
            Principal::new("user-7").with_token("user-token", ["https://orders.example.com"]),
        )
        .headers(RequestHeaders::from_pairs([
            ("Authorization", "Bearer header-token"),
            ("X-Request-Id", "req-42"),
            ("Cookie", "session=secret"),
            ("X-Internal", "do-not-forward"),
        ]))
        .extension(client)
        .build();
    (Executor::new(Registry::linked().unwrap()), ctx)
}

#[tokio::test]
async fn a_read_only_tool_retries_503_and_forwards_only_allowlisted_headers() {
    let svc = service(vec![(503, false), (503, false)]);
    let (executor, ctx) = executor_for(&svc);
    let out = executor
        .call("get_order", json!({"id": "o-7"}), &ctx)
        .await
        .unwrap();
    assert_eq!(out.echo(), "answer 2");
    assert_eq!(
        svc.served.load(Ordering::SeqCst),
        3,
        "two 503s, then the answer"
    );
    for head in svc.requests.lock().unwrap().iter() {
        assert!(head.starts_with("get /orders/o-7 "), "{head}");
        // The principal's token, for the service's audience; not the request's header.
        assert!(head.contains("authorization: bearer user-token"), "{head}");
        assert!(!head.contains("header-token"), "{head}");
        assert!(head.contains("x-request-id: req-42"), "{head}");
        assert!(
            !head.contains("cookie") && !head.contains("x-internal"),
            "{head}"
        );
    }
}

#[tokio::test]
async fn a_destructive_tool_is_not_retried() {
    let svc = service(vec![(503, false), (503, false)]);
    let (executor, ctx) = executor_for(&svc);
    let err = executor
        .call("cancel_order", json!({"id": "o-7"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert_eq!(svc.served.load(Ordering::SeqCst), 1, "one attempt only");
}

#[tokio::test]
async fn a_slow_service_hits_the_tools_time_limit() {
    let svc = service(vec![(200, true)]);
    let (executor, ctx) = executor_for(&svc);
    // The service answers only after the test: the 300 ms limit must end the call.
    let call = executor.call("get_report", json!({}), &ctx);
    let err = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the time limit ended the call")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert_eq!(
        svc.served.load(Ordering::SeqCst),
        1,
        "the request reached it"
    );
}
