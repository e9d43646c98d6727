// `#[arg(description, default, rename)]`: descriptions and defaults appear in the schema, a
// default is used when the key is missing or null, rename changes the key.
use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

const DEFAULT_LIMIT: u32 = 10;

/// Returns what it was asked to search, as JSON.
#[tool(domain = demo, label = "Searching", hint = "Searches items")]
fn search_items(
    #[arg(description = "Words to look for")] query: String,
    #[arg(description = "How many results", default = DEFAULT_LIMIT)] limit: u32,
    #[arg(default = "en")] language: String,
    #[arg(rename = "type", description = "Kind of item")] kind: String,
    #[arg(default = vec![1, 2])] ids: Vec<u8>,
    r#match: Option<bool>,
) -> serde_json::Value {
    json!({
        "query": query,
        "limit": limit,
        "language": language,
        "kind": kind,
        "ids": ids,
        "match": r#match,
    })
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let ctx = ToolContext::new();
    let call = |input| rt.block_on(executor.call("search_items", input, &ctx));

    let schema = registry.get("search_items").unwrap().input_schema();
    let p = &schema["properties"];
    assert_eq!(
        p.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["query", "limit", "language", "type", "ids", "match"]
    );
    assert_eq!(p["query"]["description"], "Words to look for");
    assert_eq!(p["limit"]["description"], "How many results");
    assert_eq!(p["limit"]["default"], 10);
    assert_eq!(p["language"]["default"], "en");
    assert_eq!(p["language"]["type"], "string");
    assert!(p["language"].get("description").is_none());
    assert_eq!(p["type"]["description"], "Kind of item");
    assert_eq!(p["ids"]["default"], json!([1, 2]));
    assert_eq!(schema["required"], json!(["query", "type"]));

    // Defaults fill missing and null values; the renamed key is `type`.
    let out = call(json!({"query": "pens", "type": "office", "limit": null})).unwrap();
    assert_eq!(
        out.into_data().unwrap(),
        json!({"query": "pens", "limit": 10, "language": "en", "kind": "office", "ids": [1, 2], "match": null})
    );
    let out = call(json!({
        "query": "pens", "type": "office", "limit": 3, "language": "fr", "ids": [], "match": true
    }))
    .unwrap();
    assert_eq!(
        out.into_data().unwrap(),
        json!({"query": "pens", "limit": 3, "language": "fr", "kind": "office", "ids": [], "match": true})
    );

    // The Rust name of a renamed parameter is not a key.
    let err = call(json!({"query": "pens", "kind": "office"})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.message().contains("unknown parameter `kind`"), "{err}");
    assert!(err.message().contains("type: missing required parameter"), "{err}");
}
