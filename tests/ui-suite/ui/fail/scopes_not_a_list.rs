// `scopes` is a list in parentheses, even of one scope.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Closes an issue.
#[tool(domain = demo, label = "Closing", hint = "Closes an issue", destructive, scopes = "repo")]
fn close_issue(id: u32) -> u32 {
    id
}

fn main() {}
