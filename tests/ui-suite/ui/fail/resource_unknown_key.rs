// A misspelled key is one error on its token, naming the key it is near; a key no key is near
// lists them all; a media type is `type/subtype`.
use tool_core::prelude::*;

/// Today's notes.
#[resource(uri = "notes://today", mime = "text/plain")]
fn today_notes() -> String {
    String::new()
}

/// Yesterday's notes.
#[resource(uri = "notes://yesterday", colour = "blue", mime_type = "text")]
fn yesterday_notes() -> String {
    String::new()
}

fn main() {}
