// `scopes(...)`: the OAuth scopes a caller needs, as written, in order; enforced by the executor
// for a caller a server authenticated, and not for a call with no principal.
use serde_json::json;
use tool_core::exec::Executor;
use tool_core::prelude::*;
use tool_core::context::Principal;

tool_core::domain!(pub tracker, "Issues of a tracker");

/// Moves an issue to another repository.
#[tool(
    domain = tracker,
    label = "Moving the issue",
    hint = "Moves an issue",
    read_only = false,
    scopes("repo", "issues:write", "https://api.example.com/.default"),
)]
fn move_issue(id: u32) -> u32 {
    id
}

/// Returns an issue.
#[tool(domain = tracker, label = "Reading", hint = "Reads an issue", scopes("issues:read"))]
async fn get_issue(id: u32) -> u32 {
    id
}

/// Lists labels.
#[tool(domain = tracker, label = "Listing", hint = "Lists labels")]
fn list_labels() -> u8 {
    2
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let scopes = |name: &str| -> Vec<String> {
        registry.get(name).unwrap().scopes().iter().map(|s| s.to_string()).collect()
    };
    assert_eq!(scopes("move_issue"), ["repo", "issues:write", "https://api.example.com/.default"]);
    assert_eq!(scopes("get_issue"), ["issues:read"]);
    assert!(scopes("list_labels").is_empty());

    let executor = Executor::new(registry);
    let reader = ToolContext::builder()
        .principal(Principal::new("ada").with_scopes(["issues:read"]))
        .build();
    let call = |name: &str, ctx: &ToolContext| rt.block_on(executor.call(name, json!({"id": 1}), ctx));
    let err = call("move_issue", &reader).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    assert_eq!(
        err.message(),
        "calling `move_issue` needs the scopes `repo`, `issues:write` and `https://api.example.com/.default`, which the caller was not granted"
    );
    assert_eq!(call("get_issue", &reader).unwrap().echo(), "1");
    assert_eq!(call("move_issue", &ToolContext::new()).unwrap().echo(), "1");
}
