// `#[input]` takes the whole input as one struct; its field docs become the descriptions.
use serde_json::json;
use tool_core::{schemars, serde};
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// A search over a text.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde", deny_unknown_fields)]
struct Query {
    /// Words to look for.
    text: String,
    /// How many words to count at most.
    #[serde(default)]
    limit: Option<usize>,
}

/// Returns how many words the text has, up to the limit.
#[tool(
    domain = demo,
    label = "Counting",
    hint = "Counts words",
    examples("Two words" => r#"{"text": "a b"}"#),
)]
fn count_words(#[input] query: Query, ctx: &ToolContext) -> String {
    let n = query.text.split_whitespace().count();
    let n = query.limit.map_or(n, |limit| n.min(limit));
    format!("{n} in {}", ctx.call_id())
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry.clone());
    let ctx = ToolContext::builder().call_id("c1").build();
    let call = |input| rt.block_on(executor.call("count_words", input, &ctx));

    let schema = registry.get("count_words").unwrap().input_schema();
    assert_eq!(schema["type"], "object");
    assert!(schema.get("title").is_none(), "{schema}");
    assert_eq!(schema["properties"]["text"]["description"], "Words to look for.");
    assert_eq!(schema["properties"]["limit"]["description"], "How many words to count at most.");
    assert_eq!(schema["required"], json!(["text"]));
    assert_eq!(schema["additionalProperties"], false);

    assert_eq!(call(json!({"text": "a b c"})).unwrap().echo(), "3 in c1");
    assert_eq!(call(json!({"text": "a b c", "limit": 2})).unwrap().echo(), "2 in c1");
    let err = call(json!({"text": 5})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.path(), Some("text"));
    let err = call(json!({"text": "a", "nope": 1})).unwrap_err();
    assert!(err.message().contains("unknown field `nope`"), "{err}");
    let err = call(json!({})).unwrap_err();
    assert!(err.message().contains("missing field `text`"), "{err}");
}
