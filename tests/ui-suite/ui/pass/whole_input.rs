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

/// A note, with no `deny_unknown_fields`: its schema still refuses other keys.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Note {
    /// The note's text.
    text: String,
    /// Its colour.
    color: Option<String>,
}

/// Labels and their values: a flattened map takes any key.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Labels {
    /// The item labelled.
    item: String,
    #[serde(flatten)]
    labels: std::collections::BTreeMap<String, String>,
}

/// Returns the note's text.
#[tool(domain = demo, label = "Noting", hint = "Takes a note")]
fn take_note(#[input] note: Note) -> String {
    format!("{} ({})", note.text, note.color.unwrap_or_default())
}

/// Returns how many labels the item has.
#[tool(domain = demo, label = "Labelling", hint = "Labels an item")]
fn label_item(#[input] labels: Labels) -> String {
    format!("{}: {}", labels.item, labels.labels.len())
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
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
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
    assert_eq!(err.message(), "unknown parameter `nope`; the parameters are: text, limit");
    let err = call(json!({"text": "a", "limt": 1})).unwrap_err();
    assert_eq!(err.message(), "unknown parameter `limt` (did you mean `limit`?)");

    // Without `deny_unknown_fields`, the schema is closed and an unknown key refused all the same.
    let schema = registry.get("take_note").unwrap().input_schema();
    assert_eq!(schema["additionalProperties"], false);
    let note = |input| rt.block_on(executor.call("take_note", input, &ctx));
    assert_eq!(note(json!({"text": "x", "color": "red"})).unwrap().echo(), "x (red)");
    let err = note(json!({"text": "x", "colour": "red"})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.message(), "unknown parameter `colour` (did you mean `color`?)");

    // A flattened map takes any key, and its schema says so.
    let schema = registry.get("label_item").unwrap().input_schema();
    assert_ne!(schema["additionalProperties"], false, "{schema}");
    let labels = rt.block_on(executor.call("label_item", json!({"item": "a", "x": "1", "y": "2"}), &ctx));
    assert_eq!(labels.unwrap().echo(), "a: 2");
    let err = call(json!({})).unwrap_err();
    assert!(err.message().contains("missing field `text`"), "{err}");
}
