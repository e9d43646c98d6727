//! The POSTs the Streamable HTTP endpoint answers itself, as the stdio transport answers its
//! calls: `tools/call` and `tools/list`, run by the same handler the SDK calls, with the context
//! the SDK would build, and answered with one JSON body (the specification lets a server answer
//! any request so), without the SDK's session worker, its per-request channel and SSE stream, or
//! (in 2026-07-28) the service it starts for each request. What makes it safe to skip them:
//!
//! - **Only what the SDK would accept.** A request is taken only when each check the SDK makes
//!   of it passes here (the media types; a session the endpoint knows, in the version it
//!   negotiated, kept when its `initialize` was answered; in 2026-07-28 the request's `_meta`,
//!   its version header and the standard headers `Mcp-Method` and `Mcp-Name`,
//!   [`modern_headers_agree`]). The body is read as the stdio transport reads a line (the
//!   JSON-RPC envelope, its members raw), and the params of a call or a listing with the SDK's
//!   own types. Anything else (a check that fails, a body of unknown length or over
//!   [`MAX_BODY`], a header in Base64, `Mcp-Param-*`) goes on to the SDK unchanged, which
//!   answers it, refusals included, as before.
//! - **Only where nothing else travels on the answer's stream.** A request with a
//!   `progressToken`, or (2026-07-28) a log level, gets its notifications on an SSE stream, and
//!   a session whose client declared sampling, elicitation or roots may be asked on the call's
//!   stream: those go to the SDK. Without them a call sends nothing but its answer (a
//!   session's log messages go to its GET stream either way, where the SDK sends them too).
//! - **Every request of a session is answered once.** The ids of a session's requests in
//!   progress are kept, those the SDK answers too, and a request that reuses one is refused at
//!   once ([`refuse_reused_id`]). The SDK routes each answer by its id: two requests with one
//!   id left one of them without an answer, for ever.
//!
//! A call's token is cancelled once it is answered, when the client goes before, when it sends
//! `notifications/cancelled` for it, or when the endpoint shuts down after its grace.

use std::sync::OnceLock;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse as _, Response};
use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientNotification, ErrorCode, ErrorData,
    JsonRpcMessage, JsonRpcResponse, JsonRpcVersion2_0, PaginatedRequestParams, RequestId,
    RequestMetaObject, ServerJsonRpcMessage,
};
use rmcp::service::{RequestContext, RunningService, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{Peer, RoleServer, ServerHandler as _};
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::http_sessions::IdClaim;
use super::request::{Asking, Era};
use super::result::write_call_answer;
use super::server::McpServer;
use super::stdio::calls::read_params;
use super::stdio::envelope::{self, Message};

/// The largest body read here: a call or a listing is far smaller. A larger one, or one of
/// unknown length, goes to the SDK unread, which applies its own limit.
pub(crate) const MAX_BODY: usize = 64 << 10;

// Header names made once, not parsed from a string at each lookup.
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const MCP_PARAM: &str = "mcp-param-";

/// What [`Direct::post`] did with a request.
pub(crate) enum Posted {
    /// Answered here.
    Answered(Response),
    /// The SDK's to answer: the request as it came (its body read back in), and the claim on
    /// its id, to hold until the SDK's answer is sent.
    ToSdk(Request, Option<IdClaim>),
}

/// The endpoint's own answers.
pub(crate) struct Direct {
    server: McpServer,
    stateless: bool,
    /// Cancelled when the endpoint's calls must end (after the shutdown's grace).
    shutdown: CancellationToken,
    /// A client handle for 2026-07-28 requests, which ask their client nothing through it
    /// (their questions go back in their answers): the SDK's context needs one. Made at the
    /// first such request, on the runtime.
    detached: OnceLock<RunningService<RoleServer, McpServer>>,
}

impl Direct {
    pub(crate) fn new(server: McpServer, stateless: bool, shutdown: CancellationToken) -> Self {
        Self {
            server,
            stateless,
            shutdown,
            detached: OnceLock::new(),
        }
    }

    /// Whether the endpoint is stateless (no sessions).
    pub(crate) fn stateless(&self) -> bool {
        self.stateless
    }

    /// Answers `request`, a POST to the endpoint, if it is one of those this module takes;
    /// otherwise hands it back for the SDK.
    pub(crate) async fn post(&self, request: Request) -> Posted {
        let headers = request.headers();
        let small = content_length(headers).is_some_and(|len| len <= MAX_BODY);
        if !small || !media_types_accepted(headers) {
            return Posted::ToSdk(request, None);
        }
        // A session this endpoint has not seen begin (or that has ended) is the SDK's: it
        // answers 404, or restores it.
        let session = match (self.stateless, header_str(headers, &SESSION_ID)) {
            (false, Some(Some(id))) => match self.server.http_session(id) {
                Some(session) => Some(session),
                None => return Posted::ToSdk(request, None),
            },
            (_, Some(None)) => return Posted::ToSdk(request, None),
            _ => None,
        };
        let (parts, body) = request.into_parts();
        let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
            Ok(bytes) => bytes,
            Err(error) => {
                let message = format!("the request body could not be read: {error}");
                return Posted::Answered((StatusCode::BAD_REQUEST, message).into_response());
            }
        };
        let back = |parts, bytes: Bytes| Request::from_parts(parts, Body::from(bytes));
        // The stdio transport's reading of a JSON-RPC message, which decodes no more than the
        // envelope; the params of a call or a listing are then read with the SDK's types.
        let (id, method, params) = match envelope::read(&bytes) {
            Message::Request(request) => (request.id, request.method, request.params),
            Message::Notification { method } => {
                if method == "notifications/cancelled"
                    && let Some(session) = &session
                {
                    cancel(session, &bytes);
                }
                return Posted::ToSdk(back(parts, bytes), None);
            }
            _ => return Posted::ToSdk(back(parts, bytes), None),
        };
        let mut request = match &*method {
            "tools/call" => match read_params::<CallToolRequestParams>(params, &method) {
                Ok(Some(params)) => Taken::Call(params),
                _ => Taken::Other(params),
            },
            "tools/list" => match read_params::<PaginatedRequestParams>(params, &method) {
                Ok(params) => Taken::List(params.unwrap_or_default()),
                Err(_) => Taken::Other(params),
            },
            _ => Taken::Other(params),
        };
        let meta = request.take_meta();
        let asking = Asking::read(&meta);
        let modern = asking.version.is_some();
        // A session's request (the SDK reads one without a version of its own as the
        // session's) holds its id until it is answered, whoever answers it.
        let taken = !matches!(request, Taken::Other(_));
        let (session, claim) = match session {
            Some(session) if !modern => {
                // The token that cancels a call run here; the SDK cancels its own.
                let token = taken.then(CancellationToken::new);
                match session.claim_request_id(&id, token.clone()) {
                    Some(claim) => (Some((session, token)), Some(claim)),
                    None => return Posted::Answered(refuse_reused_id(&id)),
                }
            }
            _ => (None, None),
        };
        let route = match &session {
            _ if !taken => None,
            Some((session, Some(token))) => {
                self.in_session(session, &parts.headers, &asking, token)
            }
            Some((_, None)) => None,
            None => self.modern(&parts.headers, &asking, &request),
        };
        let Some((server, peer, era, token)) = route else {
            return Posted::ToSdk(back(parts, bytes), claim);
        };
        // Cancelled once answered, or if the client goes before (the answer is then dropped).
        let _answered = token.clone().drop_guard();
        let mut cx = RequestContext::new(id.clone(), peer);
        cx.meta = meta;
        cx.ct = token.clone();
        cx.extensions.insert(parts);
        let answered = match request {
            Taken::Call(params) => {
                // Boxed: the call's future is most of this one's size, and every future that
                // holds it (up to the one axum boxes for each request) would be copied whole.
                let call = Box::pin(call_answer(&server, params, cx, era));
                until_shutdown(call, &token, &self.shutdown).await
            }
            Taken::List(params) => list_answer(&server, params.cursor.as_deref(), &cx, era),
            // `route` takes only the two.
            Taken::Other(_) => Err(ErrorData::internal_error("not a call or a listing", None)),
        };
        drop(claim);
        Posted::Answered(match answered {
            Ok((status, body)) => json_response(status, body),
            Err(error) => {
                let status = error_status(era, error.code);
                let message = ServerJsonRpcMessage::error(error, Some(id));
                json_response(status, serde_json::to_vec(&message).unwrap_or_default())
            }
        })
    }

    /// Who answers a session-era request of `session` made with `headers` by whom `asking`
    /// says, if this module does: the connection, its client, and the call's token.
    fn in_session(
        &self,
        session: &McpServer,
        headers: &HeaderMap,
        asking: &Asking<'_>,
        token: &CancellationToken,
    ) -> Option<(McpServer, Peer<RoleServer>, Era, CancellationToken)> {
        let (peer, initialized) = session.session_peer()?;
        let info = peer.peer_info()?;
        // The version the session negotiated, the one the SDK checks the header against.
        let version = match header_str(headers, &PROTOCOL_VERSION) {
            None => true,
            Some(Some(version)) => version == info.protocol_version.as_str(),
            Some(None) => false,
        };
        let capabilities = &info.capabilities;
        let may_be_asked = capabilities.sampling.is_some()
            || capabilities.elicitation.is_some()
            || capabilities.roots.is_some();
        let takes = initialized
            && version
            && !may_be_asked
            && asking.progress.is_none()
            && asking.era(true, &session.supported_protocol_versions()) == Ok(Era::Session);
        takes.then(|| (session.clone(), peer, Era::Session, token.clone()))
    }

    /// Who answers a 2026-07-28 request, if this module does: a connection of its own, as the
    /// SDK gives each, and the detached client.
    fn modern(
        &self,
        headers: &HeaderMap,
        asking: &Asking<'_>,
        request: &Taken<'_>,
    ) -> Option<(McpServer, Peer<RoleServer>, Era, CancellationToken)> {
        let version = asking.version.as_ref()?;
        let (method, name) = match request {
            Taken::Call(params) => ("tools/call", Some(&*params.name)),
            Taken::List(_) => ("tools/list", None),
            Taken::Other(_) => return None,
        };
        let server = &self.server;
        let takes = header_str(headers, &PROTOCOL_VERSION) == Some(Some(version.as_str()))
            && asking.era(false, &server.supported_protocol_versions()) == Ok(Era::Modern)
            && asking.progress.is_none()
            && asking.log_level.is_none()
            && modern_headers_agree(headers, method, name)
            && name.is_none_or(|name| server.get_tool(name).is_none());
        if !takes {
            return None;
        }
        let peer = self.detached()?;
        Some((
            server.connection(),
            peer,
            Era::Modern,
            CancellationToken::new(),
        ))
    }

    fn detached(&self) -> Option<Peer<RoleServer>> {
        if let Some(service) = self.detached.get() {
            return Some(service.peer().clone());
        }
        let service = rmcp::service::serve_directly(self.server.connection(), Detached, None);
        let peer = service.peer().clone();
        // Two first requests at once: one service is kept, the other ends.
        let _ = self.detached.set(service);
        Some(peer)
    }
}

/// A request, as far as this module reads it.
enum Taken<'a> {
    /// A `tools/call`, its params read.
    Call(CallToolRequestParams),
    /// A `tools/list`, its params read.
    List(PaginatedRequestParams),
    /// Anything else (or a call whose params the SDK is to refuse), its params raw.
    Other(Option<&'a RawValue>),
}

impl Taken<'_> {
    /// The request's `_meta`, taken out of its params; for another method, read from its
    /// params alone (a `_meta` that is not an object reads as none).
    fn take_meta(&mut self) -> RequestMetaObject {
        #[derive(serde::Deserialize)]
        struct MetaOnly {
            #[serde(rename = "_meta", default)]
            meta: Option<RequestMetaObject>,
        }
        match self {
            Taken::Call(params) => params.meta.take().unwrap_or_default(),
            Taken::List(params) => params.meta.take().unwrap_or_default(),
            Taken::Other(params) => params
                .and_then(|p| serde_json::from_str::<MetaOnly>(p.get()).ok())
                .and_then(|m| m.meta)
                .unwrap_or_default(),
        }
    }
}

/// Runs `call`, cancelling `token` when `shutdown` is cancelled before it ends. A call that
/// ends on its first poll (most do) never waits on `shutdown`: a child token of it, or a
/// waiter, would take its one lock twice for every request of every client.
async fn until_shutdown<F: Future + Unpin>(
    mut call: F,
    token: &CancellationToken,
    shutdown: &CancellationToken,
) -> F::Output {
    if shutdown.is_cancelled() {
        token.cancel();
    }
    let first =
        std::future::poll_fn(|cx| std::task::Poll::Ready(std::pin::Pin::new(&mut call).poll(cx)))
            .await;
    if let std::task::Poll::Ready(answer) = first {
        return answer;
    }
    tokio::select! {
        biased;
        answer = &mut call => answer,
        () = shutdown.cancelled() => {
            token.cancel();
            call.await
        }
    }
}

/// `notifications/cancelled` in `session`: a call this module runs for it stops.
fn cancel(session: &McpServer, bytes: &[u8]) {
    if let Ok(JsonRpcMessage::Notification(notification)) =
        serde_json::from_slice::<ClientJsonRpcMessage>(bytes)
        && let ClientNotification::CancelledNotification(cancelled) = &notification.notification
        && let Some(id) = &cancelled.params.request_id
    {
        session.cancel_request(id);
    }
}

async fn call_answer(
    server: &McpServer,
    params: CallToolRequestParams,
    cx: RequestContext<RoleServer>,
    era: Era,
) -> Result<(StatusCode, Vec<u8>), ErrorData> {
    let id = cx.id.clone();
    let modern = (era == Era::Modern).then(|| server.server_info().clone());
    let result = server.call(params, cx, era).await;
    let status = match &result {
        Err(error) => error_status(era, error.code),
        Ok(_) => StatusCode::OK,
    };
    let mut body = Vec::with_capacity(256);
    write_call_answer(&mut body, result, &id, modern.as_deref())
        .map_err(|e| ErrorData::internal_error(format!("writing the answer: {e}"), None))?;
    Ok((status, body))
}

fn list_answer(
    server: &McpServer,
    cursor: Option<&str>,
    cx: &RequestContext<RoleServer>,
    era: Era,
) -> Result<(StatusCode, Vec<u8>), ErrorData> {
    let page = server.http_list_page(cx, cursor, era)?;
    let answer = JsonRpcResponse {
        jsonrpc: JsonRpcVersion2_0,
        id: cx.id.clone(),
        result: page,
    };
    serde_json::to_vec(&answer)
        .map(|body| (StatusCode::OK, body))
        .map_err(|e| ErrorData::internal_error(format!("writing the answer: {e}"), None))
}

/// The HTTP status of an error answer, as the SDK gives it: a session-era error is 200; a
/// 2026-07-28 one that says the request itself was wrong is 400 (or 404 for a method the
/// server does not have).
fn error_status(era: Era, code: ErrorCode) -> StatusCode {
    match (era, code) {
        (Era::Session, _) => StatusCode::OK,
        (
            _,
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::HEADER_MISMATCH,
        ) => StatusCode::BAD_REQUEST,
        (_, ErrorCode::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// The answer to a request that reuses the id of one in progress in its session: -32600 with
/// `"id": null` (the id is the other request's, whose answer is still to come), and 400.
pub(crate) fn refuse_reused_id(id: &RequestId) -> Response {
    let message = format!(
        "Invalid Request: the id {} is that of a request of this session still in progress; \
         an id is used once in a session",
        serde_json::to_string(id).unwrap_or_default()
    );
    let error = ServerJsonRpcMessage::error(
        ErrorData::new(ErrorCode::INVALID_REQUEST, message, None),
        None,
    );
    let body = serde_json::to_vec(&error).unwrap_or_default();
    json_response(StatusCode::BAD_REQUEST, body)
}

fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The length the request declares.
fn content_length(headers: &HeaderMap) -> Option<usize> {
    header_str(headers, &header::CONTENT_LENGTH)??.parse().ok()
}

/// The POST says it is JSON and accepts both JSON and SSE, as the SDK requires.
fn media_types_accepted(headers: &HeaderMap) -> bool {
    // A media type's essence (before any parameter) is case-insensitive.
    let is = |v: &str, essence: &str| {
        let v = v.split_once(';').map_or(v, |(v, _)| v);
        v.trim().eq_ignore_ascii_case(essence)
    };
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| is(v, "application/json"));
    let (mut accepts_json, mut accepts_sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            accepts_json |= is(item, "application/json");
            accepts_sse |= is(item, "text/event-stream");
        }
    }
    json && accepts_json && accepts_sse
}

/// The one value of header `name`: `None` if absent, `Some(None)` if it is there twice or is
/// not visible ASCII.
fn header_str<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<Option<&'a str>> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    if values.next().is_some() {
        return Some(None);
    }
    Some(first.to_str().ok())
}

/// The standard headers of a 2026-07-28 request (SEP-2243) agree with its body, in their
/// plain form: `Mcp-Method` is the method, a call's `Mcp-Name` its tool, and no `Mcp-Param-*`
/// is sent (the tool must declare none, checked by the caller). A header in its Base64 form,
/// or anything else, is the SDK's to check.
fn modern_headers_agree(headers: &HeaderMap, method: &str, name: Option<&str>) -> bool {
    if header_str(headers, &MCP_METHOD) != Some(Some(method)) {
        return false;
    }
    let named = match name {
        Some(name) => !name.starts_with("=?") && header_str(headers, &MCP_NAME) == Some(Some(name)),
        None => true,
    };
    named
        && !headers
            .keys()
            .any(|key| key.as_str().starts_with(MCP_PARAM))
}

/// A transport that carries nothing: what the detached client is served on. Nothing arrives,
/// and whatever is sent fails at once.
struct Detached;

impl Transport<RoleServer> for Detached {
    type Error = std::io::Error;

    fn send(
        &mut self,
        _item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        std::future::ready(Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "a 2026-07-28 request reaches its client through its answer only",
        )))
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        std::future::pending()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        headers
    }

    #[test]
    fn media_types_must_be_json_in_and_both_out() {
        let ok = headers(&[
            ("content-type", "application/json; charset=utf-8"),
            ("accept", "application/json, text/event-stream"),
        ]);
        assert!(media_types_accepted(&ok));
        let split = headers(&[
            ("content-type", "Application/JSON"),
            ("accept", "text/event-stream"),
            ("accept", "application/json;q=0.9"),
        ]);
        assert!(media_types_accepted(&split));
        let json_only = headers(&[
            ("content-type", "application/json"),
            ("accept", "application/json"),
        ]);
        assert!(!media_types_accepted(&json_only));
        let text = headers(&[
            ("content-type", "text/plain"),
            ("accept", "application/json, text/event-stream"),
        ]);
        assert!(!media_types_accepted(&text));
    }

    #[test]
    fn standard_headers_are_taken_only_in_their_plain_agreeing_form() {
        let call = |extra: &[(&str, &str)]| {
            let mut pairs = vec![("mcp-method", "tools/call"), ("mcp-name", "add")];
            pairs.extend_from_slice(extra);
            modern_headers_agree(&headers(&pairs), "tools/call", Some("add"))
        };
        assert!(call(&[]));
        assert!(!call(&[("mcp-param-region", "eu")]));
        assert!(!call(&[("mcp-name", "add")]), "twice");
        let base64 = headers(&[
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?YWRk?="),
        ]);
        assert!(!modern_headers_agree(&base64, "tools/call", Some("add")));
        let other = headers(&[("mcp-method", "tools/list"), ("mcp-name", "add")]);
        assert!(!modern_headers_agree(&other, "tools/call", Some("add")));
        let list = headers(&[("mcp-method", "tools/list")]);
        assert!(modern_headers_agree(&list, "tools/list", None));
        assert!(!modern_headers_agree(&HeaderMap::new(), "tools/list", None));
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_still_running_at_shutdown_is_cancelled_and_answered() {
        let shutdown = CancellationToken::new();
        let token = CancellationToken::new();
        let call = {
            let token = token.clone();
            async move {
                token.cancelled().await;
                "cancelled"
            }
        };
        let stop = {
            let shutdown = shutdown.clone();
            async move {
                tokio::task::yield_now().await;
                shutdown.cancel();
            }
        };
        let (answer, ()) = tokio::join!(until_shutdown(Box::pin(call), &token, &shutdown), stop);
        assert_eq!(answer, "cancelled");
        // A call that begins after the shutdown is cancelled from the start.
        let late = CancellationToken::new();
        let seen = until_shutdown(Box::pin(async { late.is_cancelled() }), &late, &shutdown).await;
        assert!(seen);
        // One that ends on its first poll is not.
        let quick = CancellationToken::new();
        let running = CancellationToken::new();
        let first_poll = Box::pin(async { quick.is_cancelled() });
        assert!(!until_shutdown(first_poll, &quick, &running).await);
    }

    #[test]
    fn a_reused_id_is_refused_with_a_null_id() {
        let response = refuse_reused_id(&RequestId::Number(3));
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn error_statuses_follow_the_era() {
        assert_eq!(
            error_status(Era::Session, ErrorCode::METHOD_NOT_FOUND),
            StatusCode::OK
        );
        assert_eq!(
            error_status(Era::Modern, ErrorCode::METHOD_NOT_FOUND),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            error_status(Era::Modern, ErrorCode::INVALID_PARAMS),
            StatusCode::OK
        );
    }
}
