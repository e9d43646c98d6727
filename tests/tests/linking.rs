//! Tools are collected at link time from every crate the binary names, and only those.

use serde_json::json;
use tool_core::{Registry, ToolContext};

// Naming a crate links it; its #[tool]s then reach the registry.
use extra_tools as _;
use tool_bundle as _;

#[test]
fn tools_from_every_named_crate_are_collected() {
    let registry = Registry::linked().expect("no duplicate names");
    assert!(!registry.is_empty());
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    for expected in [
        "get_current_time",
        "wait_duration",
        "convert_time",
        "read_file",
        "list_directory",
        "search_files",
        "get_file_info",
        "fetch_url",
        "reverse_text",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    // clashing-tools is a dependency of this package but this binary does not name it.
    assert_eq!(registry.len(), 9, "{names:?}");
}

#[test]
fn order_is_domain_then_name() {
    let registry = Registry::linked().unwrap();
    let keys: Vec<(String, String)> = registry
        .tools()
        .iter()
        .map(|t| (t.domain().name.to_string(), t.name().to_owned()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[tokio::test]
async fn a_tool_from_another_crate_runs() {
    let registry = Registry::linked().unwrap();
    let out = tool_core::Executor::new(registry)
        .call("reverse_text", json!({"text": "abc"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.echo(), "cba");
}
