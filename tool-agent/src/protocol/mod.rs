//! The text tag protocol, for models without native tool calling: tools are documented in the
//! system prompt ([`prompt_docs`]), the model writes calls as tags in its text
//! (`<get_weather city="Paris"/>`), a streaming [`TagParser`] finds them in the text as it
//! arrives, [`TagCall::to_input`] maps attributes, child tags and the body onto the tool's
//! input schema, and [`result_tag`] writes each result back as a compact tag.

mod parser;

use serde_json::{Map, Value};

pub use parser::{Event, TagCall, TagError, TagParser};

use tool_core::exec::CallResult;
use tool_core::{ToolError, registry::Tool};

impl TagCall {
    /// The call's input for `tool`: attributes and child tags by parameter name, each read as
    /// its schema type says (`"3"` is a number for an integer parameter; arrays and objects are
    /// JSON), and the body as the tool's body parameter. Every problem is an input error naming
    /// the parameter.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_agent::protocol::TagParser;
    /// use tool_core::{registry::DynamicTool, Registry};
    /// let mut registry = Registry::empty();
    /// registry.register(DynamicTool::new("write_file", "Writes a file.", json!({
    ///     "type": "object",
    ///     "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "append": {"type": "boolean"}},
    ///     "required": ["path", "content"]
    /// })).body("content")).unwrap();
    /// let mut parser = TagParser::new(["write_file"]);
    /// let events = parser.feed(r#"<write_file path="a.md" append="true">Hello</write_file>"#);
    /// let tool_agent::protocol::Event::Call(call) = &events[0] else { unreachable!() };
    /// let input = call.to_input(registry.get("write_file").unwrap()).unwrap();
    /// assert_eq!(input, json!({"path": "a.md", "append": true, "content": "Hello"}));
    /// ```
    pub fn to_input(&self, tool: &Tool) -> Result<Value, ToolError> {
        let schema = tool.input_schema();
        let properties = schema.get("properties").and_then(Value::as_object);
        let known = |key: &str| properties.and_then(|p| p.get(key));
        let mut input = Map::new();
        for (key, text) in self.attrs.iter().chain(&self.children) {
            let Some(prop) = known(key) else {
                let names: Vec<&str> = properties
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                return Err(ToolError::invalid_input(format!(
                    "`{}` has no parameter `{key}`; its parameters are: {}",
                    self.name,
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ))
                .with_path(key.clone()));
            };
            if input.contains_key(key) {
                return Err(ToolError::invalid_input(format!(
                    "`{key}` is given twice; give each parameter once"
                ))
                .with_path(key.clone()));
            }
            input.insert(key.clone(), typed(key, text, prop)?);
        }
        if let Some(body) = &self.body {
            let Some(target) = body_parameter(tool) else {
                return Err(ToolError::invalid_input(format!(
                    "`{}` takes no text between its tags; pass its parameters as attributes, \
                     e.g. <{} name=\"value\"/>",
                    self.name, self.name
                )));
            };
            if input.contains_key(&target) {
                return Err(ToolError::invalid_input(format!(
                    "`{target}` is given both as the body and as a parameter; give it once"
                ))
                .with_path(target));
            }
            let value = match known(&target) {
                Some(prop) => typed(&target, body, prop)?,
                None => Value::String(body.clone()),
            };
            input.insert(target, value);
        }
        Ok(Value::Object(input))
    }
}

/// The parameter the body fills: the one the tool declares. Guessing (say, the only required
/// string) would turn a stray sentence inside a call into a city name.
fn body_parameter(tool: &Tool) -> Option<String> {
    tool.body_param().map(str::to_owned)
}

/// The JSON types a property schema allows (`type` as a string or an array).
fn types(prop: &Value) -> Vec<&str> {
    match prop.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Reads `text` as the type the parameter's schema gives; text for strings and for schemas
/// that say nothing.
fn typed(key: &str, text: &str, prop: &Value) -> Result<Value, ToolError> {
    let allowed = types(prop);
    let wants = |t: &str| allowed.contains(&t);
    let trimmed = text.trim();
    if wants("string") || allowed.is_empty() {
        return Ok(Value::String(text.to_owned()));
    }
    let bad = |expected: &str| {
        ToolError::invalid_input(format!("`{key}` must be {expected}, not `{trimmed}`"))
            .with_path(key.to_owned())
    };
    if wants("boolean") {
        match trimmed {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            _ if allowed.len() == 1 => return Err(bad("true or false")),
            _ => {}
        }
    }
    if wants("integer")
        && let Ok(n) = trimmed.parse::<i64>()
    {
        return Ok(Value::from(n));
    }
    if wants("number")
        && let Ok(n) = trimmed.parse::<f64>()
        && let Some(n) = serde_json::Number::from_f64(n)
    {
        return Ok(Value::Number(n));
    }
    if wants("null") && trimmed == "null" {
        return Ok(Value::Null);
    }
    if wants("array") || wants("object") {
        return serde_json::from_str(trimmed).map_err(|_| bad("JSON (an array or an object)"));
    }
    Err(bad(&allowed.join(" or ")))
}

/// A call's result as the model reads it in the tags protocol: `<tool_result name="...">echo
/// </tool_result>`, or `<tool_error name="..." kind="...">message</tool_error>`. Text with `<`
/// or `&` goes in a CDATA section, so it is read back as written.
///
/// ```
/// use tool_agent::protocol::result_tag;
/// use tool_core::{ToolError, ToolOutput};
/// assert_eq!(
///     result_tag("get_weather", &Ok(ToolOutput::text("21 °C"))),
///     r#"<tool_result name="get_weather">21 °C</tool_result>"#
/// );
/// assert_eq!(
///     result_tag("get_weather", &Err(ToolError::not_found("no city <x>"))),
///     r#"<tool_error name="get_weather" kind="not_found"><![CDATA[no city <x>]]></tool_error>"#
/// );
/// ```
pub fn result_tag(name: &str, result: &CallResult) -> String {
    let name = escape_attr(name);
    match result {
        Ok(output) => format!(
            "<tool_result name=\"{name}\">{}</tool_result>",
            text_content(&output.echo())
        ),
        Err(error) => format!(
            "<tool_error name=\"{name}\" kind=\"{}\">{}</tool_error>",
            error.kind().as_str(),
            text_content(&error.to_string())
        ),
    }
}

fn escape_attr(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

/// Text as tag content: as is when plain, else CDATA (split where it contains `]]>`).
fn text_content(text: &str) -> String {
    if !text.contains(['<', '&']) {
        return text.to_owned();
    }
    format!("<![CDATA[{}]]>", text.replace("]]>", "]]]]><![CDATA[>"))
}

/// The system-prompt section that teaches a model the tags protocol for `tools`: how to write a
/// call, then each tool's name, description, parameters (type, required, default,
/// description), the parameter its body fills, and its examples written as tags.
pub fn prompt_docs<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> String {
    let mut out = String::from(
        "# Tools\n\nCall a tool by writing a tag named after it, with its parameters as \
         attributes: <tool_name param=\"value\"/>. A tool that takes a body gets it between its \
         tags: <tool_name param=\"value\">body</tool_name>; use <![CDATA[...]]> for text with \
         < or &. Numbers, true/false and JSON arrays or objects go in quotes too. You may call \
         several tools in one reply. Each result comes back as <tool_result name=\"...\"> or \
         <tool_error name=\"...\">; wait for results before relying on them.\n",
    );
    for tool in tools {
        out.push_str(&format!("\n## {}\n\n{}\n", tool.name(), tool.description()));
        let schema = tool.input_schema();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let body = body_parameter(tool);
        if let Some(props) = schema.get("properties").and_then(Value::as_object)
            && !props.is_empty()
        {
            out.push_str("\nParameters:\n");
            for (name, prop) in props {
                let mut kind = types(prop).join(" or ");
                if kind.is_empty() {
                    kind = "any".to_owned();
                }
                let need = if required.contains(&name.as_str()) {
                    "required".to_owned()
                } else {
                    match prop.get("default") {
                        Some(d) => format!("optional, default {d}"),
                        None => "optional".to_owned(),
                    }
                };
                let role = if body.as_deref() == Some(name.as_str()) {
                    ", the body"
                } else {
                    ""
                };
                let description = prop
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                out.push_str(&format!("- {name} ({kind}, {need}{role}): {description}\n"));
            }
        }
        for example in tool.examples() {
            out.push_str(&format!(
                "\nExample, {}: {}\n",
                example.label,
                example_tag(tool, &example.input, body.as_deref())
            ));
        }
    }
    out
}

/// An example input written as the tag a model would write.
fn example_tag(tool: &Tool, input: &Value, body: Option<&str>) -> String {
    let mut attrs = String::new();
    let mut content = None;
    if let Some(map) = input.as_object() {
        for (key, value) in map {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if Some(key.as_str()) == body {
                content = Some(text);
            } else {
                attrs.push_str(&format!(" {key}=\"{}\"", escape_attr(&text)));
            }
        }
    }
    match content {
        Some(content) => format!("<{0}{attrs}>{1}</{0}>", tool.name(), text_content(&content)),
        None => format!("<{}{attrs}/>", tool.name()),
    }
}
