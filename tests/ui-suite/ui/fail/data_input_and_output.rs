// `input` leaves out Serialize and `output` Deserialize: both at once is a type that is both,
// which is `#[data]` without either key.

/// A note.
#[tool_core::data(input, output)]
pub struct Note {
    /// The note's text.
    pub text: String,
}

fn main() {}
