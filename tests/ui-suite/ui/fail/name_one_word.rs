// A tool name has at least two words: verb_noun.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn work() -> u8 {
    1
}

fn main() {}
