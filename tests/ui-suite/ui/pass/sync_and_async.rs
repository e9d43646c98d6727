// Sync and async functions are both tools; input errors name the parameter.
use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the text twice.
#[tool(domain = demo, label = "Doubling", hint = "Doubles a text")]
fn double_text(text: String) -> String {
    text.repeat(2)
}

/// Returns the text in capitals, after yielding once.
#[tool(domain = demo, label = "Shouting", hint = "Capitalises a text")]
pub async fn shout_text(text: String, times: u8) -> String {
    tokio::task::yield_now().await;
    text.to_uppercase().repeat(times.into())
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let ctx = ToolContext::new();
    assert_eq!(registry.len(), 2);

    // The functions stay ordinary functions.
    assert_eq!(double_text("a".into()), "aa");

    let out = rt.block_on(executor.call("double_text", json!({"text": "ab"}), &ctx)).unwrap();
    assert_eq!(out.echo(), "abab");
    assert_eq!(out.data(), Some(&json!("abab")));

    let out = rt
        .block_on(executor.call("shout_text", json!({"text": "hi", "times": 2}), &ctx))
        .unwrap();
    assert_eq!(out.echo(), "HIHI");

    // The doc comment, label and hint are the definition's.
    let tool = registry.get("shout_text").unwrap();
    assert_eq!(tool.description(), "Returns the text in capitals, after yielding once.");
    assert_eq!(tool.label(), "Shouting");
    assert_eq!(tool.hint(), "Capitalises a text");
    assert_eq!(tool.domain().name, "demo");
    assert_eq!(tool.domain().description, "Demo tools");
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["text"]["type"], "string");
    assert_eq!(schema["properties"]["times"]["type"], "integer");
    assert_eq!(schema["required"], json!(["text", "times"]));
    assert_eq!(schema["additionalProperties"], false);

    // Missing and ill-typed values are reported together, each with its key.
    let err = rt.block_on(executor.call("double_text", json!({}), &ctx)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.path(), Some("text"));
    assert_eq!(err.message(), "missing required parameter");
    let err = rt
        .block_on(executor.call("shout_text", json!({"text": 1, "times": 300}), &ctx))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.message().starts_with("2 problems: text: invalid type"), "{err}");
    assert!(err.message().contains("times: invalid value: integer `300`"), "{err}");
}
