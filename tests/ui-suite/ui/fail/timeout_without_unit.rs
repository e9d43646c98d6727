// A timeout needs a unit: a bare number is refused.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", timeout = "30")]
fn do_work() -> u8 {
    1
}

fn main() {}
