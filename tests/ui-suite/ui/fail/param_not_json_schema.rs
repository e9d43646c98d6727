// An input parameter's type must implement JsonSchema (here it is only Deserialize).
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");
use tool_core::serde;

#[derive(serde::Deserialize)]
#[serde(crate = "tool_core::serde")]
struct Point {
    x: i32,
}

/// Returns x.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_x(point: Point) -> i32 {
    point.x
}

fn main() {}
