// A key given twice in #[tool] is refused.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", label = "Working again")]
fn do_work() -> u8 {
    1
}

fn main() {}
