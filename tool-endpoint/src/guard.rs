//! Who may be answered: a `Host` the server answers to (DNS-rebinding protection) and, from a
//! browser, an `Origin` it trusts (the MCP transports' guidance: validate `Origin`, answer 403
//! to one that is present and not allowed; bind to localhost when local).
//!
//! The rules, where they differ from the MCP SDK's own check (tests/rmcp.rs compares the two on
//! generated headers and lists each difference):
//! - `Host` is `host[:port]` and nothing else (RFC 9110 §7.2): no user info, a host that is not
//!   empty; surrounding blanks are not part of it (§5.5).
//! - An `Origin` is a scheme, a host and a port (RFC 6454): no user info; an allowed origin
//!   without a port means the scheme's default port, `:*` any port; `null`, the origin every
//!   sandboxed or opaque document shares, names no one and is never allowed.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};

/// The `Host` names a local endpoint answers to by default: the loopback names.
pub fn loopback_hosts() -> Vec<String> {
    vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]
}

/// The browser origins a local endpoint trusts by default: the loopback ones over `http`, on
/// any port.
pub fn loopback_origins() -> Vec<String> {
    vec![
        "http://localhost:*".into(),
        "http://127.0.0.1:*".into(),
        "http://[::1]:*".into(),
    ]
}

/// The allowed hosts and origins, parsed once.
#[derive(Debug, Clone)]
pub struct Guard {
    /// Empty: any `Host`.
    hosts: Vec<Authority>,
    /// Empty: no browser origin at all.
    origins: Vec<AllowedOrigin>,
}

/// Why a request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// No `Host`, or one that is not a host.
    #[error("Bad Request: missing or malformed Host header")]
    BadHost,
    /// A `Host` the server does not answer to.
    #[error("Forbidden: Host header is not allowed")]
    ForeignHost,
    /// A browser `Origin` that is not trusted (or not an origin).
    #[error("Forbidden: Origin header is not allowed")]
    ForeignOrigin,
}

impl Refusal {
    /// The HTTP status to answer with: 400 for a `Host` that is not one, else 403.
    pub fn status(self) -> StatusCode {
        match self {
            Refusal::BadHost => StatusCode::BAD_REQUEST,
            Refusal::ForeignHost | Refusal::ForeignOrigin => StatusCode::FORBIDDEN,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedOrigin {
    scheme: String,
    host: String,
    /// `None`: any port (`:*`).
    port: Option<u16>,
}

impl Guard {
    /// A guard for these `Host` names (`name` or `name:port`; a bare IPv6 address too) and
    /// origins (`scheme://host:port`, or `scheme://host:*` for any port). An empty host list
    /// accepts any `Host` (only behind a proxy that checks it); an empty origin list, no
    /// browser origin. Entries that do not parse are ignored, with a warning.
    pub fn new(hosts: &[String], origins: &[String]) -> Self {
        let hosts = hosts
            .iter()
            .filter_map(|h| {
                let parsed = allowed_host(h);
                if parsed.is_none() {
                    tracing::warn!(host = %h, "ignoring an allowed host that is not a host");
                }
                parsed
            })
            .collect();
        let origins = origins
            .iter()
            .filter_map(|o| {
                let parsed = allowed_origin(o);
                if parsed.is_none() {
                    tracing::warn!(origin = %o, "ignoring an allowed origin that is not an origin");
                }
                parsed
            })
            .collect();
        Self { hosts, origins }
    }

    /// The answer to `request` if it is refused (its status and reason, logged as a warning);
    /// `None` if it may be answered. What [`refuse_foreign`] does, for a handler or service
    /// that checks requests itself rather than behind a middleware.
    ///
    /// ```
    /// use tool_endpoint::{Guard, loopback_hosts, loopback_origins};
    /// let guard = Guard::new(&loopback_hosts(), &loopback_origins());
    /// let request = axum::http::Request::builder()
    ///     .header("host", "evil.example")
    ///     .body(axum::body::Body::empty())
    ///     .unwrap();
    /// assert_eq!(guard.refuse(&request).unwrap().status(), 403);
    /// ```
    pub fn refuse<B>(&self, request: &axum::http::Request<B>) -> Option<Response> {
        let refusal = self.check(request.uri(), request.headers()).err()?;
        let host = request.headers().get(header::HOST);
        let origin = request.headers().get(header::ORIGIN);
        tracing::warn!(%refusal, ?host, ?origin, "refused a request (possible DNS rebinding or cross-origin request)");
        Some((refusal.status(), refusal.to_string()).into_response())
    }

    /// Whether a request with this URI and these headers may be answered. A request without
    /// an `Origin` is not from a browser script, and passes on its `Host` alone.
    pub fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = match headers.get(header::HOST) {
            Some(value) => value.to_str().map_err(|_| Refusal::BadHost)?,
            // HTTP/2 carries it in the URI.
            None => uri.authority().ok_or(Refusal::BadHost)?.as_str(),
        };
        if !self.host_allowed(host)? {
            return Err(Refusal::ForeignHost);
        }
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let origin = origin
            .to_str()
            .ok()
            .and_then(origin_of)
            .ok_or(Refusal::ForeignOrigin)?;
        let origin_ok = self.origins.iter().any(|a| {
            a.scheme == origin.scheme
                && a.host == origin.host
                && a.port.is_none_or(|p| Some(p) == origin.port)
        });
        if origin_ok {
            Ok(())
        } else {
            Err(Refusal::ForeignOrigin)
        }
    }

    /// Whether `text`, a request's `Host`, is one of the allowed hosts; an error if it is not
    /// a host. Read as [`authority`] reads it, but compared without a lowercase copy.
    fn host_allowed(&self, text: &str) -> Result<bool, Refusal> {
        let a = parse_authority(text).ok_or(Refusal::BadHost)?;
        let (host, port) = (unbracket(a.host()), a.port_u16());
        // An allowed host is normalized: lowercase, without brackets.
        Ok(self.hosts.is_empty()
            || self.hosts.iter().any(|allowed| {
                allowed.host.eq_ignore_ascii_case(host)
                    && allowed.port.is_none_or(|p| Some(p) == port)
            }))
    }
}

/// An axum middleware that answers what `guard` refuses with its status and reason, and
/// passes the rest on:
/// `router.layer(axum::middleware::from_fn_with_state(Arc::new(guard), refuse_foreign))`.
///
/// ```
/// use std::sync::Arc;
/// use tool_endpoint::{Guard, loopback_hosts, loopback_origins, refuse_foreign};
/// let guard = Arc::new(Guard::new(&loopback_hosts(), &loopback_origins()));
/// let app: axum::Router = axum::Router::new()
///     .route("/", axum::routing::get(|| async { "hello" }))
///     .layer(axum::middleware::from_fn_with_state(guard, refuse_foreign));
/// # let _ = app;
/// ```
pub async fn refuse_foreign(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    match guard.refuse(&request) {
        None => next.run(request).await,
        Some(refused) => refused,
    }
}

/// `host` or `host:port` as the `http` crate reads it, with no user info and a host.
fn parse_authority(text: &str) -> Option<axum::http::uri::Authority> {
    let a = text.trim().parse::<axum::http::uri::Authority>().ok()?;
    (!a.as_str().contains('@') && !a.host().is_empty()).then_some(a)
}

fn unbracket(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}

fn normalize(host: &str) -> String {
    unbracket(host).to_ascii_lowercase()
}

/// `host` or `host:port` (IPv6 in brackets), its host normalized.
fn authority(text: &str) -> Option<Authority> {
    let a = parse_authority(text)?;
    Some(Authority {
        host: normalize(a.host()),
        port: a.port_u16(),
    })
}

/// An allowed host: like [`authority`], and a bare IPv6 address (`::1`) too.
fn allowed_host(text: &str) -> Option<Authority> {
    let text = text.trim();
    if text.contains("::") && !text.starts_with('[') {
        return Some(Authority {
            host: normalize(text),
            port: None,
        });
    }
    authority(text)
}

/// A request's `Origin` as scheme, host and port (the scheme's default port when it has none).
fn origin_of(text: &str) -> Option<AllowedOrigin> {
    let uri = text.trim().parse::<Uri>().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = authority(uri.authority()?.as_str())?;
    let port = authority.port.or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    });
    Some(AllowedOrigin {
        scheme,
        host: authority.host,
        port,
    })
}

/// `scheme://host:port`, or `scheme://host:*` for any port.
fn allowed_origin(text: &str) -> Option<AllowedOrigin> {
    match text.trim().strip_suffix(":*") {
        Some(base) => {
            // `http://host:80:*` is not a pattern.
            let explicit = base.parse::<Uri>().ok()?.authority()?.port_u16();
            if explicit.is_some() {
                return None;
            }
            Some(AllowedOrigin {
                port: None,
                ..origin_of(base)?
            })
        }
        None => origin_of(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn loopback() -> Guard {
        Guard::new(&loopback_hosts(), &loopback_origins())
    }

    fn check(guard: &Guard, host: Option<&str>, origin: Option<&str>) -> Result<(), Refusal> {
        let mut headers = HeaderMap::new();
        if let Some(host) = host {
            headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        }
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        guard.check(&Uri::from_static("/events"), &headers)
    }

    #[test]
    fn loopback_hosts_pass_on_any_port() {
        let g = loopback();
        for host in [
            "127.0.0.1:8800",
            "localhost:1",
            "LOCALHOST",
            "[::1]:9000",
            "127.0.0.1",
        ] {
            assert_eq!(check(&g, Some(host), None), Ok(()), "{host}");
        }
    }

    #[test]
    fn foreign_or_missing_hosts_are_refused() {
        let g = loopback();
        assert_eq!(
            check(&g, Some("evil.example:8800"), None),
            Err(Refusal::ForeignHost)
        );
        // A DNS-rebinding name that resolves to 127.0.0.1 is still a foreign name.
        assert_eq!(
            check(&g, Some("127.0.0.1.nip.io"), None),
            Err(Refusal::ForeignHost)
        );
        assert_eq!(
            check(&g, Some("user@127.0.0.1"), None),
            Err(Refusal::BadHost)
        );
        assert_eq!(check(&g, None, None), Err(Refusal::BadHost));
        assert_eq!(Refusal::ForeignHost.status(), StatusCode::FORBIDDEN);
        assert_eq!(Refusal::BadHost.status(), StatusCode::BAD_REQUEST);
        // HTTP/2 names the host in the URI instead.
        let uri = Uri::from_static("http://127.0.0.1:8800/mcp");
        assert_eq!(loopback().check(&uri, &HeaderMap::new()), Ok(()));
    }

    #[test]
    fn only_loopback_origins_may_read() {
        let g = loopback();
        let host = Some("127.0.0.1:8800");
        for origin in [
            "http://127.0.0.1:8800",
            "http://localhost:3000",
            "http://[::1]:1",
        ] {
            assert_eq!(check(&g, host, Some(origin)), Ok(()), "{origin}");
        }
        for origin in [
            "https://evil.example",
            "http://evil.example:8800",
            "https://127.0.0.1:8800", // not the scheme the page is served with
            "null",
            "not an origin",
        ] {
            assert_eq!(
                check(&g, host, Some(origin)),
                Err(Refusal::ForeignOrigin),
                "{origin}"
            );
        }
    }

    #[test]
    fn configured_hosts_and_origins() {
        let g = Guard::new(
            &["ui.internal:8443".into()],
            &["https://ui.internal".into(), "http://app.test:*".into()],
        );
        assert_eq!(check(&g, Some("ui.internal:8443"), None), Ok(()));
        assert_eq!(
            check(&g, Some("ui.internal:9999"), None),
            Err(Refusal::ForeignHost)
        );
        let host = Some("ui.internal:8443");
        assert_eq!(check(&g, host, Some("https://ui.internal")), Ok(()));
        assert_eq!(check(&g, host, Some("https://ui.internal:443")), Ok(()));
        assert_eq!(
            check(&g, host, Some("https://ui.internal:444")),
            Err(Refusal::ForeignOrigin)
        );
        assert_eq!(check(&g, host, Some("http://app.test:5173")), Ok(()));
        // An empty host list accepts any Host; an empty origin list no browser origin.
        let open = Guard::new(&[], &[]);
        assert_eq!(check(&open, Some("anything.example"), None), Ok(()));
        assert_eq!(
            check(
                &open,
                Some("anything.example"),
                Some("http://anything.example")
            ),
            Err(Refusal::ForeignOrigin)
        );
    }

    #[test]
    fn origin_patterns_parse() {
        assert_eq!(
            allowed_origin("http://[::1]:*"),
            Some(AllowedOrigin {
                scheme: "http".into(),
                host: "::1".into(),
                port: None
            })
        );
        assert_eq!(allowed_origin("http://host:80:*"), None);
        assert_eq!(
            allowed_origin("https://a.test").map(|o| o.port),
            Some(Some(443))
        );
        assert_eq!(allowed_host("::1").map(|a| a.host), Some("::1".into()));
        assert_eq!(allowed_host("[::1]").map(|a| a.host), Some("::1".into()));
    }

    proptest::proptest! {
        /// The request's `Host` is compared in place; it decides as the lowercase copy of its
        /// authority did.
        #[test]
        fn a_host_is_allowed_as_its_normalized_authority_would_be(
            host in "\\[?(?i-u:localhost|127\\.0\\.0\\.1|::1|a\\.test|LOCALHOST\\.)\\]?(:[0-9]{0,6})?|[ -~]{0,12}",
            allowed in proptest::sample::subsequence(
                vec!["localhost", "127.0.0.1", "::1", "A.Test:8080", "[::1]:3000"], 0..=5),
        ) {
            let allowed: Vec<String> = allowed.into_iter().map(String::from).collect();
            let guard = Guard::new(&allowed, &[]);
            let before = match authority(&host) {
                None => Err(Refusal::BadHost),
                Some(a) => Ok(guard.hosts.is_empty() || guard.hosts.iter().any(|h| {
                    h.host == a.host && h.port.is_none_or(|p| Some(p) == a.port)
                })),
            };
            proptest::prop_assert_eq!(guard.host_allowed(&host), before);
        }
    }
}
