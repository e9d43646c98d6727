//! `toolctl serve --stdio` driven by the official TypeScript MCP client
//! (`@modelcontextprotocol/sdk`'s `Client`, installed by `scripts/node-env`): it lists the tools,
//! which makes it compile every output schema with Ajv, and calls a few, one with `null` for an
//! optional parameter. The client must not complain: Ajv prints `unknown format "uint" ignored`
//! for a format it does not know, so nothing but the server's own lines may reach stderr. The
//! checks live in `tests/mcp/ts_client.mjs`.

#[path = "../../tests/support/mcp.rs"]
mod support;

use std::process::Command;

use support::{node, node_modules, show};

#[test]
fn official_typescript_client_lists_and_calls_without_warnings() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/ts_client.mjs");
    let out = Command::new(node())
        .arg(script)
        .arg(node_modules())
        .arg(env!("CARGO_BIN_EXE_toolctl"))
        .output()
        .expect("node runs");
    assert!(out.status.success(), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for check in [
        "tools/list",
        "get_current_time",
        "read_file with null",
        "list_directory",
    ] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&format!("ok {check}"))),
            "{check} did not pass: {}",
            show(&out)
        );
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let client_lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("[server] "))
        .collect();
    assert!(
        client_lines.is_empty(),
        "the client printed warnings (Ajv: `unknown format` is a format it does not know):\n{}",
        client_lines.join("\n")
    );
}
