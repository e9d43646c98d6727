// The output schema is `Some` when the data type implements JsonSchema, `None` otherwise.
use serde_json::json;
use tool_core::{schemars, serde};
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// A point on a plane.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Point {
    /// Across.
    x: i32,
    /// Up.
    y: i32,
}

#[derive(serde::Serialize)]
#[serde(crate = "tool_core::serde")]
struct Opaque {
    secret: u8,
}

/// Returns a point.
#[tool(domain = demo, label = "Pointing", hint = "A point")]
fn get_point() -> Point {
    Point { x: 1, y: 2 }
}

/// Returns points, or fails.
#[tool(domain = demo, label = "Pointing", hint = "Some points")]
fn list_points() -> Result<Vec<Point>, ToolError> {
    Ok(vec![Point { x: 0, y: 0 }])
}

/// Returns a value without a schema.
#[tool(domain = demo, label = "Hiding", hint = "An opaque value")]
fn get_opaque() -> Opaque {
    Opaque { secret: 7 }
}

/// Returns a value without a schema, or fails.
#[tool(domain = demo, label = "Hiding", hint = "An opaque value")]
async fn get_opaque_or_fail() -> std::io::Result<Opaque> {
    Ok(Opaque { secret: 8 })
}

/// Returns nothing.
#[tool(domain = demo, label = "Resting", hint = "Nothing")]
fn do_nothing() {}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let schema_of = |name| registry.get(name).unwrap().output_schema();

    let point = schema_of("get_point").unwrap();
    assert_eq!(point["type"], "object");
    assert!(point.get("title").is_none(), "{point}");
    assert_eq!(point["properties"]["x"]["description"], "Across.");
    assert_eq!(point["required"], json!(["x", "y"]));
    let points = schema_of("list_points").unwrap();
    assert_eq!(points["type"], "array");
    assert!(points["items"]["$ref"].as_str().unwrap().ends_with("Point"), "{points}");

    assert_eq!(schema_of("get_opaque"), None);
    assert_eq!(schema_of("get_opaque_or_fail"), None);
    assert_eq!(schema_of("do_nothing"), None);

    // Without a schema the data is still returned.
    let out = rt
        .block_on(executor.call("get_opaque_or_fail", json!({}), &ToolContext::new()))
        .unwrap();
    assert_eq!(out.data(), Some(&json!({"secret": 8})));
}
