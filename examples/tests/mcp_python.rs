//! `toolctl serve --stdio` driven by the official Python MCP client (`mcp` in `target/py-venv`):
//! the handshake, tools/list metadata, structured results, tool errors versus protocol errors,
//! progress notifications and cancellation all work for a real third-party client, not only for
//! our own tests. Over Streamable HTTP, the same client ends its session without a complaint,
//! and a tool that samples gets the client's answer with a session and a prompt error without
//! one. The checks live in `tests/mcp/stdio_client.py` and `tests/mcp/http_client.py`; each
//! prints `ok <name>`. Without the venv (built by `scripts/python-env`) this fails, it never
//! skips.

#[path = "../../tests/support/validators.rs"]
mod support;
#[path = "../../tests/support/mcp.rs"]
mod support_mcp;

use std::process::Command;

use support::{python, report, workspace_root};
use support_mcp::HttpServer;

/// Runs one of the client scripts with `args`; asserts it succeeded and reported all its
/// `checks` (a script that exits 0 without running them proves nothing).
fn run_script(name: &str, args: &[&str], checks: usize) {
    let script = workspace_root().join("examples/tests/mcp").join(name);
    let out = Command::new(python())
        .arg(&script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "{} failed (exit {:?}):\n{}",
        script.display(),
        out.status.code(),
        report(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let all = format!("all {checks} checks passed");
    assert!(
        stdout.lines().any(|l| l == all),
        "the script did not report its {checks} checks:\n{}",
        report(&out)
    );
}

#[test]
fn official_python_client_over_stdio() {
    run_script("stdio_client.py", &[env!("CARGO_BIN_EXE_toolctl")], 8);
}

#[test]
fn official_python_client_over_http() {
    let toolctl = HttpServer::start(env!("CARGO_BIN_EXE_toolctl"), &[]);
    let server = env!("CARGO_BIN_EXE_conformance-server");
    let with_sessions = HttpServer::start(server, &[]);
    let stateless = HttpServer::start(server, &["--stateless"]);
    run_script(
        "http_client.py",
        &[&toolctl.url, &with_sessions.url, &stateless.url],
        4,
    );
}
