// `crate = "path"`: a framework that re-exports tool-core has the expansion name its path.
use serde_json::json;

mod framework {
    pub use tool_core;
    pub use tool_core::{tool, ToolContext};
}

use framework::tool;

framework::tool_core::domain!(pub demo, "Demo tools");

/// Returns the text, shouted.
#[tool(crate = "framework::tool_core", domain = demo, label = "Shouting", hint = "Shouts a text")]
fn shout_text(text: String, ctx: &framework::ToolContext) -> String {
    format!("{}{}", text.to_uppercase(), ctx.call_id())
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = framework::tool_core::Registry::linked().unwrap();
    let executor = framework::tool_core::Executor::new(registry);
    let ctx = framework::ToolContext::builder().call_id("!").build();
    let out = rt.block_on(executor.call("shout_text", json!({"text": "hi"}), &ctx)).unwrap();
    assert_eq!(out.echo(), "HI!");
}
