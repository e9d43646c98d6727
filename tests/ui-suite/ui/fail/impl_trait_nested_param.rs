// `impl Trait` inside a parameter's type makes a tool generic too.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns how many items there are.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn count_items(items: Vec<impl ToString>) -> usize {
    items.len()
}

fn main() {}
