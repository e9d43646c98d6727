// A default must have the parameter's type.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the number.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_number(#[arg(default = 2.5)] n: u8) -> u8 {
    n
}

fn main() {}
