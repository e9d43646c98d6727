// An unknown key in #[arg] is refused; the message lists the valid keys.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_number(#[arg(desc = "The number")] n: u8) -> u8 {
    n
}

fn main() {}
