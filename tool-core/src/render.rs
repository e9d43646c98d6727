//! Tool definitions in each provider's format, rendered from the one canonical definition.
//!
//! ```
//! use tool_core::render::{Format, RenderOptions, render};
//! use tool_core::{registry::DynamicTool, Registry};
//! let mut registry = Registry::empty();
//! registry.register(DynamicTool::new("get_time", "Returns the time.", serde_json::json!({
//!     "type": "object", "properties": {"zone": {"type": "string"}}
//! }))).unwrap();
//! let tool = registry.get("get_time").unwrap();
//! let openai = render(tool, Format::OpenAi, RenderOptions::default().strict(true));
//! assert_eq!(openai.definition["function"]["parameters"]["required"], serde_json::json!(["zone"]));
//! assert!(openai.issues.is_empty());
//! ```

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde::ser::{SerializeMap as _, Serializer};
use serde_json::{Map, Value, json};

use crate::definition::TaskSupport;
use crate::{registry::Tool, registry::ToolIcon};

use crate::definition::schema::{self, Issue, McpSchema, Severity, StrictTarget};

/// A target format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// OpenAI Chat Completions: `{"type":"function","function":{...}}`.
    OpenAi,
    /// OpenAI Responses: the flat `{"type":"function","name":...}` form.
    OpenAiResponses,
    /// Anthropic Messages: `{name, description, input_schema}`.
    Anthropic,
    /// Google Gemini with `parametersJsonSchema` (JSON Schema subset).
    Gemini,
    /// Google Gemini with `parameters` (OpenAPI 3.0 subset).
    GeminiOpenApi,
    /// An MCP `Tool` object.
    Mcp,
}

impl Format {
    /// Every format, in a stable order.
    pub const ALL: [Format; 6] = [
        Format::OpenAi,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::GeminiOpenApi,
        Format::Mcp,
    ];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::OpenAiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::GeminiOpenApi => "gemini-openapi",
            Self::Mcp => "mcp",
        }
    }

    /// Whether the format has a strict mode.
    pub fn has_strict(self) -> bool {
        matches!(self, Self::OpenAi | Self::OpenAiResponses | Self::Anthropic)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name that is not one of [`Format::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown format `{0}`; expected one of: openai, openai-responses, anthropic, gemini, gemini-openapi, mcp"
)]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

/// How to render.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderOptions {
    /// Use the provider's strict mode where it has one.
    pub strict: bool,
}

/// Builders: set one field each, the others kept (the struct is `#[non_exhaustive]`, so a
/// literal cannot be written outside this crate).
impl RenderOptions {
    /// Sets `strict`: use the provider's strict mode where it has one.
    #[must_use]
    pub const fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }
}

/// One rendered definition and what rendering found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Rendered {
    /// The definition, in the target's format.
    pub definition: Value,
    /// Problems of the input schema for this target (see [`crate::definition::check`] for all rules).
    pub issues: Vec<Issue>,
}

/// The tool Anthropic needs beside deferred tools so the model can find them.
pub const ANTHROPIC_TOOL_SEARCH: &str = "tool_search_tool_bm25_20251119";

/// Renders one tool.
pub fn render(tool: &Tool, format: Format, options: RenderOptions) -> Rendered {
    let strict = options.strict && format.has_strict();
    let input = tool.input_schema();
    let (parameters, issues) = match format {
        Format::OpenAi | Format::OpenAiResponses if strict => {
            let r = schema::strict(input, StrictTarget::OpenAi);
            (r.schema, r.issues)
        }
        Format::Anthropic if strict => {
            let r = schema::strict(input, StrictTarget::Anthropic);
            (r.schema, r.issues)
        }
        Format::Gemini => {
            let r = schema::gemini_json_schema(input);
            (r.schema, r.issues)
        }
        Format::GeminiOpenApi => {
            let r = schema::gemini_openapi(input);
            (r.schema, r.issues)
        }
        Format::Mcp => (
            input.clone(),
            root_variants(input, Severity::Warning, "some MCP clients"),
        ),
        Format::OpenAi | Format::OpenAiResponses => (
            loose(input),
            root_variants(input, Severity::Error, "OpenAI"),
        ),
        Format::Anthropic => (
            loose(input),
            root_variants(input, Severity::Error, "Anthropic"),
        ),
    };
    let definition = match format {
        Format::OpenAi => json!({
            "type": "function",
            "function": {
                "name": tool.name(),
                "description": tool.description(),
                "parameters": parameters,
                "strict": strict,
            }
        }),
        Format::OpenAiResponses => json!({
            "type": "function",
            "name": tool.name(),
            "description": tool.description(),
            "parameters": parameters,
            "strict": strict,
        }),
        Format::Anthropic => anthropic(tool, parameters, strict),
        Format::Gemini | Format::GeminiOpenApi => gemini(tool, parameters, format),
        Format::Mcp => mcp(tool),
    };
    Rendered { definition, issues }
}

/// The stylesheet of a tool call's card (`.card`, its `running`, `ok`, `error` and `asking`
/// states, label, tool, input, progress, logs and result): the one design of the presence
/// page's cards and of the card an MCP Apps host renders as a tool's view.
pub const CARD_CSS: &str = include_str!("card.css");

/// Renders a set of tools as the array a request carries. For Anthropic, deferred tools get
/// `defer_loading` and the array gains the tool-search tool that finds them. A provider's
/// array leaves out the tools for views only ([`Tool::to_model`]); MCP's keeps them, as its
/// server lists them to a client that renders views.
pub fn render_all<'a>(
    tools: impl IntoIterator<Item = &'a Tool>,
    format: Format,
    options: RenderOptions,
) -> Value {
    let mut any_deferred = false;
    let mut out: Vec<Value> = tools
        .into_iter()
        .filter(|t| format == Format::Mcp || t.to_model())
        .map(|t| {
            any_deferred |= !t.is_core();
            render(t, format, options).definition
        })
        .collect();
    if format == Format::Anthropic && any_deferred {
        out.push(json!({"type": ANTHROPIC_TOOL_SEARCH, "name": "tool_search_tool_bm25"}));
    }
    Value::Array(out)
}

/// Providers refuse `oneOf`/`anyOf`/`allOf` at the root of a tool's input schema.
fn root_variants(input: &Value, severity: Severity, who: &str) -> Vec<Issue> {
    ["oneOf", "anyOf", "allOf"]
        .iter()
        .filter(|k| input.get(**k).is_some())
        .map(|k| Issue {
            severity,
            pointer: String::new(),
            keyword: (*k).to_owned(),
            message: format!("{who} refuse `{k}` at the root of a tool's input schema"),
            fix: "wrap the enum in a struct field (e.g. an `#[input]` struct with a `kind` field)"
                .to_owned(),
        })
        .collect()
}

/// The schema as it is, less what a provider's non-strict mode has no use for.
fn loose(input: &Value) -> Value {
    let mut schema = input.clone();
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
        map.remove("title");
    }
    schema
}

fn anthropic(tool: &Tool, input_schema: Value, strict: bool) -> Value {
    let mut def = Map::new();
    def.insert("name".into(), tool.name().into());
    def.insert("description".into(), tool.description().into());
    if strict {
        def.insert("strict".into(), true.into());
    }
    // Strict mode keeps optional fields optional for Anthropic, so examples stay as written.
    let examples: Vec<Value> = tool.examples().iter().map(|ex| ex.input.clone()).collect();
    def.insert("input_schema".into(), input_schema);
    if !examples.is_empty() {
        def.insert("input_examples".into(), examples.into());
    }
    if !tool.is_core() {
        def.insert("defer_loading".into(), true.into());
    }
    Value::Object(def)
}

fn gemini(tool: &Tool, parameters: Value, format: Format) -> Value {
    let mut def = Map::new();
    def.insert("name".into(), tool.name().into());
    def.insert("description".into(), tool.description().into());
    // Gemini refuses an OBJECT without properties: a tool without parameters has none at all.
    let has_params = parameters
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(|p| !p.is_empty());
    if has_params {
        let key = match format {
            Format::GeminiOpenApi => "parameters",
            _ => "parametersJsonSchema",
        };
        def.insert(key.into(), parameters);
    }
    Value::Object(def)
}

/// The MCP `Tool` object: every annotation hint explicit; the icons that meet the icon rule
/// ([`mcp_icons`]), when there are any; domain, hint and label in `_meta`; the schemas in their
/// MCP form ([`McpSchema`]: standard formats only, no `null` that means nothing, no type
/// arrays). The other formats carry no icons: they are for people, and no model reads them.
///
/// ```
/// use tool_core::render::{Format, RenderOptions, mcp, render};
/// use tool_core::{registry::DynamicTool, Registry, registry::ToolIcon};
/// let mut registry = Registry::empty();
/// registry.register(
///     DynamicTool::new("get_time", "Returns the time.", serde_json::json!({"type": "object"}))
///         .icon(ToolIcon::new("https://example.com/clock.png").mime_type("image/png").sizes(["48x48"]))
///         .icon(ToolIcon::new("clock.png")), // not a URL: left out (and reported by `check`)
/// ).unwrap();
/// let tool = registry.get("get_time").unwrap();
/// assert_eq!(
///     mcp(tool)["icons"],
///     serde_json::json!([{"src": "https://example.com/clock.png", "mimeType": "image/png", "sizes": ["48x48"]}]),
/// );
/// let openai = render(tool, Format::OpenAi, RenderOptions::default()).definition;
/// assert!(!openai.to_string().contains("clock"));
/// ```
pub fn mcp(tool: &Tool) -> Value {
    // Serializing into a value cannot fail: every key is a string.
    serde_json::to_value(McpTool::new(tool)).unwrap_or(Value::Null)
}

/// A tool's MCP `Tool` object as a borrowed view: serializing it writes the object, in the
/// order of the official SDKs' types, straight from the registry's tool (the input schema's MCP
/// form made as it is written, nothing copied). It is the one encoding of the object: [`mcp`]
/// is it as a value, and an MCP server's listing writes it, or builds its SDK's type from its
/// parts.
///
/// ```
/// use tool_core::render::{McpTool, mcp};
/// use tool_core::{registry::DynamicTool, Registry};
/// let mut registry = Registry::empty();
/// registry.register(
///     DynamicTool::new("get_time", "Returns the time.", serde_json::json!({"type": "object"}))
///         .output_schema(serde_json::json!({"type": "string"})),
/// ).unwrap();
/// let tool = registry.get("get_time").unwrap();
/// let written = serde_json::to_string(&McpTool::new(tool)).unwrap();
/// assert_eq!(written, mcp(tool).to_string());
/// // A non-object output is described as `{"result": ...}`, unless the client takes any.
/// assert_eq!(mcp(tool)["outputSchema"]["properties"]["result"]["type"], "string");
/// let any = serde_json::to_value(McpTool::new(tool).any_output(true)).unwrap();
/// assert_eq!(any["outputSchema"]["type"], "string");
/// ```
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpTool<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// Its label, as MCP's `title`.
    pub title: &'a str,
    /// Its description.
    pub description: &'a str,
    /// The input schema in its MCP form.
    pub input_schema: McpSchema<'a>,
    /// The output schema in its MCP form, when there is one MCP can carry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<McpOutput<'a>>,
    /// Every behaviour hint, explicit.
    pub annotations: McpAnnotations<'a>,
    /// The icons that meet the icon rule; left out when there are none.
    #[serde(skip_serializing_if = "McpIcons::is_empty")]
    pub icons: McpIcons<'a>,
    /// What [`mcp_meta`] says of the tool.
    #[serde(rename = "_meta")]
    pub meta: McpMeta<'a>,
}

impl<'a> McpTool<'a> {
    /// The object every client takes: an output that is not an object described as
    /// `{"result": ...}` ([`mcp_output_schema`]).
    pub fn new(tool: &'a Tool) -> Self {
        let a = tool.annotations();
        Self {
            name: tool.name(),
            title: tool.label(),
            description: tool.description(),
            input_schema: McpSchema::input(tool.input_schema()),
            output_schema: tool.output_schema().map(|schema| McpOutput {
                schema,
                wrapped: mcp_wraps_output(schema),
            }),
            annotations: McpAnnotations {
                title: tool.label(),
                read_only_hint: a.read_only,
                destructive_hint: a.destructive,
                idempotent_hint: a.idempotent,
                open_world_hint: a.open_world,
            },
            icons: McpIcons(tool),
            meta: McpMeta(tool),
        }
    }

    /// With `any` set, for a client that takes any output schema (protocol 2026-07-28): the
    /// output's MCP form as it is, left out when it is not an object.
    pub fn any_output(mut self, any: bool) -> Self {
        if any {
            self.output_schema = self
                .output_schema
                .filter(|o| o.schema.is_object())
                .map(|o| McpOutput {
                    wrapped: false,
                    ..o
                });
        }
        self
    }
}

/// An output schema in an [`McpTool`]: its MCP form ([`McpSchema::output`]), or, `wrapped`,
/// that form described as `{"result": ...}` ([`mcp_output_schema`]).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct McpOutput<'a> {
    /// The canonical output schema.
    pub schema: &'a Value,
    /// Whether it is written as `{"result": ...}`.
    pub wrapped: bool,
}

impl McpOutput<'_> {
    /// The schema as written, as a value.
    pub fn to_value(&self) -> Value {
        if self.wrapped {
            mcp_output_schema(self.schema)
        } else {
            McpSchema::output(self.schema).to_value()
        }
    }
}

impl Serialize for McpOutput<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.wrapped {
            // Built per tool and dropped at once: the wrapping moves `$defs` out of the schema.
            mcp_output_schema(self.schema).serialize(serializer)
        } else {
            McpSchema::output(self.schema).serialize(serializer)
        }
    }
}

/// The behaviour hints in an [`McpTool`] (MCP's `ToolAnnotations`), every one explicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpAnnotations<'a> {
    /// The tool's label.
    pub title: &'a str,
    /// [`Annotations::read_only`](crate::definition::Annotations::read_only).
    pub read_only_hint: bool,
    /// [`Annotations::destructive`](crate::definition::Annotations::destructive).
    pub destructive_hint: bool,
    /// [`Annotations::idempotent`](crate::definition::Annotations::idempotent).
    pub idempotent_hint: bool,
    /// [`Annotations::open_world`](crate::definition::Annotations::open_world).
    pub open_world_hint: bool,
}

/// The icons in an [`McpTool`]: [`mcp_icons`], each as an [`McpIcon`].
#[derive(Debug, Clone, Copy)]
pub struct McpIcons<'a>(pub &'a Tool);

impl McpIcons<'_> {
    /// Whether no icon meets the rule (the object then has no `icons`).
    pub fn is_empty(&self) -> bool {
        mcp_icons(self.0).next().is_none()
    }
}

impl Serialize for McpIcons<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(mcp_icons(self.0).map(McpIcon))
    }
}

/// The `_meta` of an [`McpTool`], as [`mcp_meta`] describes it.
#[derive(Debug, Clone, Copy)]
pub struct McpMeta<'a>(pub &'a Tool);

impl Serialize for McpMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tool = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("tool-core/domain", tool.domain().name.as_ref())?;
        map.serialize_entry("tool-core/hint", tool.hint())?;
        map.serialize_entry("tool-core/label", tool.label())?;
        map.serialize_entry("tool-core/core", &tool.is_core())?;
        if !tool.mirror() {
            map.serialize_entry("tool-core/mirror", &false)?;
        }
        match tool.task_support() {
            TaskSupport::Forbidden => {}
            TaskSupport::Optional => map.serialize_entry("tool-core/task", &true)?,
            support => map.serialize_entry("tool-core/task", support.as_str())?,
        }
        if let Some(approval) = tool.approval() {
            match approval.message() {
                Some(message) => map.serialize_entry("tool-core/approval", message)?,
                None => map.serialize_entry("tool-core/approval", &true)?,
            }
        }
        map.end()
    }
}

/// The icons an MCP rendering carries: the tool's icons that meet the icon rule
/// ([`ToolIcon::is_valid`]), in order. An icon that breaks it is left out (a client could
/// refuse the whole listing for it), and [`check`](crate::definition::check) reports it.
pub fn mcp_icons(tool: &Tool) -> impl Iterator<Item = &ToolIcon> {
    tool.icons().iter().filter(|icon| icon.is_valid())
}

/// An icon as MCP's `Icon` object: `src`, `mimeType`, `sizes` and `theme`, in that order (the
/// order of the official SDKs' types), each part that is absent left out.
///
/// ```
/// use tool_core::registry::ToolIcon;
/// use tool_core::render::McpIcon;
/// let icon = ToolIcon::new("https://example.com/a.svg").mime_type("image/svg+xml").theme("dark");
/// assert_eq!(
///     serde_json::to_string(&McpIcon(&icon)).unwrap(),
///     r#"{"src":"https://example.com/a.svg","mimeType":"image/svg+xml","theme":"dark"}"#,
/// );
/// ```
#[derive(Debug, Clone, Copy)]
pub struct McpIcon<'a>(pub &'a ToolIcon);

impl Serialize for McpIcon<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let icon = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("src", &icon.src)?;
        if let Some(mime_type) = &icon.mime_type {
            map.serialize_entry("mimeType", mime_type)?;
        }
        if !icon.sizes.is_empty() {
            map.serialize_entry("sizes", &icon.sizes)?;
        }
        if let Some(theme) = &icon.theme {
            map.serialize_entry("theme", theme)?;
        }
        map.end()
    }
}

/// What MCP's `_meta` carries of a tool: the catalog's domain, hint, label and `core` flag, and
/// `"tool-core/mirror": false` for a tool whose results leave out their text mirror
/// ([`Tool::mirror`]), `"tool-core/task": true` for a tool a call to which may be answered
/// with a task ([`Tool::task`]), and `"tool-core/approval"` (`true`, or the message) for a tool
/// whose calls need a person's yes ([`Tool::approval`]); part of [`mcp`]'s definition, for
/// adapters that write the definition field by field.
pub fn mcp_meta(tool: &Tool) -> Map<String, Value> {
    match serde_json::to_value(McpMeta(tool)) {
        Ok(Value::Object(meta)) => meta,
        _ => Map::new(),
    }
}

/// Whether MCP describes (and sends) this output as `{"result": ...}`: it is not an object.
pub fn mcp_wraps_output(output: &Value) -> bool {
    output.get("type").and_then(Value::as_str) != Some("object")
}

/// The output schema in its MCP form ([`McpSchema::output`]). MCP requires an object output
/// schema: other outputs are described as `{"result": ...}`, the shape `structuredContent`
/// takes for them.
pub fn mcp_output_schema(output: &Value) -> Value {
    let mut inner = McpSchema::output(output).to_value();
    if !mcp_wraps_output(output) {
        return inner;
    }
    let mut defs = None;
    if let Value::Object(map) = &mut inner {
        map.remove("$schema");
        defs = map.remove("$defs");
    }
    // Built by hand: `json!` would copy `inner` again through `Serialize`.
    let mut wrapped = Map::with_capacity(5);
    wrapped.insert("$schema".into(), schema::DIALECT.into());
    wrapped.insert("type".into(), "object".into());
    let mut properties = Map::with_capacity(1);
    properties.insert("result".into(), inner);
    wrapped.insert("properties".into(), Value::Object(properties));
    wrapped.insert("required".into(), Value::Array(vec!["result".into()]));
    if let Some(defs) = defs {
        wrapped.insert("$defs".into(), defs);
    }
    Value::Object(wrapped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Registry, registry::DynamicTool, registry::ToolIcon};

    fn registry() -> Registry {
        let mut r = Registry::empty();
        r.register(
            DynamicTool::new(
                "get_weather",
                "Returns the weather.",
                json!({"$schema": schema::DIALECT, "type": "object",
                    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "default": 3}},
                    "required": ["city"], "additionalProperties": false}),
            )
            .domain("weather", "Weather")
            .label("Checking the weather")
            .hint("Weather for a city")
            .example("Paris", json!({"city": "Paris"}))
            .output_schema(json!({"type": "string"})),
        )
        .unwrap();
        r.register(
            DynamicTool::new(
                "list_cities",
                "Lists cities.",
                json!({"type": "object", "properties": {}}),
            )
            .core(true),
        )
        .unwrap();
        r
    }

    #[test]
    fn formats_parse_and_print() {
        for f in Format::ALL {
            assert_eq!(f.as_str().parse::<Format>().unwrap(), f);
        }
        assert!(
            "claude"
                .parse::<Format>()
                .unwrap_err()
                .to_string()
                .contains("anthropic")
        );
    }

    #[test]
    fn openai_shapes() {
        let r = registry();
        let t = r.get("get_weather").unwrap();
        let chat = render(t, Format::OpenAi, RenderOptions::default()).definition;
        assert_eq!(chat["type"], "function");
        assert_eq!(chat["function"]["name"], "get_weather");
        assert_eq!(chat["function"]["strict"], false);
        assert!(chat["function"]["parameters"].get("$schema").is_none());
        let flat = render(t, Format::OpenAiResponses, RenderOptions { strict: true }).definition;
        assert_eq!(flat["name"], "get_weather");
        assert_eq!(flat["strict"], true);
        assert_eq!(flat["parameters"]["required"], json!(["city", "days"]));
    }

    #[test]
    fn anthropic_defers_and_keeps_examples_in_strict_mode() {
        let r = registry();
        let all = render_all(r.tools(), Format::Anthropic, RenderOptions { strict: true });
        let all = all.as_array().unwrap();
        let weather = all.iter().find(|d| d["name"] == "get_weather").unwrap();
        assert_eq!(weather["defer_loading"], true);
        assert_eq!(weather["strict"], true);
        assert_eq!(weather["input_examples"], json!([{"city": "Paris"}]));
        assert_eq!(weather["input_schema"]["required"], json!(["city"]));
        let cities = all.iter().find(|d| d["name"] == "list_cities").unwrap();
        assert!(
            cities.get("defer_loading").is_none(),
            "core tools are never deferred"
        );
        assert_eq!(all.last().unwrap()["type"], ANTHROPIC_TOOL_SEARCH);
    }

    #[test]
    fn gemini_uses_one_channel_and_omits_empty_parameters() {
        let r = registry();
        let t = r.get("get_weather").unwrap();
        let js = render(t, Format::Gemini, RenderOptions::default()).definition;
        assert!(js.get("parametersJsonSchema").is_some() && js.get("parameters").is_none());
        let oa = render(t, Format::GeminiOpenApi, RenderOptions::default()).definition;
        assert!(oa.get("parameters").is_some() && oa.get("parametersJsonSchema").is_none());
        assert_eq!(oa["parameters"]["type"], "OBJECT");
        let none = render(
            r.get("list_cities").unwrap(),
            Format::GeminiOpenApi,
            RenderOptions::default(),
        );
        assert!(none.definition.get("parameters").is_none());
    }

    #[test]
    fn only_mcp_carries_icons_and_only_those_that_meet_the_rule() {
        let mut r = Registry::empty();
        r.register(
            DynamicTool::new("get_time", "Returns the time.", json!({"type": "object"}))
                .icon(ToolIcon::new("https://example.com/clock.png"))
                .icon(ToolIcon::new("https://example.com/clock.svg").theme("blue"))
                .icon(
                    ToolIcon::new("data:image/png;base64,iVBORw0KGgo=")
                        .mime_type("image/png")
                        .sizes(["16x16", "any"])
                        .theme("dark"),
                ),
        )
        .unwrap();
        r.register(DynamicTool::new(
            "list_zones",
            "Lists zones.",
            json!({"type": "object"}),
        ))
        .unwrap();
        let t = r.get("get_time").unwrap();
        assert_eq!(
            mcp(t)["icons"],
            json!([
                {"src": "https://example.com/clock.png"},
                {"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png", "sizes": ["16x16", "any"], "theme": "dark"},
            ])
        );
        assert_eq!(t.icons().len(), 3, "the tool keeps them as given");
        for format in Format::ALL.into_iter().filter(|f| *f != Format::Mcp) {
            for strict in [false, true] {
                let d = render(t, format, RenderOptions { strict }).definition;
                assert!(!d.to_string().contains("example.com"), "{format}: {d}");
            }
        }
        assert!(mcp(r.get("list_zones").unwrap()).get("icons").is_none());
    }

    #[test]
    fn mcp_meta_says_when_the_mirror_is_off() {
        let mut r = Registry::empty();
        r.register(
            DynamicTool::new("get_stats", "Returns stats.", json!({"type": "object"}))
                .output_schema(json!({"type": "object"}))
                .mirror(false),
        )
        .unwrap();
        let d = mcp(r.get("get_stats").unwrap());
        assert_eq!(d["_meta"]["tool-core/mirror"], false);
        let on = mcp(registry().get("get_weather").unwrap());
        assert!(on["_meta"].get("tool-core/mirror").is_none(), "{on}");
    }

    #[test]
    fn mcp_meta_says_when_the_tool_may_be_a_task() {
        let mut r = Registry::empty();
        r.register(
            DynamicTool::new(
                "export_report",
                "Returns the report.",
                json!({"type": "object"}),
            )
            .task(true),
        )
        .unwrap();
        let d = mcp(r.get("export_report").unwrap());
        assert_eq!(d["_meta"]["tool-core/task"], true);
        assert_eq!(
            mcp_meta(r.get("export_report").unwrap())["tool-core/task"],
            true
        );
        // Not a task: the key is left out, not written `false`.
        let plain = mcp(registry().get("get_weather").unwrap());
        assert!(plain["_meta"].get("tool-core/task").is_none(), "{plain}");
    }

    #[test]
    fn mcp_has_every_hint_and_wraps_non_object_outputs() {
        let r = registry();
        let d = mcp(r.get("get_weather").unwrap());
        assert_eq!(d["title"], "Checking the weather");
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(d["annotations"][hint].is_boolean(), "{hint}");
        }
        assert_eq!(d["_meta"]["tool-core/domain"], "weather");
        assert_eq!(d["outputSchema"]["properties"]["result"]["type"], "string");
        assert_eq!(d["inputSchema"]["$schema"], schema::DIALECT);
    }
}
