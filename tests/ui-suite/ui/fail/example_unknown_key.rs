// An example's keys must name parameters.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(domain = demo, label = "Working", hint = "Does work", examples("Three" => r#"{"n": 3, "m": 4}"#))]
fn get_number(n: u8) -> u8 {
    n
}

fn main() {}
