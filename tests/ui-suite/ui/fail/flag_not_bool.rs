// A flag is bare (`core`) or a bool (`core = false`), not a string or a number: each is
// reported.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", core = "yes", task = 1)]
fn do_work() -> u8 {
    1
}

fn main() {}
