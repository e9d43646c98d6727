// `mirror = false` leaves the text out of MCP results, so the output needs a schema for a
// client to read the structured content by: here the output type has none.
use tool_core::prelude::*;
use tool_core::serde;

tool_core::domain!(pub demo, "Demo tools");

#[derive(serde::Serialize)]
#[serde(crate = "tool_core::serde")]
struct Counters {
    requests: u64,
}

/// Returns the counters.
#[tool(domain = demo, label = "Counting", hint = "Counters", mirror = false)]
fn get_counters() -> Result<Counters, ToolError> {
    Ok(Counters { requests: 1 })
}

fn main() {}
