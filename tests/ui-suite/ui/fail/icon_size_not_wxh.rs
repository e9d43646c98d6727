// An icon size is WxH in pixels, like 48x48, or `any`; the error is on the size at fault.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", icon(src = "https://example.com/work.png", sizes("48x48", "96")))]
fn do_work() -> u8 {
    1
}

fn main() {}
