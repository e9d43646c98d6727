//! `toolctl serve --http` as an OAuth 2.1 resource server, end to end: keys, a JWKS and tokens
//! made in the test by an implementation independent of the server's (Python's `cryptography`
//! and PyJWT, `tests/mcp/oauth_keys.py`), and the official Python MCP client connecting with a
//! bearer token (`tests/mcp/oauth_client.py`): the metadata document, 401 and 403 answers as
//! the MCP authorization specification shows them, tools listed by scope, a scoped tool refused
//! to a caller without its scope. Without the venv (built by `scripts/python-env`) this fails,
//! it never skips.

#[path = "../../tests/support/validators.rs"]
mod support;
#[path = "../../tests/support/mcp.rs"]
mod support_mcp;

use std::path::Path;
use std::process::Command;

use support::run_mcp_script;
use support_mcp::HttpServer;

const TOOLCTL: &str = env!("CARGO_BIN_EXE_toolctl");
const ISSUER: &str = "https://id.example.test";
const AUDIENCE: &str = "https://mcp.example.test/mcp";

/// A `--defs` file with one tool that needs the scope `notes:write`.
fn scoped_defs(dir: &Path) -> String {
    let defs = serde_json::json!([{
        "name": "delete_note",
        "description": "Deletes a note by its id. Use it when the user asks to remove a note.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}},
                        "required": ["id"]},
        "scopes": ["notes:write"]
    }]);
    let path = dir.join("defs.json");
    std::fs::write(&path, defs.to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn official_python_client_with_bearer_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().display().to_string();
    run_mcp_script("oauth_keys.py", &[&keys, ISSUER, AUDIENCE], None);
    let jwks = dir.path().join("jwks.json").display().to_string();
    let defs = scoped_defs(dir.path());
    let served = HttpServer::start(
        TOOLCTL,
        &[
            "--oauth-issuer",
            ISSUER,
            "--oauth-audience",
            AUDIENCE,
            "--oauth-jwks",
            &jwks,
            "--oauth-scope",
            "tools:read",
            "--defs",
            &defs,
        ],
    );
    let tokens = dir.path().join("tokens.json").display().to_string();
    run_mcp_script(
        "oauth_client.py",
        &[&served.url, &tokens, ISSUER, AUDIENCE],
        Some(8),
    );
}

/// `toolctl serve ARGS...` run to its end (for the refusals, which end it at once).
fn serve(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(TOOLCTL)
        .arg("serve")
        .args(args)
        .output()
        .expect("toolctl runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn keys_that_cannot_be_loaded_stop_the_server_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, r#"{"keys": []}"#).unwrap();
    // A file that is not there, and one that holds no key.
    for jwks in [dir.path().join("no-such-jwks.json"), empty] {
        let jwks = jwks.to_str().unwrap();
        let (code, err) = serve(&[
            "--http",
            "127.0.0.1:0",
            "--oauth-jwks",
            jwks,
            "--oauth-issuer",
            ISSUER,
            "--oauth-audience",
            AUDIENCE,
        ]);
        assert_eq!(code, Some(1), "{err}");
        let name = Path::new(jwks).file_name().unwrap().to_str().unwrap();
        assert!(err.contains(name), "{err}");
    }
}

#[test]
fn oauth_flags_come_together_and_not_with_a_static_token() {
    // The issuer needs the audience and the keys.
    let (code, err) = serve(&["--http", "127.0.0.1:0", "--oauth-issuer", ISSUER]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--oauth-audience") && err.contains("--oauth-jwks"),
        "{err}"
    );
    // Only over HTTP.
    let (code, err) = serve(&[
        "--stdio",
        "--oauth-issuer",
        ISSUER,
        "--oauth-audience",
        AUDIENCE,
        "--oauth-jwks",
        "k.json",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--oauth-issuer needs --http"), "{err}");
    // One way to authenticate.
    let (code, err) = serve(&[
        "--http",
        "127.0.0.1:0",
        "--token-env",
        "T",
        "--oauth-issuer",
        ISSUER,
        "--oauth-audience",
        AUDIENCE,
        "--oauth-jwks",
        "k.json",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--token-env") && err.contains("--oauth-issuer"),
        "{err}"
    );
}
