// A list of icon sizes, when given, names at least one.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", icon(src = "https://example.com/work.png", sizes()))]
fn do_work() -> u8 {
    1
}

fn main() {}
