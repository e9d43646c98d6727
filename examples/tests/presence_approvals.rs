//! Calls held for a person's yes, answered on the presence page in headless Chromium (Debian's
//! `chromium`; `scripts/browser-env` installs it), clicked as a person clicks (trusted mouse
//! events over the DevTools protocol): the real `agent` against the scripted provider, whose
//! first call the page denies with a reason and whose second it approves; and calls run here
//! through the executor, one left to time out, one cancelled while it waits, one approved for
//! identical calls (the next identical call runs unasked, another is asked again). Screenshots
//! go to `<target>/presence/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tool_core::exec::{ApprovalPolicy, ExecPolicy, Executor};
use tool_core::{
    Registry, ToolContext, ToolOutput,
    context::{ApprovalScope, Remembering},
    definition::Annotations,
    error::ErrorKind,
    registry::DynamicTool,
    registry::ToolApproval,
};
use tool_presence::{Presence, PresenceApprover, PresenceOptions};

mod browser;
mod running;
use browser::{Browser, chromium};
use running::Running;

const AGENT: &str = env!("CARGO_BIN_EXE_agent");
const PROVIDER: &str = env!("CARGO_BIN_EXE_scripted-provider");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/approval-openai.json");

/// Writes a screenshot to `<target>/presence/NAME` and says where.
fn keep_screenshot(png: &[u8], name: &str) -> PathBuf {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("a target directory");
    let dir = target.join("presence");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, png).unwrap();
    eprintln!("presence screenshot: {}", path.display());
    path
}

/// The card of `call` in the page.
fn card(call: &str) -> String {
    format!(r#"article[data-call-id="{call}"]"#)
}

#[test]
fn the_page_denies_then_approves_the_agents_calls() {
    chromium();
    let mut provider = Running::spawn(Command::new(PROVIDER).args(["--port", "0", SCRIPT]));
    let line = provider.stderr_line("http://");
    let base_url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("a URL")
        .to_owned();
    // No terminal input: the page is the only place to answer.
    let mut agent = Running::spawn(
        Command::new(AGENT)
            .args(["--provider", "openai", "--base-url", &base_url])
            .args(["--model", "scripted"])
            .args(["--presence", "127.0.0.1:0", "--presence-hold", "forever"])
            .args(["--approval", "get_current_time"])
            .arg("What time is it in Tokyo, and in Paris?")
            .env("AGENT_API_KEY", "test")
            .stdin(Stdio::null()),
    );
    let line = agent.stderr_line("presence: http://");
    let url = line.trim_start_matches("presence: ").trim().to_owned();

    let mut browser = Browser::start(900, 760);
    browser.open(&url);
    let tokyo = card("call_tokyo");
    browser.wait_until(
        &format!(r#"document.querySelector('{tokyo}[data-approval="pending"] button[data-answer="deny"]')"#),
        Duration::from_secs(60),
    );
    // The question shows the call and its arguments; the header counts what waits.
    let question = browser.eval(&format!(
        r#"document.querySelector('{tokyo} .question').textContent"#
    ));
    let question = question.as_str().unwrap();
    assert!(
        question.contains("Reading the clock (`get_current_time`) with these arguments:"),
        "{question}"
    );
    assert!(
        question.contains(r#""timezone": "Asia/Tokyo""#),
        "{question}"
    );
    assert_eq!(
        browser.eval("document.getElementById('waiting').textContent"),
        "1 call waits for you"
    );
    assert_eq!(browser.eval("document.title"), "(1) Tool activity");
    // A script's click is not a person's: it answers nothing. The page handles a click before
    // `click()` returns, and an answer it sends disables the card's buttons first: they are
    // still enabled, and it still waits. (Had the click answered, the person's deny below could
    // not be clicked, and the card would not end denied with their reason.)
    let after = browser.eval(&format!(
        r#"(() => {{ const approve = document.querySelector('{tokyo} button[data-answer="approve"]');
            approve.click();
            return [approve.disabled, document.querySelector('{tokyo} .asked').textContent,
                    document.querySelector('{tokyo}').dataset.approval]; }})()"#
    ));
    assert_eq!(
        (&after[0], &after[2]),
        (&json!(false), &json!("pending")),
        "{after}"
    );
    assert!(
        after[1].as_str().unwrap().starts_with("Waiting for you"),
        "{after}"
    );

    // The person gives a reason and denies.
    browser.click(&format!("{tokyo} input.reason"));
    browser.type_text("not Tokyo");
    browser.click(&format!(r#"{tokyo} button[data-answer="deny"]"#));
    browser.wait_until(
        &format!(
            r#"document.querySelector('{tokyo}[data-approval="denied"][data-state="error"] .result:not([hidden])')"#
        ),
        Duration::from_secs(30),
    );
    let status = browser.eval(&format!(
        "document.querySelector('{tokyo} .asked').textContent"
    ));
    assert_eq!(status, "Denied: not Tokyo");
    let result = browser.eval(&format!(
        "document.querySelector('{tokyo} .result').textContent"
    ));
    assert!(
        result
            .as_str()
            .unwrap()
            .contains("a person declined the call to `get_current_time`: not Tokyo"),
        "{result}"
    );
    assert_eq!(
        browser.eval(&format!(
            "document.querySelector('{tokyo} .kind').textContent"
        )),
        "not_approved"
    );
    assert_eq!(
        browser.eval(&format!(
            "document.querySelectorAll('{tokyo} button').length"
        )),
        0,
        "an answered card has no buttons"
    );

    // The model goes on: the next call waits on the page, and the person approves it.
    let paris = card("call_paris");
    browser.wait_until(
        &format!(r#"document.querySelector('{paris}[data-approval="pending"] button[data-answer="approve"]')"#),
        Duration::from_secs(60),
    );
    keep_screenshot(&browser.screenshot(), "approval-pending.png");
    browser.click(&format!(r#"{paris} button[data-answer="approve"]"#));
    assert_eq!(
        agent.stdout_line(),
        "Paris's time is above; Tokyo's was not allowed."
    );
    browser.wait_until(
        &format!(r#"document.querySelector('{paris}[data-approval="approved"][data-state="ok"]')"#),
        Duration::from_secs(30),
    );
    let result = browser.eval(&format!(
        "document.querySelector('{paris} .result').textContent"
    ));
    assert!(
        result.as_str().unwrap().contains("Europe/Paris"),
        "{result}"
    );
    assert_eq!(
        browser.eval(&format!(
            "document.querySelector('{paris} .asked').textContent"
        )),
        "Approved"
    );
    browser.wait_until(
        "document.getElementById('waiting').hidden && document.title === 'Tool activity'",
        Duration::from_secs(5),
    );
    keep_screenshot(&browser.screenshot(), "approval-answered.png");
    // The terminal could not be asked (no input); the page answered.
    agent.stderr_line("✓ get_current_time");
    drop(agent);
    drop(provider);
}

/// A registry with `delete_file`, destructive and asking "Delete {path}?", that keeps the paths
/// it deleted.
/// A registry whose `delete_file` writes each path it deletes to `log`.
fn delete_file(log: Arc<Mutex<Vec<String>>>) -> Registry {
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new(
                "delete_file",
                "Deletes a file.",
                json!({"type": "object", "properties": {"path": {"type": "string"}},
                       "required": ["path"], "additionalProperties": false}),
            )
            .label("Deleting a file")
            .annotations(
                Annotations::READ_ONLY
                    .read_only(false)
                    .destructive(true)
                    .idempotent(false)
                    .open_world(false),
            )
            .approval(ToolApproval::with_message("Delete {path}?"))
            .handler(move |input, _| {
                let log = log.clone();
                async move {
                    let path = input["path"].as_str().unwrap_or("?").to_owned();
                    log.lock().unwrap().push(path.clone());
                    Ok(ToolOutput::text(format!("deleted {path}")))
                }
            }),
        )
        .unwrap();
    registry
}

#[test]
fn the_card_says_when_a_call_times_out_or_is_cancelled_and_identical_calls_run_unasked() {
    chromium();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let presence = Presence::new();
    let server = runtime
        .block_on(presence.start("127.0.0.1:0", PresenceOptions::default()))
        .unwrap();
    let ran = Arc::new(Mutex::new(Vec::new()));
    let registry = || delete_file(ran.clone());
    let executor = |timeout: Duration| {
        let mut approval = ApprovalPolicy::never();
        approval.timeout = timeout;
        Executor::with_policy(registry(), ExecPolicy::default().approval(approval))
    };
    let (quick, patient) = (
        executor(Duration::from_millis(1500)),
        executor(Duration::from_secs(120)),
    );
    let session = ToolContext::builder()
        .events(Arc::new(presence.clone()))
        .approver(Arc::new(Remembering::new(PresenceApprover::new(
            presence.clone(),
        ))))
        .extension(ApprovalScope("page test".into()))
        .build();
    let call = |executor: &Executor, ctx: ToolContext, path: &str| {
        let (executor, input) = (executor.clone(), json!({"path": path}));
        runtime.spawn(async move { executor.call("delete_file", input, &ctx).await })
    };

    let mut browser = Browser::start(900, 900);
    browser.open(&server.url());
    browser.wait_until(
        "document.body.dataset.connection === 'live'",
        Duration::from_secs(30),
    );

    // No answer in time: the card says so, and the call ends not approved.
    let waiting = call(&quick, session.for_call("call_late"), "late.txt");
    let late = card("call_late");
    browser.wait_until(
        &format!(r#"document.querySelector('{late}[data-approval="pending"] .asked').textContent.includes("left")"#),
        Duration::from_secs(30),
    );
    assert_eq!(
        browser.eval(&format!(
            "document.querySelector('{late} .question').textContent"
        )),
        "Delete late.txt?"
    );
    browser.wait_until(
        &format!(
            r#"document.querySelector('{late}[data-approval="timed_out"][data-state="error"] .result:not([hidden])')"#
        ),
        Duration::from_secs(30),
    );
    assert_eq!(
        browser.eval(&format!(
            "document.querySelector('{late} .asked').textContent"
        )),
        "No answer within 1.5 s: counts as denied, not run"
    );
    let error = runtime.block_on(waiting).unwrap().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotApproved);
    assert!(error.message().contains("within 1.5 s"), "{error}");

    // Cancelled while it waits: the card says so.
    let cancelled = session.for_call("call_gone");
    let waiting = call(&patient, cancelled.clone(), "gone.txt");
    let gone = card("call_gone");
    browser.wait_until(
        &format!(r#"document.querySelector('{gone}[data-approval="pending"] button')"#),
        Duration::from_secs(30),
    );
    cancelled.cancellation().cancel();
    browser.wait_until(
        &format!(
            r#"document.querySelector('{gone}[data-approval="cancelled"][data-state="error"] .result:not([hidden])')"#
        ),
        Duration::from_secs(30),
    );
    assert_eq!(
        browser.eval(&format!(
            "document.querySelector('{gone} .asked').textContent"
        )),
        "The call was cancelled while it waited: not run"
    );
    assert_eq!(
        browser.eval(&format!(
            "document.querySelector('{gone} .kind').textContent"
        )),
        "cancelled"
    );
    let error = runtime.block_on(waiting).unwrap().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Cancelled);

    // Approved for identical calls: the same call again runs unasked, another is asked.
    let waiting = call(&patient, session.for_call("call_same"), "same.txt");
    let same = card("call_same");
    browser.wait_until(
        &format!(r#"document.querySelector('{same}[data-approval="pending"] button[data-answer="same_arguments"]')"#),
        Duration::from_secs(30),
    );
    browser.click(&format!(r#"{same} button[data-answer="same_arguments"]"#));
    let out = runtime.block_on(waiting).unwrap().unwrap();
    assert_eq!(out.echo(), "deleted same.txt");
    browser.wait_until(
        &format!(r#"document.querySelector('{same}[data-approval="approved"][data-state="ok"]')"#),
        Duration::from_secs(30),
    );
    assert_eq!(
        browser.eval(&format!(
            "document.querySelector('{same} .asked').textContent"
        )),
        "Approved, with identical calls this session"
    );
    let again = runtime
        .block_on(call(&patient, session.for_call("call_again"), "same.txt"))
        .unwrap()
        .unwrap();
    assert_eq!(again.echo(), "deleted same.txt");
    let other = call(&patient, session.for_call("call_other"), "other.txt");
    let other_card = card("call_other");
    browser.wait_until(
        &format!(r#"document.querySelector('{other_card}[data-approval="pending"] button[data-answer="deny"]')"#),
        Duration::from_secs(30),
    );
    browser.wait_until(
        &format!(
            r#"document.querySelector('{}[data-state="ok"]')"#,
            card("call_again")
        ),
        Duration::from_secs(30),
    );
    assert_eq!(
        browser.eval(&format!(
            "document.querySelector('{}').dataset.approval === undefined",
            card("call_again")
        )),
        true,
        "the identical call was not asked"
    );
    browser.click(&format!(r#"{other_card} button[data-answer="deny"]"#));
    let error = runtime.block_on(other).unwrap().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotApproved);
    browser.wait_until(
        &format!(r#"document.querySelector('{other_card}[data-approval="denied"]')"#),
        Duration::from_secs(30),
    );
    keep_screenshot(&browser.screenshot(), "approval-outcomes.png");
    // Only what the person approved ran.
    assert_eq!(*ran.lock().unwrap(), ["same.txt", "same.txt"]);
    assert!(presence.pending_approvals().is_empty());
    drop(browser);
    runtime.block_on(server.shutdown()).unwrap();
}
