// A tool returns a concrete type, not `impl Trait`.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");
use tool_core::serde;

/// Returns one.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do_work() -> impl serde::Serialize {
    1
}

fn main() {}
