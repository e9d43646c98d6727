use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the sum of two numbers.
#[tool(domain = demo, label = "Adding", hint = "Adds two numbers", examples("Two and three" => r#"{"a": 2, "b": 3}"#))]
fn add_numbers(#[arg(description = "First")] a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let out = rt
        .block_on(executor.call("add_numbers", serde_json::json!({"a": 2, "b": 3}), &ToolContext::new()))
        .unwrap();
    assert_eq!(out.echo(), "5");
}
