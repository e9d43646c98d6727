// #[arg] goes only on parameters from the model's input, not on extractors.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the call id.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_call(#[arg(description = "The context")] ctx: &ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn main() {}
