// An example must give every required parameter.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the sum.
#[tool(domain = demo, label = "Working", hint = "Does work", examples("Only a" => r#"{"a": 1}"#))]
fn add_numbers(a: u8, b: u8, c: Option<u8>) -> u8 {
    a + b + c.unwrap_or(0)
}

fn main() {}
