//! A user's own binary (`tests/fixtures/notes-agent`, version 1.4.0, on tool-core and tool-cli
//! by path) built as a user builds it: tool-cli's ready-made main gives its tool the binary's
//! state, its transform renames a tool, its layer redacts reads and prompts, and it is itself,
//! not toolctl, in `--version` and in `serverInfo` in both eras.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace")
        .to_owned()
}

fn cargo() -> Command {
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo.current_dir(workspace());
    cargo
}

/// The binary, built as `cargo build` builds it.
fn binary() -> PathBuf {
    let out = cargo()
        .args([
            "build",
            "-q",
            "-p",
            "notes-agent",
            "--message-format",
            "json",
        ])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "notes-agent")
        .and_then(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the binary it built")
}

fn run(bin: &Path, args: &[&str]) -> (Output, Value) {
    let out = Command::new(bin).args(args).output().unwrap();
    let printed = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out, printed)
}

#[test]
fn a_users_binary_brings_its_state_transform_and_layer_and_is_itself() {
    let bin = binary();
    let (out, _) = run(&bin, &["--version"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "notes-agent 1.4.0"
    );

    // The state reaches the tool, under the name the binary's transform gave it.
    let (out, printed) = run(&bin, &["call", "where_are_notes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(printed["data"], "/srv/notes");
    // A resource read and a prompt got from its command line, through its layer.
    let (_, printed) = run(&bin, &["read", "notes://today"]);
    assert_eq!(
        printed["contents"][0]["text"],
        "Call Ada; the door code is [redacted]"
    );
    let (_, printed) = run(
        &bin,
        &["get", "review_note", "--args", r#"{"day": "monday"}"#],
    );
    assert_eq!(
        printed["messages"][0]["text"],
        "Review the note of monday; the door code is [redacted]"
    );

    // Served over stdio: its own name and version in both eras, its state in a call.
    let mut child = Command::new(&bin)
        .args(["serve", "--stdio"])
        .env("XDG_DATA_HOME", workspace().join("target/tmp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |id: u64, method: &str, params: Value| -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{line}").unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["id"], id, "{answer}");
        answer["result"].clone()
    };
    let me = json!({"name": "notes-agent", "version": "1.4.0"});
    let session = ask(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "test", "version": "1"}}),
    );
    assert_eq!(session["serverInfo"], me);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    });
    let listed = ask(2, "tools/list", json!({"_meta": meta.clone()}));
    assert_eq!(listed["_meta"]["io.modelcontextprotocol/serverInfo"], me);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"where_are_notes"), "{names:?}");
    assert!(!names.contains(&"get_notes_folder"), "{names:?}");
    let called = ask(
        3,
        "tools/call",
        json!({"name": "where_are_notes", "arguments": {}, "_meta": meta}),
    );
    assert_eq!(called["structuredContent"], json!("/srv/notes"), "{called}");
    drop(stdin);
    let _ = child.wait();
}
