// A tool name has no doubled `_` (no empty word).
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do__work() -> u8 {
    1
}

fn main() {}
