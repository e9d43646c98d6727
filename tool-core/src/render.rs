//! Tool definitions in each provider's format, rendered from the one canonical definition.
//!
//! ```
//! use tool_core::render::{Format, RenderOptions, render};
//! use tool_core::{DynamicTool, Registry};
//! let mut registry = Registry::empty();
//! registry.register(DynamicTool::new("get_time", "Returns the time.", serde_json::json!({
//!     "type": "object", "properties": {"zone": {"type": "string"}}
//! }))).unwrap();
//! let tool = registry.get("get_time").unwrap();
//! let openai = render(tool, Format::OpenAi, RenderOptions { strict: true });
//! assert_eq!(openai.definition["function"]["parameters"]["required"], serde_json::json!(["zone"]));
//! assert!(openai.issues.is_empty());
//! ```

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value, json};

use crate::Tool;
use crate::schema::{self, Issue, McpSchema, Severity, StrictTarget};

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
pub struct RenderOptions {
    /// Use the provider's strict mode where it has one.
    pub strict: bool,
}

/// One rendered definition and what rendering found.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The definition, in the target's format.
    pub definition: Value,
    /// Problems of the input schema for this target (see [`crate::check`] for all rules).
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

/// The tags protocol's system-prompt section for `tools` (see [`crate::protocol`]).
pub use crate::protocol::prompt_docs;

/// Renders a set of tools as the array a request carries. For Anthropic, deferred tools get
/// `defer_loading` and the array gains the tool-search tool that finds them.
pub fn render_all<'a>(
    tools: impl IntoIterator<Item = &'a Tool>,
    format: Format,
    options: RenderOptions,
) -> Value {
    let mut any_deferred = false;
    let mut out: Vec<Value> = tools
        .into_iter()
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

/// The MCP `Tool` object: every annotation hint explicit; domain, hint and label in `_meta`;
/// the schemas in their MCP form ([`McpSchema`]: standard formats only, no `null` that means
/// nothing, no type arrays).
pub fn mcp(tool: &Tool) -> Value {
    let a = tool.annotations();
    let mut def = Map::new();
    def.insert("name".into(), tool.name().into());
    def.insert("title".into(), tool.label().into());
    def.insert("description".into(), tool.description().into());
    def.insert(
        "inputSchema".into(),
        McpSchema::input(tool.input_schema()).to_value(),
    );
    if let Some(output) = tool.output_schema() {
        def.insert("outputSchema".into(), mcp_output_schema(output));
    }
    def.insert(
        "annotations".into(),
        json!({
            "title": tool.label(),
            "readOnlyHint": a.read_only,
            "destructiveHint": a.destructive,
            "idempotentHint": a.idempotent,
            "openWorldHint": a.open_world,
        }),
    );
    def.insert("_meta".into(), Value::Object(mcp_meta(tool)));
    Value::Object(def)
}

/// What MCP's `_meta` carries of a tool: the catalog's domain, hint, label and `core` flag
/// (part of [`mcp`]'s definition, for adapters that write the definition field by field).
pub fn mcp_meta(tool: &Tool) -> Map<String, Value> {
    let mut meta = Map::with_capacity(4);
    meta.insert(
        "tool-core/domain".into(),
        tool.domain().name.as_ref().into(),
    );
    meta.insert("tool-core/hint".into(), tool.hint().into());
    meta.insert("tool-core/label".into(), tool.label().into());
    meta.insert("tool-core/core".into(), tool.is_core().into());
    meta
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
    use crate::{DynamicTool, Registry};

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
