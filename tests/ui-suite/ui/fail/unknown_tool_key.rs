// An unknown key in #[tool] is refused; the message lists the valid keys.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", retry = 3)]
fn do_work() -> u8 {
    1
}

fn main() {}
