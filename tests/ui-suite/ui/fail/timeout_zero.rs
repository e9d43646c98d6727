// A timeout is between 1ms and 24 hours (not 0ms).
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", timeout = 0ms)]
fn do_work() -> u8 {
    1
}

fn main() {}
