//! `toolctl serve` and `--mount` end to end: the real binary serving Streamable HTTP on
//! loopback, and a second `toolctl serve --stdio` mounted into `list`, `call`, `export` and
//! `check`, so one binary offers local and remote tools alike.

mod running;
#[path = "../../tests/support/mcp.rs"]
mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Output};
use std::time::Duration;

use running::Running;
use support::HttpServer;

use serde_json::{Value, json};

const TOOLCTL: &str = env!("CARGO_BIN_EXE_toolctl");

fn toolctl(args: &[&str]) -> Output {
    Command::new(TOOLCTL)
        .args(args)
        .output()
        .expect("toolctl runs")
}

/// `--mount twin=<this toolctl> serve --stdio`: the bundled tools again, as `twin__*`.
fn twin() -> String {
    format!("twin={TOOLCTL} serve --stdio")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn mounted_tools_are_listed_called_exported_and_checked() {
    let mount = twin();
    let out = toolctl(&["--mount", &mount, "list", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"get_current_time") && names.contains(&"twin__get_current_time"));
    // The mounted server serves its search_tools too.
    assert_eq!(names.len(), 17, "8 local, 9 mounted: {names:?}");

    let out = toolctl(&[
        "--mount",
        &mount,
        "call",
        "twin__convert_time",
        "--input",
        r#"{"time": "2026-01-15T12:00", "from_timezone": "UTC", "to_timezone": "Asia/Tokyo"}"#,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        result["data"]["target"]["datetime"],
        "2026-01-15T21:00:00+09:00"
    );

    // A bad input to a mounted tool comes back as the remote tool's error.
    let out = toolctl(&[
        "--mount",
        &mount,
        "call",
        "twin__get_current_time",
        "--input",
        r#"{"timezone": "Mars/Base"}"#,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("Mars/Base"),
        "{}",
        text(&out.stdout)
    );

    let out = toolctl(&["--mount", &mount, "export", "--format", "openai"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("\"twin__wait_duration\""));

    let out = toolctl(&["--mount", &mount, "check"]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn bad_mounts_are_usage_errors_that_name_the_mount() {
    let out = toolctl(&["--mount", "Twin=cmd", "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("`Twin=cmd`"),
        "{}",
        text(&out.stderr)
    );

    // A command that is not an MCP server.
    let out = toolctl(&["--mount", "dud=true", "list"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("mount `dud`") && err.contains("handshake"),
        "{err}"
    );
}

/// POSTs one JSON-RPC message to a served `/mcp`; returns the status line and the body.
fn post(url: &str, body: &Value, headers: &[(&str, &str)]) -> (String, String) {
    let addr = url.trim_start_matches("http://").split('/').next().unwrap();
    let body = body.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (
        head.lines().next().unwrap_or_default().to_owned(),
        body.to_owned(),
    )
}

fn call_request(name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

#[test]
fn serve_http_stateless_answers_calls_and_guards_itself() {
    let served = HttpServer::start_with_env(
        TOOLCTL,
        &["--stateless", "--token-env", "TOOLCTL_TEST_TOKEN"],
        &[("TOOLCTL_TEST_TOKEN", "test-token")],
    );
    let url = &served.url;
    let call = call_request("get_current_time", json!({"timezone": "UTC"}));
    let (status, _) = post(url, &call, &[]);
    assert!(status.contains(" 401 "), "{status}");

    let auth = [("Authorization", "Bearer test-token")];
    let (status, body) = post(url, &call, &auth);
    assert!(status.contains(" 200 "), "{status} {body}");
    let response: Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!(response["result"]["structuredContent"]["timezone"], "UTC");

    let evil = [auth[0], ("Origin", "https://evil.example")];
    let (status, _) = post(url, &call, &evil);
    assert!(status.contains(" 403 "), "{status}");
}

#[test]
fn serve_refuses_a_missing_token_variable() {
    let out = Command::new(TOOLCTL)
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--token-env",
            "TOOLCTL_NO_SUCH_VAR",
        ])
        .env_remove("TOOLCTL_NO_SUCH_VAR")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("TOOLCTL_NO_SUCH_VAR"));
    let out = toolctl(&["serve"]);
    assert_eq!(out.status.code(), Some(2), "a transport is required");
}

/// Node.js (the Inspector, the TypeScript SDK) gives a child socketpairs, not pipes, for its
/// stdio: the blocking fallback must answer too (it once waited forever on a held stdout lock).
#[test]
fn serve_stdio_answers_over_sockets() {
    use std::os::unix::net::UnixStream;
    let (mut ours, theirs_in) = UnixStream::pair().unwrap();
    let (mut from_server, theirs_out) = UnixStream::pair().unwrap();
    let mut child = Command::new(TOOLCTL)
        .args(["serve", "--stdio"])
        .stdin(std::process::Stdio::from(std::os::fd::OwnedFd::from(
            theirs_in,
        )))
        .stdout(std::process::Stdio::from(std::os::fd::OwnedFd::from(
            theirs_out,
        )))
        .spawn()
        .unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "socket", "version": "1"}}});
    ours.write_all(format!("{initialize}\n").as_bytes())
        .unwrap();
    from_server
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut line = String::new();
    let read =
        std::io::BufRead::read_line(&mut std::io::BufReader::new(&mut from_server), &mut line);
    let _ = child.kill();
    let _ = child.wait();
    read.expect("the server answers within 10 s");
    let response: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        response["result"]["serverInfo"]["name"], "toolctl",
        "{line}"
    );
}

/// SIGTERM (how containers stop a server) ends `serve --http` cleanly, with exit code 0, even
/// while a client holds a stream open.
#[test]
fn serve_http_stops_cleanly_on_sigterm() {
    let mut served = HttpServer::start(TOOLCTL, &[]);
    // A session and its standalone SSE stream (GET), left open.
    let addr = served
        .url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "held", "version": "1"}}});
    let mut stream = TcpStream::connect(&addr).unwrap();
    let body = initialize.to_string();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut head = [0u8; 2048];
    let n = stream.read(&mut head).unwrap();
    let head = String::from_utf8_lossy(&head[..n]).to_ascii_lowercase();
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id:"))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no session id in {head}"))
        .to_owned();
    let mut held = TcpStream::connect(&addr).unwrap();
    write!(
        held,
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-06-18\r\n\r\n"
    )
    .unwrap();
    // Open once the stream's head has come.
    held.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut opened = [0u8; 2048];
    let n = held.read(&mut opened).unwrap();
    let opened = String::from_utf8_lossy(&opened[..n]).to_ascii_lowercase();
    assert!(
        opened.starts_with("http/1.1 200") && opened.contains("text/event-stream"),
        "{opened}"
    );
    let pid = served.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let status = served
        .exit_within(Duration::from_secs(5))
        .expect("the server stops within 5 s of SIGTERM");
    assert!(status.success(), "{status}");
}

#[test]
fn serve_refuses_a_network_address_without_a_token() {
    let out = toolctl(&["serve", "--http", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("--token-env") && err.contains("--allow-unauthenticated"),
        "{err}"
    );
}

/// A mounted server that answers a call with a task of its own (a `toolctl serve` with tasks
/// after 0 s) is followed to its end: the caller gets the plain result, and the task's status
/// line as the call's progress; a call cancelled by its caller cancels the mounted server's task
/// too.
#[test]
fn a_mounted_servers_tasks_are_followed_and_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let remote = format!("sqlite:{}", dir.path().join("remote.sqlite3").display());
    let mount =
        format!("twin={TOOLCTL} serve --stdio --tasks {remote} --task-after 0 --task-lease 0.6");
    let remote_tasks = || {
        let out = toolctl(&["tasks", "--store", &remote, "list", "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };

    // Followed to its result: the caller sees a plain result.
    let out = toolctl(&[
        "--mount",
        &mount,
        "call",
        "twin__wait_duration",
        "--input",
        r#"{"seconds": 0.3}"#,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["data"]["seconds"], 0.3, "{result}");
    let tasks = remote_tasks();
    assert_eq!(tasks.as_array().unwrap().len(), 1, "{tasks}");
    assert_eq!(tasks[0]["status"], "completed", "{tasks}");

    // Cancelled by its caller (a session's notifications/cancelled): the remote task too.
    let mut outer = Running::spawn(
        Command::new(TOOLCTL)
            .args(["--mount", &mount, "serve", "--stdio", "--tasks", "off"])
            .stdin(std::process::Stdio::piped()),
    );
    let mut stdin = outer.child.stdin.take().unwrap();
    for message in [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "twin__wait_duration", "arguments": {"seconds": 60},
            "_meta": {"progressToken": "wait"}}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
        if message["id"] == 0 {
            outer.stdout_line();
        }
    }
    // The mounted server's task runs: the status line this server follows it by comes back as
    // the call's progress.
    let progress = loop {
        let line = outer.stdout_line();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["method"] == "notifications/progress" {
            break message;
        }
    };
    assert_eq!(progress["params"]["progressToken"], "wait", "{progress}");
    let said = progress["params"]["message"].as_str().unwrap_or_default();
    assert!(
        said.starts_with("waited ") && said.ends_with(" of 60 s"),
        "{progress}"
    );
    assert_eq!(remote_tasks().as_array().unwrap().len(), 2);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1, "reason": "changed my mind"}});
    writeln!(stdin, "{cancel}").unwrap();
    loop {
        let tasks = remote_tasks();
        let running = tasks
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["arguments"]["seconds"] == 60)
            .unwrap();
        if running["status"] == "cancelled" {
            break;
        }
        assert_eq!(running["status"], "working", "{running}");
        assert!(
            std::time::Instant::now() < deadline,
            "the remote task was not cancelled: {running}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(stdin);
    let status = outer.exit_within(Duration::from_secs(30));
    assert!(
        status.is_some_and(|s| s.success()),
        "{status:?}: {}",
        outer.said()
    );
}

/// A binary on `tool_cli::main!` is itself, not toolctl: its name and version in `serverInfo`,
/// `--version` and the help, and its data in a folder of its own.
#[test]
fn a_binary_on_the_ready_made_main_is_itself() {
    let bin = env!("CARGO_BIN_EXE_task-server");
    let version = env!("CARGO_PKG_VERSION");
    let out = Command::new(bin).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("task-server {version}")
    );
    let out = Command::new(bin).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("Usage: task-server"), "{help}");
    assert!(!help.contains("toolctl"), "{help}");

    let data = tempfile::tempdir().unwrap();
    let out = Command::new(bin)
        .args(["tasks", "list"])
        .env("XDG_DATA_HOME", data.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let file = data.path().join("task-server").join("tasks.sqlite3");
    assert!(
        err.contains(&format!("no task store at {}", file.display())),
        "{err}"
    );

    let mut child = Command::new(bin)
        .args(["serve", "--stdio"])
        .env("XDG_DATA_HOME", data.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(format!("{initialize}\n").as_bytes())
        .unwrap();
    drop(stdin);
    let mut text = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let _ = child.wait();
    let response: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        response["result"]["serverInfo"],
        json!({"name": "task-server", "title": "Vault tasks", "version": version}),
        "{text}"
    );
}
