// The form `Input(q): Input<T>` of an earlier version: one error that says what replaced it.
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
fn split_words(Input(query): Input<Query>) -> Vec<String> {
    query.text.split(' ').map(String::from).collect()
}

fn main() {}
