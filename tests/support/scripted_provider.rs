//! A model provider that answers from a script, on 127.0.0.1: each request to
//! `/v1/chat/completions` (OpenAI) or `/v1/messages` (Anthropic) gets the next response, streamed
//! as Server-Sent Events in the provider's own format (an event with a `type` also gets an
//! `event:` line), and every request is kept with its headers, as sent. Included with `#[path]`
//! by the agent loop's tests, code mode's, and the code-mode benchmark.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use serde_json::Value;

/// What the scripted server answers, request by request, and what it was sent.
#[derive(Clone, Default)]
pub struct Script {
    answers: Arc<Mutex<Vec<Vec<Value>>>>,
    requests: Arc<Mutex<Vec<(HeaderMap, String)>>>,
}

impl Script {
    /// Every request so far: its headers and its body.
    pub fn requests(&self) -> Vec<(HeaderMap, Value)> {
        let requests = self.requests.lock().unwrap();
        let parse = |body: &String| serde_json::from_str(body).expect("the harness sends JSON");
        requests
            .iter()
            .map(|(h, b)| (h.clone(), parse(b)))
            .collect()
    }

    /// Every request's body so far, as sent.
    pub fn bodies(&self) -> Vec<String> {
        let requests = self.requests.lock().unwrap();
        requests.iter().map(|(_, body)| body.clone()).collect()
    }

    /// Answers `answers` from now on, and forgets the requests so far.
    pub fn reset(&self, answers: Vec<Vec<Value>>) {
        *self.answers.lock().unwrap() = answers;
        self.requests.lock().unwrap().clear();
    }
}

async fn answer(
    State(script): State<Script>,
    headers: HeaderMap,
    body: String,
) -> impl IntoResponse {
    let parsed: Value = serde_json::from_str(&body).expect("the harness sends JSON");
    assert_eq!(parsed["stream"], true, "the harness streams");
    script.requests.lock().unwrap().push((headers, body));
    let events = {
        let mut answers = script.answers.lock().unwrap();
        if answers.is_empty() {
            Vec::new()
        } else {
            answers.remove(0)
        }
    };
    let mut sse = String::new();
    for event in events {
        if let Some(kind) = event.get("type").and_then(Value::as_str) {
            sse.push_str(&format!("event: {kind}\n"));
        }
        sse.push_str(&format!("data: {event}\n\n"));
    }
    sse.push_str("data: [DONE]\n\n");
    ([("content-type", "text/event-stream")], sse)
}

/// Serves `answers` in turn; the base URL (`http://127.0.0.1:PORT/v1`) and the script.
pub async fn serve(answers: Vec<Vec<Value>>) -> (String, Script) {
    let script = Script {
        answers: Arc::new(Mutex::new(answers)),
        ..Script::default()
    };
    let app = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(answer))
        .route("/v1/messages", axum::routing::post(answer))
        .with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), script)
}
