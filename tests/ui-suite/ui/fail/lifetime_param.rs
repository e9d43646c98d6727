// A tool cannot have lifetime parameters.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do_work<'a>() -> u8 {
    1
}

fn main() {}
