// `#[input]` is the whole input: no input fields beside it.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");
use tool_core::{schemars, serde};

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Query {
    /// Words to look for.
    text: String,
}

/// Returns the matches.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn find_words(#[input] query: Query, limit: u32) -> Vec<String> {
    query.text.split(' ').take(limit as usize).map(String::from).collect()
}

fn main() {}
