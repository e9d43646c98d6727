// Input parameters are owned: `&str` is refused (take `String`).
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the length of the text.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn count_chars(text: &str) -> usize {
    text.len()
}

fn main() {}
