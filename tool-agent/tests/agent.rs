//! The agent loop against a scripted provider on 127.0.0.1 that speaks each provider's real
//! wire format (streamed Server-Sent Events): parallel calls over several turns, a deferred tool
//! found through `search_tools` and then called, a malformed argument corrected, a tool error,
//! the turn limit, a tool whose result does not feed back, the tags protocol, and calls held
//! for a person's approval (denied, then approved; approvals kept for the agent's session).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tool_agent::{Agent, AgentError, Protocol, Provider, ProviderConfig};
use tool_core::exec::{ApprovalPolicy, ExecPolicy, Executor};
use tool_core::{
    Registry, ToolContext, ToolError, ToolOutput,
    context::{ApprovalFuture, ApprovalRequest, Approver, Decision, Principal, Remember},
    definition::Annotations,
    registry::DynamicTool,
};

#[path = "../../tests/support/scripted_provider.rs"]
mod scripted_provider;
use scripted_provider::serve;

fn registry() -> Registry {
    let object = |props: Value, required: &[&str]| json!({"type": "object", "properties": props, "required": required, "additionalProperties": false});
    let mut r = Registry::empty();
    r.register_all([
        DynamicTool::new(
            "get_weather",
            "Returns the weather for a city.",
            object(json!({"city": {"type": "string"}}), &["city"]),
        )
        .core(true)
        .handler(|input, _| async move {
            Ok(ToolOutput::text(format!(
                "sunny in {}",
                input["city"].as_str().unwrap_or("?")
            )))
        }),
        DynamicTool::new(
            "send_email",
            "Sends an email to a recipient.",
            object(
                json!({"to": {"type": "string"}, "body": {"type": "string"}}),
                &["to", "body"],
            ),
        )
        .handler(|input, _| async move {
            Ok(ToolOutput::text(format!(
                "sent to {}",
                input["to"].as_str().unwrap_or("?")
            )))
        }),
        DynamicTool::new(
            "get_stock",
            "Returns a stock price.",
            object(json!({"symbol": {"type": "string"}}), &["symbol"]),
        )
        .core(true)
        .handler(|_, _| async move { Err(ToolError::unavailable("the exchange is closed")) }),
        DynamicTool::new("take_photo", "Takes a photo.", object(json!({}), &[]))
            .core(true)
            .handler(|_, _| async move {
                Ok(
                    ToolOutput::text("a photo").with_media(tool_core::output::Media::image(
                        "image/png",
                        vec![1u8, 2, 3],
                    )),
                )
            }),
        DynamicTool::new(
            "show_chart",
            "Shows a chart to the user.",
            object(json!({}), &[]),
        )
        .core(true)
        .feeds_back(false)
        .handler(|_, _| async move { Ok(ToolOutput::text("shown")) }),
    ])
    .unwrap();
    tool_catalog::install(&mut r).unwrap();
    r
}

fn agent(base: &str, provider: Provider) -> Agent {
    let config = ProviderConfig::new(base, "scripted").api_key("test-key");
    Agent::new(Executor::new(registry()), provider, config)
}

/// OpenAI stream chunks: text, then tool calls each split into pieces.
fn openai_text(text: &str) -> Vec<Value> {
    vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]
}

fn openai_calls(calls: &[(&str, &str, &str)]) -> Vec<Value> {
    let mut chunks = Vec::new();
    for (i, (id, name, args)) in calls.iter().enumerate() {
        chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}}]}));
        let (a, b) = args.split_at(args.len() / 2);
        for piece in [a, b] {
            chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": i, "function": {"arguments": piece}}]}}]}));
        }
    }
    chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
    chunks
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.pointer("/function/name").or_else(|| t.get("name")))
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn openai_parallel_calls_over_turns_then_an_answer() {
    let (base, script) = serve(vec![
        openai_calls(&[
            ("c1", "get_weather", r#"{"city": "Paris"}"#),
            ("c2", "get_weather", r#"{"city": "Oslo"}"#),
        ]),
        openai_text("Sunny in both."),
    ])
    .await;
    let mut agent = agent(&base, Provider::OpenAi);
    let answer = agent.run("Weather in Paris and Oslo?").await.unwrap();
    assert_eq!(answer.text, "Sunny in both.");
    assert_eq!((answer.turns, answer.calls), (2, 2));
    let requests = script.requests();
    assert_eq!(requests[0].0["authorization"], "Bearer test-key");
    // Only the loaded set is sent: core tools and search_tools, not the deferred send_email.
    let sent = tool_names(&requests[0].1);
    assert!(sent.contains(&"get_weather".to_owned()) && sent.contains(&"search_tools".to_owned()));
    assert!(!sent.contains(&"send_email".to_owned()));
    let messages = requests[1].1["messages"].as_array().unwrap();
    let tool_messages: Vec<&Value> = messages.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(tool_messages[0]["tool_call_id"], "c1");
    assert_eq!(tool_messages[0]["content"], "sunny in Paris");
    assert_eq!(tool_messages[1]["content"], "sunny in Oslo");
}

#[tokio::test]
async fn a_deferred_tool_is_found_through_search_then_called() {
    let (base, script) = serve(vec![
        openai_calls(&[("s1", "search_tools", r#"{"query": "mail my landlord"}"#)]),
        openai_calls(&[(
            "e1",
            "send_email",
            r#"{"to": "landlord@example.com", "body": "The sink leaks."}"#,
        )]),
        openai_text("Done, the email is sent."),
    ])
    .await;
    let mut agent = agent(&base, Provider::OpenAi);
    let answer = agent.run("Tell my landlord the sink leaks").await.unwrap();
    assert_eq!(answer.text, "Done, the email is sent.");
    let requests = script.requests();
    assert!(
        tool_names(&requests[1].1).contains(&"send_email".to_owned()),
        "loaded after the search"
    );
    let last = requests[2].1["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], "sent to landlord@example.com");
}

#[tokio::test]
async fn malformed_arguments_get_an_error_the_model_corrects() {
    let (base, script) = serve(vec![
        openai_calls(&[("c1", "get_weather", r#"{city: Paris"#)]),
        openai_calls(&[("c2", "get_weather", r#"{"city": "Paris"}"#)]),
        openai_text("Sunny."),
    ])
    .await;
    let answer = agent(&base, Provider::OpenAi)
        .run("Weather?")
        .await
        .unwrap();
    assert_eq!(answer.text, "Sunny.");
    let second = &script.requests()[1].1;
    let error = second["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(error.contains("JSON"), "{error}");
    let third = &script.requests()[2].1;
    assert_eq!(
        third["messages"].as_array().unwrap().last().unwrap()["content"],
        "sunny in Paris"
    );
}

#[tokio::test]
async fn the_turn_limit_stops_a_model_that_never_answers() {
    let looping: Vec<Vec<Value>> = (0..5)
        .map(|i| openai_calls(&[(&format!("c{i}"), "get_weather", r#"{"city": "Rome"}"#)]))
        .collect();
    let (base, _) = serve(looping).await;
    let mut agent = agent(&base, Provider::OpenAi).max_turns(3);
    assert!(matches!(
        agent.run("Loop").await,
        Err(AgentError::TurnLimit(3))
    ));
}

#[tokio::test]
async fn a_tool_that_does_not_feed_back_ends_the_run() {
    let (base, script) = serve(vec![openai_calls(&[("c1", "show_chart", "{}")])]).await;
    let answer = agent(&base, Provider::OpenAi)
        .run("Chart it")
        .await
        .unwrap();
    assert_eq!((answer.turns, answer.calls), (1, 1));
    assert_eq!(script.requests().len(), 1, "no second request");
}

/// Anthropic stream events for text and tool uses (inputs streamed as partial JSON).
fn anthropic(text: &str, uses: &[(&str, &str, &str)]) -> Vec<Value> {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}),
    ];
    let mut index = 0;
    if !text.is_empty() {
        events.push(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}));
        events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}));
        events.push(json!({"type": "content_block_stop", "index": 0}));
        index = 1;
    }
    for (id, name, input) in uses {
        events.push(json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
        let (a, b) = input.split_at(input.len() / 2);
        for piece in [a, b] {
            events.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}));
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
        index += 1;
    }
    let stop = if uses.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop}}));
    events.push(json!({"type": "message_stop"}));
    events
}

#[tokio::test]
async fn anthropic_streams_parallel_tool_uses_and_tool_errors() {
    let (base, script) = serve(vec![
        anthropic(
            "Checking.",
            &[
                ("u1", "get_weather", r#"{"city": "Lima"}"#),
                ("u2", "get_stock", r#"{"symbol": "ACME"}"#),
            ],
        ),
        anthropic("Lima is sunny; the exchange is closed.", &[]),
    ])
    .await;
    let answer = agent(&base, Provider::Anthropic)
        .run("Lima weather and ACME?")
        .await
        .unwrap();
    assert_eq!(answer.text, "Lima is sunny; the exchange is closed.");
    let requests = script.requests();
    assert_eq!(requests[0].0["x-api-key"], "test-key");
    assert_eq!(requests[0].0["anthropic-version"], "2023-06-01");
    let messages = requests[1].1["messages"].as_array().unwrap();
    let assistant = &messages[1]["content"];
    assert_eq!(assistant[1]["type"], "tool_use");
    assert_eq!(assistant[1]["input"], json!({"city": "Lima"}));
    let results = &messages[2]["content"];
    assert_eq!(results[0]["tool_use_id"], "u1");
    assert_eq!(results[0]["is_error"], false);
    assert_eq!(results[0]["content"][0]["text"], "sunny in Lima");
    assert_eq!(results[1]["is_error"], true);
    let error = results[1]["content"][0]["text"].as_str().unwrap();
    assert!(error.contains("exchange is closed"), "{error}");
}

#[tokio::test]
async fn the_tags_protocol_end_to_end() {
    let (base, script) = serve(vec![
        openai_text("Let me look. <get_weather city=\"Kyoto\"/> and <get_wether city=\"Nara\"/>"),
        openai_text("Kyoto is sunny."),
    ])
    .await;
    let mut agent = agent(&base, Provider::OpenAi).protocol(Protocol::Tags);
    let answer = agent.run("Weather in Kyoto?").await.unwrap();
    assert_eq!(answer.text, "Kyoto is sunny.");
    let requests = script.requests();
    assert!(
        requests[0].1.get("tools").is_none(),
        "no native tools in the tags protocol"
    );
    let system = requests[0].1["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("## get_weather"),
        "the tools are documented in the system prompt"
    );
    let results = requests[1].1["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        results.contains("<tool_result name=\"get_weather\">sunny in Kyoto</tool_result>"),
        "{results}"
    );
    assert!(results.contains("did you mean `get_weather`"), "{results}");
}

#[tokio::test]
async fn images_go_back_as_image_parts_in_both_formats() {
    let (base, script) = serve(vec![
        anthropic("", &[("u1", "take_photo", "{}")]),
        anthropic("A photo.", &[]),
    ])
    .await;
    agent(&base, Provider::Anthropic)
        .run("Photo?")
        .await
        .unwrap();
    let result = &script.requests()[1].1["messages"][2]["content"][0];
    assert_eq!(result["content"][1]["type"], "image");
    assert_eq!(result["content"][1]["source"]["data"], "AQID");
    assert_eq!(result["content"][1]["source"]["media_type"], "image/png");

    // OpenAI tool messages are text only: the image follows in a user message.
    let (base, script) = serve(vec![
        openai_calls(&[("c1", "take_photo", "{}")]),
        openai_text("A photo."),
    ])
    .await;
    agent(&base, Provider::OpenAi).run("Photo?").await.unwrap();
    let messages = script.requests()[1].1["messages"]
        .as_array()
        .unwrap()
        .clone();
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(
        last["content"][1]["image_url"]["url"],
        "data:image/png;base64,AQID"
    );
}

/// A core tool that needs a scope, beside one that needs none.
fn scoped_registry() -> Registry {
    let mut r = Registry::empty();
    r.register_all([
        DynamicTool::new(
            "get_weather",
            "Returns the weather for a city.",
            json!({"type": "object"}),
        )
        .core(true)
        .handler(|_, _| async move { Ok(ToolOutput::text("sunny")) }),
        DynamicTool::new("wipe_disk", "Erases every file.", json!({"type": "object"}))
            .core(true)
            .scopes(["admin"])
            .handler(|_, _| async move { Ok(ToolOutput::text("wiped")) }),
    ])
    .unwrap();
    tool_catalog::install(&mut r).unwrap();
    r
}

#[tokio::test]
async fn the_model_is_offered_only_the_tools_the_caller_may_call() {
    let scripted = |base: &str, caller: Option<Principal>, protocol: Protocol| {
        let config = ProviderConfig::new(base, "scripted").api_key("test-key");
        let context = match caller {
            Some(caller) => ToolContext::builder().principal(caller).build(),
            None => ToolContext::new(),
        };
        Agent::new(Executor::new(scoped_registry()), Provider::OpenAi, config)
            .context(context)
            .protocol(protocol)
    };
    let reader = || Some(Principal::new("ada").with_scopes(["read"]));

    // Native tool calling: the tool is not sent; called anyway, it is refused.
    let (base, script) = serve(vec![
        openai_calls(&[("w1", "wipe_disk", "{}")]),
        openai_text("I may not."),
    ])
    .await;
    let mut agent = scripted(&base, reader(), Protocol::Native);
    agent.run("Wipe the disk").await.unwrap();
    let requests = script.requests();
    assert_eq!(tool_names(&requests[0].1), ["search_tools", "get_weather"]);
    assert_eq!(
        agent.session().loaded_names(),
        ["search_tools", "get_weather"]
    );
    let refused = requests[1].1["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .clone();
    assert!(
        refused
            .as_str()
            .unwrap()
            .contains("needs the scope `admin`"),
        "{refused}"
    );

    // The tags protocol documents the loaded tools in the system prompt: not this one either.
    let (base, script) = serve(vec![openai_text("Nothing to do.")]).await;
    scripted(&base, reader(), Protocol::Tags)
        .run("Wipe the disk")
        .await
        .unwrap();
    let system = script.requests()[0].1.to_string();
    assert!(system.contains("get_weather"), "{system}");
    assert!(!system.contains("wipe_disk"), "{system}");

    // A caller granted the scope is offered it, and so is a run with no authenticated caller.
    for caller in [Some(Principal::new("bob").with_scopes(["admin"])), None] {
        let (base, script) = serve(vec![openai_text("Ok.")]).await;
        scripted(&base, caller, Protocol::Native)
            .run("Wipe the disk")
            .await
            .unwrap();
        let sent = tool_names(&script.requests()[0].1);
        assert_eq!(sent, ["search_tools", "get_weather", "wipe_disk"]);
    }
}

/// A person, scripted: answers in turn, keeping what each question showed.
#[derive(Default)]
struct Person {
    answers: Mutex<VecDeque<Decision>>,
    /// Every question.
    asked: Mutex<Vec<Asked>>,
}

/// What one question showed.
#[derive(Debug, Clone)]
struct Asked {
    call_id: String,
    tool: String,
    arguments: Value,
    message: String,
    deadline: Option<std::time::Instant>,
}

impl Person {
    fn answering(answers: impl IntoIterator<Item = Decision>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into_iter().collect()),
            ..Self::default()
        })
    }

    fn asked(&self) -> Vec<(String, Value)> {
        let asked = self.asked.lock().unwrap();
        asked
            .iter()
            .map(|a| (a.call_id.clone(), a.arguments.clone()))
            .collect()
    }
}

impl Approver for Person {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        self.asked.lock().unwrap().push(Asked {
            call_id: request.call_id.to_owned(),
            tool: request.tool.to_owned(),
            arguments: request.arguments.clone(),
            message: request.message.to_owned(),
            deadline: request.deadline,
        });
        let answer = self.answers.lock().unwrap().pop_front();
        Box::pin(async move {
            // A person takes a moment (the answer is not ready at the first poll); the loop
            // waits.
            tokio::task::yield_now().await;
            answer.unwrap_or_else(|| Decision::denied("the script has no more answers".to_owned()))
        })
    }
}

/// A registry with `delete_file`, a destructive tool that counts its runs (by path).
fn with_delete_file() -> (Registry, Arc<Mutex<Vec<String>>>) {
    let ran = Arc::new(Mutex::new(Vec::new()));
    let mut r = registry();
    let log = ran.clone();
    r.register(
        DynamicTool::new(
            "delete_file",
            "Deletes a file.",
            json!({"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"], "additionalProperties": false}),
        )
        .label("Deleting a file")
        .core(true)
        .annotations(
            Annotations::READ_ONLY
                .read_only(false)
                .destructive(true)
                .idempotent(false)
                .open_world(false),
        )
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
    (r, ran)
}

/// An agent whose executor holds destructive calls for `person`.
fn guarded(base: &str, provider: Provider, registry: Registry, person: Arc<Person>) -> Agent {
    guarded_on(base, provider, guard(registry), person)
}

/// An executor that asks before a destructive call.
fn guard(registry: Registry) -> Executor {
    let policy =
        ExecPolicy::default().approval(ApprovalPolicy::from_args(["destructive"]).unwrap());
    Executor::with_policy(registry, policy)
}

fn guarded_on(base: &str, provider: Provider, executor: Executor, person: Arc<Person>) -> Agent {
    let config = ProviderConfig::new(base, "scripted").api_key("test-key");
    Agent::new(executor, provider, config).approver(person)
}

#[tokio::test]
async fn a_denied_call_goes_back_to_the_model_and_an_approved_one_runs_once() {
    let (base, script) = serve(vec![
        openai_calls(&[("d1", "delete_file", r#"{"path": "notes.txt"}"#)]),
        openai_calls(&[("d2", "delete_file", r#"{"path": "old.log"}"#)]),
        openai_text("Kept notes.txt; deleted old.log."),
    ])
    .await;
    let (registry, ran) = with_delete_file();
    let person = Person::answering([
        Decision::denied("keep my notes".to_owned()),
        Decision::approved(),
    ]);
    let mut agent = guarded(&base, Provider::OpenAi, registry, person.clone());
    let answer = agent.run("Clean up my files").await.unwrap();
    assert_eq!(answer.text, "Kept notes.txt; deleted old.log.");
    assert_eq!((answer.turns, answer.calls), (3, 2));
    // The denied call never ran; the approved one ran once.
    assert_eq!(*ran.lock().unwrap(), ["old.log"]);
    assert_eq!(
        person.asked(),
        [
            ("d1".to_owned(), json!({"path": "notes.txt"})),
            ("d2".to_owned(), json!({"path": "old.log"})),
        ]
    );
    {
        let asked = person.asked.lock().unwrap();
        assert_eq!(asked[0].tool, "delete_file");
        assert!(
            asked[0].message.contains("Deleting a file (`delete_file`)"),
            "{}",
            asked[0].message
        );
        assert!(
            asked[0].message.contains("notes.txt"),
            "{}",
            asked[0].message
        );
        // The executor's deadline: the policy's five minutes from when it asked.
        let left = asked[0].deadline.unwrap() - std::time::Instant::now();
        assert!(left <= ApprovalPolicy::default().timeout, "{left:?}");
        assert!(left > std::time::Duration::from_secs(290), "{left:?}");
    }
    // The model got the denial, with the person's reason, as the tool's result.
    let requests = script.requests();
    let second = requests[1].1["messages"].as_array().unwrap();
    let denial = second.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(denial["tool_call_id"], "d1");
    let text = denial["content"].as_str().unwrap();
    assert!(
        text.contains("declined the call to `delete_file`"),
        "{text}"
    );
    assert!(text.contains("keep my notes"), "{text}");
    assert!(text.contains("not run"), "{text}");
    let third = requests[2].1["messages"].as_array().unwrap();
    assert_eq!(third.last().unwrap()["tool_call_id"], "d2");
    assert_eq!(third.last().unwrap()["content"], "deleted old.log");
}

#[tokio::test]
async fn anthropic_gets_a_denial_as_an_error_tool_result() {
    let (base, script) = serve(vec![
        anthropic("", &[("tu_1", "delete_file", r#"{"path": "notes.txt"}"#)]),
        anthropic("I left it.", &[]),
    ])
    .await;
    let (registry, ran) = with_delete_file();
    let person = Person::answering([Decision::denied(None)]);
    let mut agent = guarded(&base, Provider::Anthropic, registry, person);
    let answer = agent.run("Delete notes.txt").await.unwrap();
    assert_eq!(answer.text, "I left it.");
    assert!(ran.lock().unwrap().is_empty());
    let second = &script.requests()[1].1;
    let result = &second["messages"].as_array().unwrap().last().unwrap()["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "tu_1");
    assert_eq!(result["is_error"], true);
    let text = result["content"].to_string();
    assert!(
        text.contains("a person declined the call to `delete_file`"),
        "{text}"
    );
}

#[tokio::test]
async fn kept_approvals_last_for_the_agent_and_cover_only_what_the_person_chose() {
    let turns = || {
        vec![
            openai_calls(&[("d1", "delete_file", r#"{"path": "a.tmp"}"#)]),
            // The same call again: kept, not asked.
            openai_calls(&[("d2", "delete_file", r#"{"path": "a.tmp"}"#)]),
            // Other arguments: asked, and denied by the script running out.
            openai_calls(&[("d3", "delete_file", r#"{"path": "b.tmp"}"#)]),
            openai_text("Done."),
        ]
    };
    let (base, _) = serve(turns()).await;
    let (registry, ran) = with_delete_file();
    let person = Person::answering([Decision::Approved {
        remember: Remember::SameArguments,
    }]);
    let executor = guard(registry);
    let mut agent = guarded_on(&base, Provider::OpenAi, executor.clone(), person.clone());
    agent.run("Clean up").await.unwrap();
    assert_eq!(*ran.lock().unwrap(), ["a.tmp", "a.tmp"]);
    let ids: Vec<String> = person.asked().into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["d1", "d3"]);

    // Another agent is another session: its first call is asked again.
    let (base, _) = serve(turns()).await;
    let other = Person::answering([]);
    let mut agent =
        guarded_on(&base, Provider::OpenAi, executor, other.clone()).context(ToolContext::new());
    agent.run("Clean up").await.unwrap();
    assert_eq!(other.asked().len(), 3, "nothing kept, every call asked");
    assert_eq!(ran.lock().unwrap().len(), 2, "and none ran");
}

/// An executor whose layers put every email through `ops@example.com`, redact phone numbers in
/// the weather and refuse the stock exchange: what the model reads is what the layers made.
fn layered(base: &str, provider: Provider) -> Agent {
    use tool_core::exec::layer_fn;
    let to_ops = layer_fn(async |mut call, next| {
        if call.item().name() == "send_email" {
            call.input_mut()["to"] = json!("ops@example.com");
        }
        next.run(call).await
    });
    let redact = layer_fn(async |call, next| {
        let mut out = next.run(call).await?;
        for text in out.texts_mut() {
            *text = text.replace("sunny", "[redacted]");
        }
        Ok(out)
    });
    let no_stocks = layer_fn(async |call, next| match call.item().name() {
        "get_stock" => Err(ToolError::refused("no trading today")),
        _ => next.run(call).await,
    });
    let executor = Executor::builder(registry())
        .layer(no_stocks)
        .layer(to_ops)
        .layer(redact)
        .build();
    let config = ProviderConfig::new(base, "scripted").api_key("test-key");
    Agent::new(executor, provider, config)
}

#[tokio::test]
async fn layers_rewrite_redact_and_refuse_what_the_model_called_openai() {
    let (base, script) = serve(vec![
        openai_calls(&[
            ("c1", "get_weather", r#"{"city": "Oslo"}"#),
            ("c2", "get_stock", r#"{"symbol": "ACME"}"#),
        ]),
        openai_calls(&[(
            "c3",
            "send_email",
            r#"{"to": "boss@example.com", "body": "hi"}"#,
        )]),
        openai_text("Done."),
    ])
    .await;
    let mut agent = layered(&base, Provider::OpenAi);
    let answer = agent.run("Weather, stocks, then mail").await.unwrap();
    assert_eq!(answer.text, "Done.");
    let requests = script.requests();
    let results = |turn: usize| -> Vec<(String, String)> {
        requests[turn].1["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| {
                let id = m["tool_call_id"].as_str().unwrap().to_owned();
                (id, m["content"].as_str().unwrap().to_owned())
            })
            .collect()
    };
    let first = results(1);
    assert_eq!(first[0], ("c1".to_owned(), "[redacted] in Oslo".to_owned()));
    assert_eq!(first[1].0, "c2");
    assert!(first[1].1.contains("no trading today"), "{}", first[1].1);
    let second = results(2);
    assert_eq!(second.last().unwrap().1, "sent to ops@example.com");
}

#[tokio::test]
async fn layers_rewrite_redact_and_refuse_what_the_model_called_anthropic() {
    let (base, script) = serve(vec![
        anthropic(
            "",
            &[
                ("t1", "get_weather", r#"{"city": "Oslo"}"#),
                ("t2", "get_stock", r#"{"symbol": "ACME"}"#),
                (
                    "t3",
                    "send_email",
                    r#"{"to": "boss@example.com", "body": "hi"}"#,
                ),
            ],
        ),
        anthropic("Done.", &[]),
    ])
    .await;
    let mut agent = layered(&base, Provider::Anthropic);
    assert_eq!(agent.run("Do it all").await.unwrap().text, "Done.");
    let second = &script.requests()[1].1;
    let results = second["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_array()
        .unwrap()
        .clone();
    let text = |i: usize| results[i]["content"].to_string();
    assert_eq!(results[0]["tool_use_id"], "t1");
    assert!(text(0).contains("[redacted] in Oslo"), "{}", text(0));
    assert_eq!(results[1]["is_error"], true);
    assert!(text(1).contains("no trading today"), "{}", text(1));
    assert!(text(2).contains("sent to ops@example.com"), "{}", text(2));
}

/// A tool for views only is refused to the model, by name too: it is not offered, and a call
/// the model makes to it anyway comes back as an error and never runs.
#[tokio::test]
async fn a_tool_for_views_only_is_refused_to_the_model() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let pressed = Arc::new(AtomicUsize::new(0));
    let mut registry = registry();
    let p = pressed.clone();
    registry
        .register(
            DynamicTool::new(
                "press_button",
                "A card's button.",
                json!({"type": "object"}),
            )
            .core(true)
            .visibility(tool_core::definition::Visibility::App)
            .handler(move |_, _| {
                p.fetch_add(1, Ordering::SeqCst);
                async { Ok(ToolOutput::text("pressed")) }
            }),
        )
        .unwrap();
    let (base, script) = serve(vec![
        openai_calls(&[("b1", "press_button", "{}")]),
        openai_text("I cannot press it."),
    ])
    .await;
    let config = ProviderConfig::new(&base, "scripted").api_key("test-key");
    let mut agent = Agent::new(Executor::new(registry), Provider::OpenAi, config);
    let answer = agent.run("Press the button.").await.unwrap();
    assert_eq!(answer.text, "I cannot press it.");
    let requests = script.requests();
    assert!(!tool_names(&requests[0].1).contains(&"press_button".to_owned()));
    let messages = requests[1].1["messages"].as_array().unwrap();
    let result = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert!(
        result["content"].as_str().unwrap().contains("press_button"),
        "{result}"
    );
    assert_eq!(pressed.load(Ordering::SeqCst), 0);
}
