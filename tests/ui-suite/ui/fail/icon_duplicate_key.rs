// A key given twice in one icon(...) is refused (a second icon is a second `icon`).
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", icon(src = "https://example.com/work.png", theme = "light", theme = "dark"))]
fn do_work() -> u8 {
    1
}

fn main() {}
