// Only `&ToolContext` may be a reference; `&mut ToolContext` is refused.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the call id.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_call(ctx: &mut ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn main() {}
