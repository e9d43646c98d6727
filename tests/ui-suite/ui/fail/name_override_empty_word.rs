// A `name = "..."` override may be one word, but not have an empty one.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", name = "work_")]
fn do_work() -> u8 {
    1
}

fn main() {}
