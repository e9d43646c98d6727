//! Putting an [`McpServer`] on Streamable HTTP (sessions or stateless), with the security a
//! server reachable over a network needs.

use std::future::IntoFuture as _;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use tool_endpoint::Guard;

use super::direct::{Direct, Posted, SESSION_ID};
use super::drain::{InFlight, stopping};
use super::error::ServeError;
use super::http_sessions::{Begun, IdClaim};
use super::server::McpServer;

/// How the Streamable HTTP endpoint is exposed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The endpoint's path. Default `/mcp`.
    pub path: String,
    /// No sessions: every request stands alone, so any instance behind a load balancer can
    /// answer it, but nothing carries a request from the server to the client: a tool's
    /// [`McpPeer::sample`](super::McpPeer::sample) and [`McpPeer::elicit`](super::McpPeer::elicit)
    /// fail at once. Default false (sessions, `Mcp-Session-Id`).
    pub stateless: bool,
    /// `Host` header values accepted (DNS-rebinding protection). Default: loopback names only.
    /// An empty list accepts any `Host`: only for servers behind a proxy that checks it.
    pub allowed_hosts: Vec<String>,
    /// Browser `Origin`s accepted (`scheme://host:port`, `:*` for any port; without a port, the
    /// scheme's default one); a request with any other `Origin`, `null` among them, is refused
    /// with 403. Requests without an `Origin` (not from a browser) pass. Default: loopback
    /// origins. The same rules as presence's page (`tool_endpoint::Guard`).
    pub allowed_origins: Vec<String>,
    /// When set, every request must carry `Authorization: Bearer <token>` (else 401). The header
    /// is then the server's, so it is not passed on to tools. Ignored, with a warning, when
    /// `oauth` (feature `oauth`) is set: OAuth takes precedence.
    pub bearer_token: Option<String>,
    /// When set (feature `oauth`), the endpoint is an OAuth 2.1 resource server: every request
    /// needs a valid access token, the protected resource metadata is served beside the
    /// endpoint, and each call's context holds the caller's
    /// [`Principal`](tool_core::context::Principal). See [`oauth`](crate::oauth).
    #[cfg(feature = "oauth")]
    pub oauth: Option<Arc<crate::oauth::OAuth>>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".to_owned(),
            stateless: false,
            allowed_hosts: tool_endpoint::loopback_hosts(),
            allowed_origins: tool_endpoint::loopback_origins(),
            bearer_token: None,
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }
}

impl HttpOptions {
    /// These options with the endpoint behind OAuth (see [`oauth`](Self::oauth)).
    #[cfg(feature = "oauth")]
    pub fn with_oauth(mut self, oauth: Arc<crate::oauth::OAuth>) -> Self {
        self.oauth = Some(oauth);
        self
    }
}

/// An axum router serving `server` at `options.path`, to mount in an application of your own.
/// Cancelling `shutdown` ends its open streams (SSE and `subscriptions/listen`), so a graceful
/// shutdown of the HTTP server does not wait on clients that keep a stream open.
pub fn http_router(
    server: McpServer,
    options: &HttpOptions,
    shutdown: CancellationToken,
) -> axum::Router {
    router(server, options, shutdown, None)
}

/// The router of [`http_router`], its POSTs counted in `flight` when given.
fn router(
    server: McpServer,
    options: &HttpOptions,
    shutdown: CancellationToken,
    flight: Option<Arc<InFlight>>,
) -> axum::Router {
    // The Host and Origin rules are tool-endpoint's, the same as every endpoint's here (see
    // `Guard`), in front of the SDK's service rather than the SDK's own.
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown.clone())
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_legacy_session_mode(!options.stateless)
        .with_json_response(options.stateless);
    #[cfg(feature = "oauth")]
    let max_body = config.max_request_body_bytes;
    #[cfg(feature = "oauth")]
    let gated = server.clone();
    let direct = Direct::new(server.clone(), options.stateless, shutdown.clone());
    let factory = move || Ok(server.connection());
    let sessions = Arc::new(LocalSessionManager::default());
    #[cfg(feature = "oauth")]
    let owners =
        (!options.stateless).then(|| Arc::new(crate::oauth::SessionOwners::new(sessions.clone())));
    #[cfg(feature = "oauth")]
    let oauth = options.oauth.clone();
    #[cfg(not(feature = "oauth"))]
    let oauth: Option<()> = None;
    if oauth.is_some() && options.bearer_token.is_some() {
        tracing::warn!("both a static bearer token and OAuth are set: OAuth is used");
    }
    let checks = Checks {
        guard: Guard::new(&options.allowed_hosts, &options.allowed_origins),
        bearer: match (&oauth, &options.bearer_token) {
            (None, Some(token)) => Some(digest(token.as_bytes())),
            _ => None,
        },
        flight,
    };
    let endpoint = if options.stateless {
        endpoint(
            factory,
            Arc::new(NeverSessionManager::default()),
            config,
            direct,
            checks,
        )
    } else {
        endpoint(factory, sessions, config, direct, checks)
    };
    let router = axum::Router::new().route(&options.path, endpoint);
    #[cfg(feature = "oauth")]
    if let Some(oauth) = oauth {
        let metadata = oauth.metadata_router_for(&options.path, Some(gated.clone()));
        let gate = crate::oauth::Gate {
            oauth,
            server: gated,
            max_body,
            owners,
        };
        let router = router.layer(axum::middleware::from_fn_with_state(
            gate,
            crate::oauth::require_token_for_tools,
        ));
        return router.merge(metadata);
    }
    router
}

/// Serves `server` over Streamable HTTP on `listener` until `shutdown` is cancelled, with
/// TCP_NODELAY on every connection (mount [`http_router`] yourself and you should set it too).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use tool_core::exec::Executor;
/// use tool_mcp::{HttpOptions, McpServer, serve_http};
/// let server = McpServer::new(Executor::new(tool_core::Registry::linked()?));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// serve_http(server, listener, &HttpOptions::default(), Default::default()).await?;
/// # Ok(()) }
/// ```
///
/// A `tools/call` or `tools/list` that needs no stream (no progress token; no log level in
/// 2026-07-28; in a session, a client that can be asked nothing) is answered with one JSON
/// body; the rest goes through the SDK's service. A request that reuses the id of a request of
/// its session still in progress is refused at once (400, -32600, `"id": null`): every
/// request gets one answer.
///
/// When `shutdown` is cancelled (`toolctl` cancels it on SIGTERM and SIGINT), the listener
/// closes at once (new connections are refused, so a load balancer sends them elsewhere); the
/// calls in flight, with sessions or stateless, have
/// [`ServerOptions::shutdown_grace`](super::ServerOptions::shutdown_grace) (default 5 s, as
/// over stdio) to finish and are answered; then sessions and open streams end. Last, the tasks
/// still running here (feature `tasks`) have the same grace to finish before they go to other
/// instances ([`McpServer::stop_tasks`]), and the function returns.
pub async fn serve_http(
    server: McpServer,
    listener: tokio::net::TcpListener,
    options: &HttpOptions,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    // How long the connections that are left may take to close once everything has ended.
    const LAST_ANSWERS: Duration = Duration::from_secs(1);
    let grace = server.options().shutdown_grace;
    // Ends rmcp's sessions and streams, and with them any handler still running: only once
    // the calls in flight have had their grace.
    let streams = CancellationToken::new();
    let flight = Arc::new(InFlight::default());
    let stopping = server.clone();
    let router = router(server, options, streams.clone(), Some(flight.clone()));
    let serving = axum::serve(tool_endpoint::nodelay(listener), router)
        .with_graceful_shutdown(shutdown.clone().cancelled_owned())
        .into_future();
    let stopped = async move {
        shutdown.cancelled().await;
        if !flight.close_within(grace).await {
            tracing::warn!("the grace period is over: ending the calls still running");
        }
        streams.cancel();
        tokio::time::sleep(LAST_ANSWERS).await;
    };
    let served = tokio::select! {
        served = serving => served,
        () = stopped => {
            tracing::warn!("connections still open after the shutdown were closed");
            Ok(())
        }
    };
    // The server may have ended before the calls' grace (axum ends once no connection is
    // open): the tasks running here still get theirs.
    stopping.stop_tasks(grace).await;
    Ok(served?)
}

/// rmcp's Streamable HTTP service, the session manager it keeps its sessions in, the
/// endpoint's own answers, and what every request passes first.
struct Endpoint<M> {
    service: StreamableHttpService<McpServer, M>,
    sessions: Arc<M>,
    direct: Direct,
    checks: Checks,
}

/// What a request meets before anything answers it, in this order: the count of POSTs in
/// flight (a POST once the server is stopping is refused), the static bearer token, the Host
/// and Origin guard. One handler checks them all rather than a middleware each: each axum
/// layer clones its inner service and boxes a future for every request, which the HTTP
/// profile showed (docs/benchmarks.md).
struct Checks {
    guard: Guard,
    /// The digest of the static bearer token, when one is required.
    bearer: Option<[u8; 32]>,
    /// The POSTs in flight, counted when [`serve_http`] serves the router.
    flight: Option<Arc<InFlight>>,
}

/// The MCP endpoint: the calls and listings [`Direct`] answers itself, and rmcp's service for
/// the rest, with the two answers it gives otherwise than the specification and the official
/// SDKs mended on the way out ([`answer_post`], [`end_session`]). Every method is routed, so
/// axum adds no `Allow` header of its own.
fn endpoint<M: SessionManager>(
    factory: impl Fn() -> Result<McpServer, std::io::Error> + Send + Sync + 'static,
    sessions: Arc<M>,
    config: StreamableHttpServerConfig,
    direct: Direct,
    checks: Checks,
) -> MethodRouter {
    let service = StreamableHttpService::new(factory, sessions.clone(), config);
    let state = Arc::new(Endpoint {
        service,
        sessions,
        direct,
        checks,
    });
    axum::routing::any(answer::<M>).with_state(state)
}

/// Any request to the endpoint: counted if a POST, checked ([`Checks`]), then answered.
async fn answer<M: SessionManager>(
    State(endpoint): State<Arc<Endpoint<M>>>,
    mut request: Request,
) -> Response {
    let checks = &endpoint.checks;
    let counted = match &checks.flight {
        Some(flight) if request.method() == Method::POST => match flight.enter() {
            Some(counted) => Some(counted),
            None => return stopping(),
        },
        _ => None,
    };
    if let Some(token) = &checks.bearer {
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer);
        // Digests of equal length, compared without stopping early: the time says nothing
        // about the token, not even its length.
        if !presented.is_some_and(|p| same(&digest(p.as_bytes()), token)) {
            return unauthorized();
        }
        // The header is the server's: it is not passed on to tools.
        request.headers_mut().remove(header::AUTHORIZATION);
    }
    if let Some(refused) = checks.guard.refuse(&request) {
        return refused;
    }
    let response = match *request.method() {
        Method::POST => answer_post(&endpoint, request).await,
        Method::DELETE => end_session(&endpoint, request).await,
        // The SDK's futures are boxed, here and below: held inline, they would make the future
        // of every request (those answered in `direct` too) several times larger, and it is
        // moved whole on its way to hyper.
        _ => Box::pin(endpoint.service.handle(request))
            .await
            .map(Body::new),
    };
    match counted {
        Some(counted) => crate::drain::counted(response, counted),
        None => response,
    }
}

/// A POST, as rmcp answers it, but for a body that is not one JSON-RPC message: rmcp answers
/// 415 as if the media type were wrong; the SDKs' servers answer 400 with a JSON-RPC parse
/// error, which tells the client what is wrong.
async fn answer_post<M: SessionManager>(endpoint: &Endpoint<M>, request: Request) -> Response {
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split_once(';').map_or(v, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        });
    // A call's tool may end its SSE stream (`CallStream::close`): the switch rides in the
    // request's extensions to the call's context, and on the response's body.
    let cut = crate::stream::StreamCut::default();
    let in_session = request.headers().contains_key(&SESSION_ID);
    let mut request = request;
    request.extensions_mut().insert(cut.clone());
    // A POST without a session id may begin one (`initialize`): the handler says on which
    // connection, and the session is kept under its id before the client has the answer.
    let begun = (!in_session && !endpoint.direct.stateless()).then(Begun::<McpServer>::default);
    if let Some(begun) = &begun {
        request.extensions_mut().insert(begun.clone());
    }
    let (request, claim) = match endpoint.direct.post(request).await {
        Posted::Answered(response) => return response,
        Posted::ToSdk(request, claim) => (request, claim),
    };
    let response = Box::pin(endpoint.service.handle(request)).await;
    if let (Some(connection), Some(id)) = (
        begun.as_ref().and_then(Begun::get),
        response
            .headers()
            .get(&SESSION_ID)
            .and_then(|id| id.to_str().ok()),
    ) {
        connection.keep_http_session(id);
    }
    // The request's id stays in use in its session until its answer is sent.
    let response = match claim {
        Some(claim) => response.map(|body| {
            Body::new(Claimed {
                inner: body,
                _claim: claim,
            })
        }),
        None => response.map(Body::new),
    };
    if json && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        let error = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {
            "code": -32700, "message": "Parse error: the body is not one JSON-RPC message"}});
        let content_type = [(header::CONTENT_TYPE, "application/json")];
        return (StatusCode::BAD_REQUEST, content_type, error.to_string()).into_response();
    }
    let sse = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    // Only a session keeps a stream's events for a client that reconnects.
    if sse && in_session {
        cut.arm();
        return response.map(|body| {
            Body::new(CutBody {
                inner: body,
                cut,
                sent: false,
            })
        });
    }
    response
}

/// A body that holds its request's id in use in the session until it is sent (or dropped).
struct Claimed<B> {
    inner: B,
    _claim: IdClaim,
}

impl<B> http_body::Body for Claimed<B>
where
    B: http_body::Body<Data = axum::body::Bytes> + Unpin,
{
    type Data = axum::body::Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// An SSE body that ends when its call's tool cuts it, after at least the first event (the
/// priming event, whose id the client resumes from).
struct CutBody {
    inner: Body,
    cut: crate::stream::StreamCut,
    sent: bool,
}

impl http_body::Body for CutBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        if this.sent && this.cut.is_cut() {
            return std::task::Poll::Ready(None);
        }
        this.cut.register(cx.waker());
        let polled = std::pin::Pin::new(&mut this.inner).poll_frame(cx);
        if let std::task::Poll::Ready(Some(Ok(_))) = &polled {
            this.sent = true;
        }
        polled
    }
}

/// A `DELETE` that ends a session, answered as the official SDKs' clients expect. rmcp answers
/// 202 whether it ended the session or never had it; the SDKs' own servers answer 200, the
/// Python client logs "Session termination failed" for anything but 200 or 204, and a session
/// that is not there is 404 like for any other request. Everything else (the Host, Origin and
/// protocol-version checks, a missing session id, 405 when stateless) is rmcp's, answered as
/// it answers it.
async fn end_session<M: SessionManager>(endpoint: &Endpoint<M>, request: Request) -> Response {
    let id = request
        .headers()
        .get(&SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(|id| id.into());
    let known = match &id {
        Some(id) => endpoint.sessions.has_session(id).await.unwrap_or(false),
        None => true,
    };
    let response = Box::pin(endpoint.service.handle(request)).await;
    match response.status() {
        StatusCode::ACCEPTED if known => StatusCode::OK.into_response(),
        StatusCode::ACCEPTED => {
            (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
        }
        _ => response.map(Body::new),
    }
}

/// The answer to a request without the server's bearer token.
fn unauthorized() -> Response {
    let mut response = (
        StatusCode::UNAUTHORIZED,
        "this MCP server needs `Authorization: Bearer <token>`",
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// The credentials of a `Bearer` authorization (the scheme is case-insensitive, RFC 7235).
fn bearer(value: &str) -> Option<&str> {
    let (scheme, credentials) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| credentials.trim())
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).into()
}

fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::{bearer, digest, same};

    #[test]
    fn token_comparison() {
        let secret = digest(b"secret");
        assert!(same(&digest(b"secret"), &secret));
        assert!(!same(&digest(b"secreT"), &secret));
        assert!(!same(&digest(b"secret2"), &secret));
    }

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("BEARER abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer"), None);
    }
}
