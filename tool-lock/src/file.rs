//! The lock file itself: the definitions of a set of tools as served, with their token
//! counts, made from a registry, written and read. Below the review that compares two locks and
//! the test that asserts one; the module above (`lock`) only re-exports.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Map, Value};

use crate::items::{self, Kind, LockedItem};
use tool_core::definition::{ToolView, Visibility};
use tool_core::render::{self, Format, RenderOptions};
use tool_core::{Registry, registry::Tool};

/// The version of the lock file's layout, written as `"lock"`.
pub const VERSION: u64 = 1;

/// The definitions of a set of tools as served, with what they cost.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Lock {
    /// What counted the tokens: [`tokens::TOKENIZER`](crate::tokens::TOKENIZER) when written
    /// here; `None` for a file without counts (a `tools/list` result).
    pub tokenizer: Option<String>,
    /// The whole listing's tokens per format (each format's request array, as one text).
    pub tokens: BTreeMap<String, u64>,
    /// The tools, by name.
    pub tools: Vec<LockedTool>,
    /// The resources and URI templates, by URI.
    pub resources: Vec<LockedItem>,
    /// The prompts, by name.
    pub prompts: Vec<LockedItem>,
}

/// One tool of a [`Lock`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LockedTool {
    /// The tool's name.
    pub name: String,
    /// The MCP `Tool` object as served, plus `scopes` and `examples` when the tool has them.
    pub definition: Value,
    /// Tokens per format ([`Format::as_str`]).
    pub tokens: BTreeMap<String, u64>,
    /// The input schema as the formats named by each key render it, where that differs from
    /// the MCP `inputSchema` (`"openai --strict, openai-responses --strict"`).
    pub renderings: Map<String, Value>,
}

/// Why a lock file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Not JSON.
    #[error("{origin} is not JSON: {source}")]
    Json {
        /// The file.
        origin: String,
        /// The parse error, with line and column.
        source: serde_json::Error,
    },
    /// JSON, but not a lock: what is wrong, and where.
    #[error("{origin}: {path}: {problem}")]
    Shape {
        /// The file.
        origin: String,
        /// Where, as a JSON path: `tools[3].name`.
        path: String,
        /// What is wrong.
        problem: String,
    },
}

/// The keys of a tool's entry that are the lock's, not the definition's.
const LOCK_KEYS: [&str; 2] = ["tokens", "renderings"];

impl Lock {
    /// The definitions of every tool of `registry`, as served, with their token counts, and of
    /// its resources and prompts.
    pub fn of(registry: &Registry) -> Self {
        let mut lock = Self::of_tools(registry.tools().iter());
        lock.resources = items::resources_of(registry);
        lock.prompts = items::prompts_of(registry);
        lock
    }

    /// The definitions of `tools`, sorted by name.
    pub fn of_tools<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Self {
        let mut tools: Vec<&Tool> = tools.into_iter().collect();
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        let mut totals = BTreeMap::new();
        for format in Format::ALL {
            let listing =
                render::render_all(tools.iter().copied(), format, RenderOptions::default());
            totals.insert(format.as_str().to_owned(), count(&listing));
        }
        Self {
            tokenizer: Some(crate::tokens::TOKENIZER.to_owned()),
            tokens: totals,
            tools: tools.into_iter().map(locked).collect(),
            resources: Vec::new(),
            prompts: Vec::new(),
        }
    }

    /// Reads a lock file; `origin` names it in errors. A `tools/list` result or a JSON array of
    /// MCP `Tool` objects is read too, as a lock without token counts, so any saved listing can
    /// be a baseline.
    ///
    /// ```
    /// let lock = tool_lock::Lock::parse(r#"{"tools": [{"name": "get_x", "inputSchema": {"type": "object"}}]}"#, "listing.json").unwrap();
    /// assert_eq!(lock.tools[0].name, "get_x");
    /// assert!(lock.tokenizer.is_none());
    ///
    /// let err = tool_lock::Lock::parse(r#"[{"name": "get_x"}, {"title": "y"}]"#, "old.json").unwrap_err();
    /// assert_eq!(err.to_string(), "old.json: tools[1].name: a tool needs its name, a string");
    /// ```
    pub fn parse(text: &str, origin: &str) -> Result<Self, LockError> {
        let value: Value = serde_json::from_str(text).map_err(|source| LockError::Json {
            origin: origin.to_owned(),
            source,
        })?;
        let shape = |path: &str, problem: String| LockError::Shape {
            origin: origin.to_owned(),
            path: path.to_owned(),
            problem,
        };
        let mut resources = Vec::new();
        let mut prompts = Vec::new();
        let (items, tokenizer, tokens) = match value {
            Value::Array(items) => (items, None, BTreeMap::new()),
            Value::Object(mut map) => {
                if let Some(version) = map.get("lock")
                    && version.as_u64() != Some(VERSION)
                {
                    return Err(shape(
                        "lock",
                        format!(
                            "layout {version} is not known here (this version reads {VERSION}): write the file again"
                        ),
                    ));
                }
                let tokenizer = match map.remove("tokenizer") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(t)) => Some(t),
                    Some(_) => return Err(shape("tokenizer", "expected a string".into())),
                };
                let tokens = counts(map.get("tokens"), "tokens").map_err(|(p, m)| shape(&p, m))?;
                resources = items::parse(Kind::Resource, map.remove("resources"))
                    .map_err(|(p, m)| shape(&p, m))?;
                prompts = items::parse(Kind::Prompt, map.remove("prompts"))
                    .map_err(|(p, m)| shape(&p, m))?;
                match map.remove("tools") {
                    Some(Value::Array(items)) => (items, tokenizer, tokens),
                    _ => {
                        return Err(shape(
                            "tools",
                            "expected an array of tools (a lock file, or a tools/list result)"
                                .into(),
                        ));
                    }
                }
            }
            other => {
                return Err(shape(
                    "$",
                    format!(
                        "expected a lock file or a JSON array of tools, found {}",
                        tool_core::exec::json_type(&other)
                    ),
                ));
            }
        };
        let mut tools = Vec::with_capacity(items.len());
        let mut names = BTreeSet::new();
        for (i, item) in items.into_iter().enumerate() {
            let at = format!("tools[{i}]");
            let Value::Object(mut map) = item else {
                return Err(shape(&at, "expected a tool object".into()));
            };
            let Some(name) = map.get("name").and_then(Value::as_str).map(str::to_owned) else {
                return Err(shape(
                    &format!("{at}.name"),
                    "a tool needs its name, a string".into(),
                ));
            };
            if !names.insert(name.clone()) {
                return Err(shape(
                    &format!("{at}.name"),
                    format!("`{name}` is listed twice"),
                ));
            }
            let tokens = counts(map.get("tokens"), &format!("{at}.tokens"))
                .map_err(|(p, m)| shape(&p, m))?;
            let renderings = match map.get("renderings") {
                None => Map::new(),
                Some(Value::Object(r)) => r.clone(),
                Some(_) => {
                    return Err(shape(
                        &format!("{at}.renderings"),
                        "expected an object".into(),
                    ));
                }
            };
            for key in LOCK_KEYS {
                map.remove(key);
            }
            tools.push(LockedTool {
                name,
                definition: Value::Object(map),
                tokens,
                renderings,
            });
        }
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Self {
            tokenizer,
            tokens,
            tools,
            resources,
            prompts,
        })
    }

    /// The lock as a file: pretty JSON, tools by name, each definition's keys in the order
    /// they are served, a newline at the end.
    pub fn to_json(&self) -> String {
        let mut root = Map::new();
        root.insert(
            "$comment".into(),
            "Tool definitions as served, for review. Written by `toolctl lock`; `toolctl check --baseline` compares against it.".into(),
        );
        root.insert("lock".into(), VERSION.into());
        if let Some(tokenizer) = &self.tokenizer {
            root.insert("tokenizer".into(), tokenizer.clone().into());
        }
        if !self.tokens.is_empty() {
            root.insert("tokens".into(), tokens_json(&self.tokens));
        }
        let tools = self
            .tools
            .iter()
            .map(|t| {
                let mut entry = t.definition.as_object().cloned().unwrap_or_default();
                if !t.tokens.is_empty() {
                    entry.insert("tokens".into(), tokens_json(&t.tokens));
                }
                if !t.renderings.is_empty() {
                    entry.insert("renderings".into(), Value::Object(t.renderings.clone()));
                }
                Value::Object(entry)
            })
            .collect();
        root.insert("tools".into(), Value::Array(tools));
        items::write(&mut root, Kind::Resource, &self.resources);
        items::write(&mut root, Kind::Prompt, &self.prompts);
        let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&LockedTool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

impl fmt::Display for Lock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

/// One tool as the lock holds it.
fn locked(tool: &Tool) -> LockedTool {
    let mut definition = render::mcp(tool);
    if let Value::Object(map) = &mut definition {
        if !tool.scopes().is_empty() {
            map.insert("scopes".into(), tool.scopes().into());
        }
        // Who sees the tool and what hosts show for it, when not the defaults.
        if tool.visibility() != Visibility::Both {
            map.insert("visibility".into(), tool.visibility().as_str().into());
        }
        match tool.view() {
            Some(ToolView::Card) => {
                map.insert("view".into(), "card".into());
            }
            Some(_) => {
                map.insert("view".into(), "html".into());
            }
            None => {}
        }
        if !tool.examples().is_empty() {
            let examples = tool
                .examples()
                .iter()
                .map(|e| serde_json::json!({"label": e.label, "input": e.input}))
                .collect();
            map.insert("examples".into(), Value::Array(examples));
        }
    }
    let mut tokens = BTreeMap::new();
    let mcp_schema = definition
        .get("inputSchema")
        .cloned()
        .unwrap_or(Value::Null);
    let mut renderings: Vec<(Vec<String>, Value)> = Vec::new();
    for format in Format::ALL {
        let rendered = render::render(tool, format, RenderOptions::default()).definition;
        let cost = match format {
            // Icons are for people: no model is sent them (as `check`'s budget counts).
            Format::Mcp => {
                let mut sent = rendered.clone();
                if let Value::Object(m) = &mut sent {
                    m.remove("icons");
                }
                count(&sent)
            }
            _ => count(&rendered),
        };
        tokens.insert(format.as_str().to_owned(), cost);
        let modes: &[bool] = if format.has_strict() {
            &[false, true]
        } else {
            &[false]
        };
        for &strict in modes {
            let rendered =
                render::render(tool, format, RenderOptions::default().strict(strict)).definition;
            let Some(schema) = input_schema_of(format, &rendered) else {
                continue;
            };
            if *schema == mcp_schema {
                continue;
            }
            let name = if strict {
                format!("{format} --strict")
            } else {
                format.as_str().to_owned()
            };
            match renderings.iter_mut().find(|(_, s)| s == schema) {
                Some((names, _)) => names.push(name),
                None => renderings.push((vec![name], schema.clone())),
            }
        }
    }
    LockedTool {
        name: tool.name().to_owned(),
        definition,
        tokens,
        renderings: renderings
            .into_iter()
            .map(|(names, schema)| (names.join(", "), schema))
            .collect(),
    }
}

/// Where a format's rendering keeps the input schema.
fn input_schema_of(format: Format, rendered: &Value) -> Option<&Value> {
    match format {
        Format::OpenAi => rendered.get("function")?.get("parameters"),
        Format::OpenAiResponses | Format::GeminiOpenApi => rendered.get("parameters"),
        Format::Anthropic => rendered.get("input_schema"),
        Format::Gemini => rendered.get("parametersJsonSchema"),
        Format::Mcp => rendered.get("inputSchema"),
    }
}

/// The tokens of a value's compact JSON text, as a request carries it.
fn count(value: &Value) -> u64 {
    let text = serde_json::to_string(value).unwrap_or_default();
    crate::tokens::count(&text) as u64
}

/// Counts in format order.
fn tokens_json(tokens: &BTreeMap<String, u64>) -> Value {
    let mut out = Map::new();
    for format in Format::ALL {
        if let Some(n) = tokens.get(format.as_str()) {
            out.insert(format.as_str().into(), (*n).into());
        }
    }
    for (k, n) in tokens {
        if !out.contains_key(k) {
            out.insert(k.clone(), (*n).into());
        }
    }
    Value::Object(out)
}

fn counts(value: Option<&Value>, at: &str) -> Result<BTreeMap<String, u64>, (String, String)> {
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v.as_u64() {
                Some(n) => Ok((k.clone(), n)),
                None => Err((format!("{at}.{k}"), "expected a count of tokens".to_owned())),
            })
            .collect(),
        Some(_) => Err((
            at.to_owned(),
            "expected an object of counts per format".to_owned(),
        )),
    }
}
