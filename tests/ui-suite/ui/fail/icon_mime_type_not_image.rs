// An icon's MIME type is an image type, image/...
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", icon(src = "https://example.com/work.svg", mime_type = "text/xml"))]
fn do_work() -> u8 {
    1
}

fn main() {}
