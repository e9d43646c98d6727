// `#[arg(body)]`: the text between a tag call's tags fills this parameter (the text tag protocol,
// `tool_agent::protocol`, whose tests parse a call to a tool like this one).
use tool_core::prelude::*;

tool_core::domain!(pub notes, "Notes kept for the user");

/// Saves a note under a title and returns how many characters it holds.
#[tool(domain = notes, label = "Saving the note", hint = "Saves a note")]
fn save_note(
    #[arg(description = "Title of the note")] title: String,
    #[arg(description = "The note's text", rename = "text", body)] content: String,
) -> usize {
    title.len() + content.chars().count()
}

fn main() {
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let tool = registry.get("save_note").unwrap();
    assert_eq!(tool.body_param(), Some("text"));

    let input = serde_json::json!({"title": "abc", "text": "two\nlines"});

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let out = rt.block_on(executor.call("save_note", input, &ToolContext::new())).unwrap();
    assert_eq!(out.echo(), "12");
}
