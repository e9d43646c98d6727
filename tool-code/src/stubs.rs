//! Tools as Python functions: the names a script calls them by, and the stubs that tell the
//! model how.
//!
//! Every tool is an `async def` with keyword-only parameters, typed from its input schema,
//! with its schema's defaults; its docstring is the tool's description, one line per
//! documented parameter, and the shape of what it returns when the tool declares an output
//! schema. A property whose name is a Python keyword or not an identifier is renamed
//! (`from` -> `from_`, `user-id` -> `user_id`) and renamed back on each call.

use std::fmt::Write as _;

use serde_json::{Map, Value};
use tool_core::registry::Tool;

/// Python's reserved words and soft keywords a parameter or function may not be named.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// How deep a type is spelt out before it becomes `Any` (stubs stay short).
const MAX_TYPE_DEPTH: usize = 3;

/// A Python identifier for `name`: characters outside `[A-Za-z0-9_]` become `_`, a leading
/// digit gets a `_` before it, a keyword a `_` after it.
pub fn python_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// One parameter of a tool's function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Param {
    /// Its name in Python.
    pub python: String,
    /// The property it fills in the tool's input.
    pub property: String,
}

/// The parameters of `tool`'s function, in its schema's order.
pub(crate) fn params(tool: &Tool) -> Vec<Param> {
    properties(tool.input_schema())
        .map(|props| {
            props
                .keys()
                .map(|property| Param {
                    python: python_name(property),
                    property: property.clone(),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

/// The stub of one tool: its `async def` line, docstring and `...` body.
///
/// ```
/// use serde_json::json;
/// use tool_core::{registry::DynamicTool, Registry};
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("get_weather", "Current weather for a city.", json!({
///     "type": "object",
///     "properties": {
///         "city": {"type": "string", "description": "City name"},
///         "units": {"enum": ["c", "f"], "default": "c"}
///     },
///     "required": ["city"]
/// }))).unwrap();
/// let stub = tool_code::stub(registry.get("get_weather").unwrap());
/// assert!(stub.starts_with(
///     "async def get_weather(*, city: str, units: Literal[\"c\", \"f\"] = \"c\"):"
/// ));
/// assert!(stub.contains("city: City name"));
/// ```
pub fn stub(tool: &Tool) -> String {
    let schema = tool.input_schema();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut signature = Vec::new();
    let mut docs = Vec::new();
    if let Some(props) = properties(schema) {
        for (property, prop) in props {
            let name = python_name(property);
            let hint = type_hint(prop, schema, 0);
            let part = match prop.get("default") {
                Some(default) => format!("{name}: {hint} = {}", python_literal(default)),
                None if required.contains(&property.as_str()) => format!("{name}: {hint}"),
                // Left out, a property is absent: the function's `None` stands for that.
                None if hint.split(" | ").any(|h| h == "None") => format!("{name}: {hint} = None"),
                None => format!("{name}: {hint} | None = None"),
            };
            signature.push(part);
            if let Some(text) = prop.get("description").and_then(Value::as_str) {
                docs.push(format!("{name}: {}", one_line(text)));
            }
        }
    }
    // Without an output schema nothing is promised: no annotation, as for any untyped def.
    let returns = tool
        .output_schema()
        .map(|out| format!(" -> {}", type_hint(out, out, 0)))
        .unwrap_or_default();
    let mut out = String::new();
    let params = if signature.is_empty() {
        String::new()
    } else {
        format!("*, {}", signature.join(", "))
    };
    let _ = writeln!(
        out,
        "async def {}({params}){returns}:",
        python_name(tool.name())
    );
    // Compact (every stub is in every request): no blank lines, the quotes closed on the
    // docstring's last line.
    out.push_str("    \"\"\"");
    out.push_str(&docstring_text(tool.description().trim()));
    if !docs.is_empty() {
        out.push_str("\n    Args:");
        for line in docs {
            out.push_str("\n        ");
            out.push_str(&docstring_text(&line));
        }
    }
    if let Some(shape) = tool.output_schema().and_then(|s| shape(s, s, 0)) {
        out.push_str("\n    Returns: ");
        out.push_str(&docstring_text(&shape));
    }
    // A quote right before the closing ones would close the docstring one quote early.
    if out.ends_with('"') {
        out.pop();
        out.push_str("\\\"");
    }
    out.push_str("\"\"\"\n");
    out
}

/// The stubs of `tools`, one after another, headed by what every script can rely on.
pub fn stubs<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> String {
    let mut out = String::new();
    for tool in tools {
        out.push_str(&stub(tool));
        out.push('\n');
    }
    out
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text safe inside a `"""` docstring, its later lines indented under the `def`.
fn docstring_text(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace("\"\"\"", "\\\"\\\"\\\"")
        .replace('\n', "\n    ")
}

/// The schema `#/$defs/...` (or `#/definitions/...`) points to, in `root`.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
        return schema;
    };
    reference
        .strip_prefix('#')
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(schema)
}

/// The Python type hint for a schema.
fn type_hint(schema: &Value, root: &Value, depth: usize) -> String {
    if depth > MAX_TYPE_DEPTH {
        return "Any".to_owned();
    }
    let schema = resolve(schema, root);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return literal_hint(values);
    }
    if let Some(value) = schema.get("const") {
        return literal_hint(std::slice::from_ref(value));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            return union(options.iter().map(|o| type_hint(o, root, depth + 1)));
        }
    }
    match schema.get("type") {
        Some(Value::String(t)) => named_type(t, schema, root, depth),
        Some(Value::Array(types)) => union(
            types
                .iter()
                .filter_map(Value::as_str)
                .map(|t| named_type(t, schema, root, depth)),
        ),
        _ => "Any".to_owned(),
    }
}

fn named_type(t: &str, schema: &Value, root: &Value, depth: usize) -> String {
    match t {
        "string" => "str".to_owned(),
        "integer" => "int".to_owned(),
        "number" => "float".to_owned(),
        "boolean" => "bool".to_owned(),
        "null" => "None".to_owned(),
        "array" => match schema.get("items") {
            Some(items) => format!("list[{}]", type_hint(items, root, depth + 1)),
            None => "list".to_owned(),
        },
        "object" => match schema.get("additionalProperties") {
            Some(extra @ Value::Object(_)) if properties(schema).is_none() => {
                format!("dict[str, {}]", type_hint(extra, root, depth + 1))
            }
            _ => "dict".to_owned(),
        },
        _ => "Any".to_owned(),
    }
}

fn union(hints: impl Iterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for hint in hints {
        if !seen.contains(&hint) {
            seen.push(hint);
        }
    }
    if seen.iter().any(|h| h == "Any") {
        return "Any".to_owned();
    }
    seen.join(" | ")
}

fn literal_hint(values: &[Value]) -> String {
    if values
        .iter()
        .all(|v| v.is_string() || v.is_i64() || v.is_boolean() || v.is_null())
    {
        let parts: Vec<String> = values.iter().map(python_literal).collect();
        format!("Literal[{}]", parts.join(", "))
    } else {
        "Any".to_owned()
    }
}

/// The Python literal for a JSON value.
pub(crate) fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        // JSON's string escapes (`\"`, `\\`, `\n`, `\uXXXX`) mean the same in Python.
        Value::Number(_) | Value::String(_) => value.to_string(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(python_literal).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), python_literal(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// What an object schema's value looks like, `{name: str, tags: list[str]}`, for the
/// docstring; `None` when the type hint already says it all.
fn shape(schema: &Value, root: &Value, depth: usize) -> Option<String> {
    let schema = resolve(schema, root);
    if let Some(props) = properties(schema) {
        if depth > 1 {
            return Some("dict".to_owned());
        }
        let fields: Vec<String> = props
            .iter()
            .map(|(name, prop)| {
                let hint = shape(prop, root, depth + 1)
                    .unwrap_or_else(|| type_hint(prop, root, depth + 1));
                format!("{name}: {hint}")
            })
            .collect();
        return Some(format!("{{{}}}", fields.join(", ")));
    }
    if schema.get("type").and_then(Value::as_str) == Some("array") {
        let items = schema.get("items")?;
        return shape(items, root, depth).map(|s| format!("list[{s}]"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tool_core::{Registry, registry::DynamicTool};

    fn tool(input: Value, output: Option<Value>) -> Tool {
        let mut registry = Registry::empty();
        let mut def = DynamicTool::new("find_items", "Finds items.\nBest first.", input);
        if let Some(output) = output {
            def = def.output_schema(output);
        }
        registry.register(def).unwrap();
        registry.get("find_items").unwrap().clone()
    }

    #[test]
    fn names_are_identifiers() {
        assert_eq!(python_name("get_weather"), "get_weather");
        assert_eq!(python_name("github.create-issue"), "github_create_issue");
        assert_eq!(python_name("from"), "from_");
        assert_eq!(python_name("3d_view"), "_3d_view");
        assert_eq!(python_name(""), "_");
    }

    #[test]
    fn a_stub_types_every_parameter_and_the_result() {
        let t = tool(
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to find"},
                    "limit": {"type": "integer", "default": 5},
                    "from": {"type": ["string", "null"]},
                    "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}},
                    "exact": {"type": "boolean", "default": false}
                },
                "required": ["query"],
                "$defs": {"Tag": {"enum": ["a", "b"]}}
            }),
            Some(json!({
                "type": "object",
                "properties": {
                    "items": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}
                    }},
                    "more": {"type": "boolean"}
                }
            })),
        );
        let stub = stub(&t);
        assert_eq!(
            stub,
            "async def find_items(*, query: str, limit: int = 5, from_: str | None = None, \
             tags: list[Literal[\"a\", \"b\"]] | None = None, exact: bool = False) -> dict:\n    \
             \"\"\"Finds items.\n    Best first.\n    Args:\n        query: What to find\n    \
             Returns: {items: list[{id: int, title: str}], more: bool}\"\"\"\n"
        );
        assert_eq!(
            params(&t)
                .iter()
                .map(|p| p.python.as_str())
                .collect::<Vec<_>>(),
            ["query", "limit", "from_", "tags", "exact"]
        );
    }

    #[test]
    fn a_docstring_cannot_be_closed_early() {
        let t = tool(json!({"type": "object"}), None);
        let mut registry = Registry::empty();
        registry
            .register(DynamicTool::new(
                "say_it",
                "Ends with \"\"\" and a \\ backslash.",
                json!({"type": "object"}),
            ))
            .unwrap();
        let stub = stub(registry.get("say_it").unwrap());
        assert!(
            stub.contains(r#"Ends with \"\"\" and a \\ backslash."#),
            "{stub}"
        );
        assert!(super::stub(&t).starts_with("async def find_items():"));
        registry
            .register(DynamicTool::new(
                "quote_it",
                "Says \"now\"",
                json!({"type": "object"}),
            ))
            .unwrap();
        let stub = super::stub(registry.get("quote_it").unwrap());
        assert_eq!(
            stub, "async def quote_it():\n    \"\"\"Says \"now\\\"\"\"\"\n",
            "the last quote is escaped"
        );
    }
}
