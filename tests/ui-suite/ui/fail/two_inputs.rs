// Only one `Input<T>` parameter: it is the whole input.
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");
use tool_core::__private::{schemars, serde};

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::__private::serde")]
#[schemars(crate = "tool_core::__private::schemars")]
struct Query {
    /// Words to look for.
    text: String,
}

/// Returns both texts.
#[tool(domain = demo, label = "Working", hint = "Does work")]
fn join_queries(Input(a): Input<Query>, Input(b): Input<Query>) -> String {
    a.text + &b.text
}

fn main() {}
