//! What the report reads (the JSON files, by the names sections use) and which sections a
//! marker may name: a leaf below the sections that render them and the binary that fills the
//! documents.

use std::collections::BTreeMap;

use serde_json::Value;

/// Every section a marker may name, and what it is.
pub const SECTIONS: &[(&str, &str)] = &[
    ("runs", "the machine, and the run behind each section"),
    ("targets", "every target with its figure"),
    ("mcp-stdio", "mcp-load over stdio"),
    ("mcp-http", "mcp-load over Streamable HTTP"),
    (
        "mcp-eras",
        "mcp-load over stdio: 2026-07-28 beside the session era",
    ),
    (
        "mcp-http-eras",
        "mcp-load over Streamable HTTP: 2026-07-28 beside the session era",
    ),
    ("backlog", "mcp-backlog"),
    (
        "footprint",
        "mcp-footprint: lean-200, tc-200, rmcp-200 under one profile",
    ),
    ("footprint-deps", "the dependencies mcp-footprint listed"),
    ("calls", "the calls bench's ratios"),
    ("plots-calls", "the call sweep behind call_latency.png"),
    ("plots-search", "the search sweep behind search_latency.png"),
    ("compile-time", "compile time of 200 tools"),
    ("first-build", "clean builds a newcomer waits for"),
    ("catalog-quality", "the catalog's quality"),
    ("catalog-speed", "the catalog's speed"),
    ("catalog-tokens", "tokens per round"),
    (
        "catalog-hybrid",
        "hybrid search with a model: quality on every query set",
    ),
    (
        "catalog-hybrid-costs",
        "hybrid search with a model: what it costs",
    ),
    (
        "tasks",
        "MCP tasks on each store, and what they cost a plain call",
    ),
    (
        "code",
        "code mode against native calling: tokens, turns, a script's cost",
    ),
    (
        "catalog-models",
        "hybrid search: each model's recall and costs side by side",
    ),
    ("summary", "the README's table"),
];

/// The JSON files read, by the name sections use.
pub const INPUTS: &[(&str, &str)] = &[
    ("mcp", "mcp.json"),
    ("backlog", "mcp-backlog.json"),
    ("footprint", "footprint.json"),
    ("calls", "calls.json"),
    ("plots", "plots.json"),
    ("compile-time", "compile-time.json"),
    ("first-build", "first-build.json"),
    ("catalog", "catalog.json"),
    ("embed", "embed.json"),
    ("tasks", "tasks.json"),
    ("code", "code.json"),
];

/// The loaded results, by input name.
pub type Data = BTreeMap<&'static str, Value>;
