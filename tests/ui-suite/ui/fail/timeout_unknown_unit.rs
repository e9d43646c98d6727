// A timeout is a number with a unit: ms, s, m or h (not d).
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", timeout = 5d)]
fn do_work() -> u8 {
    1
}

fn main() {}
