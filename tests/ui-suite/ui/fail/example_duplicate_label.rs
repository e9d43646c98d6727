// Two examples cannot have the same label.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(
    domain = demo,
    label = "Working",
    hint = "Does work",
    examples("Small" => r#"{"n": 1}"#, "Small" => r#"{"n": 2}"#),
)]
fn get_number(n: u8) -> u8 {
    n
}

fn main() {}
