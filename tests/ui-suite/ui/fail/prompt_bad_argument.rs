// #[arg] keys are checked; the name is snake_case; a borrowed argument is refused with the fix;
// a prompt returns something.
use tool_core::prelude::*;

/// Reviews.
#[prompt]
fn review_code(#[arg(descripton = "The code")] code: String) -> String {
    code
}

/// Summarises.
#[prompt(name = "Summarise-It")]
fn summarise_text(text: &str) -> String {
    text.to_owned()
}

/// Nothing back.
#[prompt(titel = "x")]
fn say_nothing() {}

fn main() {}
