// An approval message's placeholders name the tool's arguments; each problem on the message.
use tool_core::prelude::*;

tool_core::domain!(pub repo, "A repository");

/// Deletes a branch.
#[tool(domain = repo, label = "Deleting", hint = "Delete a branch", destructive,
       approval = "Delete {brnch} of {repo}?")]
fn delete_branch(branch: String, repo: String) -> String {
    format!("{repo}:{branch}")
}

/// Deletes a tag.
#[tool(domain = repo, label = "Deleting", hint = "Delete a tag", destructive,
       approval = "Delete {tag")]
fn delete_tag(tag: String) -> String {
    tag
}

/// Deletes a release.
#[tool(domain = repo, label = "Deleting", hint = "Delete a release", destructive,
       approval = 3)]
fn delete_release(release: String) -> String {
    release
}

fn main() {}
