// `icon` is a link, or the parts of an icon in parentheses.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", icon = ["https://example.com/work.png"])]
fn do_work() -> u8 {
    1
}

fn main() {}
