// An icon's src is an https: or http: URL, or a data: URI of base64 image data.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", icon = "icons/work.png")]
fn do_work() -> u8 {
    1
}

fn main() {}
