// The function name (the tool name) must be snake_case.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
#[allow(non_snake_case)]
fn DoWork() -> u8 {
    1
}

fn main() {}
