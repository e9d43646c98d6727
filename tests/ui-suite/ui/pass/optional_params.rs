// `Option<T>` parameters are optional: not in `required`; missing or null is `None`.
use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns a greeting, with an optional title and punctuation.
#[tool(domain = demo, label = "Greeting", hint = "Greets a person")]
fn greet_person(name: String, title: Option<String>, mut excited: std::option::Option<bool>) -> String {
    let mark = if excited.take().unwrap_or(false) { "!" } else { "." };
    match title {
        Some(title) => format!("Hello, {title} {name}{mark}"),
        None => format!("Hello, {name}{mark}"),
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let ctx = ToolContext::new();
    let call = |input| rt.block_on(executor.call("greet_person", input, &ctx));

    let schema = registry.get("greet_person").unwrap().input_schema();
    assert_eq!(schema["required"], json!(["name"]));
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["name", "title", "excited"]);
    assert_eq!(schema["properties"]["title"]["type"], json!(["string", "null"]));
    assert!(schema["properties"]["title"].get("default").is_none());

    assert_eq!(call(json!({"name": "Ada"})).unwrap().echo(), "Hello, Ada.");
    assert_eq!(call(json!({"name": "Ada", "title": null})).unwrap().echo(), "Hello, Ada.");
    assert_eq!(
        call(json!({"name": "Ada", "title": "Dr", "excited": true})).unwrap().echo(),
        "Hello, Dr Ada!"
    );
    let err = call(json!({"name": "Ada", "title": 5})).unwrap_err();
    assert_eq!(err.path(), Some("title"));
    let err = call(json!({"title": "Dr"})).unwrap_err();
    assert_eq!(err.path(), Some("name"));
}
