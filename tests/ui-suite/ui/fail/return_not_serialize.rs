// The return type must implement Serialize.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

struct Opaque;

/// Returns an opaque value.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_opaque() -> Opaque {
    Opaque
}

fn main() {}
