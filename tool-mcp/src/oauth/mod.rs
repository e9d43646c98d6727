//! The Streamable HTTP endpoint as an OAuth 2.1 resource server (feature `oauth`), as the MCP
//! authorization specification (2025-06-18 and later) asks: every request carries an access
//! token (a JWT) from a trusted authorization server; the server checks it against the
//! issuer's keys and hands the caller to the tools as a [`Principal`](tool_core::context::Principal).
//!
//! - [`OAuthConfig`] says which resource the server is (its URL, the audience tokens must
//!   name), which issuer it trusts and where its keys are ([`JwksSource`]), and which scopes
//!   every request needs.
//! - [`OAuth::load`] reads or fetches the keys and gives the validator, [`OAuth`]; a startup
//!   failure is an [`OAuthError`] naming the file or URL and what was wrong.
//! - [`HttpOptions::oauth`](crate::HttpOptions::oauth) puts it in front of the MCP endpoint:
//!   [`http_router`](crate::http_router) and [`serve_http`](crate::serve_http) then refuse
//!   requests without a valid token (401, `WWW-Authenticate: Bearer resource_metadata=...`),
//!   with too few scopes (403 `insufficient_scope`, also for a `tools/call` of a tool whose
//!   scopes the caller lacks), serve the protected resource metadata (RFC 9728), list each
//!   caller the tools it may call, put its `Principal` in every call's context, and answer
//!   each session (its messages, its stream, its end) only to the caller that began it.
//! - For an axum application of one's own: [`require_token`] (the middleware, or
//!   [`OAuth::protect`]), [`OAuth::metadata_router`], [`OAuth::authenticate`] and
//!   [`OAuth::refusal`]. A refused request is an [`AuthError`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use tool_core::exec::Executor;
//! use tool_mcp::oauth::{JwksSource, OAuth, OAuthConfig};
//! use tool_mcp::{HttpOptions, McpServer, serve_http};
//!
//! let config = OAuthConfig::new(
//!     "https://mcp.example.com/mcp",
//!     "https://id.example.com/realms/tools",
//!     JwksSource::Url("https://id.example.com/realms/tools/protocol/openid-connect/certs".into()),
//! )
//! .with_required_scopes(["mcp:tools"]);
//! let mut options = HttpOptions::default().with_oauth(Arc::new(OAuth::load(config).await?));
//! // Behind a proxy that terminates TLS for mcp.example.com.
//! options.allowed_hosts = vec!["mcp.example.com".into()];
//! let server = McpServer::new(Executor::new(tool_core::Registry::linked()?));
//! let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
//! serve_http(server, listener, &options, Default::default()).await?;
//! # Ok(()) }
//! ```
//!
//! The guide `docs/remote-auth.md` shows a whole set-up with an identity provider.

mod challenge;
mod config;
mod error;
mod jwks;
mod metadata;
mod middleware;
mod validate;

pub use config::{JwksSource, OAuthConfig};
pub use error::{Audiences, AuthError, OAuthError, TokenProblem};
pub use middleware::require_token;
pub(crate) use middleware::{Gate, SessionOwners, require_token_for_tools};
pub use validate::OAuth;
