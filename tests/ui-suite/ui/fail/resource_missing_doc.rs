// A resource and a prompt need a doc comment: it is their description.
use tool_core::prelude::*;

#[resource(uri = "notes://today")]
fn today_notes() -> String {
    String::new()
}

#[prompt]
fn review_code() -> String {
    String::new()
}

fn main() {}
