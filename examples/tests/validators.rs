//! `toolctl export` checked by the official packages: every format's output goes through
//! `scripts/validate_defs.py`, which runs it past `mcp.types.Tool`, google-genai's
//! `FunctionDeclaration` and `jsonschema`'s 2020-12 metaschema (see the script for each format's
//! rules). The Python packages live in `target/py-venv`, built by `scripts/python-env`
//! (`scripts/test` runs it before `cargo test`); without it these tests fail, they never skip.
//!
//! The helpers live in `tests/support/validators.rs`, shared with `tests/tests/validators.rs`,
//! which validates `hardctl` (the hard input types) the same way.

#[path = "../../tests/support/validators.rs"]
#[macro_use]
mod support;

use std::process::{Command, Output};

use serde_json::json;
use support::*;

export_tests! { env!("CARGO_BIN_EXE_toolctl"), TOOLCTL_CASES;
    toolctl_openai => "openai";
    toolctl_openai_strict => "openai", strict;
    toolctl_openai_responses => "openai-responses";
    toolctl_openai_responses_strict => "openai-responses", strict;
    toolctl_anthropic => "anthropic";
    toolctl_anthropic_strict => "anthropic", strict;
    toolctl_gemini => "gemini";
    toolctl_gemini_openapi => "gemini-openapi";
    toolctl_mcp => "mcp";
}

/// A format added to toolctl must be added above (and taught to validate_defs.py).
#[test]
fn every_toolctl_format_is_validated() {
    let out = Command::new(env!("CARGO_BIN_EXE_toolctl"))
        .args(["export", "--format", "no-such-format"])
        .output()
        .expect("toolctl runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (_, list) = stderr.split_once("expected one of: ").unwrap_or_else(|| {
        panic!("toolctl no longer lists its formats when given an unknown one:\n{stderr}")
    });
    let formats: Vec<&str> = list.lines().next().unwrap_or("").split(", ").collect();
    for format in &formats {
        assert!(
            TOOLCTL_CASES.iter().any(|(f, _)| f == format),
            "toolctl's format `{format}` is not validated; add it to export_tests!"
        );
    }
    for strict in ["openai", "openai-responses", "anthropic"] {
        assert!(
            TOOLCTL_CASES.contains(&(strict, true)),
            "`{strict} --strict` is not validated"
        );
    }
    assert_eq!(TOOLCTL_CASES.len(), formats.len() + 3, "{formats:?}");
}

/// The validators are not vacuous: broken definitions fail, by name, with exit code 1.
#[test]
fn validators_reject_broken_definitions() {
    let cases = [
        (
            "mcp",
            false,
            json!([
                {"name": "fine_mcp_tool", "inputSchema": {"type": "object"}},
                {"name": "array_input_tool", "inputSchema": {"type": "array", "items": {"type": "string"}}},
            ]),
            "array_input_tool",
            "inputSchema.type must be \"object\"",
            "1 passed, 1 failed",
        ),
        (
            "mcp",
            false,
            json!([{"name": "bad_schema_tool", "inputSchema": {"type": "object", "properties": {"a": {"type": "strin"}}}}]),
            "bad_schema_tool",
            "not a valid 2020-12 schema",
            "0 passed, 1 failed",
        ),
        (
            "gemini",
            false,
            json!([{"name": "unknown_key_decl", "description": "d", "parametersJsonSchema": {"type": "object"}, "strict": true}]),
            "unknown_key_decl",
            "Extra inputs are not permitted",
            "0 passed, 1 failed",
        ),
        (
            "gemini-openapi",
            false,
            json!([{"name": "two_channel_decl", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}},
                    "parametersJsonSchema": {"type": "object"}}]),
            "two_channel_decl",
            "both `parameters` and `parametersJsonSchema`",
            "0 passed, 1 failed",
        ),
        (
            "gemini-openapi",
            false,
            json!([{"name": "bad_type_decl", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "TEXT"}}}}]),
            "bad_type_decl",
            "TEXT is not a valid Type",
            "0 passed, 1 failed",
        ),
        (
            "openai",
            true,
            json!([{"type": "function", "function": {"name": "open_defs_fn", "strict": true, "parameters": {
                "type": "object", "additionalProperties": false,
                "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"],
                "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}}}}]),
            "open_defs_fn",
            "function.parameters/$defs/A needs additionalProperties: false",
            "0 passed, 1 failed",
        ),
        (
            "anthropic",
            false,
            json!([
                {"name": "bad_example_tool", "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
                 "input_examples": [{"n": "three"}]},
                {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
            ]),
            "bad_example_tool",
            "input_examples[0] does not match input_schema",
            "1 passed, 1 failed",
        ),
    ];
    // Each case starts a Python process; run them side by side.
    let outputs: Vec<Output> = std::thread::scope(|s| {
        let runs: Vec<_> = cases
            .iter()
            .map(|(format, strict, defs, ..)| {
                s.spawn(move || run_validator(defs.to_string().as_bytes(), format, *strict))
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("validator thread"))
            .collect()
    });
    for ((format, _, _, tool, reason, summary), out) in cases.into_iter().zip(outputs) {
        let text = report(&out);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: {tool} should fail:\n{text}"
        );
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("FAIL {tool} [{format}")))
            .unwrap_or_else(|| panic!("{format}: no failure line names {tool}:\n{text}"));
        assert!(
            line.contains(reason),
            "{format}: expected `{reason}` in `{line}`:\n{text}"
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).lines().last(),
            Some(summary),
            "{format}:\n{text}"
        );
    }
}
