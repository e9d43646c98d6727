// The error type of a returned Result must convert into ToolError.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

struct MyError;

/// Returns a number, or fails.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn do_work() -> Result<u8, MyError> {
    Err(MyError)
}

fn main() {}
