// `impl Trait` parameters make a tool generic.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the text.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn show_text(text: impl ToString) -> String {
    text.to_string()
}

fn main() {}
