// Only one parameter is the whole input.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");
use tool_core::{schemars, serde};

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Query {
    /// Words to look for.
    text: String,
}

/// Returns both texts.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn join_queries(#[input] a: Query, #[input] b: Query) -> String {
    a.text + &b.text
}

fn main() {}
