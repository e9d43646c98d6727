// Two parameters cannot map to the same input key.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the sum.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn add_numbers(#[arg(rename = "b")] a: u8, b: u8) -> u8 {
    a + b
}

fn main() {}
