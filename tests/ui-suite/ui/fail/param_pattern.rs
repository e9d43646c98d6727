// An input parameter needs a plain name (it is the JSON key), not a pattern.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the sum of a pair.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn add_pair((a, b): (u8, u8)) -> u8 {
    a + b
}

fn main() {}
