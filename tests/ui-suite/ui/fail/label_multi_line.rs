// The label is one line.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working\nhard", hint = "Does work")]
fn do_work() -> u8 {
    1
}

fn main() {}
