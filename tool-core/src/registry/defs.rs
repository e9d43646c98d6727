//! Definition files: a JSON array of MCP `Tool` objects, loaded as definition-only dynamic tools
//! so catalogs not written in Rust can be listed, rendered and checked too.
//!
//! Besides MCP's fields, a tool may say which OAuth scopes a caller needs, as `#[tool(scopes(..))]`
//! does: `"scopes": ["issues:write", "repo"]` (see [`Tool::scopes`](crate::registry::Tool::scopes)). Its
//! MCP `icons` are kept ([`Tool::icons`](crate::registry::Tool::icons)), and the tool-core settings an MCP
//! rendering writes in `_meta` are read back: `tool-core/domain`, `tool-core/hint`,
//! `tool-core/label`, `tool-core/core`, `tool-core/mirror` (`false` for a tool whose MCP
//! results leave out their text mirror, [`Tool::mirror`](crate::registry::Tool::mirror)) and
//! `tool-core/task` (`true` for a tool a call to which may be answered with a task, `"required"`
//! for one whose calls must be, [`Tool::task_support`](crate::registry::Tool::task_support)) and `tool-core/approval` (`true`, or the message, for a
//! tool whose calls need a person's yes, [`Tool::approval`](crate::registry::Tool::approval)).
//!
//! Loading is lenient: a malformed definition is loaded as far as it can be and judged by
//! [`check`](crate::definition::check), not refused here (an icon whose `src`, size or theme breaks the
//! icon rule among them). Only text that is not a JSON array is refused; scopes that break the
//! scope rule (RFC 6749 scope-tokens, each once, at least one: the rule the macro holds
//! `scopes(..)` to), since scopes decide who may call a tool, so a file that gets them wrong
//! is not loaded with them dropped or changed; and icons that are not MCP `Icon` objects (an
//! object with a string `src`, a string `mimeType` and `theme`, an array of strings as
//! `sizes`), which could only be dropped, leaving `check` nothing to report.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use crate::definition::{ScopeListProblem, TaskSupport, scope_list_problems};
use crate::{definition::Annotations, registry::DynamicTool, registry::ToolIcon};

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
    /// Tools whose `scopes` cannot be used as written; every one in the file is named.
    #[error("{origin} has scopes that cannot be used as written:{}", Lines(.problems))]
    Scopes {
        /// The file.
        origin: String,
        /// Each problem, with its tool and JSON path.
        problems: Vec<ScopesError>,
    },
    /// Tools whose `icons` are not MCP `Icon` objects; every one in the file is named. (Checked
    /// once the scopes are good.)
    #[error("{origin} has icons that are not MCP Icon objects:{}", Lines(.problems))]
    Icons {
        /// The file.
        origin: String,
        /// Each problem, with its tool and JSON path.
        problems: Vec<IconsError>,
    },
}

/// One icon of a definitions file that is not an MCP `Icon` object: which tool, where, what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path} (tool `{tool}`): {problem}")]
pub struct IconsError {
    /// The tool's name.
    pub tool: String,
    /// Where in the file, as a JSON path: `tools.json[2].icons[0].src`.
    pub path: String,
    /// What is wrong.
    pub problem: IconsProblem,
}

/// How a tool's `icons` in a definitions file are not MCP `Icon` objects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IconsProblem {
    /// `icons` is not an array.
    #[error(
        "expected an array of icons, like [{{\"src\": \"https://example.com/icon.png\"}}], found {found}"
    )]
    NotAnArray {
        /// What it is instead.
        found: &'static str,
    },
    /// An entry is not an object.
    #[error(
        "expected an icon object, like {{\"src\": \"https://example.com/icon.png\"}}, found {found}"
    )]
    NotAnObject {
        /// What it is instead.
        found: &'static str,
    },
    /// An icon has no `src`.
    #[error("an icon needs its `src`, an https: or http: URL or a data: URI")]
    NoSrc,
    /// A part of an icon is not of its JSON type.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// What the part is: `a string`.
        expected: &'static str,
        /// What it is instead.
        found: &'static str,
    },
}

/// One problem with a tool's `scopes` in a definitions file: which tool, where, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path} (tool `{tool}`): {problem}")]
pub struct ScopesError {
    /// The tool's name.
    pub tool: String,
    /// Where in the file, as a JSON path: `tools.json[2].scopes[1]`.
    pub path: String,
    /// What is wrong.
    pub problem: ScopesProblem,
}

/// What is wrong with a tool's `scopes` in a definitions file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScopesProblem {
    /// `scopes` is not an array.
    #[error("expected an array of scope strings, like [\"issues:write\"], found {found}")]
    NotAnArray {
        /// What it is instead.
        found: &'static str,
    },
    /// An entry is not a string.
    #[error("expected a scope string, like \"issues:write\", found {found}")]
    NotAString {
        /// What it is instead.
        found: &'static str,
    },
    /// The scopes break the scope rule.
    #[error(transparent)]
    Rule(ScopeListProblem),
}

/// Problems one to a line, under the sentence that introduces them.
struct Lines<'a, P>(&'a [P]);

impl<P: fmt::Display> fmt::Display for Lines<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for problem in self.0 {
            write!(f, "\n  {problem}")?;
        }
        Ok(())
    }
}

/// Parses a definitions file; `origin` names it in messages.
///
/// ```
/// let tools = tool_core::registry::defs::parse(r#"[{"name": "get_x", "inputSchema": {"type": "object"}}, 42]"#, "defs.json").unwrap();
/// assert_eq!(tools.len(), 2); // the `42` is kept, for `check` to report
///
/// let err = tool_core::registry::defs::parse(r#"[{"name": "close_issue", "scopes": ["repo", "issues write"]}]"#, "defs.json").unwrap_err();
/// assert!(err.to_string().contains("defs.json[0].scopes[1] (tool `close_issue`): the scope `issues write` holds a space"));
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
    let mut problems = Vec::new();
    let mut icon_problems = Vec::new();
    let tools = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{origin}[{i}]");
            let tool = from_mcp_tool(item, &at);
            let name = name_of(item, &at);
            icon_problems.extend(icon_shape_problems(item, &name, &at));
            match scopes_of(item, &name, &at) {
                Ok(scopes) => tool.scopes(scopes),
                Err(mut found) => {
                    problems.append(&mut found);
                    tool
                }
            }
        })
        .collect();
    if !problems.is_empty() {
        return Err(DefsError::Scopes {
            origin: origin.to_owned(),
            problems,
        });
    }
    if !icon_problems.is_empty() {
        return Err(DefsError::Icons {
            origin: origin.to_owned(),
            problems: icon_problems,
        });
    }
    Ok(tools)
}

/// Where a tool's `icons` are not MCP `Icon` objects; `at` is the tool's JSON path.
fn icon_shape_problems(item: &Value, tool: &str, at: &str) -> Vec<IconsError> {
    let problem = |path: String, problem| IconsError {
        tool: tool.to_owned(),
        path,
        problem,
    };
    let icons = match item.get("icons") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(icons)) => icons,
        Some(other) => {
            let found = crate::call::json_type(other);
            return vec![problem(
                format!("{at}.icons"),
                IconsProblem::NotAnArray { found },
            )];
        }
    };
    let mut problems = Vec::new();
    for (j, icon) in icons.iter().enumerate() {
        let at = format!("{at}.icons[{j}]");
        let Value::Object(icon) = icon else {
            let found = crate::call::json_type(icon);
            problems.push(problem(at, IconsProblem::NotAnObject { found }));
            continue;
        };
        let wrong = |expected, found: &Value| IconsProblem::WrongType {
            expected,
            found: crate::call::json_type(found),
        };
        match icon.get("src") {
            None | Some(Value::Null) => {
                problems.push(problem(format!("{at}.src"), IconsProblem::NoSrc))
            }
            Some(Value::String(_)) => {}
            Some(other) => problems.push(problem(format!("{at}.src"), wrong("a string", other))),
        }
        for key in ["mimeType", "theme"] {
            match icon.get(key) {
                None | Some(Value::Null | Value::String(_)) => {}
                Some(other) => {
                    problems.push(problem(format!("{at}.{key}"), wrong("a string", other)))
                }
            }
        }
        match icon.get("sizes") {
            None | Some(Value::Null) => {}
            Some(Value::Array(sizes)) => {
                for (k, size) in sizes.iter().enumerate() {
                    if !size.is_string() {
                        let wrong = wrong("a size string, like \"48x48\"", size);
                        problems.push(problem(format!("{at}.sizes[{k}]"), wrong));
                    }
                }
            }
            Some(other) => {
                let wrong = wrong("an array of sizes, like [\"48x48\"]", other);
                problems.push(problem(format!("{at}.sizes"), wrong));
            }
        }
    }
    problems
}

/// The icons of an MCP `Tool` object, as far as they are `Icon` objects: an entry that is not an
/// object with a string `src` is left out, and so is a part that is not of its JSON type (what
/// [`parse`] refuses in a definitions file; a mounted server's listing cannot be refused).
fn icons_of(item: &Value) -> Vec<ToolIcon> {
    let Some(Value::Array(icons)) = item.get("icons") else {
        return Vec::new();
    };
    let text = |icon: &serde_json::Map<String, Value>, key: &str| {
        icon.get(key)
            .and_then(Value::as_str)
            .map(|s| Cow::Owned(s.to_owned()))
    };
    icons
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|icon| {
            let mut out = ToolIcon::new(text(icon, "src")?);
            out.mime_type = text(icon, "mimeType");
            out.theme = text(icon, "theme");
            if let Some(Value::Array(sizes)) = icon.get("sizes") {
                out = out.sizes(sizes.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            Some(out)
        })
        .collect()
}

/// The scopes a tool of a definitions file needs (`"scopes"`; absent or `null` is none), held
/// to the scope rule; `at` is the tool's JSON path.
fn scopes_of(item: &Value, tool: &str, at: &str) -> Result<Vec<String>, Vec<ScopesError>> {
    let problem = |path: String, problem| ScopesError {
        tool: tool.to_owned(),
        path,
        problem,
    };
    let entries = match item.get("scopes") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(entries)) => entries,
        Some(other) => {
            let found = crate::call::json_type(other);
            return Err(vec![problem(
                format!("{at}.scopes"),
                ScopesProblem::NotAnArray { found },
            )]);
        }
    };
    let mut problems = Vec::new();
    let mut scopes = Vec::with_capacity(entries.len());
    for (j, entry) in entries.iter().enumerate() {
        match entry.as_str() {
            Some(scope) => scopes.push(scope),
            None => problems.push(problem(
                format!("{at}.scopes[{j}]"),
                ScopesProblem::NotAString {
                    found: crate::call::json_type(entry),
                },
            )),
        }
    }
    // The rule's places are places in `entries` only when every entry is a string.
    if problems.is_empty() {
        for found in scope_list_problems(&scopes) {
            let path = match found.index() {
                Some(j) => format!("{at}.scopes[{j}]"),
                None => format!("{at}.scopes"),
            };
            problems.push(problem(path, ScopesProblem::Rule(found)));
        }
    }
    match problems.is_empty() {
        true => Ok(scopes.into_iter().map(str::to_owned).collect()),
        false => Err(problems),
    }
}

/// A tool's name in a definitions file; an unnamed tool is named after its place.
fn name_of(item: &Value, origin: &str) -> String {
    match item.get("name").and_then(Value::as_str) {
        Some(name) => name.to_owned(),
        None => format!("<unnamed {origin}>"),
    }
}

/// One MCP `Tool` object as a definition-only tool. Missing parts get MCP's defaults (a tool
/// without annotations may write, destroy and reach the open world); an unnamed tool is named
/// after its place in the file.
///
/// Its `icons` are kept as far as they are MCP `Icon` objects (an entry that is not an object
/// with a string `src` is left out), so a mounted server's tools show its icons; whether they
/// meet the icon rule is [`check`](crate::definition::check)'s to say, and MCP renderings carry only those
/// that do. `_meta."tool-core/mirror": false` (what [`render::mcp`](crate::render::mcp) writes
/// for [`Tool::mirror`](crate::registry::Tool::mirror)) turns the text mirror off, and
/// `_meta."tool-core/task": true` (or `"required"`, for
/// [`Tool::task_support`](crate::registry::Tool::task_support)) marks a tool that may (or must) be
/// answered with a task.
///
/// It reads no `scopes`: what a server lists does not decide who may call its tools here.
/// [`parse`] reads them from a definitions file; a mount takes them from its own settings.
///
/// ```
/// let tool = serde_json::json!({
///     "name": "get_weather",
///     "inputSchema": {"type": "object"},
///     "icons": [{"src": "https://example.com/sun.png", "sizes": ["48x48"]}, {"src": 7}],
/// });
/// let mut registry = tool_core::Registry::empty();
/// registry.register(tool_core::registry::defs::from_mcp_tool(&tool, "remote")).unwrap();
/// let icons = registry.get("get_weather").unwrap().icons();
/// assert_eq!(icons.len(), 1);
/// assert_eq!(icons[0].src, "https://example.com/sun.png");
/// ```
pub fn from_mcp_tool(item: &Value, origin: &str) -> DynamicTool {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let meta = item.get("_meta");
    let meta_value = |key: &str| meta.and_then(|m| m.get(format!("tool-core/{key}")));
    let meta_text = |key: &str| text(meta_value(key));
    let meta_flag = |key: &str| meta_value(key).and_then(Value::as_bool);
    let name = name_of(item, origin);
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
        .core(meta_flag("core").unwrap_or(false))
        .mirror(meta_flag("mirror").unwrap_or(true))
        .task_support(match meta_value("task") {
            Some(Value::Bool(true)) => TaskSupport::Optional,
            Some(Value::String(s)) if s == "required" => TaskSupport::Required,
            Some(Value::String(s)) if s == "optional" => TaskSupport::Optional,
            _ => TaskSupport::Forbidden,
        })
        .origin(origin);
    match meta_value("approval") {
        Some(Value::Bool(true)) => tool = tool.approval(crate::registry::ToolApproval::new()),
        Some(Value::String(message)) => {
            tool = tool.approval(crate::registry::ToolApproval::with_message(message.clone()));
        }
        _ => {}
    }
    for icon in icons_of(item) {
        tool = tool.icon(icon);
    }
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
    fn icons_and_the_mirror_round_trip_what_the_mcp_renderer_writes() {
        let item = json!({
            "name": "get_stats", "title": "Counting", "description": "d",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"},
            "annotations": {"title": "Counting", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
            "icons": [
                {"src": "https://example.com/stats.png", "mimeType": "image/png", "sizes": ["48x48", "96x96"]},
                {"src": "https://example.com/stats-dark.svg", "sizes": ["any"], "theme": "dark"}
            ],
            "_meta": {"tool-core/domain": "stats", "tool-core/hint": "Stats", "tool-core/label": "Counting", "tool-core/core": false, "tool-core/mirror": false}
        });
        let mut r = Registry::empty();
        r.register_all(parse(&json!([item]).to_string(), "f.json").unwrap())
            .unwrap();
        let t = r.get("get_stats").unwrap();
        assert!(!t.mirror());
        assert_eq!(t.icons().len(), 2);
        assert_eq!(t.icons()[1].theme.as_deref(), Some("dark"));
        let mut rendered = crate::render::mcp(t);
        // The output schema comes back in its MCP form.
        rendered["outputSchema"] = json!({"type": "object"});
        assert_eq!(rendered, item);
    }

    #[test]
    fn the_task_flag_round_trips_what_the_mcp_renderer_writes() {
        let item = json!({
            "name": "export_report", "title": "Exporting", "description": "d",
            "inputSchema": {"type": "object"},
            "annotations": {"title": "Exporting", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
            "_meta": {"tool-core/domain": "reports", "tool-core/hint": "Reports", "tool-core/label": "Exporting", "tool-core/core": false, "tool-core/task": true}
        });
        let mut r = Registry::empty();
        r.register_all(parse(&json!([item]).to_string(), "f.json").unwrap())
            .unwrap();
        let t = r.get("export_report").unwrap();
        assert!(t.task());
        assert_eq!(crate::render::mcp(t), item);
        // Without the key, or with it `false`, a tool is not a task.
        for meta in [json!({}), json!({"tool-core/task": false})] {
            let item = json!({"name": "get_x", "inputSchema": {"type": "object"}, "_meta": meta});
            let mut r = Registry::empty();
            r.register(from_mcp_tool(&item, "f")).unwrap();
            assert!(!r.get("get_x").unwrap().task(), "{meta}");
        }
    }

    #[test]
    fn icons_that_break_the_icon_rule_are_loaded_for_check_to_judge() {
        let text = r#"[{"name": "get_x", "icons": [{"src": "icon.png", "sizes": ["big"], "theme": "blue", "mimeType": "text/plain"}]}]"#;
        let mut r = Registry::empty();
        r.register_all(parse(text, "f.json").unwrap()).unwrap();
        let icon = &r.get("get_x").unwrap().icons()[0];
        assert_eq!(icon.src, "icon.png");
        assert_eq!(icon.problems().len(), 4);
    }

    #[test]
    fn icons_that_are_not_icon_objects_are_refused_naming_every_tool_and_path() {
        let text = r#"[
            {"name": "get_a", "icons": [{"src": "https://example.com/a.png"}]},
            {"name": "get_b", "icons": "https://example.com/b.png"},
            {"name": "get_c", "icons": ["https://example.com/c.png", {"mimeType": "image/png"}]},
            {"name": "get_d", "icons": [{"src": 7, "theme": true, "sizes": "48x48"}, {"src": "x", "sizes": [48]}]}
        ]"#;
        let Err(DefsError::Icons { origin, problems }) = parse(text, "f.json") else {
            panic!("bad icons are refused");
        };
        assert_eq!(origin, "f.json");
        let found: Vec<(&str, &str)> = problems
            .iter()
            .map(|p| (p.tool.as_str(), p.path.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("get_b", "f.json[1].icons"),
                ("get_c", "f.json[2].icons[0]"),
                ("get_c", "f.json[2].icons[1].src"),
                ("get_d", "f.json[3].icons[0].src"),
                ("get_d", "f.json[3].icons[0].theme"),
                ("get_d", "f.json[3].icons[0].sizes"),
                ("get_d", "f.json[3].icons[1].sizes[0]"),
            ]
        );
        let message = parse(text, "f.json").unwrap_err().to_string();
        assert!(
            message.starts_with("f.json has icons that are not MCP Icon objects:\n  f.json[1].icons (tool `get_b`): expected an array of icons"),
            "{message}"
        );
        assert!(
            message.contains("f.json[3].icons[1].sizes[0] (tool `get_d`): expected a size string, like \"48x48\", found a number"),
            "{message}"
        );
        // A mounted server's listing is not refused: what is not an icon is left out.
        let listed: Value = serde_json::from_str(text).unwrap();
        let d = from_mcp_tool(&listed[3], "remote");
        let mut r = Registry::empty();
        r.register(d).unwrap();
        let icons = r.get("get_d").unwrap().icons();
        assert_eq!(icons.len(), 1);
        assert_eq!(icons[0].src, "x");
        assert!(icons[0].sizes.is_empty());
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
    fn scopes_are_loaded_in_order() {
        let text = r#"{"tools": [
            {"name": "close_issue", "scopes": ["issues:write", "repo"]},
            {"name": "list_issues", "scopes": null},
            {"name": "get_issue"}
        ]}"#;
        let mut r = Registry::empty();
        r.register_all(parse(text, "f.json").unwrap()).unwrap();
        assert_eq!(
            r.get("close_issue").unwrap().scopes(),
            ["issues:write", "repo"]
        );
        assert!(r.get("list_issues").unwrap().scopes().is_empty());
        assert!(r.get("get_issue").unwrap().scopes().is_empty());
    }

    #[test]
    fn bad_scopes_are_refused_naming_every_tool_and_path() {
        let text = r#"[
            {"name": "get_issue", "scopes": ["issues:read"]},
            {"name": "close_issue", "scopes": ["repo", "issues write", "repo"]},
            {"name": "move_issue", "scopes": "repo"},
            {"name": "tag_issue", "scopes": ["repo", 7]},
            {"name": "pin_issue", "scopes": []},
            {"scopes": ["say\"hi\""]}
        ]"#;
        let Err(DefsError::Scopes { origin, problems }) = parse(text, "f.json") else {
            panic!("bad scopes are refused");
        };
        assert_eq!(origin, "f.json");
        let found: Vec<(&str, &str)> = problems
            .iter()
            .map(|p| (p.tool.as_str(), p.path.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("close_issue", "f.json[1].scopes[1]"),
                ("close_issue", "f.json[1].scopes[2]"),
                ("move_issue", "f.json[2].scopes"),
                ("tag_issue", "f.json[3].scopes[1]"),
                ("pin_issue", "f.json[4].scopes"),
                ("<unnamed f.json[5]>", "f.json[5].scopes[0]"),
            ]
        );
        assert!(matches!(
            problems[2].problem,
            ScopesProblem::NotAnArray { found: "a string" }
        ));
        assert!(matches!(
            problems[3].problem,
            ScopesProblem::NotAString { found: "a number" }
        ));
        let message = parse(text, "f.json").unwrap_err().to_string();
        assert!(
            message.starts_with("f.json has scopes that cannot be used as written:\n  f.json[1].scopes[1] (tool `close_issue`): the scope `issues write` holds a space"),
            "{message}"
        );
        assert!(
            message.contains(
                "f.json[1].scopes[2] (tool `close_issue`): the scope `repo` is listed twice"
            ),
            "{message}"
        );
        assert!(
            message.contains("f.json[4].scopes (tool `pin_issue`): the list of scopes is empty"),
            "{message}"
        );
        assert_eq!(message.lines().count(), 7, "{message}");
    }

    proptest::proptest! {
        /// A definitions file's scopes are refused exactly when the shared rule (the one
        /// `#[tool(scopes(..))]` is held to at compile time) refuses them, each problem at the
        /// place of the scope at fault; accepted ones are kept as written.
        #[test]
        fn scopes_are_held_to_the_shared_rule(scopes in proptest::collection::vec("[ a-c:\"\\\\é\t]{0,3}", 0..5)) {
            let text = json!([{"name": "close_issue", "scopes": scopes}]).to_string();
            let expected = scope_list_problems(&scopes);
            match parse(&text, "f.json") {
                Ok(tools) => {
                    proptest::prop_assert!(expected.is_empty(), "{:?}", expected);
                    let mut r = Registry::empty();
                    r.register_all(tools).unwrap();
                    let kept: Vec<&str> = r.get("close_issue").unwrap().scopes().iter().map(|s| &**s).collect();
                    proptest::prop_assert_eq!(kept, scopes.iter().map(String::as_str).collect::<Vec<_>>());
                }
                Err(DefsError::Scopes { problems, .. }) => {
                    let paths: Vec<String> = problems.iter().map(|p| p.path.clone()).collect();
                    let expected: Vec<String> = expected
                        .iter()
                        .map(|p| match p.index() {
                            Some(j) => format!("f.json[0].scopes[{j}]"),
                            None => "f.json[0].scopes".to_owned(),
                        })
                        .collect();
                    proptest::prop_assert_eq!(paths, expected);
                }
                Err(other) => proptest::prop_assert!(false, "{}", other),
            }
        }
    }

    #[test]
    fn files_that_are_not_arrays_are_refused_clearly() {
        let e = parse("{}", "f.json").unwrap_err();
        assert!(e.to_string().contains("not an object"), "{e}");
        let e = parse("[", "f.json").unwrap_err();
        assert!(e.to_string().starts_with("f.json is not JSON"), "{e}");
    }
}
