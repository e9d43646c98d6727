// Plain outputs: any `T: Serialize` is the data; a string is echoed as it is; `()` is allowed.
use serde_json::json;
use tool_core::serde;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

#[derive(serde::Serialize)]
#[serde(crate = "tool_core::serde")]
struct Point {
    x: i32,
    y: i32,
}

/// Returns a point.
#[tool(domain = demo, label = "Pointing", hint = "A point")]
fn get_point() -> Point {
    Point { x: 1, y: 2 }
}

/// Returns a list of numbers.
#[tool(domain = demo, label = "Listing", hint = "Some numbers")]
fn list_numbers() -> Vec<u8> {
    vec![1, 2, 3]
}

/// Returns a text.
#[tool(domain = demo, label = "Writing", hint = "A text")]
fn get_text() -> &'static str {
    "plain text"
}

/// Does nothing and returns nothing.
#[tool(domain = demo, label = "Resting", hint = "Nothing")]
fn do_nothing() {}

/// Does nothing, asynchronously, and says so with `-> ()`.
#[tool(domain = demo, label = "Resting", hint = "Nothing")]
async fn do_nothing_async() -> () {}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let ctx = ToolContext::new();
    let call = |name| rt.block_on(executor.call(name, json!({}), &ctx)).unwrap();

    let out = call("get_point");
    assert_eq!(out.data(), Some(&json!({"x": 1, "y": 2})));
    assert_eq!(out.echo(), r#"{"x":1,"y":2}"#);
    assert_eq!(out.event(), None);
    assert!(out.media().is_empty());
    assert_eq!(call("list_numbers").echo(), "[1,2,3]");
    assert_eq!(call("get_text").echo(), "plain text");

    // A unit tool succeeds with no data; the model is told it is done.
    for name in ["do_nothing", "do_nothing_async"] {
        let out = call(name);
        assert_eq!(out.data(), None);
        assert_eq!(out.echo(), "done");
        assert!(registry.get(name).unwrap().output_schema().is_none());
    }
}
