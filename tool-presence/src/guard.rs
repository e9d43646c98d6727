//! Who may read the events: a `Host` the server answers to (DNS-rebinding protection) and, from
//! a browser, an `Origin` it trusts. The same rules as the MCP endpoint's (`HttpOptions`).
//! Who may answer a question: the page itself, which alone knows the secret it was served with.

use axum::http::{HeaderMap, StatusCode, Uri, header};

/// The allowed hosts and origins, parsed once.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    /// Empty: any `Host`.
    hosts: Vec<Authority>,
    /// Empty: no browser origin at all.
    origins: Vec<AllowedOrigin>,
}

/// Why a request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    /// No `Host`, or one that is not a host.
    #[error("Bad Request: missing or malformed Host header")]
    BadHost,
    /// A `Host` the server does not answer to.
    #[error("Forbidden: Host header is not allowed")]
    ForeignHost,
    /// A browser `Origin` that is not trusted (or not an origin).
    #[error("Forbidden: Origin header is not allowed")]
    ForeignOrigin,
    /// An answer without an `Origin`: not from the page's script.
    #[error("Forbidden: answers come from the page (no Origin header)")]
    NoOrigin,
    /// An answer a browser says came from another site.
    #[error("Forbidden: answers come from the page itself (Sec-Fetch-Site)")]
    CrossSite,
    /// An answer without the page's secret.
    #[error("Forbidden: the page's secret is missing or wrong")]
    BadSecret,
}

impl Refusal {
    /// The HTTP status to answer with.
    pub(crate) fn status(self) -> StatusCode {
        match self {
            Refusal::BadHost => StatusCode::BAD_REQUEST,
            Refusal::ForeignHost
            | Refusal::ForeignOrigin
            | Refusal::NoOrigin
            | Refusal::CrossSite
            | Refusal::BadSecret => StatusCode::FORBIDDEN,
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
    /// A guard for these `Host` names (`name` or `name:port`) and origins
    /// (`scheme://host:port`, or `scheme://host:*` for any port). Entries that do not parse are
    /// ignored, with a warning.
    pub(crate) fn new(hosts: &[String], origins: &[String]) -> Self {
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

    /// Whether a request with these headers may be answered.
    pub(crate) fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = match headers.get(header::HOST) {
            Some(value) => {
                let text = value.to_str().map_err(|_| Refusal::BadHost)?;
                authority(text).ok_or(Refusal::BadHost)?
            }
            // HTTP/2 carries it in the URI.
            None => uri
                .authority()
                .and_then(|a| authority(a.as_str()))
                .ok_or(Refusal::BadHost)?,
        };
        let host_ok = self.hosts.is_empty()
            || self
                .hosts
                .iter()
                .any(|a| a.host == host.host && a.port.is_none_or(|p| Some(p) == host.port));
        if !host_ok {
            return Err(Refusal::ForeignHost);
        }
        let Some(origin) = headers.get(header::ORIGIN) else {
            // Not from a browser script: nothing to protect against.
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
}

/// The header an answer carries the page's secret in.
pub(crate) const SECRET_HEADER: &str = "x-presence-secret";

/// Whether a request that passed [`Guard::check`] may also answer a question: it comes from a
/// browser script (it has an `Origin`, which `check` found allowed), from the page's own origin
/// when the browser says (`Sec-Fetch-Site`), and with the secret the page was served with
/// (`None`: no secret could be made, so nothing may answer).
pub(crate) fn check_answer(headers: &HeaderMap, secret: Option<&str>) -> Result<(), Refusal> {
    if !headers.contains_key(header::ORIGIN) {
        return Err(Refusal::NoOrigin);
    }
    if let Some(site) = headers.get("sec-fetch-site")
        && site.as_bytes() != b"same-origin"
    {
        return Err(Refusal::CrossSite);
    }
    let given = headers.get(SECRET_HEADER).map(|v| v.as_bytes());
    match (secret, given) {
        (Some(secret), Some(given)) if same(secret.as_bytes(), given) => Ok(()),
        _ => Err(Refusal::BadSecret),
    }
}

/// Compares in time that depends on the lengths alone, not on where the bytes differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn normalize(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// `host` or `host:port` (IPv6 in brackets).
fn authority(text: &str) -> Option<Authority> {
    let a = text.trim().parse::<axum::http::uri::Authority>().ok()?;
    if a.as_str().contains('@') || a.host().is_empty() {
        return None;
    }
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
    use crate::PresenceOptions;
    use axum::http::HeaderValue;

    fn loopback() -> Guard {
        let o = PresenceOptions::default();
        Guard::new(&o.allowed_hosts, &o.allowed_origins)
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
    fn answers_need_an_origin_the_same_site_and_the_secret() {
        let headers = |pairs: &[(&'static str, &str)]| {
            let mut h = HeaderMap::new();
            for (name, value) in pairs {
                h.insert(*name, HeaderValue::from_str(value).unwrap());
            }
            h
        };
        let origin = ("origin", "http://127.0.0.1:8800");
        let secret = Some("s3cret");
        let ok = headers(&[
            origin,
            ("sec-fetch-site", "same-origin"),
            (SECRET_HEADER, "s3cret"),
        ]);
        assert_eq!(check_answer(&ok, secret), Ok(()));
        // A browser too old for Sec-Fetch-* still needs the rest.
        let ok = headers(&[origin, (SECRET_HEADER, "s3cret")]);
        assert_eq!(check_answer(&ok, secret), Ok(()));
        for (pairs, refusal) in [
            (vec![(SECRET_HEADER, "s3cret")], Refusal::NoOrigin),
            (
                vec![
                    origin,
                    ("sec-fetch-site", "same-site"),
                    (SECRET_HEADER, "s3cret"),
                ],
                Refusal::CrossSite,
            ),
            (
                vec![
                    origin,
                    ("sec-fetch-site", "cross-site"),
                    (SECRET_HEADER, "s3cret"),
                ],
                Refusal::CrossSite,
            ),
            (vec![origin], Refusal::BadSecret),
            (vec![origin, (SECRET_HEADER, "s3cre")], Refusal::BadSecret),
            (vec![origin, (SECRET_HEADER, "s3cret ")], Refusal::BadSecret),
            (vec![origin, (SECRET_HEADER, "S3CRET")], Refusal::BadSecret),
        ] {
            assert_eq!(
                check_answer(&headers(&pairs), secret),
                Err(refusal),
                "{pairs:?}"
            );
            assert_eq!(refusal.status(), StatusCode::FORBIDDEN);
        }
        // Without a secret nothing answers.
        let ok = headers(&[origin, (SECRET_HEADER, "")]);
        assert_eq!(check_answer(&ok, None), Err(Refusal::BadSecret));
        assert!(same(b"", b"") && !same(b"a", b"") && !same(b"ab", b"ac"));
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
}
