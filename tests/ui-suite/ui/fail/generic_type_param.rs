// A tool cannot have type parameters.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns its input.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn echo_value<T: Copy>(value: T) -> T {
    value
}

fn main() {}
