//! A tiny HTTP/1.1 server on 127.0.0.1 with canned answers, recording what it saw, and the
//! helpers the client's tests share.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tool_core::{ToolContext, context::RequestHeaders};

use crate::client::HttpClient;
use crate::config::{HttpConfig, Source};
use crate::credential::EnvReader;
use crate::ssrf::Lookup;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) path: String,
    pub(crate) headers: Vec<(String, String)>,
}

impl Seen {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The requests a server saw, and word of each new one.
#[derive(Default)]
struct Log {
    seen: Mutex<Vec<Seen>>,
    arrived: tokio::sync::Notify,
}

/// A tiny HTTP/1.1 server with canned answers; stops when dropped.
pub(crate) struct Server {
    pub(crate) port: u16,
    log: Arc<Log>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    pub(crate) async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Log::default());
        let record = log.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(answer(socket, port, record.clone()));
            }
        });
        Self { port, log, task }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.log.seen.lock().unwrap().clone()
    }

    /// Waits until a request for `path` has arrived, for 10 s at most.
    pub(crate) async fn arrived(&self, path: &str) {
        let wait = async {
            loop {
                let arrived = self.log.arrived.notified();
                tokio::pin!(arrived);
                arrived.as_mut().enable();
                if self.seen().iter().any(|s| s.path == path) {
                    return;
                }
                arrived.await;
            }
        };
        tokio::time::timeout(Duration::from_secs(10), wait)
            .await
            .unwrap_or_else(|_| panic!("no request for {path} arrived"));
    }
}

async fn answer(mut socket: TcpStream, port: u16, log: Arc<Log>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut lines = head.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("/")
        .to_owned();
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    log.seen.lock().unwrap().push(Seen {
        path: path.clone(),
        headers,
    });
    log.arrived.notify_waiters();
    let route = path.strip_prefix("/api").unwrap_or(&path);
    let (status, extra, body): (&str, String, Vec<u8>) = match route {
        "/ok" => (
            "200 OK",
            "content-type: text/plain\r\n".into(),
            b"hello".to_vec(),
        ),
        "/json" => (
            "200 OK",
            "content-type: application/json\r\n".into(),
            br#"{"n": 7}"#.to_vec(),
        ),
        "/big" => (
            "200 OK",
            "content-type: text/plain\r\n".into(),
            vec![b'a'; 4096],
        ),
        "/big-unsized" => {
            // No content-length: the body ends when the connection closes.
            let _ = socket
                .write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n",
                )
                .await;
            let _ = socket.write_all(&[b'b'; 4096]).await;
            let _ = socket.shutdown().await;
            return;
        }
        "/png" => (
            "200 OK",
            "content-type: image/png\r\n".into(),
            b"\x89PNG\r\n\x1a\n\0\0".to_vec(),
        ),
        "/untyped-binary" => ("200 OK", String::new(), b"ab\0cd".to_vec()),
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(10)).await;
            ("200 OK", String::new(), b"late".to_vec())
        }
        "/redirect/same" => ("302 Found", "location: /ok\r\n".into(), Vec::new()),
        "/redirect/loop" => (
            "302 Found",
            "location: /redirect/loop\r\n".into(),
            Vec::new(),
        ),
        "/redirect/loopback2" => (
            "302 Found",
            format!("location: http://127.0.0.2:{port}/ok\r\n"),
            Vec::new(),
        ),
        "/redirect/name" => (
            "302 Found",
            format!("location: http://mixed.test:{port}/ok\r\n"),
            Vec::new(),
        ),
        r if r.starts_with("/redirect/port/") => (
            "302 Found",
            format!(
                "location: http://127.0.0.1:{}/ok\r\n",
                &r["/redirect/port/".len()..]
            ),
            Vec::new(),
        ),
        "/redirect/other-origin" => (
            "302 Found",
            format!("location: http://localhost:{port}/ok\r\n"),
            Vec::new(),
        ),
        "/redirect/ftp" => (
            "302 Found",
            "location: ftp://127.0.0.1/x\r\n".into(),
            Vec::new(),
        ),
        r if r.starts_with("/status/") => {
            let code = &r["/status/".len()..];
            let status = match code {
                "400" => "400 Bad Request",
                "401" => "401 Unauthorized",
                "403" => "403 Forbidden",
                "404" => "404 Not Found",
                "429" => "429 Too Many Requests",
                "500" => "500 Internal Server Error",
                "503" => "503 Service Unavailable",
                _ => "504 Gateway Timeout",
            };
            let body = format!("{{\"error\": \"{}\"}}", "x".repeat(5000)).into_bytes();
            (
                status,
                "content-type: application/json\r\nretry-after: 7\r\n".into(),
                body,
            )
        }
        _ => (
            "404 Not Found",
            "content-type: text/plain\r\n".into(),
            b"no such page".to_vec(),
        ),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = socket.write_all(head.as_bytes()).await;
    let _ = socket.write_all(&body).await;
    let _ = socket.shutdown().await;
}

/// A lookup that knows a few test names, all on the loopback range.
pub(crate) fn fake_dns() -> Lookup {
    Arc::new(|name: String| {
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = match name.as_str() {
                "rebind.test" => vec!["127.0.0.1:0".parse().unwrap()],
                "mixed.test" => vec![
                    "127.0.0.1:0".parse().unwrap(),
                    "127.0.0.2:0".parse().unwrap(),
                ],
                _ => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "no such host",
                    ));
                }
            };
            Ok(addrs)
        })
    })
}

/// A client built from `config`, resolving names with [`fake_dns`], with an empty environment.
pub(crate) fn client(config: HttpConfig) -> HttpClient {
    client_with_env(config, &|_| None)
}

/// A client built from `config` whose operator tokens come from `env`.
pub(crate) fn client_with_env(config: HttpConfig, env: EnvReader<'_>) -> HttpClient {
    HttpClient::build(config, Source::Code, fake_dns(), env).unwrap()
}

pub(crate) fn allowing_loopback() -> HttpConfig {
    HttpConfig::default().allow_host("127.0.0.1")
}

/// A call whose request had an `Authorization` header, a cookie and a few more, and no
/// authenticated caller.
pub(crate) fn caller() -> ToolContext {
    ToolContext::builder()
        .headers(RequestHeaders::from_pairs([
            ("Authorization", "Bearer caller-token"),
            ("Cookie", "session=abc"),
            ("X-Request-Id", "req-1"),
            ("X-Secret", "s3cr3t"),
            ("Traceparent", "00-abc-def-01"),
        ]))
        .build()
}
