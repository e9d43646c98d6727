// `blocking` moves a sync function to the blocking pool; an async function must not block.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work", blocking)]
async fn do_work() -> u8 {
    1
}

fn main() {}
