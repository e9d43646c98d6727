// No public way runs a tool bare: the registry and a tool have no call of their own; the
// executor is the one door. The benchmarks' bare call is behind a feature they alone turn on,
// and a definition collected with `inventory` seals its handler.
use tool_core::prelude::*;

fn main() {
    let registry = Registry::linked().unwrap();
    let _ = registry.call("get_time", serde_json::json!({}), &ToolContext::new());
    let tool = registry.get("get_time").unwrap();
    let _ = tool.call(serde_json::json!({}), &ToolContext::new());
    let _ = tool_core::__private::bare_call(&registry, "get_time", serde_json::json!({}), &ToolContext::new());
    for def in tool_core::__private::inventory::iter::<tool_core::__private::ToolDef> {
        let _ = (def.handler)(serde_json::json!({}), &ToolContext::new());
        let _ = def.handler.0;
    }
}
