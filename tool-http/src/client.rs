//! The client: [`HttpClient`], its requests to configured services ([`ServiceRequest`]) and
//! to user-supplied URLs ([`FetchOptions`]), and how a tool gets one from its context.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::redirect;
use reqwest::{Method, Url};
use tokio_util::sync::CancellationToken;

use super::config::{ENV_SERVICE, HttpConfig, HttpConfigError, Source, Validated};
use super::credential::{EnvReader, ServiceAuth, process_env};
use super::response::HttpResponse;
use super::send::{ReadOptions, Target, execute, guard_error};
use super::ssrf::{GuardError, GuardedResolver, Lookup, MAX_REDIRECTS, SsrfPolicy, system_lookup};
use super::text::{host_label, nearest};
use tool_core::context::Principal;
use tool_core::context::{FromContext, ToolContext};
use tool_core::error::{ErrorKind, ToolError};

/// Time allowed to open a connection, within the request's limit.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const USER_AGENT: &str = concat!("tool-core/", env!("CARGO_PKG_VERSION"));
const FETCH_ACCEPT: &str = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5";

/// The HTTP client tools use: cheap to clone, built once (per process or per host application).
///
/// A tool takes it as a parameter marked `#[ctx]`; it then comes from the context's extensions
/// (`ContextBuilder::extension(client)`) or, when none was added, from the environment (built on
/// first use), bound to the call: service requests forward the call's allowlisted headers, carry
/// the caller's token to a service that accepts its audience (see [`ServiceConfig`]), and every
/// request stops when the call is cancelled.
///
/// [`ServiceConfig`]: crate::ServiceConfig
#[derive(Clone)]
pub struct HttpClient {
    pub(super) shared: Arc<Shared>,
    binding: Option<Binding>,
}

pub(super) struct Shared {
    config: HttpConfig,
    pub(super) services: BTreeMap<String, Service>,
    forward: Vec<HeaderName>,
    policy: Arc<SsrfPolicy>,
    service_client: reqwest::Client,
    fetch_client: reqwest::Client,
}

pub(super) struct Service {
    pub(super) base: Url,
    auth: ServiceAuth,
}

#[derive(Clone)]
struct Binding {
    headers: Arc<[(HeaderName, HeaderValue)]>,
    principal: Option<Principal>,
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
    /// Builds a client: the configuration is validated, and the operators' tokens
    /// ([`ServiceConfig::token_env`](crate::ServiceConfig::token_env)) read from the
    /// environment, here.
    pub fn new(config: HttpConfig) -> Result<Self, HttpConfigError> {
        Self::build(config, Source::Code, system_lookup(), &process_env)
    }

    /// Builds a client from the environment ([`HttpConfig::from_env`]).
    pub fn from_env() -> Result<Self, HttpConfigError> {
        Self::build(
            HttpConfig::from_env()?,
            Source::Env,
            system_lookup(),
            &process_env,
        )
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

    pub(super) fn build(
        config: HttpConfig,
        source: Source,
        lookup: Lookup,
        env: EnvReader<'_>,
    ) -> Result<Self, HttpConfigError> {
        let Validated {
            services,
            forward,
            policy,
        } = config.validate(source)?;
        let services = services
            .into_iter()
            .map(|(name, spec)| {
                let auth = ServiceAuth::new(spec.audience, spec.token_env.as_ref(), env)?;
                Ok((
                    name,
                    Service {
                        base: spec.base,
                        auth,
                    },
                ))
            })
            .collect::<Result<BTreeMap<_, _>, HttpConfigError>>()?;
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
    /// (and no others) and the caller's token where its audience allows (see
    /// [`ServiceConfig`](crate::ServiceConfig)), and every request ends when the call is
    /// cancelled.
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
                principal: ctx.principal().cloned(),
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
        let found = self.shared.services.get(&service.to_ascii_lowercase());
        let url = self.service_url(service, found, path);
        let principal = self.binding.as_ref().and_then(|b| b.principal.as_ref());
        let authorization = found.and_then(|s| s.auth.authorization(principal));
        ServiceRequest {
            client: self.clone(),
            method,
            url,
            target,
            authorization,
            headers: HeaderMap::new(),
            body: None,
            max_bytes: self.shared.config.max_response_bytes,
            truncate: false,
            timeout: None,
        }
    }

    /// The URL of `path` under `service` (`found`: its configuration, if it has one).
    fn service_url(
        &self,
        service: &str,
        found: Option<&Service>,
        path: &str,
    ) -> Result<Url, ToolError> {
        let Some(Service { base, .. }) = found else {
            let known: Vec<&str> = self.services().collect();
            let hint = match nearest(service, &known) {
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

/// The TLS settings every HTTP client here uses, for other clients that should match them
/// (the MCP mount's, the agent's): rustls on ring, the platform's root certificates, HTTP/1.1.
pub fn tls_config() -> Result<rustls::ClientConfig, HttpConfigError> {
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
    authorization: Option<HeaderValue>,
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
    /// Sets a header of this request (replacing a forwarded one of the same name, or, for
    /// `authorization`, the token the service's configuration chose).
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
        if let Some(authorization) = self.authorization {
            headers.insert(header::AUTHORIZATION, authorization);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Server, allowing_loopback, caller, client, fake_dns};
    use tokio::net::TcpListener;
    use tool_core::context::RequestHeaders;

    #[test]
    fn service_paths_stay_under_the_base() {
        let client = HttpClient::new(
            HttpConfig::default()
                .service("api", "https://api.example/v1")
                .service("root", "https://root.example"),
        )
        .unwrap();
        let url = |s: &str, p: &str| {
            let found = client.shared.services.get(&s.to_ascii_lowercase());
            client.service_url(s, found, p).map(|u| u.to_string())
        };
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

    // --------------------------------------------------------------------------------------------
    // Against a real server on 127.0.0.1

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
        assert_eq!(seen.header("x-request-id"), Some("req-1"));
        assert_eq!(seen.header("accept"), Some("text/plain"));
        assert_eq!(seen.header("user-agent"), Some(USER_AGENT));
        // The call's `Authorization` header is not an allowlisted header (see `credential`).
        for absent in [
            "authorization",
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
        let web =
            HttpClient::build(allowing_loopback(), Source::Code, fake_dns(), &|_| None).unwrap();
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
        // Cancelled once the server has the request (it answers after 10 s).
        let slow = server.url("/slow");
        let (fetched, ()) = tokio::join!(bound.fetch(&slow), async {
            server.arrived("/slow").await;
            cancel.cancel();
        });
        assert_eq!(fetched.unwrap_err().kind(), ErrorKind::Cancelled);
    }

    #[tokio::test]
    async fn the_client_comes_from_the_context() {
        let server = Server::start().await;
        let configured = client(HttpConfig::default().service_with_audience(
            "local",
            server.url(""),
            "https://local.example",
        ));
        let ctx = ToolContext::builder()
            .headers(RequestHeaders::from_pairs([(
                "authorization",
                "Bearer header-token",
            )]))
            .principal(Principal::new("u").with_token("t", ["https://local.example"]))
            .extension(configured)
            .build();
        let from_ctx = HttpClient::from_context(&ctx).unwrap();
        from_ctx.get("local", "/ok").send().await.unwrap();
        assert_eq!(server.seen()[0].header("authorization"), Some("Bearer t"));
        assert!(format!("{from_ctx:?}").contains("local"));
        assert!(!format!("{from_ctx:?}").contains("Bearer"));
    }
}
