//! The MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`, installed by
//! `scripts/node-env`) lists `toolctl serve --stdio`'s tools with `--strict` schema linting:
//! no schema errors, and no tool dropped (the Inspector silently drops a tool whose input schema
//! it cannot use, so the names are compared too). It then calls a tool through the same CLI.

#[path = "../../tests/support/mcp.rs"]
mod support;

use std::process::Output;

use serde_json::Value;
use support::inspector;

const TOOLCTL: &str = env!("CARGO_BIN_EXE_toolctl");

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("an array of tools")
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[test]
fn strict_listing_finds_no_schema_errors_and_every_tool() {
    let out = inspector()
        .args([
            "--method",
            "tools/list",
            "--strict",
            "--format",
            "json",
            "--",
        ])
        .args([TOOLCTL, "serve", "--stdio"])
        .output()
        .expect("the Inspector runs");
    assert!(out.status.success(), "{}", show(&out));
    let listed: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", show(&out)));
    let ours = std::process::Command::new(TOOLCTL)
        .args(["list", "--json"])
        .output()
        .expect("toolctl runs");
    let ours: Value = serde_json::from_slice(&ours.stdout).expect("toolctl lists JSON");
    let mut expected = names(&ours);
    let mut seen = names(&listed["result"]["tools"]);
    expected.sort();
    seen.sort();
    assert_eq!(seen, expected, "{}", show(&out));
}

#[test]
fn calls_a_tool_through_the_inspector() {
    let out = inspector()
        .args(["--method", "tools/call", "--tool-name", "convert_time", "--format", "json"])
        .args(["--tool-args-json", r#"{"time": "2026-06-01T09:00", "from_timezone": "Europe/Paris", "to_timezone": "UTC"}"#])
        .args(["--", TOOLCTL, "serve", "--stdio"])
        .output()
        .expect("the Inspector runs");
    assert!(out.status.success(), "{}", show(&out));
    let result: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", show(&out)));
    assert_eq!(
        result["result"]["structuredContent"]["target"]["datetime"],
        "2026-06-01T07:00:00+00:00",
        "{}",
        show(&out)
    );
}

/// The newest protocol (2026-07-28): the Inspector's modern era starts with `server/discover`,
/// no `initialize`.
#[test]
fn calls_a_tool_over_the_newest_protocol() {
    let out = inspector()
        .args(["--protocol-era", "modern", "--method", "tools/call"])
        .args(["--tool-name", "get_current_time", "--format", "json"])
        .args(["--tool-args-json", r#"{"timezone": "Asia/Tokyo"}"#])
        .args(["--", TOOLCTL, "serve", "--stdio"])
        .output()
        .expect("the Inspector runs");
    assert!(out.status.success(), "{}", show(&out));
    let result: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", show(&out)));
    assert_eq!(
        result["result"]["structuredContent"]["timezone"],
        "Asia/Tokyo",
        "{}",
        show(&out)
    );
}
