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

use support::run_mcp_script;
use support_mcp::HttpServer;

#[test]
fn official_python_client_over_stdio() {
    run_mcp_script("stdio_client.py", &[env!("CARGO_BIN_EXE_toolctl")], Some(8));
}

/// The same client in both eras over stdio: 2026-07-28 by default (its `auto` mode), the
/// `initialize` handshake in `legacy` mode; logs only to the requests that ask for them.
#[test]
fn official_python_client_over_stdio_in_both_eras() {
    let server = env!("CARGO_BIN_EXE_conformance-server");
    run_mcp_script("stdio_eras.py", &[server], Some(6));
}

/// Tools that ask (elicitation, sampling) in every era: the client in its default mode (2026-07-28,
/// `InputRequiredResult` and a retry) and in legacy mode (a request to the client), over stdio,
/// Streamable HTTP with sessions, and stateless (2026-07-28 alone, where a stateless server can
/// ask).
#[test]
fn official_python_client_answers_tools_that_ask_in_every_era() {
    let server = env!("CARGO_BIN_EXE_conformance-server");
    let with_sessions = HttpServer::start(server, &[]);
    let stateless = HttpServer::start(server, &["--stateless"]);
    let stdio = format!("stdio:{server}");
    let stateless_url = format!("stateless:{}", stateless.url);
    run_mcp_script(
        "asking.py",
        &[&stdio, &with_sessions.url, &stateless_url],
        Some(15),
    );
}

/// Resources, templates, prompts and completion through the official Python client, in its
/// default mode (2026-07-28) and in legacy mode, over stdio, Streamable HTTP with sessions, and
/// stateless (`examples/tests/mcp/items.py`): listings, text, binary and template reads, an
/// unknown URI (-32602 with the URI), prompts with arguments, an embedded resource, an image
/// and a question to the user, completions, and a watched resource's update.
#[test]
fn official_python_client_reads_resources_gets_prompts_and_completes_in_every_era() {
    let server = env!("CARGO_BIN_EXE_conformance-server");
    let with_sessions = HttpServer::start(server, &[]);
    let stateless = HttpServer::start(server, &["--stateless"]);
    let stdio = format!("stdio:{server}");
    let stateless_url = format!("stateless:{}", stateless.url);
    run_mcp_script(
        "items.py",
        &[&stdio, &with_sessions.url, &stateless_url],
        Some(29),
    );
}

/// Views for MCP Apps hosts (`examples/tests/mcp/views.py`), with the official Python client
/// declaring `io.modelcontextprotocol/ui` and not, in both eras, over stdio, Streamable HTTP with
/// sessions, and stateless: a client without the extension gets the listing and results of one
/// with it, less `_meta.ui` and the tool for views only; views are read by a client with it
/// alone; the tool for views only runs for it, once, after its approval.
#[test]
fn official_python_client_sees_views_only_when_it_declares_the_extension() {
    let server = env!("CARGO_BIN_EXE_views-server");
    let with_sessions = HttpServer::start(server, &["--views"]);
    let stateless = HttpServer::start(server, &["--views", "--stateless"]);
    let stdio = format!("stdio:{server} --views");
    let stateless_url = format!("stateless:{}", stateless.url);
    run_mcp_script(
        "views.py",
        &[&stdio, &with_sessions.url, &stateless_url],
        Some(15),
    );
}

/// A mounted server's resources and prompts through toolctl: `toolctl --mount
/// conf=conformance-server serve --stdio`, read and got by the Python client in both eras.
#[test]
fn a_mounted_servers_resources_and_prompts_pass_through_toolctl() {
    let mount = format!(
        "conf={} serve --stdio",
        env!("CARGO_BIN_EXE_conformance-server")
    );
    let target = format!(
        "mounted:{} --mount {}",
        env!("CARGO_BIN_EXE_toolctl"),
        shell_quote(&mount)
    );
    run_mcp_script("items.py", &[&target], Some(2));
}

/// What a mounted server says of its tools is a claim (`examples/tests/mcp/claims.py`): a
/// Python SDK server's tool that says it only reads and writes is asked about under
/// `--approval write` (refused for a client that cannot be asked, run once after a yes), in both
/// eras, and runs unasked only once the application vouches for the mount (`--trust-mount`).
#[test]
fn a_mounted_servers_claim_of_reading_does_not_spare_the_question() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    let server = support::workspace_root().join("examples/tests/mcp/py_claims_server.py");
    let mount = format!(
        "py={} {} {}",
        support::python().display(),
        server.display(),
        notes.display()
    );
    let toolctl = env!("CARGO_BIN_EXE_toolctl");
    let untrusted = format!("{toolctl} --approval write --mount {}", shell_quote(&mount));
    let trusted = format!("{untrusted} --trust-mount py");
    run_mcp_script(
        "claims.py",
        &[notes.to_str().unwrap(), &untrusted, &trusted],
        Some(6),
    );
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// This project's server against the Python SDK's own dual-era server (`MCPServer`), the same
/// tools on each, driven by the Python client in both eras and compared field by field; where
/// they differ, the spec's answer is required of this project (`examples/tests/mcp/differential.py`).
#[test]
fn the_same_tools_answer_as_the_python_sdks_own_server_or_as_the_spec_says() {
    let server = env!("CARGO_BIN_EXE_conformance-server");
    run_mcp_script("differential.py", &[server], Some(21));
}

#[test]
fn official_python_client_over_http() {
    let toolctl = HttpServer::start(env!("CARGO_BIN_EXE_toolctl"), &[]);
    let server = env!("CARGO_BIN_EXE_conformance-server");
    let with_sessions = HttpServer::start(server, &[]);
    let stateless = HttpServer::start(server, &["--stateless"]);
    run_mcp_script(
        "http_client.py",
        &[&toolctl.url, &with_sessions.url, &stateless.url],
        Some(8),
    );
}

/// Long calls as tasks, followed by the official Python client through its extension hook
/// (`examples/tests/mcp/tasks_client.py`): a task in 2026-07-28 with the extension, a plain
/// result without it and in a session, over stdio, Streamable HTTP with sessions, and stateless.
#[test]
fn official_python_client_follows_tasks_in_every_era() {
    let toolctl = env!("CARGO_BIN_EXE_toolctl");
    let tasks = ["--tasks", "memory", "--task-after", "0"];
    let with_sessions = HttpServer::start(toolctl, &tasks);
    let stateless_args = [&tasks[..], &["--stateless"]].concat();
    let stateless = HttpServer::start(toolctl, &stateless_args);
    let stdio = format!("stdio:{toolctl} {}", tasks.join(" "));
    let stateless_url = format!("stateless:{}", stateless.url);
    run_mcp_script(
        "tasks_client.py",
        &[&stdio, &with_sessions.url, &stateless_url],
        Some(8),
    );
}

/// The application's layers (a binary's `tool_cli::main!`) and the command line's transforms,
/// seen by the official Python client in both eras over stdio, HTTP with sessions and stateless
/// (`examples/tests/mcp/layers.py`): the renamed tool is listed without its hidden argument, a
/// call's key is rewritten before the tool runs with the hidden value filled in, its secret is
/// redacted in the structured content and the text, and a forbidden key is refused with the
/// layer's reason; the same layers redact a read's contents and a prompt's messages and refuse
/// a read. The binary is itself there: `serverInfo` gives its own name, title and version.
#[test]
fn official_python_client_sees_layers_and_transforms_in_every_era() {
    let server = env!("CARGO_BIN_EXE_task-server");
    let transforms = [
        "--rename",
        "read_secret=fetch_secret",
        "--hide",
        r#"fetch_secret.vault="main""#,
    ];
    let with_sessions = HttpServer::start(server, &transforms);
    let stateless_args: Vec<&str> = transforms.iter().copied().chain(["--stateless"]).collect();
    let stateless = HttpServer::start(server, &stateless_args);
    let stdio = format!(
        "stdio:{server} --rename read_secret=fetch_secret --hide 'fetch_secret.vault=\"main\"'"
    );
    let stateless_url = format!("stateless:{}", stateless.url);
    run_mcp_script(
        "layers.py",
        &[&stdio, &with_sessions.url, &stateless_url],
        Some(30),
    );
}

/// A tool that needs a person's yes, called by the official Python client in both eras, over
/// stdio, HTTP with sessions and stateless (`examples/tests/mcp/approvals.py`), its user
/// answering with the host's buttons: a declined or cancelled question leaves the tool unrun,
/// an accepted one runs it once (an empty form keeps nothing; "identical calls" runs the same
/// call again without asking where the caller can be told apart), a client that cannot be
/// asked gets the reason as a tool error; the server's audit file says the same of each call.
#[test]
fn official_python_client_approves_and_declines_in_every_era() {
    let server = env!("CARGO_BIN_EXE_task-server");
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs.jsonl");
    let audit = dir.path().join("audit.jsonl");
    let audit_arg = audit.to_str().unwrap();
    let env = [("TASK_RUN_LOG", runs.to_str().unwrap())];
    let with_sessions = HttpServer::start_with_env(server, &["--audit", audit_arg], &env);
    let stateless =
        HttpServer::start_with_env(server, &["--stateless", "--audit", audit_arg], &env);
    let stdio = format!("stdio:{server} --audit {audit_arg}");
    let stateless_url = format!("stateless:{}", stateless.url);
    let out = run_mcp_script(
        "approvals.py",
        &[
            runs.to_str().unwrap(),
            &stdio,
            &with_sessions.url,
            &stateless_url,
        ],
        Some(26),
    );
    let keys: serde_json::Map<String, serde_json::Value> = out
        .lines()
        .find_map(|l| l.strip_prefix("keys "))
        .map(|k| serde_json::from_str(k).unwrap())
        .expect("the script lists its keys");
    let records: Vec<serde_json::Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (key, decisions) in &keys {
        let about: Vec<&serde_json::Value> = records
            .iter()
            .filter(|r| {
                r["approval_message"]
                    .as_str()
                    .unwrap_or("")
                    .contains(&format!("record {key} "))
            })
            .collect();
        // Each call's answer, in order; a 2026-07-28 call's question that went back with its
        // answer (`asked`) comes before the answer, and is no answer.
        let answered: Vec<&serde_json::Value> = about
            .iter()
            .copied()
            .filter(|r| r["approval"] != "asked")
            .collect();
        let got: Vec<&serde_json::Value> = answered.iter().map(|r| &r["approval"]).collect();
        let expected: Vec<&serde_json::Value> = decisions.as_array().unwrap().iter().collect();
        assert_eq!(got, expected, "{key}: {about:?}");
        for record in answered {
            assert_eq!(record["tool"], "delete_record");
            let outcome = if record["approval"] == "approved" {
                "ok"
            } else {
                "not_approved"
            };
            assert_eq!(record["outcome"], outcome, "{key}: {record}");
        }
    }
    // Per target and era: 6 keys (declined, cancelled, approved, remembered and the other
    // call, refused); the stateless server's session era, one.
    assert_eq!(keys.len(), 5 * 6 + 1, "the keys of every check");
}

/// `toolctl serve --code-mode`, driven by the official Python client in both eras over stdio,
/// Streamable HTTP with sessions, and stateless (`examples/tests/mcp/code_mode.py`): the
/// listing is the code tool, `search_tools` and the kept tool; a script calls three tools in a
/// loop, catches one's error and returns a summary; a script reaching for a file or never
/// ending is contained. Scripts run in processes of toolctl itself: built on
/// `tool_cli::main!()` with the feature `code`, it is its own worker.
#[test]
fn official_python_client_runs_scripts_in_code_mode_in_every_era() {
    let toolctl = env!("CARGO_BIN_EXE_toolctl");
    let args = [
        "--code-mode",
        "--code-keep",
        "get_current_time",
        "--code-cpu-time",
        "0.3",
    ];
    let with_sessions = HttpServer::start(toolctl, &args);
    let stateless_args = [&args[..], &["--stateless"]].concat();
    let stateless = HttpServer::start(toolctl, &stateless_args);
    let stdio = format!("stdio:{toolctl} {}", args.join(" "));
    let stateless_url = format!("stateless:{}", stateless.url);
    run_mcp_script(
        "code_mode.py",
        &[&stdio, &with_sessions.url, &stateless_url],
        Some(18),
    );
}

/// `execute_code` whose script sends a message and then calls a tool that needs approval, called
/// by the official Python client in both eras over stdio, Streamable HTTP with sessions, and
/// stateless (`examples/tests/mcp/code_approvals.py`): the client's user accepts, the script
/// resumes where it paused (in a session, waiting in memory; in 2026-07-28, run again with the
/// results of the calls before the pause carried in the sealed `requestState`; as a task, kept
/// with the task until `tasks/update` brings the answer), and the server's run log shows the
/// message sent once and the record deleted once.
#[test]
fn a_script_paused_for_approval_resumes_without_repeating_a_call_in_every_era() {
    let server = env!("CARGO_BIN_EXE_task-server");
    let worker = std::path::Path::new(server).with_file_name("tool-code-worker");
    assert!(
        worker.is_file(),
        "{} is missing: build it with `cargo build -p tool-code` (scripts/test builds it)",
        worker.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs.jsonl");
    let env = [("TASK_RUN_LOG", runs.to_str().unwrap())];
    let args = [
        "--code-mode",
        "--code-worker",
        worker.to_str().unwrap(),
        "--tasks",
        "memory",
        "--task-after",
        "0",
    ];
    let with_sessions = HttpServer::start_with_env(server, &args, &env);
    let stateless_args = [&args[..], &["--stateless"]].concat();
    let stateless = HttpServer::start_with_env(server, &stateless_args, &env);
    let stdio = format!("stdio:{server} {}", args.join(" "));
    let stateless_url = format!("stateless:{}", stateless.url);
    run_mcp_script(
        "code_approvals.py",
        &[
            runs.to_str().unwrap(),
            &stdio,
            &with_sessions.url,
            &stateless_url,
        ],
        Some(8),
    );
}
