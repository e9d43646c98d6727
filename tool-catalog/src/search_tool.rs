//! The built-in `search_tools` tool: how a model finds deferred tools.

use serde_json::{Value, json};

use super::{SearchOptions, SharedCatalog};
use tool_core::{Registry, ToolError, ToolOutput, registry::DynamicTool, registry::RegistryError};

/// The name of the built-in search tool.
pub const SEARCH_TOOLS: &str = "search_tools";

/// Most matches one search returns.
pub(super) const MAX_LIMIT: usize = 20;

/// Longest query, in bytes.
const MAX_QUERY: usize = 1000;

/// The origin `install` gives `search_tools`, by which a session knows it.
pub(super) const INSTALLED_BY: &str = "tool_catalog::install";

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Query {
    query: String,
    limit: Option<u64>,
    domain: Option<String>,
}

/// Adds `search_tools` (a `core` tool) to `registry`, over a catalog of every tool in it, and
/// returns the catalog so it can follow later changes ([`SharedCatalog::sync`]).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use serde_json::json;
/// use tool_core::{registry::DynamicTool, Registry, ToolContext};
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("send_email", "Sends an email.", json!({"type": "object"}))).unwrap();
/// tool_catalog::install(&mut registry).unwrap();
/// let out = tool_core::Executor::new(registry)
///     .call("search_tools", json!({"query": "mail my boss"}), &ToolContext::new())
///     .await
///     .unwrap();
/// assert_eq!(out.data().unwrap()["matches"][0]["name"], "send_email");
/// # });
/// ```
pub fn install(registry: &mut Registry) -> Result<SharedCatalog, RegistryError> {
    install_with(registry, None)
}

/// [`install`], with a model for hybrid search when `embedding` is given (see
/// [`Catalog::with_embedding`](super::Catalog::with_embedding)).
pub fn install_with(
    registry: &mut Registry,
    embedding: Option<super::Embedding>,
) -> Result<SharedCatalog, RegistryError> {
    let catalog = SharedCatalog::with_embedding(registry, embedding);
    let searched = catalog.clone();
    let schema = json!({
        "$schema": tool_core::definition::schema::DIALECT,
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What you need to do, in your own words, e.g. \"open a pull request\" or \"resize an image\""
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": 5,
                "description": "How many tools to return, 1 to 20"
            },
            "domain": {
                "type": "string",
                "description": "Only tools of this domain"
            }
        },
        "required": ["query"],
        "additionalProperties": false
    });
    let output = json!({
        "$schema": tool_core::definition::schema::DIALECT,
        "type": "object",
        "properties": {
            "matches": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "hint": {"type": "string"},
                        "domain": {"type": "string"}
                    },
                    "required": ["name", "hint", "domain"]
                }
            }
        },
        "required": ["matches"]
    });
    let tool = DynamicTool::new(
        SEARCH_TOOLS,
        "Finds tools for a task among those not loaded yet, best first, and loads them for your \
         next step. Returns each match's name, a one-line hint and its domain. Use it when none \
         of your tools fits; describe the task, not a tool name.",
        schema,
    )
    .domain("catalog", "Finding the tools for a task")
    .label("Looking for tools")
    .hint("Finds and loads tools for a task")
    .core(true)
    .output_schema(output)
    .example(
        "Find a way to open a pull request",
        json!({"query": "open a pull request"}),
    )
    .origin(INSTALLED_BY)
    // The catalog's own code: it reads, as it says.
    .vouched(true)
    .handler(move |input, ctx| {
        let catalog = searched.clone();
        // Only what the caller may call: a tool it lacks the scopes for is not offered.
        let caller = ctx.principal().cloned();
        async move { search(&catalog, input, caller) }
    });
    registry.register(tool)?;
    catalog.sync(registry);
    Ok(catalog)
}

fn search(
    catalog: &SharedCatalog,
    input: Value,
    caller: Option<tool_core::context::Principal>,
) -> tool_core::exec::CallResult {
    let query: Query = tool_core::exec::decode(input)?;
    let limit = query.limit.unwrap_or(5);
    if !(1..=MAX_LIMIT as u64).contains(&limit) {
        return Err(ToolError::invalid_input(format!(
            "limit must be from 1 to {MAX_LIMIT}, not {limit}"
        ))
        .with_path("limit"));
    }
    if query.query.len() > MAX_QUERY {
        return Err(ToolError::invalid_input(format!(
            "the query is {} bytes; describe the task in under {MAX_QUERY}",
            query.query.len()
        ))
        .with_path("query"));
    }
    if super::terms(&query.query).is_empty() {
        return Err(ToolError::invalid_input(
            "the query has no words to search for; describe the task, e.g. \"send an email\"",
        )
        .with_path("query"));
    }
    catalog.read(|catalog| {
        if let Some(domain) = &query.domain {
            catalog
                .check_domain_for(domain, caller.as_ref())
                .map_err(|e| ToolError::invalid_input(e.to_string()).with_path("domain"))?;
        }
        let options = SearchOptions {
            limit: limit as usize,
            domain: query.domain.clone(),
            include_core: false,
            caller,
        };
        let matches = catalog.search(&query.query, &options);
        let echo = if matches.is_empty() {
            "no tool matches; try other words".to_owned()
        } else {
            matches
                .iter()
                .map(|m| format!("{}: {} ({})", m.name, m.hint, m.domain))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let data = json!({
            "matches": matches
                .iter()
                .map(|m| json!({"name": m.name, "hint": m.hint, "domain": m.domain}))
                .collect::<Vec<_>>()
        });
        Ok(ToolOutput::new(data).with_echo(echo))
    })
}
