// An unknown key in `#[data(...)]` is an error on the key, naming the key meant; the type still
// gets its derives, so its use in a tool raises no second error.
use tool_core::prelude::*;

tool_core::domain!(pub notes, "Notes kept for the user");

/// A note to add.
#[tool_core::data(inptu)]
pub struct NewNote {
    /// The note's text.
    pub text: String,
}

/// Another.
#[tool_core::data(serialize)]
pub struct Other {
    /// A field.
    pub field: bool,
}

/// Adds a note.
#[tool(domain = notes, label = "Adding a note", hint = "Adds a note")]
fn add_note(#[input] note: NewNote) -> String {
    note.text
}

fn main() {}
