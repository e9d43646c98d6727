// The hint is one line.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(
    domain = demo,
    label = "Working",
    hint = "Does work.
        Then more work."
)]
fn do_work() -> u8 {
    1
}

fn main() {}
