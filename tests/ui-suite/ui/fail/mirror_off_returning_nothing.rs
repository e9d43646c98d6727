// `mirror = false` on a tool that returns nothing: there is no structured content to read.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Resets the counters.
#[tool(domain = demo, label = "Resetting", hint = "Resets counters", read_only = false, mirror = false)]
fn reset_counters() {}

fn main() {}
