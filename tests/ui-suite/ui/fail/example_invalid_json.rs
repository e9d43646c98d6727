// An example's input must be valid JSON.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(domain = demo, label = "Working", hint = "Does work", examples("Three" => "{n: 3}"))]
fn get_number(n: u8) -> u8 {
    n
}

fn main() {}
