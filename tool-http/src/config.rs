//! The client's configuration: [`HttpConfig`], built in code, deserialized or read from the
//! environment, and validated into what the client uses.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::HeaderName;

use super::ssrf::SsrfPolicy;
use super::text::nearest;

/// Largest response body read by default: 5 MiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 5 * 1024 * 1024;
/// Default time limit of one request, redirects and body included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Request headers forwarded to configured services unless the configuration says otherwise:
/// none. The caller's token is not a forwarded header: it goes only to a service configured
/// with an audience it was issued for (see [`ServiceConfig::audience`]).
pub const DEFAULT_FORWARD_HEADERS: &[&str] = &[];

/// The prefix of every environment variable [`HttpConfig::from_env`] reads.
pub const ENV_PREFIX: &str = "TOOL_HTTP_";
pub(super) const ENV_SERVICE: &str = "TOOL_HTTP_SERVICE_";
const ENV_AUDIENCE: &str = "TOOL_HTTP_AUDIENCE_";
const ENV_TOKEN_ENV: &str = "TOOL_HTTP_TOKEN_ENV_";
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
    "TOOL_HTTP_AUDIENCE_<NAME>",
    "TOOL_HTTP_TOKEN_ENV_<NAME>",
];

/// What the client may reach and how: named services, limits, the headers forwarded to services
/// and the SSRF guard's exceptions.
///
/// Deserializable (serde) with the field names below (`timeout_ms` for the timeout), so a host
/// application can keep it in its own TOML or JSON configuration.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpConfig {
    /// Named downstream services: each a base URL (`http` or `https`, no credentials, no
    /// query), or a table with the base URL and the credential its requests carry (see
    /// [`ServiceConfig`]). Names are lowercase letters, digits, `_` and `-`.
    pub services: BTreeMap<String, ServiceConfig>,
    /// Time limit of one request: connecting, redirects and reading the body.
    #[serde(rename = "timeout_ms", with = "millis")]
    pub timeout: Duration,
    /// Largest response body read.
    pub max_response_bytes: usize,
    /// Request headers of the call forwarded to configured services (never to fetched URLs),
    /// such as `x-request-id` or `traceparent`. Default: none. Hop-by-hop and proxy headers are
    /// refused, and so are `authorization` and `cookie`: the caller's token reaches a service
    /// only through the service's [`audience`](ServiceConfig::audience).
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

/// One configured service: where it is, and which credential its requests may carry.
///
/// A request to a service carries at most one credential, as `Authorization: Bearer <token>`:
///
/// 1. the **caller's** access token, when the service has an [`audience`](Self::audience) and
///    the call's [`Principal`](tool_core::context::Principal) holds a token issued for that audience
///    ([`Principal::token_for`](tool_core::context::Principal::token_for));
/// 2. otherwise the **operator's** token, read from the variable [`token_env`](Self::token_env)
///    names, when there is one;
/// 3. otherwise none.
///
/// A token the caller presented for another audience, or a bare `Authorization` header of the
/// call, never reaches the service: forwarding it would be the token passthrough the MCP
/// authorization specification forbids.
///
/// Deserializes from a string (the base URL alone) or a table with `base_url` and optionally
/// `audience` and `token_env`:
///
/// ```
/// use tool_http::{HttpConfig, ServiceConfig};
/// let config: HttpConfig = serde_json::from_value(serde_json::json!({
///     "services": {
///         "status": "https://status.internal",
///         "billing": {
///             "base_url": "https://billing.internal/v1",
///             "audience": "https://billing.example.com",
///         },
///     },
/// }))
/// .unwrap();
/// assert_eq!(config.services["status"], ServiceConfig::new("https://status.internal"));
/// assert_eq!(
///     config.services["billing"].audience.as_deref(),
///     Some("https://billing.example.com")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServiceConfig {
    /// The base URL.
    pub base_url: String,
    /// The audience (`aud`, an RFC 8707 resource identifier such as
    /// `https://billing.example.com`) the service accepts tokens for. A caller's token issued
    /// for it is sent to the service; without an audience no caller's token ever is.
    pub audience: Option<String>,
    /// The name of an environment variable holding the operator's token for this service, sent
    /// when no caller's token applies and never together with one. It is read when the client
    /// is built, and may not be a `TOOL_HTTP_*` variable.
    pub token_env: Option<String>,
}

impl ServiceConfig {
    /// A service at `base_url` whose requests carry no token.
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            audience: None,
            token_env: None,
        }
    }

    /// Sends the caller's token when it was issued for `audience` (builder style).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Sends the operator's token, read from the environment variable `var`, when no caller's
    /// token applies (builder style).
    pub fn token_env(mut self, var: impl Into<String>) -> Self {
        self.token_env = Some(var.into());
        self
    }
}

impl From<&str> for ServiceConfig {
    fn from(base_url: &str) -> Self {
        Self::new(base_url)
    }
}

impl From<String> for ServiceConfig {
    fn from(base_url: String) -> Self {
        Self::new(base_url)
    }
}

impl<'de> serde::Deserialize<'de> for ServiceConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            base_url: String,
            #[serde(default)]
            audience: Option<String>,
            #[serde(default)]
            token_env: Option<String>,
        }

        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ServiceConfig;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a base URL, or a table with `base_url` and optionally `audience` and `token_env`",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ServiceConfig, E> {
                Ok(ServiceConfig::new(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<ServiceConfig, A::Error> {
                let t = <Table as serde::Deserialize>::deserialize(
                    serde::de::value::MapAccessDeserializer::new(map),
                )?;
                Ok(ServiceConfig {
                    base_url: t.base_url,
                    audience: t.audience,
                    token_env: t.token_env,
                })
            }
        }
        d.deserialize_any(Visitor)
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
    /// A service's audience is empty or has spaces or control characters.
    #[error(
        "{var}: an audience is the resource identifier the service accepts tokens for, without spaces, e.g. https://billing.example.com"
    )]
    InvalidAudience {
        /// The variable or field.
        var: String,
    },
    /// A service's `token_env` is not a variable the client may read the token from.
    #[error("{var}: {reason}")]
    InvalidTokenEnv {
        /// The variable or field.
        var: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// The variable a service's `token_env` names is not set, or empty.
    #[error("{var}: {env}, which should hold the service's token, is not set")]
    MissingToken {
        /// The variable or field naming `env`.
        var: String,
        /// The variable that should hold the token.
        env: String,
    },
    /// The token in the variable a service's `token_env` names cannot be sent.
    #[error(
        "{var}: the token in {env} cannot be sent in a header: it has spaces or characters other than visible ASCII"
    )]
    InvalidToken {
        /// The variable or field naming `env`.
        var: String,
        /// The variable holding the token.
        env: String,
    },
    /// A per-service variable (`TOOL_HTTP_AUDIENCE_<NAME>`, `TOOL_HTTP_TOKEN_ENV_<NAME>`) names
    /// no configured service.
    #[error("{var}: no service `{service}` is configured (TOOL_HTTP_SERVICE_{}){}", service.to_ascii_uppercase(), suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownService {
        /// The variable.
        var: String,
        /// The service it names.
        service: String,
        /// The nearest configured service.
        suggestion: Option<String>,
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
    fn service_field(self, name: &str, field: &str) -> String {
        match (self, field) {
            (Self::Env, "audience") => format!("{ENV_AUDIENCE}{}", name.to_ascii_uppercase()),
            (Self::Env, _) => format!("{ENV_TOKEN_ENV}{}", name.to_ascii_uppercase()),
            (Self::Code, _) => format!("services.{name}.{field}"),
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
        // Per-service settings, applied once every service is known (the order of the
        // variables is the environment's).
        let mut per_service: Vec<(String, String, String)> = Vec::new();
        for (name, value) in vars {
            let (name, value) = (name.as_ref(), value.as_ref().trim());
            if !name.starts_with(ENV_PREFIX) {
                continue;
            }
            if let Some(service) = name.strip_prefix(ENV_SERVICE) {
                config
                    .services
                    .insert(service.to_ascii_lowercase(), ServiceConfig::new(value));
                continue;
            }
            if value.is_empty() {
                continue;
            }
            if let Some(service) = name
                .strip_prefix(ENV_AUDIENCE)
                .or_else(|| name.strip_prefix(ENV_TOKEN_ENV))
            {
                per_service.push((
                    name.to_owned(),
                    service.to_ascii_lowercase(),
                    value.to_owned(),
                ));
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
        for (var, service, value) in per_service {
            let Some(entry) = config.services.get_mut(&service) else {
                let known: Vec<&str> = config.services.keys().map(String::as_str).collect();
                return Err(HttpConfigError::UnknownService {
                    suggestion: nearest(&service, &known).map(str::to_owned),
                    var,
                    service,
                });
            };
            if var.starts_with(ENV_AUDIENCE) {
                entry.audience = Some(value);
            } else {
                entry.token_env = Some(value);
            }
        }
        config.validate(Source::Env)?;
        Ok(config)
    }

    /// Adds a service whose requests carry no token (builder style).
    pub fn service(mut self, name: impl Into<String>, base_url: impl Into<String>) -> Self {
        self.services
            .insert(name.into(), ServiceConfig::new(base_url));
        self
    }

    /// Adds a service that accepts tokens issued for `audience` (builder style): a call whose
    /// caller presented a token for that audience sends it along; no other token is sent.
    ///
    /// ```
    /// use tool_http::{HttpClient, HttpConfig};
    /// let client = HttpClient::new(HttpConfig::default().service_with_audience(
    ///     "billing",
    ///     "https://billing.internal/v1",
    ///     "https://billing.example.com",
    /// ))
    /// .unwrap();
    /// # let _ = client;
    /// ```
    pub fn service_with_audience(
        mut self,
        name: impl Into<String>,
        base_url: impl Into<String>,
        audience: impl Into<String>,
    ) -> Self {
        self.services
            .insert(name.into(), ServiceConfig::new(base_url).audience(audience));
        self
    }

    /// Adds a service described in full: base URL, audience, operator token (builder style).
    pub fn service_config(mut self, name: impl Into<String>, service: ServiceConfig) -> Self {
        self.services.insert(name.into(), service);
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
        for (name, service) in &self.services {
            let var = source.service(name);
            if name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
            {
                return Err(HttpConfigError::InvalidServiceName { var });
            }
            let base = service_base(&service.base_url, &var)?;
            let audience = match &service.audience {
                Some(audience) => Some(valid_audience(audience).ok_or_else(|| {
                    HttpConfigError::InvalidAudience {
                        var: source.service_field(name, "audience"),
                    }
                })?),
                None => None,
            };
            let token_env = match &service.token_env {
                Some(env) => {
                    let var = source.service_field(name, "token_env");
                    let env = env.trim();
                    if let Some(reason) = invalid_token_env(env) {
                        return Err(HttpConfigError::InvalidTokenEnv { var, reason });
                    }
                    Some(TokenEnv {
                        var,
                        env: env.to_owned(),
                    })
                }
                None => None,
            };
            services.insert(
                name.clone(),
                ServiceSpec {
                    base,
                    audience,
                    token_env,
                },
            );
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
            if let Some(why) = never_forwarded(name.as_str(), source) {
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
    pub(super) services: BTreeMap<String, ServiceSpec>,
    pub(super) forward: Vec<HeaderName>,
    pub(super) policy: SsrfPolicy,
}

/// A service as validated: its base URL, its audience (trimmed) and where its operator token is.
pub(super) struct ServiceSpec {
    pub(super) base: Url,
    pub(super) audience: Option<String>,
    pub(super) token_env: Option<TokenEnv>,
}

/// The variable holding a service's operator token, and the setting (`var`) that names it.
pub(super) struct TokenEnv {
    pub(super) var: String,
    pub(super) env: String,
}

fn valid_audience(audience: &str) -> Option<String> {
    let audience = audience.trim();
    let ok = !audience.is_empty()
        && !audience
            .chars()
            .any(|c| c.is_whitespace() || c.is_control());
    ok.then(|| audience.to_owned())
}

fn invalid_token_env(env: &str) -> Option<&'static str> {
    if env.is_empty() || env.contains(['=', '\0']) {
        Some("not the name of an environment variable")
    } else if env.starts_with(ENV_PREFIX) {
        // `from_env` reads every TOOL_HTTP_* variable as a setting.
        Some("name a variable outside TOOL_HTTP_*, which are the client's settings")
    } else {
        None
    }
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
            "the URL carries credentials; give the service a token through its token_env instead",
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
fn never_forwarded(name: &str, source: Source) -> Option<&'static str> {
    match name {
        "host" | "content-length" | "transfer-encoding" | "connection" | "keep-alive"
        | "upgrade" | "te" | "trailer" | "expect" => {
            Some("it describes the connection or the message, not the caller")
        }
        n if n.starts_with("proxy-") => Some("it is meant for a proxy"),
        "authorization" => Some(match source {
            Source::Env => {
                "the caller's token goes only to a service that accepts its audience; set TOOL_HTTP_AUDIENCE_<NAME> to the audience service <name> accepts"
            }
            Source::Code => {
                "the caller's token goes only to a service that accepts its audience; set the service's `audience` (services.<name>.audience)"
            }
        }),
        "cookie" => Some("it is the caller's session with this server, not with other services"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::HttpClient;
    use proptest::prelude::*;

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
            ServiceConfig::new("https://billing.internal/v1/")
        );
        assert_eq!(config.timeout, Duration::from_millis(1500));
        assert_eq!(config.max_response_bytes, 1024);
        assert_eq!(config.forward_headers, ["x-request-id", "traceparent"]);
        assert_eq!(config.allow_hosts, ["127.0.0.1", "localhost"]);
        let client = HttpClient::new(config).unwrap();
        assert_eq!(client.services().collect::<Vec<_>>(), ["billing_api"]);
        assert_eq!(
            client.shared.services["billing_api"].base.as_str(),
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
            "TOOL_HTTP_SERVICE_X: the URL carries credentials; give the service a token through its token_env instead"
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
        assert!(config.forward_headers.is_empty());
        assert_eq!(config.max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES);
        assert!(serde_json::from_value::<HttpConfig>(serde_json::json!({"timeout": 1})).is_err());
    }

    #[test]
    fn services_deserialize_from_a_url_or_a_table() {
        let config: HttpConfig = serde_json::from_value(serde_json::json!({
            "services": {
                "plain": "https://plain.internal",
                "billing": {
                    "base_url": "https://billing.internal/v1",
                    "audience": "https://billing.example.com",
                    "token_env": "BILLING_TOKEN",
                },
                "bare": {"base_url": "https://bare.internal"},
            },
        }))
        .unwrap();
        assert_eq!(
            config.services["plain"],
            ServiceConfig::new("https://plain.internal")
        );
        assert_eq!(
            config.services["billing"],
            ServiceConfig::new("https://billing.internal/v1")
                .audience("https://billing.example.com")
                .token_env("BILLING_TOKEN")
        );
        assert_eq!(
            config.services["bare"],
            ServiceConfig::new("https://bare.internal")
        );

        let err = |services: serde_json::Value| {
            serde_json::from_value::<HttpConfig>(serde_json::json!({ "services": services }))
                .unwrap_err()
                .to_string()
        };
        let message = err(serde_json::json!({"x": {"base_url": "https://x", "audiance": "a"}}));
        assert!(message.contains("unknown field `audiance`"), "{message}");
        let message = err(serde_json::json!({"x": {"audience": "a"}}));
        assert!(message.contains("missing field `base_url`"), "{message}");
        let message = err(serde_json::json!({"x": 7}));
        assert!(
            message.contains("a base URL, or a table with `base_url`"),
            "{message}"
        );
    }

    #[test]
    fn audiences_and_operator_tokens_are_read_from_the_environment() {
        let config = HttpConfig::from_vars([
            (
                "TOOL_HTTP_AUDIENCE_BILLING_API",
                " https://billing.example.com ",
            ),
            ("TOOL_HTTP_TOKEN_ENV_BILLING_API", "BILLING_TOKEN"),
            (
                "TOOL_HTTP_SERVICE_BILLING_API",
                "https://billing.internal/v1",
            ),
            ("TOOL_HTTP_SERVICE_STATUS", "https://status.internal"),
            ("TOOL_HTTP_AUDIENCE_STATUS", ""),
        ])
        .unwrap();
        assert_eq!(
            config.services["billing_api"],
            ServiceConfig::new("https://billing.internal/v1")
                .audience("https://billing.example.com")
                .token_env("BILLING_TOKEN")
        );
        assert_eq!(
            config.services["status"],
            ServiceConfig::new("https://status.internal")
        );

        let err = |vars: &[(&str, &str)]| {
            HttpConfig::from_vars(vars.iter().copied())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(&[
                ("TOOL_HTTP_SERVICE_BILLING", "https://billing.internal"),
                ("TOOL_HTTP_AUDIENCE_BILING", "https://billing.example.com"),
            ]),
            "TOOL_HTTP_AUDIENCE_BILING: no service `biling` is configured (TOOL_HTTP_SERVICE_BILING); did you mean `billing`?"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_TOKEN_ENV_X", "X_TOKEN")]),
            "TOOL_HTTP_TOKEN_ENV_X: no service `x` is configured (TOOL_HTTP_SERVICE_X)"
        );
        assert_eq!(
            err(&[
                ("TOOL_HTTP_SERVICE_X", "https://x.internal"),
                ("TOOL_HTTP_AUDIENCE_X", "two words"),
            ]),
            "TOOL_HTTP_AUDIENCE_X: an audience is the resource identifier the service accepts tokens for, without spaces, e.g. https://billing.example.com"
        );
        assert_eq!(
            err(&[
                ("TOOL_HTTP_SERVICE_X", "https://x.internal"),
                ("TOOL_HTTP_TOKEN_ENV_X", "TOOL_HTTP_X_TOKEN"),
            ]),
            "TOOL_HTTP_TOKEN_ENV_X: name a variable outside TOOL_HTTP_*, which are the client's settings"
        );
        assert_eq!(
            err(&[
                ("TOOL_HTTP_SERVICE_X", "https://x.internal"),
                ("TOOL_HTTP_TOKEN_ENV_X", "A=B"),
            ]),
            "TOOL_HTTP_TOKEN_ENV_X: not the name of an environment variable"
        );
        assert_eq!(
            err(&[("TOOL_HTTP_AUDIENCES_X", "a")]),
            "TOOL_HTTP_AUDIENCES_X is not a setting; did you mean TOOL_HTTP_AUDIENCE_<NAME>?"
        );

        // Built in code, errors name the field.
        let err = HttpClient::new(HttpConfig::default().service_with_audience(
            "x",
            "https://x.internal",
            " ",
        ))
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("services.x.audience: an audience is"),
            "{err}"
        );
        let err = HttpClient::new(HttpConfig::default().service_config(
            "x",
            ServiceConfig::new("https://x.internal").token_env("TOOL_HTTP_T"),
        ))
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("services.x.token_env: name a variable"),
            "{err}"
        );
    }

    fn service_name() -> impl Strategy<Value = String> {
        "[a-z0-9][a-z0-9_-]{0,11}"
    }

    proptest! {
        #[test]
        fn any_environment_parses_or_names_a_variable(
            vars in proptest::collection::vec(
                (
                    prop_oneof![
                        Just("TOOL_HTTP_SERVICE_".to_owned()),
                        Just("TOOL_HTTP_AUDIENCE_".to_owned()),
                        Just("TOOL_HTTP_TOKEN_ENV_".to_owned()),
                        Just("TOOL_HTTP_FORWARD_HEADERS".to_owned()),
                        Just("TOOL_HTTP_".to_owned()),
                        Just("OTHER_".to_owned()),
                    ],
                    "[A-Za-z0-9_-]{0,6}",
                    "\\PC{0,30}",
                ),
                0..8,
            ),
        ) {
            let vars: Vec<(String, String)> =
                vars.into_iter().map(|(p, n, v)| (format!("{p}{n}"), v)).collect();
            if let Err(e) = HttpConfig::from_vars(vars) {
                prop_assert!(e.to_string().starts_with("TOOL_HTTP_"), "{e}");
            }
        }

        #[test]
        fn per_service_settings_reach_their_service_in_any_order(
            name in service_name(),
            audience in "[!-~]{1,40}",
            token_env in "[A-Z][A-Z0-9_]{0,15}",
            pad in "[ \t]{0,2}",
            rotate in 0usize..3,
        ) {
            prop_assume!(!token_env.starts_with(ENV_PREFIX));
            let upper = name.to_ascii_uppercase();
            let mut vars = vec![
                (format!("TOOL_HTTP_SERVICE_{upper}"), "https://svc.internal/v1".to_owned()),
                (format!("TOOL_HTTP_AUDIENCE_{upper}"), format!("{pad}{audience}{pad}")),
                (format!("TOOL_HTTP_TOKEN_ENV_{upper}"), token_env.clone()),
            ];
            vars.rotate_left(rotate);
            let config = HttpConfig::from_vars(vars).unwrap();
            prop_assert_eq!(
                &config.services[&name],
                &ServiceConfig::new("https://svc.internal/v1")
                    .audience(audience)
                    .token_env(token_env)
            );
        }

        #[test]
        fn authorization_is_refused_in_any_forward_list(
            before in proptest::collection::vec("x-[a-z]{1,8}", 0..3),
            after in proptest::collection::vec("x-[a-z]{1,8}", 0..3),
            spelling in "[aA][uU][tT][hH][oO][rR][iI][zZ][aA][tT][iI][oO][nN]",
        ) {
            let list = before
                .iter()
                .chain([&spelling])
                .chain(&after)
                .cloned()
                .collect::<Vec<_>>()
                .join(",");
            let err = HttpConfig::from_vars([("TOOL_HTTP_FORWARD_HEADERS", list)]).unwrap_err();
            prop_assert!(
                matches!(
                    &err,
                    HttpConfigError::ForbiddenHeader { var, entry, .. }
                        if var == "TOOL_HTTP_FORWARD_HEADERS" && *entry == spelling
                ),
                "{err}"
            );
        }
    }

    #[test]
    fn the_callers_token_and_session_are_never_forwarded_as_headers() {
        for name in ["authorization", "Authorization", " AUTHORIZATION "] {
            let err = HttpConfig::from_vars([(
                "TOOL_HTTP_FORWARD_HEADERS",
                format!("x-request-id,{name}"),
            )])
            .unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "TOOL_HTTP_FORWARD_HEADERS: `{}` is never forwarded: the caller's token goes only to a service that accepts its audience; set TOOL_HTTP_AUDIENCE_<NAME> to the audience service <name> accepts",
                    name.trim()
                )
            );
        }
        let err =
            HttpClient::new(HttpConfig::default().forward_header("authorization")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "forward_headers: `authorization` is never forwarded: the caller's token goes only to a service that accepts its audience; set the service's `audience` (services.<name>.audience)"
        );
        let config: HttpConfig =
            serde_json::from_value(serde_json::json!({"forward_headers": ["authorization"]}))
                .unwrap();
        assert!(matches!(
            HttpClient::new(config),
            Err(HttpConfigError::ForbiddenHeader { var, .. }) if var == "forward_headers"
        ));
        let err = HttpClient::new(HttpConfig::default().forward_header("cookie")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "forward_headers: `cookie` is never forwarded: it is the caller's session with this server, not with other services"
        );
    }
}
