// A tool cannot be both read_only and destructive.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Deletes everything.
#[tool(domain = demo, label = "Working", hint = "Does work", read_only, destructive)]
fn delete_everything() {}

fn main() {}
