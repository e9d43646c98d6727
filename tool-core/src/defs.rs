//! Definition files: a JSON array of MCP `Tool` objects, loaded as definition-only dynamic tools
//! so catalogs not written in Rust can be listed, rendered and checked too.
//!
//! Loading is lenient: a malformed definition is loaded as far as it can be and judged by
//! [`check`](crate::check), not refused here. Only text that is not a JSON array is refused.

use std::borrow::Cow;

use serde_json::Value;

use crate::{Annotations, DynamicTool};

/// Why a definitions file could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum DefsError {
    /// Not JSON.
    #[error("{origin} is not JSON: {source}")]
    Json {
        /// The file.
        origin: String,
        /// The parse error, with line and column.
        source: serde_json::Error,
    },
    /// JSON, but not an array (or an object with a `tools` array, as `tools/list` returns).
    #[error(
        "{origin} must hold a JSON array of MCP Tool objects (or {{\"tools\": [...]}}), not {found}"
    )]
    NotAnArray {
        /// The file.
        origin: String,
        /// What it holds instead.
        found: &'static str,
    },
}

/// Parses a definitions file; `origin` names it in messages.
///
/// ```
/// let tools = tool_core::defs::parse(r#"[{"name": "get_x", "inputSchema": {"type": "object"}}, 42]"#, "defs.json").unwrap();
/// assert_eq!(tools.len(), 2); // the `42` is kept, for `check` to report
/// ```
pub fn parse(text: &str, origin: &str) -> Result<Vec<DynamicTool>, DefsError> {
    let value: Value = serde_json::from_str(text).map_err(|source| DefsError::Json {
        origin: origin.to_owned(),
        source,
    })?;
    let items = match value {
        Value::Array(items) => items,
        Value::Object(mut map) if map.get("tools").is_some_and(Value::is_array) => {
            match map.remove("tools") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            }
        }
        other => {
            return Err(DefsError::NotAnArray {
                origin: origin.to_owned(),
                found: crate::call::json_type(&other),
            });
        }
    };
    Ok(items
        .iter()
        .enumerate()
        .map(|(i, item)| from_mcp_tool(item, &format!("{origin}[{i}]")))
        .collect())
}

/// One MCP `Tool` object as a definition-only tool. Missing parts get MCP's defaults (a tool
/// without annotations may write, destroy and reach the open world); an unnamed tool is named
/// after its place in the file.
pub fn from_mcp_tool(item: &Value, origin: &str) -> DynamicTool {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let meta = item.get("_meta");
    let meta_text = |key: &str| text(meta.and_then(|m| m.get(format!("tool-core/{key}"))));
    let name = text(item.get("name")).unwrap_or_else(|| format!("<unnamed {origin}>"));
    let description = text(item.get("description")).unwrap_or_default();
    let input_schema = item.get("inputSchema").cloned().unwrap_or(Value::Null);
    let hints = item.get("annotations");
    let hint = |key: &str, default: bool| {
        hints
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
            .unwrap_or(default)
    };
    let read_only = hint("readOnlyHint", false);
    // Kept as given, even when inconsistent: `check` judges it (destructiveHint defaults to true
    // only where it means something, on a tool that is not read-only).
    let annotations = Annotations {
        read_only,
        destructive: hint("destructiveHint", !read_only),
        idempotent: hint("idempotentHint", false),
        open_world: hint("openWorldHint", true),
    };
    let label = meta_text("label")
        .or_else(|| text(item.get("title")))
        .or_else(|| text(hints.and_then(|a| a.get("title"))))
        .unwrap_or_else(|| name.clone());
    let mut tool = DynamicTool::new(name, description, input_schema)
        .label(label)
        .hint(meta_text("hint").unwrap_or_default())
        .annotations(annotations)
        .core(
            meta.and_then(|m| m.get("tool-core/core"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
        )
        .origin(origin);
    if let Some(domain) = meta_text("domain") {
        tool = tool.domain(domain, Cow::Borrowed("Imported tools"));
    }
    if let Some(output) = item.get("outputSchema") {
        tool = tool.output_schema(output.clone());
    }
    tool
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;
    use serde_json::json;

    #[test]
    fn round_trips_what_the_mcp_renderer_writes() {
        let item = json!({
            "name": "get_weather", "title": "Checking", "description": "d",
            "inputSchema": {"type": "object"},
            "annotations": {"title": "Checking", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
            "_meta": {"tool-core/domain": "weather", "tool-core/hint": "Weather", "tool-core/label": "Checking", "tool-core/core": true}
        });
        let mut r = Registry::empty();
        r.register(from_mcp_tool(&item, "f.json[0]")).unwrap();
        let t = r.get("get_weather").unwrap();
        assert_eq!(crate::render::mcp(t), item);
        assert_eq!(
            t.origin().to_string(),
            "registered at run time by f.json[0]"
        );
    }

    #[test]
    fn missing_parts_get_mcp_defaults_and_junk_is_kept() {
        let tools = parse(r#"{"tools": [{"name": "x"}, "junk"]}"#, "f").unwrap();
        let mut r = Registry::empty();
        for t in tools {
            r.register(t).unwrap();
        }
        let x = r.get("x").unwrap();
        assert!(x.annotations().destructive && x.annotations().open_world);
        assert_eq!(x.input_schema(), &Value::Null);
        assert!(r.get("<unnamed f[1]>").is_some());
    }

    #[test]
    fn files_that_are_not_arrays_are_refused_clearly() {
        let e = parse("{}", "f.json").unwrap_err();
        assert!(e.to_string().contains("not an object"), "{e}");
        let e = parse("[", "f.json").unwrap_err();
        assert!(e.to_string().starts_with("f.json is not JSON"), "{e}");
    }
}
