// icon(...) names its src.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", icon(mime_type = "image/png", sizes("48x48")))]
fn do_work() -> u8 {
    1
}

fn main() {}
