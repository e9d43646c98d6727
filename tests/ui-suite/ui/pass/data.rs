// `#[tool_core::data]` on the types of a crate that depends on tool-core alone: no serde or
// schemars import, no `crate = ...` paths. Both ways, input only, output only; the type's own
// serde attributes and other derives kept; a framework's path to tool-core.
use serde_json::json;
use tool_core::prelude::*;

tool_core::domain!(pub notes, "Notes kept for the user");

/// How a note is marked.
#[tool_core::data]
#[derive(Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// Needs doing.
    Todo,
    /// Done.
    Done,
}

/// A note to add.
#[tool_core::data(input)]
#[serde(deny_unknown_fields)]
pub struct NewNote {
    /// The note's text.
    pub text: String,
    /// How it is marked.
    pub mark: Mark,
}

/// A note as kept.
#[tool_core::data(output)]
#[derive(Debug)]
pub struct Note {
    /// The note's number.
    pub id: u32,
    /// The note's text.
    pub text: String,
    /// How it is marked.
    pub mark: Mark,
}

/// Adds a note and returns it as kept.
#[tool(domain = notes, label = "Adding a note", hint = "Adds a note")]
fn add_note(#[input] note: NewNote) -> Note {
    Note { id: 1, text: note.text, mark: note.mark }
}

mod framework {
    pub use tool_core;
}

/// A type in a framework that re-exports tool-core under another path.
#[framework::tool_core::data(crate = "framework::tool_core")]
pub struct Elsewhere {
    /// A field.
    pub field: bool,
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = Registry::linked().unwrap();
    let executor = tool_core::Executor::new(registry);
    let registry = executor.registry();
    let tool = registry.get("add_note").unwrap();
    let schema = tool.input_schema();
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["properties"]["text"]["description"], "The note's text.");
    assert!(tool.output_schema().is_some());
    let input = json!({"text": "buy milk", "mark": "todo"});
    let out = rt.block_on(executor.call("add_note", input, &ToolContext::new())).unwrap();
    assert_eq!(out.data().unwrap(), &json!({"id": 1, "text": "buy milk", "mark": "todo"}));
    // Both ways: the enum round-trips.
    let mark: Mark = tool_core::__private::serde_json::from_value(json!("done")).unwrap();
    assert_eq!(tool_core::__private::serde_json::to_value(mark).unwrap(), json!("done"));
    let _ = tool_core::schemars::schema_for!(Elsewhere);
}
