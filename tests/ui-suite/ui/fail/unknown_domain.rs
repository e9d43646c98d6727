// A misspelled domain is an ordinary "cannot find type" error, with a suggestion.
use tool_core::prelude::*;

tool_core::domain!(pub account, "The signed-in account");

/// Returns the account's plan.
#[tool(domain = acount, label = "Reading the plan", hint = "Account plan")]
fn get_plan() -> String {
    "pro".into()
}

fn main() {}
