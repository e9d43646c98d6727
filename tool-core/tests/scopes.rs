//! Per-tool OAuth scopes in the executor: a caller a server authenticated (a `Principal` in the
//! context) without every scope a tool declares is refused before the tool's input is read;
//! a call without a principal is not held to scopes.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tool_core::context::{AuditRecord, AuditSink, BroadcastEvents, Principal, ToolEvent};
use tool_core::exec::{CallInput, Executor};
use tool_core::prelude::*;

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

fn executor() -> Executor {
    Executor::new(Registry::linked().unwrap())
}

fn as_caller(scopes: &[&str]) -> ToolContext {
    let caller = Principal::new("user-7").with_scopes(scopes.iter().copied());
    ToolContext::builder().principal(caller).build()
}

#[tokio::test]
async fn a_caller_missing_one_scope_is_refused_before_the_tool_runs() {
    let ctx = as_caller(&["issues:read"]);
    let err = executor()
        .call("close_issue", json!({"id": 7}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    assert_eq!(
        err.to_string(),
        "calling `close_issue` needs the scope `issues:write`, which the caller was not granted"
    );
    assert!(!CLOSED.lock().unwrap().contains(&7), "the tool did not run");

    // Refused before the input is read: an input that would not decode, or not parse, gets the
    // same answer, and says nothing of the tool's parameters.
    let inputs: [CallInput; 2] = [json!({"id": "seven"}).into(), "{not json".into()];
    for input in inputs {
        let err = executor()
            .call("close_issue", input, &ctx)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::PermissionDenied, "{err}");
    }
}

#[tokio::test]
async fn a_caller_missing_several_scopes_is_told_every_one() {
    let ctx = as_caller(&["issues:write"]);
    let err = executor()
        .call("move_issue", json!({"id": 1, "to": "elsewhere"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    assert_eq!(
        err.message(),
        "calling `move_issue` needs the scopes `repo` and `admin:org`, which the caller was not granted"
    );
    let ctx = as_caller(&[]);
    let err = executor()
        .call("move_issue", json!({"id": 1, "to": "elsewhere"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "calling `move_issue` needs the scopes `repo`, `issues:write` and `admin:org`, which the caller was not granted"
    );
}

#[tokio::test]
async fn a_caller_holding_every_scope_runs_the_tool() {
    let ctx = as_caller(&["admin:org", "issues:write", "repo", "more"]);
    let out = executor()
        .call("move_issue", json!({"id": 1, "to": "elsewhere"}), &ctx)
        .await
        .unwrap();
    assert_eq!(out.echo(), "1 -> elsewhere");
    let out = executor()
        .call("close_issue", json!({"id": 3}), &ctx)
        .await
        .unwrap();
    assert_eq!(out.echo(), "3");
    // A tool that declares no scope is open to every caller, even one granted none.
    let out = executor()
        .call("list_labels", json!({}), &as_caller(&[]))
        .await
        .unwrap();
    assert_eq!(out.data(), Some(&json!(["bug", "feature"])));
}

#[tokio::test]
async fn without_a_principal_scopes_are_not_enforced() {
    // stdio, a static bearer token: the transport authenticated no one, so nothing was granted
    // or withheld.
    let out = executor()
        .call("close_issue", json!({"id": 4}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.echo(), "4");
    // A principal known by its subject alone was granted no scope.
    let ctx = ToolContext::builder().principal("user-7").build();
    let err = executor()
        .call("get_issue", json!({"id": 4}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
}

#[tokio::test]
async fn a_tool_cannot_reach_what_its_caller_may_not() {
    let ctx = as_caller(&["issues:read"]);
    let err = executor()
        .call("close_through_tool", json!({"id": 5}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    assert!(err.message().contains("`close_issue`"), "{err}");
    let ctx = as_caller(&["issues:write"]);
    let out = executor()
        .call("close_through_tool", json!({"id": 5}), &ctx)
        .await
        .unwrap();
    assert_eq!(out.echo(), "5");
}

#[derive(Default)]
struct Recorded(Mutex<Vec<AuditRecord>>);

impl AuditSink for Recorded {
    fn record(&self, record: &AuditRecord) {
        self.0.lock().unwrap().push(record.clone());
    }
}

#[tokio::test]
async fn a_refusal_is_audited_and_reported_like_any_failed_call() {
    let audit = Arc::new(Recorded::default());
    let events = Arc::new(BroadcastEvents::new(16));
    let mut rx = events.subscribe();
    let ctx = ToolContext::builder()
        .call_id("c1")
        .principal(Principal::new("user-7").with_scopes(["issues:read"]))
        .audit(audit.clone())
        .events(events)
        .build();
    let _ = executor()
        .call("close_issue", json!({"id": 9}), &ctx)
        .await
        .unwrap_err();
    {
        let records = audit.0.lock().unwrap();
        assert_eq!(records.len(), 1);
        let r = &records[0];
        assert_eq!(r.tool, "close_issue");
        assert_eq!(r.principal.as_deref(), Some("user-7"));
        assert_eq!(r.outcome, "permission_denied");
        assert!(r.input_digest.starts_with("sha256:"));
    }
    let mut seen = Vec::new();
    while let Ok(e) = rx.try_recv() {
        seen.push(e);
    }
    // It never ran, so it never started (as with a layer's refusal): it only failed.
    assert!(matches!(
        &seen[0],
        ToolEvent::Failed { kind: ErrorKind::PermissionDenied, message, .. } if message.contains("`issues:write`")
    ));
    assert_eq!(seen.len(), 1);

    // Read-only tools are not audited, refused or not, as for every other outcome.
    let _ = executor()
        .call(
            "get_issue",
            json!({"id": 9}),
            &ToolContext::builder()
                .principal("u")
                .audit(audit.clone())
                .build(),
        )
        .await
        .unwrap_err();
    assert_eq!(audit.0.lock().unwrap().len(), 1);
}

#[test]
fn declared_scopes_reach_the_registry_and_judge_listings() {
    let registry = Registry::linked().unwrap();
    let scopes = |name: &str| -> Vec<String> {
        registry
            .get(name)
            .unwrap()
            .scopes()
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    assert_eq!(scopes("move_issue"), ["repo", "issues:write", "admin:org"]);
    assert_eq!(scopes("close_issue"), ["issues:write"]);
    assert!(scopes("list_labels").is_empty());

    let reader = Principal::new("u").with_scopes(["issues:read"]);
    let mut visible: Vec<&str> = registry
        .tools()
        .iter()
        .filter(|t| t.permits(Some(&reader)))
        .map(|t| t.name())
        .collect();
    visible.sort_unstable();
    assert_eq!(visible, ["close_through_tool", "get_issue", "list_labels"]);
    assert_eq!(
        registry.tools().iter().filter(|t| t.permits(None)).count(),
        registry.len()
    );
}

#[tokio::test]
async fn a_misspelt_name_suggests_only_tools_the_caller_may_call() {
    let suggestion = |scopes: &'static [&'static str]| async move {
        let err = executor()
            .call("close_issu", json!({"id": 7}), &as_caller(scopes))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnknownTool, "{err}");
        err.to_string().contains("`close_issue`")
    };
    assert!(!suggestion(&["issues:read"]).await);
    assert!(suggestion(&["issues:write"]).await);
    // Without an authenticated caller, every tool may be suggested.
    let err = executor()
        .call("close_issu", json!({"id": 7}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("`close_issue`"), "{err}");
}

#[tokio::test]
async fn a_batch_holds_each_call_to_its_tools_scopes() {
    let calls = vec![
        tool_core::exec::ToolCall::new("a", "list_labels", json!({})),
        tool_core::exec::ToolCall::new("b", "close_issue", json!({"id": 1})),
        tool_core::exec::ToolCall::new("c", "get_issue", "{\"id\": 2}"),
        tool_core::exec::ToolCall::new("d", "close_issu", json!({"id": 1})),
    ];
    let results = executor()
        .call_batch(calls, &as_caller(&["issues:read"]))
        .await;
    assert!(results[0].is_ok(), "{:?}", results[0]);
    let refused = results[1].as_ref().unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::PermissionDenied, "{refused}");
    assert!(refused.message().contains("`issues:write`"), "{refused}");
    assert_eq!(results[2].as_ref().unwrap().echo(), "issue 2");
    let unknown = results[3].as_ref().unwrap_err();
    assert_eq!(unknown.kind(), ErrorKind::UnknownTool, "{unknown}");
    assert!(!unknown.message().contains("`close_issue`"), "{unknown}");
}
