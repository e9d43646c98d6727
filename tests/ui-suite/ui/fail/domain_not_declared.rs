// `domain = T` must name a type declared with tool_core::domain!.
use tool_core::prelude::*;

/// Returns one.
#[tool(domain = String, label = "Working", hint = "Does work")]
fn do_work() -> u8 {
    1
}

fn main() {}
