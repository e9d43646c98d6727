// The hint cannot be empty (blank).
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "   ")]
fn do_work() -> u8 {
    1
}

fn main() {}
