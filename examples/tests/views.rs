//! Tools' views in a real MCP Apps host: `examples/tests/apps/host.mjs` connects the official
//! TypeScript client (`@modelcontextprotocol/client`) to views-server, over stdio or Streamable
//! HTTP, and its page, in headless Chromium, renders a tool's view through ext-apps' official
//! `AppBridge` in a sandboxed frame. For a tool with a view of its own (`get_forecast`) and one
//! shown with the framework's card (`get_report`, served with `--views`), the view receives the
//! call's input and result and shows them (asserted in its DOM, kept as screenshots in
//! `target/views/`), and the forecast's button calls `refresh_forecast`, a tool for views only
//! that asks a person first: asked once, run once, from the view. The same host reaches a view
//! of a server mounted by toolctl. Without Chromium or the node-env this fails, never skips.
//!
//! The Python client's checks of the same server in both eras, with and without the extension,
//! are in mcp_python.rs (`examples/tests/mcp/views.py`).

mod browser;
mod running;
#[path = "../../tests/support/mcp.rs"]
mod support_mcp;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use browser::{Browser, chromium};
use running::Running;
use serde_json::{Value, json};
use support_mcp::{HttpServer, node, node_modules};

const SERVER: &str = env!("CARGO_BIN_EXE_views-server");
const TOOLCTL: &str = env!("CARGO_BIN_EXE_toolctl");
const WAIT: Duration = Duration::from_secs(60);

/// The host, connected to the server `how` names (`--stdio CMD ARGS...` or `--http URL`); its
/// page's address.
fn host(how: &[&str]) -> (Running, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/apps/host.mjs");
    let mut host = Running::spawn(
        Command::new(node())
            .arg(script)
            .args(how)
            .env(
                "NODE_ENV_DIR",
                node_modules().parent().expect("the node-env"),
            )
            // The host ends when its stdin does: kept open while the test runs.
            .stdin(Stdio::piped()),
    );
    let line = host.stdout_line();
    let url = line
        .strip_prefix("host: ")
        .unwrap_or_else(|| panic!("the host did not start: {line}"))
        .trim()
        .to_owned();
    (host, url)
}

fn screenshot(browser: &mut Browser, name: &str) -> PathBuf {
    // CARGO_TARGET_TMPDIR is <target>/tmp.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("a target directory")
        .join("views");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, browser.screenshot()).unwrap();
    path
}

/// Opens the host's page on `tool` called with `args`, and waits until the view has the result.
fn open(browser: &mut Browser, url: &str, tool: &str, args: Value) {
    let query = format!("{url}?tool={tool}&args={}", urlencode(&args.to_string()));
    browser.open(&query);
    browser.wait_until(
        "['result-sent', 'error'].includes(document.body.dataset.state)",
        WAIT,
    );
    let state = browser.eval("document.body.dataset.state");
    assert_eq!(
        state,
        json!("result-sent"),
        "the host failed: {}",
        browser.eval("document.getElementById('error')?.textContent")
    );
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// What the host saw: elicitations and calls, in order.
fn log(browser: &mut Browser) -> Vec<Value> {
    let log = browser.eval("fetch('/log').then((r) => r.json())");
    log.as_array().cloned().unwrap_or_default()
}

/// `get_forecast`'s own view: the input and result shown, then its button calls the tool for
/// views only, which asks for approval once and runs once. `prefix` is the mount's, if any.
fn forecast_view(url: &str, prefix: &str, shot: &str) {
    let mut browser = Browser::start(900, 700);
    open(
        &mut browser,
        url,
        &format!("{prefix}get_forecast"),
        json!({"city": "Oslo"}),
    );
    browser.wait_in_frame(
        "document.getElementById('state').textContent === 'shown'",
        WAIT,
    );
    assert_eq!(
        browser.eval_in_frame("document.getElementById('title').textContent"),
        json!("Forecast for Oslo"),
        "the view got the call's input"
    );
    assert_eq!(
        browser.eval_in_frame(
            "[...document.querySelectorAll('#days tr')].map((r) => r.cells[1].textContent)"
        ),
        json!(["sunny", "cloudy", "rain"]),
        "the view shows the call's result"
    );
    let meta = browser.eval("window.viewMeta");
    assert_eq!(meta["csp"]["connectDomains"], json!([]), "{meta}");

    browser.click_in_frame("#view", "#refresh");
    browser.wait_in_frame(
        "document.getElementById('refreshed').textContent.startsWith('refreshed')",
        WAIT,
    );
    let log = log(&mut browser);
    let refresh = format!("{prefix}refresh_forecast");
    let asked: Vec<&Value> = log.iter().filter(|e| e["kind"] == "elicitation").collect();
    let calls: Vec<&Value> = log
        .iter()
        .filter(|e| e["kind"] == "call" && e["name"] == json!(refresh))
        .collect();
    assert_eq!(asked.len(), 1, "approval asked once: {log:?}");
    assert!(
        asked[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Refresh the forecast for Oslo?")),
        "{log:?}"
    );
    assert_eq!(calls.len(), 1, "the view's call ran once: {log:?}");
    assert_eq!(calls[0]["from"], "view", "{log:?}");
    assert_eq!(calls[0]["isError"], false, "{log:?}");
    let order: Vec<&str> = log.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(
        order,
        ["call", "elicitation", "call"],
        "asked before it ran: {log:?}"
    );
    screenshot(&mut browser, shot);
}

/// `get_report` has no view of its own: the server's card shows its label, input and result.
fn report_card(url: &str, shot: &str) {
    let mut browser = Browser::start(900, 500);
    open(&mut browser, url, "get_report", json!({"region": "north"}));
    browser.wait_in_frame(
        "document.getElementById('card').dataset.state === 'ok'",
        WAIT,
    );
    let text = |browser: &mut Browser, id: &str| {
        browser.eval_in_frame(&format!("document.getElementById('{id}').textContent"))
    };
    assert_eq!(
        text(&mut browser, "label"),
        json!("Reading the sales report")
    );
    assert_eq!(text(&mut browser, "tool"), json!("get_report"));
    assert_eq!(
        browser
            .eval_in_frame("[...document.querySelectorAll('#args td')].map((c) => c.textContent)"),
        json!(["north"]),
        "the card shows the input"
    );
    assert_eq!(
        browser.eval_in_frame(
            "[...document.querySelectorAll('#output tr')].map((r) => r.cells[0].textContent + '=' + r.cells[1].textContent)"
        ),
        json!(["region=north", "orders=42", "revenue=1234.5"]),
        "the card shows the structured result as a table"
    );
    assert_eq!(browser.eval("window.viewMeta.prefersBorder"), json!(false));
    screenshot(&mut browser, shot);
}

#[test]
fn a_views_input_result_and_app_only_call_over_stdio() {
    chromium();
    let (_host, url) = host(&["--stdio", SERVER, "serve", "--stdio", "--views"]);
    forecast_view(&url, "", "forecast-stdio");
    report_card(&url, "card-stdio");
}

#[test]
fn a_views_input_result_and_app_only_call_over_streamable_http() {
    chromium();
    let server = HttpServer::start(SERVER, &["--views"]);
    let (_host, url) = host(&["--http", &server.url]);
    forecast_view(&url, "", "forecast-http");
    report_card(&url, "card-http");
}

#[test]
fn a_mounted_servers_view_passes_through() {
    chromium();
    let mount = format!("w={SERVER} serve --stdio");
    let (_host, url) = host(&["--stdio", TOOLCTL, "--mount", &mount, "serve", "--stdio"]);
    forecast_view(&url, "w__", "forecast-mounted");
}

/// tool-mcp's copy of ext-apps' `App` (its card's script) is the npm package's file, byte for
/// byte: the version scripts/package.json pins.
#[test]
fn the_cards_app_is_the_pinned_ext_apps_bundle() {
    let vendored =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-mcp/src/views/ext-apps-app.js");
    let package = node_modules().join("@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js");
    let (vendored, package) = (
        std::fs::read(&vendored).expect("the vendored bundle"),
        std::fs::read(&package).expect("ext-apps in the node-env"),
    );
    assert!(
        vendored == package,
        "tool-mcp/src/views/ext-apps-app.js differs from the installed ext-apps' app-with-deps.js: \
         copy it again after changing the pinned version"
    );
}
