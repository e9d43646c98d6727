// A tool can take `&ToolContext` (sync or async), or a clone of it marked `#[ctx]` (a context value
// like any other).
use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Returns the id of the call.
#[tool(domain = demo, label = "Reading the call", hint = "The call id")]
fn get_call_id(ctx: &ToolContext) -> String {
    ctx.call_id().to_owned()
}

/// Returns a header of the request, after yielding once.
#[tool(domain = demo, label = "Reading a header", hint = "A request header")]
async fn get_header(ctx: &ToolContext, name: String) -> Option<String> {
    tokio::task::yield_now().await;
    ctx.headers().get(&name).map(str::to_owned)
}

/// Returns the id of the call, from an owned context.
#[tool(domain = demo, label = "Reading the call", hint = "The call id")]
async fn get_owned_call_id(#[ctx] ctx: ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let ctx = ToolContext::builder()
        .call_id("call_7")
        .headers(RequestHeaders::from_pairs([("X-Tenant", "acme")]))
        .build();

    let out = rt.block_on(executor.call("get_call_id", json!({}), &ctx)).unwrap();
    assert_eq!(out.echo(), "call_7");
    let out = rt.block_on(executor.call("get_owned_call_id", json!(null), &ctx)).unwrap();
    assert_eq!(out.echo(), "call_7");
    let out = rt
        .block_on(executor.call("get_header", json!({"name": "x-tenant"}), &ctx))
        .unwrap();
    assert_eq!(out.echo(), "acme");
    let out = rt
        .block_on(executor.call("get_header", json!({"name": "x-other"}), &ctx))
        .unwrap();
    assert_eq!(out.data(), Some(&json!(null)));

    // The context is not part of the input.
    let schema = registry.get("get_header").unwrap().input_schema();
    assert_eq!(schema["properties"].as_object().unwrap().len(), 1);
    assert_eq!(schema["required"], json!(["name"]));
    let schema = registry.get("get_call_id").unwrap().input_schema();
    assert_eq!(schema["properties"], json!({}));
}
