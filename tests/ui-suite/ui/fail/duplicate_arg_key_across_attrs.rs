// A key given in two #[arg] attributes on one parameter is refused.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_number(#[arg(description = "The number")] #[arg(description = "A number")] n: u8) -> u8 {
    n
}

fn main() {}
