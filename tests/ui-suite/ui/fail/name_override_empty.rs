// A `name = ""` override cannot be empty.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", name = "")]
fn do_work() -> u8 {
    1
}

fn main() {}
