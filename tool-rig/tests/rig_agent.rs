//! rig's own agent (rig-agent 0.44), with rig's OpenAI provider pointed at a scripted Chat
//! Completions server on 127.0.0.1, calling `#[tool]`s through the adapter: each call runs
//! through the executor (a tool that needs approval asks the application's approver; a denied
//! call is not run and the model reads why), its result reaches the model's next request, and a
//! deferred tool is found by the catalog's search, or by `search_tools`, and then called.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use rig_agent::AgentBuilder;
use rig_agent::tool::ToolSet;
use rig_core::providers::openai::OpenAIConfig;
use rig_core::providers::openai::wire::Chat;
use serde_json::{Value, json};
use tool_core::context::{ApprovalFuture, ApprovalRequest, Approver, Decision, Principal};
use tool_core::exec::Executor;
use tool_core::prelude::*;
use tool_rig::RigTools;

tool_core::domain!(pub math, "Arithmetic");
tool_core::domain!(pub notes, "The user's notes");
tool_core::domain!(pub weather, "Weather and its units");

static DELETED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Adds two numbers and returns their sum.
#[tool(domain = math, label = "Adding", hint = "Add two numbers", core)]
fn add_numbers(a: f64, b: f64) -> f64 {
    a + b
}

/// Deletes a note by its title. Use it when the user asks to remove a note.
#[tool(
    domain = notes,
    label = "Deleting a note",
    hint = "Delete a note",
    destructive,
    core,
    approval = "Delete the note {title}?",
)]
fn delete_note(title: String) -> String {
    DELETED.lock().unwrap().push(title.clone());
    format!("deleted {title}")
}

/// Deletes every note. Use it only when the user asks to remove all notes.
#[tool(
    domain = notes,
    label = "Purging notes",
    hint = "Delete every note",
    destructive,
    core,
    scopes("notes:admin"),
)]
fn purge_notes() -> String {
    "purged".to_owned()
}

/// Converts a temperature from degrees Celsius to degrees Fahrenheit.
#[tool(domain = weather, label = "Converting", hint = "Convert Celsius to Fahrenheit")]
fn convert_temperature(celsius: f64) -> f64 {
    celsius * 9.0 / 5.0 + 32.0
}

/// The scripted server: each request gets the next answer, every request's body is kept.
#[derive(Clone, Default)]
struct Script {
    answers: Arc<Mutex<VecDeque<Value>>>,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl Script {
    fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

async fn answer(State(script): State<Script>, Json(body): Json<Value>) -> Json<Value> {
    script.requests.lock().unwrap().push(body);
    let n = script.requests.lock().unwrap().len();
    let message = script
        .answers
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or_else(|| json!({"role": "assistant", "content": "the script has ended"}));
    let finish = if message.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    Json(json!({
        "id": format!("chatcmpl-{n}"), "object": "chat.completion", "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }))
}

/// Serves `answers` (assistant messages, in order) on 127.0.0.1; the base URL and the script.
async fn serve(answers: Vec<Value>) -> (String, Script) {
    let script = Script {
        answers: Arc::new(Mutex::new(answers.into())),
        ..Script::default()
    };
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(answer))
        .with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, script)
}

/// rig's OpenAI provider on `base`, its HTTP client built with the project's TLS set-up
/// (rustls on ring): in a build where reqwest has no TLS provider of its own, as here,
/// `ReqwestClient::default()` cannot make one.
fn model(base: &str) -> rig_core::Model<Chat> {
    let tls = tool_http::tls_config().unwrap();
    let http = rig_reqwest::reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .unwrap();
    OpenAIConfig::new("test-key")
        .with_base_url(base)
        .connect(rig_reqwest::ReqwestClient::from(http))
        .chat("scripted")
}

/// An assistant message that calls `name` with `arguments`.
fn calls(id: &str, name: &str, arguments: Value) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": id, "type": "function",
        "function": {"name": name, "arguments": arguments.to_string()},
    }]})
}

fn says(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

/// The tools a request offered, by name.
fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The content of the tool result for the call `id` in a request.
fn result_of(request: &Value, id: &str) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no result for {id} in {request}"))
        .to_owned()
}

/// A person who answers from a script, and what they were asked.
struct Person {
    answers: Mutex<VecDeque<Decision>>,
    asked: Mutex<Vec<(String, String)>>,
}

impl Person {
    fn answering(answers: impl IntoIterator<Item = Decision>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into_iter().collect()),
            asked: Mutex::new(Vec::new()),
        })
    }
}

impl Approver for Person {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        let asked = (request.tool.to_owned(), request.message.to_owned());
        self.asked.lock().unwrap().push(asked);
        let answer = self.answers.lock().unwrap().pop_front();
        Box::pin(async move { answer.unwrap_or_else(|| Decision::denied(None)) })
    }
}

/// rig's agent over `tools`: the core ones on every request, the deferred ones as the index
/// picks them.
fn searching(base: &str, tools: &RigTools) -> rig_agent::Agent {
    AgentBuilder::new(model(base))
        .dynamic_tools(tools.core_tools())
        .retrieved_tools(
            3,
            tools.index(),
            ToolSet::from_dynamic_tools(tools.deferred_tools()),
        )
        .build()
}

fn tools() -> RigTools {
    let mut registry = Registry::linked().unwrap();
    tool_catalog::install(&mut registry).unwrap();
    RigTools::new(Executor::new(registry))
}

#[tokio::test]
async fn a_call_runs_through_the_executor_and_its_result_reaches_the_next_request() {
    let (base, script) = serve(vec![
        calls("call_1", "add_numbers", json!({"a": 2, "b": 3})),
        says("2 + 3 = 5"),
    ])
    .await;
    let tools = tools();
    let agent = AgentBuilder::new(model(&base))
        .dynamic_tools(tools.core_tools())
        .build();
    let answer = agent.prompt("What is 2 + 3?").max_turns(3).await.unwrap();
    assert_eq!(answer.output(), "2 + 3 = 5");
    let requests = script.requests();
    assert_eq!(requests.len(), 2);
    // Core tools only: the deferred one waits for a search.
    let mut first = offered(&requests[0]);
    first.sort();
    assert_eq!(
        first,
        ["add_numbers", "delete_note", "purge_notes", "search_tools"]
    );
    // The schema the registry has, as OpenAI takes it.
    let add = &requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "add_numbers")
        .unwrap()["function"];
    assert_eq!(
        add["description"],
        "Adds two numbers and returns their sum."
    );
    assert_eq!(add["parameters"]["required"], json!(["a", "b"]));
    assert_eq!(result_of(&requests[1], "call_1"), "5.0");
}

#[tokio::test]
async fn bad_input_is_refused_by_the_executor_and_the_model_reads_where() {
    let (base, script) = serve(vec![
        calls("call_1", "add_numbers", json!({"a": "two", "b": 3})),
        says("sorry"),
    ])
    .await;
    let tools = tools();
    let agent = AgentBuilder::new(model(&base))
        .dynamic_tools(tools.core_tools())
        .build();
    agent.prompt("What is two + 3?").max_turns(3).await.unwrap();
    let result = result_of(&script.requests()[1], "call_1");
    assert!(result.starts_with("a: "), "the JSON path leads: {result}");
}

#[tokio::test]
async fn a_call_that_needs_approval_asks_the_applications_approver() {
    let (base, script) = serve(vec![
        calls("call_1", "delete_note", json!({"title": "groceries"})),
        calls("call_2", "delete_note", json!({"title": "taxes"})),
        says("one deleted, one kept"),
    ])
    .await;
    let person = Person::answering([Decision::denied("keep it".to_owned()), Decision::approved()]);
    let tools = tools().approver(person.clone());
    let agent = AgentBuilder::new(model(&base))
        .dynamic_tools(tools.core_tools())
        .build();
    let answer = agent.prompt("Delete my notes").max_turns(4).await.unwrap();
    assert_eq!(answer.output(), "one deleted, one kept");
    let asked = person.asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        [
            (
                "delete_note".to_owned(),
                "Delete the note groceries?".to_owned()
            ),
            (
                "delete_note".to_owned(),
                "Delete the note taxes?".to_owned()
            ),
        ]
    );
    let requests = script.requests();
    let denied = result_of(&requests[1], "call_1");
    assert!(denied.contains("keep it"), "the model reads why: {denied}");
    assert_eq!(result_of(&requests[2], "call_2"), "deleted taxes");
    // The denied call never ran.
    let deleted = DELETED.lock().unwrap().clone();
    assert!(!deleted.contains(&"groceries".to_owned()), "{deleted:?}");
    assert!(deleted.contains(&"taxes".to_owned()), "{deleted:?}");
}

#[tokio::test]
async fn a_deferred_tool_is_offered_when_the_catalog_finds_it_for_the_prompt() {
    let (base, script) = serve(vec![
        calls("call_1", "convert_temperature", json!({"celsius": 100})),
        says("212 F"),
    ])
    .await;
    let tools = tools();
    let agent = searching(&base, &tools);
    let answer = agent
        .prompt("Convert 100 degrees Celsius to Fahrenheit")
        .max_turns(3)
        .await
        .unwrap();
    assert_eq!(answer.output(), "212 F");
    let requests = script.requests();
    assert!(offered(&requests[0]).contains(&"convert_temperature".to_owned()));
    assert_eq!(result_of(&requests[1], "call_1"), "212.0");
    // A prompt about something else does not bring it.
    assert!(tools.index().pick("add two numbers", 3).is_empty());
}

#[tokio::test]
async fn a_tool_found_by_search_tools_is_offered_from_the_next_request() {
    let (base, script) = serve(vec![
        calls(
            "call_1",
            "search_tools",
            json!({"query": "fahrenheit from celsius"}),
        ),
        calls("call_2", "convert_temperature", json!({"celsius": 0})),
        says("32 F"),
    ])
    .await;
    let tools = tools();
    let agent = searching(&base, &tools);
    // A prompt the catalog finds nothing for: only search_tools can bring the tool.
    let prompt = "Hello there";
    assert!(tools.index().pick(prompt, 3).is_empty());
    let answer = agent.prompt(prompt).max_turns(4).await.unwrap();
    assert_eq!(answer.output(), "32 F");
    let requests = script.requests();
    assert!(!offered(&requests[0]).contains(&"convert_temperature".to_owned()));
    assert!(result_of(&requests[1], "call_1").contains("convert_temperature"));
    assert!(offered(&requests[1]).contains(&"convert_temperature".to_owned()));
    assert_eq!(result_of(&requests[2], "call_2"), "32.0");
    assert!(tools.loaded().contains(&"convert_temperature".to_owned()));
}

#[tokio::test]
async fn a_caller_is_offered_only_the_tools_it_may_call_and_keeps_the_approver() {
    let person = Person::answering([Decision::approved()]);
    let caller = Principal::new("ana").with_scopes(["notes:read"]);
    // The approver set before the context stays.
    let tools = tools()
        .approver(person.clone())
        .context(ToolContext::new().derive().principal(caller).build());
    let core: Vec<String> = tools
        .core_tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert!(!core.contains(&"purge_notes".to_owned()), "{core:?}");
    assert!(tools.tool("purge_notes").is_none());
    let delete = tools.tool("delete_note").unwrap();
    let output = delete.execute(json!({"title": "drafts"})).await.unwrap();
    assert_eq!(output.as_text(), Some("deleted drafts"));
    assert_eq!(person.asked.lock().unwrap().len(), 1);
}
