//! Presence end to end: `agent --presence` against the scripted provider (three tool calls, one
//! failing), its `/events` stream read over HTTP, and its page rendered by headless Chromium
//! (Debian's `chromium`; `scripts/browser-env` installs it), which must show one card per call.
//! The screenshot is written to `<target>/presence/cards.png`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

mod browser;
mod running;
use browser::chromium;
use running::Running;

const AGENT: &str = env!("CARGO_BIN_EXE_agent");
const PROVIDER: &str = env!("CARGO_BIN_EXE_scripted-provider");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/presence-openai.json");

/// One HTTP/1.1 GET with extra header lines; the status line, the headers (lowercased) and the
/// body (de-chunked), read until the server closes.
fn get(addr: &str, path: &str, extra: &[(&str, &str)]) -> (String, String, String) {
    let mut socket = TcpStream::connect(addr).expect("the presence server accepts");
    socket
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut head = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    if !extra
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    socket.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    socket
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("GET {path}: {e} after {:?}", String::from_utf8_lossy(&raw)));
    let raw = String::from_utf8(raw).expect("UTF-8");
    let (top, body) = raw.split_once("\r\n\r\n").expect("a complete response");
    let (status, headers) = top.split_once("\r\n").unwrap_or((top, ""));
    let headers = headers.to_ascii_lowercase();
    let body = if headers.contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_owned()
    };
    (status.to_owned(), headers, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").expect("a chunk size line");
        let size = usize::from_str_radix(size.trim(), 16).expect("a hex chunk size");
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
}

/// An SSE message: its `id`, `event` and `data`.
#[derive(Debug)]
struct Message {
    id: Option<u64>,
    event: String,
    data: String,
}

fn messages(stream: &str) -> Vec<Message> {
    stream
        .split("\n\n")
        .filter_map(|block| {
            let (mut id, mut event, mut data) = (None, String::from("message"), None::<String>);
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = v.parse().ok();
                } else if let Some(v) = line.strip_prefix("event: ") {
                    event = v.to_owned();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = Some(v.to_owned());
                }
            }
            Some(Message {
                id,
                event,
                data: data?,
            })
        })
        .collect()
}

/// Runs Chromium on `url` until it exits (at most two minutes): the DOM after the page's
/// scripts ran, and a screenshot at `png`.
fn render(url: &str, png: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            // Chromium refuses to run as root with its sandbox; the page is our own.
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=900,640",
            // Virtual time waits while a request is open: the stream ends (the run is over),
            // then the page's scripts get these 5 s to run.
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", png.display()))
        .args(["--dump-dom", url])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let dom = std::thread::spawn(move || read_all(stdout));
    // Its stderr closes as it exits (it and the processes it started): read to the end, for
    // two minutes at most.
    let (said, log) = std::sync::mpsc::channel();
    std::thread::spawn(move || said.send(read_all(stderr)));
    let log = log
        .recv_timeout(Duration::from_secs(120))
        .unwrap_or_else(|_| {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish in 2 minutes:\n{}",
                log.recv().unwrap_or_default()
            )
        });
    let status = child.wait().unwrap();
    let dom = dom.join().unwrap();
    assert!(status.success(), "chromium failed ({status}):\n{log}");
    assert!(dom.contains("<body"), "no DOM from chromium:\n{log}");
    dom
}

fn read_all(mut from: impl Read) -> String {
    let mut text = String::new();
    let _ = from.read_to_string(&mut text);
    text
}

/// The cards in a DOM dump: (data-call-id, the card's markup).
fn cards(dom: &str) -> Vec<(String, String)> {
    dom.split("<article ")
        .skip(1)
        .map(|card| {
            let card = card.split("</article>").next().unwrap_or_default();
            let id = card
                .split("data-call-id=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_default();
            (id.to_owned(), card.to_owned())
        })
        .collect()
}

fn screenshot_path() -> PathBuf {
    // CARGO_TARGET_TMPDIR is <target>/tmp.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("a target directory");
    let dir = target.join("presence");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("cards.png")
}

#[test]
fn agent_shows_tool_cards_live_in_a_browser() {
    // Fail early, before anything runs, when the browser is missing.
    chromium();

    let mut provider = Running::spawn(Command::new(PROVIDER).args(["--port", "0", SCRIPT]));
    let line = provider.stderr_line("http://");
    let base_url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("a URL")
        .to_owned();

    let mut agent = Running::spawn(
        Command::new(AGENT)
            .args(["--provider", "openai", "--base-url", &base_url])
            .args(["--model", "scripted"])
            .args(["--presence", "127.0.0.1:0", "--presence-hold", "forever"])
            .arg("What time is it in Tokyo, and on Mars?")
            .env("AGENT_API_KEY", "test"),
    );
    let line = agent.stderr_line("presence: http://");
    let url = line.trim_start_matches("presence: ").trim().to_owned();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    assert!(addr.starts_with("127.0.0.1:"), "{url}");
    // The run ends: the answer, then the page stays up.
    assert_eq!(
        agent.stdout_line(),
        "Tokyo's time is above; Mars has no IANA time zone."
    );
    agent.stderr_line("until Ctrl-C");

    // The page.
    let (status, headers, page) = get(&addr, "/", &[]);
    assert!(status.contains("200"), "{status}");
    assert!(headers.contains("content-type: text/html"), "{headers}");
    assert!(
        headers.contains("content-security-policy: default-src 'none'"),
        "{headers}"
    );
    assert!(page.contains("new EventSource(\"events\")"));

    // The stream: the whole run (replayed, as this client connects after it), then `end`.
    let (status, headers, stream) = get(&addr, "/events", &[("Accept", "text/event-stream")]);
    assert!(status.contains("200"), "{status}");
    assert!(
        headers.contains("content-type: text/event-stream"),
        "{headers}"
    );
    let all = messages(&stream);
    let end = all.last().expect("events");
    assert_eq!(end.event, "end", "{stream}");
    assert_eq!(end.data, r#"{"reason":"finished"}"#);
    let events: Vec<(u64, Value)> = all
        .iter()
        .filter(|m| m.event == "tool")
        .map(|m| {
            let id = m.id.expect("tool events have ids");
            (id, serde_json::from_str(&m.data).expect("JSON data"))
        })
        .collect();
    let keys = [
        "seq",
        "call_id",
        "tool",
        "label",
        "phase",
        "ok",
        "error_kind",
        "text",
        "done",
        "total",
        "level",
        "event",
        "elapsed_ms",
    ];
    let mut last_seq = 0;
    for (id, event) in &events {
        for key in keys {
            assert!(event.get(key).is_some(), "no `{key}` in {event}");
        }
        assert_eq!(event["seq"], *id, "the SSE id is the seq");
        assert!(*id > last_seq, "ids increase: {stream}");
        last_seq = *id;
    }
    let of = |call: &str| -> Vec<&Value> {
        events
            .iter()
            .map(|(_, e)| e)
            .filter(|e| e["call_id"] == call)
            .collect()
    };
    for (call, tool, label) in [
        ("call_tokyo", "get_current_time", "Reading the clock"),
        ("call_wait", "wait_duration", "Waiting"),
        ("call_mars", "get_current_time", "Reading the clock"),
    ] {
        let card = of(call);
        assert!(card.len() >= 2, "{call}: {stream}");
        let (first, last) = (card[0], card[card.len() - 1]);
        assert_eq!(first["phase"], "started", "{first}");
        assert_eq!(last["phase"], "finished", "{last}");
        for e in &card {
            assert_eq!(e["tool"], tool, "{e}");
            assert_eq!(e["label"], label, "{e}");
        }
    }
    let tokyo = *of("call_tokyo").last().unwrap();
    assert_eq!(tokyo["ok"], true);
    assert!(
        tokyo["text"].as_str().unwrap().contains("Asia/Tokyo"),
        "{tokyo}"
    );
    let wait = of("call_wait");
    let progress: Vec<&&Value> = wait.iter().filter(|e| e["phase"] == "progress").collect();
    assert!(!progress.is_empty(), "{stream}");
    assert!(progress.iter().all(|e| e["total"] == 500), "{stream}");
    let waited = wait.last().unwrap();
    assert_eq!(waited["ok"], true);
    assert!(waited["elapsed_ms"].as_u64().unwrap() >= 500, "{waited}");
    let mars = *of("call_mars").last().unwrap();
    assert_eq!(mars["ok"], false);
    assert_eq!(mars["error_kind"], "invalid_input");
    assert!(
        mars["text"]
            .as_str()
            .unwrap()
            .contains("`Mars/Olympus_Mons` is not an IANA time zone name"),
        "{mars}"
    );

    // A page that reconnects gets only what it missed.
    let third = events[2].0;
    let (_, _, rest) = get(&addr, "/events", &[("Last-Event-ID", &third.to_string())]);
    let first_missed = messages(&rest).into_iter().find(|m| m.event == "tool");
    assert_eq!(first_missed.and_then(|m| m.id), Some(events[3].0), "{rest}");

    // Other sites cannot read the events.
    for extra in [
        vec![("Host", "evil.example")],
        vec![("Origin", "https://evil.example")],
    ] {
        let (status, _, body) = get(&addr, "/events", &extra);
        assert!(status.contains("403"), "{extra:?}: {status}");
        assert!(!body.contains("call_tokyo"), "{body}");
    }

    // The browser: one card per call, the failure styled as an error.
    let png = screenshot_path();
    let _ = std::fs::remove_file(&png);
    let dom = render(&url, &png);
    // Only the markup, not the page's script text.
    let body = dom.split("<script").next().unwrap_or_default();
    assert!(body.contains(r#"data-connection="ended""#), "{body}");
    assert!(body.contains("run finished"), "{body}");
    let cards = cards(body);
    let mut ids: Vec<&str> = cards.iter().map(|(id, _)| id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["call_mars", "call_tokyo", "call_wait"], "{body}");
    for (id, card) in &cards {
        let (state, label, result) = match id.as_str() {
            "call_tokyo" => ("ok", "Reading the clock", "Asia/Tokyo"),
            "call_wait" => ("ok", "Waiting", r#"{"seconds":0.5}"#),
            _ => (
                "error",
                "Reading the clock",
                "`Mars/Olympus_Mons` is not an IANA time zone name",
            ),
        };
        assert!(
            card.starts_with(&format!(r#"class="card {state}""#)),
            "{id}: {card}"
        );
        assert!(card.contains(&format!(r#"data-state="{state}""#)), "{card}");
        assert!(
            card.contains(&format!(r#"<span class="label">{label}</span>"#)),
            "{card}"
        );
        let line = card
            .split("<div class=\"result\"")
            .nth(1)
            .expect("a result line");
        let line = line.replace("&quot;", "\"");
        assert!(line.contains(result), "{id}: {line}");
        assert!(
            !card.contains("class=\"spinner\""),
            "{id} still spins: {card}"
        );
    }
    let (_, error_card) = cards.iter().find(|(id, _)| id == "call_mars").unwrap();
    assert!(
        error_card.contains(r#"<span class="kind">invalid_input</span>"#),
        "{error_card}"
    );
    let (_, wait_card) = cards.iter().find(|(id, _)| id == "call_wait").unwrap();
    assert!(wait_card.contains("waited 0.5 s of 0.5 s"), "{wait_card}");

    let image = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert!(image.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let width = u32::from_be_bytes(image[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(image[20..24].try_into().unwrap());
    assert!(width >= 900 && height >= 640, "{width}x{height}");
    // Not captured by the test harness, so it shows in the test output.
    let _ = writeln!(
        std::io::stderr(),
        "presence screenshot ({width}x{height}): {}",
        png.display()
    );

    // Ctrl-C ends the hold; the agent stops cleanly.
    let pid = agent.child.id().to_string();
    let sent = Command::new("sh")
        .args(["-c", &format!("kill -INT {pid}")])
        .status()
        .expect("sh runs");
    assert!(sent.success());
    let status = agent
        .exit_within(Duration::from_secs(30))
        .unwrap_or_else(|| panic!("agent did not stop on Ctrl-C:\n{}", agent.said()));
    assert!(status.success(), "{status}");
    assert!(
        TcpStream::connect(&addr).is_err(),
        "the presence server still listens"
    );
    drop(provider);
}
