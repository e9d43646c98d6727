// A tool returns a concrete type: no `impl Trait` inside a `Result` either.
use tool_core::serde;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do_work() -> Result<impl serde::Serialize, ToolError> {
    Ok(1)
}

fn main() {}
