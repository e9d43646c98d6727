//! The catalog end to end: ranking on a small realistic set, incremental updates, filters, the
//! `search_tools` tool's input errors, and a session that loads what a search found.

use serde_json::{Value, json};
use tool_catalog::{Catalog, Deferral, SearchOptions, ToolSession};
use tool_core::render::{Format, RenderOptions};
use tool_core::{Executor, Registry, ToolContext, error::ErrorKind, registry::DynamicTool};

fn tool(name: &str, domain: &str, description: &str) -> DynamicTool {
    DynamicTool::new(
        name.to_owned(),
        description.to_owned(),
        json!({"type": "object"}),
    )
    .domain(domain.to_owned(), format!("The {domain} tools"))
    .hint(description.split('.').next().unwrap_or_default().to_owned())
}

fn registry() -> Registry {
    let mut r = Registry::empty();
    for t in [
        tool(
            "github__create_pull_request",
            "github",
            "Create a new pull request in a GitHub repository.",
        ),
        tool(
            "github__list_issues",
            "github",
            "List issues in a GitHub repository with filtering options.",
        ),
        tool(
            "github__create_issue",
            "github",
            "Create a new issue in a GitHub repository.",
        ),
        tool(
            "gitlab__create_merge_request",
            "gitlab",
            "Create a new merge request in a GitLab project.",
        ),
        tool(
            "slack__post_message",
            "slack",
            "Post a new message to a Slack channel.",
        ),
        tool(
            "slack__list_channels",
            "slack",
            "List public channels in the workspace.",
        ),
        tool(
            "filesystem__read_file",
            "filesystem",
            "Read the complete contents of a file from the file system.",
        ),
        tool(
            "filesystem__move_file",
            "filesystem",
            "Move or rename files and directories.",
        ),
        tool(
            "k8s__list_pods",
            "kubernetes",
            "List pods in a namespace of the cluster.",
        ),
        tool(
            "stripe__create_refund",
            "stripe",
            "Refund a charge, in whole or in part.",
        ),
        tool(
            "time__get_current_time",
            "time",
            "Get the current time in a specific timezone.",
        )
        .core(true),
    ] {
        r.register(t).unwrap();
    }
    r
}

fn top(catalog: &Catalog, query: &str) -> String {
    catalog
        .search(query, &SearchOptions::default())
        .first()
        .map(|m| m.name.to_owned())
        .unwrap_or_default()
}

#[test]
fn finds_tools_from_a_users_words() {
    let catalog = Catalog::new(&registry());
    for (query, expected) in [
        (
            "open a PR for my feature branch",
            "github__create_pull_request",
        ),
        ("file a bug on github", "github__create_issue"),
        ("send a note to the #general chat", "slack__post_message"),
        ("which k8s pods are running", "k8s__list_pods"),
        ("rename a folder", "filesystem__move_file"),
        (
            "reimburse the customer for that order",
            "stripe__create_refund",
        ),
        ("merge request on gitlab", "gitlab__create_merge_request"),
    ] {
        assert_eq!(top(&catalog, query), expected, "{query}");
    }
    assert!(
        catalog
            .search("zzzz qqqq", &SearchOptions::default())
            .is_empty()
    );
}

#[test]
fn filters_by_domain_and_core() {
    let catalog = Catalog::new(&registry());
    let mut options = SearchOptions::limit(10);
    options.domain = Some("gitlab".into());
    let found = catalog.search("create a request", &options);
    assert!(found.iter().all(|m| m.domain == "gitlab"), "{found:?}");
    options.domain = None;
    options.include_core = false;
    let found = catalog.search("what time is it", &options);
    assert!(
        found.iter().all(|m| m.name != "time__get_current_time"),
        "{found:?}"
    );
}

#[test]
fn updates_incrementally() {
    let mut registry = registry();
    let mut catalog = Catalog::new(&registry);
    assert_eq!(catalog.len(), 11);
    assert!(catalog.remove("slack__post_message"));
    assert!(!catalog.remove("slack__post_message"));
    assert_ne!(
        top(&catalog, "post a message on slack"),
        "slack__post_message"
    );
    registry
        .register(tool(
            "email__send_email",
            "email",
            "Send an email to a recipient.",
        ))
        .unwrap();
    catalog.sync(&registry);
    assert_eq!(
        catalog.len(),
        12,
        "synced: the removed one is back, the new one added"
    );
    assert_eq!(top(&catalog, "mail my landlord"), "email__send_email");
    registry.unregister("email__send_email");
    catalog.sync(&registry);
    assert_eq!(catalog.len(), 11);
}

async fn search(executor: &Executor, input: Value) -> Result<Value, tool_core::ToolError> {
    executor
        .call("search_tools", input, &ToolContext::new())
        .await
        .map(|out| out.data().cloned().unwrap_or_default())
}

#[tokio::test]
async fn search_tools_returns_compact_matches_and_names_bad_input() {
    let mut registry = registry();
    tool_catalog::install(&mut registry).unwrap();
    let executor = Executor::new(registry);
    let found = search(&executor, json!({"query": "open a PR", "limit": 2}))
        .await
        .unwrap();
    let matches = found["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 2);
    assert_eq!(matches[0]["name"], "github__create_pull_request");
    assert_eq!(
        matches[0].as_object().unwrap().len(),
        3,
        "name, hint, domain only"
    );

    for (input, path, says) in [
        (json!({}), "query", "query"),
        (json!({"query": "the of and"}), "query", "no words"),
        (json!({"query": "pods", "limit": 0}), "limit", "1 to 20"),
        (json!({"query": "pods", "limit": 99}), "limit", "1 to 20"),
        (
            json!({"query": "pods", "domain": "mars"}),
            "domain",
            "the domains are",
        ),
        (
            json!({"query": "pods", "colour": "red"}),
            "colour",
            "colour",
        ),
    ] {
        let e = search(&executor, input.clone()).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{input}");
        assert!(e.to_string().contains(says), "{input}: {e}");
        assert!(
            e.path().is_some_and(|p| p.contains(path)) || e.to_string().contains(path),
            "{input}: {e}"
        );
    }
}

#[tokio::test]
async fn a_session_loads_what_searches_find() {
    let mut registry = registry();
    tool_catalog::install(&mut registry).unwrap();
    let mut session = ToolSession::new(&registry);
    assert_eq!(
        session.loaded_names(),
        ["search_tools", "time__get_current_time"]
    );
    let out = Executor::new(registry)
        .call(
            "search_tools",
            json!({"query": "list k8s pods", "limit": 1}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(session.observe("search_tools", &out), ["k8s__list_pods"]);
    assert!(
        session.observe("search_tools", &out).is_empty(),
        "loaded once"
    );
    assert!(
        session.observe("k8s__list_pods", &out).is_empty(),
        "only search results load"
    );

    let sent = session.render(
        Format::Anthropic,
        RenderOptions::default(),
        Deferral::Session,
    );
    let names: Vec<&str> = sent
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(
        sent.as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("defer_loading").is_none())
    );

    let native = session.render(
        Format::Anthropic,
        RenderOptions::default(),
        Deferral::Native,
    );
    let native = native.as_array().unwrap();
    assert_eq!(
        native.len(),
        session.tools().len(),
        "every tool, with Anthropic's tool search in place of ours"
    );
    assert!(native.iter().all(|t| t["name"] != "search_tools"));
    assert!(native.iter().any(|t| t["defer_loading"] == true));
}

#[test]
fn only_the_catalogs_search_tool_loads_tools() {
    // A tool of the same name that is not the catalog's: its output loads nothing.
    let mut registry = registry();
    registry
        .register(DynamicTool::new(
            "search_tools",
            "Not the catalog's.",
            json!({"type": "object"}),
        ))
        .unwrap();
    let mut session = ToolSession::new(&registry);
    let claims =
        tool_core::ToolOutput::new(json!({"matches": [{"name": "stripe__create_refund"}]}));
    assert!(session.observe("search_tools", &claims).is_empty());
    assert!(!session.is_loaded("stripe__create_refund"));
}
