//! The protected resource metadata (RFC 9728): where clients learn which authorization server
//! issues tokens for this server, served without authentication and readable from a browser.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};

use super::config::WELL_KNOWN;
use super::validate::OAuth;
use crate::McpServer;

impl OAuth {
    /// The metadata document: `resource`, `authorization_servers`, `scopes_supported` (left out
    /// when there are none), `bearer_methods_supported: ["header"]`. The router
    /// [`http_router`](crate::http_router) serves adds to `scopes_supported` every scope a tool
    /// it serves needs, as its tools are now.
    ///
    /// ```no_run
    /// # async fn demo(oauth: tool_mcp::oauth::OAuth) {
    /// let document = oauth.metadata();
    /// assert_eq!(document["bearer_methods_supported"], serde_json::json!(["header"]));
    /// # }
    /// ```
    pub fn metadata(&self) -> Value {
        self.metadata_with(&[])
    }

    /// [`metadata`](Self::metadata) with `more` scopes advertised after the configured ones,
    /// each once.
    fn metadata_with(&self, more: &[String]) -> Value {
        let mut document = json!({
            "resource": self.resource(),
            "authorization_servers": self.config().authorization_servers(),
        });
        let mut scopes: Vec<&str> = Vec::new();
        for scope in self.config().scopes_supported().iter().chain(more) {
            if !scopes.contains(&scope.as_str()) {
                scopes.push(scope);
            }
        }
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        document["bearer_methods_supported"] = json!(["header"]);
        document
    }

    /// A router answering `GET` (and a browser's preflight `OPTIONS`) for the metadata at
    /// `/.well-known/oauth-protected-resource`, and at that path followed by the resource's
    /// path and by `endpoint_path` (the path the MCP endpoint is mounted at, `/mcp`), where
    /// clients look first. Merge it into an application that mounts the endpoint itself;
    /// [`http_router`](crate::http_router) does.
    pub fn metadata_router(self: &Arc<Self>, endpoint_path: &str) -> axum::Router {
        self.metadata_router_for(endpoint_path, None)
    }

    /// [`metadata_router`](Self::metadata_router), advertising the scopes `server`'s tools
    /// need as well, read at each request so that tools added while serving are there.
    pub(crate) fn metadata_router_for(
        self: &Arc<Self>,
        endpoint_path: &str,
        server: Option<McpServer>,
    ) -> axum::Router {
        let mut paths = vec![WELL_KNOWN.to_owned()];
        for suffix in [self.resource_path(), endpoint_path] {
            let suffix = suffix.trim_matches('/');
            let path = format!("{WELL_KNOWN}/{suffix}");
            if !suffix.is_empty() && !paths.contains(&path) {
                paths.push(path);
            }
        }
        let state = Arc::new(Served {
            oauth: self.clone(),
            server,
        });
        let mut router = axum::Router::new();
        for path in paths {
            router = router.route(
                &path,
                get(document).options(preflight).with_state(state.clone()),
            );
        }
        router
    }
}

/// What the metadata routes read.
struct Served {
    oauth: Arc<OAuth>,
    server: Option<McpServer>,
}

async fn document(State(served): State<Arc<Served>>) -> Response {
    let tool_scopes = served
        .server
        .as_ref()
        .map(McpServer::tool_scopes)
        .unwrap_or_default();
    // A served tool set can change, and with it the scopes: clients ask again each time.
    let cache = match served.server {
        Some(_) => "no-cache",
        None => "max-age=3600",
    };
    let mut response = (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, cache),
        ],
        served.oauth.metadata_with(&tool_scopes).to_string(),
    )
        .into_response();
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// A browser's preflight: any origin may read the document, with any request headers (an MCP
/// client in a page sends `MCP-Protocol-Version`). No credentials are involved.
async fn preflight() -> Response {
    let headers = [
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, OPTIONS"),
        (header::ACCESS_CONTROL_ALLOW_HEADERS, "*"),
        (header::ACCESS_CONTROL_MAX_AGE, "86400"),
    ];
    (StatusCode::NO_CONTENT, headers).into_response()
}
