//! A mounted server's resources, templates and prompts, as this registry's: each read and get
//! goes to the server through the mount's client, behind this server's own gate.
//!
//! Prompts are named `NAME__prompt` like the mount's tools, and resources `NAME__resource`;
//! URIs stay as the server gave them, since a URI is how results and other resources link to
//! a resource (one another mount already has is refused at registration, as a tool name is).
//! What cannot be carried is left out with a warning: a prompt whose prefixed name is no
//! snake_case name, a URI this registry cannot route, content of a kind newer than this code.
//! Completion is not passed on: a completer answers at once, and the server is a round trip
//! away.

use std::sync::Arc;

use rmcp::model::{
    ContentBlock, GetPromptRequestParams, JsonObject, ReadResourceRequestParams, ResourceContents,
    Role,
};
use tool_core::ToolError;
use tool_core::prompt::{Prompt, PromptArgument, PromptContent, PromptMessage, PromptReply};
use tool_core::resource::{Resource, ResourceContent};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::{Peer, RoleClient};

/// What keeps the mount's connection open: every resource and prompt holds it, as every tool
/// holds the mount's client.
type Keep = Arc<dyn std::any::Any + Send + Sync>;

/// What the server offers besides tools, made this registry's.
pub(super) async fn items(
    client: Peer<RoleClient>,
    holder: Keep,
    name: &str,
    scopes: &[String],
) -> Result<(Vec<Resource>, Vec<Prompt>), rmcp::ServiceError> {
    let remote = Remote {
        peer: client,
        _keep: holder,
    };
    let client = &remote;
    let capabilities = client
        .peer
        .peer_info()
        .map(|info| info.capabilities.clone())
        .unwrap_or_default();
    let mut resources = Vec::new();
    if capabilities.resources.is_some() {
        for remote in client.peer.list_all_resources().await? {
            let made = resource(
                client,
                name,
                &remote.uri,
                &remote.name,
                remote.description.as_deref(),
            )
            .map(|r| with_details(r, remote.title, remote.mime_type, scopes));
            keep(&mut resources, made, name, &remote.uri);
        }
        for remote in client.peer.list_all_resource_templates().await? {
            let made = resource(
                client,
                name,
                &remote.uri_template,
                &remote.name,
                remote.description.as_deref(),
            )
            .map(|r| with_details(r, remote.title, remote.mime_type, scopes));
            keep(&mut resources, made, name, &remote.uri_template);
        }
    }
    let mut prompts = Vec::new();
    if capabilities.prompts.is_some() {
        for remote in client.peer.list_all_prompts().await? {
            let arguments = remote.arguments.unwrap_or_default().into_iter().map(|a| {
                let description = a.description.unwrap_or_default();
                if a.required == Some(true) {
                    PromptArgument::required(a.name, description)
                } else {
                    PromptArgument::optional(a.name, description)
                }
            });
            let remote_name = remote.name.clone();
            let getter = {
                let client = client.clone();
                move |args: tool_core::prompt::PromptArgs, _ctx| {
                    let client = client.clone();
                    let remote_name = remote_name.clone();
                    async move { get(&client, remote_name, args).await }
                }
            };
            let description = remote.description.unwrap_or_default();
            let made = Prompt::new(
                format!("{name}__{}", remote.name),
                description,
                arguments,
                getter,
            )
            .map(|p| {
                let p = p.origin(format!("mounted MCP server `{name}`"));
                let p = if scopes.is_empty() {
                    p
                } else {
                    p.scopes(scopes.iter().cloned())
                };
                match remote.title {
                    Some(title) => p.title(title),
                    None => p,
                }
            });
            keep(&mut prompts, made, name, &remote.name);
        }
    }
    Ok((resources, prompts))
}

fn keep<T>(
    into: &mut Vec<T>,
    made: Result<T, tool_core::resource::DefinitionError>,
    mount: &str,
    what: &str,
) {
    match made {
        Ok(item) => into.push(item),
        Err(e) => tracing::warn!(mount, item = what, "left out of the mount: {e}"),
    }
}

/// The mount's server, as its resources and prompts reach it.
#[derive(Clone)]
struct Remote {
    peer: Peer<RoleClient>,
    _keep: Keep,
}

fn resource(
    client: &Remote,
    mount: &str,
    uri: &str,
    name: &str,
    description: Option<&str>,
) -> Result<Resource, tool_core::resource::DefinitionError> {
    let client = client.clone();
    Resource::new(
        uri.to_owned(),
        format!("{mount}__{name}"),
        description.unwrap_or_default().to_owned(),
        move |request, _ctx| {
            let client = client.clone();
            let uri = request.uri().to_owned();
            async move { read(&client, uri).await }
        },
    )
    .map(|r| r.origin(format!("mounted MCP server `{mount}`")))
}

fn with_details(
    resource: Resource,
    title: Option<String>,
    mime_type: Option<String>,
    scopes: &[String],
) -> Resource {
    let mut resource = resource;
    if let Some(title) = title {
        resource = resource.title(title);
    }
    if let Some(mime_type) = mime_type {
        resource = resource.mime_type(mime_type);
    }
    if !scopes.is_empty() {
        resource = resource.scopes(scopes.iter().cloned());
    }
    resource
}

async fn read(client: &Remote, uri: String) -> Result<Vec<ResourceContent>, ToolError> {
    let read = client
        .peer
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .map_err(call_error)?;
    read.contents.into_iter().map(content).collect()
}

fn content(remote: ResourceContents) -> Result<ResourceContent, ToolError> {
    Ok(match remote {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => with_mime(ResourceContent::text(text).with_uri(uri), mime_type),
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => with_mime(
            ResourceContent::blob(decode(&blob)?).with_uri(uri),
            mime_type,
        ),
        #[allow(unreachable_patterns)]
        _ => {
            return Err(ToolError::failed(
                "the server sent resource contents of an unknown kind",
            ));
        }
    })
}

fn with_mime(content: ResourceContent, mime_type: Option<String>) -> ResourceContent {
    match mime_type {
        Some(mime) => content.with_mime_type(mime),
        None => content,
    }
}

async fn get(
    client: &Remote,
    name: String,
    args: tool_core::prompt::PromptArgs,
) -> Result<PromptReply, ToolError> {
    let arguments: JsonObject = args
        .iter()
        .map(|(k, v)| (k.to_owned(), serde_json::Value::String(v.to_owned())))
        .collect();
    let got = client
        .peer
        .get_prompt(GetPromptRequestParams::new(name).with_arguments(arguments))
        .await
        .map_err(call_error)?;
    let mut messages = Vec::new();
    for message in got.messages {
        let content = match message.content {
            ContentBlock::Text(text) => PromptContent::Text(text.text),
            ContentBlock::Image(image) => {
                PromptContent::image(image.mime_type, decode(&image.data)?)
            }
            ContentBlock::Resource(resource) => {
                PromptContent::Resource(content(resource.resource)?)
            }
            ContentBlock::ResourceLink(link) => PromptContent::Text(link.uri),
            _ => {
                return Err(ToolError::failed(
                    "the server's prompt holds content of a kind this server cannot pass on",
                ));
            }
        };
        messages.push(match message.role {
            Role::Assistant => PromptMessage::assistant(content),
            _ => PromptMessage::user(content),
        });
    }
    Ok(PromptReply {
        description: got.description,
        messages,
    })
}

/// A failed request to a mounted server, as the caller should see it: the server's refusal of
/// the input is the caller's to fix; a closed connection is not worth retrying; the rest may be
/// transient.
pub(super) fn call_error(e: rmcp::ServiceError) -> ToolError {
    use rmcp::ServiceError;
    match e {
        ServiceError::McpError(error) if error.code == rmcp::model::ErrorCode::INVALID_PARAMS => {
            ToolError::invalid_input(error.message.into_owned())
        }
        ServiceError::McpError(error) => ToolError::failed(format!(
            "the mounted server refused the call: {}",
            error.message
        )),
        ServiceError::TransportClosed => {
            ToolError::failed("the mounted server has closed its connection")
        }
        other => ToolError::unavailable(format!("the mounted server did not answer: {other}")),
    }
}

/// Base64 media a mounted server sent.
pub(super) fn decode(data: &str) -> Result<Vec<u8>, ToolError> {
    BASE64
        .decode(data)
        .map_err(|e| ToolError::failed(format!("the server sent media that is not base64: {e}")))
}
