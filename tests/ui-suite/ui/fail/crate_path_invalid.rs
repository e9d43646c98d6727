// `crate = "..."` is a path to tool-core.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(crate = "my framework", domain = demo, label = "Working", hint = "Does work")]
fn do_work() -> u8 {
    1
}

fn main() {}
