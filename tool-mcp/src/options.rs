//! How an [`McpServer`](crate::McpServer) presents itself and its tools, and what it takes of
//! a connection: the options it is built with.

use std::time::Duration;

/// Whether `tools/list` shows deferred (non-`core`) tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeferredTools {
    /// List every tool (what MCP clients expect by default).
    #[default]
    Listed,
    /// List only `core` tools; the others are still called by name, once a model has found
    /// them (through a catalog search).
    Hidden,
}

/// How an [`McpServer`](crate::McpServer) presents itself and its tools.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// The name in `serverInfo`.
    pub name: String,
    /// The version in `serverInfo`.
    pub version: String,
    /// The name people read in `serverInfo.title`, when it differs from `name`.
    pub title: Option<String>,
    /// Instructions for the client's model, sent at `initialize`.
    pub instructions: Option<String>,
    /// Whether deferred tools are listed.
    pub deferred: DeferredTools,
    /// Tools per `tools/list` page; the rest follow through `nextCursor`. Default 500.
    pub page_size: usize,
    /// HTTP request headers passed into each call's context, for tools to forward downstream
    /// (lowercase names; none by default). Over stdio there are none. A caller's
    /// `Authorization` is never one of them, nor `Cookie` or a `Proxy-*` header, whatever
    /// this lists ([`never_forwarded`](Self::never_forwarded)): the token is the server's to
    /// check, and a tool reaches a downstream service with the caller's token only through the
    /// [`Principal`](tool_core::context::Principal)'s audience rule (`tool_http`'s services), never by passing the header on.
    pub forward_headers: Vec<String>,
    /// Serve stdio through the SDK's own codec and service loop instead of this crate's
    /// transport (which checks every line against JSON-RPC 2.0 and answers `tools/call` and
    /// `tools/list` itself; see [`serve_io`](crate::serve_io)). Default false: for comparison,
    /// or as a fallback.
    pub sdk_transport: bool,
    /// How long the calls in flight when input ends (stdin closed, or the shutdown token
    /// cancelled) may take to finish before they are cancelled. Default 5 s, as long as the
    /// SDK's own loop waits; a call's own time limit still ends it sooner.
    pub shutdown_grace: Duration,
    /// How long a client of protocol 2026-07-28 may keep a `tools/list` answer before it asks
    /// again (its `ttlMs`). The answer is `public` (any cache may share it) when every caller
    /// gets the same list, and `private` when the caller's scopes filter it. Default 60 s; a
    /// change to the tool set ([`McpServer::update`](crate::McpServer::update)) reaches listening clients at once
    /// (`notifications/tools/list_changed`), the others once the time is over.
    pub list_ttl: Duration,
    /// Seals the `requestState` of the 2026-07-28 calls whose tools ask the client (see
    /// [`McpPeer`](crate::McpPeer)), and opens the states retries bring back. `None` (the default): a random
    /// key of this process's own, so a state opens only where it was made; behind a load
    /// balancer, give every instance the same key (or key ring, for rotation:
    /// [`RequestStateCodec::new_with_keyring`](rmcp::model::RequestStateCodec::new_with_keyring)),
    /// so that the retry may land on any of them.
    pub request_state: Option<rmcp::model::RequestStateCodec>,
    /// How long a sealed `requestState` opens: the time a client has to ask its user and
    /// call again. Default 10 minutes.
    pub request_state_ttl: Duration,
    /// Long calls as tasks (MCP's `io.modelcontextprotocol/tasks`, feature `tasks`): a call of a
    /// tool marked `task`, from a 2026-07-28 client that declared the extension, is answered
    /// with a task once it has run [`TaskOptions::after`](crate::TaskOptions::after). `None`
    /// (the default): every call is a plain call.
    #[cfg(feature = "tasks")]
    pub tasks: Option<crate::TaskOptions>,
    /// Shows the framework's card (`#[tool(card)]`) as the view of every tool without one of
    /// its own, to clients that render MCP Apps ([`views`](crate::views)); `toolctl serve
    /// --views`. Default false: only the tools that ask for a view have one.
    pub cards: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            name: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            title: None,
            instructions: None,
            deferred: DeferredTools::default(),
            page_size: 500,
            forward_headers: Vec::new(),
            sdk_transport: false,
            shutdown_grace: Duration::from_secs(5),
            list_ttl: Duration::from_secs(60),
            request_state: None,
            request_state_ttl: Duration::from_secs(600),
            #[cfg(feature = "tasks")]
            tasks: None,
            cards: false,
        }
    }
}

impl ServerOptions {
    /// Why the request header `name` never reaches tools, whatever
    /// [`forward_headers`](Self::forward_headers) lists, or `None` when it may.
    ///
    /// ```
    /// use tool_mcp::ServerOptions;
    /// assert!(ServerOptions::never_forwarded("Authorization").is_some());
    /// assert!(ServerOptions::never_forwarded("proxy-authorization").is_some());
    /// assert_eq!(ServerOptions::never_forwarded("x-tenant"), None);
    /// ```
    pub fn never_forwarded(name: &str) -> Option<&'static str> {
        let name = name.trim().to_ascii_lowercase();
        match name.as_str() {
            "authorization" => Some(
                "the caller's token is the server's to check; tools see the caller as a \
                 Principal, and a service gets its token only by its audience",
            ),
            "cookie" => Some("it is the caller's session with this server"),
            n if n.starts_with("proxy-") => Some("it is meant for a proxy"),
            _ => None,
        }
    }

    /// The `serverInfo` these options give.
    pub(crate) fn implementation(&self) -> rmcp::model::Implementation {
        let mut info = rmcp::model::Implementation::new(self.name.clone(), self.version.clone());
        info.title = self.title.clone();
        info
    }

    /// Options with this server name and version.
    pub fn named(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            ..Self::default()
        }
    }
}
