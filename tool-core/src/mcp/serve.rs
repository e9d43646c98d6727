//! Putting an [`McpServer`] on a transport: stdio, or Streamable HTTP (sessions or stateless)
//! with the security a server reachable over a network needs.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::McpServer;

/// Why a server stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client's `initialize` failed.
    #[error("the MCP session could not start: {0}")]
    Initialize(#[from] Box<rmcp::service::ServerInitializeError>),
    /// The server's task ended abnormally.
    #[error("the MCP server stopped abnormally: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// Binding or serving the socket failed.
    #[error("the HTTP server failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves `server` on this process's stdin and stdout until the client closes them.
pub async fn serve_stdio(server: McpServer) -> Result<(), ServeError> {
    let running = server
        .connection()
        .serve(rmcp::transport::stdio_pipes())
        .await
        .map_err(Box::new)?;
    running.waiting().await?;
    Ok(())
}

/// How the Streamable HTTP endpoint is exposed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The endpoint's path. Default `/mcp`.
    pub path: String,
    /// No sessions: every request stands alone, so any instance behind a load balancer can
    /// answer it. Default false (sessions, `Mcp-Session-Id`).
    pub stateless: bool,
    /// `Host` header values accepted (DNS-rebinding protection). Default: loopback names only.
    pub allowed_hosts: Vec<String>,
    /// Browser `Origin`s accepted; a request with any other `Origin` is refused with 403.
    /// Requests without an `Origin` (not from a browser) pass. Default: loopback origins.
    pub allowed_origins: Vec<String>,
    /// When set, every request must carry `Authorization: Bearer <token>` (else 401). The header
    /// is then the server's, so it is not passed on to tools.
    pub bearer_token: Option<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".to_owned(),
            stateless: false,
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: vec![
                "http://localhost:*".into(),
                "http://127.0.0.1:*".into(),
                "http://[::1]:*".into(),
            ],
            bearer_token: None,
        }
    }
}

/// An axum router serving `server` at `options.path`, to mount in an application of your own.
pub fn http_router(server: McpServer, options: &HttpOptions) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.allowed_hosts.clone())
        .with_allowed_origins(options.allowed_origins.clone())
        .enforce_origin_validation()
        .with_legacy_session_mode(!options.stateless)
        .with_json_response(options.stateless);
    let factory = move || Ok(server.connection());
    let router = if options.stateless {
        let service =
            StreamableHttpService::new(factory, Arc::new(NeverSessionManager::default()), config);
        axum::Router::new().route_service(&options.path, service)
    } else {
        let service =
            StreamableHttpService::new(factory, Arc::new(LocalSessionManager::default()), config);
        axum::Router::new().route_service(&options.path, service)
    };
    match &options.bearer_token {
        Some(token) => router.layer(middleware::from_fn_with_state(
            Arc::<str>::from(token.as_str()),
            require_bearer,
        )),
        None => router,
    }
}

/// Serves `server` over Streamable HTTP on `listener` until `shutdown` is cancelled.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use tool_core::exec::Executor;
/// use tool_core::mcp::{HttpOptions, McpServer, serve_http};
/// let server = McpServer::new(Executor::new(tool_core::Registry::linked()?));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// serve_http(server, listener, &HttpOptions::default(), Default::default()).await?;
/// # Ok(()) }
/// ```
pub async fn serve_http(
    server: McpServer,
    listener: tokio::net::TcpListener,
    options: &HttpOptions,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let router = http_router(server, options);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await?;
    Ok(())
}

/// Refuses requests without the server's bearer token, and keeps the token from the tools.
async fn require_bearer(
    State(token): State<Arc<str>>,
    mut request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        });
    match presented {
        Some(presented) if same(presented.as_bytes(), token.as_bytes()) => {
            request.headers_mut().remove(header::AUTHORIZATION);
            next.run(request).await
        }
        _ => {
            let mut response = (
                StatusCode::UNAUTHORIZED,
                "this MCP server needs `Authorization: Bearer <token>`",
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            response
        }
    }
}

/// Compares in time that depends on the length only, not on where the bytes differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn token_comparison() {
        assert!(same(b"secret", b"secret"));
        assert!(!same(b"secret", b"secreT"));
        assert!(!same(b"secret", b"secret2"));
        assert!(!same(b"", b"x"));
    }
}
