//! The MCP server handler: `tools/list` and `tools/call` over an executor whose tool set may
//! change while clients are connected.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

use rmcp::model::{CacheScope, SubscriptionFilter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, InitializeRequestParams, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler};
use serde_json::Value;

use super::ask::{self, McpPeer, RequestStates, Round, RoundEnd};
use super::level::{self, from_mcp_level};
use super::listing::Hints;
use super::listing::{Page, listed_tool};
use super::notify::Notifier;
use super::options::{DeferredTools, ServerOptions};
use super::request::{Asking, Era, client_capabilities};
use super::result::{CallAnswer, CallOutcome, ServerInfo, call_result};
use super::sync::{lock, read, write};
#[cfg(feature = "tasks")]
use super::tasks::{self, Tasks};
use super::views;
use tool_catalog::SharedCatalog;
use tool_core::exec::Executor;
use tool_core::{
    ToolContext,
    context::{ApprovalScope, LogLevel, Principal, Remembering, RequestHeaders},
    registry::{Edit, Tool},
};

mod items;
mod listeners;
#[cfg(feature = "http")]
mod sessions;
#[cfg(feature = "tasks")]
mod task_calls;

#[cfg(feature = "http")]
use crate::http_sessions::{Begun, HttpSessions, RequestIds};

/// An MCP server over an [`Executor`]: an `rmcp` [`ServerHandler`].
///
/// Each connection gets its own handle ([`McpServer::connection`], done for you by
/// [`serve_stdio`](super::serve_stdio) and [`serve_http`](super::serve_http)); every handle
/// shares the tool set, so [`McpServer::update`] reaches every connected client. A clone is the
/// same connection (it shares the negotiated log level); serve each connection its own handle.
#[derive(Clone)]
pub struct McpServer {
    shared: Arc<Shared>,
    session: Arc<Session>,
}

struct Shared {
    options: ServerOptions,
    /// `serverInfo`, as 2026-07-28 results carry it.
    server_info: Arc<ServerInfo>,
    /// Seals and opens the `requestState` of 2026-07-28 calls that ask.
    states: RequestStates,
    base: ToolContext,
    live: RwLock<Arc<Live>>,
    /// Held while a change to the tool set is built.
    writer: Mutex<()>,
    /// The catalog `search_tools` searches, kept in line with the tool set.
    catalog: Option<SharedCatalog>,
    /// Clients to tell when the tool set changes: sessions that began with `initialize`...
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// ...and, from protocol 2026-07-28 on, open `subscriptions/listen` requests.
    listeners: listeners::Listeners,
    /// Sessions subscribed to resources' updates.
    watchers: listeners::Watchers,
    /// Long calls as tasks, when the options ask for them.
    #[cfg(feature = "tasks")]
    tasks: Option<Arc<Tasks>>,
    /// Whether this server's sweep of the task store has begun.
    #[cfg(feature = "tasks")]
    sweeping: AtomicBool,
    /// The Streamable HTTP sessions begun, by id.
    #[cfg(feature = "http")]
    http_sessions: HttpSessions<Session>,
}

/// The tool set as it is now: the executor and the tools `tools/list` shows, in order. Their
/// MCP form is built per page, not kept: a copy of every schema would be about 40% of a
/// 200-tool server's heap, kept for a request a client makes once or twice.
struct Live {
    executor: Executor,
    /// What a client that renders views lists: tools for views only among them.
    listed: Arc<[tool_core::registry::Tool]>,
    /// What every other client lists: `listed` less the tools for views only (the same
    /// slice when there are none).
    for_model: Arc<[tool_core::registry::Tool]>,
    /// Whether a listed tool needs scopes: if none does, every caller sees the same list.
    scoped: bool,
    /// Every scope a tool, listed or not, needs, each once, in registry order: what the OAuth
    /// metadata advertises. If there are none, no call needs more than the server's own
    /// scopes, and the HTTP gate need not read which tool a call names.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    tool_scopes: Arc<[String]>,
    /// Whether a tool declares a parameter sent as a header (`x-mcp-header`): if none does,
    /// no call has `Mcp-Param-*` headers to check, and its tool's schema need not be read.
    headed: bool,
}

/// What one connection negotiated.
#[derive(Default)]
struct Session {
    /// The lowest log level the client wants, as `LogLevel as u8` (0, debug, until it says).
    min_level: AtomicU8,
    /// The base context with this connection's client ([`McpPeer`]) added, made at its first
    /// call of the session era: each such call's context derives from it rather than adding
    /// the peer again. (A 2026-07-28 call has a client of its own: its round.)
    base: OnceLock<ToolContext>,
    /// The client, once the SDK's loop has begun a session with it: with `initialize`, or
    /// with a first request of protocol 2026-07-28 that says who is asking. Its calls and
    /// listings may then be answered by the transport itself ([`super::stdio`]).
    peer: OnceLock<Peer<RoleServer>>,
    /// Whether the connection began with `initialize`: a session, which carries requests from
    /// the server to the client (whatever version the client named: the SDK then answers
    /// with one before 2026-07-28).
    initialized: AtomicBool,
    /// The authenticated caller (issuer, subject) that began the session, when there was one:
    /// the session answers no one else, whatever token they hold.
    owner: OnceLock<Option<Identity>>,
    /// Who the connection's approvals belong to when its caller is not authenticated (kept in
    /// this process only), made at the first call that needs it.
    scope: OnceLock<ApprovalScope>,
    /// Over Streamable HTTP, the ids of the session's requests in progress: made at the first,
    /// so a stdio connection or a 2026-07-28 request (a connection of its own) makes none.
    #[cfg(feature = "http")]
    ids: OnceLock<Arc<RequestIds>>,
}

impl Session {
    /// The scope, made at first use: unique in the process (a 2026-07-28 request over HTTP is a
    /// connection of its own, so this runs once a call there, and reads no randomness).
    fn scope(&self) -> ApprovalScope {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        self.scope
            .get_or_init(|| {
                let n = NEXT.fetch_add(1, Ordering::Relaxed);
                ApprovalScope(format!("connection-{n}").into())
            })
            .clone()
    }
}

/// `base` with the server's approver (an elicitation to each call's client, approvals kept as
/// the user chooses), unless it has one of its own.
fn with_approver(base: ToolContext) -> ToolContext {
    if base.approver().is_some() {
        return base;
    }
    base.derive()
        .approver(Arc::new(Remembering::new(super::approve::ElicitApprover)))
        .build()
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("options", &self.shared.options)
            .field("tools", &self.live().executor.registry().len())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server over `executor` with default options.
    pub fn new(executor: Executor) -> Self {
        Self::with_options(executor, ServerOptions::default())
    }

    /// A server over `executor` with `options`.
    pub fn with_options(executor: Executor, mut options: ServerOptions) -> Self {
        options.forward_headers.retain(|name| {
            let why = ServerOptions::never_forwarded(name);
            if let Some(why) = why {
                tracing::warn!(header = %name, reason = why, "forward_headers: never passed to tools");
            }
            why.is_none()
        });
        let live = Live::new(executor, options.deferred);
        let server_info = Arc::new(ServerInfo::new(&options.implementation()));
        let codec = options
            .request_state
            .clone()
            .unwrap_or_else(RequestStates::random_codec);
        let states = RequestStates::new(codec, options.request_state_ttl);
        #[cfg(feature = "tasks")]
        let tasks = options.tasks.clone().map(|t| Arc::new(Tasks::new(t)));
        Self {
            shared: Arc::new(Shared {
                options,
                server_info,
                states,
                base: with_approver(ToolContext::new()),
                live: RwLock::new(Arc::new(live)),
                writer: Mutex::new(()),
                catalog: None,
                peers: Mutex::new(Vec::new()),
                listeners: Default::default(),
                watchers: Default::default(),
                #[cfg(feature = "tasks")]
                tasks,
                #[cfg(feature = "tasks")]
                sweeping: AtomicBool::new(false),
                #[cfg(feature = "http")]
                http_sessions: Default::default(),
            }),
            session: Arc::default(),
        }
    }

    /// Uses `base` as the context every call's context is derived from: its root, extensions,
    /// principal and sinks reach every tool. (Its cancellation token does not: a call is
    /// cancelled by its client, and a server stops by its transport's shutdown.)
    ///
    /// Call it before the server is shared: handles made earlier keep the old base.
    pub fn with_base_context(self, base: ToolContext) -> Self {
        let catalog = self.shared.catalog.clone();
        self.rebuilt(base, catalog)
    }

    /// Keeps `catalog` (what `search_tools` searches, from [`tool_catalog::install`]) in line with
    /// every [`update`](Self::update).
    ///
    /// Call it before the server is shared: handles made earlier keep the old settings.
    ///
    /// [`tool_catalog::install`]: tool_catalog::install
    pub fn with_catalog(self, catalog: SharedCatalog) -> Self {
        catalog.sync(self.live().executor.registry());
        let base = self.shared.base.clone();
        self.rebuilt(base, Some(catalog))
    }

    /// The same server with another base context or catalog.
    fn rebuilt(self, base: ToolContext, catalog: Option<SharedCatalog>) -> Self {
        let shared = &self.shared;
        Self {
            shared: Arc::new(Shared {
                options: shared.options.clone(),
                server_info: shared.server_info.clone(),
                states: shared.states.clone(),
                base: with_approver(base),
                live: RwLock::new(self.live()),
                writer: Mutex::new(()),
                catalog,
                peers: Mutex::new(std::mem::take(&mut *lock(&shared.peers))),
                listeners: listeners::Listeners::take_from(&shared.listeners),
                watchers: listeners::Watchers::take_from(&shared.watchers),
                #[cfg(feature = "tasks")]
                tasks: shared.tasks.clone(),
                #[cfg(feature = "tasks")]
                sweeping: AtomicBool::new(false),
                #[cfg(feature = "http")]
                http_sessions: Default::default(),
            }),
            session: Arc::default(),
        }
    }

    /// A handle for a new connection: the same tools, its own negotiated state.
    pub fn connection(&self) -> Self {
        #[cfg(feature = "tasks")]
        self.start_sweep();
        Self {
            shared: self.shared.clone(),
            session: Arc::default(),
        }
    }

    /// Ends this instance's part in the tasks it runs (feature `tasks`), as a server does when
    /// it stops: the tasks running here have `grace` to finish (and are written as they end);
    /// those still running then are stopped and their leases given up, so that another
    /// instance sharing the store takes each over at its next sweep (an idempotent call runs
    /// again there, any other fails with an error that says the instance stopped). No task of
    /// this server starts or is taken over afterwards. [`serve_http`](super::serve_http) and
    /// [`serve_stdio`](super::serve_stdio) call it on their way out; call it yourself when you
    /// mount [`http_router`](super::http_router). Without tasks it returns at once.
    pub async fn stop_tasks(&self, grace: Duration) {
        #[cfg(feature = "tasks")]
        self.stop_tasks_of(grace).await;
        #[cfg(not(feature = "tasks"))]
        let _ = grace;
    }

    /// The options it was built with.
    pub fn options(&self) -> &ServerOptions {
        &self.shared.options
    }

    /// The executor calls run on now.
    pub fn executor(&self) -> Executor {
        self.live().executor.clone()
    }

    /// Whether any tool of the current set needs scopes of its caller.
    #[cfg(feature = "oauth")]
    pub(crate) fn calls_scoped(&self) -> bool {
        !self.live().tool_scopes.is_empty()
    }

    /// Every scope a tool of the current set needs, each once, in registry order.
    #[cfg(feature = "oauth")]
    pub(crate) fn tool_scopes(&self) -> Arc<[String]> {
        self.live().tool_scopes.clone()
    }

    /// Changes the tool set (add or remove dynamic tools, mount a server): `change` edits a copy
    /// of the registry ([`Executor::edit`](tool_core::Executor::edit)), which replaces the served
    /// one, under the same policy and layers, only if `change` succeeds. Calls already
    /// running finish on the old set. Connected clients get `notifications/tools/list_changed`.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use tool_core::exec::Executor;
    /// use tool_mcp::McpServer;
    /// use tool_core::{registry::DynamicTool, Registry};
    /// let server = McpServer::new(Executor::new(Registry::empty()));
    /// server
    ///     .update(|registry| {
    ///         registry.register(DynamicTool::new("ping_host", "Pings.", serde_json::json!({"type": "object"})))
    ///     })
    ///     .unwrap();
    /// assert!(server.executor().registry().get("ping_host").is_some());
    /// # });
    /// ```
    pub fn update<R, E>(&self, change: impl FnOnce(&mut Edit<'_>) -> Result<R, E>) -> Result<R, E> {
        // One change at a time; calls and listings go on meanwhile, on the current set.
        let _writer = lock(&self.shared.writer);
        let current = self.live();
        let (executor, result) = current.executor.edit(change)?;
        let before = current.executor.registry();
        let registry = executor.registry();
        let changed = Changed {
            resources: !same_items(before.resources(), registry.resources(), |a, b| a.same(b)),
            prompts: !same_items(before.prompts(), registry.prompts(), |a, b| a.same(b)),
        };
        if let Some(catalog) = &self.shared.catalog {
            catalog.sync(registry);
        }
        let next = Arc::new(Live::new(executor, self.shared.options.deferred));
        *write(&self.shared.live) = next;
        self.notify_list_changed(changed);
        Ok(result)
    }

    fn live(&self) -> Arc<Live> {
        read(&self.shared.live).clone()
    }

    /// Tells every client, each in its own task with a time limit, so a client that stopped
    /// reading delays nobody else.
    fn notify_list_changed(&self, changed: Changed) {
        const LIMIT: Duration = Duration::from_secs(10);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut peers = lock(&self.shared.peers);
        peers.retain(|p| !p.is_transport_closed());
        for peer in peers.iter() {
            let peer = peer.clone();
            runtime.spawn(async move {
                let _ = tokio::time::timeout(LIMIT, async {
                    let _ = peer.notify_tool_list_changed().await;
                    if changed.resources {
                        let _ = peer.notify_resource_list_changed().await;
                    }
                    if changed.prompts {
                        let _ = peer.notify_prompt_list_changed().await;
                    }
                })
                .await;
            });
        }
        let shared = self.shared.clone();
        runtime.spawn(async move {
            for listener in shared.listeners.settled().await {
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(LIMIT, async {
                        let _ = listener.notify_tool_list_changed().await;
                        if changed.resources {
                            let _ = listener.notify_resource_list_changed().await;
                        }
                        if changed.prompts {
                            let _ = listener.notify_prompt_list_changed().await;
                        }
                    })
                    .await;
                });
            }
        });
    }

    /// Runs a `tools/call`: what [`call_tool`](ServerHandler::call_tool) answers, before it is
    /// made a `CallToolResult` (the stdio transport writes most outcomes itself).
    ///
    /// `era` is the request's, checked already ([`Era::of`] for the transport's requests, the
    /// SDK's own checks for the rest).
    pub(super) async fn call(
        &self,
        mut request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
        era: Era,
    ) -> Result<CallAnswer, McpError> {
        let live = self.live();
        let registry = live.executor.registry();
        // A tool for views only is unknown to a client that renders none.
        let found = registry
            .get(&request.name)
            .filter(|t| t.to_model() || self.views_for(&cx, era));
        let Some(tool) = found else {
            // Only names the caller's listing shows: a suggestion must not undo its filtering.
            let caller = if lists_all(&cx) {
                None
            } else {
                self.caller(&cx)
            };
            let near = registry.suggest_for(&request.name, caller);
            let error = tool_core::exec::unknown_tool(&request.name, &near);
            return Err(McpError::invalid_params(error.to_string(), None));
        };
        self.check_owner(&cx)?;
        self.keep_inline_peer(&cx);
        // A caller without the tool's scopes is refused by the executor, before the tool runs
        // and audited like any refusal (the HTTP gate answers such a call with 403 first).
        let asking = Asking::read(&cx.meta);
        let min_level = era.log_level(asking.log_level, self.min_level());
        let call_id = request_id(&cx.id);
        let notifier = Notifier::start(
            cx.peer.clone(),
            asking.progress,
            min_level,
            call_id.clone(),
            tool.name_cow(),
            self.shared.base.clone(),
        );
        let input = Value::Object(request.arguments.take().unwrap_or_default());
        // A 2026-07-28 call asks its client through a round of its own, which brings the
        // answers of the rounds before it.
        let round = self.round_of(
            &cx,
            era,
            ("tools/call", tool.name(), &input),
            request.request_state.as_deref(),
            request.input_responses.take(),
        )?;
        #[cfg(feature = "tasks")]
        if let Some(refusal) = self.task_refusal(tool, era, &cx) {
            return Err(refusal);
        }
        #[cfg(feature = "tasks")]
        if let Some(tasks) = self.tasks_for(tool, era, &cx) {
            return self
                .call_may_become_task(tasks, &live, tool, input, &cx, call_id, notifier, round)
                .await;
        }
        let round_ref = round.as_ref().map(|(r, _)| r);
        let ctx = self.call_context(
            &cx,
            call_id,
            Some(notifier.sink()),
            cx.ct.clone(),
            round_ref,
        );
        // The context is this call's alone: the executor takes it over.
        let result = live.executor.call_in(tool.name(), input, ctx).await;
        // Every notification the call sent goes out before its result.
        notifier.finish().await;
        self.answer(tool, era, result, &cx, round)
    }

    /// The answer to a call of `tool` whose tool has run: its result, or the questions its round
    /// asked.
    fn answer(
        &self,
        tool: &Tool,
        era: Era,
        result: tool_core::exec::CallResult,
        cx: &RequestContext<RoleServer>,
        round: Option<(Arc<Round>, Option<Vec<u8>>)>,
    ) -> Result<CallAnswer, McpError> {
        let outcome = match era {
            Era::Session => CallOutcome::new(tool, result),
            Era::Modern => CallOutcome::modern(tool, result),
        }
        .for_client(|| cx.protocol_version());
        let Some((round, binding)) = round else {
            return Ok(CallAnswer::Complete(outcome));
        };
        Ok(match round.end(&self.shared.states, binding.as_deref())? {
            RoundEnd::Complete => CallAnswer::Complete(outcome),
            RoundEnd::InputRequired(result) => CallAnswer::InputRequired(result),
        })
    }

    /// The context of one `tools/call` (or read, get or completion): derived from the base, with
    /// the request's id, the forwarded HTTP headers, the client's cancellation and, for a call, a
    /// sink that turns progress and log events into notifications (else the base's).
    fn call_context(
        &self,
        cx: &RequestContext<RoleServer>,
        call_id: String,
        events: Option<Arc<dyn tool_core::context::EventSink>>,
        cancel: tokio_util::sync::CancellationToken,
        round: Option<&Arc<Round>>,
    ) -> ToolContext {
        // How a tool reaches the client depends on the request's era: a 2026-07-28 call's
        // questions go into its own round; a session's calls share one client.
        let mut builder = match round {
            Some(round) => {
                let client = McpPeer::rounds(cx.peer.clone(), round.clone());
                self.shared
                    .base
                    .derive()
                    .extension(client)
                    .extension(round.rerun().clone())
                    .extension(self.session.scope())
            }
            None => self
                .session
                .base
                .get_or_init(|| {
                    let in_session = self.session.initialized.load(Ordering::Relaxed);
                    let client = McpPeer::session(cx.peer.clone(), in_session);
                    self.shared
                        .base
                        .derive()
                        .extension(client)
                        .extension(self.session.scope())
                        .build()
                })
                .derive(),
        };
        // rmcp gives each request a token of its own (a child of the session's), cancelled by
        // the client's `notifications/cancelled`: no further child is needed. (A call that may
        // become a task has one of its own, which outlives the request.)
        builder = builder.call_id(call_id).cancellation(cancel);
        if let Some(events) = events {
            builder = builder.events(events);
        }
        if let Some(parts) = cx.extensions.get::<http::request::Parts>() {
            builder = builder.headers(forwarded(parts, &self.shared.options.forward_headers));
            // The caller an authenticating middleware found (OAuth) replaces the base's.
            if let Some(principal) = parts.extensions.get::<Principal>() {
                builder = builder.principal(principal.clone());
            }
            if let Some(cut) = parts.extensions.get::<crate::stream::StreamCut>() {
                builder = builder.extension(crate::CallStream::new(cut.clone()));
            }
        }
        builder.build()
    }

    /// The round a 2026-07-28 request asks its client through (none in a session), with the
    /// answers its earlier rounds brought: their sealed state opened, bound to the request
    /// (`method`, `name`, `arguments`) and its caller. A request whose client can be asked
    /// nothing, and that brings no state, is spared the binding's digest.
    #[allow(clippy::type_complexity)]
    pub(super) fn round_of(
        &self,
        cx: &RequestContext<RoleServer>,
        era: Era,
        (method, name, arguments): (&str, &str, &Value),
        request_state: Option<&str>,
        responses: Option<rmcp::model::InputResponses>,
    ) -> Result<Option<(Arc<Round>, Option<Vec<u8>>)>, McpError> {
        if era == Era::Session {
            return Ok(None);
        }
        let mut round = Round::new(client_capabilities(&cx.meta).cloned(), BTreeMap::new());
        let binding = (request_state.is_some() || round.may_ask()).then(|| {
            let caller = self.caller(cx).map(identity);
            let caller = caller
                .as_ref()
                .map(|(issuer, subject)| (issuer.as_deref().unwrap_or_default(), subject.as_str()));
            ask::binding_of(method, name, arguments, caller)
        });
        if let Some(binding) = &binding {
            let carried = self.shared.states.open(request_state, responses, binding)?;
            round.answer(carried);
        }
        Ok(Some((Arc::new(round), binding)))
    }

    /// The caller of a request: the one an authenticating middleware put in the HTTP
    /// request's extensions, else the base context's.
    fn caller<'a>(&'a self, cx: &'a RequestContext<RoleServer>) -> Option<&'a Principal> {
        cx.extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Principal>())
            .or_else(|| self.shared.base.principal())
    }

    /// `Err` when the session was begun by another authenticated caller than this request's.
    fn check_owner(&self, cx: &RequestContext<RoleServer>) -> Result<(), McpError> {
        let Some(Some(owner)) = self.session.owner.get() else {
            return Ok(());
        };
        let caller = self.caller(cx).map(identity);
        if caller.as_ref() == Some(owner) {
            return Ok(());
        }
        Err(McpError::invalid_request(
            "this MCP session was begun by another caller; begin a session of your own",
            None,
        ))
    }

    /// The client of the session the SDK's loop began, and whether it began with
    /// `initialize`; `None` before it began.
    pub(super) fn session_peer(&self) -> Option<(Peer<RoleServer>, bool)> {
        let peer = self.session.peer.get()?.clone();
        Some((peer, self.session.initialized.load(Ordering::Relaxed)))
    }

    /// `serverInfo`, as the results of 2026-07-28 requests carry it.
    pub(super) fn server_info(&self) -> &Arc<ServerInfo> {
        &self.shared.server_info
    }

    /// Keeps the client of a session begun without `initialize` (its first request of
    /// protocol 2026-07-28, which the SDK's loop hands to this handler), so that the
    /// transport may answer its later requests itself.
    fn keep_inline_peer(&self, cx: &RequestContext<RoleServer>) {
        if self.session.peer.get().is_none() && !self.session.initialized.load(Ordering::Relaxed) {
            let _ = self.session.peer.set(cx.peer.clone());
        }
    }

    /// The page of `tools/list` that `cursor` asks for (the first without one), or an error
    /// for a cursor this server did not give. The base context's caller, if it has one, sees
    /// only the tools it may call.
    pub(super) fn list_page(
        &self,
        cursor: Option<&str>,
        era: Era,
        views: bool,
    ) -> Result<Page, McpError> {
        self.list_page_for(cursor, self.shared.base.principal(), false, era, views)
    }

    /// Whether the client of a request renders views (declared `io.modelcontextprotocol/ui`):
    /// in 2026-07-28 in the request's capabilities, in a session in its `initialize`.
    pub(super) fn views_for(&self, cx: &RequestContext<RoleServer>, era: Era) -> bool {
        match era {
            Era::Modern => views::declared(client_capabilities(&cx.meta)),
            Era::Session => cx
                .peer
                .peer_info()
                .is_some_and(|info| views::declared_by(&info.capabilities)),
        }
    }

    /// Whether the server shows the card for every tool without a view of its own.
    pub(super) fn cards(&self) -> bool {
        self.shared.options.cards
    }

    /// [`list_page`](Self::list_page) for `caller`: only the tools it may call, unless `all`.
    fn list_page_for(
        &self,
        cursor: Option<&str>,
        caller: Option<&Principal>,
        all: bool,
        era: Era,
        views: bool,
    ) -> Result<Page, McpError> {
        let live = self.live();
        let shown = if views { &live.listed } else { &live.for_model };
        let (listed, scope) = match caller {
            Some(caller) if live.scoped && !all => (
                shown
                    .iter()
                    .filter(|t| t.permits(Some(caller)))
                    .cloned()
                    .collect(),
                CacheScope::Private,
            ),
            _ => (shown.clone(), CacheScope::Public),
        };
        let start = match cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&at| at <= listed.len())
                .ok_or_else(|| {
                    McpError::invalid_params(
                        format!("cursor `{cursor}` is not one this server gave"),
                        None,
                    )
                })?,
        };
        let end = start
            .saturating_add(self.shared.options.page_size.max(1))
            .min(listed.len());
        let page = Page::new(listed, start..end).with_views(views.then_some(self.cards()));
        Ok(match era {
            Era::Session => page,
            Era::Modern => page.with_hints(Hints {
                ttl_ms: u64::try_from(self.shared.options.list_ttl.as_millis()).unwrap_or(u64::MAX),
                scope,
                server_info: self.shared.server_info.clone(),
            }),
        })
    }

    fn min_level(&self) -> LogLevel {
        level::from_index(self.session.min_level.load(Ordering::Relaxed))
    }
}

impl Live {
    fn new(executor: Executor, deferred: DeferredTools) -> Self {
        let listed = executor
            .registry()
            .tools()
            .iter()
            .filter(|t| deferred == DeferredTools::Listed || t.is_core())
            .filter(|t| {
                let listable = t.input_schema().is_object();
                if !listable {
                    tracing::error!(
                        tool = t.name(),
                        "cannot list the tool over MCP: its input schema is not a JSON object"
                    );
                }
                listable
            })
            .cloned()
            .collect::<Arc<[Tool]>>();
        let for_model = if listed.iter().all(Tool::to_model) {
            listed.clone()
        } else {
            listed.iter().filter(|t| t.to_model()).cloned().collect()
        };
        let scoped = listed.iter().any(|t| !t.scopes().is_empty());
        let mut tool_scopes: Vec<String> = Vec::new();
        for scope in executor.registry().tools().iter().flat_map(|t| t.scopes()) {
            if !tool_scopes.iter().any(|s| s == scope) {
                tool_scopes.push(scope.to_string());
            }
        }
        let headed = executor.registry().tools().iter().any(declares_headers);
        Self {
            executor,
            listed,
            for_model,
            scoped,
            tool_scopes: tool_scopes.into(),
            headed,
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_tools()
            .enable_prompts_list_changed()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_tool_list_changed()
            .build();
        // Only what the registry has: a server of tools alone offers tools alone.
        self.item_capabilities(&mut capabilities);
        #[cfg(feature = "tasks")]
        let capabilities = if self.shared.tasks.is_some() {
            let mut capabilities = capabilities;
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(tasks::EXTENSION.into(), Default::default());
            capabilities
        } else {
            capabilities
        };
        let mut info = ServerConfig::new(capabilities);
        info.server_info = self.shared.options.implementation();
        info.instructions = self.shared.options.instructions.clone();
        info
    }

    /// What the SDK's HTTP transport checks a call's `Mcp-Param-*` headers against (SEP-2243):
    /// the input schema of a tool that declares `x-mcp-header` on a parameter, whose header must
    /// then agree with the body (a missing, undecodable or different value is answered 400 with
    /// -32020). `None` for every other tool, which has no headers to check.
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        let live = self.live();
        if !live.headed {
            return None;
        }
        let tool = live.executor.registry().get(name)?;
        if !declares_headers(tool) {
            return None;
        }
        let schema = tool.input_schema().as_object()?.clone();
        Some(rmcp::model::Tool::new_with_raw(
            tool.name().to_owned(),
            None,
            Arc::new(schema),
        ))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.check_owner(&cx)?;
        self.keep_inline_peer(&cx);
        let all = lists_all(&cx);
        let cursor = request.and_then(|r| r.cursor);
        let era = Era::of_checked(cx.protocol_version().as_ref());
        let views = self.views_for(&cx, era).then_some(self.cards());
        let mut page = self.list_page_for(
            cursor.as_deref(),
            self.caller(&cx),
            all,
            era,
            views.is_some(),
        )?;
        let next_cursor = page.next_cursor();
        let hints = page.take_hints();
        let modern = hints.is_some();
        // About 11k instructions a tool. A small page is built here, in about a tenth of a
        // millisecond; a large one (a millisecond for 200 tools on two cores) on the blocking
        // pool, split over the cores, so no call waits behind it on a worker. A blocking thread
        // started for a small server's one listing would stay for its memory and nothing else.
        // (The stdio transport writes its pages itself, without building these.)
        const INLINE: usize = 32;
        let tools: Vec<Option<rmcp::model::Tool>> = if page.tools().len() <= INLINE {
            page.tools()
                .iter()
                .map(|t| listed_tool(t, modern, views))
                .collect()
        } else {
            tokio::task::spawn_blocking(move || {
                let listed = |t: &Tool| listed_tool(t, modern, views);
                tool_core::registry::parallel::map_in_parallel(page.tools(), INLINE, listed)
            })
            .await
            .map_err(|e| {
                McpError::internal_error(format!("building the tool list failed: {e}"), None)
            })?
        };
        let mut result = ListToolsResult::with_all_items(tools.into_iter().flatten().collect());
        result.next_cursor = next_cursor;
        if let Some(hints) = hints {
            hints.apply(&mut result);
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let era = Era::of_checked(cx.protocol_version().as_ref());
        let modern = era == Era::Modern;
        let info = &self.shared.server_info;
        Ok(match self.call(request, cx, era).await? {
            CallAnswer::Complete(outcome) => {
                let mut result = call_result(outcome);
                if modern {
                    result.meta = Some(info.added_to(result.meta.take()));
                }
                result.into()
            }
            CallAnswer::InputRequired(result) => info.input_required(result).into(),
            #[cfg(feature = "tasks")]
            CallAnswer::Task(mut result) => {
                result.meta = Some(info.added_to(result.meta.take()));
                CallToolResponse::Task(result)
            }
        })
    }

    #[cfg(feature = "tasks")]
    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, McpError> {
        self.get_task_of(request, cx).await
    }

    #[cfg(feature = "tasks")]
    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.update_task_of(request, cx).await
    }

    #[cfg(feature = "tasks")]
    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.cancel_task_of(request, cx).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, McpError> {
        self.list_resources_of(request, cx).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, McpError> {
        self.list_templates_of(request, cx).await
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, McpError> {
        self.read_resource_of(request, cx).await
    }

    #[allow(deprecated)] // the session era's subscription, which its clients still use
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscribe_of(request, cx).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.unsubscribe_of(request, cx).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, McpError> {
        self.list_prompts_of(request, cx).await
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, McpError> {
        self.get_prompt_of(request, cx).await
    }

    async fn complete(
        &self,
        request: rmcp::model::CompleteRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CompleteResult, McpError> {
        self.complete_of(request, cx).await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let level = from_mcp_level(request.level);
        self.session.min_level.store(level as u8, Ordering::Relaxed);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // The SDK narrows this to what `get_info` advertises, then acknowledges the listen
        // before `listen` registers it: notifications wait for it (`Listeners::settled`).
        self.shared.listeners.expect();
        Some(requested.clone())
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        // Request ids repeat across connections; this key does not.
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let key = NEXT.fetch_add(1, Ordering::Relaxed);
        self.shared.listeners.add(key, subscription.sink().clone());
        subscription.cancelled().await;
        self.shared.listeners.remove(key);
        Ok(())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        // What the SDK's own `initialize` does, and the client kept for the transport: from
        // here on the SDK answers as it does for every protocol before 2026-07-28 (requests
        // are served before `notifications/initialized` too), so the transport may answer
        // calls and listings itself. Known before the client has the answer, so before its
        // first listing.
        cx.peer.set_peer_info(request.clone());
        self.session.initialized.store(true, Ordering::Relaxed);
        let owner = cx
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Principal>())
            .map(identity);
        let _ = self.session.owner.set(owner);
        // Whatever version the client named, the SDK answers with one before 2026-07-28.
        let _ = self.session.peer.set(cx.peer.clone());
        // Over Streamable HTTP, the endpoint keeps this connection under the session's id,
        // which the SDK's answer carries: its later calls may be answered by the endpoint
        // itself (`crate::direct`).
        #[cfg(feature = "http")]
        if let Some(begun) = cx
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Begun<McpServer>>())
        {
            begun.set(self.clone());
        }
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, cx: NotificationContext<RoleServer>) {
        let mut peers = lock(&self.shared.peers);
        peers.retain(|p| !p.is_transport_closed());
        peers.push(cx.peer);
    }
}

/// Which lists other than the tools' a change to the registry changed.
#[derive(Clone, Copy)]
struct Changed {
    resources: bool,
    prompts: bool,
}

/// Whether two lists hold the same items, in order.
fn same_items<T>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
}

/// Put in an HTTP request's extensions beside its [`Principal`]: `tools/list` shows this
/// caller every tool, not only those it may call.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "oauth"), allow(dead_code))]
pub(crate) struct ListAllTools;

/// Whether the HTTP request behind `cx` carries [`ListAllTools`].
fn lists_all(cx: &RequestContext<RoleServer>) -> bool {
    cx.extensions
        .get::<http::request::Parts>()
        .is_some_and(|parts| parts.extensions.get::<ListAllTools>().is_some())
}

/// Whether `tool` declares a parameter that a 2026-07-28 request also sends as a header
/// (`x-mcp-header` on a property of its input schema, SEP-2243).
fn declares_headers(tool: &Tool) -> bool {
    tool.input_schema()
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|props| props.values().any(|p| p.get("x-mcp-header").is_some()))
}

/// Who a principal is across requests: its issuer and subject.
pub(crate) type Identity = (Option<String>, String);

/// The [`Identity`] of `principal`.
pub(crate) fn identity(principal: &Principal) -> Identity {
    (
        principal.issuer().map(str::to_owned),
        principal.subject().to_owned(),
    )
}

fn request_id(id: &rmcp::model::RequestId) -> String {
    match id {
        // Not `format!`: its machinery cost more than the rest of naming the call.
        rmcp::model::NumberOrString::Number(n) => {
            let mut digits = itoa::Buffer::new();
            let digits = digits.format(*n);
            let mut id = String::with_capacity(4 + digits.len());
            id.push_str("mcp_");
            id.push_str(digits);
            id
        }
        rmcp::model::NumberOrString::String(s) => s.to_string(),
    }
}

/// The allowlisted headers of an HTTP request, for the tools to forward.
fn forwarded(parts: &http::request::Parts, allow: &[String]) -> RequestHeaders {
    RequestHeaders::from_pairs(parts.headers.iter().filter_map(|(name, value)| {
        let name = name.as_str();
        // `allow` holds no name `ServerOptions::never_forwarded` refuses (`with_options`).
        let allowed = allow.iter().any(|a| a.eq_ignore_ascii_case(name));
        let value = value.to_str().ok()?;
        allowed.then(|| (name, value.to_owned()))
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use tool_core::registry::DynamicTool;

    #[test]
    fn a_call_is_named_by_its_request_id() {
        use rmcp::model::NumberOrString;
        for (id, expected) in [
            (NumberOrString::Number(42), "mcp_42"),
            (NumberOrString::Number(-7), "mcp_-7"),
            (NumberOrString::Number(i64::MAX), "mcp_9223372036854775807"),
            (NumberOrString::String("req-1".into()), "req-1"),
        ] {
            assert_eq!(request_id(&id), expected);
        }
    }

    #[test]
    fn the_listing_leaves_out_what_mcp_cannot_carry_before_it_is_paged() {
        let mut registry = tool_core::Registry::empty();
        registry
            .register_all([
                DynamicTool::new("a_tool", "d", json!({"type": "object"})),
                DynamicTool::new("b_tool", "d", Value::Null),
                DynamicTool::new("c_tool", "d", json!({"type": "object"})),
            ])
            .unwrap();
        let server = McpServer::new(Executor::new(registry));
        let live = server.live();
        let listed: Vec<&str> = live.listed.iter().map(|t| t.name()).collect();
        // The cursor counts listed tools: one left out cannot make a page short.
        assert_eq!(listed, ["a_tool", "c_tool"]);
    }
}
