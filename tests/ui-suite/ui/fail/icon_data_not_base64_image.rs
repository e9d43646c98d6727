// A data: URI as an icon's src holds base64 image data: data:image/TYPE;base64,...
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", icon(src = "data:text/plain,work"))]
fn do_work() -> u8 {
    1
}

fn main() {}
