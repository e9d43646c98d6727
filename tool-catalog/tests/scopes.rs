//! Per-tool OAuth scopes in the catalog: `search_tools` offers a caller (a `Principal` in the
//! context) only the tools and domains it may call.

use std::sync::Mutex;

use serde_json::json;
use tool_core::exec::Executor;
use tool_core::prelude::*;
use tool_core::{context::Principal, registry::DynamicTool};

tool_core::domain!(pub issues, "An issue tracker");

/// The ids `close_issue` closed. Tests run in parallel and close other ids, so a test that
/// needs the tool not to have run checks for its own id, not for a count.
static CLOSED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Closes an issue and returns its id.
#[tool(
    domain = issues,
    label = "Closing the issue",
    hint = "Close an issue",
    destructive,
    retries = 3,
    scopes("issues:write"),
)]
fn close_issue(id: u32) -> u32 {
    CLOSED.lock().unwrap().push(id);
    id
}

/// Moves an issue to another repository.
#[tool(
    domain = issues,
    label = "Moving the issue",
    hint = "Move an issue",
    read_only = false,
    scopes("repo", "issues:write", "admin:org"),
)]
fn move_issue(id: u32, to: String) -> String {
    format!("{id} -> {to}")
}

/// Returns an issue's title.
#[tool(domain = issues, label = "Reading the issue", hint = "Read an issue", scopes("issues:read"))]
fn get_issue(id: u32) -> String {
    format!("issue {id}")
}

/// Lists the labels any issue may have.
#[tool(domain = issues, label = "Listing labels", hint = "List labels")]
fn list_labels() -> Vec<&'static str> {
    vec!["bug", "feature"]
}

/// Closes an issue by calling `close_issue`.
#[tool(domain = issues, label = "Closing via another tool", hint = "Close through a tool", read_only = false)]
async fn close_through_tool(ctx: &ToolContext, id: u32) -> Result<u32, ToolError> {
    let out = ctx.call_tool("close_issue", json!({"id": id})).await?;
    Ok(out.data().and_then(|v| v.as_u64()).unwrap_or_default() as u32)
}

fn as_caller(scopes: &[&str]) -> ToolContext {
    let caller = Principal::new("user-7").with_scopes(scopes.iter().copied());
    ToolContext::builder().principal(caller).build()
}

/// The names `search_tools` offers `ctx`'s caller for `query`.
async fn searched(executor: &Executor, query: &str, ctx: ToolContext) -> Vec<String> {
    let out = executor
        .call("search_tools", json!({"query": query, "limit": 20}), &ctx)
        .await
        .expect("search_tools answers");
    out.data().expect("data")["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| m["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[tokio::test]
async fn search_tools_offers_a_caller_only_the_tools_it_may_call() {
    let mut registry = Registry::linked().unwrap();
    tool_catalog::install(&mut registry).unwrap();
    let executor = Executor::new(registry);
    let query = "close or move an issue";
    let reader = searched(&executor, query, as_caller(&["issues:read"])).await;
    assert!(!reader.is_empty(), "the reader finds something");
    assert!(
        !reader
            .iter()
            .any(|n| n == "close_issue" || n == "move_issue"),
        "{reader:?}"
    );
    let writer = searched(
        &executor,
        query,
        as_caller(&["issues:write", "repo", "admin:org"]),
    )
    .await;
    assert!(writer.iter().any(|n| n == "close_issue"), "{writer:?}");
    assert!(writer.iter().any(|n| n == "move_issue"), "{writer:?}");
    // Without a principal (stdio), every tool may be found.
    let anyone = searched(&executor, query, ToolContext::new()).await;
    assert!(anyone.iter().any(|n| n == "close_issue"), "{anyone:?}");
}

/// What `search_tools` answers `ctx`'s caller for a search filtered by `domain`.
async fn searched_in(
    executor: &Executor,
    domain: &str,
    ctx: ToolContext,
) -> Result<ToolOutput, ToolError> {
    executor
        .call(
            "search_tools",
            json!({"query": "rotate the signing keys", "domain": domain}),
            &ctx,
        )
        .await
}

#[tokio::test]
async fn search_tools_names_only_the_domains_a_caller_may_search() {
    let mut registry = Registry::linked().unwrap();
    registry
        .register(
            DynamicTool::new(
                "rotate_keys",
                "Rotates the signing keys.",
                json!({"type": "object"}),
            )
            .domain("vault", "The secrets vault")
            .scopes(["vault:admin"]),
        )
        .unwrap();
    tool_catalog::install(&mut registry).unwrap();
    let executor = Executor::new(registry);
    let reader = || as_caller(&["issues:read"]);

    // An unknown domain is refused with the domains there are: the reader's, not the vault.
    let err = searched_in(&executor, "nowhere", reader())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(
        err.message().ends_with("the domains are: catalog, issues"),
        "{err}"
    );
    assert!(!err.message().contains("vault"), "{err}");
    // A domain whose every tool is hidden from the caller is answered as one that is not
    // there, so the answer does not tell the caller it exists.
    let hidden = searched_in(&executor, "vault", reader()).await.unwrap_err();
    assert_eq!(
        hidden.message(),
        err.message().replace("`nowhere`", "`vault`"),
        "{hidden}"
    );

    // A caller granted the scope searches the vault and finds the tool; so does a call with no
    // authenticated caller.
    for ctx in [as_caller(&["vault:admin"]), ToolContext::new()] {
        let out = searched_in(&executor, "vault", ctx).await.unwrap();
        assert_eq!(out.data().unwrap()["matches"][0]["name"], "rotate_keys");
    }
}
