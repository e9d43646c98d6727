// An input parameter's type must implement Deserialize and JsonSchema.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

struct Opaque;

/// Returns nothing useful.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do_work(thing: Opaque) -> u8 {
    let _ = thing;
    1
}

fn main() {}
