//! `resources/*`, `prompts/*` and `completion/complete`: the registry's resources and prompts,
//! read and got through the executor's gate like a call, in either era.
//!
//! Lists are short (a server's resources and prompts are a handful, not hundreds of tools), so
//! each is one page. A 2026-07-28 answer carries cache hints: lists for the server's list time,
//! private when what the caller sees depends on its scopes; a read is fresh only once (`ttlMs`
//! 0), as its resource may change at any time.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{
    CacheScope, CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Reference, ResourceContents, ServerCapabilities, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};
use tool_core::prompt::{PromptArgs, PromptContent, PromptReply};
use tool_core::resource::{Body, ResourceContent};
use tool_core::{ToolError, error::ErrorKind, exec::CompletionRef};

use super::listeners::Watcher;
use super::{McpServer, request_id};
use crate::ask::{Round, RoundEnd};
use crate::request::Era;
use crate::sync::lock;
use crate::views;

impl McpServer {
    /// Advertises resources, prompts and completion when the registry has any (resources too
    /// when a tool has a view, which is one).
    pub(super) fn item_capabilities(&self, capabilities: &mut ServerCapabilities) {
        let live = self.live();
        let registry = live.executor.registry();
        let cards = self.cards();
        let views = live
            .listed
            .iter()
            .any(|t| crate::views::html(t, cards).is_some());
        if registry.resources().is_empty() && !views {
            capabilities.resources = None;
        }
        if registry.prompts().is_empty() {
            capabilities.prompts = None;
        }
        let completes =
            !registry.prompts().is_empty() || registry.resources().iter().any(|r| r.is_template());
        if !completes {
            capabilities.completions = None;
        }
    }

    fn one_page(request: Option<PaginatedRequestParams>) -> Result<(), McpError> {
        match request.and_then(|r| r.cursor) {
            None => Ok(()),
            Some(cursor) => Err(McpError::invalid_params(
                format!("cursor `{cursor}` is not one this server gave: its lists are one page"),
                None,
            )),
        }
    }

    /// The cache hints of a list of items that may need scopes.
    fn list_hints(&self, era: Era, scoped: bool) -> Option<(u64, CacheScope)> {
        (era == Era::Modern).then(|| {
            let ttl = u64::try_from(self.shared.options.list_ttl.as_millis()).unwrap_or(u64::MAX);
            (
                ttl,
                if scoped {
                    CacheScope::Private
                } else {
                    CacheScope::Public
                },
            )
        })
    }

    pub(super) async fn list_resources_of(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.check_owner(&cx)?;
        Self::one_page(request)?;
        let live = self.live();
        let caller = self.caller(&cx);
        let mut scoped = false;
        let resources = live
            .executor
            .registry()
            .resources()
            .iter()
            .filter(|r| !r.is_template())
            .inspect(|r| scoped |= !r.scope_list().is_empty())
            .filter(|r| r.permits(caller))
            .map(|r| {
                let mut listed =
                    rmcp::model::Resource::new(r.uri(), r.name()).with_description(r.description());
                listed.title = r.title_text().map(str::to_owned);
                listed.mime_type = r.mime().map(str::to_owned);
                listed
            })
            .collect::<Vec<_>>();
        let mut resources = resources;
        if self.views_for(&cx, self.era(&cx)) {
            resources.extend(self.views_listed(&live.listed, caller));
            scoped |= live.scoped;
        }
        let mut result = ListResourcesResult::with_all_items(resources);
        if let Some((ttl, scope)) = self.list_hints(self.era(&cx), scoped && caller.is_some()) {
            result.ttl_ms = Some(ttl);
            result.cache_scope = Some(scope);
            result.meta = Some(self.shared.server_info.added_to(None));
        }
        Ok(result)
    }

    pub(super) async fn list_templates_of(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.check_owner(&cx)?;
        Self::one_page(request)?;
        let live = self.live();
        let caller = self.caller(&cx);
        let mut scoped = false;
        let templates = live
            .executor
            .registry()
            .resources()
            .iter()
            .filter(|r| r.is_template())
            .inspect(|r| scoped |= !r.scope_list().is_empty())
            .filter(|r| r.permits(caller))
            .map(|r| {
                let mut listed = rmcp::model::ResourceTemplate::new(r.uri(), r.name())
                    .with_description(r.description());
                listed.title = r.title_text().map(str::to_owned);
                listed.mime_type = r.mime().map(str::to_owned);
                listed
            })
            .collect();
        let mut result = ListResourceTemplatesResult::with_all_items(templates);
        if let Some((ttl, scope)) = self.list_hints(self.era(&cx), scoped && caller.is_some()) {
            result.ttl_ms = Some(ttl);
            result.cache_scope = Some(scope);
            result.meta = Some(self.shared.server_info.added_to(None));
        }
        Ok(result)
    }

    pub(super) async fn read_resource_of(
        &self,
        request: ReadResourceRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.check_owner(&cx)?;
        let era = self.era(&cx);
        let live = self.live();
        let ctx = self.item_context(&cx, None);
        let uri = request.uri;
        if let Some(result) = self.read_view(&live, &uri, &cx, era) {
            return Ok(result.into());
        }
        let scoped = live
            .executor
            .registry()
            .resource_for(&uri)
            .is_some_and(|(r, _)| !r.scope_list().is_empty());
        let contents = live
            .executor
            .read_resource(&uri, &ctx)
            .await
            .map_err(|e| item_error(e, Some(&uri)))?;
        let mut result = ReadResourceResult::new(contents.into_iter().map(wire_contents).collect());
        if era == Era::Modern {
            result.ttl_ms = Some(0);
            result.cache_scope = Some(if scoped {
                CacheScope::Private
            } else {
                CacheScope::Public
            });
            result.meta = Some(self.shared.server_info.added_to(None));
        }
        Ok(result.into())
    }

    pub(super) async fn list_prompts_of(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.check_owner(&cx)?;
        Self::one_page(request)?;
        let live = self.live();
        let caller = self.caller(&cx);
        let mut scoped = false;
        let prompts = live
            .executor
            .registry()
            .prompts()
            .iter()
            .inspect(|p| scoped |= !p.scope_list().is_empty())
            .filter(|p| p.permits(caller))
            .map(|p| {
                let arguments = p
                    .arguments()
                    .iter()
                    .map(|a| {
                        let mut argument = rmcp::model::PromptArgument::new(a.name.as_ref())
                            .with_required(a.required);
                        argument.description = a.description.as_deref().map(str::to_owned);
                        argument
                    })
                    .collect::<Vec<_>>();
                let mut listed = rmcp::model::Prompt::new(
                    p.name(),
                    Some(p.description()),
                    (!arguments.is_empty()).then_some(arguments),
                );
                listed.title = p.title_text().map(str::to_owned);
                listed
            })
            .collect();
        let mut result = ListPromptsResult::with_all_items(prompts);
        if let Some((ttl, scope)) = self.list_hints(self.era(&cx), scoped && caller.is_some()) {
            result.ttl_ms = Some(ttl);
            result.cache_scope = Some(scope);
            result.meta = Some(self.shared.server_info.added_to(None));
        }
        Ok(result)
    }

    /// `prompts/get`: the prompt's messages, or (2026-07-28) the questions its getter asked
    /// the client, as a tool's call asks them.
    pub(super) async fn get_prompt_of(
        &self,
        mut request: GetPromptRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        self.check_owner(&cx)?;
        let era = self.era(&cx);
        let live = self.live();
        let arguments: BTreeMap<String, String> = request
            .arguments
            .take()
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k, s)),
                other => Err(McpError::invalid_params(
                    format!("the argument `{k}` of a prompt is a string, not {other}"),
                    Some(json!({ "path": format!("/{k}") })),
                )),
            })
            .collect::<Result<_, _>>()?;
        let args = serde_json::to_value(&arguments).unwrap_or(Value::Null);
        let round = self.round_of(
            &cx,
            era,
            ("prompts/get", &request.name, &args),
            request.request_state.as_deref(),
            request.input_responses.take(),
        )?;
        let ctx = self.item_context(&cx, round.as_ref().map(|(r, _)| r));
        let args: PromptArgs = arguments.into_iter().collect();
        let got = live.executor.get_prompt(&request.name, args, &ctx).await;
        if let Some((round, binding)) = &round
            && let RoundEnd::InputRequired(asked) =
                round.end(&self.shared.states, binding.as_deref())?
        {
            return Ok(GetPromptResponse::InputRequired(
                self.shared.server_info.input_required(asked),
            ));
        }
        let reply = got.map_err(|e| item_error(e, None))?;
        let mut result = wire_reply(reply)?;
        if era == Era::Modern {
            result.meta = Some(self.shared.server_info.added_to(None));
        }
        Ok(GetPromptResponse::Complete(result))
    }

    pub(super) async fn complete_of(
        &self,
        request: CompleteRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.check_owner(&cx)?;
        let live = self.live();
        let ctx = self.item_context(&cx, None);
        let of = match &request.r#ref {
            Reference::Prompt(p) => CompletionRef::Prompt(&p.name),
            Reference::Resource(r) => CompletionRef::Resource(&r.uri),
            _ => {
                return Err(McpError::invalid_params(
                    "completion/complete: `ref.type` must be `ref/prompt` or `ref/resource`",
                    Some(json!({ "path": "/ref/type" })),
                ));
            }
        };
        let mut values = live
            .executor
            .complete(of, &request.argument.name, &request.argument.value, &ctx)
            .await
            .map_err(|e| item_error(e, None))?;
        let total = u32::try_from(values.len()).unwrap_or(u32::MAX);
        let more = values.len() > CompletionInfo::MAX_VALUES;
        values.truncate(CompletionInfo::MAX_VALUES);
        let completion = CompletionInfo::with_pagination(values, Some(total), more)
            .map_err(|e| McpError::internal_error(e, None))?;
        Ok(CompleteResult::new(completion))
    }

    /// `resources/subscribe` (sessions only: 2026-07-28 clients name the URIs they watch in
    /// `subscriptions/listen`). A URI no resource answers is refused as a read of it would be.
    pub(super) async fn subscribe_of(
        &self,
        request: SubscribeRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.check_owner(&cx)?;
        if self
            .live()
            .executor
            .registry()
            .resource_for(&request.uri)
            .is_none()
        {
            return Err(not_found(&request.uri));
        }
        let session = Arc::as_ptr(&self.session) as usize;
        let mut watching = lock(&self.shared.watchers.watching);
        watching.retain(|w| !w.peer.is_transport_closed());
        match watching.iter_mut().find(|w| w.session == session) {
            Some(w) => {
                w.uris.insert(request.uri);
            }
            None => watching.push(Watcher {
                session,
                peer: cx.peer.clone(),
                uris: [request.uri].into(),
            }),
        }
        Ok(())
    }

    pub(super) async fn unsubscribe_of(
        &self,
        request: UnsubscribeRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.check_owner(&cx)?;
        let session = Arc::as_ptr(&self.session) as usize;
        let mut watching = lock(&self.shared.watchers.watching);
        if let Some(w) = watching.iter_mut().find(|w| w.session == session) {
            w.uris.remove(&request.uri);
        }
        watching.retain(|w| !w.uris.is_empty());
        Ok(())
    }

    /// Tells the clients watching `uri` that it changed: sessions that subscribed to it, and
    /// 2026-07-28 listeners that named it. Each is told in its own task with a time limit.
    ///
    /// ```
    /// # use tool_core::prelude::*;
    /// # use tool_mcp::McpServer;
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let server = McpServer::new(Executor::new(Registry::empty()));
    /// server.resource_updated("notes://today"); // no one watches it yet: nothing is sent
    /// # });
    /// ```
    pub fn resource_updated(&self, uri: &str) {
        const LIMIT: std::time::Duration = std::time::Duration::from_secs(10);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut watching = lock(&self.shared.watchers.watching);
        watching.retain(|w| !w.peer.is_transport_closed());
        for w in watching.iter().filter(|w| w.uris.contains(uri)) {
            let peer = w.peer.clone();
            let params = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
            runtime.spawn(async move {
                let _ = tokio::time::timeout(LIMIT, peer.notify_resource_updated(params)).await;
            });
        }
        drop(watching);
        let shared = self.shared.clone();
        let uri = uri.to_owned();
        runtime.spawn(async move {
            for listener in shared.listeners.settled().await {
                let uri = uri.clone();
                // The sink sends it only if the listener named the URI.
                tokio::spawn(async move {
                    let _ =
                        tokio::time::timeout(LIMIT, listener.notify_resource_updated(uri)).await;
                });
            }
        });
    }

    /// The views of the tools `caller` may call, as `resources/list` shows them to a client
    /// that renders views.
    fn views_listed<'a>(
        &'a self,
        tools: &'a [tool_core::registry::Tool],
        caller: Option<&'a tool_core::context::Principal>,
    ) -> impl Iterator<Item = rmcp::model::Resource> + 'a {
        let cards = self.cards();
        tools
            .iter()
            .filter(move |t| t.permits(caller) && views::html(t, cards).is_some())
            .map(|t| {
                let mut listed = rmcp::model::Resource::new(views::uri(t.name()), t.name())
                    .with_description(format!("The view of the tool `{}`", t.name()));
                listed.title = Some(t.label().to_owned());
                listed.mime_type = Some(views::MIME_TYPE.to_owned());
                listed.meta = meta_object(views::resource_meta(t));
                listed
            })
    }

    /// `resources/read` of a tool's view, for a client that renders views and a caller the
    /// tool permits; `None` for any other URI or client, which the registry's resources answer
    /// (a view's URI is then not found).
    fn read_view(
        &self,
        live: &super::Live,
        uri: &str,
        cx: &RequestContext<RoleServer>,
        era: Era,
    ) -> Option<ReadResourceResult> {
        let name = views::tool_of(uri)?;
        if !self.views_for(cx, era) {
            return None;
        }
        let tool = live.executor.registry().get(name)?;
        let html = views::html(tool, self.cards())?;
        if !tool.permits(self.caller(cx)) {
            return None;
        }
        let mut result = ReadResourceResult::new(vec![ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(views::MIME_TYPE.to_owned()),
            text: html.to_owned(),
            meta: meta_object(views::resource_meta(tool)),
        }]);
        if era == Era::Modern {
            // A view changes only with the build: it may be kept as long as the listing.
            let (ttl, scope) = self.list_hints(era, !tool.scopes().is_empty())?;
            result.ttl_ms = Some(ttl);
            result.cache_scope = Some(scope);
            result.meta = Some(self.shared.server_info.added_to(None));
        }
        Some(result)
    }

    fn era(&self, cx: &RequestContext<RoleServer>) -> Era {
        Era::of_checked(cx.protocol_version().as_ref())
    }

    /// The context a read, get or completion runs in: a call's, without progress.
    fn item_context(
        &self,
        cx: &RequestContext<RoleServer>,
        round: Option<&Arc<Round>>,
    ) -> tool_core::ToolContext {
        self.call_context(cx, request_id(&cx.id), None, cx.ct.clone(), round)
    }
}

/// A read's content as MCP carries it.
fn wire_contents(content: ResourceContent) -> ResourceContents {
    let uri = content.uri.unwrap_or_default();
    let mime_type = content.mime_type;
    match content.body {
        Body::Text(text) => ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            meta: None,
        },
        Body::Blob(bytes) => ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob: base64(&bytes),
            meta: None,
        },
    }
}

fn meta_object(value: Value) -> Option<rmcp::model::MetaObject> {
    match value {
        Value::Object(map) => Some(rmcp::model::MetaObject(map)),
        _ => None,
    }
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A prompt's reply as MCP carries it.
fn wire_reply(reply: PromptReply) -> Result<GetPromptResult, McpError> {
    let messages: Vec<Value> = reply
        .messages
        .into_iter()
        .map(|m| {
            let role = m.role.as_str();
            let content = match m.content {
                PromptContent::Text(text) => json!({ "type": "text", "text": text }),
                PromptContent::Image { data, mime_type } => {
                    json!({ "type": "image", "data": base64(&data), "mimeType": mime_type })
                }
                PromptContent::Resource(content) => {
                    json!({ "type": "resource", "resource": wire_contents(content) })
                }
                // Variants added later are written when they are known here.
                _ => json!({ "type": "text", "text": "" }),
            };
            json!({ "role": role, "content": content })
        })
        .collect();
    let mut result = GetPromptResult::new(
        serde_json::from_value(Value::Array(messages))
            .map_err(|e| McpError::internal_error(format!("a prompt message: {e}"), None))?,
    );
    result.description = reply.description;
    Ok(result)
}

/// A read's, get's or completion's error as a JSON-RPC error: what the client named that is not
/// there, or arguments that do not fit, are invalid params (a resource's URI in `data`, as
/// SEP-2164 asks); a refusal for scopes an invalid request; the rest internal, sanitised
/// already.
fn item_error(error: ToolError, uri: Option<&str>) -> McpError {
    match (error.kind(), uri) {
        (ErrorKind::NotFound, Some(uri)) => McpError::invalid_params(
            format!("Resource not found: {}", error.message()),
            Some(json!({ "uri": uri })),
        ),
        (ErrorKind::NotFound | ErrorKind::InvalidInput, _) => McpError::invalid_params(
            error.message().to_owned(),
            error.path().map(|p| json!({ "path": p })),
        ),
        (ErrorKind::PermissionDenied | ErrorKind::Refused, _) => {
            McpError::invalid_request(error.message().to_owned(), None)
        }
        _ => McpError::internal_error(error.message().to_owned(), None),
    }
}

fn not_found(uri: &str) -> McpError {
    McpError::invalid_params(
        format!("Resource not found: no resource has the URI `{uri}`"),
        Some(json!({ "uri": uri })),
    )
}
