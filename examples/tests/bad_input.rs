//! What a model sends wrong, through the executor and through `toolctl call`: every case ends
//! in a clear error naming the problem; none panics or hangs.

use std::process::Command;
use std::time::Duration;

use serde_json::json;
use tool_core::exec::Executor;
use tool_core::{Registry, ToolContext, context::ToolRoot};

// Naming the tools crate links it.
use tool_bundle as _;

/// (tool, input as JSON text, a phrase the error must contain).
fn cases() -> Vec<(String, String, String)> {
    let mut cases: Vec<(&str, String, &str)> = Vec::new();
    let mut add = |tool: &'static str, input: &str, says: &'static str| {
        cases.push((tool, input.to_owned(), says));
    };

    // Malformed JSON.
    for text in [
        "{",
        "}",
        r#"{"timezone":}"#,
        r#"{"timezone": "UTC",}"#,
        "{'timezone': 'UTC'}",
        "nul",
        r#"{"a" "b"}"#,
        "[1,2",
        r#""unterminated"#,
        r#"{"timezone": "UTC"} trailing"#,
        r#"{"timezone": "UTC" "x": 1}"#,
        r#"{timezone: "UTC"}"#,
        "{,}",
        r#"{"timezone": NaN}"#,
    ] {
        add("get_current_time", text, "not valid JSON");
    }
    // Truncated JSON: every prefix of a valid input.
    let full = r#"{"time": "14:30", "from_timezone": "UTC", "to_timezone": "Asia/Tokyo"}"#;
    for cut in [1, 5, 9, 17, 25, 40, 52, 60, full.len() - 1] {
        add("convert_time", &full[..cut], "not valid JSON");
    }
    // Wrong types.
    for (tool, input, says) in [
        (
            "get_current_time",
            r#"{"timezone": 5}"#,
            "timezone: invalid type: integer `5`, expected a string",
        ),
        (
            "get_current_time",
            r#"{"timezone": true}"#,
            "timezone: invalid type: boolean",
        ),
        (
            "get_current_time",
            r#"{"timezone": []}"#,
            "timezone: invalid type: sequence",
        ),
        (
            "get_current_time",
            r#"{"timezone": {}}"#,
            "timezone: invalid type: map",
        ),
        (
            "get_current_time",
            r#"{"timezone": 1.5}"#,
            "timezone: invalid type: floating point",
        ),
        (
            "convert_time",
            r#"{"time": 1430, "from_timezone": "UTC", "to_timezone": "UTC"}"#,
            "time: invalid type: integer",
        ),
        (
            "convert_time",
            r#"{"time": "14:30", "from_timezone": ["UTC"], "to_timezone": "UTC"}"#,
            "from_timezone: invalid type: sequence",
        ),
        (
            "read_file",
            r#"{"path": "README.md", "start_line": "ten"}"#,
            "start_line: invalid type: string",
        ),
        (
            "read_file",
            r#"{"path": "README.md", "start_line": 1.5}"#,
            "start_line: invalid type: floating point",
        ),
        (
            "read_file",
            r#"{"path": "README.md", "end_line": true}"#,
            "end_line: invalid type: boolean",
        ),
        (
            "read_file",
            r#"{"path": 42}"#,
            "path: invalid type: integer",
        ),
        (
            "list_directory",
            r#"{"path": {"dir": "."}}"#,
            "path: invalid type: map",
        ),
        (
            "search_files",
            r#"{"pattern": 42}"#,
            "pattern: invalid type: integer",
        ),
        (
            "search_files",
            r#"{"pattern": "*", "content": []}"#,
            "content: invalid type: sequence",
        ),
        (
            "get_file_info",
            r#"{"path": false}"#,
            "path: invalid type: boolean",
        ),
    ] {
        add(tool, input, says);
    }
    // Missing fields.
    for (tool, input, says) in [
        ("convert_time", "{}", "3 problems"),
        (
            "convert_time",
            r#"{"time": "10:00"}"#,
            "from_timezone: missing required parameter",
        ),
        (
            "convert_time",
            r#"{"time": "10:00", "from_timezone": "UTC"}"#,
            "to_timezone: missing required parameter",
        ),
        ("read_file", "{}", "path: missing required parameter"),
        (
            "read_file",
            r#"{"start_line": 3}"#,
            "path: missing required parameter",
        ),
        ("list_directory", "{}", "path: missing required parameter"),
        (
            "search_files",
            r#"{"content": "x"}"#,
            "pattern: missing required parameter",
        ),
        ("get_file_info", "", "path: missing required parameter"),
    ] {
        add(tool, input, says);
    }
    // Extra fields.
    for (tool, input, says) in [
        (
            "get_current_time",
            r#"{"tz": "UTC"}"#,
            "unknown parameter `tz` (did you mean `timezone`?)",
        ),
        (
            "get_current_time",
            r#"{"timezone": "UTC", "format": "iso"}"#,
            "unknown parameter `format`",
        ),
        (
            "list_directory",
            r#"{"path": ".", "recursive": true}"#,
            "unknown parameter `recursive`",
        ),
        (
            "read_file",
            r#"{"path": "a", "start": 1}"#,
            "unknown parameter `start` (did you mean `start_line`?)",
        ),
        (
            "convert_time",
            r#"{"time": "1:00", "from": "UTC", "to": "UTC"}"#,
            "unknown parameter `from`",
        ),
        (
            "search_files",
            r#"{"pattern": "*", "regex": "x"}"#,
            "unknown parameter `regex`",
        ),
        (
            "get_file_info",
            r#"{"path": ".", "follow": true}"#,
            "unknown parameter `follow`",
        ),
        (
            "get_file_info",
            r#"{"path": ".", "": 1}"#,
            "unknown parameter ``",
        ),
    ] {
        add(tool, input, says);
    }
    // Nulls where a value is required.
    for (tool, input, says) in [
        (
            "read_file",
            r#"{"path": null}"#,
            "path: invalid type: null, expected a string",
        ),
        (
            "convert_time",
            r#"{"time": null, "from_timezone": "UTC", "to_timezone": "UTC"}"#,
            "time: invalid type: null",
        ),
        (
            "list_directory",
            r#"{"path": null}"#,
            "path: invalid type: null",
        ),
        (
            "search_files",
            r#"{"pattern": null}"#,
            "pattern: invalid type: null",
        ),
        (
            "get_file_info",
            r#"{"path": null}"#,
            "path: invalid type: null",
        ),
    ] {
        add(tool, input, says);
    }
    // Huge strings and inputs.
    let huge = "x".repeat(2 * 1024 * 1024);
    for (tool, key) in [
        ("get_current_time", "timezone"),
        ("read_file", "path"),
        ("search_files", "pattern"),
        ("list_directory", "path"),
        ("get_file_info", "path"),
    ] {
        add(tool, &json!({ key: huge }).to_string(), "byte limit");
    }
    add(
        "convert_time",
        &json!({"time": "x".repeat(5000), "from_timezone": "UTC", "to_timezone": "UTC"})
            .to_string(),
        "cannot read",
    );
    add(
        "get_current_time",
        &json!({"timezone": "Europe/".repeat(2000)}).to_string(),
        "not an IANA time zone",
    );
    // Deep nesting.
    for depth in [100, 1000, 100_000] {
        add(
            "get_current_time",
            &format!(
                r#"{{"timezone": {}"UTC"{}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            ),
            "levels deep",
        );
        add(
            "read_file",
            &format!(
                r#"{{"path": {}1{}}}"#,
                "{\"a\":".repeat(depth),
                "}".repeat(depth)
            ),
            "levels deep",
        );
    }
    // Invalid escapes and lone surrogates.
    for (text, says) in [
        (r#"{"timezone": "\ud800\u0041"}"#, "surrogate"),
        (r#"{"timezone": "\ud800"}"#, "hex escape"),
        (r#"{"timezone": "\udc00"}"#, "lone"),
        (r#"{"timezone": "\uZZZZ"}"#, "invalid escape"),
        (r#"{"timezone": "\x41"}"#, "invalid escape"),
        (r#"{"timezone": "\q"}"#, "invalid escape"),
        ("{\"timezone\": \"a\u{1}b\"}", "control character"),
    ] {
        add("get_current_time", text, says);
    }
    // Out-of-range numbers.
    for (input, says) in [
        (
            r#"{"path": "README.md", "start_line": -1}"#,
            "start_line: invalid value: integer `-1`",
        ),
        (
            r#"{"path": "README.md", "start_line": 1e400}"#,
            "number out of range",
        ),
        (
            r#"{"path": "README.md", "start_line": 18446744073709551616}"#,
            "start_line",
        ),
        (
            r#"{"path": "README.md", "start_line": 1e20}"#,
            "start_line: invalid type: floating point",
        ),
        (
            r#"{"path": "README.md", "end_line": -99999999999}"#,
            "end_line: invalid value",
        ),
        (
            r#"{"path": "README.md", "start_line": 0}"#,
            "lines are numbered from 1",
        ),
        (
            r#"{"path": "README.md", "start_line": 5, "end_line": 2}"#,
            "end_line 2 is before start_line 5",
        ),
    ] {
        add("read_file", input, says);
    }
    // Not an object at the root.
    for text in [
        "[]",
        r#""text""#,
        "42",
        "true",
        "[{\"timezone\": \"UTC\"}]",
        "-0.5",
    ] {
        add("get_current_time", text, "the input must be a JSON object");
    }
    // Values the tools refuse.
    for (tool, input, says) in [
        (
            "get_current_time",
            r#"{"timezone": "Mars/Olympus"}"#,
            "timezone: `Mars/Olympus` is not an IANA time zone",
        ),
        (
            "get_current_time",
            r#"{"timezone": ""}"#,
            "not an IANA time zone",
        ),
        (
            "convert_time",
            r#"{"time": "25:99", "from_timezone": "UTC", "to_timezone": "UTC"}"#,
            "time: cannot read `25:99`",
        ),
        (
            "convert_time",
            r#"{"time": "noon", "from_timezone": "UTC", "to_timezone": "UTC"}"#,
            "cannot read `noon`",
        ),
        (
            "read_file",
            r#"{"path": "../../etc/passwd"}"#,
            "uses `..` to leave the root",
        ),
        (
            "read_file",
            r#"{"path": "/etc/passwd"}"#,
            "absolute path outside the root",
        ),
        (
            "read_file",
            r#"{"path": "no/such/file.txt"}"#,
            "does not exist",
        ),
        (
            "list_directory",
            r#"{"path": "README.md"}"#,
            "is not a directory",
        ),
        (
            "search_files",
            r#"{"pattern": "[", "path": "."}"#,
            "pattern: `[` is not a valid glob",
        ),
        (
            "search_files",
            r#"{"pattern": "*", "content": "("}"#,
            "content: not a valid regular expression",
        ),
        ("read_file", "{\"path\": \"a\\u0000b\"}", "NUL"),
    ] {
        add(tool, input, says);
    }
    cases
        .into_iter()
        .map(|(t, i, s)| (t.to_owned(), i, s.to_owned()))
        .collect()
}

fn root() -> ToolRoot {
    ToolRoot::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).unwrap()
}

#[test]
fn there_are_over_a_hundred_cases() {
    let n = cases().len();
    assert!(n >= 100, "{n}");
    println!("{n} bad inputs");
}

#[tokio::test]
async fn every_bad_input_gets_a_clear_error_through_the_executor() {
    let executor = Executor::new(Registry::linked().unwrap());
    let ctx = ToolContext::builder().root(root()).build();
    let mut failures = Vec::new();
    for (tool, input, says) in cases() {
        let call = executor.call(&tool, input.as_str(), &ctx);
        match tokio::time::timeout(Duration::from_secs(10), call).await {
            Err(_) => failures.push(format!("{tool} {:.60}: hung", input)),
            Ok(Ok(out)) => {
                failures.push(format!("{tool} {:.60}: succeeded: {}", input, out.echo()))
            }
            Ok(Err(e)) if !e.to_string().contains(&says) => {
                failures.push(format!("{tool} {:.60}: `{e}` does not say `{says}`", input))
            }
            Ok(Err(_)) => {}
        }
    }
    let unknown = executor
        .call("get_curent_time", "{}", &ctx)
        .await
        .unwrap_err();
    if !unknown
        .to_string()
        .contains("did you mean `get_current_time`")
    {
        failures.push(format!("unknown tool: {unknown}"));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_bad_input_gets_a_clear_error_through_toolctl() {
    let mut failures = Vec::new();
    for (tool, input, says) in cases() {
        // Inputs beyond what an argument may hold go through standard input.
        let out = run_toolctl(&tool, &input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        let ok = matches!(code, Some(1 | 2)) && stderr.contains(&says);
        if !ok {
            failures.push(format!(
                "{tool} {:.60}: exit {code:?}: {}",
                input,
                stderr.trim()
            ));
        }
    }
    for name in [
        "get_curent_time",
        "",
        "GET_CURRENT_TIME",
        "read-file",
        "fetch",
        "list_dir",
    ] {
        let out = run_toolctl(name, "{}");
        if out.status.code() != Some(2) {
            failures.push(format!(
                "unknown tool `{name}`: exit {:?}",
                out.status.code()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn run_toolctl(tool: &str, input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolctl"))
        .args(["call", tool, "--input", "-", "--root"])
        .arg(root().path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("toolctl runs");
    let mut stdin = child.stdin.take().expect("stdin");
    // A child that exits early (usage error) closes its end: that is fine.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("toolctl finishes")
}
