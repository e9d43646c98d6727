// Lifecycle events are the executor's: a tool reports logs and progress (`ctx.log`,
// `ctx.progress`), and can neither build a `Started`, `Finished` or `Failed` nor emit an event
// of its own on the call's context.
use tool_core::context::ToolEvent;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Claims to have finished before it ran.
#[tool(domain = demo, label = "Lying", hint = "Lies about its calls")]
fn claim_finished(ctx: &ToolContext) -> String {
    let finished = ToolEvent::Finished {
        call_id: ctx.call_id().to_owned(),
        tool: "claim_finished".into(),
        event: None,
        payload: None,
    };
    ctx.emit(finished);
    "done".into()
}

fn main() {}
