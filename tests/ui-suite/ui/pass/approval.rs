// `approval` alone, with a message whose placeholders are arguments (a renamed one by its
// name in the input), and `approval = false`: what the registry then holds.
use tool_core::prelude::*;

tool_core::domain!(pub repo, "A repository");

/// Deletes a branch.
#[tool(domain = repo, label = "Deleting", hint = "Delete a branch", destructive,
       approval = "Delete {branch} of {repository} ({{forever}})?")]
fn delete_branch(branch: String, #[arg(rename = "repository")] repo: String) -> String {
    format!("{repo}:{branch}")
}

/// Deletes a tag.
#[tool(domain = repo, label = "Deleting", hint = "Delete a tag", destructive, approval)]
fn delete_tag(tag: String) -> String {
    tag
}

/// Lists the tags.
#[tool(domain = repo, label = "Listing", hint = "List tags", approval = false)]
fn list_tags() -> Vec<String> {
    Vec::new()
}

fn main() {
    let registry = Registry::linked().unwrap();
    let message = |name: &str| {
        registry
            .get(name)
            .unwrap()
            .approval()
            .map(|a| a.message().map(str::to_owned))
    };
    assert_eq!(
        message("delete_branch"),
        Some(Some("Delete {branch} of {repository} ({{forever}})?".to_owned()))
    );
    assert_eq!(message("delete_tag"), Some(None));
    assert_eq!(message("list_tags"), None);
    let tool = registry.get("delete_branch").unwrap();
    let shown = tool_core::exec::approval_message(
        tool,
        &serde_json::json!({"branch": "main", "repository": "tools"}),
    );
    assert_eq!(shown, "Delete main of tools ({forever})?");
}
