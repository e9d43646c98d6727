// A misspelled key gets the nearest valid key as a suggestion, and is not reported missing too.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns one.
#[tool(domain = demo, lable = "Working", hint = "Does work")]
fn do_work() -> u8 {
    1
}

fn main() {}
