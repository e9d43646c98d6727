// #[tool] needs `label`.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, hint = "Does work")]
fn do_work() -> u8 {
    1
}

fn main() {}
