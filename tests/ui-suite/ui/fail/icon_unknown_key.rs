// An unknown key in icon(...) is refused; the message lists the valid keys.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", icon(src = "https://example.com/work.png", url = "https://example.com/work.png"))]
fn do_work() -> u8 {
    1
}

fn main() {}
