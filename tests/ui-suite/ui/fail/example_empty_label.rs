// An example needs a label.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(domain = demo, label = "Working", hint = "Does work", examples("" => r#"{"n": 1}"#))]
fn get_number(n: u8) -> u8 {
    n
}

fn main() {}
