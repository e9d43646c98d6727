//! The gate in front of the endpoint: every request's bearer token checked, the caller handed
//! on as a [`Principal`] in the request's extensions, the token kept from the tools.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{Method, StatusCode, header};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use rmcp::transport::streamable_http_server::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tool_core::context::Principal;

use super::challenge::refusal;
use super::error::AuthError;
use super::validate::OAuth;
use crate::server::{Identity, ListAllTools, McpServer, identity};
use crate::sync::lock;

impl OAuth {
    /// The response refusing a request for `error`: 401 or 403, with the `WWW-Authenticate`
    /// challenge the MCP authorization specification gives (`resource_metadata`, and `error`,
    /// `scope`, `error_description` as they apply) and a JSON body saying the same.
    pub fn refusal(&self, error: &AuthError) -> Response {
        refusal(error, self.metadata_url(), self.config().required_scopes())
    }

    /// The caller a request's `Authorization` header stands for: one bearer token, valid,
    /// with the server's required scopes.
    pub async fn authenticate(&self, headers: &http::HeaderMap) -> Result<Principal, AuthError> {
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return Err(match headers.contains_key(header::AUTHORIZATION) {
                true => AuthError::Malformed("there is more than one Authorization header"),
                false => AuthError::Missing,
            });
        };
        let value = value
            .to_str()
            .map_err(|_| AuthError::Malformed("it is not ASCII"))?;
        let token = bearer_token(value)?;
        self.authorize(token).await
    }

    /// `router` with every request's token checked ([`require_token`]) and the caller in its
    /// extensions. The router [`http_router`](crate::http_router) makes does this and more:
    /// it also refuses, with 403, a `tools/call` for a tool whose scopes the caller lacks, and
    /// lets only the caller that began a session use it (its stream, its end). For an MCP
    /// endpoint, nest that router rather than protecting rmcp's service with this alone.
    pub fn protect(self: &Arc<Self>, router: axum::Router) -> axum::Router {
        router.layer(axum::middleware::from_fn_with_state(
            self.clone(),
            require_token,
        ))
    }
}

/// The token of a `Bearer` authorization. A header of another scheme is treated as none
/// (RFC 6750 section 3.1: no error code for a client that did not know a token was needed).
fn bearer_token(value: &str) -> Result<&str, AuthError> {
    let (scheme, credentials) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(AuthError::Missing);
    }
    let token = credentials.trim_matches(' ');
    if token.is_empty() {
        return Err(AuthError::Malformed("`Bearer` is not followed by a token"));
    }
    // token68 (RFC 6750 section 2.1): what a JWT is made of, and `=` padding at the end.
    let body = token.trim_end_matches('=');
    let token68 = body
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if !token68 || body.is_empty() {
        return Err(AuthError::Malformed(
            "the token has characters a bearer token cannot have",
        ));
    }
    Ok(token)
}

/// Axum middleware refusing requests without a valid token (see [`OAuth::authenticate`]) and
/// passing on the others with their [`Principal`] in the extensions and without their
/// `Authorization` header. Mount it with
/// `axum::middleware::from_fn_with_state(oauth, require_token)`, or
/// [`OAuth::protect`].
///
/// ```no_run
/// # async fn demo(oauth: std::sync::Arc<tool_mcp::oauth::OAuth>) {
/// use axum::routing::get;
/// use axum::Extension;
/// use tool_core::context::Principal;
///
/// let app = axum::Router::new()
///     .route("/whoami", get(|Extension(caller): Extension<Principal>| async move {
///         caller.subject().to_owned()
///     }))
///     .layer(axum::middleware::from_fn_with_state(oauth.clone(), tool_mcp::oauth::require_token))
///     .merge(oauth.metadata_router("/whoami"));
/// # }
/// ```
pub async fn require_token(
    State(oauth): State<Arc<OAuth>>,
    mut request: Request,
    next: Next,
) -> Response {
    match oauth.authenticate(request.headers()).await {
        Ok(principal) => {
            admit(&mut request, principal, &oauth);
            next.run(request).await
        }
        Err(error) => refused(&oauth, &error),
    }
}

/// What the MCP endpoint's gate needs: the validator, and the server whose tools it guards.
#[derive(Clone)]
pub(crate) struct Gate {
    pub(crate) oauth: Arc<OAuth>,
    pub(crate) server: McpServer,
    /// The largest body read to see which tool a `tools/call` names: the endpoint's own limit.
    pub(crate) max_body: usize,
    /// Who began each session (`None` when stateless: there are no sessions).
    pub(crate) owners: Option<Arc<SessionOwners>>,
}

/// The caller that began each session the endpoint gave out. A session's id is no credential:
/// every request on a session (its stream, a replay of its answers, its end, a message or an
/// answer sent on it) must come from the caller that began it.
pub(crate) struct SessionOwners {
    owners: Mutex<HashMap<String, Identity>>,
    /// The endpoint's sessions, to forget the owners of those that ended (idle, or closed).
    sessions: Arc<LocalSessionManager>,
    /// The size past which owners of ended sessions are forgotten; doubled each time.
    prune_at: AtomicUsize,
}

/// The fewest owners kept before any is forgotten.
const MIN_PRUNE: usize = 64;

impl SessionOwners {
    pub(crate) fn new(sessions: Arc<LocalSessionManager>) -> Self {
        Self {
            owners: Mutex::new(HashMap::new()),
            sessions,
            prune_at: AtomicUsize::new(MIN_PRUNE),
        }
    }

    /// Whether `caller` may make a request on the session `id`. A session this map does not
    /// know is the endpoint's to refuse (404), as it refuses any unknown session.
    fn admits(&self, id: &str, caller: &Identity) -> bool {
        lock(&self.owners)
            .get(id)
            .is_none_or(|owner| owner == caller)
    }

    async fn begun(&self, id: &str, owner: Identity) {
        let size = {
            let mut owners = lock(&self.owners);
            owners.insert(id.to_owned(), owner);
            owners.len()
        };
        if size >= self.prune_at.load(Ordering::Relaxed) {
            self.forget_ended().await;
        }
    }

    fn ended(&self, id: &str) {
        lock(&self.owners).remove(id);
    }

    /// Forgets the owners of sessions the endpoint no longer has; the next pruning waits until
    /// the map has doubled, so the work stays in proportion to the sessions begun.
    async fn forget_ended(&self) {
        let ids: Vec<String> = lock(&self.owners).keys().cloned().collect();
        let mut ended = Vec::new();
        for id in ids {
            if !self
                .sessions
                .has_session(&id.as_str().into())
                .await
                .unwrap_or(true)
            {
                ended.push(id);
            }
        }
        let mut owners = lock(&self.owners);
        for id in &ended {
            owners.remove(id);
        }
        self.prune_at
            .store((owners.len() * 2).max(MIN_PRUNE), Ordering::Relaxed);
    }
}

/// [`require_token`], and for a `tools/call` of a tool whose scopes the caller lacks, 403
/// `insufficient_scope` naming them, so the client can ask for them (step-up authorization).
/// The executor refuses such a call too; this answer is the one a client can act on. A
/// request on a session another caller began is answered 404, as for an unknown session.
pub(crate) async fn require_token_for_tools(
    State(gate): State<Gate>,
    mut request: Request,
    next: Next,
) -> Response {
    let principal = match gate.oauth.authenticate(request.headers()).await {
        Ok(principal) => principal,
        Err(error) => return refused(&gate.oauth, &error),
    };
    let session = request
        .headers()
        .get(HEADER_SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let caller = identity(&principal);
    if let (Some(owners), Some(id)) = (&gate.owners, &session)
        && !owners.admits(id, &caller)
    {
        tracing::debug!(
            subject = principal.subject(),
            "a request on a session another caller began, refused"
        );
        // What an unknown session gets: the caller learns nothing about another's session,
        // and a client begins one of its own.
        return (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response();
    }
    // Only a server with tools that need scopes of their own reads which tool a call names.
    if request.method() == Method::POST && gate.server.calls_scoped() {
        let (parts, body) = request.into_parts();
        let bytes = match axum::body::to_bytes(body, gate.max_body).await {
            Ok(bytes) => bytes,
            Err(_) => {
                // Too large (what the endpoint answers too), or the client went away.
                let message = format!("the request body is larger than {} bytes", gate.max_body);
                return (StatusCode::PAYLOAD_TOO_LARGE, message).into_response();
            }
        };
        if let Some(name) = called_tool(&bytes) {
            let executor = gate.server.executor();
            let tool = executor.registry().get(&name);
            if let Some(tool) = tool.filter(|t| !t.scopes().is_empty()) {
                let scopes: Vec<&str> = tool.scopes().iter().map(|s| s.as_ref()).collect();
                let what = format!("the tool `{}`", tool.name());
                if let Err(error) = gate.oauth.require(&principal, &scopes, Some(&what)) {
                    return refused(&gate.oauth, &error);
                }
            }
        }
        request = Request::from_parts(parts, Body::from(bytes));
    }
    admit(&mut request, principal, &gate.oauth);
    let deleting = request.method() == Method::DELETE;
    let response = next.run(request).await;
    if let Some(owners) = &gate.owners {
        match &session {
            None => {
                let begun = response
                    .headers()
                    .get(HEADER_SESSION_ID)
                    .and_then(|v| v.to_str().ok());
                if let Some(id) = begun {
                    owners.begun(id, caller).await;
                }
            }
            Some(id) if deleting && response.status().is_success() => owners.ended(id),
            Some(_) => {}
        }
    }
    response
}

/// The request, passed on: the caller in its extensions, its token gone.
fn admit(request: &mut Request, principal: Principal, oauth: &OAuth) {
    tracing::debug!(subject = principal.subject(), "access token accepted");
    request.headers_mut().remove(header::AUTHORIZATION);
    request.extensions_mut().insert(principal);
    if oauth.config().all_tools_listed() {
        request.extensions_mut().insert(ListAllTools);
    }
}

fn refused(oauth: &OAuth, error: &AuthError) -> Response {
    tracing::debug!(%error, "request refused");
    oauth.refusal(error)
}

/// The tool a JSON-RPC `tools/call` request names, if `body` is one. Only a body that mentions
/// `tools/call` is parsed, and only as far as the method and the tool's name.
fn called_tool(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        name: Option<Cow<'a, str>>,
    }
    // The method may be spelt with escapes (`tools\/call`, `\u0074ools/call`), which JSON
    // decodes to the same name: only a body with neither the plain name nor a backslash can
    // be passed over unread.
    if memchr::memmem::find(body, b"tools/call").is_none() && memchr::memchr(b'\\', body).is_none()
    {
        return None;
    }
    let message: Message<'_> = serde_json::from_slice(body).ok()?;
    if message.method.as_deref() != Some("tools/call") {
        return None;
    }
    Some(message.params?.name?.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_token_is_one_token68() {
        assert_eq!(bearer_token("Bearer abc.def-_~+/=="), Ok("abc.def-_~+/=="));
        assert_eq!(bearer_token("bearer  x "), Ok("x"));
        assert_eq!(bearer_token("Basic dXNlcjpwYXNz"), Err(AuthError::Missing));
        for bad in [
            "Bearer",
            "Bearer ",
            "Bearer a b",
            "Bearer a\"b",
            "Bearer ==",
            "Bearer a=b",
        ] {
            assert!(
                matches!(bearer_token(bad), Err(AuthError::Malformed(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn only_a_tools_call_names_a_tool() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":"tools/call"}]}}}"#;
        assert_eq!(called_tool(call).as_deref(), Some("x"));
        let other =
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"tools/call"}}"#;
        assert_eq!(called_tool(other), None);
        assert_eq!(called_tool(br#"{"method":"tools/call"}"#), None);
        assert_eq!(called_tool(b"tools/call"), None);
        assert_eq!(
            called_tool(br#"[{"method":"tools/call","params":{"name":"x"}}]"#),
            None
        );
        let escaped = br#"{"method":"tools/call","params":{"name":"a\"b"}}"#;
        assert_eq!(called_tool(escaped).as_deref(), Some("a\"b"));
        for spelt in [
            br#"{"method":"tools\/call","params":{"name":"x"}}"#.as_slice(),
            br#"{"method":"tools\u002fcall","params":{"name":"x"}}"#,
            br#"{"method":"\u0074ools\u002Fcall","params":{"name":"x"}}"#,
        ] {
            assert_eq!(called_tool(spelt).as_deref(), Some("x"));
        }
        assert_eq!(called_tool(br#"{"method":"tools\/list"}"#), None);
    }

    #[tokio::test]
    async fn owners_of_sessions_that_ended_are_forgotten() {
        let owners = SessionOwners::new(Arc::new(LocalSessionManager::default()));
        let alice: Identity = (Some("iss".into()), "alice".into());
        // The manager has none of these sessions: they ended (or never were).
        for n in 0..MIN_PRUNE - 1 {
            owners.begun(&format!("s{n}"), alice.clone()).await;
        }
        assert_eq!(lock(&owners.owners).len(), MIN_PRUNE - 1);
        let mallory: Identity = (Some("iss".into()), "mallory".into());
        assert!(!owners.admits("s0", &mallory) && owners.admits("s0", &alice));
        owners.begun("last", alice.clone()).await;
        assert!(lock(&owners.owners).is_empty());
        assert_eq!(owners.prune_at.load(Ordering::Relaxed), MIN_PRUNE);
        owners.begun("next", alice).await;
        owners.ended("next");
        assert!(owners.admits("next", &mallory));
    }

    proptest::proptest! {
        /// However a client spells the method and the tool's name (any character may be a
        /// `\uXXXX` escape, `/` may be `\/`), the gate reads the name JSON decodes.
        #[test]
        fn a_tools_call_is_recognised_in_any_spelling(
            name in "[a-z_/\"\\\\.é]{1,12}",
            escape in proptest::collection::vec(proptest::bool::ANY, 32),
        ) {
            let spell = |text: &str| {
                let mut out = String::from("\"");
                for (i, c) in text.chars().enumerate() {
                    match c {
                        _ if escape[i % escape.len()] => {
                            let mut units = [0u16; 2];
                            for unit in c.encode_utf16(&mut units) {
                                out.push_str(&format!("\\u{unit:04x}"));
                            }
                        }
                        '/' => out.push_str("\\/"),
                        '"' | '\\' => {
                            out.push('\\');
                            out.push(c);
                        }
                        _ => out.push(c),
                    }
                }
                out.push('"');
                out
            };
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":{},"params":{{"name":{}}}}}"#,
                spell("tools/call"),
                spell(&name)
            );
            proptest::prop_assert_eq!(called_tool(body.as_bytes()), Some(name), "{}", body);
        }
    }
}
