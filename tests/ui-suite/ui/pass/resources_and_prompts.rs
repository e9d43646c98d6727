// Resources (plain, template, binary, async, fallible, with context values) and prompts
// (required and optional arguments, renamed, completed, several messages), read and got
// through the executor.
use tool_core::prelude::*;
use tool_core::prompt::{PromptArgs, PromptContent, PromptMessage};
use tool_core::resource::{Blob, Body};

/// Today's notes.
#[resource(uri = "notes://today", title = "Today", mime_type = "text/markdown")]
fn today_notes() -> &'static str {
    "# Today"
}

/// One day's notes.
#[resource(uri = "notes://days/{day}", scopes("notes:read"))]
async fn day_notes(#[arg(complete = days)] day: String, ctx: &ToolContext) -> Result<String, ToolError> {
    let _ = ctx.principal();
    Ok(format!("# {day}"))
}

/// A part of a file, by its camelCase name.
#[resource(uri = "files://{fileName}/{part}")]
fn file_part(#[arg(rename = "fileName")] file: String, part: String) -> serde_json::Value {
    serde_json::json!({ "file": file, "part": part })
}

/// The logo.
#[resource(uri = "assets://logo.png", mime_type = "image/png", name = "logo")]
fn logo_png() -> Blob {
    Blob(vec![0x89, b'P', b'N', b'G'])
}

fn days(typed: &str) -> Vec<String> {
    ["2026-12-04", "2026-12-05"].into_iter().filter(|d| d.starts_with(typed)).map(String::from).collect()
}

/// Asks for a review.
#[prompt(title = "Review", name = "review")]
fn review_code(
    #[arg(description = "The code", complete = days)] code: String,
    #[arg(rename = "styleName")] style: Option<String>,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(format!("{code} {}", style.unwrap_or_default())),
        PromptMessage::assistant(PromptContent::image("image/png", vec![1, 2, 3])),
    ]
}

/// Greets.
#[prompt]
async fn greet_person(name: String) -> Result<String, ToolError> {
    Ok(format!("Greet {name}"))
}

fn main() {
    let registry = Registry::linked().unwrap();
    assert_eq!(registry.resources().len(), 4);
    let review = registry.prompt("review").unwrap();
    assert_eq!(review.arguments()[1].name, "styleName");
    assert!(review.arguments()[0].required && !review.arguments()[1].required);
    let executor = Executor::new(registry);
    let ctx = ToolContext::default();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let read = executor.read_resource("files://a.txt/head", &ctx).await.unwrap();
        assert_eq!(read[0].body, Body::Text(r#"{"file":"a.txt","part":"head"}"#.to_owned()));
        assert_eq!(read[0].mime_type.as_deref(), Some("application/json"));
        let args: PromptArgs = [("name", "Ada")].into_iter().collect();
        let reply = executor.get_prompt("greet_person", args, &ctx).await.unwrap();
        assert_eq!(reply.messages[0].content, PromptContent::Text("Greet Ada".to_owned()));
        // Scoped: refused to a caller without the scope.
        let guest = ToolContext::builder().principal("guest").build();
        assert!(executor.read_resource("notes://days/2026-12-05", &guest).await.is_err());
    });
}
