//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, on Node 22, both
//! installed by `scripts/node-env`) against `conformance-server` over Streamable HTTP.
//!
//! With sessions, every scenario of the active suite (30: tools, resources, prompts,
//! completion) passes; `tests/conformance/expected-failures.yml` is empty, and the suite itself
//! fails the run if a listed scenario starts passing. The pending `json-schema-2020-12`
//! scenario passes too. Stateless, every tools scenario that needs no server-to-client request
//! passes.
//!
//! The suite's 0.2.0 alpha line (0.2.0-alpha.12, installed as `conformance-2026`), the first
//! with server scenarios for 2026-07-28: every server scenario it lists for 2026-07-28 (with
//! sessions and stateless) and for 2025-11-25 (with sessions) passes, `server-sse-polling`'s
//! mid-call stream close included (both expected-failures files are empty); and every scenario
//! of the Tasks extension passes, with a task store.

#[path = "../../tests/support/mcp.rs"]
mod support;

use support::{HttpServer, conformance, npm_tool, show};

const SERVER: &str = env!("CARGO_BIN_EXE_conformance-server");

/// The tools scenarios that need no request from the server to the client.
const TOOLS: [&str; 9] = [
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
];

/// Those that do (sampling and elicitation): they need a session.
const TOOLS_ASKING_THE_CLIENT: [&str; 4] = [
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
];

/// How many scenarios the suite's summary lists (passed or not).
fn scenarios_in_summary(stdout: &str) -> usize {
    stdout
        .lines()
        .filter(|l| l.starts_with('✓') || l.starts_with('✗'))
        .count()
}

/// Whether the suite's summary shows `scenario` passed.
fn passed(stdout: &str, scenario: &str) -> bool {
    stdout
        .lines()
        .any(|l| l.starts_with(&format!("✓ {scenario}:")))
}

/// Runs one scenario of the 0.1.16 suite; asserts it passed with no failure and no warning.
fn assert_scenario_passes(url: &str, scenario: &str) {
    assert_scenario_passes_in(conformance(), url, scenario);
}

/// Runs one scenario with `suite` (a CLI of the suite); asserts it passed with no failure and
/// no warning.
fn assert_scenario_passes_in(mut suite: std::process::Command, url: &str, scenario: &str) {
    let out = suite
        .args(["server", "--url", url, "--scenario", scenario])
        .output()
        .expect("the conformance suite runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(" 0 failed, 0 warnings"),
        "{scenario}: {}",
        show(&out)
    );
}

#[test]
fn every_server_scenario_passes_with_sessions() {
    let server = HttpServer::start(SERVER, &[]);
    let expected = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/conformance/expected-failures.yml"
    );
    let out = conformance()
        .args(["server", "--url", &server.url, "--suite", "active"])
        .args(["--expected-failures", expected])
        .output()
        .expect("the conformance suite runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", show(&out));
    // Guard against a run that checked nothing.
    let summary = scenarios_in_summary(&stdout);
    assert!(
        summary >= 30,
        "expected every scenario in the summary:\n{}",
        show(&out)
    );
    let items = [
        "resources-read-binary",
        "resources-templates-read",
        "resources-subscribe",
        "prompts-get-with-image",
        "completion-complete",
    ];
    for scenario in TOOLS.iter().chain(&TOOLS_ASKING_THE_CLIENT).chain(&items) {
        assert!(
            passed(&stdout, scenario),
            "{scenario} did not pass:\n{}",
            show(&out)
        );
    }
    // Pending upstream, so not in the active suite: run on its own.
    assert_scenario_passes(&server.url, "json-schema-2020-12");
}

#[test]
fn tools_scenarios_pass_stateless() {
    let server = HttpServer::start(SERVER, &["--stateless"]);
    let others = [
        "server-initialize",
        "json-schema-2020-12",
        "resources-read-text",
        "prompts-get-with-args",
        "completion-complete",
        "dns-rebinding-protection",
    ];
    for scenario in TOOLS.iter().chain(&others) {
        assert_scenario_passes(&server.url, scenario);
    }
}

/// The 0.2.0 alpha line of the suite's CLI.
fn conformance_2026() -> std::process::Command {
    npm_tool("conformance-2026/dist/index.js")
}

#[test]
fn every_scenario_of_the_2026_suite_passes_with_sessions_and_stateless() {
    let sessions = HttpServer::start(SERVER, &[]);
    let stateless = HttpServer::start(SERVER, &["--stateless"]);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/");
    for (server, version, expected) in [
        (
            &sessions,
            "2025-11-25",
            "expected-failures-2026-suite-2025-11-25.yml",
        ),
        (&sessions, "2026-07-28", "expected-failures-2026.yml"),
        (&stateless, "2026-07-28", "expected-failures-2026.yml"),
    ] {
        let out = conformance_2026()
            .args(["server", "--url", &server.url, "--suite", "all"])
            .args(["--spec-version", version])
            .args(["--expected-failures", &format!("{dir}{expected}")])
            .output()
            .expect("the conformance suite runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{} {version}: {}",
            server.url,
            show(&out)
        );
        // Guard against a run that checked nothing.
        let summary = scenarios_in_summary(&stdout);
        assert!(
            summary >= 33,
            "{version}: expected every scenario in the summary:\n{}",
            show(&out)
        );
        if version == "2025-11-25" {
            assert!(
                passed(&stdout, "server-sse-polling"),
                "server-sse-polling did not pass:\n{}",
                show(&out)
            );
        }
        if version == "2026-07-28" {
            for scenario in [
                "server-stateless",
                "json-schema-2020-12",
                "input-required-result-basic-elicitation",
                "input-required-result-basic-list-roots",
                "input-required-result-multiple-input-requests",
                "input-required-result-multi-round",
                "input-required-result-capability-check",
                "input-required-result-ignore-extra-params",
                "input-required-result-non-tool-request",
                "resources-templates-read",
                "prompts-get-embedded-resource",
                "completion-complete",
                "sep-2164-resource-not-found",
                "caching",
            ] {
                assert!(
                    passed(&stdout, scenario),
                    "{scenario} did not pass in {version}:\n{}",
                    show(&out)
                );
            }
        }
    }
}

#[test]
fn every_tasks_extension_scenario_of_the_2026_suite_passes() {
    let server = HttpServer::start(SERVER, &["--tasks", "memory"]);
    let listed = conformance_2026()
        .arg("list")
        .output()
        .expect("the conformance suite runs");
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    // Every server scenario of the extension: `  - tasks-... [extension]` before the client's.
    let server_part = listed.split("Client scenarios").next().unwrap_or_default();
    let scenarios: Vec<&str> = server_part
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter(|l| l.starts_with("tasks-") && l.ends_with("[extension]"))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(scenarios.len() >= 10, "the suite lists {scenarios:?}");
    for scenario in scenarios {
        assert_scenario_passes_in(conformance_2026(), &server.url, scenario);
    }
}
