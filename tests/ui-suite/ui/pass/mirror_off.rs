// `mirror = false` on tools whose output has a schema, whatever the return type is made of.
use tool_core::prelude::*;
use tool_core::{schemars, serde};

tool_core::domain!(pub stats, "Counters");

/// The counters.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(crate = "tool_core::serde")]
struct Counters {
    /// Requests served.
    requests: u64,
}

/// Returns the counters.
#[tool(domain = stats, label = "Counting", hint = "Counters", mirror = false)]
fn get_counters() -> Counters {
    Counters { requests: 1 }
}

/// Returns the counters, or fails.
#[tool(domain = stats, label = "Counting", hint = "Counters or a failure", mirror = false)]
async fn get_counters_or_fail() -> std::io::Result<Counters> {
    Ok(Counters { requests: 2 })
}

/// Returns the counters with a card.
#[tool(domain = stats, label = "Counting", hint = "Counters on a card", mirror = false)]
fn get_counters_card() -> Result<ToolOutput<Vec<Counters>>, ToolError> {
    Ok(ToolOutput::new(vec![Counters { requests: 3 }]).with_event("counters_card"))
}

/// Returns how many requests there were.
#[tool(domain = stats, label = "Counting", hint = "Request count", mirror)]
fn count_requests() -> u64 {
    4
}

fn main() {
    let registry = Registry::linked().unwrap();
    for name in ["get_counters", "get_counters_or_fail", "get_counters_card"] {
        let tool = registry.get(name).unwrap();
        assert!(!tool.mirror(), "{name}");
        assert!(tool.output_schema().is_some(), "{name}");
        let meta = &tool_core::render::mcp(tool)["_meta"];
        assert_eq!(meta["tool-core/mirror"], false, "{name}");
    }
    assert!(registry.get("count_requests").unwrap().mirror());
    tool_core::definition::check::assert_valid();
}
