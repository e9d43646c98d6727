// `&'static str` cannot be an input parameter either (not DeserializeOwned).
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the text.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn show_text(text: &'static str) -> String {
    text.to_owned()
}

fn main() {}
