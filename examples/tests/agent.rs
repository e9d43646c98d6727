//! `agent` end to end, as the README shows it: the scripted provider serves a two-turn script
//! in OpenAI's streamed format on 127.0.0.1, and the agent runs the bundled tools it asks for,
//! prints the answer on stdout and the tool activity on stderr; and asks a person at the
//! terminal before calls that `--approval` holds.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const AGENT: &str = env!("CARGO_BIN_EXE_agent");
const PROVIDER: &str = env!("CARGO_BIN_EXE_scripted-provider");

/// The scripted provider on a free port, killed when dropped.
struct Provider(Child, String);

impl Provider {
    fn start(script: &str) -> Self {
        let mut child = Command::new(PROVIDER)
            .args(["--port", "0", script])
            .stderr(Stdio::piped())
            .spawn()
            .expect("the scripted provider starts");
        let mut line = String::new();
        BufReader::new(child.stderr.take().expect("piped"))
            .read_line(&mut line)
            .expect("it says where it listens");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_owned();
        Self(child, url)
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn script(name: &str) -> String {
    format!("{}/scripts/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn agent_answers_with_the_tools_the_model_calls() {
    let provider = Provider::start(&script("weather-openai.json"));
    let out = Command::new(AGENT)
        .args([
            "--provider",
            "openai",
            "--base-url",
            &provider.1,
            "--model",
            "scripted",
        ])
        .arg("What time is it in Tokyo, and when is 9:00 Paris time there?")
        .env("AGENT_API_KEY", "test")
        .output()
        .expect("agent runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.trim(),
        "The current time in Tokyo is above; 09:00 in Paris is 17:00 in Tokyo in winter."
    );
    // The activity view: each tool's label while it runs, then its result.
    assert!(stderr.contains("… Reading the clock"), "{stderr}");
    assert!(
        stderr.contains("✓ get_current_time {\"timezone\":\"Asia/Tokyo\""),
        "{stderr}"
    );
    assert!(stderr.contains("… Converting time zones"), "{stderr}");
    assert!(
        stderr.contains("✓ convert_time {\"source\":{\"timezone\":\"Europe/Paris\""),
        "{stderr}"
    );
}

#[test]
fn agent_reports_a_provider_that_stops_answering() {
    // One tool-calling turn, then the script is over: the provider answers 410.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.json");
    let full = std::fs::read_to_string(script("weather-openai.json")).unwrap();
    let mut turns: Vec<serde_json::Value> = serde_json::from_str(&full).unwrap();
    turns.truncate(1);
    std::fs::write(&path, serde_json::to_string(&turns).unwrap()).unwrap();
    let provider = Provider::start(path.to_str().unwrap());
    let out = Command::new(AGENT)
        .args([
            "--provider",
            "openai",
            "--base-url",
            &provider.1,
            "--model",
            "scripted",
            "Time?",
        ])
        .output()
        .expect("agent runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the provider answered 410"), "{stderr}");
}

/// `agent` with a person at its terminal: stderr read as it comes (a prompt has no newline),
/// answers written to stdin once each question shows.
struct Session {
    child: Child,
    /// Stderr so far, and word of each new piece of it.
    stderr: std::sync::Arc<(std::sync::Mutex<String>, std::sync::Condvar)>,
    /// Reads stderr until it closes.
    reader: std::thread::JoinHandle<()>,
}

impl Session {
    fn start(provider: &Provider, extra: &[&str], stdin: Stdio) -> Self {
        let mut child = Command::new(AGENT)
            .args(["--provider", "openai", "--base-url", &provider.1])
            .args(["--model", "scripted"])
            .args(extra)
            .arg("What time is it in Tokyo, and in Paris?")
            .env("AGENT_API_KEY", "test")
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("agent runs");
        let stderr = std::sync::Arc::new((
            std::sync::Mutex::new(String::new()),
            std::sync::Condvar::new(),
        ));
        let mut pipe = child.stderr.take().expect("piped");
        let seen = stderr.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = std::io::Read::read(&mut pipe, &mut buf) {
                if n == 0 {
                    break;
                }
                seen.0
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
                seen.1.notify_all();
            }
        });
        Self {
            child,
            stderr,
            reader,
        }
    }

    fn stderr(&self) -> String {
        self.stderr.0.lock().unwrap().clone()
    }

    /// Waits (up to a minute) until stderr shows `needle` `times` times.
    fn wait_for(&self, needle: &str, times: usize) {
        let (text, more) = &*self.stderr;
        let (text, waited) = more
            .wait_timeout_while(
                text.lock().unwrap(),
                std::time::Duration::from_secs(60),
                |text| text.matches(needle).count() < times,
            )
            .unwrap();
        assert!(
            !waited.timed_out(),
            "no {times}× `{needle}` on stderr:\n{text}"
        );
    }

    fn answer(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().expect("piped");
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// Waits for the exit: the status, stdout and stderr.
    fn finish(mut self) -> (std::process::ExitStatus, String, String) {
        drop(self.child.stdin.take());
        let mut stdout = String::new();
        std::io::Read::read_to_string(&mut self.child.stdout.take().unwrap(), &mut stdout).unwrap();
        let status = self.child.wait().unwrap();
        // The reader has the last of stderr once the pipe closes.
        self.reader.join().unwrap();
        let stderr = self.stderr.0.lock().unwrap().clone();
        (status, stdout, stderr)
    }
}

#[test]
fn agent_asks_at_the_terminal_and_a_denial_goes_back_to_the_model() {
    let provider = Provider::start(&script("approval-openai.json"));
    let mut session = Session::start(
        &provider,
        &["--approval", "get_current_time"],
        Stdio::piped(),
    );
    // The first question: the call, its arguments, the choices, the time limit.
    session.wait_for("\n> ", 1);
    let first = session.stderr();
    assert!(first.contains("? approval needed"), "{first}");
    assert!(
        first.contains("Reading the clock (`get_current_time`) with these arguments:"),
        "{first}"
    );
    assert!(first.contains(r#""timezone": "Asia/Tokyo""#), "{first}");
    assert!(
        first.contains("(no answer within 300 s counts as no)"),
        "{first}"
    );
    // Something that is not an answer is asked again.
    session.answer("perhaps");
    session.wait_for("\n> ", 2);
    session.answer("n not Tokyo");
    // The denial went to the model, which asks for Paris next.
    session.wait_for("? approval needed", 2);
    session.wait_for("\n> ", 3);
    assert!(session.stderr().contains(r#""timezone": "Europe/Paris""#));
    session.answer("y");
    let (status, stdout, stderr) = session.finish();
    assert!(status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.trim(),
        "Paris's time is above; Tokyo's was not allowed."
    );
    assert!(stderr.contains("`perhaps` is not an answer"), "{stderr}");
    assert!(stderr.contains("(denied: not Tokyo)"), "{stderr}");
    assert!(
        stderr.contains(
            "✗ get_current_time: a person declined the call to `get_current_time`: not Tokyo; it was not run"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("(approved once)"), "{stderr}");
    assert!(
        stderr.contains(r#"✓ get_current_time {"timezone":"Europe/Paris""#),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Asia/Tokyo\",\"iso"),
        "Tokyo never ran: {stderr}"
    );
}

#[test]
fn agent_refuses_what_no_one_can_approve_and_bad_rules() {
    // No terminal input: no one can answer, so neither call runs; the model is told, and the
    // run still ends with its answer.
    let provider = Provider::start(&script("approval-openai.json"));
    let session = Session::start(&provider, &["--approval", "domain:time"], Stdio::null());
    let (status, stdout, stderr) = session.finish();
    assert!(status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.trim(),
        "Paris's time is above; Tokyo's was not allowed."
    );
    assert_eq!(
        stderr
            .matches("needs a person's approval, and no one could be asked")
            .count(),
        2,
        "{stderr}"
    );
    assert!(!stderr.contains("✓ get_current_time"), "{stderr}");

    // A misspelt tool or domain would hold nothing; `never` with a rule; not a rule at all.
    for rules in [
        &["--approval", "get_curent_time"][..],
        &["--approval", "domain:clocks"],
        &["--approval", "never", "--approval", "write"],
        &["--approval", "Write!"],
    ] {
        let out = Command::new(AGENT)
            .args([
                "--provider",
                "openai",
                "--base-url",
                "http://127.0.0.1:9/v1",
            ])
            .args(["--model", "scripted"])
            .args(rules)
            .arg("Time?")
            .output()
            .expect("agent runs");
        assert_eq!(out.status.code(), Some(2), "{rules:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("approval"), "{rules:?}: {stderr}");
        if rules[1] == "get_curent_time" {
            assert!(
                stderr.contains("did you mean `get_current_time`?"),
                "{stderr}"
            );
        }
    }
}

/// `agent --code`: the model writes one script over the bundled tools; each call the script
/// makes shows in the activity view as a call of the model's would, and the model answers from
/// the script's summary.
#[test]
fn agent_in_code_mode_runs_the_models_script() {
    let provider = Provider::start(&script("code-openai.json"));
    let out = Command::new(AGENT)
        .args([
            "--provider",
            "openai",
            "--base-url",
            &provider.1,
            "--model",
            "scripted",
            "--code",
        ])
        .arg("What time is it in Tokyo, Paris and on Mars?")
        .env("AGENT_API_KEY", "test")
        .output()
        .expect("agent runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.trim(),
        "Tokyo and Paris checked; Mars has no time zone."
    );
    // The script's calls, each through the executor: two clocks read, one refused, one
    // conversion, then the script's own result.
    assert_eq!(stderr.matches("✓ get_current_time").count(), 2, "{stderr}");
    assert!(stderr.contains("✗ get_current_time"), "{stderr}");
    assert!(stderr.contains("✓ convert_time"), "{stderr}");
    assert!(stderr.contains("✓ run_code"), "{stderr}");
}
