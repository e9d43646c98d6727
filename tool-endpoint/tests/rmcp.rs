//! The guard against the MCP SDK's own `Host` and `Origin` check (rmcp's Streamable HTTP
//! service), on generated headers: `Host` values with and without ports, bracketed IPv6,
//! changes of case, trailing dots, user info, blanks and odd bytes; `Origin` absent, `null`,
//! of several schemes; allowed lists with and without ports. Where the two disagree, the case
//! must be one of [`DISAGREEMENTS`], each of which says why the guard's answer is the one the
//! specifications ask for; any other disagreement fails the test.

use std::sync::Arc;

use axum::http::{HeaderValue, Request, StatusCode, Uri, header};
use proptest::prelude::*;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tool_endpoint::{Guard, Refusal};

/// What an endpoint does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Pass,
    BadHost,
    ForeignHost,
    ForeignOrigin,
}

/// One generated request, and the lists it is judged by.
#[derive(Debug, Clone)]
struct Case {
    host: Option<Vec<u8>>,
    /// The request target: `/mcp`, or an absolute URI that names the host (HTTP/2's
    /// `:authority`).
    uri: String,
    origin: Option<Vec<u8>>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
}

impl Case {
    fn host_text(&self) -> Option<&str> {
        self.host
            .as_deref()
            .and_then(|h| std::str::from_utf8(h).ok())
    }

    fn origin_text(&self) -> Option<&str> {
        self.origin
            .as_deref()
            .and_then(|o| std::str::from_utf8(o).ok())
    }

    /// The host the request names, as written (the `Host` header, or else the URI's).
    fn named_host(&self) -> Option<String> {
        match &self.host {
            Some(_) => self.host_text().map(str::to_owned),
            None => self
                .uri
                .parse::<Uri>()
                .ok()
                .and_then(|u| u.authority().map(|a| a.as_str().to_owned())),
        }
    }

    fn request(&self) -> Request<String> {
        let mut request = Request::builder().method("PUT").uri(self.uri.as_str());
        if let Some(host) = &self.host {
            request = request.header(header::HOST, HeaderValue::from_bytes(host).unwrap());
        }
        if let Some(origin) = &self.origin {
            request = request.header(header::ORIGIN, HeaderValue::from_bytes(origin).unwrap());
        }
        request.body(String::new()).unwrap()
    }

    fn ours(&self) -> Verdict {
        let guard = Guard::new(&self.allowed_hosts, &self.allowed_origins);
        let request = self.request();
        match guard.check(request.uri(), request.headers()) {
            Ok(()) => Verdict::Pass,
            Err(Refusal::BadHost) => Verdict::BadHost,
            Err(Refusal::ForeignHost) => Verdict::ForeignHost,
            Err(Refusal::ForeignOrigin) => Verdict::ForeignOrigin,
            Err(other) => panic!("{other:?}"),
        }
    }

    /// What rmcp answers, configured as tool-mcp configured it before it took the guard: these
    /// lists, `Origin` checked even with an empty list. A `PUT` that passes the check is
    /// answered 405.
    async fn rmcp(&self) -> Verdict {
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(self.allowed_hosts.clone())
            .with_allowed_origins(self.allowed_origins.clone())
            .enforce_origin_validation();
        let service = StreamableHttpService::new(
            || Ok(Nothing),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let response = service.handle(self.request()).await;
        let status = response.status();
        let body = axum::body::to_bytes(axum::body::Body::new(response.into_body()), 4096)
            .await
            .unwrap();
        let body = String::from_utf8_lossy(&body);
        match status {
            StatusCode::METHOD_NOT_ALLOWED => Verdict::Pass,
            StatusCode::BAD_REQUEST => Verdict::BadHost,
            StatusCode::FORBIDDEN if body.contains("Host") => Verdict::ForeignHost,
            StatusCode::FORBIDDEN if body.contains("Origin") => Verdict::ForeignOrigin,
            other => panic!("rmcp answered {other}: {body}"),
        }
    }
}

#[derive(Clone)]
struct Nothing;

impl rmcp::ServerHandler for Nothing {}

/// A disagreement the guard means: when it applies, and what each side answers.
struct Disagreement {
    what: &'static str,
    /// Why the guard's answer is the right one.
    why: &'static str,
    applies: fn(&Case) -> bool,
}

const DISAGREEMENTS: &[Disagreement] = &[
    Disagreement {
        what: "user info in the Host (`user@127.0.0.1`): rmcp judges the host after the `@`, \
               the guard refuses the Host as malformed (400)",
        why: "RFC 9110 §7.2: Host = uri-host [ \":\" port ]; an authority with user info is not \
              a Host",
        applies: |c| c.named_host().is_some_and(|h| h.contains('@')),
    },
    Disagreement {
        what: "blanks around the Host value: rmcp refuses it as malformed (400), the guard \
               judges the value inside",
        why: "RFC 9110 §5.5: leading and trailing whitespace is not part of a field value (and \
              hyper strips it, so no request off the wire has it)",
        applies: |c| {
            c.host_text()
                .is_some_and(|h| h.trim() != h && !h.trim().is_empty())
        },
    },
    Disagreement {
        what: "a Host with a port and no host (`:8080`): rmcp takes an empty host (allowed when \
               any host is), the guard refuses it as malformed (400)",
        why: "RFC 9110 §7.2 and RFC 3986 §3.2.2: a Host names a host; an empty one names none",
        applies: |c| {
            c.named_host().is_some_and(|h| {
                let h = h.trim();
                h.starts_with(':') || h.is_empty() || h.starts_with("[]")
            })
        },
    },
    Disagreement {
        what: "`Origin: null` with `null` allowed: rmcp lets it through, the guard never does \
               (403)",
        why: "RFC 6454 §7.3 and the Fetch standard: `null` is the origin of every sandboxed or \
              opaque document, so it names no one a server could trust; MCP's guidance is to \
              answer 403 to an Origin that is not the server's own",
        applies: |c| {
            let null = |o: &str| o.trim().eq_ignore_ascii_case("null");
            c.origin_text().is_some_and(null) && c.allowed_origins.iter().any(|a| null(a))
        },
    },
    Disagreement {
        what: "an allowed origin without a port (`https://app.example`): rmcp matches it on any \
               port, the guard on the scheme's default port only",
        why: "RFC 6454 §4-5: an origin is a scheme, a host and a port, and a serialized origin \
              without a port has the scheme's default one; rmcp itself deprecates its reading \
              (`:*` says any port)",
        applies: portless_origin_on_another_port,
    },
    Disagreement {
        what: "user info in the Origin (`http://user@localhost:3000`): rmcp judges the host \
               after the `@`, the guard refuses the Origin (403)",
        why: "RFC 6454 §7.1: a serialized origin is scheme \"://\" host [ \":\" port ], with no \
              user info; a value with one is not an origin",
        applies: |c| c.origin_text().is_some_and(|o| o.contains('@')),
    },
];

/// Scheme, host and explicit port of an origin, lowercased.
fn origin_parts(text: &str) -> Option<(String, String, Option<u16>)> {
    let uri = text.trim().parse::<Uri>().ok()?;
    let authority = uri.authority()?;
    let host = authority
        .host()
        .trim_matches(['[', ']'])
        .to_ascii_lowercase();
    Some((
        uri.scheme_str()?.to_ascii_lowercase(),
        host,
        authority.port_u16(),
    ))
}

/// The Origin names a port other than its scheme's default, and an allowed origin of the same
/// scheme and host names none.
fn portless_origin_on_another_port(c: &Case) -> bool {
    let Some((scheme, host, Some(port))) = c.origin_text().and_then(origin_parts) else {
        return false;
    };
    let default = match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    };
    default != Some(port)
        && c.allowed_origins.iter().any(|a| {
            !a.trim().ends_with(":*")
                && origin_parts(a).is_some_and(|(s, h, p)| s == scheme && h == host && p.is_none())
        })
}

fn one_of(items: &'static [&'static str]) -> BoxedStrategy<String> {
    prop::sample::select(items).prop_map(str::to_owned).boxed()
}

/// A `Host` value: a host, a port and the odd part around them, or any bytes a header may hold.
fn host_value() -> impl Strategy<Value = Vec<u8>> {
    let host = prop_oneof![
        one_of(&[
            "localhost",
            "LocalHost",
            "LOCALHOST",
            "localhost.",
            "127.0.0.1",
            "127.0.0.1.",
            "127.0.0.1.nip.io",
            "[::1]",
            "[::1",
            "::1",
            "[0:0:0:0:0:0:0:1]",
            "[::ffff:127.0.0.1]",
            "example.com",
            "Example.COM",
            "example.com.",
            "app.example",
            "",
        ]),
        "[a-z0-9.-]{1,10}",
    ];
    let port = one_of(&[
        "", "", ":", ":0", ":80", ":443", ":8080", ":65535", ":65536", ":x",
    ]);
    let user = one_of(&["", "", "", "u@", "@", "u:p@"]);
    let blank = one_of(&["", "", "", " ", "\t"]);
    let composed = (blank.clone(), user, host, port, blank)
        .prop_map(|(b1, u, h, p, b2)| format!("{b1}{u}{h}{p}{b2}").into_bytes());
    prop_oneof![
        4 => composed,
        1 => prop::collection::vec(any::<u8>(), 0..16),
    ]
    .prop_filter("a header value", |v| HeaderValue::from_bytes(v).is_ok())
}

/// An `Origin` value: `null`, a scheme, a host and a port, or any bytes a header may hold.
fn origin_value() -> impl Strategy<Value = Vec<u8>> {
    let scheme = one_of(&["http", "https", "HTTP", "Https", "ws", "ftp", ""]);
    let host = prop_oneof![
        one_of(&[
            "localhost",
            "LOCALHOST",
            "localhost.",
            "127.0.0.1",
            "[::1]",
            "app.example",
            "App.Example",
            "evil.example",
            "example.com",
            "",
        ]),
        "[a-z0-9.-]{1,10}",
    ];
    let port = one_of(&["", "", ":80", ":443", ":3000", ":8443", ":x"]);
    let user = one_of(&["", "", "", "u@"]);
    let path = one_of(&["", "", "/", "/x"]);
    let composed = (scheme, user, host, port, path)
        .prop_map(|(s, u, h, p, x)| format!("{s}://{u}{h}{p}{x}").into_bytes());
    prop_oneof![
        4 => composed,
        1 => one_of(&[
            "null",
            "NULL",
            "Null",
            " null",
            "",
            "*",
            "localhost:3000",
            "http://",
            "https://app.example:3000",
            "https://App.Example:8443/",
        ])
        .prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..16),
    ]
    .prop_filter("a header value", |v| HeaderValue::from_bytes(v).is_ok())
}

fn case() -> impl Strategy<Value = Case> {
    let hosts = prop::sample::subsequence(
        vec![
            "localhost",
            "127.0.0.1",
            "::1",
            "[::1]",
            "example.com",
            "example.com:8080",
            "Example.COM",
            "app.example:443",
        ],
        0..=4,
    );
    let origins = prop::sample::subsequence(
        vec![
            "http://localhost:*",
            "http://127.0.0.1:*",
            "http://[::1]:*",
            "https://app.example",
            "https://app.example:8443",
            "http://app.example:*",
            "http://example.com:80",
            "null",
        ],
        0..=4,
    );
    let uri = one_of(&[
        "/mcp",
        "/mcp",
        "/mcp",
        "http://127.0.0.1:8080/mcp",
        "http://evil.example/mcp",
        "http://u@localhost/mcp",
    ]);
    (
        prop::option::weighted(0.9, host_value()),
        uri,
        prop::option::weighted(0.6, origin_value()),
        hosts,
        origins,
    )
        .prop_map(|(host, uri, origin, hosts, origins)| Case {
            host,
            uri,
            origin,
            allowed_hosts: hosts.into_iter().map(str::to_owned).collect(),
            allowed_origins: origins.into_iter().map(str::to_owned).collect(),
        })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The guard answers as rmcp does, but where a listed disagreement applies.
    #[test]
    fn the_guard_agrees_with_rmcp_but_where_listed(case in case()) {
        let ours = case.ours();
        let theirs = runtime().block_on(case.rmcp());
        if ours != theirs {
            let listed = DISAGREEMENTS.iter().find(|d| (d.applies)(&case));
            prop_assert!(
                listed.is_some(),
                "an unlisted disagreement: the guard {ours:?}, rmcp {theirs:?}, for {case:?} \
                 (Host {:?}, Origin {:?})",
                case.host.as_deref().map(String::from_utf8_lossy),
                case.origin.as_deref().map(String::from_utf8_lossy),
            );
        }
    }
}

/// Each listed disagreement is real: a request on which the two answer as it says.
#[test]
fn each_listed_disagreement_is_real() {
    let loopback = |host: &str, origin: Option<&str>, origins: &[&str]| Case {
        host: Some(host.as_bytes().to_vec()),
        uri: "/mcp".into(),
        origin: origin.map(|o| o.as_bytes().to_vec()),
        allowed_hosts: tool_endpoint::loopback_hosts(),
        allowed_origins: origins.iter().map(|o| (*o).to_owned()).collect(),
    };
    let open_hosts = |host: &str| Case {
        allowed_hosts: Vec::new(),
        ..loopback(host, None, &[])
    };
    let examples = [
        // (case, the guard, rmcp)
        (
            loopback("user@127.0.0.1:8080", None, &[]),
            Verdict::BadHost,
            Verdict::Pass,
        ),
        (
            loopback(" localhost", None, &[]),
            Verdict::Pass,
            Verdict::BadHost,
        ),
        (open_hosts(":8080"), Verdict::BadHost, Verdict::Pass),
        (
            loopback("localhost", Some("null"), &["null"]),
            Verdict::ForeignOrigin,
            Verdict::Pass,
        ),
        (
            loopback(
                "localhost",
                Some("https://app.example:444"),
                &["https://app.example"],
            ),
            Verdict::ForeignOrigin,
            Verdict::Pass,
        ),
        (
            loopback(
                "localhost",
                Some("http://u@localhost:3000"),
                &["http://localhost:*"],
            ),
            Verdict::ForeignOrigin,
            Verdict::Pass,
        ),
    ];
    assert_eq!(examples.len(), DISAGREEMENTS.len());
    let runtime = runtime();
    for ((case, ours, theirs), listed) in examples.iter().zip(DISAGREEMENTS) {
        assert!((listed.applies)(case), "{}: {case:?}", listed.what);
        assert!(!listed.why.is_empty());
        assert_eq!(case.ours(), *ours, "{}", listed.what);
        assert_eq!(runtime.block_on(case.rmcp()), *theirs, "{}", listed.what);
    }
    // And where they agree: the loopback defaults on a loopback request from a loopback page.
    let agreed = loopback(
        "127.0.0.1:8080",
        Some("http://localhost:3000"),
        &["http://localhost:*"],
    );
    assert_eq!(agreed.ours(), Verdict::Pass);
    assert_eq!(runtime.block_on(agreed.rmcp()), Verdict::Pass);
}
