// A scope is named once.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Closes an issue.
#[tool(domain = demo, label = "Closing", hint = "Closes an issue", destructive, scopes("repo", "issues:write", "repo"))]
fn close_issue(id: u32) -> u32 {
    id
}

fn main() {}
