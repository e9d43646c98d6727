// #[tool] needs `hint`.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working")]
fn do_work() -> u8 {
    1
}

fn main() {}
