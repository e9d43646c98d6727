// No public way runs a tool bare: the registry and a tool have no call of their own; the
// executor is the one door.
use tool_core::prelude::*;

fn main() {
    let registry = Registry::linked().unwrap();
    let _ = registry.call("get_time", serde_json::json!({}), &ToolContext::new());
    let tool = registry.get("get_time").unwrap();
    let _ = tool.call(serde_json::json!({}), &ToolContext::new());
}
