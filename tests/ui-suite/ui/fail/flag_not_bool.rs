// A flag is bare (`core`) or a bool (`core = false`), not a string.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", core = "yes")]
fn do_work() -> u8 {
    1
}

fn main() {}
