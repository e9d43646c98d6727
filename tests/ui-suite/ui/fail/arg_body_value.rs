// `body` is a flag: it names no key (the parameter it is on is the one the body fills).
use tool_core::prelude::*;

tool_core::domain!(pub notes, "Notes kept for the user");

/// Saves a note and returns its length.
#[tool(domain = notes, label = "Saving the note", hint = "Saves a note")]
fn save_note(#[arg(body = "content")] content: String) -> usize {
    content.len()
}

fn main() {}
