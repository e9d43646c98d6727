// #[tool] needs `domain`.
use tool_core::prelude::*;

/// Returns one.
#[tool(label = "Working", hint = "Does work")]
fn do_work() -> u8 {
    1
}

fn main() {}
