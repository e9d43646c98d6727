// Every #[tool] key, and the defaults when none is given.
use std::time::Duration;

use serde_json::json;
use tool_core::prelude::*;
use tool_core::definition::Annotations;

tool_core::domain!(pub demo, "Demo tools");

/// Deletes a record by id.
#[tool(
    domain = demo,
    label = "Deleting a record",
    hint = "Deletes one record",
    name = "delete_record",
    core,
    read_only = false,
    destructive,
    idempotent,
    open_world,
    voiced,
    task,
    feeds_back = false,
    timeout = 30s,
    retries = 3,
    scopes("records:write", "records:delete"),
    source = "https://app.example.com/records",
    examples(
        "Delete record 7" => r#"{"id": 7}"#,
        "Delete record 8, forcing" => r#"{"id": 8, "force": true}"#,
    ),
)]
async fn remove(id: u32, force: Option<bool>) -> String {
    format!("deleted {id}{}", if force == Some(true) { " (forced)" } else { "" })
}

/// Appends a line to a log.
#[tool(domain = demo, label = "Writing", hint = "Appends a line", destructive, blocking, timeout = "500ms")]
fn append_line(line: String) -> usize {
    line.len()
}

/// Sends a message.
#[tool(domain = demo, label = "Sending", hint = "Sends a message", read_only = false, core = false, task = false, timeout = 2m, retries = 0)]
fn send_message(text: String) -> usize {
    text.len()
}

/// Reads a value.
#[tool(domain = demo, label = "Reading", hint = "Reads a value")]
fn read_value() -> u8 {
    1
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();

    // `name` overrides the function's name.
    assert!(registry.get("remove").is_none());
    let t = registry.get("delete_record").unwrap();
    assert!(t.is_core());
    assert_eq!(
        t.annotations(),
        Annotations::READ_ONLY.read_only(false).destructive(true).idempotent(true).open_world(true)
    );
    assert!(t.voiced());
    assert!(t.task());
    assert!(!t.feeds_back());
    assert_eq!(t.timeout(), Some(Duration::from_secs(30)));
    assert_eq!(t.retries(), 3);
    assert_eq!(t.scopes(), ["records:write", "records:delete"]);
    assert_eq!(t.source(), Some("https://app.example.com/records"));
    let examples: Vec<_> = t.examples().iter().map(|e| (&*e.label, e.input.clone())).collect();
    assert_eq!(
        examples,
        [
            ("Delete record 7", json!({"id": 7})),
            ("Delete record 8, forcing", json!({"id": 8, "force": true})),
        ]
    );
    let out = rt
        .block_on(executor.call("delete_record", json!({"id": 7}), &ToolContext::new()))
        .unwrap();
    assert_eq!(out.echo(), "deleted 7");

    // destructive alone: not read-only, not idempotent.
    let t = registry.get("append_line").unwrap();
    assert_eq!(
        t.annotations(),
        Annotations::READ_ONLY.read_only(false).destructive(true).idempotent(false).open_world(false)
    );
    assert_eq!(t.timeout(), Some(Duration::from_millis(500)));
    assert!(t.is_blocking());

    // read_only = false alone: not destructive, not idempotent.
    let t = registry.get("send_message").unwrap();
    assert_eq!(
        t.annotations(),
        Annotations::READ_ONLY.read_only(false).destructive(false).idempotent(false).open_world(false)
    );
    assert!(!t.is_core());
    assert!(!t.task());
    assert_eq!(t.timeout(), Some(Duration::from_secs(120)));
    assert_eq!(t.retries(), 0);

    // The defaults.
    let t = registry.get("read_value").unwrap();
    assert!(!t.is_core());
    assert_eq!(t.annotations(), Annotations::READ_ONLY);
    assert!(!t.voiced());
    assert!(!t.is_blocking());
    assert!(!t.task());
    assert!(t.feeds_back());
    assert_eq!(t.timeout(), None);
    assert_eq!(t.retries(), 0);
    assert!(t.scopes().is_empty());
    assert_eq!(t.source(), None);
    assert!(t.examples().is_empty());

    let core: Vec<_> = registry.core().map(|t| t.name()).collect();
    assert_eq!(core, ["delete_record"]);
    assert_eq!(registry.deferred().count(), 3);
}
