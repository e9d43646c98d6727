//! A call's outcome as an MCP `CallToolResult`, and back (for mounted servers).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::model::{CallToolResult, ContentBlock, MetaObject, ResourceContents};
use serde_json::{Value, json};

use crate::exec::CallResult;
use crate::{Media, MediaKind, Tool, ToolError, ToolOutput};

/// The `CallToolResult` of a call: the structured data as `structuredContent` (wrapped as
/// `{"result": ...}` where the listed output schema wraps it), the echo as text, media as image,
/// audio and resource content. A failure is an `isError` result with the sanitised message, so
/// the model can read it and correct its input.
pub(super) fn call_result(tool: &Tool, result: CallResult) -> CallToolResult {
    match result {
        Ok(output) => success(tool, output),
        Err(error) => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
            let mut meta = serde_json::Map::new();
            meta.insert("tool-core/error".into(), json!(error.kind().as_str()));
            result.meta = Some(MetaObject(meta));
            result
        }
    }
}

fn success(tool: &Tool, output: ToolOutput) -> CallToolResult {
    let mut content = Vec::with_capacity(1 + output.media().len());
    let media: Vec<ContentBlock> = output.media().iter().map(media_block).collect();
    let (echo, data) = output.into_echo_and_data();
    if !echo.is_empty() {
        content.push(ContentBlock::text(echo));
    }
    content.extend(media);
    let wrapped = tool
        .output_schema()
        .is_some_and(crate::render::mcp_wraps_output);
    let structured = match data {
        // Moved in by hand: `json!` would copy the output through `Serialize`.
        Some(data) if wrapped => {
            let mut object = serde_json::Map::with_capacity(1);
            object.insert("result".into(), data);
            Some(Value::Object(object))
        }
        Some(data @ Value::Object(_)) => Some(data),
        // Without an object output schema, other values travel as the text mirror only.
        _ => None,
    };
    let mut result = CallToolResult::success(content);
    result.structured_content = structured;
    result
}

fn media_block(media: &Media) -> ContentBlock {
    match media.kind {
        MediaKind::Image => ContentBlock::image(BASE64.encode(&media.data), &*media.mime_type),
        MediaKind::Audio => ContentBlock::audio(BASE64.encode(&media.data), &*media.mime_type),
        MediaKind::Resource => {
            let uri = media.uri.as_deref().unwrap_or_default().to_owned();
            let mime_type = Some(media.mime_type.to_string());
            ContentBlock::resource(match media.text() {
                Some(text) => ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text: text.to_owned(),
                    meta: None,
                },
                None => ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob: BASE64.encode(&media.data),
                    meta: None,
                },
            })
        }
    }
}

/// A mounted server's `CallToolResult` as this framework's outcome: `structuredContent` is the
/// data, text blocks the echo, images, audio and resources the media; `isError` a failure
/// whose message is the text.
pub(super) fn from_call_result(result: CallToolResult) -> CallResult {
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
            ContentBlock::ResourceLink(link) => texts.push(format!("[resource: {}]", link.uri)),
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
        Some(data) => ToolOutput::new(data).with_echo(text),
        None => ToolOutput::text(text),
    };
    for item in media {
        output = output.with_media(item?);
    }
    Ok(output)
}

fn decode(data: &str) -> Result<Vec<u8>, ToolError> {
    BASE64
        .decode(data)
        .map_err(|e| ToolError::failed(format!("the server sent media that is not base64: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DynamicTool, Registry};

    fn tool(output_schema: Option<Value>) -> Tool {
        let mut tool = DynamicTool::new("get_thing", "Gets a thing.", json!({"type": "object"}));
        if let Some(schema) = output_schema {
            tool = tool.output_schema(schema);
        }
        let mut registry = Registry::empty();
        registry.register(tool).unwrap();
        registry.get("get_thing").unwrap().clone()
    }

    #[test]
    fn structured_content_follows_the_listed_output_schema() {
        let object = tool(Some(json!({"type": "object"})));
        let r = call_result(&object, Ok(ToolOutput::new(json!({"a": 1}))));
        assert_eq!(r.structured_content, Some(json!({"a": 1})));
        assert_eq!(r.content[0].as_text().unwrap().text, r#"{"a":1}"#);

        let number = tool(Some(json!({"type": "integer"})));
        let r = call_result(&number, Ok(ToolOutput::new(json!(7))));
        assert_eq!(r.structured_content, Some(json!({"result": 7})));
        assert_eq!(r.content[0].as_text().unwrap().text, "7");

        let untyped = tool(None);
        let r = call_result(&untyped, Ok(ToolOutput::new(json!("plain"))));
        assert_eq!(r.structured_content, None);
        assert_eq!(r.content[0].as_text().unwrap().text, "plain");
    }

    #[test]
    fn failures_are_error_results_with_the_kind_in_meta() {
        let r = call_result(
            &tool(None),
            Err(ToolError::invalid_input("`city` is missing")),
        );
        assert_eq!(r.is_error, Some(true));
        assert!(
            r.content[0]
                .as_text()
                .unwrap()
                .text
                .contains("`city` is missing")
        );
        assert_eq!(
            r.meta.unwrap().0.get("tool-core/error"),
            Some(&json!("invalid_input"))
        );
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
            ));
        let r = call_result(&tool(None), Ok(out.clone()));
        assert_eq!(r.content.len(), 4, "an empty echo is not sent");
        assert_eq!(r.content[0].as_image().unwrap().data, "AQID");
        let back = from_call_result(r).unwrap();
        assert_eq!(back.media(), out.media());
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
}
