//! The client's configuration: [`HttpConfig`], built in code, deserialized or read from the
//! environment, and validated into what the client uses.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::HeaderName;

use super::ssrf::SsrfPolicy;

/// Largest response body read by default: 5 MiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 5 * 1024 * 1024;
/// Default time limit of one request, redirects and body included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Request headers forwarded to configured services unless the configuration says otherwise.
pub const DEFAULT_FORWARD_HEADERS: &[&str] = &["authorization"];

/// The prefix of every environment variable [`HttpConfig::from_env`] reads.
pub const ENV_PREFIX: &str = "TOOL_HTTP_";
pub(super) const ENV_SERVICE: &str = "TOOL_HTTP_SERVICE_";
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
    /// Host names, IP addresses and CIDR ranges that [`HttpClient::fetch`](crate::HttpClient::fetch) may reach although the
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
pub(super) enum Source {
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

    /// Lets [`HttpClient::fetch`](crate::HttpClient::fetch) reach a host, IP address or CIDR range the SSRF guard would
    /// refuse (builder style).
    pub fn allow_host(mut self, entry: impl Into<String>) -> Self {
        self.allow_hosts.push(entry.into());
        self
    }

    pub(super) fn validate(&self, source: Source) -> Result<Validated, HttpConfigError> {
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

pub(super) struct Validated {
    pub(super) services: BTreeMap<String, Url>,
    pub(super) forward: Vec<HeaderName>,
    pub(super) policy: SsrfPolicy,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::HttpClient;

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
}
