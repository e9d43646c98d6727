// `task_after` says when a call becomes a task: a tool that is never one has no use for it.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Exports the report and returns its text.
#[tool(domain = demo, label = "Exporting", hint = "Exports the report", task_after = "0s")]
fn export_report() -> String {
    String::new()
}

fn main() {}
