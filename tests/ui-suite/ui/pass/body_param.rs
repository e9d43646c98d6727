// `#[arg(body)]`: the text between a tag call's tags fills this parameter (the text tag protocol).
use tool_core::prelude::*;
use tool_core::protocol::{Event, TagParser};

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
    let executor = tool_core::Executor::new(registry.clone());
    let tool = registry.get("save_note").unwrap();
    assert_eq!(tool.body_param(), Some("text"));

    let mut parser = TagParser::new(["save_note"]);
    let events = parser.feed(r#"Saving it. <save_note title="abc">two
lines</save_note>"#);
    let call = events
        .iter()
        .find_map(|e| match e {
            Event::Call(call) => Some(call),
            _ => None,
        })
        .unwrap();
    let input = call.to_input(tool).unwrap();
    assert_eq!(input, serde_json::json!({"title": "abc", "text": "two\nlines"}));

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let out = rt.block_on(executor.call("save_note", input, &ToolContext::new())).unwrap();
    assert_eq!(out.echo(), "12");
}
