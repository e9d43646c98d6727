//! Mounting another MCP server: its tools become dynamic tools of this registry, named
//! `NAME__tool`, called through the official SDK's client; its resources and prompts become
//! this registry's too (`items`).

mod items;

use items::{call_error, decode};

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, CancelTaskParams, CancelledNotificationParam,
    ClientCapabilities, ClientRequest, ContentBlock, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, GetTaskParams, Implementation,
    InputRequest, InputRequests, InputResponses, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, RequestId, ResourceContents,
    ServerResult, Task, TaskPayload, UpdateTaskParams,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt as _, NotificationContext, PeerRequestOptions,
    RequestContext, RunningService,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData as McpError, Peer, RoleClient};
use serde_json::Value;

use super::ask::McpPeer;
use super::level::from_mcp_level;
pub use super::mount_spec::{MountError, MountSpec, MountTarget};
use super::sync::lock;
use super::views;
use tool_core::context::FromContext as _;
use tool_core::definition::{ToolView, Visibility};
use tool_core::exec::CallResult;
use tool_core::{
    ToolContext, ToolError, ToolOutput, output::Media, registry::DynamicTool, registry::Edit,
    registry::defs,
};

/// A connected server and its tools, ready to register. Dropping every handle (the tools hold
/// one each) closes the connection and, for a command, ends the process.
pub struct Mounted {
    name: String,
    tools: Vec<DynamicTool>,
    resources: Vec<tool_core::resource::Resource>,
    prompts: Vec<tool_core::prompt::Prompt>,
}

impl fmt::Debug for Mounted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mounted")
            .field("name", &self.name)
            .field("tools", &self.tools.len())
            .field("resources", &self.resources.len())
            .field("prompts", &self.prompts.len())
            .finish()
    }
}

impl Mounted {
    /// The mount's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many tools the server offers.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the server offers no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The server's resources and templates (URIs as the server gave them, names
    /// `NAME__resource`), each read through the mount.
    pub fn resources(&self) -> &[tool_core::resource::Resource] {
        &self.resources
    }

    /// The server's prompts, named `NAME__prompt`, each got through the mount.
    pub fn prompts(&self) -> &[tool_core::prompt::Prompt] {
        &self.prompts
    }

    /// Vouches for what the server says of its tools (`readOnlyHint`, `destructiveHint`,
    /// `idempotentHint`, `openWorldHint`): the application's approval policy, audit,
    /// retries and filters then go by them. Without it they are a claim, shown to clients as
    /// the server gave them, and every tool of the mount counts as one that writes, may
    /// destroy and reaches the world ([`Annotations::UNTRUSTED`](tool_core::definition::Annotations::UNTRUSTED)):
    /// a server that says its tool only reads is not spared the question `--approval write`
    /// asks. `toolctl --trust-mount NAME` calls it.
    #[must_use]
    pub fn vouch(mut self) -> Self {
        self.tools = self.tools.into_iter().map(|t| t.vouched(true)).collect();
        self
    }

    /// The server's tools, to register one by one (its [`resources`](Self::resources) and
    /// [`prompts`](Self::prompts) are added apart, from [`into_items`](Self::into_items)).
    pub fn into_tools(self) -> Vec<DynamicTool> {
        self.tools
    }

    /// The server's tools, resources and prompts, to add one by one (a name that clashes set
    /// aside, as `toolctl` does), where [`register`](Self::register) adds all or fails.
    pub fn into_items(
        self,
    ) -> (
        Vec<DynamicTool>,
        Vec<tool_core::resource::Resource>,
        Vec<tool_core::prompt::Prompt>,
    ) {
        (self.tools, self.resources, self.prompts)
    }

    /// Adds the server's tools, resources and prompts to `registry`; no tool is added if any
    /// name is taken, and the first resource URI or prompt name taken ends the adding there.
    /// `registry` is one being built, or an executor's being edited
    /// ([`McpServer::update`](crate::McpServer::update)).
    pub fn register<'r>(self, registry: impl Into<Edit<'r>>) -> Result<(), MountError> {
        let mut registry = registry.into();
        let clash = |name: &str, source| MountError::Clash {
            name: name.to_owned(),
            source: Box::new(source),
        };
        registry
            .register_all(self.tools)
            .map_err(|source| clash(&self.name, source))?;
        for resource in self.resources {
            registry
                .add_resource(resource)
                .map_err(|source| clash(&self.name, source))?;
        }
        for prompt in self.prompts {
            registry
                .add_prompt(prompt)
                .map_err(|source| clash(&self.name, source))?;
        }
        Ok(())
    }
}

/// Connects to the server `spec` names and lists its tools (every page).
///
/// Each mounted tool keeps the server's description, input and output schemas and annotations;
/// its domain is the mount's name. A call goes to the server with the caller's cancellation
/// (sent on as `notifications/cancelled`), and the server's progress and log notifications
/// come back through the caller's context.
///
/// Every tool requires of its callers the spec's [`scopes`](MountSpec::scopes); what the
/// server itself lists decides none.
pub async fn mount(spec: &MountSpec) -> Result<Mounted, MountError> {
    let name = spec.name.clone();
    // Checked before connecting: the field can be set without the builder's check.
    if !spec.scopes.is_empty() {
        check_scopes(&name, &spec.scopes)?;
    }
    let handler = Relay::default();
    let start = |source: BoxError| MountError::Start {
        name: name.clone(),
        target: spec.target.to_string(),
        source,
    };
    let client = match &spec.target {
        MountTarget::Command(command) => {
            let mut cmd = tokio::process::Command::new("sh");
            cmd.arg("-c").arg(command);
            let (transport, _) = TokioChildProcess::builder(cmd)
                .stderr(std::process::Stdio::inherit())
                .spawn()
                .map_err(|e| start(e.into()))?;
            let handshake = async {
                handler
                    .clone()
                    .serve_with_lifecycle(transport, lifecycle())
                    .await
                    .map_err(boxed)
            };
            within(&name, "the MCP handshake failed", handshake).await?
        }
        MountTarget::Url(url) => {
            let tls = tool_http::tls_config().map_err(|e| start(e.into()))?;
            let http = reqwest::Client::builder()
                .tls_backend_preconfigured(tls)
                .build()
                .map_err(|e| start(e.into()))?;
            let config = rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url.as_str());
            let transport = StreamableHttpClientTransport::with_client(http, config);
            let handshake = async {
                handler
                    .clone()
                    .serve_with_lifecycle(transport, lifecycle())
                    .await
                    .map_err(boxed)
            };
            within(&name, "the MCP handshake failed", handshake).await?
        }
    };
    let listed = within(&name, "tools/list failed", async {
        client.list_all_tools().await.map_err(boxed)
    })
    .await?;
    // A server that serves tasks may take long over any tool: each is marked `task`, so that
    // this server may answer its callers with tasks of its own.
    let serves_tasks = client.peer_info().is_some_and(|info| {
        info.capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(rmcp::model::TASKS_EXTENSION_ID))
    });
    let client = Arc::new(Client {
        service: client,
        relay: handler,
    });
    let (resources, prompts) = within(&name, "listing resources and prompts failed", async {
        let holder: Arc<dyn std::any::Any + Send + Sync> = client.clone();
        items::items(client.service.peer().clone(), holder, &name, &spec.scopes)
            .await
            .map_err(boxed)
    })
    .await?;
    let shown = within(&name, "reading the tools' views failed", async {
        Ok(views_of(client.service.peer(), &listed).await)
    })
    .await?;
    let origin = format!("mounted MCP server `{name}` ({})", spec.target);
    let domain_description = format!("Tools of the MCP server mounted as `{name}`");
    let tools = listed
        .into_iter()
        .filter_map(|remote| {
            let remote_name = remote.name.to_string();
            let mut def = serde_json::to_value(&remote).ok()?;
            def["name"] = Value::String(format!("{name}__{remote_name}"));
            // A remote tool that needs approval asks for it itself, and its question reaches
            // the caller's person through the relay: asking here too would ask twice for one
            // call. (This server's own approval policy still applies to the mounted tool.)
            if let Some(Value::Object(meta)) = def.get_mut("_meta") {
                meta.remove("tool-core/approval");
            }
            let client = client.clone();
            let mut tool = defs::from_mcp_tool(&def, &origin);
            if serves_tasks {
                tool = tool.task(true);
            }
            let (view, visibility) = shown.get(&remote_name).cloned().unwrap_or_default();
            if let Some(html) = view {
                tool = tool.view(ToolView::Html(html.into()));
            }
            tool = tool.visibility(visibility);
            let tool = tool
                .domain(name.clone(), domain_description.clone())
                .scopes(spec.scopes.iter().cloned())
                .handler(move |input, ctx| {
                    let client = client.clone();
                    let remote_name = remote_name.clone();
                    async move { client.call(remote_name, input, ctx).await }
                });
            Some(tool)
        })
        .collect();
    Ok(Mounted {
        name,
        tools,
        resources,
        prompts,
    })
}

/// Each remote tool's view and audience (`_meta.ui`), by name: the view's HTML read from the
/// server, to be served under the mounted tool's name. A view that cannot be read is left out,
/// with a warning: the tool is still mounted.
async fn views_of(
    peer: &Peer<RoleClient>,
    listed: &[rmcp::model::Tool],
) -> HashMap<String, (Option<String>, Visibility)> {
    let mut shown = HashMap::new();
    for tool in listed {
        let Some(ui) = tool.meta.as_ref().and_then(|m| m.0.get("ui")) else {
            continue;
        };
        let audiences: Vec<&str> = ui
            .get("visibility")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let visibility = match (audiences.contains(&"model"), audiences.contains(&"app")) {
            (true, false) => Visibility::Model,
            (false, true) => Visibility::App,
            _ => Visibility::Both,
        };
        let mut html = None;
        if let Some(uri) = ui.get("resourceUri").and_then(Value::as_str) {
            let read = peer
                .read_resource(rmcp::model::ReadResourceRequestParams::new(uri))
                .await;
            html = read.ok().and_then(|read| {
                read.contents.into_iter().find_map(|c| match c {
                    ResourceContents::TextResourceContents {
                        mime_type, text, ..
                    } if mime_type.as_deref() == Some(views::MIME_TYPE) => Some(text),
                    _ => None,
                })
            });
            if html.is_none() {
                tracing::warn!(tool = %tool.name, %uri, "the mounted tool's view could not be read as {}; left out", views::MIME_TYPE);
            }
        }
        shown.insert(tool.name.to_string(), (html, visibility));
    }
    shown
}

/// How a mount begins: `server/discover` and protocol 2026-07-28 with a server that speaks it,
/// else the `initialize` handshake.
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: None,
    }
}

/// Rounds of questions a mounted 2026-07-28 server may ask in one call before it is given up
/// on (the official Python client's limit too).
const MAX_ROUNDS: usize = 8;

/// How long the handshake and the listing may take.
const STEP_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

use super::mount_spec::{BoxError, check_scopes};

fn boxed(e: impl std::error::Error + Send + Sync + 'static) -> BoxError {
    Box::new(e)
}

/// One step of mounting, within [`STEP_LIMIT`]: a server that never answers must not hang the
/// binary that mounts it.
async fn within<T>(
    name: &str,
    what: &'static str,
    step: impl Future<Output = Result<T, BoxError>>,
) -> Result<T, MountError> {
    match tokio::time::timeout(STEP_LIMIT, step).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(source)) => Err(MountError::Protocol {
            name: name.to_owned(),
            what,
            source,
        }),
        Err(_) => Err(MountError::Timeout {
            name: name.to_owned(),
            what,
            limit: STEP_LIMIT,
        }),
    }
}

/// The client side of a mount: the running service and where notifications go.
struct Client {
    service: RunningService<RoleClient, Relay>,
    relay: Relay,
}

impl Client {
    async fn call(
        &self,
        name: String,
        input: Value,
        ctx: ToolContext,
    ) -> tool_core::exec::CallResult {
        let arguments = match input {
            Value::Object(map) => map,
            Value::Null => serde_json::Map::new(),
            other => {
                return Err(ToolError::invalid_input(format!(
                    "expected an object, got {}",
                    tool_core::exec::json_type(&other)
                )));
            }
        };
        let mut params = CallToolRequestParams::new(name).with_arguments(arguments);
        // A 2026-07-28 server asks by answering InputRequiredResult: its questions go to this
        // call's own client, and the call is made again with the answers.
        for _ in 0..MAX_ROUNDS {
            match self.call_once(params.clone(), &ctx).await? {
                ServerResult::CallToolResult(result) => return from_call_result(result),
                // The server made the call a task of its own: followed here to its end, so the
                // caller sees a plain result (or a task of this server's).
                ServerResult::CreateTaskResult(created) => {
                    return self.follow_task(created.task, &ctx).await;
                }
                ServerResult::InputRequiredResult(asked) => {
                    let answers = answer(asked.input_requests.unwrap_or_default(), &ctx).await?;
                    params.input_responses = Some(answers);
                    params.request_state = asked.request_state;
                }
                other => {
                    return Err(ToolError::failed(format!(
                        "the server answered tools/call with something else: {}",
                        serde_json::to_string(&other).unwrap_or_default()
                    )));
                }
            }
        }
        Err(ToolError::failed(format!(
            "the mounted server asked for input {MAX_ROUNDS} times without finishing the call"
        )))
    }

    /// One `tools/call` round: the server's answer, whatever it is.
    async fn call_once(
        &self,
        params: CallToolRequestParams,
        ctx: &ToolContext,
    ) -> Result<ServerResult, ToolError> {
        let request = ClientRequest::CallToolRequest(rmcp::model::Request::new(params));
        let peer = self.service.peer();
        let handle = peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(call_error)?;
        let (id, token) = (handle.id.clone(), handle.progress_token.clone());
        let _route = self.relay.route(token, ctx.clone());
        // However this call ends early (the caller cancels, the executor's time limit, an abort),
        // the server is told to stop.
        let mut cancel = CancelOnDrop {
            peer: peer.clone(),
            id: Some(id),
        };
        let mut response = Box::pin(handle.await_response());
        let response = tokio::select! {
            response = &mut response => response.map_err(call_error)?,
            () = ctx.cancellation().cancelled() => {
                // The server may have made the call a task already, which
                // `notifications/cancelled` does not stop: the answer still on its way says so,
                // and then the task is cancelled too.
                let peer = peer.clone();
                tokio::spawn(async move {
                    let answer = tokio::time::timeout(TASK_ANSWER_WAIT, response).await;
                    if let Ok(Ok(ServerResult::CreateTaskResult(created))) = answer {
                        let _ = peer.cancel_task(CancelTaskParams::new(created.task.task_id)).await;
                    }
                });
                return Err(ToolError::new(tool_core::error::ErrorKind::Cancelled, "the call was cancelled"));
            }
        };
        cancel.id = None;
        // The SDK hands each notification to a task of its own but the response straight back:
        // let notifications that arrived before the response reach the caller first.
        tokio::task::yield_now().await;
        Ok(response)
    }
}

impl Client {
    /// Follows a task of the mounted server to its end: polls `tasks/get` at the interval it
    /// asks for, passes its status messages on as progress, answers its questions through
    /// the caller's own client (`tasks/update`), and cancels it (`tasks/cancel`) if the call
    /// is stopped first.
    async fn follow_task(&self, task: Task, ctx: &ToolContext) -> CallResult {
        let peer = self.service.peer();
        let mut cancel = CancelTaskOnDrop {
            peer: peer.clone(),
            id: Some(task.task_id.clone()),
        };
        let mut interval = poll_interval(task.poll_interval_ms);
        let mut last_message = task.status_message;
        let mut updates = 0u64;
        let mut answered = std::collections::HashSet::new();
        loop {
            tokio::select! {
                () = tokio::time::sleep(interval) => {}
                () = ctx.cancellation().cancelled() => {
                    return Err(ToolError::new(tool_core::error::ErrorKind::Cancelled, "the call was cancelled"));
                }
            }
            let got = peer
                .get_task(GetTaskParams::new(task.task_id.clone()))
                .await
                .map_err(call_error)?
                .task;
            interval = poll_interval(got.task.poll_interval_ms);
            if got.task.status_message.is_some() && got.task.status_message != last_message {
                updates += 1;
                last_message = got.task.status_message.clone();
                ctx.progress(updates, None, last_message.clone().unwrap_or_default());
            }
            match got.payload {
                TaskPayload::Working => {}
                TaskPayload::InputRequired { input_requests } => {
                    // Keys are never reused within a task: one answered is not asked again.
                    let new: InputRequests = input_requests
                        .into_iter()
                        .filter(|(key, _)| !answered.contains(key))
                        .collect();
                    if !new.is_empty() {
                        answered.extend(new.keys().cloned());
                        let answers = answer(new, ctx).await?;
                        let update = UpdateTaskParams::new(task.task_id.clone(), answers);
                        peer.update_task(update).await.map_err(call_error)?;
                    }
                }
                TaskPayload::Completed { result } => {
                    cancel.id = None;
                    let result: CallToolResult = serde_json::from_value(Value::Object(result))
                        .map_err(|e| {
                            ToolError::failed(format!(
                                "the mounted server's task completed with a result that is not \
                                 a CallToolResult: {e}"
                            ))
                        })?;
                    return from_call_result(result);
                }
                TaskPayload::Failed { error } => {
                    cancel.id = None;
                    let message = error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message");
                    return Err(ToolError::failed(format!(
                        "the mounted server's task failed: {message}"
                    )));
                }
                TaskPayload::Cancelled => {
                    cancel.id = None;
                    return Err(ToolError::new(
                        tool_core::error::ErrorKind::Cancelled,
                        "the mounted server cancelled the task",
                    ));
                }
                _ => {}
            }
        }
    }
}

/// How long a call cancelled before its answer came waits for that answer, in case it is a task
/// that needs `tasks/cancel`.
const TASK_ANSWER_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// How long to wait before the next `tasks/get`: what the server asks, within reason.
fn poll_interval(asked_ms: Option<u64>) -> std::time::Duration {
    std::time::Duration::from_millis(asked_ms.unwrap_or(1_000).clamp(20, 30_000))
}

/// Sends `tasks/cancel` for a mounted server's task that is dropped before it ended.
struct CancelTaskOnDrop {
    peer: Peer<RoleClient>,
    id: Option<String>,
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let _ = peer.cancel_task(CancelTaskParams::new(id)).await;
        });
    }
}

/// The answers to a mounted server's questions, asked of the caller's own client (in whatever
/// era it speaks: a 2026-07-28 caller gets them in an `InputRequiredResult` of its own, and
/// this call is made again from the start with its answers).
async fn answer(asked: InputRequests, ctx: &ToolContext) -> Result<InputResponses, ToolError> {
    let client = McpPeer::from_context(ctx).map_err(|_| {
        ToolError::failed(
            "the mounted server asks for input, which only a caller over MCP can give",
        )
    })?;
    let mut answers = InputResponses::new();
    for (key, request) in asked {
        let answer = match request {
            InputRequest::Elicitation(request) => {
                serde_json::to_value(client.elicit(request.params).await?)
            }
            InputRequest::CreateMessage(request) => {
                serde_json::to_value(client.sample(request.params).await?)
            }
            _ => {
                return Err(ToolError::failed(
                    "the mounted server asks for something other than an elicitation or a \
                     completion (the client's roots), which this server does not pass on",
                ));
            }
        };
        answers.insert(key, answer.map_err(ToolError::internal)?);
    }
    Ok(answers)
}

/// Sends `notifications/cancelled` for a request that is dropped before its response came.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let reason = Some("the caller stopped the call".to_owned());
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(Some(id), reason))
                .await;
        });
    }
}

/// Routes a mounted server's progress and log notifications to the context of the call that
/// caused them.
#[derive(Clone, Default)]
struct Relay {
    calls: Arc<Mutex<HashMap<ProgressToken, ToolContext>>>,
}

/// Removes a call's route when the call ends, however it ends.
struct Route {
    relay: Relay,
    token: ProgressToken,
}

impl Relay {
    fn route(&self, token: ProgressToken, ctx: ToolContext) -> Route {
        self.lock().insert(token.clone(), ctx);
        Route {
            relay: self.clone(),
            token,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, ToolContext>> {
        lock(&self.calls)
    }
}

impl Drop for Route {
    fn drop(&mut self) {
        self.relay.lock().remove(&self.token);
    }
}

impl Relay {
    /// The client of the one call in flight, which a session-era server's request must be
    /// about (its requests carry no call id); an error for none or several.
    fn asker(&self) -> Result<McpPeer, McpError> {
        let calls = self.lock();
        let ctx = match calls.len() {
            1 => calls.values().next().cloned(),
            _ => None,
        };
        let ctx = ctx.ok_or_else(|| {
            McpError::invalid_request(
                "no single call of this client is in flight for the request to be about",
                None,
            )
        })?;
        McpPeer::from_context(&ctx).map_err(|e| McpError::invalid_request(e.to_string(), None))
    }
}

fn refused(error: ToolError) -> McpError {
    McpError::invalid_request(error.to_string(), None)
}

impl ClientHandler for Relay {
    fn get_info(&self) -> rmcp::model::ClientInfo {
        // What it can answer, it answers by asking its own caller's client.
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(Default::default());
        capabilities.sampling = Some(Default::default());
        // It follows a server's tasks to their end (`Client::follow_task`).
        let extensions = capabilities.extensions.get_or_insert_with(Default::default);
        extensions.insert(rmcp::model::TASKS_EXTENSION_ID.into(), Default::default());
        // It takes the server's views, to serve them with its tools (`views_of`).
        let mut ui = serde_json::Map::new();
        ui.insert("mimeTypes".into(), serde_json::json!([views::MIME_TYPE]));
        extensions.insert(views::EXTENSION.into(), ui);
        let info = Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
        rmcp::model::ClientInfo::new(capabilities, info)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        self.asker()?.elicit(request).await.map_err(refused)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        self.asker()?.sample(params).await.map_err(refused)
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        let ctx = self.lock().get(&params.progress_token).cloned();
        if let Some(ctx) = ctx {
            let done = params.progress.max(0.0) as u64;
            let total = params.total.map(|t| t.max(0.0) as u64);
            ctx.progress(done, total, params.message.unwrap_or_default());
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        // Log notifications carry no request id: with one call in flight they are its own;
        // otherwise they go to tracing only.
        let ctx = {
            let calls = self.lock();
            (calls.len() == 1)
                .then(|| calls.values().next().cloned())
                .flatten()
        };
        let message = match params.data {
            Value::String(s) => s,
            other => other.to_string(),
        };
        match ctx {
            Some(ctx) => ctx.log(from_mcp_level(params.level), message),
            None => {
                tracing::info!(target: "crate::mount", logger = ?params.logger, "{message}")
            }
        }
    }
}

/// A mounted server's `CallToolResult` as this framework's outcome: `structuredContent` is the
/// data, text blocks the echo, images, audio and resources the media; `isError` a failure
/// whose message is the text. Structured content without text (a tool that leaves out its
/// mirror) has the data's own echo, so a model reading it here is not given nothing.
fn from_call_result(result: CallToolResult) -> CallResult {
    let mut texts = Vec::new();
    let mut media = Vec::new();
    for block in result.content {
        match block {
            ContentBlock::Text(text) => texts.push(text.text),
            ContentBlock::Image(image) => {
                media.push(decode(&image.data).map(|d| Media::image(image.mime_type, d)))
            }
            ContentBlock::Audio(audio) => {
                media.push(decode(&audio.data).map(|d| Media::audio(audio.mime_type, d)))
            }
            ContentBlock::Resource(resource) => media.push(Ok(match resource.resource {
                ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text,
                    ..
                } => Media::resource(
                    uri,
                    mime_type.unwrap_or_else(|| "text/plain".into()),
                    text.into_bytes(),
                ),
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => {
                    let mime_type = mime_type.unwrap_or_else(|| "application/octet-stream".into());
                    Media::resource(uri, mime_type, decode(&blob)?)
                }
                _ => continue,
            })),
            ContentBlock::ResourceLink(link) => media.push(Ok(Media::link(
                link.uri,
                link.name,
                link.mime_type.unwrap_or_default(),
            ))),
            // Kinds of content newer than this code: nothing this framework can carry.
            _ => {}
        }
    }
    let text = texts.join("\n");
    if result.is_error == Some(true) {
        let message = if text.is_empty() {
            "the tool failed and gave no reason".to_owned()
        } else {
            text
        };
        return Err(ToolError::failed(message));
    }
    let mut output = match result.structured_content {
        Some(data) if text.is_empty() => ToolOutput::new(data),
        Some(data) => ToolOutput::new(data).with_echo(text),
        None => ToolOutput::text(text),
    };
    for item in media {
        output = output.with_media(item?);
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{CallOutcome, call_result};

    fn tool() -> tool_core::registry::Tool {
        let mut registry = tool_core::Registry::empty();
        let tool = DynamicTool::new(
            "get_thing",
            "Gets a thing.",
            serde_json::json!({"type": "object"}),
        );
        registry.register(tool).unwrap();
        registry.get("get_thing").unwrap().clone()
    }

    #[test]
    fn specs_read_scopes_between_the_name_and_the_target() {
        let spec: MountSpec = "gh[repo, issues:write read:org]=https://example.com/mcp?a=b"
            .parse()
            .unwrap();
        assert_eq!(spec.name, "gh");
        assert_eq!(spec.scopes, ["repo", "issues:write", "read:org"]);
        assert_eq!(
            spec.target,
            MountTarget::Url("https://example.com/mcp?a=b".into())
        );
        // `[` in the command is the command's.
        let spec: MountSpec = "files=ls [ab]".parse().unwrap();
        assert!(spec.scopes.is_empty());
        assert_eq!(spec.target, MountTarget::Command("ls [ab]".into()));

        for (bad, says) in [
            ("gh[repo=cmd", "end with `]`"),
            ("gh[a=b]=cmd", "end with `]`"),
            ("Gh[repo]=cmd", "the name must be"),
            ("gh[]=cmd", "the list of scopes is empty"),
            ("gh[ , ]=cmd", "the list of scopes is empty"),
            ("gh[repo \"x\" repo]=cmd", "the scope `\"x\"` holds `\"`"),
            (
                "gh[repo \"x\" repo]=cmd",
                "e.g. \"issues:write\"; the scope `repo` is listed twice",
            ),
        ] {
            let err = bad.parse::<MountSpec>().unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let err = "gh[repo repo]=cmd".parse::<MountSpec>().unwrap_err();
        assert!(
            matches!(err, MountError::Scopes { ref name, ref problems } if name == "gh" && problems.len() == 1)
        );
    }

    #[tokio::test]
    async fn a_spec_whose_scopes_break_the_rule_is_refused_before_connecting() {
        let mut spec: MountSpec = "gh=http://127.0.0.1:9/never".parse().unwrap();
        spec.scopes = vec!["issues write".into()];
        let err = mount(&spec).await.unwrap_err();
        assert!(matches!(err, MountError::Scopes { .. }), "{err}");
    }

    #[test]
    fn media_round_trips_through_content_blocks() {
        let out = ToolOutput::from_media(Media::image("image/png", vec![1, 2, 3]))
            .with_media(Media::audio("audio/wav", vec![4]))
            .with_media(Media::resource(
                "file:///a.txt",
                "text/plain",
                b"hi".to_vec(),
            ))
            .with_media(Media::resource(
                "file:///b.bin",
                "application/octet-stream",
                vec![0, 255],
            ))
            .with_media(Media::link("file:///c.rs", "c.rs", "text/x-rust"));
        let r = call_result(CallOutcome::new(&tool(), Ok(out.clone())));
        assert_eq!(r.content.len(), 5, "an empty echo is not sent");
        assert_eq!(r.content[0].as_image().unwrap().data, "AQID");
        let back = from_call_result(r).unwrap();
        assert_eq!(back.media(), out.media());
    }

    #[test]
    fn structured_content_without_text_keeps_the_datas_echo() {
        let mut r = CallToolResult::success(Vec::new());
        r.structured_content = Some(serde_json::json!({"requests": 7}));
        let out = from_call_result(r).unwrap();
        assert_eq!(out.data(), Some(&serde_json::json!({"requests": 7})));
        assert_eq!(out.echo(), r#"{"requests":7}"#);
        let mut r = CallToolResult::success(vec![ContentBlock::text("seven requests")]);
        r.structured_content = Some(serde_json::json!({"requests": 7}));
        assert_eq!(from_call_result(r).unwrap().echo(), "seven requests");
    }

    #[test]
    fn remote_errors_and_bad_media_are_tool_errors() {
        let err = CallToolResult::error(vec![ContentBlock::text("no such city")]);
        assert_eq!(from_call_result(err).unwrap_err().message(), "no such city");
        let bad = CallToolResult::success(vec![ContentBlock::image("not base64!", "image/png")]);
        assert!(
            from_call_result(bad)
                .unwrap_err()
                .message()
                .contains("not base64")
        );
    }

    #[test]
    fn specs_are_checked() {
        for bad in [
            "", "name", "=cmd", "x=", "x=   ", "Up=cmd", "1x=cmd", "a-b=cmd",
        ] {
            let err = bad.parse::<MountSpec>().unwrap_err();
            assert!(err.to_string().starts_with(&format!("`{bad}`")), "{err}");
        }
        let spec: MountSpec = "docs=python -m server --flag=1".parse().unwrap();
        assert_eq!(
            spec.target,
            MountTarget::Command("python -m server --flag=1".into())
        );
    }
}
