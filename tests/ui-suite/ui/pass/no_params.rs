// A tool without parameters: an empty object schema that refuses unknown keys; null is `{}`.
use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the answer.
#[tool(domain = demo, label = "Answering", hint = "The answer")]
fn get_answer() -> u32 {
    42
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let ctx = ToolContext::new();
    let call = |input| rt.block_on(executor.call("get_answer", input, &ctx));

    let tool = registry.get("get_answer").unwrap();
    assert_eq!(
        *tool.input_schema(),
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {},
            "additionalProperties": false,
        })
    );

    assert_eq!(call(json!({})).unwrap().echo(), "42");
    assert_eq!(call(json!(null)).unwrap().echo(), "42");
    let out = rt.block_on(executor.call("get_answer", "", &ctx)).unwrap();
    assert_eq!(out.echo(), "42");

    let err = call(json!({"x": 1})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.message(), "unknown parameter `x`: this tool takes no parameters");
    let err = call(json!([1])).unwrap_err();
    assert_eq!(err.message(), "the input must be a JSON object, got an array");
}
