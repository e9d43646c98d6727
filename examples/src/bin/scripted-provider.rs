//! A stand-in for a hosted model, for trying `agent` without an account: it answers each
//! request to `/v1/chat/completions` (OpenAI) or `/v1/messages` (Anthropic) with the next
//! response of a script, streamed as Server-Sent Events in the provider's own format.
//!
//! ```text
//! scripted-provider --port 8700 examples/scripts/weather-openai.json
//! ```
//!
//! A script is a JSON array of responses; a response is the array of events the provider would
//! stream (each becomes one `data:` line; an event with a `type` also gets an `event:` line).

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use clap::Parser;
use serde_json::Value;

#[derive(Parser)]
#[command(
    name = "scripted-provider",
    about = "Answer model requests from a script, on 127.0.0.1"
)]
struct Args {
    /// The port to listen on (127.0.0.1 only; 0 picks one).
    #[arg(long, default_value_t = 8700)]
    port: u16,
    /// The script: a JSON array of responses, each an array of stream events.
    script: std::path::PathBuf,
}

type Script = Arc<Mutex<std::collections::VecDeque<Vec<Value>>>>;

async fn answer(State(script): State<Script>) -> Response {
    let next = script.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
    let Some(events) = next else {
        return (StatusCode::GONE, "the script has no more answers").into_response();
    };
    let mut sse = String::new();
    for event in events {
        if let Some(kind) = event.get("type").and_then(Value::as_str) {
            sse.push_str(&format!("event: {kind}\n"));
        }
        sse.push_str(&format!("data: {event}\n\n"));
    }
    sse.push_str("data: [DONE]\n\n");
    ([("content-type", "text/event-stream")], sse).into_response()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let script: Vec<Vec<Value>> = match std::fs::read_to_string(&args.script)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(script) => script,
        Err(e) => {
            eprintln!("error: {}: {e}", args.script.display());
            return std::process::ExitCode::from(2);
        }
    };
    let script: Script = Arc::new(Mutex::new(script.into()));
    let app = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(answer))
        .route("/v1/messages", axum::routing::post(answer))
        .with_state(script);
    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("error: cannot listen on 127.0.0.1:{}: {e}", args.port);
            return std::process::ExitCode::from(2);
        }
    };
    if let Ok(addr) = listener.local_addr() {
        eprintln!("scripted provider at http://{addr}/v1");
    }
    match axum::serve(listener, app).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
