//! The MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`, installed by
//! `scripts/node-env`) lists `toolctl serve --stdio`'s tools with `--strict` schema linting:
//! no schema errors, and no tool dropped (the Inspector silently drops a tool whose input schema
//! it cannot use, so the names are compared too). It then calls a tool through the same CLI.

#[path = "../../tests/support/mcp.rs"]
mod support;

use std::process::Command;

use serde_json::Value;
use support::{inspector, show};

const TOOLCTL: &str = env!("CARGO_BIN_EXE_toolctl");

/// Runs the Inspector against `toolctl serve --stdio`; asserts success and returns its JSON.
fn run(inspector: &mut Command) -> Value {
    let out = inspector
        .args(["--format", "json", "--", TOOLCTL, "serve", "--stdio"])
        .output()
        .expect("the Inspector runs");
    assert!(out.status.success(), "{}", show(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", show(&out)))
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("an array of tools")
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[test]
fn strict_listing_finds_no_schema_findings_and_every_tool() {
    let listed = run(inspector().args(["--method", "tools/list", "--strict"]));
    // With --strict and JSON output, the findings (errors and warnings) are in the envelope,
    // and the same report goes to stderr.
    assert!(
        listed.get("schemaFindings").is_none(),
        "the Inspector reports schema findings: {:#}",
        listed["schemaFindings"]
    );
    let ours = Command::new(TOOLCTL)
        .args(["list", "--json"])
        .output()
        .expect("toolctl runs");
    let ours: Value = serde_json::from_slice(&ours.stdout).expect("toolctl lists JSON");
    let mut expected = names(&ours);
    // Serving adds the catalog's search tool.
    expected.push("search_tools".to_owned());
    let mut seen = names(&listed["result"]["tools"]);
    expected.sort();
    seen.sort();
    assert_eq!(seen, expected);
}

#[test]
fn calls_a_tool_through_the_inspector() {
    let input =
        r#"{"time": "2026-06-01T09:00", "from_timezone": "Europe/Paris", "to_timezone": "UTC"}"#;
    let result = run(inspector()
        .args(["--method", "tools/call", "--tool-name", "convert_time"])
        .args(["--tool-args-json", input]));
    assert_eq!(
        result["result"]["structuredContent"]["target"]["datetime"], "2026-06-01T07:00:00+00:00",
        "{result}"
    );
}

/// The newest protocol (2026-07-28): the Inspector's modern era starts with `server/discover`,
/// no `initialize`.
#[test]
fn calls_a_tool_over_the_newest_protocol() {
    let result = run(inspector()
        .args(["--protocol-era", "modern", "--method", "tools/call"])
        .args(["--tool-name", "get_current_time"])
        .args(["--tool-args-json", r#"{"timezone": "Asia/Tokyo"}"#]));
    assert_eq!(
        result["result"]["structuredContent"]["timezone"], "Asia/Tokyo",
        "{result}"
    );
}
