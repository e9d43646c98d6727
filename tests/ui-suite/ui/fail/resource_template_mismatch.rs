// A template's variables are the function's parameters, both ways: each mismatch on its token.
use tool_core::prelude::*;

/// One day's notes.
#[resource(uri = "notes://{year}/{day}")]
fn day_notes(day: String, month: String) -> String {
    format!("{day}{month}")
}

fn main() {}
