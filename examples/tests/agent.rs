//! `agent` end to end, as the README shows it: the scripted provider serves a two-turn script
//! in OpenAI's streamed format on 127.0.0.1, and the agent runs the bundled tools it asks for,
//! prints the answer on stdout and the tool activity on stderr.

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
