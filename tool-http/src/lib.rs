//! A safe HTTP client for tools.
//!
//! Two kinds of request, kept apart on purpose:
//!
//! - **Configured services** ([`HttpClient::get`], [`HttpClient::request`]): downstream APIs the
//!   operator named, each with a base URL. A client bound to a call ([`HttpClient::bind`], or
//!   taken as a tool parameter through [`FromContext`]) forwards the call's allowlisted request
//!   headers (none by default, never `authorization` or `cookie`) to them. Redirects are
//!   followed only within the service's origin.
//! - **Tokens** go only where they were meant to: the caller's access token to a service whose
//!   configured `audience` it was issued for ([`Principal::token_for`]), else the operator's
//!   token for that service if one is configured, else none; never two, never the caller's
//!   token to any other service (no "token passthrough"). See [`ServiceConfig`].
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
//! | `TOOL_HTTP_AUDIENCE_<NAME>` | the audience service `<name>` accepts tokens for: a caller's token issued for it is sent, e.g. `https://billing.example.com` |
//! | `TOOL_HTTP_TOKEN_ENV_<NAME>` | the variable holding the operator's token for service `<name>`, sent when no caller's token applies, e.g. `BILLING_TOKEN` |
//! | `TOOL_HTTP_TIMEOUT_MS` | time limit of one request, redirects and body included (default 30000) |
//! | `TOOL_HTTP_MAX_RESPONSE_BYTES` | largest body read (default 5242880) |
//! | `TOOL_HTTP_FORWARD_HEADERS` | request headers to forward to services, e.g. `x-request-id,traceparent` |
//! | `TOOL_HTTP_ALLOW_HOSTS` | host names, IP addresses or CIDR ranges `fetch` may reach although the guard refuses them, e.g. `127.0.0.1,intranet.example` |
//!
//! ```no_run
//! use tool_http::{HttpClient, HttpConfig};
//! # async fn demo(ctx: &tool_core::ToolContext) -> Result<(), tool_core::ToolError> {
//! let client = HttpClient::new(HttpConfig::default().service_with_audience(
//!     "billing",
//!     "https://billing.internal/v1",
//!     "https://billing.example.com",
//! ))
//! .expect("valid configuration");
//! let invoice = client
//!     .bind(ctx) // the caller's token if issued for billing.example.com; cancelled with the call
//!     .get("billing", "/invoices/42")
//!     .send()
//!     .await?
//!     .text();
//! let page = client.fetch("https://example.com/").await?; // SSRF-guarded, no headers forwarded
//! # let _ = (invoice, page);
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

// One file per concern: `config` (`HttpConfig` and its loading), `credential` (which token a
// service request carries), `ssrf` (address classification, the guard's policy, the guarded
// resolver and the redirect checks), `client` (`HttpClient` and its requests), `response`
// (`HttpResponse` and content types) and `send` (sending a request, reading its body and mapping
// failures to `ToolError`s); `testing` is the tests' server on 127.0.0.1.
mod client;
mod config;
mod credential;
mod response;
mod send;
mod ssrf;
#[cfg(test)]
mod testing;
mod text;

// Named by the module docs' links.
#[cfg(doc)]
use tool_core::context::FromContext;
#[cfg(doc)]
use tool_core::context::Principal;
#[cfg(doc)]
use tool_core::error::{ErrorKind, ToolError};

pub use client::{FetchOptions, HttpClient, ServiceRequest, tls_config};
pub use config::{
    DEFAULT_FORWARD_HEADERS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT, ENV_PREFIX, HttpConfig,
    HttpConfigError, ServiceConfig,
};
pub use reqwest::{Method, Url};
pub use response::{HttpResponse, is_text_content_type, media_type};
pub use ssrf::{AddrClass, Blocked, MAX_REDIRECTS, Refused, classify};
