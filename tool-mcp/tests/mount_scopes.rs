//! A mount's scopes: every tool of a server mounted with `NAME[SCOPE ...]=URL` requires them of
//! a caller a server authenticated, through the same executor rule as a local tool's scopes.

#![cfg(feature = "mount")]

use serde_json::json;
use tool_core::exec::Executor;
use tool_core::{
    Registry, ToolContext, ToolOutput, context::Principal, error::ErrorKind, registry::DynamicTool,
};
use tool_mcp::{self as mcp, HttpOptions, McpServer, MountSpec};

/// A server of two tools on loopback; returns its URL.
async fn remote() -> String {
    let mut registry = Registry::empty();
    let object = json!({"type": "object"});
    registry
        .register_all([
            DynamicTool::new("echo_input", "Echoes its input.", object.clone())
                .handler(|input, _| async move { Ok(ToolOutput::new(input)) }),
            // Its own scopes are the remote server's business, not the mount's.
            DynamicTool::new("list_items", "Lists items.", object)
                .scopes(["items:read"])
                .handler(|_, _| async move { Ok(ToolOutput::new(json!(["a"]))) }),
        ])
        .unwrap();
    let server = McpServer::new(Executor::new(registry));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = mcp::serve_http(
            server,
            listener,
            &HttpOptions::default(),
            Default::default(),
        )
        .await;
    });
    url
}

#[tokio::test]
async fn every_tool_of_a_mount_requires_its_scopes() {
    let url = remote().await;
    let spec: MountSpec = format!("far[repo issues:write]={url}").parse().unwrap();
    let mut registry = Registry::empty();
    mcp::mount(&spec)
        .await
        .unwrap()
        .register(&mut registry)
        .unwrap();
    for tool in registry.tools() {
        assert_eq!(tool.scopes(), ["repo", "issues:write"], "{}", tool.name());
    }

    let executor = Executor::new(registry);
    let as_caller = |scopes: &[&str]| {
        let caller = Principal::new("ada").with_scopes(scopes.iter().copied());
        ToolContext::builder().principal(caller).build()
    };
    let err = executor
        .call("far__echo_input", json!({"x": 1}), &as_caller(&["repo"]))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    assert_eq!(
        err.message(),
        "calling `far__echo_input` needs the scope `issues:write`, which the caller was not granted"
    );
    let out = executor
        .call(
            "far__echo_input",
            json!({"x": 1}),
            &as_caller(&["issues:write", "repo"]),
        )
        .await
        .unwrap();
    assert_eq!(out.data(), Some(&json!({"x": 1})));
    // No principal (the local server authenticated no one): not held to the mount's scopes.
    let out = executor
        .call("far__list_items", json!({}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.echo(), r#"["a"]"#);

    // Mounted without scopes, the tools need none here.
    let spec: MountSpec = format!("near={url}").parse().unwrap();
    let mounted = mcp::mount(&spec).await.unwrap().into_tools();
    let mut registry = Registry::empty();
    registry.register_all(mounted).unwrap();
    assert!(registry.tools().iter().all(|t| t.scopes().is_empty()));
}
