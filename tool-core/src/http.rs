//! A safe HTTP client for tools (feature `http`).
//!
//! Two kinds of request, kept apart on purpose:
//!
//! - **Configured services** ([`HttpClient::get`], [`HttpClient::request`]): downstream APIs the
//!   operator named, each with a base URL. A client bound to a call ([`HttpClient::bind`], or
//!   taken as a tool parameter through [`FromContext`]) forwards the call's allowlisted request
//!   headers (by default only `authorization`) to them, and nothing else: the client never adds
//!   credentials of its own. Redirects are followed only within the service's origin.
//! - **User-supplied URLs** ([`HttpClient::fetch`]): the open web, behind an SSRF guard. Only
//!   `http`/`https`; a host that is (or resolves to) a loopback, private, link-local (cloud
//!   metadata), shared, reserved, documentation, multicast or broadcast address is refused, as
//!   are `localhost`-like, intranet and cloud metadata host names. The guard runs before the
//!   request, on every redirect hop (at most 5), and in the DNS resolver the connection uses, so
//!   a name that resolves differently at connect time (DNS rebinding) gains nothing. No request
//!   header of the call is ever sent to such a URL.
//!
//! Failures are [`ToolError`]s with short messages that name the service or host but never
//! headers, tokens or more than a short excerpt of a body: connect errors, 5xx and 429 are
//! [`ErrorKind::Unavailable`], timeouts [`ErrorKind::Timeout`] (both retried by the executor),
//! 404 [`ErrorKind::NotFound`], 401/403 [`ErrorKind::PermissionDenied`], other 4xx
//! [`ErrorKind::Failed`]. Bodies are capped (5 MiB by default): over the cap is an error unless
//! the caller asks for truncation.
//!
//! Configuration comes from [`HttpConfig`]: built in code, deserialized (serde) from whatever
//! format the host application reads, or read from the environment:
//!
//! | variable | meaning |
//! |---|---|
//! | `TOOL_HTTP_SERVICE_<NAME>` | base URL of service `<name>` (lowercased), e.g. `https://billing.internal/v1` |
//! | `TOOL_HTTP_TIMEOUT_MS` | time limit of one request, redirects and body included (default 30000) |
//! | `TOOL_HTTP_MAX_RESPONSE_BYTES` | largest body read (default 5242880) |
//! | `TOOL_HTTP_FORWARD_HEADERS` | more request headers to forward to services, e.g. `x-request-id,traceparent` |
//! | `TOOL_HTTP_ALLOW_HOSTS` | host names, IP addresses or CIDR ranges `fetch` may reach although the guard refuses them, e.g. `127.0.0.1,intranet.example` |
//!
//! ```no_run
//! use tool_core::http::{HttpClient, HttpConfig};
//! # async fn demo(ctx: &tool_core::ToolContext) -> Result<(), tool_core::ToolError> {
//! let client = HttpClient::new(
//!     HttpConfig::default().service("billing", "https://billing.internal/v1"),
//! )
//! .expect("valid configuration");
//! let invoice = client
//!     .bind(ctx) // forwards the call's `authorization` header, cancelled with the call
//!     .get("billing", "/invoices/42")
//!     .send()
//!     .await?
//!     .text();
//! let page = client.fetch("https://example.com/").await?; // SSRF-guarded, no headers forwarded
//! # let _ = (invoice, page);
//! # Ok(())
//! # }
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::redirect;
use tokio_util::sync::CancellationToken;

use crate::context::{FromContext, ToolContext};
use crate::error::{ErrorKind, ToolError};

pub use reqwest::{Method, Url};

/// Largest response body read by default: 5 MiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 5 * 1024 * 1024;
/// Default time limit of one request, redirects and body included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 5;
/// Request headers forwarded to configured services unless the configuration says otherwise.
pub const DEFAULT_FORWARD_HEADERS: &[&str] = &["authorization"];

/// The prefix of every environment variable [`HttpConfig::from_env`] reads.
pub const ENV_PREFIX: &str = "TOOL_HTTP_";
const ENV_SERVICE: &str = "TOOL_HTTP_SERVICE_";
const ENV_TIMEOUT: &str = "TOOL_HTTP_TIMEOUT_MS";
const ENV_MAX_BYTES: &str = "TOOL_HTTP_MAX_RESPONSE_BYTES";
const ENV_FORWARD: &str = "TOOL_HTTP_FORWARD_HEADERS";
const ENV_ALLOW: &str = "TOOL_HTTP_ALLOW_HOSTS";
const ENV_KNOWN: &[&str] = &[
    ENV_TIMEOUT,
    ENV_MAX_BYTES,
    ENV_FORWARD,
    ENV_ALLOW,
    "TOOL_HTTP_SERVICE_<NAME>",
];

/// Time allowed to open a connection, within the request's limit.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest excerpt of an error body a message quotes.
const EXCERPT_CHARS: usize = 200;
const USER_AGENT: &str = concat!("tool-core/", env!("CARGO_PKG_VERSION"));
const FETCH_ACCEPT: &str = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5";

// ------------------------------------------------------------------------------------------------
// Configuration

/// What the client may reach and how: named services, limits, the headers forwarded to services
/// and the SSRF guard's exceptions.
///
/// Deserializable (serde) with the field names below (`timeout_ms` for the timeout), so a host
/// application can keep it in its own TOML or JSON configuration.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpConfig {
    /// Named downstream services and their base URLs (`http` or `https`, no credentials, no
    /// query). Names are lowercase letters, digits, `_` and `-`.
    pub services: BTreeMap<String, String>,
    /// Time limit of one request: connecting, redirects and reading the body.
    #[serde(rename = "timeout_ms", with = "millis")]
    pub timeout: Duration,
    /// Largest response body read.
    pub max_response_bytes: usize,
    /// Request headers of the call forwarded to configured services (never to fetched URLs).
    /// Default: `authorization` alone. Hop-by-hop and proxy headers are refused.
    pub forward_headers: Vec<String>,
    /// Host names, IP addresses and CIDR ranges that [`HttpClient::fetch`] may reach although the
    /// SSRF guard would refuse them (for example `127.0.0.1` in tests, or an intranet host).
    pub allow_hosts: Vec<String>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            services: BTreeMap::new(),
            timeout: DEFAULT_TIMEOUT,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            forward_headers: DEFAULT_FORWARD_HEADERS
                .iter()
                .map(|h| (*h).to_owned())
                .collect(),
            allow_hosts: Vec::new(),
        }
    }
}

mod millis {
    use std::time::Duration;

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let ms = <u64 as serde::Deserialize>::deserialize(d)?;
        Ok(Duration::from_millis(ms))
    }
}

/// What is wrong with an [`HttpConfig`]; each names the environment variable (or, for a
/// configuration built in code, the field) at fault. Values are not repeated: they may hold
/// secrets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HttpConfigError {
    /// A number could not be read.
    #[error("{var}: expected a whole number greater than zero")]
    InvalidNumber {
        /// The variable or field.
        var: String,
    },
    /// A service name has characters other than letters, digits, `_` and `-`.
    #[error("{var}: a service name is lowercase letters, digits, `_` and `-`")]
    InvalidServiceName {
        /// The variable or field.
        var: String,
    },
    /// A service's base URL is unusable.
    #[error("{var}: {reason}")]
    InvalidServiceUrl {
        /// The variable or field.
        var: String,
        /// What is wrong.
        reason: String,
    },
    /// An allow-list entry is not a host name, an IP address or a CIDR range.
    #[error("{var}: `{entry}` is not a host name, an IP address or a CIDR range")]
    InvalidAllowHost {
        /// The variable or field.
        var: String,
        /// The entry.
        entry: String,
    },
    /// A forwarded header name is not a header name.
    #[error("{var}: `{entry}` is not a header name")]
    InvalidHeaderName {
        /// The variable or field.
        var: String,
        /// The entry.
        entry: String,
    },
    /// A forwarded header is one that must never be forwarded.
    #[error("{var}: `{entry}` is never forwarded: {why}")]
    ForbiddenHeader {
        /// The variable or field.
        var: String,
        /// The header name.
        entry: String,
        /// Why.
        why: &'static str,
    },
    /// A `TOOL_HTTP_*` variable that is not a setting (a typo, most likely).
    #[error("{var} is not a setting{}", suggestion.as_ref().map(|s| format!("; did you mean {s}?")).unwrap_or_default())]
    UnknownVariable {
        /// The variable.
        var: String,
        /// The nearest known variable.
        suggestion: Option<String>,
    },
    /// A variable's value is not UTF-8.
    #[error("{var}: the value is not UTF-8")]
    NotUnicode {
        /// The variable.
        var: String,
    },
    /// The TLS setup or the underlying client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// Where a configuration came from, for naming what is wrong in it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Env,
    Code,
}

impl Source {
    fn service(self, name: &str) -> String {
        match self {
            Self::Env => format!("{ENV_SERVICE}{}", name.to_ascii_uppercase()),
            Self::Code => format!("services.{name}"),
        }
    }
    fn field(self, env: &str, field: &str) -> String {
        match self {
            Self::Env => env.to_owned(),
            Self::Code => field.to_owned(),
        }
    }
}

impl HttpConfig {
    /// Reads the configuration from the process environment (see the module docs for the
    /// variables). Any other `TOOL_HTTP_*` variable is an error, so a typo does not go unnoticed.
    pub fn from_env() -> Result<Self, HttpConfigError> {
        let mut vars = Vec::new();
        for (name, value) in std::env::vars_os() {
            let Some(name) = name.to_str() else { continue };
            if !name.starts_with(ENV_PREFIX) {
                continue;
            }
            let value = value
                .into_string()
                .map_err(|_| HttpConfigError::NotUnicode {
                    var: name.to_owned(),
                })?;
            vars.push((name.to_owned(), value));
        }
        Self::from_vars(vars)
    }

    /// Reads the configuration from `(name, value)` pairs shaped like environment variables;
    /// names without the `TOOL_HTTP_` prefix are ignored.
    pub fn from_vars<N: AsRef<str>, V: AsRef<str>>(
        vars: impl IntoIterator<Item = (N, V)>,
    ) -> Result<Self, HttpConfigError> {
        let mut config = Self::default();
        for (name, value) in vars {
            let (name, value) = (name.as_ref(), value.as_ref().trim());
            if !name.starts_with(ENV_PREFIX) {
                continue;
            }
            if let Some(service) = name.strip_prefix(ENV_SERVICE) {
                config
                    .services
                    .insert(service.to_ascii_lowercase(), value.to_owned());
                continue;
            }
            if value.is_empty() {
                continue;
            }
            match name {
                ENV_TIMEOUT => config.timeout = Duration::from_millis(number(name, value)? as u64),
                ENV_MAX_BYTES => config.max_response_bytes = number(name, value)?,
                ENV_FORWARD => config.forward_headers.extend(list(value)),
                ENV_ALLOW => config.allow_hosts.extend(list(value)),
                _ => {
                    return Err(HttpConfigError::UnknownVariable {
                        var: name.to_owned(),
                        suggestion: ENV_KNOWN
                            .iter()
                            .map(|k| (strsim::jaro_winkler(k, name), *k))
                            .filter(|(score, _)| *score > 0.85)
                            .max_by(|a, b| a.0.total_cmp(&b.0))
                            .map(|(_, k)| k.to_owned()),
                    });
                }
            }
        }
        config.validate(Source::Env)?;
        Ok(config)
    }

    /// Adds a service (builder style).
    pub fn service(mut self, name: impl Into<String>, base_url: impl Into<String>) -> Self {
        self.services.insert(name.into(), base_url.into());
        self
    }

    /// Sets the time limit of one request (builder style).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the largest body read (builder style).
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// Adds a request header to forward to services (builder style).
    pub fn forward_header(mut self, name: impl Into<String>) -> Self {
        self.forward_headers.push(name.into());
        self
    }

    /// Lets [`HttpClient::fetch`] reach a host, IP address or CIDR range the SSRF guard would
    /// refuse (builder style).
    pub fn allow_host(mut self, entry: impl Into<String>) -> Self {
        self.allow_hosts.push(entry.into());
        self
    }

    fn validate(&self, source: Source) -> Result<Validated, HttpConfigError> {
        if self.timeout.is_zero() {
            return Err(HttpConfigError::InvalidNumber {
                var: source.field(ENV_TIMEOUT, "timeout"),
            });
        }
        if self.max_response_bytes == 0 {
            return Err(HttpConfigError::InvalidNumber {
                var: source.field(ENV_MAX_BYTES, "max_response_bytes"),
            });
        }
        let mut services = BTreeMap::new();
        for (name, base) in &self.services {
            let var = source.service(name);
            if name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
            {
                return Err(HttpConfigError::InvalidServiceName { var });
            }
            services.insert(name.clone(), service_base(base, &var)?);
        }
        let var = source.field(ENV_FORWARD, "forward_headers");
        let mut forward: Vec<HeaderName> = Vec::new();
        for entry in &self.forward_headers {
            let name = HeaderName::from_bytes(entry.trim().as_bytes()).map_err(|_| {
                HttpConfigError::InvalidHeaderName {
                    var: var.clone(),
                    entry: entry.clone(),
                }
            })?;
            if let Some(why) = never_forwarded(name.as_str()) {
                return Err(HttpConfigError::ForbiddenHeader {
                    var: var.clone(),
                    entry: entry.clone(),
                    why,
                });
            }
            if !forward.contains(&name) {
                forward.push(name);
            }
        }
        let var = source.field(ENV_ALLOW, "allow_hosts");
        let mut policy = SsrfPolicy::default();
        for entry in &self.allow_hosts {
            policy
                .allow(entry)
                .map_err(|()| HttpConfigError::InvalidAllowHost {
                    var: var.clone(),
                    entry: entry.clone(),
                })?;
        }
        Ok(Validated {
            services,
            forward,
            policy,
        })
    }
}

struct Validated {
    services: BTreeMap<String, Url>,
    forward: Vec<HeaderName>,
    policy: SsrfPolicy,
}

fn number(var: &str, value: &str) -> Result<usize, HttpConfigError> {
    match value.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(HttpConfigError::InvalidNumber {
            var: var.to_owned(),
        }),
    }
}

fn list(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn service_base(base: &str, var: &str) -> Result<Url, HttpConfigError> {
    let bad = |reason: &str| HttpConfigError::InvalidServiceUrl {
        var: var.to_owned(),
        reason: reason.to_owned(),
    };
    let mut url = Url::parse(base.trim()).map_err(|_| bad("not an absolute URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("only http and https services are supported"));
    }
    if url.host().is_none() {
        return Err(bad("the URL has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "the URL carries credentials; the client never adds its own, it forwards the caller's",
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("a base URL has no query or fragment"));
    }
    let path = url.path().trim_end_matches('/').to_owned();
    url.set_path(&path);
    Ok(url)
}

/// Why a header may never be forwarded, if it may not.
fn never_forwarded(name: &str) -> Option<&'static str> {
    match name {
        "host" | "content-length" | "transfer-encoding" | "connection" | "keep-alive"
        | "upgrade" | "te" | "trailer" | "expect" => {
            Some("it describes the connection or the message, not the caller")
        }
        n if n.starts_with("proxy-") => Some("it is meant for a proxy"),
        _ => None,
    }
}

// ------------------------------------------------------------------------------------------------
// Address classification and the SSRF policy

/// A kind of address the SSRF guard refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddrClass {
    /// `0.0.0.0`, `::`.
    Unspecified,
    /// `0.0.0.0/8` ("this network"; reaches the local host on Linux).
    ThisNetwork,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16`.
    Private,
    /// `100.64.0.0/10`, carrier-grade NAT.
    Shared,
    /// `169.254/16`, `fe80::/10`.
    LinkLocal,
    /// `fc00::/7`.
    UniqueLocal,
    /// `fec0::/10` (deprecated).
    SiteLocal,
    /// `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`, `3fff::/20`.
    Documentation,
    /// `198.18.0.0/15`.
    Benchmarking,
    /// `224/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// Reserved or special-purpose: `240/4`, `192.0.0/24`, `192.88.99/24`, IPv4-compatible
    /// IPv6, `64:ff9b:1::/48`, `100::/64`, `2001::/23` (Teredo, ...), `5f00::/16`, and anything
    /// outside `2000::/3`.
    Reserved,
}

impl AddrClass {
    fn noun(self) -> &'static str {
        match self {
            Self::Unspecified => "unspecified",
            Self::ThisNetwork => "\"this network\"",
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::Shared => "shared (carrier-grade NAT)",
            Self::LinkLocal => "link-local",
            Self::UniqueLocal => "unique-local",
            Self::SiteLocal => "site-local",
            Self::Documentation => "documentation",
            Self::Benchmarking => "benchmarking",
            Self::Multicast => "multicast",
            Self::Broadcast => "broadcast",
            Self::Reserved => "reserved",
        }
    }
}

/// Why an address is refused: its class, whether it is a cloud metadata endpoint, and the IPv4
/// address an IPv6 form embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocked {
    /// The address.
    pub addr: IpAddr,
    /// Its class (of the embedded IPv4 address, for IPv4-mapped and translated forms).
    pub class: AddrClass,
    /// Whether it is a known cloud metadata endpoint.
    pub metadata: bool,
    /// The IPv4 address an IPv6 form (mapped, NAT64, 6to4) embeds.
    pub embedded: Option<Ipv4Addr>,
}

impl Blocked {
    /// "a loopback address", "a link-local (cloud metadata) address", "an IPv4-mapped form of
    /// 127.0.0.1, a loopback address".
    pub fn describe(&self) -> String {
        let meta = if self.metadata {
            " (cloud metadata)"
        } else {
            ""
        };
        let noun = self.class.noun();
        let article = match self.class {
            AddrClass::Unspecified | AddrClass::Broadcast => "the",
            _ => "a",
        };
        let what = format!("{article} {noun}{meta} address");
        match self.embedded {
            Some(v4) => format!("a form of {v4}, {what}"),
            None => what,
        }
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is {}", self.addr, self.describe())
    }
}

/// Classifies an address: `Some` when the SSRF guard refuses it (before any allow list).
///
/// ```
/// use tool_core::http::{classify, AddrClass};
/// let b = classify("169.254.169.254".parse().unwrap()).unwrap();
/// assert_eq!(b.class, AddrClass::LinkLocal);
/// assert_eq!(b.to_string(), "169.254.169.254 is a link-local (cloud metadata) address");
/// assert!(classify("::ffff:10.0.0.1".parse().unwrap()).is_some());
/// assert!(classify("93.184.215.14".parse().unwrap()).is_none());
/// ```
pub fn classify(addr: IpAddr) -> Option<Blocked> {
    match addr {
        IpAddr::V4(v4) => classify_v4(v4).map(|(class, metadata)| Blocked {
            addr,
            class,
            metadata,
            embedded: None,
        }),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn in_v4(n: u32, base: [u8; 4], len: u32) -> bool {
    let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
    n & mask == u32::from_be_bytes(base) & mask
}

fn classify_v4(ip: Ipv4Addr) -> Option<(AddrClass, bool)> {
    use AddrClass::*;
    let n = u32::from(ip);
    let class = if n == 0 {
        Unspecified
    } else if in_v4(n, [0, 0, 0, 0], 8) {
        ThisNetwork
    } else if in_v4(n, [10, 0, 0, 0], 8)
        || in_v4(n, [172, 16, 0, 0], 12)
        || in_v4(n, [192, 168, 0, 0], 16)
    {
        Private
    } else if in_v4(n, [100, 64, 0, 0], 10) {
        Shared
    } else if in_v4(n, [127, 0, 0, 0], 8) {
        Loopback
    } else if in_v4(n, [169, 254, 0, 0], 16) {
        LinkLocal
    } else if in_v4(n, [192, 0, 2, 0], 24)
        || in_v4(n, [198, 51, 100, 0], 24)
        || in_v4(n, [203, 0, 113, 0], 24)
    {
        Documentation
    } else if in_v4(n, [198, 18, 0, 0], 15) {
        Benchmarking
    } else if in_v4(n, [224, 0, 0, 0], 4) {
        Multicast
    } else if n == u32::MAX {
        Broadcast
    } else if in_v4(n, [240, 0, 0, 0], 4)
        || in_v4(n, [192, 0, 0, 0], 24)
        || in_v4(n, [192, 88, 99, 0], 24)
    {
        Reserved
    } else {
        return None;
    };
    // AWS/GCP/Azure/OpenStack, AWS ECS task metadata, AWS DNS and time, Alibaba Cloud.
    let metadata = matches!(
        ip.octets(),
        [169, 254, 169, 254]
            | [169, 254, 170, 2]
            | [169, 254, 169, 253]
            | [169, 254, 169, 123]
            | [100, 100, 100, 200]
    );
    Some((class, metadata))
}

fn in_v6(n: u128, base: u128, len: u32) -> bool {
    let mask = if len == 0 {
        0
    } else {
        u128::MAX << (128 - len)
    };
    n & mask == base & mask
}

fn classify_v6(ip: Ipv6Addr) -> Option<Blocked> {
    use AddrClass::*;
    let n = u128::from(ip);
    let addr = IpAddr::V6(ip);
    let plain = |class: AddrClass| {
        Some(Blocked {
            addr,
            class,
            metadata: false,
            embedded: None,
        })
    };
    // A form that carries an IPv4 address: refused when that address is.
    let embeds = |v4: Ipv4Addr| {
        classify_v4(v4).map(|(class, metadata)| Blocked {
            addr,
            class,
            metadata,
            embedded: Some(v4),
        })
    };
    let low32 = Ipv4Addr::from(n as u32);
    if n == 0 {
        plain(Unspecified)
    } else if n == 1 {
        plain(Loopback)
    } else if in_v6(n, 0xffff_0000_0000, 96) || in_v6(n, 0xffff_0000_0000_0000, 96) {
        // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated).
        embeds(low32)
    } else if in_v6(n, 0, 96) {
        // ::a.b.c.d, IPv4-compatible: deprecated, never a real destination.
        embeds(low32).or_else(|| plain(Reserved))
    } else if in_v6(n, 0x0064_ff9b << 96, 96) {
        // NAT64 well-known prefix.
        embeds(low32)
    } else if in_v6(n, 0x0064_ff9b_0001 << 80, 48) {
        // Local-use NAT64: the embedded address sits at a network-chosen place.
        plain(Reserved)
    } else if in_v6(n, 0x2002 << 112, 16) {
        // 6to4: 2002:AABB:CCDD::/48 embeds AA.BB.CC.DD.
        embeds(Ipv4Addr::from((n >> 80) as u32))
    } else if in_v6(n, 0x2001_0db8 << 96, 32) || in_v6(n, 0x3fff << 112, 20) {
        plain(Documentation)
    } else if in_v6(n, 0x2001 << 112, 23)
        || in_v6(n, 0x0100 << 112, 64)
        || in_v6(n, 0x5f00 << 112, 16)
    {
        plain(Reserved)
    } else if in_v6(n, 0xfc00 << 112, 7) {
        Some(Blocked {
            addr,
            class: UniqueLocal,
            // AWS's IPv6 instance metadata endpoint.
            metadata: ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254),
            embedded: None,
        })
    } else if in_v6(n, 0xfe80 << 112, 10) {
        plain(LinkLocal)
    } else if in_v6(n, 0xfec0 << 112, 10) {
        plain(SiteLocal)
    } else if in_v6(n, 0xff00 << 112, 8) {
        plain(Multicast)
    } else if !in_v6(n, 0x2000 << 112, 3) {
        // Only 2000::/3 is allocated as global unicast.
        plain(Reserved)
    } else {
        None
    }
}

/// A refusal by the SSRF guard; the message says what was refused and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}; fetching it is not allowed")]
pub struct Refused {
    reason: String,
}

impl Refused {
    fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }

    /// What was refused and why, e.g. "10.0.0.1 is a private address".
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// Host names that are the local host.
const LOCAL_NAMES: &[&str] = &[
    "localhost",
    "localhost.localdomain",
    "localhost6",
    "localhost6.localdomain6",
    "ip6-localhost",
    "ip6-loopback",
];
/// Host names of cloud metadata services.
const METADATA_NAMES: &[&str] = &[
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.azure.internal",
    "metadata.tencentyun.com",
    "metadata.platformequinix.com",
];

/// Why a host name is refused by name, before resolution (normalized: lowercase, no final dot).
fn name_class(name: &str) -> Option<&'static str> {
    if METADATA_NAMES.contains(&name) {
        Some("a cloud metadata host name")
    } else if LOCAL_NAMES.contains(&name) || name.ends_with(".localhost") {
        Some("a name of the local host")
    } else if name.ends_with(".internal") || name.ends_with(".intranet") {
        Some("an internal host name")
    } else if name.ends_with(".local") {
        Some("a link-local (mDNS) host name")
    } else if name.ends_with(".localdomain")
        || name.ends_with(".home.arpa")
        || name.ends_with(".lan")
    {
        Some("a local-network host name")
    } else if !name.contains('.') {
        Some("a single-label (intranet) host name")
    } else {
        None
    }
}

/// A CIDR range of the allow list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Net {
    addr: IpAddr,
    prefix: u32,
}

impl Net {
    fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => in_v4(u32::from(ip), net.octets(), self.prefix),
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                in_v6(u128::from(ip), u128::from(net), self.prefix)
            }
            _ => false,
        }
    }
}

/// The SSRF guard's exceptions: host names and address ranges the operator allowed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct SsrfPolicy {
    names: Vec<String>,
    nets: Vec<Net>,
}

fn normalize_name(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

impl SsrfPolicy {
    fn allow(&mut self, entry: &str) -> Result<(), ()> {
        let entry = entry.trim();
        let (ip_part, prefix) = match entry.split_once('/') {
            Some((ip, prefix)) => (ip, Some(prefix.parse::<u32>().map_err(|_| ())?)),
            None => (entry, None),
        };
        let ip_part = ip_part
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .unwrap_or(ip_part);
        if let Ok(ip) = ip_part.parse::<IpAddr>() {
            let ip = ip.to_canonical();
            let max = if ip.is_ipv4() { 32 } else { 128 };
            let prefix = prefix.unwrap_or(max);
            if prefix > max {
                return Err(());
            }
            self.nets.push(Net { addr: ip, prefix });
            return Ok(());
        }
        let name = normalize_name(entry);
        let valid = prefix.is_none()
            && !name.is_empty()
            && name.len() <= 253
            && name.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            });
        if !valid {
            return Err(());
        }
        self.names.push(name);
        Ok(())
    }

    fn name_allowed(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    fn check_ip(&self, ip: IpAddr) -> Result<(), Refused> {
        if self.nets.iter().any(|net| net.contains(ip)) {
            return Ok(());
        }
        match classify(ip) {
            Some(blocked) => Err(Refused::new(blocked.to_string())),
            None => Ok(()),
        }
    }

    fn check_name(&self, name: &str) -> Result<(), Refused> {
        let name = normalize_name(name);
        if self.name_allowed(&name) {
            return Ok(());
        }
        // A resolver may be handed a literal (hyper passes literals straight to connect, but
        // be sure).
        if let Ok(ip) = name.parse::<IpAddr>() {
            return self.check_ip(ip);
        }
        match name_class(&name) {
            Some(what) => Err(Refused::new(format!("{name} is {what}"))),
            None => Ok(()),
        }
    }

    /// Checks a URL before a request or a redirect: scheme, credentials, host.
    fn check_url(&self, url: &Url) -> Result<(), GuardError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(GuardError::Invalid(format!(
                "only http and https URLs can be fetched, not {}:",
                url.scheme()
            )));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(GuardError::Invalid(
                "URLs with a user name or password are not fetched".into(),
            ));
        }
        let Some(host) = url.host_str() else {
            return Err(GuardError::Invalid("the URL has no host".into()));
        };
        // The URL parser has already turned every IPv4 spelling (decimal, hex, octal, short
        // forms) into dotted quads; IPv6 literals come in brackets.
        let literal = host.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
        match literal.unwrap_or(host).parse::<IpAddr>() {
            Ok(ip) => self.check_ip(ip)?,
            Err(_) => self.check_name(host)?,
        }
        Ok(())
    }

    /// Checks what a name resolved to: every address must pass, or none is used.
    fn check_resolved(&self, name: &str, addrs: &[SocketAddr]) -> Result<(), Refused> {
        if self.name_allowed(&normalize_name(name)) {
            return Ok(());
        }
        for addr in addrs {
            let ip = addr.ip();
            if self.nets.iter().any(|net| net.contains(ip)) {
                continue;
            }
            if let Some(blocked) = classify(ip) {
                return Err(Refused::new(format!(
                    "{name} resolves to {ip}, {}",
                    blocked.describe()
                )));
            }
        }
        Ok(())
    }
}

/// Why the guard or a redirect policy stopped a request.
#[derive(Debug, thiserror::Error)]
enum GuardError {
    #[error(transparent)]
    Refused(#[from] Refused),
    #[error("{0}")]
    Invalid(String),
    #[error("stopped after {MAX_REDIRECTS} redirects")]
    TooManyRedirects,
    #[error("{0}")]
    CrossOrigin(String),
}

// ------------------------------------------------------------------------------------------------
// DNS

type LookupFuture = Pin<Box<dyn Future<Output = std::io::Result<Vec<SocketAddr>>> + Send>>;
type Lookup = Arc<dyn Fn(String) -> LookupFuture + Send + Sync>;

fn system_lookup() -> Lookup {
    Arc::new(|name: String| {
        Box::pin(async move { Ok(tokio::net::lookup_host((name.as_str(), 0)).await?.collect()) })
    })
}

/// The resolver of the fetch client: refuses names and resolved addresses the policy refuses, at
/// connect time, so a name cannot resolve to a public address when checked and to a private one
/// when connected to.
struct GuardedResolver {
    policy: Arc<SsrfPolicy>,
    lookup: Lookup,
}

/// A failed lookup, kept apart from refusals so it maps to its own message.
#[derive(Debug, thiserror::Error)]
#[error("cannot resolve {name}")]
struct LookupFailed {
    name: String,
    #[source]
    source: std::io::Error,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let name = name.as_str().to_owned();
        let policy = self.policy.clone();
        let lookup = self.lookup.clone();
        Box::pin(async move {
            policy.check_name(&name)?;
            let addrs = lookup(name.clone()).await.map_err(|source| LookupFailed {
                name: name.clone(),
                source,
            })?;
            if addrs.is_empty() {
                return Err(LookupFailed {
                    name,
                    source: std::io::Error::new(std::io::ErrorKind::NotFound, "no addresses"),
                }
                .into());
            }
            policy.check_resolved(&name, &addrs)?;
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

// ------------------------------------------------------------------------------------------------
// The client

/// The HTTP client tools use: cheap to clone, built once (per process or per host application).
///
/// A tool takes it as a parameter marked `#[ctx]`; it then comes from the context's extensions
/// (`ContextBuilder::extension(client)`) or, when none was added, from the environment (built on
/// first use), bound to the call: service requests forward the call's allowlisted headers and
/// every request stops when the call is cancelled.
#[derive(Clone)]
pub struct HttpClient {
    shared: Arc<Shared>,
    binding: Option<Binding>,
}

struct Shared {
    config: HttpConfig,
    services: BTreeMap<String, Url>,
    forward: Vec<HeaderName>,
    policy: Arc<SsrfPolicy>,
    service_client: reqwest::Client,
    fetch_client: reqwest::Client,
}

#[derive(Clone)]
struct Binding {
    headers: Arc<[(HeaderName, HeaderValue)]>,
    cancel: CancellationToken,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("services", &self.shared.services.keys().collect::<Vec<_>>())
            .field("timeout", &self.shared.config.timeout)
            .field("bound", &self.binding.is_some())
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// Builds a client; the configuration is validated here.
    pub fn new(config: HttpConfig) -> Result<Self, HttpConfigError> {
        Self::with_lookup(config, system_lookup())
    }

    /// Builds a client from the environment ([`HttpConfig::from_env`]).
    pub fn from_env() -> Result<Self, HttpConfigError> {
        Self::new(HttpConfig::from_env()?)
    }

    /// The process-wide client built from the environment on first use; what a tool gets when
    /// the context has no `HttpClient` extension. A configuration error is reported on every
    /// use.
    pub fn shared_from_env() -> Result<Self, ToolError> {
        static SHARED: OnceLock<Result<HttpClient, HttpConfigError>> = OnceLock::new();
        match SHARED.get_or_init(Self::from_env) {
            Ok(client) => Ok(client.clone()),
            Err(e) => Err(ToolError::new(
                ErrorKind::Internal,
                format!("the HTTP client is misconfigured: {e}"),
            )),
        }
    }

    fn with_lookup(config: HttpConfig, lookup: Lookup) -> Result<Self, HttpConfigError> {
        let Validated {
            services,
            forward,
            policy,
        } = config.validate(Source::Code)?;
        let tls = tls_config()?;
        let base = || {
            reqwest::Client::builder()
                .tls_backend_preconfigured(tls.clone())
                .user_agent(USER_AGENT)
                .timeout(config.timeout)
                .connect_timeout(CONNECT_TIMEOUT.min(config.timeout))
                .referer(false)
                .no_proxy()
                .retry(reqwest::retry::never())
        };
        let service_client = base()
            .redirect(redirect::Policy::custom(same_origin_redirects))
            .build()
            .map_err(|e| HttpConfigError::Client(e.to_string()))?;
        let policy = Arc::new(policy);
        let redirect_policy = policy.clone();
        let fetch_client = base()
            .dns_resolver(GuardedResolver {
                policy: policy.clone(),
                lookup,
            })
            .redirect(redirect::Policy::custom(move |attempt| {
                if attempt.previous().len() > MAX_REDIRECTS {
                    return attempt.error(GuardError::TooManyRedirects);
                }
                match redirect_policy.check_url(attempt.url()) {
                    Ok(()) => attempt.follow(),
                    Err(e) => attempt.error(e),
                }
            }))
            // One request per call: no idle connection outlives it (or its runtime).
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| HttpConfigError::Client(e.to_string()))?;
        Ok(Self {
            shared: Arc::new(Shared {
                config,
                services,
                forward,
                policy,
                service_client,
                fetch_client,
            }),
            binding: None,
        })
    }

    /// The configuration the client was built from.
    pub fn config(&self) -> &HttpConfig {
        &self.shared.config
    }

    /// The configured service names, sorted.
    pub fn services(&self) -> impl Iterator<Item = &str> {
        self.shared.services.keys().map(String::as_str)
    }

    /// This client bound to a call: requests to services carry the call's allowlisted headers
    /// (and no others), and every request ends when the call is cancelled.
    pub fn bind(&self, ctx: &ToolContext) -> Self {
        let headers: Vec<(HeaderName, HeaderValue)> = ctx
            .headers()
            .iter()
            .filter_map(|(name, value)| {
                let name = self
                    .shared
                    .forward
                    .iter()
                    .find(|h| h.as_str().eq_ignore_ascii_case(name))?;
                let mut value = HeaderValue::from_bytes(value.as_bytes()).ok()?;
                value.set_sensitive(true);
                Some((name.clone(), value))
            })
            .collect();
        Self {
            shared: self.shared.clone(),
            binding: Some(Binding {
                headers: headers.into(),
                cancel: ctx.cancellation().clone(),
            }),
        }
    }

    /// A GET request to a configured service; `path` is relative to the service's base URL.
    pub fn get(&self, service: &str, path: &str) -> ServiceRequest {
        self.request(Method::GET, service, path)
    }

    /// A request to a configured service; `path` (with an optional `?query`) is relative to the
    /// service's base URL and may not leave its path.
    pub fn request(&self, method: Method, service: &str, path: &str) -> ServiceRequest {
        let target = Target::Service {
            name: service.to_owned(),
            method: method.clone(),
            path: path.split(['?', '#']).next().unwrap_or_default().to_owned(),
        };
        let url = self.service_url(service, path);
        ServiceRequest {
            client: self.clone(),
            method,
            url,
            target,
            headers: HeaderMap::new(),
            body: None,
            max_bytes: self.shared.config.max_response_bytes,
            truncate: false,
            timeout: None,
        }
    }

    fn service_url(&self, service: &str, path: &str) -> Result<Url, ToolError> {
        let Some(base) = self.shared.services.get(&service.to_ascii_lowercase()) else {
            let known: Vec<&str> = self.services().collect();
            let hint = match strsim_nearest(service, &known) {
                Some(near) => format!("; did you mean `{near}`?"),
                None if known.is_empty() => format!(
                    "; set {ENV_SERVICE}{} to its base URL",
                    service.to_ascii_uppercase()
                ),
                None => format!("; configured: {}", known.join(", ")),
            };
            return Err(ToolError::new(
                ErrorKind::Internal,
                format!("no HTTP service named `{service}` is configured{hint}"),
            ));
        };
        let invalid = || {
            ToolError::invalid_input(format!("`{path}` is not a path under service `{service}`"))
        };
        let path_part = path.split(['?', '#']).next().unwrap_or_default();
        if path_part.contains("://") || path_part.starts_with("//") || path_part.contains('\\') {
            return Err(invalid());
        }
        let joined = format!(
            "{}/{}",
            base.as_str().trim_end_matches('/'),
            path.trim_start_matches('/')
        );
        let url = Url::parse(&joined).map_err(|_| invalid())?;
        let base_path = base.path().trim_end_matches('/');
        let under = url.path() == base_path
            || url.path().starts_with(&format!("{base_path}/"))
            || base_path.is_empty();
        if url.origin() != base.origin() || !under {
            return Err(invalid());
        }
        Ok(url)
    }

    /// GETs a URL from outside (typically from the model) behind the SSRF guard, reading the
    /// whole body (an error past the size cap). No header of the call is sent.
    pub async fn fetch(&self, url: &str) -> Result<HttpResponse, ToolError> {
        self.fetch_with(url, FetchOptions::default()).await
    }

    /// [`fetch`](Self::fetch) with options: a smaller cap, truncation instead of an error,
    /// another time limit, refusing non-text bodies before reading them.
    pub async fn fetch_with(
        &self,
        url: &str,
        options: FetchOptions,
    ) -> Result<HttpResponse, ToolError> {
        let parsed = Url::parse(url.trim()).map_err(|e| {
            ToolError::invalid_input(format!(
                "not an absolute http or https URL ({e}); write it whole, e.g. https://example.com/"
            ))
        })?;
        let target = Target::Web {
            host: host_label(&parsed),
        };
        // The first hop, IP literals included (they never reach the resolver); the fetch
        // client's resolver and redirect policy check the rest with the same policy.
        self.shared
            .policy
            .check_url(&parsed)
            .map_err(|e| guard_error(e, &target))?;
        let mut request = self
            .shared
            .fetch_client
            .get(parsed)
            .header(header::ACCEPT, FETCH_ACCEPT);
        if let Some(timeout) = options.timeout {
            request = request.timeout(timeout);
        }
        let read = ReadOptions {
            max_bytes: options
                .max_bytes
                .unwrap_or(self.shared.config.max_response_bytes),
            truncate: options.truncate,
            text_only: options.text_only,
        };
        let timeout = options.timeout.unwrap_or(self.shared.config.timeout);
        self.run(execute(request, target, read, timeout)).await
    }

    async fn run<T>(
        &self,
        fut: impl Future<Output = Result<T, ToolError>>,
    ) -> Result<T, ToolError> {
        match &self.binding {
            Some(binding) => match binding.cancel.run_until_cancelled(fut).await {
                Some(result) => result,
                None => Err(ToolError::new(
                    ErrorKind::Cancelled,
                    "the request was abandoned: the call was cancelled",
                )),
            },
            None => fut.await,
        }
    }
}

fn strsim_nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(k, name), *k))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

fn same_origin_redirects(attempt: redirect::Attempt<'_>) -> redirect::Action {
    let previous = attempt.previous();
    if previous.len() > MAX_REDIRECTS {
        return attempt.error(GuardError::TooManyRedirects);
    }
    let first = &previous[0];
    if attempt.url().origin() != first.origin() {
        let to = host_label(attempt.url());
        return attempt.error(GuardError::CrossOrigin(format!(
            "redirected to {to}, outside the service; not followed"
        )));
    }
    attempt.follow()
}

fn tls_config() -> Result<rustls::ClientConfig, HttpConfigError> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_platform_verifier())
        .map_err(|e| HttpConfigError::Client(format!("TLS: {e}")))?
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

// Kept out of rustc's "other types implement `FromContext`" list, so the built-in extractors
// are what a mistaken `#[ctx]` is shown, with or without this feature.
#[diagnostic::do_not_recommend]
impl FromContext for HttpClient {
    /// The context's `HttpClient` extension, or the one built from the environment, bound to
    /// the call.
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        let client = match ctx.extension::<HttpClient>() {
            Some(client) => client.clone(),
            None => match ctx.extension::<Arc<HttpClient>>() {
                Some(client) => HttpClient::clone(client),
                None => HttpClient::shared_from_env()?,
            },
        };
        Ok(client.bind(ctx))
    }
}

/// Options of [`HttpClient::fetch_with`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct FetchOptions {
    /// Largest body read (default: the configuration's `max_response_bytes`).
    pub max_bytes: Option<usize>,
    /// Cut the body at the cap and mark the response truncated, instead of failing.
    pub truncate: bool,
    /// Time limit of this request (default: the configuration's).
    pub timeout: Option<Duration>,
    /// Refuse a body that is not text (by its content type, or its first bytes when it has
    /// none) before reading it.
    pub text_only: bool,
}

impl FetchOptions {
    /// Sets the largest body read.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = Some(bytes);
        self
    }
    /// Cuts the body at the cap instead of failing.
    pub fn truncate(mut self, truncate: bool) -> Self {
        self.truncate = truncate;
        self
    }
    /// Sets the time limit.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
    /// Refuses non-text bodies.
    pub fn text_only(mut self, text_only: bool) -> Self {
        self.text_only = text_only;
        self
    }
}

/// A request to a configured service, sent with [`send`](Self::send).
#[must_use = "a request does nothing until it is sent"]
pub struct ServiceRequest {
    client: HttpClient,
    method: Method,
    url: Result<Url, ToolError>,
    target: Target,
    headers: HeaderMap,
    body: Option<Result<Vec<u8>, ToolError>>,
    max_bytes: usize,
    truncate: bool,
    timeout: Option<Duration>,
}

impl fmt::Debug for ServiceRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServiceRequest")
            .field("target", &self.target.to_string())
            .finish_non_exhaustive()
    }
}

impl ServiceRequest {
    /// Sets a header of this request (replacing a forwarded one of the same name).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            (Ok(name), Ok(value)) => {
                self.headers.insert(name, value);
            }
            _ => {
                self.url = Err(ToolError::internal(format!(
                    "header `{name}` of a request to {} is not valid",
                    self.target
                )))
            }
        }
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = Some(Ok(body.into()));
        self
    }

    /// Sets a JSON body and `content-type: application/json`.
    pub fn json<T: serde::Serialize + ?Sized>(mut self, value: &T) -> Self {
        self.body = Some(serde_json::to_vec(value).map_err(ToolError::internal));
        self.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        self
    }

    /// Sets the time limit of this request.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the largest body read.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// Cuts the body at the cap and marks the response truncated, instead of failing.
    pub fn truncate(mut self, truncate: bool) -> Self {
        self.truncate = truncate;
        self
    }

    /// Sends the request. A status other than 2xx is an error of the matching kind.
    pub async fn send(self) -> Result<HttpResponse, ToolError> {
        let url = self.url?;
        let mut headers = HeaderMap::new();
        if let Some(binding) = &self.client.binding {
            for (name, value) in binding.headers.iter() {
                headers.insert(name.clone(), value.clone());
            }
        }
        for (name, value) in &self.headers {
            headers.insert(name.clone(), value.clone());
        }
        let mut request = self
            .client
            .shared
            .service_client
            .request(self.method, url)
            .headers(headers);
        if let Some(body) = self.body {
            request = request.body(body?);
        }
        let timeout = self.timeout.unwrap_or(self.client.shared.config.timeout);
        if let Some(t) = self.timeout {
            request = request.timeout(t);
        }
        let read = ReadOptions {
            max_bytes: self.max_bytes,
            truncate: self.truncate,
            text_only: false,
        };
        self.client
            .run(execute(request, self.target, read, timeout))
            .await
    }
}

/// How much of a body to read, and how.
#[derive(Debug, Clone, Copy)]
struct ReadOptions {
    max_bytes: usize,
    truncate: bool,
    text_only: bool,
}

/// What a request went to, for messages: a service by name, or a host of the web.
#[derive(Debug, Clone)]
enum Target {
    Service {
        name: String,
        method: Method,
        path: String,
    },
    Web {
        host: String,
    },
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Service { name, .. } => write!(f, "service `{name}`"),
            Self::Web { host } => f.write_str(host),
        }
    }
}

impl Target {
    fn request(&self) -> String {
        match self {
            Self::Service { method, path, .. } => format!(" ({method} {path})"),
            Self::Web { .. } => String::new(),
        }
    }
}

/// `host[:port]` of a URL, IPv6 in brackets.
fn host_label(url: &Url) -> String {
    let host = url.host_str().unwrap_or("the host");
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// A response whose body has been read.
#[derive(Clone)]
pub struct HttpResponse {
    status: StatusCode,
    url: Url,
    headers: HeaderMap,
    body: Vec<u8>,
    truncated: bool,
}

impl fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status.as_u16())
            .field("host", &host_label(&self.url))
            .field("content_type", &self.content_type())
            .field("bytes", &self.body.len())
            .field("truncated", &self.truncated)
            .finish()
    }
}

impl HttpResponse {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.status.as_u16()
    }

    /// The final URL, after redirects.
    pub fn url(&self) -> &str {
        self.url.as_str()
    }

    /// The `content-type` header as sent.
    pub fn content_type(&self) -> Option<&str> {
        self.header("content-type")
    }

    /// The media type alone, lowercased (`text/html` for `text/html; charset=utf-8`).
    pub fn media_type(&self) -> Option<String> {
        self.content_type().map(media_type)
    }

    /// A response header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }

    /// The body, as read (see [`truncated`](Self::truncated)).
    pub fn bytes(&self) -> &[u8] {
        &self.body
    }

    /// The body, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.body
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body decoded from JSON.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, ToolError> {
        serde_json::from_slice(&self.body).map_err(|e| {
            ToolError::failed(format!(
                "{} did not send the expected JSON: {}",
                host_label(&self.url),
                excerpt(&e.to_string())
            ))
        })
    }

    /// Whether the body was cut at the cap (only when truncation was asked for).
    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

/// `text/html` from `Text/HTML; charset=utf-8`.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a content type is text a person or a model can read: `text/*`, JSON, XML, YAML,
/// JavaScript, form data, and their `+json`/`+xml` variants.
pub fn is_text_content_type(content_type: &str) -> bool {
    let media = media_type(content_type);
    media.starts_with("text/")
        || media.ends_with("+json")
        || media.ends_with("+xml")
        || matches!(
            media.as_str(),
            "application/json"
                | "application/xml"
                | "application/xhtml+xml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-javascript"
                | "application/yaml"
                | "application/x-yaml"
                | "application/toml"
                | "application/x-www-form-urlencoded"
                | "application/x-ndjson"
                | "application/graphql"
                | "application/sql"
        )
}

// ------------------------------------------------------------------------------------------------
// Sending, reading and mapping errors

async fn execute(
    request: reqwest::RequestBuilder,
    target: Target,
    read: ReadOptions,
    timeout: Duration,
) -> Result<HttpResponse, ToolError> {
    let mut response = request
        .send()
        .await
        .map_err(|e| request_error(e, &target, timeout))?;
    let status = response.status();
    if !status.is_success() {
        let retry_after = response
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let body = match (&target, response.headers().get(header::CONTENT_TYPE)) {
            (Target::Service { .. }, Some(ct)) if ct.to_str().is_ok_and(is_text_content_type) => {
                first_bytes(&mut response, 1024).await
            }
            _ => Vec::new(),
        };
        return Err(status_error(status, &target, retry_after, &body));
    }
    if read.text_only
        && let Some(ct) = response.headers().get(header::CONTENT_TYPE)
    {
        let ct = ct.to_str().unwrap_or("binary");
        if !is_text_content_type(ct) {
            return Err(ToolError::failed(format!(
                "{target} sent {}, not text; only text content can be read",
                media_type(ct)
            )));
        }
    }
    if !read.truncate
        && let Some(length) = response.content_length()
        && length > read.max_bytes as u64
    {
        return Err(too_large(&target, Some(length), read.max_bytes));
    }
    let url = response.url().clone();
    let headers = response.headers().clone();
    let sniff = read.text_only && !headers.contains_key(header::CONTENT_TYPE);
    let mut body: Vec<u8> = Vec::with_capacity(
        response
            .content_length()
            .map_or(8192, |l| l.min(read.max_bytes as u64) as usize),
    );
    let mut truncated = false;
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| request_error(e, &target, timeout))?
    {
        let room = read.max_bytes - body.len();
        if chunk.len() > room {
            if !read.truncate {
                return Err(too_large(&target, None, read.max_bytes));
            }
            body.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
        if sniff && body.len() >= 512 {
            refuse_binary(&body, &target)?;
        }
    }
    if sniff {
        refuse_binary(&body, &target)?;
    }
    Ok(HttpResponse {
        status,
        url,
        headers,
        body,
        truncated,
    })
}

fn refuse_binary(body: &[u8], target: &Target) -> Result<(), ToolError> {
    if body[..body.len().min(1024)].contains(&0) {
        return Err(ToolError::failed(format!(
            "{target} sent binary content; only text content can be read"
        )));
    }
    Ok(())
}

async fn first_bytes(response: &mut reqwest::Response, max: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < max {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk[..chunk.len().min(max - body.len())]),
            _ => break,
        }
    }
    body
}

fn too_large(target: &Target, length: Option<u64>, max: usize) -> ToolError {
    let size = match length {
        Some(length) => format!("{length} bytes, "),
        None => String::new(),
    };
    ToolError::failed(format!(
        "the response from {target} is {size}over the {max}-byte limit"
    ))
}

/// A short, single-line excerpt of a body or message.
fn excerpt(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > EXCERPT_CHARS {
        let cut: String = flat.chars().take(EXCERPT_CHARS).collect();
        format!("{cut}...")
    } else {
        flat
    }
}

fn status_error(
    status: StatusCode,
    target: &Target,
    retry_after: Option<u64>,
    body: &[u8],
) -> ToolError {
    let code = status.as_u16();
    let kind = match code {
        404 | 410 => ErrorKind::NotFound,
        401 | 403 | 407 => ErrorKind::PermissionDenied,
        504 => ErrorKind::Timeout,
        408 | 425 | 429 | 500..=599 => ErrorKind::Unavailable,
        _ => ErrorKind::Failed,
    };
    let reason = status.canonical_reason().unwrap_or("");
    let mut message = format!("{target} answered {code} {reason}")
        .trim_end()
        .to_owned();
    message.push_str(&target.request());
    if let Some(seconds) = retry_after.filter(|_| kind == ErrorKind::Unavailable) {
        message.push_str(&format!("; retry after {seconds} s"));
    }
    let text = excerpt(&String::from_utf8_lossy(body));
    if !text.is_empty() {
        message.push_str(": ");
        message.push_str(&text);
    }
    ToolError::new(kind, message)
}

fn guard_error(e: GuardError, target: &Target) -> ToolError {
    match e {
        GuardError::Refused(r) => ToolError::permission_denied(r.to_string()),
        GuardError::Invalid(m) => ToolError::invalid_input(m),
        GuardError::TooManyRedirects => ToolError::failed(format!(
            "{target} redirected more than {MAX_REDIRECTS} times; stopped"
        )),
        GuardError::CrossOrigin(m) => ToolError::failed(format!("{target} {m}")),
    }
}

/// Finds an error of type `E` in `e`'s source chain.
fn find<'a, E: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a E> {
    let mut current = Some(e);
    while let Some(err) = current {
        if let Some(found) = err.downcast_ref::<E>() {
            return Some(found);
        }
        current = err.source();
    }
    None
}

fn request_error(e: reqwest::Error, target: &Target, timeout: Duration) -> ToolError {
    let e = e.without_url();
    if let Some(refused) = find::<Refused>(&e) {
        return ToolError::permission_denied(refused.to_string()).with_source(e);
    }
    if let Some(guard) = find::<GuardError>(&e) {
        let mapped = match guard {
            GuardError::Refused(r) => ToolError::permission_denied(r.to_string()),
            GuardError::Invalid(m) => ToolError::permission_denied(m.clone()),
            GuardError::TooManyRedirects => guard_error(GuardError::TooManyRedirects, target),
            GuardError::CrossOrigin(m) => ToolError::failed(format!("{target} {m}")),
        };
        return mapped.with_source(e);
    }
    let (kind, message) = if e.is_timeout() {
        (
            ErrorKind::Timeout,
            format!("{target} did not answer within {}", human_duration(timeout)),
        )
    } else if let Some(lookup) = find::<LookupFailed>(&e) {
        (ErrorKind::Unavailable, lookup.to_string())
    } else if e.is_connect() {
        let why = match find::<std::io::Error>(&e).map(std::io::Error::kind) {
            Some(std::io::ErrorKind::ConnectionRefused) => ": connection refused",
            Some(std::io::ErrorKind::ConnectionReset) => ": connection reset",
            Some(std::io::ErrorKind::TimedOut) => ": timed out",
            _ => "",
        };
        (
            ErrorKind::Unavailable,
            format!("cannot connect to {target}{why}"),
        )
    } else if e.is_redirect() {
        (
            ErrorKind::Failed,
            format!("{target} sent a redirect that cannot be followed"),
        )
    } else if e.is_body() || e.is_decode() || e.is_request() {
        (
            ErrorKind::Unavailable,
            format!("the connection to {target} failed during the exchange"),
        )
    } else {
        (
            ErrorKind::Internal,
            format!("the request to {target} could not be made"),
        )
    };
    ToolError::new(kind, message).with_source(e)
}

fn human_duration(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RequestHeaders;
    use proptest::prelude::*;
    use std::sync::Mutex;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn addresses_are_classified() {
        use AddrClass::*;
        let table: &[(&str, Option<AddrClass>)] = &[
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(ThisNetwork)),
            ("10.0.0.1", Some(Private)),
            ("10.255.255.255", Some(Private)),
            ("100.64.0.1", Some(Shared)),
            ("100.127.255.254", Some(Shared)),
            ("100.128.0.1", None),
            ("127.0.0.1", Some(Loopback)),
            ("127.255.0.9", Some(Loopback)),
            ("169.254.169.254", Some(LinkLocal)),
            ("169.254.1.1", Some(LinkLocal)),
            ("172.15.255.255", None),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("172.32.0.1", None),
            ("192.0.0.8", Some(Reserved)),
            ("192.0.2.1", Some(Documentation)),
            ("192.88.99.1", Some(Reserved)),
            ("192.168.1.1", Some(Private)),
            ("198.18.0.1", Some(Benchmarking)),
            ("198.19.255.255", Some(Benchmarking)),
            ("198.51.100.7", Some(Documentation)),
            ("203.0.113.9", Some(Documentation)),
            ("224.0.0.1", Some(Multicast)),
            ("239.255.255.250", Some(Multicast)),
            ("240.0.0.1", Some(Reserved)),
            ("255.255.255.255", Some(Broadcast)),
            ("1.1.1.1", None),
            ("8.8.8.8", None),
            ("93.184.215.14", None),
            ("::", Some(Unspecified)),
            ("::1", Some(Loopback)),
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:169.254.169.254", Some(LinkLocal)),
            ("::ffff:8.8.8.8", None),
            ("::ffff:0:10.0.0.1", Some(Private)),
            ("::127.0.0.1", Some(Loopback)),
            ("::8.8.8.8", Some(Reserved)),
            ("64:ff9b::10.0.0.1", Some(Private)),
            ("64:ff9b::8.8.8.8", None),
            ("64:ff9b:1::1", Some(Reserved)),
            ("2002:7f00:1::1", Some(Loopback)),
            ("2002:a9fe:a9fe::", Some(LinkLocal)),
            ("2002:808:808::1", None),
            ("2001::1", Some(Reserved)),
            ("2001:db8::1", Some(Documentation)),
            ("3fff::1", Some(Documentation)),
            ("100::1", Some(Reserved)),
            ("fc00::1", Some(UniqueLocal)),
            ("fd00:ec2::254", Some(UniqueLocal)),
            ("fe80::1", Some(LinkLocal)),
            ("febf::1", Some(LinkLocal)),
            ("fec0::1", Some(SiteLocal)),
            ("ff02::1", Some(Multicast)),
            ("4000::1", Some(Reserved)),
            ("2606:4700:4700::1111", None),
            ("2a00:1450:4007:80e::200e", None),
        ];
        for (addr, expected) in table {
            assert_eq!(classify(ip(addr)).map(|b| b.class), *expected, "{addr}");
        }
    }

    #[test]
    fn refusals_read_well() {
        let msg = |s: &str| classify(ip(s)).unwrap().to_string();
        assert_eq!(
            msg("169.254.169.254"),
            "169.254.169.254 is a link-local (cloud metadata) address"
        );
        assert_eq!(
            msg("fd00:ec2::254"),
            "fd00:ec2::254 is a unique-local (cloud metadata) address"
        );
        assert_eq!(msg("0.0.0.0"), "0.0.0.0 is the unspecified address");
        assert_eq!(msg("10.1.2.3"), "10.1.2.3 is a private address");
        assert_eq!(
            msg("::ffff:127.0.0.1"),
            "::ffff:127.0.0.1 is a form of 127.0.0.1, a loopback address"
        );
        let policy = SsrfPolicy::default();
        let url = Url::parse("http://169.254.169.254/latest/meta-data/").unwrap();
        let err = guard_error(
            policy.check_url(&url).unwrap_err(),
            &Target::Web { host: "x".into() },
        );
        assert_eq!(err.kind(), ErrorKind::PermissionDenied);
        assert_eq!(
            err.message(),
            "169.254.169.254 is a link-local (cloud metadata) address; fetching it is not allowed"
        );
    }

    /// Blocked IPv4 addresses drawn from every blocked range, and anything else.
    fn blocked_v4() -> impl Strategy<Value = Ipv4Addr> {
        prop_oneof![
            any::<u32>(),
            any::<u32>().prop_map(|n| 0x0a00_0000 | (n & 0x00ff_ffff)),
            any::<u32>().prop_map(|n| 0x7f00_0000 | (n & 0x00ff_ffff)),
            any::<u32>().prop_map(|n| 0xa9fe_0000 | (n & 0xffff)),
            any::<u32>().prop_map(|n| 0xac10_0000 | (n & 0x000f_ffff)),
            any::<u32>().prop_map(|n| 0xc0a8_0000 | (n & 0xffff)),
            any::<u32>().prop_map(|n| 0x6440_0000 | (n & 0x003f_ffff)),
            any::<u32>().prop_map(|n| n & 0x00ff_ffff),
            any::<u32>().prop_map(|n| 0xe000_0000 | (n & 0x1fff_ffff)),
        ]
        .prop_map(Ipv4Addr::from)
        .prop_filter("blocked", |v4| classify_v4(*v4).is_some())
    }

    proptest! {
        #[test]
        fn no_ipv6_form_of_a_blocked_ipv4_address_passes(v4 in blocked_v4()) {
            let n = u32::from(v4) as u128;
            let forms = [
                v4.to_ipv6_mapped(),
                v4.to_ipv6_compatible(),
                Ipv6Addr::from(0xffff_0000_0000_0000 | n),
                Ipv6Addr::from((0x0064_ff9b_u128 << 96) | n),
                Ipv6Addr::from((0x2002_u128 << 112) | (n << 80) | 1),
            ];
            let policy = SsrfPolicy::default();
            for form in forms {
                let blocked = classify(IpAddr::V6(form));
                prop_assert!(blocked.is_some(), "{form} passed");
                prop_assert!(policy.check_ip(IpAddr::V6(form)).is_err());
                let url = Url::parse(&format!("http://[{form}]:8080/")).unwrap();
                prop_assert!(policy.check_url(&url).is_err(), "{url} passed");
            }
        }

        #[test]
        fn mapped_forms_agree_with_their_ipv4_address(n in any::<u32>()) {
            let v4 = Ipv4Addr::from(n);
            let direct = classify(IpAddr::V4(v4)).map(|b| b.class);
            prop_assert_eq!(classify(IpAddr::V6(v4.to_ipv6_mapped())).map(|b| b.class), direct);
        }

        #[test]
        fn every_spelling_of_a_blocked_ipv4_address_is_refused(v4 in blocked_v4()) {
            let n = u32::from(v4);
            let policy = SsrfPolicy::default();
            let [a, b, c, d] = v4.octets();
            for spelling in [
                format!("{v4}"),
                format!("{n}"),
                format!("0x{n:x}"),
                format!("0{n:o}"),
                format!("{a}.{}", u32::from_be_bytes([0, b, c, d])),
                format!("{a}.{b}.{}", u16::from_be_bytes([c, d])),
                format!("0x{a:x}.0{b:o}.{c}.{d}"),
                format!("{v4}."),
            ] {
                let url = Url::parse(&format!("http://{spelling}/")).unwrap();
                prop_assert!(policy.check_url(&url).is_err(), "{spelling} passed as {url}");
            }
        }
    }

    #[test]
    fn names_are_refused_before_resolution() {
        let policy = SsrfPolicy::default();
        for (url, reason) in [
            ("http://localhost/", "localhost is a name of the local host"),
            (
                "http://LOCALHOST./",
                "localhost is a name of the local host",
            ),
            (
                "http://app.localhost:8080/",
                "app.localhost is a name of the local host",
            ),
            (
                "http://metadata.google.internal/computeMetadata/v1/",
                "metadata.google.internal is a cloud metadata host name",
            ),
            ("http://metadata/", "metadata is a cloud metadata host name"),
            (
                "http://db.internal/",
                "db.internal is an internal host name",
            ),
            (
                "http://printer.local/",
                "printer.local is a link-local (mDNS) host name",
            ),
            (
                "http://intranet/",
                "intranet is a single-label (intranet) host name",
            ),
            ("http://[::1]/", "::1 is a loopback address"),
            ("http://2130706433/", "127.0.0.1 is a loopback address"),
            ("http://0/", "0.0.0.0 is the unspecified address"),
        ] {
            let url = Url::parse(url).unwrap();
            match policy.check_url(&url) {
                Err(GuardError::Refused(r)) => assert_eq!(r.reason(), reason, "{url}"),
                other => panic!("{url}: {other:?}"),
            }
        }
        for url in [
            "https://example.com/a?b=c",
            "http://93.184.215.14/",
            "http://[2606:4700::1]/",
        ] {
            assert!(policy.check_url(&Url::parse(url).unwrap()).is_ok(), "{url}");
        }
        for url in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "http://u:p@example.com/",
            "gopher://x.org/",
        ] {
            assert!(
                matches!(
                    policy.check_url(&Url::parse(url).unwrap()),
                    Err(GuardError::Invalid(_))
                ),
                "{url}"
            );
        }
    }

    #[test]
    fn the_allow_list_takes_names_addresses_and_ranges() {
        let mut policy = SsrfPolicy::default();
        for entry in [
            "127.0.0.1",
            "LocalHost",
            "10.1.0.0/16",
            "[::1]",
            "fd00::/8",
            "intranet",
        ] {
            policy.allow(entry).unwrap();
        }
        for (addr, ok) in [
            ("127.0.0.1", true),
            ("::ffff:127.0.0.1", true),
            ("127.0.0.2", false),
            ("10.1.200.3", true),
            ("10.2.0.1", false),
            ("::1", true),
            ("fd12::1", true),
            ("fe80::1", false),
        ] {
            assert_eq!(policy.check_ip(ip(addr)).is_ok(), ok, "{addr}");
        }
        assert!(policy.check_name("localhost.").is_ok());
        assert!(policy.check_name("intranet").is_ok());
        assert!(policy.check_name("other").is_err());
        let resolved = [
            SocketAddr::new(ip("127.0.0.1"), 0),
            SocketAddr::new(ip("127.0.0.2"), 0),
        ];
        let err = policy.check_resolved("rebind.test", &resolved).unwrap_err();
        assert_eq!(
            err.reason(),
            "rebind.test resolves to 127.0.0.2, a loopback address"
        );
        assert!(policy.check_resolved("localhost", &resolved).is_ok());
        for bad in [
            "",
            "10.0.0.0/33",
            "::1/129",
            "a b",
            "x/8",
            "-/-",
            "exa mple.com",
        ] {
            assert!(SsrfPolicy::default().allow(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn environment_configuration_is_read_and_errors_name_the_variable() {
        let config = HttpConfig::from_vars([
            (
                "TOOL_HTTP_SERVICE_BILLING_API",
                "https://billing.internal/v1/",
            ),
            ("TOOL_HTTP_TIMEOUT_MS", "1500"),
            ("TOOL_HTTP_MAX_RESPONSE_BYTES", "1024"),
            ("TOOL_HTTP_FORWARD_HEADERS", "x-request-id, traceparent"),
            ("TOOL_HTTP_ALLOW_HOSTS", "127.0.0.1,localhost"),
            ("PATH", "/usr/bin"),
        ])
        .unwrap();
        assert_eq!(
            config.services["billing_api"],
            "https://billing.internal/v1/"
        );
        assert_eq!(config.timeout, Duration::from_millis(1500));
        assert_eq!(config.max_response_bytes, 1024);
        assert_eq!(
            config.forward_headers,
            ["authorization", "x-request-id", "traceparent"]
        );
        assert_eq!(config.allow_hosts, ["127.0.0.1", "localhost"]);
        let client = HttpClient::new(config).unwrap();
        assert_eq!(client.services().collect::<Vec<_>>(), ["billing_api"]);
        assert_eq!(
            client.shared.services["billing_api"].as_str(),
            "https://billing.internal/v1"
        );

        let err = |vars: &[(&str, &str)]| {
            HttpConfig::from_vars(vars.iter().copied())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(&[("TOOL_HTTP_TIMEOUT_MS", "soon")]),
            "TOOL_HTTP_TIMEOUT_MS: expected a whole number greater than zero"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_TIMOUT_MS", "5")]),
            "TOOL_HTTP_TIMOUT_MS is not a setting; did you mean TOOL_HTTP_TIMEOUT_MS?"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_SERVICE_X", "https://u:secret@x.example/")]),
            "TOOL_HTTP_SERVICE_X: the URL carries credentials; the client never adds its own, it forwards the caller's"
        );
        assert!(!err(&[("TOOL_HTTP_SERVICE_X", "https://u:secret@x.example/")]).contains("secret"));
        assert_eq!(
            err(&[("TOOL_HTTP_SERVICE_X", "not a url")]),
            "TOOL_HTTP_SERVICE_X: not an absolute URL"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_SERVICE_X", "ftp://x.example/")]),
            "TOOL_HTTP_SERVICE_X: only http and https services are supported"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_SERVICE_X!", "https://x.example/")]),
            "TOOL_HTTP_SERVICE_X!: a service name is lowercase letters, digits, `_` and `-`"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_ALLOW_HOSTS", "127.0.0.1, not a host")]),
            "TOOL_HTTP_ALLOW_HOSTS: `not a host` is not a host name, an IP address or a CIDR range"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_FORWARD_HEADERS", "host")]),
            "TOOL_HTTP_FORWARD_HEADERS: `host` is never forwarded: it describes the connection or the message, not the caller"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_FORWARD_HEADERS", "proxy-authorization")]),
            "TOOL_HTTP_FORWARD_HEADERS: `proxy-authorization` is never forwarded: it is meant for a proxy"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_FORWARD_HEADERS", "bad header")]),
            "TOOL_HTTP_FORWARD_HEADERS: `bad header` is not a header name"
        );

        // Built in code, errors name the field.
        let err = HttpClient::new(HttpConfig::default().service("x", "https://x.example/?a=1"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "services.x: a base URL has no query or fragment"
        );
        let err = HttpClient::new(HttpConfig::default().timeout(Duration::ZERO)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "timeout: expected a whole number greater than zero"
        );
    }

    #[test]
    fn config_deserializes() {
        let config: HttpConfig = serde_json::from_value(serde_json::json!({
            "services": {"billing": "https://billing.internal"},
            "timeout_ms": 2000,
            "allow_hosts": ["127.0.0.1"],
        }))
        .unwrap();
        assert_eq!(config.timeout, Duration::from_secs(2));
        assert_eq!(config.forward_headers, ["authorization"]);
        assert_eq!(config.max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES);
        assert!(serde_json::from_value::<HttpConfig>(serde_json::json!({"timeout": 1})).is_err());
    }

    #[test]
    fn service_paths_stay_under_the_base() {
        let client = HttpClient::new(
            HttpConfig::default()
                .service("api", "https://api.example/v1")
                .service("root", "https://root.example"),
        )
        .unwrap();
        let url = |s: &str, p: &str| client.service_url(s, p).map(|u| u.to_string());
        assert_eq!(
            url("api", "/users/7").unwrap(),
            "https://api.example/v1/users/7"
        );
        assert_eq!(
            url("api", "users?id=7").unwrap(),
            "https://api.example/v1/users?id=7"
        );
        assert_eq!(url("API", "").unwrap(), "https://api.example/v1/");
        assert_eq!(url("root", "/a").unwrap(), "https://root.example/a");
        assert_eq!(
            url("api", "/go?next=https://x.example/").unwrap(),
            "https://api.example/v1/go?next=https://x.example/"
        );
        for bad in [
            "/../admin",
            "..",
            "%2e%2e/admin",
            "//evil.example/x",
            "http://evil.example/",
            "\\\\evil",
        ] {
            let err = url("api", bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{bad}");
        }
        let err = url("apj", "/x").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Internal);
        assert!(err.message().contains("did you mean `api`?"), "{err}");
    }

    #[test]
    fn content_types() {
        for t in [
            "text/html; charset=utf-8",
            "Text/Plain",
            "application/json",
            "application/ld+json",
            "image/svg+xml",
        ] {
            assert!(is_text_content_type(t), "{t}");
        }
        for t in [
            "image/png",
            "application/octet-stream",
            "application/pdf",
            "video/mp4",
            "application/zip",
        ] {
            assert!(!is_text_content_type(t), "{t}");
        }
    }

    // --------------------------------------------------------------------------------------------
    // Against a real server on 127.0.0.1

    /// One request as the server saw it.
    #[derive(Debug, Clone)]
    struct Seen {
        path: String,
        headers: Vec<(String, String)>,
    }

    impl Seen {
        fn header(&self, name: &str) -> Option<&str> {
            self.headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        }
    }

    /// A tiny HTTP/1.1 server with canned answers; stops when dropped.
    struct Server {
        port: u16,
        seen: Arc<Mutex<Vec<Seen>>>,
        task: tokio::task::JoinHandle<()>,
    }

    impl Drop for Server {
        fn drop(&mut self) {
            self.task.abort();
        }
    }

    impl Server {
        async fn start() -> Self {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            let seen = Arc::new(Mutex::new(Vec::new()));
            let record = seen.clone();
            let task = tokio::spawn(async move {
                while let Ok((socket, _)) = listener.accept().await {
                    tokio::spawn(answer(socket, port, record.clone()));
                }
            });
            Self { port, seen, task }
        }

        fn url(&self, path: &str) -> String {
            format!("http://127.0.0.1:{}{path}", self.port)
        }

        fn seen(&self) -> Vec<Seen> {
            self.seen.lock().unwrap().clone()
        }
    }

    async fn answer(mut socket: TcpStream, port: u16, seen: Arc<Mutex<Vec<Seen>>>) {
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
        seen.lock().unwrap().push(Seen {
            path: path.clone(),
            headers,
        });
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
    fn fake_dns() -> Lookup {
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

    fn client(config: HttpConfig) -> HttpClient {
        HttpClient::with_lookup(config, fake_dns()).unwrap()
    }

    fn allowing_loopback() -> HttpConfig {
        HttpConfig::default().allow_host("127.0.0.1")
    }

    fn caller() -> ToolContext {
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

    #[tokio::test]
    async fn services_get_the_allowlisted_headers_and_no_others() {
        let server = Server::start().await;
        let client = client(
            HttpConfig::default()
                .service("local", server.url("/api"))
                .forward_header("x-request-id"),
        );
        let response = client
            .bind(&caller())
            .get("local", "/ok")
            .header("accept", "text/plain")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.text(), "hello");
        let seen = server.seen();
        let seen = &seen[0];
        assert_eq!(seen.path, "/api/ok");
        assert_eq!(seen.header("authorization"), Some("Bearer caller-token"));
        assert_eq!(seen.header("x-request-id"), Some("req-1"));
        assert_eq!(seen.header("accept"), Some("text/plain"));
        assert_eq!(seen.header("user-agent"), Some(USER_AGENT));
        for absent in [
            "cookie",
            "x-secret",
            "traceparent",
            "referer",
            "proxy-authorization",
        ] {
            assert_eq!(seen.header(absent), None, "{absent} was sent");
        }

        // Unbound, nothing is forwarded; JSON bodies decode.
        let n: serde_json::Value = client
            .get("local", "/json")
            .send()
            .await
            .unwrap()
            .json()
            .unwrap();
        assert_eq!(n["n"], 7);
        assert_eq!(server.seen()[1].header("authorization"), None);
    }

    #[tokio::test]
    async fn fetch_sends_no_header_of_the_call() {
        let server = Server::start().await;
        let client = client(allowing_loopback().forward_header("x-request-id"));
        let response = client
            .bind(&caller())
            .fetch(&server.url("/ok"))
            .await
            .unwrap();
        assert_eq!(response.text(), "hello");
        let seen = &server.seen()[0];
        for absent in [
            "authorization",
            "cookie",
            "x-request-id",
            "x-secret",
            "traceparent",
        ] {
            assert_eq!(
                seen.header(absent),
                None,
                "{absent} was sent to a fetched URL"
            );
        }
    }

    #[tokio::test]
    async fn statuses_map_to_kinds_with_short_messages() {
        let server = Server::start().await;
        let client = client(HttpConfig::default().service("local", server.url("/api")));
        let bound = client.bind(&caller());
        for (code, kind) in [
            ("503", ErrorKind::Unavailable),
            ("429", ErrorKind::Unavailable),
            ("500", ErrorKind::Unavailable),
            ("504", ErrorKind::Timeout),
            ("404", ErrorKind::NotFound),
            ("401", ErrorKind::PermissionDenied),
            ("403", ErrorKind::PermissionDenied),
            ("400", ErrorKind::Failed),
        ] {
            let err = bound
                .get("local", &format!("/status/{code}"))
                .send()
                .await
                .unwrap_err();
            assert_eq!(err.kind(), kind, "{code}: {err}");
            let message = err.message();
            assert!(
                message.starts_with(&format!("service `local` answered {code} ")),
                "{message}"
            );
            assert!(
                message.contains(&format!("(GET /status/{code})")),
                "{message}"
            );
            assert!(!message.contains("caller-token"), "{message}");
            assert!(
                message.len() < 400,
                "{} characters: {message}",
                message.len()
            );
        }
        let err = bound.get("local", "/status/503").send().await.unwrap_err();
        assert!(err.message().contains("retry after 7 s"), "{err}");
        assert!(err.is_transient());

        // The web: no body excerpt, the host named.
        let web = HttpClient::with_lookup(allowing_loopback(), fake_dns()).unwrap();
        let err = web.fetch(&server.url("/nowhere")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound);
        assert_eq!(
            err.message(),
            format!("127.0.0.1:{} answered 404 Not Found", server.port)
        );
        let err = web.fetch(&server.url("/status/503")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unavailable);
    }

    #[tokio::test]
    async fn timeouts_and_refused_connections_are_transient() {
        let server = Server::start().await;
        let client = client(
            allowing_loopback()
                .timeout(Duration::from_millis(300))
                .service("local", server.url("")),
        );
        let err = client.get("local", "/slow").send().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
        assert_eq!(
            err.message(),
            "service `local` did not answer within 300 ms"
        );
        let err = client
            .fetch_with(
                &server.url("/slow"),
                FetchOptions::default().timeout(Duration::from_millis(200)),
            )
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");

        let closed = {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            listener.local_addr().unwrap().port()
        };
        let err = client
            .fetch(&format!("http://127.0.0.1:{closed}/"))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
        assert_eq!(
            err.message(),
            format!("cannot connect to 127.0.0.1:{closed}: connection refused")
        );
        assert!(err.is_transient());
    }

    #[tokio::test]
    async fn bodies_are_capped() {
        let server = Server::start().await;
        let client = client(
            allowing_loopback()
                .max_response_bytes(1000)
                .service("local", server.url("")),
        );
        let err = client.fetch(&server.url("/big")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Failed);
        assert_eq!(
            err.message(),
            format!(
                "the response from 127.0.0.1:{} is 4096 bytes, over the 1000-byte limit",
                server.port
            )
        );
        let err = client.fetch(&server.url("/big-unsized")).await.unwrap_err();
        assert_eq!(
            err.message(),
            format!(
                "the response from 127.0.0.1:{} is over the 1000-byte limit",
                server.port
            )
        );
        let err = client.get("local", "/big").send().await.unwrap_err();
        assert!(
            err.message()
                .starts_with("the response from service `local` is 4096 bytes"),
            "{err}"
        );

        let cut = client
            .fetch_with(
                &server.url("/big-unsized"),
                FetchOptions::default().truncate(true),
            )
            .await
            .unwrap();
        assert!(cut.truncated());
        assert_eq!(cut.bytes().len(), 1000);
        let cut = client
            .get("local", "/big")
            .max_bytes(100)
            .truncate(true)
            .send()
            .await
            .unwrap();
        assert_eq!((cut.bytes().len(), cut.truncated()), (100, true));
        let whole = client
            .get("local", "/big")
            .max_bytes(5000)
            .send()
            .await
            .unwrap();
        assert_eq!((whole.bytes().len(), whole.truncated()), (4096, false));
    }

    #[tokio::test]
    async fn binary_bodies_can_be_refused_before_reading() {
        let server = Server::start().await;
        let client = client(allowing_loopback());
        let text_only = FetchOptions::default().text_only(true);
        let err = client
            .fetch_with(&server.url("/png"), text_only.clone())
            .await
            .unwrap_err();
        assert_eq!(
            err.message(),
            format!(
                "127.0.0.1:{} sent image/png, not text; only text content can be read",
                server.port
            )
        );
        let err = client
            .fetch_with(&server.url("/untyped-binary"), text_only.clone())
            .await
            .unwrap_err();
        assert!(err.message().contains("sent binary content"), "{err}");
        assert!(
            client
                .fetch_with(&server.url("/ok"), text_only)
                .await
                .is_ok()
        );
        assert!(client.fetch(&server.url("/png")).await.is_ok());
    }

    #[tokio::test]
    async fn loopback_is_refused_unless_allowed() {
        let server = Server::start().await;
        let guarded = client(HttpConfig::default());
        for url in [
            server.url("/ok"),
            format!("http://localhost:{}/ok", server.port),
            format!("http://[::1]:{}/ok", server.port),
            format!("http://2130706433:{}/ok", server.port),
            format!("http://0x7f.1:{}/ok", server.port),
            format!("http://[::ffff:127.0.0.1]:{}/ok", server.port),
        ] {
            let err = guarded.fetch(&url).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::PermissionDenied, "{url}: {err}");
            assert!(
                err.message().ends_with("; fetching it is not allowed"),
                "{err}"
            );
        }
        assert!(
            server.seen().is_empty(),
            "a refused request reached the server"
        );

        let allowed = client(allowing_loopback());
        assert_eq!(
            allowed.fetch(&server.url("/ok")).await.unwrap().text(),
            "hello"
        );
        // Allowing the address does not allow the name.
        let err = allowed
            .fetch(&format!("http://localhost:{}/ok", server.port))
            .await
            .unwrap_err();
        assert_eq!(
            err.message(),
            "localhost is a name of the local host; fetching it is not allowed"
        );
    }

    #[tokio::test]
    async fn names_are_checked_again_at_connect_time() {
        let server = Server::start().await;
        // rebind.test passes the name check and resolves to 127.0.0.1 only at connect time.
        let guarded = client(HttpConfig::default());
        let url = format!("http://rebind.test:{}/ok", server.port);
        let err = guarded.fetch(&url).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::PermissionDenied, "{err}");
        assert_eq!(
            err.message(),
            "rebind.test resolves to 127.0.0.1, a loopback address; fetching it is not allowed"
        );
        assert!(server.seen().is_empty());

        // The resolver is the one connecting: allow the address and the same name goes through.
        let allowed = client(allowing_loopback());
        assert_eq!(allowed.fetch(&url).await.unwrap().text(), "hello");
        // One refused address among several refuses them all.
        let err = allowed
            .fetch(&format!("http://mixed.test:{}/ok", server.port))
            .await
            .unwrap_err();
        assert_eq!(
            err.message(),
            "mixed.test resolves to 127.0.0.2, a loopback address; fetching it is not allowed"
        );
        let err = allowed.fetch("http://unknown.test/").await.unwrap_err();
        assert_eq!(
            (err.kind(), err.message()),
            (ErrorKind::Unavailable, "cannot resolve unknown.test")
        );
    }

    #[tokio::test]
    async fn every_redirect_hop_is_checked() {
        let server = Server::start().await;
        let client = client(allowing_loopback());
        let response = client.fetch(&server.url("/redirect/same")).await.unwrap();
        assert_eq!(response.url(), server.url("/ok"));
        assert_eq!(response.text(), "hello");

        let err = client
            .fetch(&server.url("/redirect/loopback2"))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::PermissionDenied, "{err}");
        assert_eq!(
            err.message(),
            "127.0.0.2 is a loopback address; fetching it is not allowed"
        );
        let err = client
            .fetch(&server.url("/redirect/name"))
            .await
            .unwrap_err();
        assert_eq!(
            err.message(),
            "mixed.test resolves to 127.0.0.2, a loopback address; fetching it is not allowed"
        );
        let err = client
            .fetch(&server.url("/redirect/ftp"))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::PermissionDenied, "{err}");
        assert!(err.message().contains("only http and https"), "{err}");
        let before = server.seen().len();
        let err = client
            .fetch(&server.url("/redirect/loop"))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Failed);
        assert_eq!(
            err.message(),
            format!(
                "127.0.0.1:{} redirected more than 5 times; stopped",
                server.port
            )
        );
        assert_eq!(
            server.seen().len() - before,
            6,
            "the first request and 5 redirects"
        );
    }

    #[tokio::test]
    async fn services_follow_redirects_only_within_their_origin() {
        let server = Server::start().await;
        let client = client(HttpConfig::default().service("local", server.url("")));
        let bound = client.bind(&caller());
        assert_eq!(
            bound
                .get("local", "/redirect/same")
                .send()
                .await
                .unwrap()
                .text(),
            "hello"
        );
        let err = bound
            .get("local", "/redirect/other-origin")
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Failed);
        assert_eq!(
            err.message(),
            format!(
                "service `local` redirected to localhost:{}, outside the service; not followed",
                server.port
            )
        );
    }

    #[tokio::test]
    async fn a_cancelled_call_abandons_its_request() {
        let server = Server::start().await;
        let client = client(allowing_loopback());
        let ctx = caller();
        let bound = client.bind(&ctx);
        let cancel = ctx.cancellation().clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            cancel.cancel();
        });
        let err = bound.fetch(&server.url("/slow")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Cancelled);
    }

    #[tokio::test]
    async fn the_client_comes_from_the_context() {
        let server = Server::start().await;
        let configured = client(HttpConfig::default().service("local", server.url("")));
        let ctx = ToolContext::builder()
            .headers(RequestHeaders::from_pairs([("authorization", "Bearer t")]))
            .extension(configured)
            .build();
        let from_ctx = HttpClient::from_context(&ctx).unwrap();
        from_ctx.get("local", "/ok").send().await.unwrap();
        assert_eq!(server.seen()[0].header("authorization"), Some("Bearer t"));
        assert!(format!("{from_ctx:?}").contains("local"));
        assert!(!format!("{from_ctx:?}").contains("Bearer"));
    }
}
