//! Code mode in the agent loop, against a scripted provider on 127.0.0.1 that speaks each
//! provider's streamed wire format: the model gets one `run_code` tool whose description
//! carries the stubs, writes a script that calls three tools, loops, catches a tool error and
//! returns a summary, and reads only what the script printed and returned.

use serde_json::{Value, json};
use tool_agent::{Agent, Provider, ProviderConfig};
use tool_code::{CodeMode, RUN_CODE};
use tool_core::{Executor, Registry, ToolError, ToolOutput, registry::DynamicTool};

#[path = "../support/scripted_provider.rs"]
mod scripted_provider;
use scripted_provider::serve;

/// Three tools: a city's stations, a station's reading (one station is down), a unit
/// conversion.
fn registry() -> Registry {
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new(
                "list_stations",
                "Lists a city's weather stations.",
                json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
            )
            .core(true)
            .handler(|_, _| async { Ok(ToolOutput::new(json!(["north", "harbour", "airport"]))) }),
        )
        .unwrap();
    registry
        .register(
            DynamicTool::new(
                "read_station",
                "A station's temperature in Celsius.",
                json!({"type": "object", "properties": {"station": {"type": "string"}}, "required": ["station"]}),
            )
            .core(true)
            .output_schema(json!({"type": "object", "properties": {"celsius": {"type": "number"}}}))
            .handler(|input, _| async move {
                match input["station"].as_str() {
                    Some("harbour") => Err(ToolError::unavailable("the harbour station is down")),
                    Some("north") => Ok(ToolOutput::new(json!({"celsius": 11.0}))),
                    _ => Ok(ToolOutput::new(json!({"celsius": 14.0}))),
                }
            }),
        )
        .unwrap();
    registry
        .register(
            DynamicTool::new(
                "to_fahrenheit",
                "Converts Celsius to Fahrenheit.",
                json!({"type": "object", "properties": {"celsius": {"type": "number"}}, "required": ["celsius"]}),
            )
            .core(true)
            .handler(|input, _| async move {
                let c = input["celsius"].as_f64().unwrap_or_default();
                Ok(ToolOutput::new(json!(c * 9.0 / 5.0 + 32.0)))
            }),
        )
        .unwrap();
    registry
}

const SCRIPT: &str = r#"stations = await list_stations(city="Oslo")
readings = {}
down = []
for s in stations:
    try:
        r = await read_station(station=s)
        readings[s] = r["celsius"]
    except OSError as e:
        down.append(s)
mean = sum(readings.values()) / len(readings)
f = await to_fahrenheit(celsius=mean)
print(f"{len(readings)} stations up, {len(down)} down: {down}")
{"mean_f": f, "down": down}"#;

const SUMMARY: &str =
    "2 stations up, 1 down: ['harbour']\nResult: {\"mean_f\":54.5,\"down\":[\"harbour\"]}";

fn agent(base: &str, provider: Provider) -> Agent {
    let code = CodeMode::new(Executor::new(registry()));
    let executor = code.code_executor(RUN_CODE, &[]).unwrap();
    let config = ProviderConfig::new(base, "scripted").api_key("test-key");
    Agent::new(executor, provider, config)
}

fn openai_call(id: &str, name: &str, args: &str) -> Vec<Value> {
    vec![
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": args}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ]
}

fn openai_text(text: &str) -> Vec<Value> {
    vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]
}

fn anthropic(text: &str, tool_use: Option<(&str, &str, &str)>) -> Vec<Value> {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}),
    ];
    let stop = match tool_use {
        Some((id, name, input)) => {
            events.push(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
            events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": input}}));
            events.push(json!({"type": "content_block_stop", "index": 0}));
            "tool_use"
        }
        None => {
            events.push(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}));
            events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}));
            events.push(json!({"type": "content_block_stop", "index": 0}));
            "end_turn"
        }
    };
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop}}));
    events.push(json!({"type": "message_stop"}));
    events
}

/// The model is offered the code tool alone, with every core tool's stub in its description.
fn assert_offered_run_code_alone(request: &Value) {
    let tools = request["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1, "{tools:?}");
    let tool = &tools[0];
    let name = tool
        .pointer("/function/name")
        .or_else(|| tool.get("name"))
        .unwrap();
    assert_eq!(name, RUN_CODE);
    let description = tool
        .pointer("/function/description")
        .or_else(|| tool.get("description"))
        .and_then(Value::as_str)
        .unwrap();
    for stub in [
        "async def list_stations(*, city: str):",
        "async def read_station(*, station: str) -> dict:",
        "Returns: {celsius: float}",
        "async def to_fahrenheit(*, celsius: float):",
    ] {
        assert!(description.contains(stub), "{stub} in {description}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_the_model_writes_one_script_and_reads_its_summary() {
    let args = json!({"code": SCRIPT}).to_string();
    let (base, script) = serve(vec![
        openai_call("call_1", RUN_CODE, &args),
        openai_text("Mean 54.5 °F; the harbour station is down."),
    ])
    .await;
    let answer = agent(&base, Provider::OpenAi)
        .run("Oslo's mean temperature?")
        .await
        .unwrap();
    assert_eq!(answer.text, "Mean 54.5 °F; the harbour station is down.");
    assert_eq!((answer.turns, answer.calls), (2, 1));
    let requests: Vec<Value> = script
        .requests()
        .into_iter()
        .map(|(_, body)| body)
        .collect();
    assert_offered_run_code_alone(&requests[0]);
    let result = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(result["tool_call_id"], "call_1");
    assert_eq!(result["content"], SUMMARY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_the_model_writes_one_script_and_reads_its_summary() {
    let input = json!({"code": SCRIPT}).to_string();
    let (base, script) = serve(vec![
        anthropic("", Some(("u1", RUN_CODE, &input))),
        anthropic("Mean 54.5 °F.", None),
    ])
    .await;
    let answer = agent(&base, Provider::Anthropic)
        .run("Oslo?")
        .await
        .unwrap();
    assert_eq!(answer.text, "Mean 54.5 °F.");
    let requests: Vec<Value> = script
        .requests()
        .into_iter()
        .map(|(_, body)| body)
        .collect();
    assert_offered_run_code_alone(&requests[0]);
    let messages = requests[1]["messages"].as_array().unwrap();
    let results = &messages[2]["content"];
    assert_eq!(results[0]["tool_use_id"], "u1");
    assert_eq!(results[0]["is_error"], false);
    assert_eq!(results[0]["content"][0]["text"], SUMMARY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_script_goes_back_as_an_error_the_model_can_fix() {
    let bad = json!({"code": "x = await read_station(station='north')\nx['kelvin']"}).to_string();
    let good = json!({"code": "(await read_station(station='north'))['celsius']"}).to_string();
    let (base, script) = serve(vec![
        openai_call("call_1", RUN_CODE, &bad),
        openai_call("call_2", RUN_CODE, &good),
        openai_text("11 °C."),
    ])
    .await;
    let answer = agent(&base, Provider::OpenAi).run("North?").await.unwrap();
    assert_eq!(answer.text, "11 °C.");
    let requests: Vec<Value> = script
        .requests()
        .into_iter()
        .map(|(_, body)| body)
        .collect();
    let tool_results: Vec<&Value> = requests[2]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    let first = tool_results[0]["content"].as_str().unwrap();
    assert!(first.contains("KeyError: kelvin"), "{first}");
    assert!(first.contains("line 2"), "{first}");
    assert_eq!(tool_results[1]["content"], "Result: 11.0");
}
