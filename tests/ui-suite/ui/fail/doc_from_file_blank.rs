// A doc comment read from a file must not be blank: it is the description the model reads.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

#[doc = include_str!("docs/blank.md")]
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do_work() -> u8 {
    1
}

fn main() {}
