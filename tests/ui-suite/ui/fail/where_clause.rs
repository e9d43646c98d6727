// A tool cannot have a where clause.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do_work() -> u8
where
    u8: Copy,
{
    1
}

fn main() {}
