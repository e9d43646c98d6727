// A parameter is the whole input or a context value, not both.
use tool_core::prelude::*;
use tool_core::{schemars, serde};

tool_core::domain!(pub demo, "Demo tools");

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Query {
    /// Words to look for.
    text: String,
}

/// Returns the words.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn split_words(#[ctx] #[input] query: Query) -> Vec<String> {
    query.text.split(' ').map(String::from).collect()
}

fn main() {}
