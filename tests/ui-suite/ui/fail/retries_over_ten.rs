// Retries are at most 10.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", retries = 11)]
fn do_work() -> u8 {
    1
}

fn main() {}
