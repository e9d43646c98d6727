// A `name = "..."` override must be snake_case too.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", name = "do-work")]
fn do_work() -> u8 {
    1
}

fn main() {}
