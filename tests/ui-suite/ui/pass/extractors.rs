// Context values: `State<T>`, `CancellationToken`, `RequestHeaders` and a custom type, each
// marked `#[ctx]`, come from the context, never from the input, whatever they are named.
use std::sync::Arc;

use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

struct Db {
    prefix: &'static str,
}

/// The user making the request, from the `x-user` header.
struct Principal(String);

impl tool_core::context::FromContext for Principal {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.headers()
            .get("x-user")
            .map(|user| Principal(user.to_owned()))
            .ok_or_else(|| ToolError::permission_denied("no user"))
    }
}

/// Returns the record's key with the database prefix.
#[tool(domain = demo, label = "Reading a record", hint = "Reads a record")]
fn get_record(#[ctx] State(db): State<Db>, key: String) -> String {
    format!("{}{key}", db.prefix)
}

/// Returns whether the call was cancelled.
#[tool(domain = demo, label = "Checking", hint = "Cancellation state")]
async fn get_cancelled(#[ctx] token: CancellationToken) -> bool {
    token.is_cancelled()
}

/// Returns the tenant header and the user.
#[tool(domain = demo, label = "Who am I", hint = "The caller")]
fn get_caller(
    #[ctx] headers: RequestHeaders,
    #[ctx] user: Principal,
    #[ctx] db: tool_core::context::State<Db>,
) -> String {
    format!("{}{}@{}", db.prefix, user.0, headers.get("x-tenant").unwrap_or("-"))
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let token = CancellationToken::new();
    let ctx = ToolContext::builder()
        .extension(Arc::new(Db { prefix: "db:" }))
        .headers(RequestHeaders::from_pairs([("X-User", "ada"), ("X-Tenant", "acme")]))
        .cancellation(token.clone())
        .build();

    // Extractors are not input parameters.
    let schema = registry.get("get_record").unwrap().input_schema();
    assert_eq!(schema["properties"].as_object().unwrap().keys().collect::<Vec<_>>(), ["key"]);
    let schema = registry.get("get_caller").unwrap().input_schema();
    assert_eq!(schema["properties"], json!({}));

    let out = rt.block_on(executor.call("get_record", json!({"key": "k1"}), &ctx)).unwrap();
    assert_eq!(out.echo(), "db:k1");
    let out = rt.block_on(executor.call("get_caller", json!({}), &ctx)).unwrap();
    assert_eq!(out.echo(), "db:ada@acme");
    let out = rt.block_on(executor.call("get_cancelled", json!({}), &ctx)).unwrap();
    assert_eq!(out.data(), Some(&json!(false)));
    // The token the tool takes is the call's: once the caller cancels, the executor ends the
    // call as cancelled rather than running it.
    token.cancel();
    let err = rt.block_on(executor.call("get_cancelled", json!({}), &ctx)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled);

    // A missing extractor fails the call with its own error.
    let bare = ToolContext::new();
    let err = rt.block_on(executor.call("get_record", json!({"key": "k1"}), &bare)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Internal);
    assert!(err.message().contains("is not configured"), "{err}");
    let no_user = ToolContext::builder().extension(Arc::new(Db { prefix: "" })).build();
    let err = rt.block_on(executor.call("get_caller", json!({}), &no_user)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    assert_eq!(err.message(), "no user");
}
