//! The HTTP side: the page, the event stream, the page's answers to waiting calls, and a
//! server that can be stopped cleanly.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::sync::broadcast;
use tokio_util::sync::{CancellationToken, DropGuard};
use tool_endpoint::Guard;

use super::approval::PageAnswer;
use super::guard::check_answer;
use super::hub::{Frame, FrameKind, Presence};
use super::question::AnswerError;

/// The page: one file, inline CSS and JS, no external assets.
const PAGE: &str = include_str!("page.html");
/// Where the page gets the secret its answers carry.
const SECRET_SLOT: &str = "__PRESENCE_SECRET__";
/// Where the page takes the card's stylesheet, which MCP views share (tool-core's).
const CARD_SLOT: &str = "/*__CARD_CSS__*/";
/// The largest answer, in bytes.
const ANSWER_BYTES: usize = 4096;

/// The page may run its own inline script and style, and talk to this server only.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'unsafe-inline'; \
    style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

/// Who may read the events, and how often an idle stream is kept alive.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PresenceOptions {
    /// `Host` header values answered (`name` or `name:port`; DNS-rebinding protection).
    /// Default: loopback names only. An empty list answers any `Host`: only behind a proxy
    /// that checks it.
    pub allowed_hosts: Vec<String>,
    /// Browser `Origin`s that may read (`scheme://host:port`, or `:*` for any port); a request
    /// with another `Origin` is refused with 403, one without an `Origin` (not from a browser
    /// script) passes. Default: loopback origins over `http`.
    pub allowed_origins: Vec<String>,
    /// How often an idle stream gets a keep-alive comment. Default 15 s.
    pub keep_alive: Duration,
}

impl Default for PresenceOptions {
    fn default() -> Self {
        Self {
            allowed_hosts: tool_endpoint::loopback_hosts(),
            allowed_origins: tool_endpoint::loopback_origins(),
            keep_alive: Duration::from_secs(15),
        }
    }
}

/// A running presence server (from [`Presence::start`]). Dropping it stops the server;
/// [`PresenceServer::shutdown`] stops it and waits until it has.
#[derive(Debug)]
pub struct PresenceServer {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<Result<(), PresenceError>>,
    stop: DropGuard,
}

impl PresenceServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL, e.g. `http://127.0.0.1:41234/` (a loopback address when listening on
    /// every address).
    pub fn url(&self) -> String {
        let ip = match self.addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        format!("http://{}/", SocketAddr::new(ip, self.addr.port()))
    }

    /// Stops the server: open streams get an `end` event and close, then it stops listening.
    pub async fn shutdown(self) -> Result<(), PresenceError> {
        let Self { task, stop, .. } = self;
        drop(stop);
        task.await??;
        Ok(())
    }
}

struct App {
    presence: Presence,
    /// The secret the page's answers carry (`None`: none could be made; nothing may answer).
    secret: Option<String>,
    /// The page, with the secret in it.
    page: String,
    keep_alive: Duration,
    shutdown: CancellationToken,
}

impl Presence {
    /// An axum router serving `GET /` (the page), `GET /events` (the stream) and `POST
    /// /approvals/{id}` (the page's answers to calls waiting for a person, see
    /// [`PresenceApprover`](crate::PresenceApprover)), to mount in an application of your own.
    /// Cancelling `shutdown` ends the open streams (each gets an `end` event first), so a
    /// graceful shutdown does not wait on pages that stay open.
    ///
    /// Each router makes a secret of its own (256 random bits) and puts it in the page it
    /// serves; an answer must carry it (`X-Presence-Secret`), come from a browser script of an
    /// allowed origin (`Origin`, and `Sec-Fetch-Site: same-origin` when sent) and be JSON. The
    /// page cannot be framed by another (`frame-ancestors 'none'`), nor read by another origin.
    pub fn router(&self, options: &PresenceOptions, shutdown: CancellationToken) -> axum::Router {
        let secret = new_secret();
        let page_text = PAGE
            .replace(CARD_SLOT, tool_core::render::CARD_CSS)
            .replace(SECRET_SLOT, secret.as_deref().unwrap_or_default());
        let guard = Guard::new(&options.allowed_hosts, &options.allowed_origins);
        let app = Arc::new(App {
            presence: self.clone(),
            secret,
            page: page_text,
            keep_alive: options.keep_alive,
            shutdown,
        });
        axum::Router::new()
            .route("/", get(page))
            .route("/events", get(events))
            .route(
                "/approvals/{id}",
                post(answer).layer(DefaultBodyLimit::max(ANSWER_BYTES)),
            )
            .layer(middleware::from_fn_with_state(
                Arc::new(guard),
                tool_endpoint::refuse_foreign,
            ))
            .with_state(app)
    }

    /// Serves the page and the stream on `listener` until `shutdown` is cancelled, then ends
    /// the open streams and returns.
    pub async fn serve(
        &self,
        listener: tokio::net::TcpListener,
        options: &PresenceOptions,
        shutdown: CancellationToken,
    ) -> Result<(), PresenceError> {
        let router = self.router(options, shutdown.child_token());
        axum::serve(tool_endpoint::nodelay(listener), router)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await?;
        Ok(())
    }

    /// Listens on `addr` (`HOST:PORT`, or a port alone for `127.0.0.1:PORT`; port 0 picks a
    /// free one) and serves in a task until the returned server is shut down or dropped.
    pub async fn start(
        &self,
        addr: &str,
        options: PresenceOptions,
    ) -> Result<PresenceServer, PresenceError> {
        let listener = bind(addr).await?;
        let local = listener.local_addr()?;
        let shutdown = CancellationToken::new();
        let (presence, token) = (self.clone(), shutdown.clone());
        let task = tokio::spawn(async move { presence.serve(listener, &options, token).await });
        Ok(PresenceServer {
            addr: local,
            task,
            stop: shutdown.drop_guard(),
        })
    }
}

/// Binds `addr`: `HOST:PORT`, or a port alone on 127.0.0.1.
async fn bind(addr: &str) -> Result<tokio::net::TcpListener, PresenceError> {
    let addr = addr.trim();
    let target = match addr.parse::<u16>() {
        Ok(port) => format!("127.0.0.1:{port}"),
        Err(_)
            if addr
                .rsplit_once(':')
                .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok()) =>
        {
            addr.to_owned()
        }
        Err(_) => return Err(PresenceError::Address(addr.to_owned())),
    };
    tokio::net::TcpListener::bind(&target)
        .await
        .map_err(|source| PresenceError::Bind {
            addr: target,
            source,
        })
}

/// 256 random bits, in hex; `None` if the system's random source fails (then nothing may
/// answer, which is safe).
fn new_secret() -> Option<String> {
    let mut bytes = [0u8; 32];
    if let Err(error) = getrandom::fill(&mut bytes) {
        tracing::error!(%error, "no random secret for the presence page: answers are off");
        return None;
    }
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

async fn page(State(app): State<Arc<App>>) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CONTENT_SECURITY_POLICY, PAGE_POLICY),
    ];
    (headers, app.page.clone()).into_response()
}

/// `POST /approvals/{id}`: the person's answer, from the page, to the call waiting under `id`.
async fn answer(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let reply = |status: StatusCode, body: serde_json::Value| {
        (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response()
    };
    let error =
        |status: StatusCode, text: String| reply(status, serde_json::json!({"error": text}));
    if let Err(refusal) = check_answer(&headers, app.secret.as_deref()) {
        tracing::warn!(%refusal, "presence refused an answer");
        return error(refusal.status(), refusal.to_string());
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        });
    if !json {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "an answer is JSON (Content-Type: application/json)".to_owned(),
        );
    }
    let Ok(id) = id.parse::<u64>() else {
        return error(
            StatusCode::NOT_FOUND,
            format!("`{id}` is not a question's number"),
        );
    };
    let decision = match serde_json::from_str::<PageAnswer>(&body) {
        Ok(answer) => answer.decision(),
        Err(e) => Err(e.to_string()),
    };
    let decision = match decision {
        Ok(decision) => decision,
        Err(problem) => return error(StatusCode::BAD_REQUEST, format!("not an answer: {problem}")),
    };
    match app.presence.answer(id, decision) {
        Ok(state) => reply(
            StatusCode::OK,
            serde_json::json!({"id": id, "state": state}),
        ),
        Err(e @ AnswerError::NotWaiting(_)) => error(StatusCode::NOT_FOUND, e.to_string()),
        Err(e) => error(StatusCode::BAD_REQUEST, e.to_string()),
    }
}

async fn events(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    // A reconnecting EventSource says what it saw last.
    let last = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let (backlog, receiver) = app.presence.subscribe_after(last);
    let stream = Stream {
        presence: app.presence.clone(),
        backlog: backlog.into(),
        receiver,
        shutdown: app.shutdown.clone(),
        last: 0,
        ended: false,
    };
    let sse = Sse::new(futures::stream::unfold(stream, Stream::next))
        .keep_alive(KeepAlive::new().interval(app.keep_alive));
    let mut response = sse.into_response();
    // Proxies that buffer would hold the events back.
    response.headers_mut().insert(
        HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    );
    response
}

/// One open `/events` stream.
struct Stream {
    presence: Presence,
    /// Frames to send before waiting for new ones.
    backlog: VecDeque<Frame>,
    receiver: broadcast::Receiver<Frame>,
    shutdown: CancellationToken,
    /// The highest `seq` sent (0: none yet).
    last: u64,
    ended: bool,
}

impl Stream {
    /// The next SSE event: the backlog first (frames from the hub's replay, consistent in
    /// themselves), then live frames not already sent.
    async fn next(mut self) -> Option<(Result<Event, Infallible>, Self)> {
        if self.ended {
            return None;
        }
        loop {
            if let Some(frame) = self.backlog.pop_front() {
                let event = self.event(frame);
                return Some((Ok(event), self));
            }
            tokio::select! {
                biased;
                () = self.shutdown.cancelled() => {
                    self.ended = true;
                    return Some((Ok(end("shutdown")), self));
                }
                received = self.receiver.recv() => match received {
                    // After a lag the channel repeats frames the catch-up sent: skip them.
                    Ok(frame) if frame.seq > self.last || matches!(frame.kind, FrameKind::End) => {
                        self.backlog.push_back(frame);
                    }
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Too slow for the live channel: catch up from the replay.
                        self.backlog.extend(self.presence.catch_up(self.last));
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
        }
    }

    /// The SSE event for `frame`.
    fn event(&mut self, frame: Frame) -> Event {
        self.last = self.last.max(frame.seq);
        match frame.kind {
            FrameKind::Tool(json) => Event::default()
                .id(frame.seq.to_string())
                .event("tool")
                .data(&*json),
            FrameKind::Approval(json) => Event::default()
                .id(frame.seq.to_string())
                .event("approval")
                .data(&*json),
            FrameKind::Reset => Event::default()
                .id(frame.seq.to_string())
                .event("reset")
                .data(format!("{{\"seq\":{}}}", frame.seq)),
            FrameKind::End => {
                self.ended = true;
                end("finished")
            }
        }
    }
}

/// The last event of a stream: `finished` (no more events will come) or `shutdown`.
fn end(reason: &str) -> Event {
    Event::default()
        .event("end")
        .data(format!("{{\"reason\":\"{reason}\"}}"))
}

/// Why presence could not be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PresenceError {
    /// The address is neither `HOST:PORT` nor a port number.
    #[error(
        "`{0}` is not an address to listen on: write HOST:PORT (e.g. 127.0.0.1:8800) or a port"
    )]
    Address(String),
    /// The socket could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// Serving failed.
    #[error("the presence server failed: {0}")]
    Io(#[from] std::io::Error),
    /// The server's task ended abnormally.
    #[error("the presence server stopped abnormally: {0}")]
    Task(#[from] tokio::task::JoinError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tool_core::context::{Approver, EventSink, ToolEvent};

    /// One HTTP/1.1 exchange on a connection of its own: its response, read as far as a test
    /// needs.
    struct Exchange {
        socket: tokio::net::TcpStream,
        text: Vec<u8>,
    }

    impl Exchange {
        async fn send(addr: SocketAddr, head: &str) -> Self {
            let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
            socket.write_all(head.as_bytes()).await.unwrap();
            Self {
                socket,
                text: Vec::new(),
            }
        }

        /// The response so far, once `until` appears in it (or at EOF).
        async fn until(&mut self, until: &str) -> String {
            let mut buf = [0u8; 4096];
            let read = async {
                while !String::from_utf8_lossy(&self.text).contains(until) {
                    let n = self.socket.read(&mut buf).await.unwrap();
                    if n == 0 {
                        break;
                    }
                    self.text.extend_from_slice(&buf[..n]);
                }
            };
            tokio::time::timeout(Duration::from_secs(10), read)
                .await
                .expect("the response comes");
            String::from_utf8_lossy(&self.text).into_owned()
        }
    }

    /// One raw HTTP/1.1 request; the response as text, read until `until` appears or EOF.
    async fn request(addr: SocketAddr, head: &str, until: &str) -> String {
        Exchange::send(addr, head).await.until(until).await
    }

    fn started(id: &str) -> ToolEvent {
        crate::lifecycle::started(id, "wait_duration", "Waiting")
    }

    #[tokio::test]
    async fn streams_replay_then_live_then_end() {
        let presence = Presence::new();
        presence.emit(&started("call_1"));
        let server = presence
            .start("127.0.0.1:0", PresenceOptions::default())
            .await
            .unwrap();
        let addr = server.local_addr();
        assert_eq!(server.url(), format!("http://{addr}/"));

        let page = request(
            addr,
            &format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
            "</html>",
        )
        .await;
        assert!(page.starts_with("HTTP/1.1 200"), "{page}");
        assert!(page.contains("content-security-policy: default-src 'none'"));
        assert!(page.contains("new EventSource"));

        let head = format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n");
        let mut live = Exchange::send(addr, &head).await;
        // The replay arrives first; then a live event; then the end.
        live.until("id: 1\n").await;
        presence.emit(&crate::lifecycle::ended("call_1", "wait_duration", || {
            Err(tool_core::ToolError::new(
                tool_core::error::ErrorKind::Timeout,
                "`wait_duration` did not finish in time",
            ))
        }));
        live.until("id: 2\n").await;
        server.shutdown().await.unwrap();
        let text = live.until("event: end").await;
        assert!(text.contains("content-type: text/event-stream"), "{text}");
        let first = text.find("id: 1\nevent: tool\ndata: {").expect(&text);
        let second = text.find("id: 2\nevent: tool\ndata: {").expect(&text);
        let end = text
            .find("event: end\ndata: {\"reason\":\"shutdown\"}")
            .expect(&text);
        assert!(first < second && second < end, "{text}");
        assert!(text.contains(r#""error_kind":"timeout""#), "{text}");
    }

    #[tokio::test]
    async fn a_finished_run_is_replayed_then_the_stream_ends() {
        let presence = Presence::new();
        presence.emit(&started("call_1"));
        let server = presence
            .start("127.0.0.1:0", PresenceOptions::default())
            .await
            .unwrap();
        let addr = server.local_addr();
        let head = format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n");
        let mut open = Exchange::send(addr, &head).await;
        // Open once its replay came.
        open.until("\"call_1\"").await;
        presence.finish();
        // An open stream ends (the chunked body's last chunk) ...
        let text = open.until("\r\n0\r\n\r\n").await;
        assert!(
            text.contains("event: end\ndata: {\"reason\":\"finished\"}"),
            "{text}"
        );
        // ... and a late one gets the cards, then the end, while the server keeps serving.
        let head = format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n");
        let text = request(addr, &head, "\r\n0\r\n\r\n").await;
        let card = text.find("\"call_1\"").expect(&text);
        let end = text.find("event: end").expect(&text);
        assert!(card < end, "{text}");
        server.shutdown().await.unwrap();
    }

    #[tokio::test]
    async fn a_reconnecting_page_gets_only_what_it_missed() {
        let presence = Presence::new();
        for i in 1..=3 {
            presence.emit(&started(&format!("call_{i}")));
        }
        let server = presence
            .start("127.0.0.1:0", PresenceOptions::default())
            .await
            .unwrap();
        let addr = server.local_addr();
        let text = request(
            addr,
            &format!("GET /events HTTP/1.1\r\nHost: {addr}\r\nLast-Event-ID: 2\r\n\r\n"),
            "\"call_3\"",
        )
        .await;
        assert!(!text.contains("\"call_2\""), "{text}");
        assert!(text.contains("id: 3\n"), "{text}");
        drop(server);
    }

    #[tokio::test]
    async fn foreign_hosts_and_origins_cannot_read() {
        let presence = Presence::new();
        presence.emit(&started("secret_call"));
        let server = presence
            .start("127.0.0.1:0", PresenceOptions::default())
            .await
            .unwrap();
        let addr = server.local_addr();
        for (head, status) in [
            (
                "GET /events HTTP/1.1\r\nHost: evil.example\r\n\r\n".to_owned(),
                "403",
            ),
            (
                format!(
                    "GET /events HTTP/1.1\r\nHost: {addr}\r\nOrigin: https://evil.example\r\n\r\n"
                ),
                "403",
            ),
            (
                format!("GET / HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://evil.example\r\n\r\n"),
                "403",
            ),
            ("GET /events HTTP/1.0\r\n\r\n".to_owned(), "400"),
        ] {
            let text = request(addr, &head, "\r\n\r\n").await;
            assert!(
                text.starts_with(&format!("HTTP/1.1 {status}"))
                    || text.starts_with(&format!("HTTP/1.0 {status}")),
                "{head:?} -> {text}"
            );
            assert!(!text.contains("secret_call"), "{text}");
        }
        server.shutdown().await.unwrap();
    }

    /// An answer's raw request: `POST /approvals/{id}` with `headers` and `body`.
    fn answer_request(addr: SocketAddr, id: &str, headers: &[(&str, &str)], body: &str) -> String {
        let mut head =
            format!("POST /approvals/{id} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        head
    }

    #[tokio::test]
    async fn only_the_page_with_its_secret_answers_a_waiting_call() {
        let presence = Presence::new();
        let server = presence
            .start("127.0.0.1:0", PresenceOptions::default())
            .await
            .unwrap();
        let addr = server.local_addr();
        let page = request(
            addr,
            &format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
            "</html>",
        )
        .await;
        let secret = page
            .split(r#"<meta name="presence-secret" content=""#)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("the page carries its secret")
            .to_owned();
        assert_eq!(secret.len(), 64, "{secret}");
        assert!(secret.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(!page.contains(SECRET_SLOT));

        let approver = crate::PresenceApprover::new(presence.clone());
        let ctx = tool_core::ToolContext::new();
        let arguments = serde_json::json!({"path": "notes.txt"});
        let request_ =
            tool_core::context::ApprovalRequest::new("delete_file", &arguments, "Delete?", &ctx);
        let asking = approver.approve(&request_);
        tokio::pin!(asking);
        assert!(
            tokio::time::timeout(Duration::from_millis(20), &mut asking)
                .await
                .is_err()
        );
        let id = presence.pending_approvals()[0].id.to_string();

        let origin = format!("http://{addr}");
        let json = ("Content-Type", "application/json");
        let deny = r#"{"decision": "deny", "reason": "not today"}"#;
        for (headers, body, status) in [
            // No secret, a wrong one, no Origin, a foreign Origin, another site.
            (vec![("Origin", origin.as_str()), json], deny, "403"),
            (
                vec![
                    ("Origin", origin.as_str()),
                    json,
                    ("X-Presence-Secret", "00"),
                ],
                deny,
                "403",
            ),
            (
                vec![json, ("X-Presence-Secret", secret.as_str())],
                deny,
                "403",
            ),
            (
                vec![
                    ("Origin", "http://evil.example"),
                    json,
                    ("X-Presence-Secret", secret.as_str()),
                ],
                deny,
                "403",
            ),
            (
                vec![
                    ("Origin", origin.as_str()),
                    ("Sec-Fetch-Site", "cross-site"),
                    json,
                    ("X-Presence-Secret", secret.as_str()),
                ],
                deny,
                "403",
            ),
            // Not JSON, or not an answer.
            (
                vec![
                    ("Origin", origin.as_str()),
                    ("Content-Type", "text/plain"),
                    ("X-Presence-Secret", secret.as_str()),
                ],
                deny,
                "415",
            ),
            (
                vec![
                    ("Origin", origin.as_str()),
                    json,
                    ("X-Presence-Secret", secret.as_str()),
                ],
                r#"{"decision": "yes"}"#,
                "400",
            ),
        ] {
            let text = request(addr, &answer_request(addr, &id, &headers, body), "\r\n\r\n").await;
            assert!(
                text.starts_with(&format!("HTTP/1.1 {status}")),
                "{headers:?} {body} -> {text}"
            );
        }
        assert_eq!(presence.pending_approvals().len(), 1, "still waiting");
        let get =
            format!("GET /approvals/{id} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        let text = request(addr, &get, "\r\n\r\n").await;
        assert!(text.starts_with("HTTP/1.1 405"), "{text}");

        // The page's own answer.
        let headers = [
            ("Origin", origin.as_str()),
            ("Sec-Fetch-Site", "same-origin"),
            json,
            ("X-Presence-Secret", secret.as_str()),
        ];
        let text = request(addr, &answer_request(addr, &id, &headers, deny), "}").await;
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        assert!(text.contains(r#""state":"denied""#), "{text}");
        assert_eq!(
            asking.await,
            tool_core::context::Decision::denied("not today".to_owned())
        );
        // Answered once: a second answer finds nothing waiting, nor does a made-up number.
        for id in [id.as_str(), "77", "x"] {
            let text = request(addr, &answer_request(addr, id, &headers, deny), "}").await;
            assert!(text.starts_with("HTTP/1.1 404"), "{text}");
        }
        // Another router has another secret.
        let other = presence.router(&PresenceOptions::default(), CancellationToken::new());
        drop(other);
        server.shutdown().await.unwrap();
    }

    #[tokio::test]
    async fn a_stream_that_lags_catches_up_from_the_replay_without_repeats() {
        let presence = Presence::new();
        let (backlog, receiver) = presence.subscribe_after(None);
        let stream = Stream {
            presence: presence.clone(),
            backlog: backlog.into(),
            receiver,
            shutdown: CancellationToken::new(),
            last: 0,
            ended: false,
        };
        // More than the live channel holds, while the stream is not read.
        for i in 0..1100 {
            presence.emit(&started(&format!("call_{i}")));
        }
        presence.finish();
        let mut seen = Vec::new();
        let mut next = stream.next().await;
        while let Some((_, stream)) = next {
            seen.push(stream.last);
            next = stream.next().await;
        }
        // A reset, the 256 events the replay keeps, in order, then the end.
        assert_eq!(seen.len(), 1 + 256 + 1, "{seen:?}");
        assert_eq!(seen[0], 0);
        let replayed: Vec<u64> = (845..=1100).collect();
        assert_eq!(seen[1..257], replayed[..]);
    }

    #[tokio::test]
    async fn addresses() {
        assert!(matches!(
            bind("nonsense").await,
            Err(PresenceError::Address(_))
        ));
        assert!(matches!(bind("").await, Err(PresenceError::Address(_))));
        let listener = bind("0").await.unwrap();
        assert!(listener.local_addr().unwrap().ip().is_loopback());
        assert!(matches!(
            bind("256.1.1.1:80").await,
            Err(PresenceError::Bind { .. })
        ));
    }
}
