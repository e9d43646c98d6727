// The URI is a URI or a simple template, and it is given.
use tool_core::prelude::*;

/// No scheme.
#[resource(uri = "notes/today")]
fn today_notes() -> String {
    String::new()
}

/// An operator RFC 6570 has but MCP templates here do not.
#[resource(uri = "notes://{+path}")]
fn any_note(path: String) -> String {
    path
}

/// No URI at all.
#[resource(mime_type = "text/plain")]
fn no_uri() -> String {
    String::new()
}

fn main() {}
