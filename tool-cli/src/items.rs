//! `resources`, `read`, `prompts`, `get` and `complete`: what `serve` serves besides tools,
//! from the command line, through the same executor (scopes, layers, limits, audit) and with
//! `call`'s JSON and exit codes.

use serde_json::{Map, Value, json};
use tool_core::exec::CompletionRef;
use tool_core::prompt::{PromptArgs, PromptContent, PromptReply};
use tool_core::resource::{Body, ResourceContent};
use tool_core::{Executor, Registry, ToolContext};

use crate::exit::{Exit, Out, print_json, usage};

/// `resources`: every resource and template, as a table or JSON.
pub(crate) fn list_resources(registry: &Registry, as_json: bool, out: Out) -> Result<(), Exit> {
    let resources = registry.resources();
    if as_json {
        let listed = resources
            .iter()
            .map(|r| {
                let mut item = Map::new();
                let key = if r.is_template() {
                    "uriTemplate"
                } else {
                    "uri"
                };
                item.insert(key.into(), r.uri().into());
                item.insert("name".into(), r.name().into());
                if let Some(title) = r.title_text() {
                    item.insert("title".into(), title.into());
                }
                item.insert("description".into(), r.description().into());
                if let Some(mime) = r.mime() {
                    item.insert("mimeType".into(), mime.into());
                }
                Value::Object(item)
            })
            .collect();
        print_json(out, &Value::Array(listed));
        return Ok(());
    }
    let width = resources.iter().map(|r| r.uri().len()).max().unwrap_or(0);
    for r in resources {
        let _ = writeln!(out, "{:width$}  {}", r.uri(), r.description());
    }
    Ok(())
}

/// `prompts`: every prompt with its arguments, as a table or JSON.
pub(crate) fn list_prompts(registry: &Registry, as_json: bool, out: Out) -> Result<(), Exit> {
    let prompts = registry.prompts();
    if as_json {
        let listed = prompts
            .iter()
            .map(|p| {
                let arguments: Vec<Value> = p
                    .arguments()
                    .iter()
                    .map(|a| {
                        json!({"name": a.name, "description": a.description, "required": a.required})
                    })
                    .collect();
                let mut item = json!({
                    "name": p.name(),
                    "description": p.description(),
                    "arguments": arguments,
                });
                if let Some(title) = p.title_text() {
                    item["title"] = title.into();
                }
                item
            })
            .collect();
        print_json(out, &Value::Array(listed));
        return Ok(());
    }
    let width = prompts.iter().map(|p| p.name().len()).max().unwrap_or(0);
    for p in prompts {
        let arguments: Vec<String> = p
            .arguments()
            .iter()
            .map(|a| match a.required {
                true => a.name.to_string(),
                false => format!("[{}]", a.name),
            })
            .collect();
        let _ = writeln!(
            out,
            "{:width$}  {}  ({})",
            p.name(),
            p.description(),
            arguments.join(", ")
        );
    }
    Ok(())
}

/// `read URI`: the resource's contents.
pub(crate) async fn read(
    executor: &Executor,
    uri: &str,
    ctx: &ToolContext,
    out: Out<'_>,
    err: Out<'_>,
) -> Result<(), Exit> {
    if executor.registry().resource_for(uri).is_none() {
        return Err(usage(err, no_resource(executor.registry(), uri)));
    }
    let contents = executor.read_resource(uri, ctx).await;
    answer(
        contents.map(|c| json!({"ok": true, "contents": contents_json(c)})),
        uri,
        out,
        err,
    )
}

/// `get NAME`: the prompt's messages for `arguments` (a JSON object of strings).
pub(crate) async fn get(
    executor: &Executor,
    name: &str,
    arguments: &str,
    ctx: &ToolContext,
    out: Out<'_>,
    err: Out<'_>,
) -> Result<(), Exit> {
    if executor.registry().prompt(name).is_none() {
        return Err(usage(err, no_prompt(executor.registry(), name)));
    }
    let arguments = prompt_args(arguments).map_err(|e| usage(err, format!("--args: {e}")))?;
    let reply = executor.get_prompt(name, arguments, ctx).await;
    answer(reply.map(reply_json), name, out, err)
}

/// `complete`: the values that complete `value` for a prompt's argument or a template's
/// variable.
pub(crate) async fn complete(
    executor: &Executor,
    of: CompletionRef<'_>,
    argument: &str,
    value: &str,
    ctx: &ToolContext,
    out: Out<'_>,
    err: Out<'_>,
) -> Result<(), Exit> {
    let registry = executor.registry();
    match of {
        CompletionRef::Prompt(name) if registry.prompt(name).is_none() => {
            return Err(usage(err, no_prompt(registry, name)));
        }
        CompletionRef::Resource(template)
            if !registry.resources().iter().any(|r| r.uri() == template) =>
        {
            return Err(usage(
                err,
                format!("no resource template is `{template}` (see `resources`)"),
            ));
        }
        _ => {}
    }
    let values = executor.complete(of, argument, value, ctx).await;
    let what = match of {
        CompletionRef::Prompt(name) | CompletionRef::Resource(name) => name,
    };
    answer(
        values.map(|v| json!({"ok": true, "values": v})),
        what,
        out,
        err,
    )
}

/// Prints `result` as `call` prints a call's: the JSON, and on an error exit code 1.
fn answer(
    result: Result<Value, tool_core::ToolError>,
    what: &str,
    out: Out,
    err: Out,
) -> Result<(), Exit> {
    match result {
        Ok(value) => {
            print_json(out, &value);
            Ok(())
        }
        Err(e) => {
            print_json(out, &json!({ "ok": false, "error": e }));
            let _ = writeln!(err, "error: {what}: {e}");
            Err(Exit(1))
        }
    }
}

/// A prompt's arguments from a JSON object whose values are strings.
fn prompt_args(text: &str) -> Result<PromptArgs, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(map) = value else {
        return Err("not a JSON object of strings".to_owned());
    };
    map.into_iter()
        .map(|(name, value)| match value {
            Value::String(text) => Ok((name, text)),
            other => Err(format!("`{name}` is {other}, not a string")),
        })
        .collect()
}

fn no_resource(registry: &Registry, uri: &str) -> String {
    let hint = match registry.resources().is_empty() {
        true => "this binary serves no resources",
        false => "see `resources` for what it serves",
    };
    format!("no resource is at `{uri}`: {hint}")
}

fn no_prompt(registry: &Registry, name: &str) -> String {
    let hint = match registry.prompts().is_empty() {
        true => "this binary serves no prompts",
        false => "see `prompts` for what it serves",
    };
    format!("no prompt is named `{name}`: {hint}")
}

/// A read's contents as JSON: text as text, bytes by their count (as `call` shows media).
fn contents_json(contents: Vec<ResourceContent>) -> Vec<Value> {
    contents.into_iter().map(content_json).collect()
}

fn content_json(content: ResourceContent) -> Value {
    let mut item = json!({"uri": content.uri, "mime_type": content.mime_type});
    match content.body {
        Body::Text(text) => item["text"] = text.into(),
        Body::Blob(bytes) => item["bytes"] = bytes.len().into(),
    }
    item
}

fn reply_json(reply: PromptReply) -> Value {
    let messages: Vec<Value> = reply
        .messages
        .into_iter()
        .map(|m| {
            let mut message = json!({ "role": m.role.as_str() });
            match m.content {
                PromptContent::Text(text) => message["text"] = text.into(),
                PromptContent::Image { data, mime_type } => {
                    message["image"] = json!({"mime_type": mime_type, "bytes": data.len()});
                }
                PromptContent::Resource(content) => message["resource"] = content_json(content),
                // A kind added later is named, not dropped.
                _ => message["unknown"] = true.into(),
            }
            message
        })
        .collect();
    json!({"ok": true, "description": reply.description, "messages": messages})
}
