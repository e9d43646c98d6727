// A one-word name spelt out with `name = "..."` (a server that must match a name someone else
// chose) compiles and is served under that name; `check` still warns about its style.
use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Greets someone by name.
#[tool(domain = demo, label = "Greeting", hint = "Says hello", name = "greet")]
fn say_hello(#[arg(description = "Who to greet")] name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let out = rt
        .block_on(executor.call("greet", json!({"name": "Ada"}), &ToolContext::new()))
        .unwrap();
    assert_eq!(out.echo(), "Hello, Ada!");
    assert!(registry.get("say_hello").is_none());
}
