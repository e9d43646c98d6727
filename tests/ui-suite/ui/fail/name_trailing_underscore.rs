// A tool name has no trailing `_`.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", name = "do_work_")]
fn do_work() -> u8 {
    1
}

fn main() {}
