// A rename needs a non-empty key.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_number(#[arg(rename = "")] n: u8) -> u8 {
    n
}

fn main() {}
