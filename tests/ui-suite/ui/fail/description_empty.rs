// A parameter description cannot be empty.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_number(#[arg(description = " ")] n: u8) -> u8 {
    n
}

fn main() {}
