//! A user's own binary (`tests/fixtures/notes-agent`, version 1.4.0, on tool-core and tool-cli
//! by path) built as a user builds it: tool-cli's ready-made main gives its tool the binary's
//! state, its transform renames a tool, its layer redacts reads and prompts, and it is itself,
//! not toolctl, in `--version` and in `serverInfo` in both eras. Built with tool-cli's feature
//! `code` and none of tool-cli's default features, it serves stdio alone, compiles no HTTP
//! server, HTTP client, SQLite, token counter or schema validator, and is its own code-mode
//! worker: a script's memory limit holds.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use tests::{cargo, workspace};

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
    let mut server = Session::start(&bin, &[]);
    let me = json!({"name": "notes-agent", "version": "1.4.0"});
    let session = server.ask(
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
    let listed = server.ask(2, "tools/list", json!({"_meta": meta.clone()}));
    assert_eq!(listed["_meta"]["io.modelcontextprotocol/serverInfo"], me);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"where_are_notes"), "{names:?}");
    assert!(!names.contains(&"get_notes_folder"), "{names:?}");
    let called = server.ask(
        3,
        "tools/call",
        json!({"name": "where_are_notes", "arguments": {}, "_meta": meta}),
    );
    assert_eq!(called["structuredContent"], json!("/srv/notes"), "{called}");
    server.stop();
}

/// A line-delimited JSON-RPC session with `bin serve --stdio ...`.
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Session {
    fn start(bin: &Path, args: &[&str]) -> Self {
        let mut child = Command::new(bin)
            .args(["serve", "--stdio"])
            .args(args)
            .env("XDG_DATA_HOME", workspace().join("target/tmp"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
        }
    }

    fn ask(&mut self, id: u64, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["id"], id, "{answer}");
        answer["result"].clone()
    }

    /// Ends the server; what it wrote to stderr.
    fn stop(self) -> String {
        drop(self.stdin);
        let out = self.child.wait_with_output().unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

#[test]
fn a_stdio_only_binary_compiles_none_of_what_it_leaves_out_and_says_so_when_asked() {
    let tree = cargo()
        .args([
            "tree",
            "-p",
            "notes-agent",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .output()
        .expect("cargo runs");
    assert!(tree.status.success());
    let tree = String::from_utf8_lossy(&tree.stdout);
    let crates: Vec<&str> = tree.lines().filter_map(|l| l.split(' ').next()).collect();
    for left_out in [
        "axum",
        "hyper",
        "reqwest",
        "rustls",
        "rusqlite",
        "tiktoken-rs",
        "jsonschema",
    ] {
        assert!(!crates.contains(&left_out), "{left_out} is linked");
    }
    // What needs a left-out part is refused, naming the feature that brings it.
    let bin = binary();
    for (args, feature) in [
        (&["serve", "--http", "127.0.0.1:0"][..], "`http`"),
        (
            &["serve", "--stdio", "--tasks", "sqlite:/tmp/t.sqlite3"],
            "`sqlite`",
        ),
        (&["list", "--mount", "other=other-server"], "`mount`"),
    ] {
        let (out, _) = run(&bin, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("without tool-cli's feature {feature}")),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn with_the_feature_code_the_binary_is_its_own_code_worker() {
    // Alone in a folder: no tool-code-worker beside it to fall back on.
    let folder = tempfile::tempdir().unwrap();
    let bin = folder.path().join("notes-agent");
    std::fs::copy(binary(), &bin).unwrap();
    let mut server = Session::start(&bin, &["--code-mode"]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    });
    let script = |id, code: &str| {
        (
            id,
            json!({"name": "execute_code", "arguments": {"code": code}, "_meta": meta}),
        )
    };
    // A memory bomb ends in the memory limit's error, which only a worker can give (in the
    // server's own process the CPU-time limit would end it).
    let (id, bomb) = script(1, "a = []\nwhile True:\n    a.append('x' * 100000)");
    let ended = server.ask(id, "tools/call", bomb);
    assert_eq!(ended["structuredContent"]["limit"], "max_memory", "{ended}");
    // And the server answers the next script, whose call reaches the binary's tool and state.
    let (id, next) = script(2, "await where_are_notes()");
    let answered = server.ask(id, "tools/call", next);
    assert_eq!(answered["isError"], false, "{answered}");
    assert!(
        answered["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("/srv/notes")),
        "{answered}"
    );
    let stderr = server.stop();
    assert!(!stderr.contains("warning"), "{stderr}");
}
