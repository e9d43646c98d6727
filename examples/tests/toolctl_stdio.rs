//! `toolctl serve --stdio` as clients meet it, through a real pipe: every request answered
//! exactly once whatever arrives (every line it writes checked with the official Python SDK's
//! envelope model), the calls in flight answered when stdin closes or SIGTERM arrives, a client
//! that does not read kept from growing the server, and `--sdk-transport`.

mod running;
#[path = "../../tests/support/validators.rs"]
mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{python, report, workspace_root};

/// The binary under test: this build's, or the one `TOOLCTL_UNDER_TEST` names (one built from
/// an earlier commit, to see which of these checks it fails).
fn toolctl() -> String {
    std::env::var("TOOLCTL_UNDER_TEST").unwrap_or_else(|_| env!("CARGO_BIN_EXE_toolctl").into())
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn serve(args: &[&str]) -> Child {
    Command::new(toolctl())
        .args(["serve", "--stdio"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("toolctl runs")
}

fn call(id: impl Into<Value>, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

/// Writes `opening` (which must hold `initialize`), waits for the session to begin, then writes
/// `input` and closes stdin, as `cat requests.jsonl | toolctl serve --stdio` does once the
/// server has started; returns every line the server wrote, and how it exited.
fn piped(args: &[&str], opening: &str, input: String) -> (Vec<String>, ExitStatus) {
    let mut child = serve(args);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(opening.as_bytes()).unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains(r#""id":"init""#), "{first}");
    let writer = std::thread::spawn(move || {
        stdin.write_all(input.as_bytes()).unwrap();
    });
    let mut lines = vec![first.trim_end().to_owned()];
    lines.extend(stdout.lines().map(|l| l.expect("UTF-8 lines")));
    writer.join().unwrap();
    (lines, wait(child))
}

/// How the server exited, within 30 s.
fn wait(child: Child) -> ExitStatus {
    running::exit_within(child, Duration::from_secs(30)).expect("the server exits")
}

fn json_lines(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The answers by id, each id's answers in order.
fn by_id(answers: &[Value]) -> BTreeMap<String, Vec<Value>> {
    let mut map: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for answer in answers {
        map.entry(answer["id"].to_string())
            .or_default()
            .push(answer.clone());
    }
    map
}

/// Requests still running when stdin closes are answered, then the server exits 0: nothing
/// was lost (the end of input once cancelled them and wrote nothing).
#[test]
fn no_answer_is_lost_when_stdin_closes() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..10 {
        std::fs::write(dir.path().join(format!("f{n}.txt")), format!("file {n}\n")).unwrap();
    }
    let mut input = String::new();
    for n in 0..20 {
        input += &call(n, "wait_duration", json!({"seconds": 0.05}));
        input.push('\n');
    }
    for n in 20..30 {
        input += &call(n, "read_file", json!({"path": format!("f{}.txt", n - 20)}));
        input.push('\n');
    }
    for n in 30..40 {
        input += &call(n, "list_directory", json!({"path": "."}));
        input.push('\n');
    }
    let root = dir.path().to_str().unwrap();
    let opening = format!("{INITIALIZE}\n{INITIALIZED}\n");
    let (lines, status) = piped(&["--root", root], &opening, input);
    assert!(status.success(), "{status}");
    let answers = by_id(&json_lines(&lines));
    for n in 0..40 {
        let got = answers
            .get(&n.to_string())
            .map(Vec::as_slice)
            .unwrap_or_default();
        assert_eq!(got.len(), 1, "call {n}: {got:?}");
        assert_eq!(got[0]["result"]["isError"], false, "{}", got[0]);
    }
    assert_eq!(answers.len(), 41, "the 40 calls and `initialize`");
}

/// The lines independent clients sent that once got no answer, an answer without `id`, the
/// wrong error code, or an ambiguous message run: each gets the JSON-RPC answer it calls for,
/// and every line the server writes is one the official Python SDK's envelope model accepts.
#[test]
fn every_answer_is_one_json_rpc_calls_for_and_the_python_sdk_accepts() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    // (id, line, expected code; 0 for a result); a `null` id is written "null".
    let cases: Vec<(&str, String, i64)> = vec![
        (
            "null",
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#.into(),
            -32600,
        ),
        (
            "null",
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#.into(),
            -32600,
        ),
        (
            "null",
            r#"{"jsonrpc":"2.0","id":true,"method":"tools/list"}"#.into(),
            -32600,
        ),
        (
            "null",
            r#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"tools/list"}"#.into(),
            -32600,
        ),
        (
            "null",
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#.into(),
            -32600,
        ),
        (
            "null",
            r#"[{"jsonrpc":"2.0","id":90,"method":"ping"}]"#.into(),
            -32600,
        ),
        ("null", "[]".into(), -32600),
        ("null", r#"{"foo":1}"#.into(), -32600),
        (
            "null",
            r#"{"jsonrpc":"2.0","id":91,"id":92,"method":"ping"}"#.into(),
            -32600,
        ),
        ("null", "not json".into(), -32700),
        ("1", r#"{"id":1,"method":"tools/list"}"#.into(), -32600),
        (
            "2",
            r#"{"jsonrpc":"1.0","id":2,"method":"tools/list"}"#.into(),
            -32600,
        ),
        (
            "3",
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":["get_current_time"]}"#
                .into(),
            -32602,
        ),
        (
            "4",
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#.into(),
            -32602,
        ),
        (
            "5",
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":null}"#.into(),
            -32602,
        ),
        (
            "6",
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":7}}"#.into(),
            -32602,
        ),
        (
            "7",
            call(7, "get_current_time", json!({"timezone": "\u{1F600}"}))
                .replace("\u{1F600}", r"\ud800"),
            -32602,
        ),
        (
            "8",
            call(8, "get_current_time", json!({"timezone": "UTC"})).replace(r#""UTC""#, &deep),
            -32602,
        ),
        (
            "9",
            call(9, "get_current_time", json!({"timezone": "UTC"})).replace(r#""UTC""#, "1e400"),
            -32602,
        ),
        (
            "10",
            call(10, "get_current_time", json!({"timezone": "UTC"}))
                .replace("\"jsonrpc\"", r#""result":{},"jsonrpc""#),
            -32600,
        ),
        (
            "11",
            r#"{"jsonrpc":"2.0","id":11,"method":"ping","error":{"code":1,"message":"m"}}"#.into(),
            -32600,
        ),
        (
            "12",
            call(12, "get_current_time", json!({"timezone": "UTC"})),
            0,
        ),
    ];
    // A notification before `initialize` once ended the server.
    let opening = format!("{INITIALIZED}\n{INITIALIZE}\n{INITIALIZED}\n");
    let mut input = String::new();
    for (_, line, _) in &cases {
        input += line;
        input.push('\n');
    }
    let (lines, status) = piped(&[], &opening, input);
    assert!(status.success(), "{status}");

    // The official Python SDK's model accepts every line.
    let mut validator = Command::new(python())
        .arg(workspace_root().join("examples/tests/mcp/validate_lines.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the venv's python runs (scripts/python-env builds it)");
    validator
        .stdin
        .take()
        .unwrap()
        .write_all((lines.join("\n") + "\n").as_bytes())
        .unwrap();
    let checked = validator.wait_with_output().unwrap();
    assert!(checked.status.success(), "{}", report(&checked));
    assert_eq!(
        String::from_utf8_lossy(&checked.stdout).trim(),
        format!("ok {}", lines.len())
    );

    let answers = by_id(&json_lines(&lines));
    let mut null_codes: Vec<i64> = answers["null"]
        .iter()
        .map(|a| a["error"]["code"].as_i64().unwrap())
        .collect();
    null_codes.sort_unstable();
    let mut expected_null: Vec<i64> = cases
        .iter()
        .filter(|(id, _, _)| *id == "null")
        .map(|c| c.2)
        .collect();
    expected_null.sort_unstable();
    assert_eq!(null_codes, expected_null, "{:#?}", answers["null"]);
    for (id, line, code) in cases.iter().filter(|c| c.0 != "null") {
        let got = answers.get(*id).map(Vec::as_slice).unwrap_or_default();
        assert_eq!(got.len(), 1, "{line:.80}: {got:?}");
        let got_code = got[0]["error"]["code"].as_i64().unwrap_or(0);
        assert_eq!(got_code, *code, "{line:.80}: {}", got[0]);
    }
    assert_eq!(
        answers.len(),
        cases.len() - expected_null.len() + 2,
        "and `null` and `init`"
    );
}

fn kill(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

/// SIGTERM ends input as closing stdin does: the call in flight is answered, then the server
/// exits 0.
#[test]
fn sigterm_answers_the_calls_in_flight_and_exits_0() {
    let mut child = serve(&[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{INITIALIZE}\n{INITIALIZED}").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    // With a progress token: its first progress (a tenth of the way) says the call runs.
    let waiting = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "wait_duration", "arguments": {"seconds": 0.5}, "_meta": {"progressToken": 1}}});
    writeln!(stdin, "{waiting}").unwrap();
    stdin.flush().unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("notifications/progress"), "{line}");
    kill(&child, "-TERM");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let status = wait(child);
    assert!(status.success(), "{status}");
    let answers: Vec<Value> = rest
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|a: &Value| a.get("id").is_some())
        .collect();
    assert_eq!(answers.len(), 1, "{rest}");
    assert_eq!(
        answers[0]["result"]["structuredContent"]["seconds"], 0.5,
        "{rest}"
    );
    drop(stdin);
}

/// `--sdk-transport` serves through the SDK's own codec and loop: calls are answered, and a
/// line that is no message gets the SDK's answer (without an `id`), not this transport's.
#[test]
fn sdk_transport_serves_through_the_sdk_alone() {
    let opening = format!("{INITIALIZE}\n{INITIALIZED}\n");
    let input = format!(
        "{}\n{{\"foo\":1}}\n",
        call(1, "get_current_time", json!({"timezone": "UTC"}))
    );
    let (lines, status) = piped(&["--sdk-transport"], &opening, input.clone());
    assert!(status.success(), "{status}");
    let sdk = json_lines(&lines);
    let answer = sdk
        .iter()
        .find(|a| a["id"] == 1)
        .expect("the call answered");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let refused = sdk
        .iter()
        .find(|a| a.get("error").is_some())
        .expect("`foo` refused");
    assert!(
        refused.get("id").is_none(),
        "the SDK's own answer: {refused}"
    );
    let (lines, _) = piped(&[], &opening, input);
    let ours = json_lines(&lines);
    let refused = ours
        .iter()
        .find(|a| a.get("error").is_some())
        .expect("`foo` refused");
    assert_eq!(refused["id"], Value::Null, "{refused}");
}

/// A call that reports progress, in flight when the input ends, is still answered through the
/// SDK's own loop (which, draining, takes no more notifications: the result does not wait on
/// them).
#[test]
fn sdk_transport_answers_a_call_with_progress_at_the_end_of_input() {
    let opening = format!("{INITIALIZE}\n{INITIALIZED}\n");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "wait_duration", "arguments": {"seconds": 1}, "_meta": {"progressToken": "p"}}});
    let (lines, status) = piped(&["--sdk-transport"], &opening, format!("{request}\n"));
    assert!(status.success(), "{status}");
    let answers = json_lines(&lines);
    let answer = answers
        .iter()
        .find(|a| a["id"] == 1)
        .unwrap_or_else(|| panic!("the call was dropped: {lines:?}"));
    assert_eq!(
        answer["result"]["structuredContent"]["seconds"], 1.0,
        "{answer}"
    );
}

/// The server's peak resident memory (VmHWM), in MiB.
fn peak_rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmHWM in /proc/PID/status");
    kib / 1024.0
}

/// A client writes 20,000 calls with 4 KiB ids and does not read until its writes stall (or
/// all are written): the server stops reading instead of buffering every answer, and once the client reads, every call is answered
/// exactly once. (The figures, for release builds and before and after, come from
/// `benchmarks/mcp`'s `mcp-backlog`.)
#[test]
fn a_client_that_does_not_read_cannot_grow_the_server() {
    const CALLS: usize = 20_000;
    let mut child = serve(&[]);
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{INITIALIZE}\n{INITIALIZED}").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let idle = peak_rss_mib(pid);
    let pad = "x".repeat(4096);
    let written = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writing = written.clone();
    let writer = std::thread::spawn(move || {
        let mut stdin = std::io::BufWriter::new(stdin);
        for i in 0..CALLS {
            let id = format!("{i}-{pad}");
            writeln!(
                stdin,
                "{}",
                call(id, "get_current_time", json!({"timezone": "UTC"}))
            )
            .unwrap();
            writing.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    });
    // Until the writer is done or stuck (nothing written for half a second: the server has
    // stopped reading), for 30 s at most. A stall is the absence of a signal: it takes time.
    let until = Instant::now() + Duration::from_secs(30);
    let (mut last, mut still) = (0, 0);
    while !writer.is_finished() && still < 5 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
        let now = written.load(std::sync::atomic::Ordering::Relaxed);
        still = if now == last { still + 1 } else { 0 };
        last = now;
    }
    let peak_unread = peak_rss_mib(pid);
    let started = Instant::now();
    let mut seen = vec![false; CALLS];
    for _ in 0..CALLS {
        line.clear();
        stdout.read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        let i: usize = answer["id"]
            .as_str()
            .unwrap()
            .split('-')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            !std::mem::replace(&mut seen[i], true),
            "answered twice: {i}"
        );
    }
    let drained = started.elapsed();
    writer.join().unwrap();
    let peak = peak_rss_mib(pid);
    eprintln!(
        "backlog: idle {idle:.1} MiB, peak while unread {peak_unread:.1} MiB, peak {peak:.1} MiB, \
         drained in {:.2} s",
        drained.as_secs_f64()
    );
    // Unbounded, the server held every answer (about 90 MB of them) while the client did not
    // read. Bounded, it holds a mebibyte of answers and a few of requests.
    assert!(
        peak - idle < 32.0,
        "the server grew {:.1} MiB while its answers were not read",
        peak - idle
    );
    kill(&child, "-TERM");
    wait(child);
}

/// `toolctl tasks` reads the store `serve` keeps its tasks in, every caller's, and cancels a
/// running task on the instance that runs it (at its next lease renewal).
#[test]
fn operators_read_and_cancel_tasks_with_toolctl_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite:{}", dir.path().join("tasks.sqlite3").display());
    let mut child = serve(&[
        "--tasks",
        &store,
        "--task-after",
        "0",
        "--task-lease",
        "0.6",
    ]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    });
    let mut ask = |id: u64, method: &str, params: Value| -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{line}").unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["id"], id, "{answer}");
        answer["result"].clone()
    };
    let start = |ask: &mut dyn FnMut(u64, &str, Value) -> Value, id: u64, seconds: f64| {
        let params = json!({"name": "wait_duration", "arguments": {"seconds": seconds},
                            "_meta": meta.clone()});
        let created = ask(id, "tools/call", params);
        assert_eq!(created["resultType"], "task", "{created}");
        created["taskId"].as_str().unwrap().to_owned()
    };
    let long = start(&mut ask, 1, 60.0);
    let short = start(&mut ask, 2, 0.1);
    let tasks = |args: &[&str]| {
        Command::new(toolctl())
            .args(["tasks", "--store", &store])
            .args(args)
            .output()
            .unwrap()
    };
    // The short one ends; the long one runs.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let listed = tasks(&["list", "--json", "--status", "completed"]);
        let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
        if listed.as_array().unwrap().len() == 1 {
            assert_eq!(listed[0]["id"], short.as_str());
            break;
        }
        assert!(Instant::now() < until, "the short task never completed");
        std::thread::sleep(Duration::from_millis(50));
    }
    let listed = tasks(&["list"]);
    assert!(listed.status.success());
    let table = String::from_utf8(listed.stdout).unwrap();
    assert_eq!(table.lines().count(), 3, "a header and two tasks: {table}");
    assert!(
        table.contains(&long) && table.contains("working"),
        "{table}"
    );

    let shown = tasks(&["show", &long]);
    let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(shown["status"], "working", "{shown}");
    assert_eq!(shown["tool"], "wait_duration", "{shown}");
    assert_eq!(shown["arguments"], json!({"seconds": 60.0}), "{shown}");
    assert!(shown["holder"].is_string(), "{shown}");

    let cancelled = tasks(&["cancel", &long]);
    assert!(cancelled.status.success());
    let said = String::from_utf8_lossy(&cancelled.stderr);
    assert!(said.contains("next lease renewal"), "{said}");
    // The instance running it sees the request and stops the tool.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let got = ask(
            3,
            "tasks/get",
            json!({"taskId": long, "_meta": meta.clone()}),
        );
        if got["status"] == "cancelled" {
            break;
        }
        assert_eq!(got["status"], "working", "{got}");
        assert!(Instant::now() < until, "the task was never cancelled");
        std::thread::sleep(Duration::from_millis(50));
    }
    let again = tasks(&["cancel", &short]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already ended: completed"));
    let unknown = tasks(&["show", "no-such-task"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no task no-such-task"));
    let missing = Command::new(toolctl())
        .args([
            "tasks",
            "--store",
            "sqlite:/nonexistent/tasks.sqlite3",
            "list",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no task store at"));
    drop(stdin);
    assert!(wait(child).success());
}
