// A prompt returns messages; an error type must convert into ToolError; an argument is a
// String or an Option<String>.
use tool_core::prelude::*;

/// A number.
#[prompt]
fn count_words() -> u32 {
    1
}

struct MyError;

/// Fails its own way.
#[prompt]
fn fail_oddly() -> Result<String, MyError> {
    Err(MyError)
}

/// Counts lines.
#[prompt]
fn count_lines(lines: u32) -> String {
    lines.to_string()
}

fn main() {}
