// A tool needs a doc comment: it is the description the model reads.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do_work() -> u8 {
    1
}

fn main() {}
