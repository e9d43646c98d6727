// `scopes` names at least one scope; a tool that needs none leaves the key out.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Closes an issue.
#[tool(domain = demo, label = "Closing", hint = "Closes an issue", destructive, scopes())]
fn close_issue(id: u32) -> u32 {
    id
}

fn main() {}
