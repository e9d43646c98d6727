// An `Option` parameter is already optional: no default.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_number(#[arg(default = Some(3))] n: Option<u8>) -> u8 {
    n.unwrap_or(0)
}

fn main() {}
