// A resource returns contents; the compiler says what it may return, on the return type.
use tool_core::prelude::*;

/// A number.
#[resource(uri = "numbers://one")]
fn one_number() -> u32 {
    1
}

/// Nothing.
#[resource(uri = "numbers://none")]
fn no_number() {}

/// A variable that is not text.
#[resource(uri = "numbers://{n}")]
fn some_number(n: u32) -> String {
    n.to_string()
}

fn main() {}
