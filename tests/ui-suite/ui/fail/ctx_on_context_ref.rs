// `#[ctx]` marks owned extractors; `&ToolContext` needs no mark.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the call id.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_call(#[ctx] ctx: &ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn main() {}
