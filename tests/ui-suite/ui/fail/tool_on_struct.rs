// #[tool] goes on a free function, not a struct.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// A tool that is not a function.
#[tool(domain = demo, label = "Working", hint = "Does work")]
struct DoWork;

fn main() {}
