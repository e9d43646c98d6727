//! A call's outcome as an MCP `CallToolResult`, or written straight as one (stdio answers), and
//! back (for mounted servers).

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ErrorData, MetaObject, ProtocolVersion,
    RequestId, ResourceContents, ServerJsonRpcMessage, ServerResult,
};
use serde::Serializer as _;
use serde_json::{Value, json};

use tool_core::exec::CallResult;
use tool_core::{
    ToolOutput,
    output::{Media, MediaKind},
    registry::Tool,
};

/// The `_meta` key under which a result names the server (2026-07-28).
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The server's name and version, as the results of 2026-07-28 requests carry them in `_meta`
/// (the spec: servers SHOULD include it on every response), kept as JSON too: the stdio
/// transport writes it into answers as it is.
#[derive(Debug)]
pub(crate) struct ServerInfo {
    value: Value,
    json: Box<[u8]>,
}

impl ServerInfo {
    pub(crate) fn new(info: &rmcp::model::Implementation) -> Self {
        let value = serde_json::to_value(info).unwrap_or(Value::Null);
        let json = serde_json::to_vec(&value).unwrap_or_default().into();
        Self { value, json }
    }

    /// `meta` with the server's info added, first (where [`TextResult::write`] writes it).
    pub(crate) fn added_to(&self, meta: Option<MetaObject>) -> MetaObject {
        let mut with = serde_json::Map::with_capacity(1);
        with.insert(SERVER_INFO.into(), self.value.clone());
        with.extend(meta.map(|m| m.0).unwrap_or_default());
        MetaObject(with)
    }

    /// `result` with the server's info in its `_meta`.
    pub(crate) fn input_required(
        &self,
        result: rmcp::model::InputRequiredResult,
    ) -> rmcp::model::InputRequiredResult {
        let meta = self.added_to(result.meta.clone());
        result.with_meta(meta)
    }

    fn write_entry(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(br#""io.modelcontextprotocol/serverInfo":"#);
        out.extend_from_slice(&self.json);
    }
}

/// What a `tools/call` is answered with.
pub(super) enum CallAnswer {
    /// The tool's result.
    Complete(CallOutcome),
    /// Questions for the client (2026-07-28): the call is made again with the answers.
    InputRequired(rmcp::model::InputRequiredResult),
    /// The call became a task (2026-07-28, a client that declared the extension): the client
    /// follows it with `tasks/get`.
    #[cfg(feature = "tasks")]
    Task(rmcp::model::CreateTaskResult),
}

/// A call's outcome, with what the shape of its answer depends on.
pub(super) struct CallOutcome {
    /// The listed output schema wraps the data as `{"result": ...}`.
    wraps: bool,
    /// The tool has an output schema and the client takes any JSON value as
    /// `structuredContent` (2026-07-28): the data travels as it is.
    any_value: bool,
    /// The text mirror of the structured content goes with it: the tool keeps its mirror
    /// ([`Tool::mirror`]), or has no output schema for a client to read the content by.
    mirror: bool,
    result: CallResult,
}

impl CallOutcome {
    /// The outcome of a session-era call: before 2026-07-28, `structuredContent` is an object,
    /// so other data is wrapped as `{"result": ...}`, as the listed output schema says.
    pub(super) fn new(tool: &Tool, result: CallResult) -> Self {
        let wraps = tool
            .output_schema()
            .is_some_and(tool_core::render::mcp_wraps_output);
        Self {
            wraps,
            any_value: false,
            mirror: mirrors(tool),
            result,
        }
    }

    /// The outcome of a 2026-07-28 call, whose client takes any JSON value as
    /// `structuredContent` and any output schema: nothing is wrapped.
    pub(super) fn modern(tool: &Tool, result: CallResult) -> Self {
        Self {
            wraps: false,
            any_value: tool.output_schema().is_some(),
            mirror: mirrors(tool),
            result,
        }
    }

    /// The outcome for a client of `protocol` (asked only of a tool without its mirror): one
    /// of a protocol before 2025-06-18 reads no `structuredContent`, so it keeps the text.
    pub(super) fn for_client(mut self, protocol: impl FnOnce() -> Option<ProtocolVersion>) -> Self {
        if !self.mirror {
            self.mirror = protocol().is_some_and(|v| v < ProtocolVersion::V_2025_06_18);
        }
        self
    }
}

/// Whether a tool's results carry the text mirror: unless it leaves it out, which only a tool
/// with an output schema may (without one, a client would have nothing to read).
fn mirrors(tool: &Tool) -> bool {
    tool.mirror() || tool.output_schema().is_none()
}

/// The `CallToolResult` of a call: the structured data as `structuredContent` (wrapped as
/// `{"result": ...}` where the listed output schema wraps it), the echo as text (unless the
/// tool leaves out the mirror of a result that has structured content), media as image, audio
/// and resource content. A failure is an `isError` result with the sanitised message, so the
/// model can read it and correct its input.
pub(super) fn call_result(outcome: CallOutcome) -> CallToolResult {
    match outcome.result {
        Ok(output) => success(outcome.wraps, outcome.any_value, outcome.mirror, output),
        Err(error) => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
            let mut meta = serde_json::Map::new();
            meta.insert("tool-core/error".into(), json!(error.kind().as_str()));
            result.meta = Some(MetaObject(meta));
            result
        }
    }
}

fn success(wraps: bool, any_value: bool, mirror: bool, output: ToolOutput) -> CallToolResult {
    let mut content = Vec::with_capacity(1 + output.media().len());
    let media: Vec<ContentBlock> = output.media().iter().map(media_block).collect();
    let shape = shape(wraps, any_value, output.data());
    // Without its mirror, a result whose structured content carries the data has no text
    // (which is then never made).
    let (echo, data) = match shape {
        Shape::Wrapped | Shape::AsIs if !mirror => (String::new(), output.into_data()),
        _ => output.into_echo_and_data(),
    };
    if !echo.is_empty() {
        content.push(ContentBlock::text(echo));
    }
    content.extend(media);
    let structured = match (shape, data) {
        // Moved in by hand: `json!` would copy the output through `Serialize`.
        (Shape::Wrapped, Some(data)) => {
            let mut object = serde_json::Map::with_capacity(1);
            object.insert("result".into(), data);
            Some(Value::Object(object))
        }
        (Shape::AsIs, data) => data,
        _ => None,
    };
    let mut result = CallToolResult::success(content);
    result.structured_content = structured;
    result
}

/// How a call's data travels as `structuredContent`.
#[derive(Clone, Copy)]
enum Shape {
    Wrapped,
    AsIs,
    /// Without an object output schema, other values travel as the text mirror only.
    Omitted,
}

fn shape(wraps: bool, any_value: bool, data: Option<&Value>) -> Shape {
    match data {
        Some(_) if wraps => Shape::Wrapped,
        Some(_) if any_value => Shape::AsIs,
        Some(Value::Object(_)) => Shape::AsIs,
        _ => Shape::Omitted,
    }
}

/// The `CallToolResult` of an outcome without media, written as [`call_result`]'s is
/// serialized, byte for byte, but straight from the outcome instead of built: the stdio
/// transport answers most calls with it. `None` for an output with media, which takes
/// [`call_result`].
pub(super) fn text_result(outcome: &CallOutcome) -> Option<TextResult<'_>> {
    Some(match &outcome.result {
        Ok(output) if output.media().is_empty() => {
            let data = output.data();
            let structured = match shape(outcome.wraps, outcome.any_value, data) {
                Shape::Omitted => None,
                shape => data.map(|data| (shape, data)),
            };
            TextResult {
                echo: match output.echo_or_data() {
                    _ if !outcome.mirror && structured.is_some() => None,
                    Ok("") => None,
                    Ok(echo) => Some(Echo::Text(Cow::Borrowed(echo))),
                    Err(data) => Some(Echo::Json(data)),
                },
                structured,
                error: None,
            }
        }
        Ok(_) => return None,
        Err(error) => TextResult {
            echo: Some(Echo::Text(Cow::Owned(error.to_string()))),
            structured: None,
            error: Some(error.kind().as_str()),
        },
    })
}

/// See [`text_result`].
pub(super) struct TextResult<'a> {
    /// The one text block, if any.
    echo: Option<Echo<'a>>,
    structured: Option<(Shape, &'a Value)>,
    /// The kind of failure, for an `isError` result.
    error: Option<&'static str>,
}

enum Echo<'a> {
    Text(Cow<'a, str>),
    /// The data as compact JSON: escaped into the answer as it is formatted, never a `String`.
    Json(&'a Value),
}

impl TextResult<'_> {
    /// Appends the result's JSON to `out`: for a session (`modern` is `None`), or for a
    /// 2026-07-28 request, with `resultType` and the server's info. The names and the order of
    /// the fields are the SDK's; they are written as the constants they are (serde escapes
    /// every name it writes).
    pub(super) fn write(
        &self,
        out: &mut Vec<u8>,
        modern: Option<&ServerInfo>,
    ) -> serde_json::Result<()> {
        out.extend_from_slice(match modern {
            None => br#"{"content":["#.as_slice(),
            Some(_) => br#"{"resultType":"complete","content":["#.as_slice(),
        });
        if let Some(echo) = &self.echo {
            out.extend_from_slice(br#"{"type":"text","text":"#);
            let mut json = serde_json::Serializer::new(&mut *out);
            match echo {
                Echo::Text(text) => json.serialize_str(text)?,
                Echo::Json(data) => json.collect_str(data)?,
            }
            out.push(b'}');
        }
        out.push(b']');
        if let Some((shape, data)) = self.structured {
            out.extend_from_slice(br#","structuredContent":"#);
            if let Shape::Wrapped = shape {
                out.extend_from_slice(br#"{"result":"#);
            }
            serde_json::to_writer(&mut *out, data)?;
            if let Shape::Wrapped = shape {
                out.push(b'}');
            }
        }
        match (self.error, modern) {
            (None, None) => out.extend_from_slice(br#","isError":false}"#),
            (None, Some(info)) => {
                out.extend_from_slice(br#","isError":false,"_meta":{"#);
                info.write_entry(out);
                out.extend_from_slice(b"}}");
            }
            (Some(kind), modern) => {
                out.extend_from_slice(br#","isError":true,"_meta":{"#);
                if let Some(info) = modern {
                    info.write_entry(out);
                    out.push(b',');
                }
                out.extend_from_slice(br#""tool-core/error":"#);
                serde_json::to_writer(&mut *out, kind)?;
                out.extend_from_slice(b"}}");
            }
        }
        Ok(())
    }
}

fn media_block(media: &Media) -> ContentBlock {
    match media.kind {
        MediaKind::Link => {
            let uri = media.uri.as_deref().unwrap_or_default();
            let mut link = rmcp::model::Resource::new(uri, media.name.as_deref().unwrap_or(uri));
            link.mime_type = (!media.mime_type.is_empty()).then(|| media.mime_type.to_string());
            ContentBlock::resource_link(link)
        }
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

/// Writes a call's JSON-RPC answer to `line`, in the wire shape the SDK gives a session begun with `initialize`,
/// or (`modern`, with the server's info) a 2026-07-28 request: written straight from the
/// outcome ([`text_result`]) unless it has media.
pub(crate) fn write_call_answer(
    line: &mut Vec<u8>,
    result: Result<CallAnswer, ErrorData>,
    id: &RequestId,
    modern: Option<&ServerInfo>,
) -> serde_json::Result<()> {
    let outcome = match result {
        Ok(CallAnswer::Complete(outcome)) => outcome,
        // Only a 2026-07-28 call asks this way.
        Ok(CallAnswer::InputRequired(result)) => {
            let result = match modern {
                Some(info) => info.input_required(result),
                None => result,
            };
            let result = ServerResult::from(CallToolResponse::InputRequired(result));
            return serde_json::to_writer(
                line,
                &ServerJsonRpcMessage::response(result, id.clone()),
            );
        }
        #[cfg(feature = "tasks")]
        Ok(CallAnswer::Task(mut result)) => {
            if let Some(info) = modern {
                result.meta = Some(info.added_to(result.meta.take()));
            }
            let result = ServerResult::from(CallToolResponse::Task(result));
            return serde_json::to_writer(
                line,
                &ServerJsonRpcMessage::response(result, id.clone()),
            );
        }
        Err(error) => {
            return serde_json::to_writer(
                line,
                &ServerJsonRpcMessage::error(error, Some(id.clone())),
            );
        }
    };
    if let Some(result) = text_result(&outcome) {
        line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut *line, id)?;
        line.extend_from_slice(br#","result":"#);
        result.write(line, modern)?;
        line.push(b'}');
        return Ok(());
    }
    let mut result = call_result(outcome);
    if let Some(info) = modern {
        result.meta = Some(info.added_to(result.meta.take()));
    }
    let mut result = ServerResult::from(CallToolResponse::from(result));
    if modern.is_none() {
        result.strip_result_type_for_legacy_peer();
        result.strip_non_object_output_for_legacy_peer();
    }
    serde_json::to_writer(line, &ServerJsonRpcMessage::response(result, id.clone()))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rmcp::model::{CallToolResponse, ServerResult};

    use super::*;
    use crate::test_json::{json_leaf, json_tree};
    use tool_core::{Registry, ToolError, registry::DynamicTool};

    fn tool(output_schema: Option<Value>) -> Tool {
        tool_with(output_schema, true)
    }

    fn tool_with(output_schema: Option<Value>, mirror: bool) -> Tool {
        let mut tool = DynamicTool::new("get_thing", "Gets a thing.", json!({"type": "object"}))
            .mirror(mirror);
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
        let r = call_result(CallOutcome::new(
            &object,
            Ok(ToolOutput::new(json!({"a": 1}))),
        ));
        assert_eq!(r.structured_content, Some(json!({"a": 1})));
        assert_eq!(r.content[0].as_text().unwrap().text, r#"{"a":1}"#);

        let number = tool(Some(json!({"type": "integer"})));
        let r = call_result(CallOutcome::new(&number, Ok(ToolOutput::new(json!(7)))));
        assert_eq!(r.structured_content, Some(json!({"result": 7})));
        assert_eq!(r.content[0].as_text().unwrap().text, "7");

        let untyped = tool(None);
        let r = call_result(CallOutcome::new(
            &untyped,
            Ok(ToolOutput::new(json!("plain"))),
        ));
        assert_eq!(r.structured_content, None);
        assert_eq!(r.content[0].as_text().unwrap().text, "plain");
    }

    /// A 2026-07-28 client takes any JSON value as `structuredContent`: nothing is wrapped.
    #[test]
    fn a_modern_client_gets_the_data_as_it_is() {
        let number = tool(Some(json!({"type": "integer"})));
        let r = call_result(CallOutcome::modern(&number, Ok(ToolOutput::new(json!(7)))));
        assert_eq!(r.structured_content, Some(json!(7)));
        assert_eq!(r.content[0].as_text().unwrap().text, "7");
        let list = tool(Some(json!({"type": "array", "items": {"type": "string"}})));
        let r = call_result(CallOutcome::modern(
            &list,
            Ok(ToolOutput::new(json!(["a"]))),
        ));
        assert_eq!(r.structured_content, Some(json!(["a"])));
        // Without an output schema, nothing says what the value is: the text alone carries it.
        let untyped = tool(None);
        let r = call_result(CallOutcome::modern(
            &untyped,
            Ok(ToolOutput::new(json!("x"))),
        ));
        assert_eq!(r.structured_content, None);
    }

    #[test]
    fn without_its_mirror_a_result_with_structured_content_has_no_text() {
        let object = tool_with(Some(json!({"type": "object"})), false);
        let number = tool_with(Some(json!({"type": "integer"})), false);
        let untyped = tool_with(None, false);
        let ok = |tool: &Tool, output: ToolOutput| call_result(CallOutcome::new(tool, Ok(output)));

        let r = ok(&object, ToolOutput::new(json!({"a": 1})));
        assert_eq!(r.structured_content, Some(json!({"a": 1})));
        assert!(r.content.is_empty(), "{:?}", r.content);
        // An echo of its own is the mirror too.
        let r = ok(&number, ToolOutput::new(json!(7)).with_echo("seven"));
        assert_eq!(r.structured_content, Some(json!({"result": 7})));
        assert!(r.content.is_empty(), "{:?}", r.content);
        // A 2026-07-28 client takes the value as it is, and no text either.
        let r = call_result(CallOutcome::modern(&number, Ok(ToolOutput::new(json!(7)))));
        assert_eq!(r.structured_content, Some(json!(7)));
        assert!(r.content.is_empty(), "{:?}", r.content);
        // Media stay.
        let r = ok(
            &object,
            ToolOutput::new(json!({"a": 1})).with_media(Media::image("image/png", vec![1])),
        );
        assert_eq!(r.content.len(), 1);
        assert!(r.content[0].as_image().is_some());

        // Where the structured content does not carry the result, the text does.
        let r = ok(&object, ToolOutput::new(json!([1, 2])));
        assert_eq!(r.structured_content, None);
        assert_eq!(r.content[0].as_text().unwrap().text, "[1,2]");
        let r = ok(&object, ToolOutput::text("no data"));
        assert_eq!(r.content[0].as_text().unwrap().text, "no data");
        let r = ok(&untyped, ToolOutput::new(json!({"a": 1})));
        assert_eq!(r.content[0].as_text().unwrap().text, r#"{"a":1}"#);
        let r = call_result(CallOutcome::new(&object, Err(ToolError::failed("broke"))));
        assert_eq!(r.content[0].as_text().unwrap().text, "broke");

        // A client of a protocol without structured content keeps the text.
        let outcome = |v: Option<ProtocolVersion>| {
            let outcome = CallOutcome::new(&object, Ok(ToolOutput::new(json!({"a": 1}))));
            call_result(outcome.for_client(|| v)).content.len()
        };
        assert_eq!(outcome(Some(ProtocolVersion::V_2025_03_26)), 1);
        assert_eq!(outcome(Some(ProtocolVersion::V_2024_11_05)), 1);
        assert_eq!(outcome(Some(ProtocolVersion::V_2025_06_18)), 0);
        assert_eq!(outcome(Some(ProtocolVersion::V_2026_07_28)), 0);
        assert_eq!(outcome(None), 0);
    }

    #[test]
    fn failures_are_error_results_with_the_kind_in_meta() {
        let r = call_result(CallOutcome::new(
            &tool(None),
            Err(ToolError::invalid_input("`city` is missing")),
        ));
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

    /// What the SDK writes for `outcome` in a session begun with `initialize`, or (with
    /// `modern`) for a 2026-07-28 request, given the result this crate's handler makes.
    fn sdk_bytes(outcome: CallOutcome, modern: Option<&ServerInfo>) -> Vec<u8> {
        let mut result = call_result(outcome);
        if let Some(info) = modern {
            result.meta = Some(info.added_to(result.meta.take()));
        }
        let mut result = ServerResult::from(CallToolResponse::from(result));
        if modern.is_none() {
            result.strip_result_type_for_legacy_peer();
            result.strip_non_object_output_for_legacy_peer();
        }
        serde_json::to_vec(&result).unwrap()
    }

    fn output() -> impl Strategy<Value = ToolOutput> {
        let leaf = json_leaf(".{0,12}".prop_map(String::from));
        let data = json_tree(leaf, "[a-z\\\"\\n]{0,4}", 3, 4);
        (proptest::option::of(data), proptest::option::of(".{0,16}")).prop_map(|(data, echo)| {
            let output = match data {
                Some(data) => ToolOutput::new(data),
                None => ToolOutput::text(""),
            };
            match echo {
                Some(echo) => output.with_echo(echo),
                None => output,
            }
        })
    }

    /// A failure of any kind, with or without a path (`ToolError` is not `Clone`: each side
    /// builds its own).
    type Failure = (u8, String, Option<String>);

    fn failure() -> impl Strategy<Value = Failure> {
        (
            0..3u8,
            ".{0,24}",
            proptest::option::of("[a-z.]{1,8}".prop_map(String::from)),
        )
    }

    fn failed((kind, message, path): &Failure) -> ToolError {
        let error = match kind {
            0 => ToolError::invalid_input(message.clone()),
            1 => ToolError::not_found(message.clone()),
            _ => ToolError::failed(message.clone()),
        };
        match path {
            Some(path) => error.with_path(path.clone()),
            None => error,
        }
    }

    proptest! {
        /// The answer written straight from an outcome is the SDK's, byte for byte, whatever
        /// the data, echo, failure, output schema, mirror and era.
        #[test]
        fn text_results_are_written_as_the_sdk_writes_them(
            result in prop_oneof![output().prop_map(Ok), failure().prop_map(Err)],
            schema in prop_oneof![
                Just(None),
                Just(Some(json!({"type": "object"}))),
                Just(Some(json!({"type": "integer"}))),
                Just(Some(json!({"type": "array", "items": {"type": "string"}}))),
            ],
            modern in any::<bool>(),
            mirror in any::<bool>(),
            name in "[a-z\\\"é]{1,8}",
        ) {
            let info = ServerInfo::new(&rmcp::model::Implementation::new(name, "1.0.0"));
            let modern = modern.then_some(&info);
            let tool = tool_with(schema, mirror);
            let result = || result.clone().map_err(|failure| failed(&failure));
            let outcome = |result| match modern {
                Some(_) => CallOutcome::modern(&tool, result),
                None => CallOutcome::new(&tool, result),
            };
            let ours = outcome(result());
            let mut bytes = Vec::new();
            text_result(&ours).expect("no media").write(&mut bytes, modern).unwrap();
            let sdk = sdk_bytes(outcome(result()), modern);
            prop_assert_eq!(String::from_utf8(bytes).unwrap(), String::from_utf8(sdk).unwrap());
        }
    }

    #[test]
    fn a_link_is_a_resource_link_block() {
        let out = ToolOutput::text("see the file")
            .with_media(Media::link("file:///src/main.rs", "main.rs", "text/x-rust"))
            .with_media(Media::link("https://example.com/r", "report", ""));
        let r = call_result(CallOutcome::new(&tool(None), Ok(out)));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(
            json["content"][1],
            json!({"type": "resource_link", "uri": "file:///src/main.rs", "name": "main.rs",
                   "mimeType": "text/x-rust"})
        );
        assert_eq!(
            json["content"][2],
            json!({"type": "resource_link", "uri": "https://example.com/r", "name": "report"})
        );
    }

    #[test]
    fn outputs_with_media_take_the_sdks_types() {
        let out = ToolOutput::new(json!(1)).with_media(Media::image("image/png", vec![1]));
        assert!(text_result(&CallOutcome::new(&tool(None), Ok(out))).is_none());
    }
}
