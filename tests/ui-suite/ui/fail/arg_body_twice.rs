// Only one parameter can take the body of a tag call.
use tool_core::prelude::*;

tool_core::domain!(pub notes, "Notes kept for the user");

/// Saves a note and returns its length.
#[tool(domain = notes, label = "Saving the note", hint = "Saves a note")]
fn save_note(#[arg(body)] title: String, #[arg(body)] content: String) -> usize {
    title.len() + content.len()
}

fn main() {}
