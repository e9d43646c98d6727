// `source` is a link: no spaces.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", source = "the accounts page")]
fn do_work() -> u8 {
    1
}

fn main() {}
