// A `#[ctx]` parameter's type must implement tool_core::context::FromContext.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

struct User(String);

/// Returns the user's name.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn get_user(#[ctx] user: User) -> String {
    user.0
}

fn main() {}
