//! The tags protocol end to end without a model: documentation for the system prompt, calls
//! found in streamed text, inputs mapped onto schemas (and every mistake named), calls run by
//! the executor, results written back as tags.

use serde_json::json;
use tool_agent::protocol::{Event, TagCall, TagParser, prompt_docs, result_tag};
use tool_core::exec::{Executor, ToolCall};
use tool_core::prelude::*;
use tool_core::{Registry, ToolContext, ToolOutput, error::ErrorKind, registry::DynamicTool};

tool_core::domain!(pub notes, "Notes kept for the user");

/// Saves a note under a title and returns how many characters it holds.
#[tool(domain = notes, label = "Saving the note", hint = "Saves a note")]
fn save_note(
    #[arg(description = "Title of the note")] title: String,
    #[arg(description = "The note's text", rename = "text", body)] content: String,
) -> usize {
    title.len() + content.chars().count()
}

/// `#[arg(body)]` on a linked tool: the text between the tags fills the renamed parameter.
#[tokio::test]
async fn a_linked_tools_body_parameter_takes_the_text_between_the_tags() {
    let registry = Registry::linked().unwrap();
    let tool = registry.get("save_note").unwrap();
    assert_eq!(tool.body_param(), Some("text"));
    let mut parser = TagParser::new(["save_note"]);
    let events = parser.feed("Saving it. <save_note title=\"abc\">two\nlines</save_note>");
    let call = events
        .iter()
        .find_map(|e| match e {
            Event::Call(call) => Some(call),
            _ => None,
        })
        .expect("a call");
    let input = call.to_input(tool).unwrap();
    assert_eq!(input, json!({"title": "abc", "text": "two\nlines"}));
    let out = Executor::new(Registry::linked().unwrap())
        .call("save_note", input, &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.echo(), "12");
}

fn registry() -> Registry {
    let mut r = Registry::empty();
    r.register(
        DynamicTool::new(
            "get_weather",
            "Returns the weather for a city.",
            json!({"type": "object", "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer", "default": 1, "description": "How many days"},
                "metric": {"type": "boolean"},
                "hours": {"type": "array", "items": {"type": "integer"}}
            }, "required": ["city"]}),
        )
        .example("Paris for two days", json!({"city": "Paris", "days": 2}))
        .handler(|input, _| async move { Ok(ToolOutput::new(input)) }),
    )
    .unwrap();
    r.register(
        DynamicTool::new(
            "write_note",
            "Saves a note.",
            json!({"type": "object", "properties": {
                "title": {"type": "string"}, "text": {"type": "string"}
            }, "required": ["title", "text"]}),
        )
        .body("text")
        .handler(|input, _| async move {
            Ok(ToolOutput::text(format!("saved {}", input["title"])))
        }),
    )
    .unwrap();
    r
}

fn calls(text: &str, chunk: usize) -> Vec<TagCall> {
    let mut parser = TagParser::new(registry().tools().iter().map(|t| t.name().to_owned()));
    let mut events = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(chunk) {
        events.extend(parser.feed(&piece.iter().collect::<String>()));
    }
    events.extend(parser.finish());
    events
        .into_iter()
        .filter_map(|e| match e {
            Event::Call(c) => Some(c),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn tags_in_streamed_text_run_as_calls_and_come_back_as_result_tags() {
    let registry = registry();
    let text = "Sure. <get_weather city=\"Paris\" days=\"3\" metric=\"true\" hours='[9, 12]'/>\n\
                <write_note title=\"Trip\"><![CDATA[Pack <umbrella> & boots]]></write_note>\n\
                <get_weather><city>Oslo</city></get_weather>";
    let found = calls(text, 5);
    assert_eq!(found.len(), 3);
    let executor = Executor::new(registry);
    let batch: Vec<ToolCall> = found
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let input = c
                .to_input(executor.registry().get(&c.name).unwrap())
                .unwrap();
            ToolCall::new(format!("t{i}"), c.name.clone(), input)
        })
        .collect();
    let results = executor.call_batch(batch, &ToolContext::new()).await;
    assert_eq!(
        results[0].as_ref().unwrap().data(),
        Some(&json!({"city": "Paris", "days": 3, "metric": true, "hours": [9, 12]}))
    );
    assert_eq!(
        result_tag("write_note", &results[1]),
        "<tool_result name=\"write_note\">saved \"Trip\"</tool_result>"
    );
    assert_eq!(
        results[2].as_ref().unwrap().data(),
        Some(&json!({"city": "Oslo"}))
    );
}

#[test]
fn mistakes_are_named_so_the_model_can_fix_them() {
    let registry = registry();
    let weather = registry.get("get_weather").unwrap();
    for (text, says) in [
        (
            "<get_weather city=\"Paris\" day=\"3\"/>",
            "no parameter `day`",
        ),
        (
            "<get_weather city=\"Paris\" days=\"three\"/>",
            "`days` must be integer",
        ),
        (
            "<get_weather city=\"Paris\" metric=\"yes\"/>",
            "true or false",
        ),
        ("<get_weather city=\"Paris\" hours=\"9,12\"/>", "JSON"),
        (
            "<get_weather city=\"A\"><city>B</city></get_weather>",
            "given twice",
        ),
        (
            "<get_weather city=\"Paris\">sunny?</get_weather>",
            "takes no text between its tags",
        ),
    ] {
        let call = &calls(text, 100)[0];
        let e = call.to_input(weather).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{text}");
        assert!(e.to_string().contains(says), "{text}: {e}");
    }
    let note = registry.get("write_note").unwrap();
    let call = &calls("<write_note title=\"a\" text=\"b\">c</write_note>", 100)[0];
    assert!(
        call.to_input(note)
            .unwrap_err()
            .to_string()
            .contains("both as the body")
    );
}

#[test]
fn prompt_docs_teach_every_tool() {
    let registry = registry();
    let docs = prompt_docs(registry.tools());
    assert!(docs.contains("<tool_name param=\"value\"/>"));
    assert!(docs.contains("## get_weather"));
    assert!(docs.contains("- city (string, required): City name"));
    assert!(docs.contains("- days (integer, optional, default 1): How many days"));
    assert!(docs.contains("Example, Paris for two days: <get_weather city=\"Paris\" days=\"2\"/>"));
    assert!(docs.contains("- text (string, required, the body)"));
    // The documented example parses back to the example's input.
    let call = &calls("<get_weather city=\"Paris\" days=\"2\"/>", 3)[0];
    assert_eq!(
        call.to_input(registry.get("get_weather").unwrap()).unwrap(),
        json!({"city": "Paris", "days": 2})
    );
}
