//! The tools the official MCP conformance suite (`@modelcontextprotocol/conformance`) calls in
//! its server scenarios, written with `#[tool]` like any other tool, and served by the same
//! front end as `toolctl`:
//!
//! ```text
//! conformance-server serve --http 127.0.0.1:3001
//! ```
//!
//! `examples/tests/conformance.rs` runs the suite against it. `main` keeps the server `serve`
//! builds (`ToolArgs::on_server`), for the tool that changes its tools.

// Sampling is deprecated upstream (SEP-2577) but part of every protocol version clients speak
// today, and the suite tests it.
#![allow(deprecated)]

use serde_json::{Value, json};
use tool_core::context::LogLevel;
use tool_core::prelude::*;
use tool_core::prompt::{PromptContent, PromptMessage};
use tool_core::resource::{Blob, ResourceContent};
use tool_mcp::McpPeer;
use tool_mcp::rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ListRootsResult, SamplingMessage,
};

tool_core::domain!(conformance, "The tools the MCP conformance suite calls");

/// A 1x1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x01, 0x54, 0xa2, 0x4f, 0x5d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// Ten milliseconds of silence as a WAV file (8 kHz, mono, 16-bit).
fn wav() -> Vec<u8> {
    let samples = 80u32;
    let data_len = samples * 2;
    let mut wav = Vec::with_capacity(44 + data_len as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes()); // sample rate
    wav.extend_from_slice(&16000u32.to_le_bytes()); // byte rate
    wav.extend_from_slice(&2u16.to_le_bytes()); // block align
    wav.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    wav.resize(44 + data_len as usize, 0);
    wav
}

/// Returns a fixed line of text. Use it to test plain text results.
#[tool(domain = conformance, label = "Answering", hint = "A fixed line of text")]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1x1 PNG image. Use it to test image results.
#[tool(domain = conformance, label = "Drawing", hint = "A tiny PNG image")]
fn test_image_content() -> ToolOutput {
    ToolOutput::from_media(Media::image("image/png", PNG))
}

/// Returns a short silent WAV clip. Use it to test audio results.
#[tool(domain = conformance, label = "Recording", hint = "A short WAV clip")]
fn test_audio_content() -> ToolOutput {
    ToolOutput::from_media(Media::audio("audio/wav", wav()))
}

/// Returns a text document embedded as a resource. Use it to test embedded resources.
#[tool(domain = conformance, label = "Attaching", hint = "An embedded text resource")]
fn test_embedded_resource() -> ToolOutput {
    ToolOutput::from_media(Media::resource(
        "test://embedded-resource",
        "text/plain",
        b"This is an embedded resource content.".as_slice(),
    ))
}

/// Returns text, an image and a JSON resource together. Use it to test mixed results.
#[tool(domain = conformance, label = "Mixing", hint = "Text, an image and a resource")]
fn test_multiple_content_types() -> ToolOutput {
    ToolOutput::text("Multiple content types test:")
        .with_media(Media::image("image/png", PNG))
        .with_media(Media::resource(
            "test://mixed-content-resource",
            "application/json",
            json!({"test": "data", "value": 123})
                .to_string()
                .into_bytes(),
        ))
}

/// Logs three messages while it runs, then returns. Use it to test log notifications.
#[tool(domain = conformance, label = "Logging", hint = "Logs three messages")]
async fn test_tool_with_logging(ctx: &ToolContext) -> &'static str {
    for message in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ] {
        ctx.log(LogLevel::Info, message);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    "Logging test completed"
}

/// Always fails with the same message. Use it to test error results.
#[tool(domain = conformance, label = "Failing", hint = "Always fails")]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::failed(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress at 0, 50 and 100 percent, then returns. Use it to test progress.
#[tool(domain = conformance, label = "Progressing", hint = "Reports progress three times")]
async fn test_tool_with_progress(ctx: &ToolContext) -> &'static str {
    for done in [0, 50, 100] {
        ctx.progress(done, Some(100), format!("{done}% done"));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    "Progress test completed"
}

/// Asks the client's model to answer `prompt` (MCP sampling) and returns its answer. Use it to
/// test sampling.
#[tool(
    domain = conformance,
    label = "Asking the model",
    hint = "Asks the client's model a question",
    examples("A question" => r#"{"prompt": "Say hello"}"#),
)]
async fn test_sampling(
    #[ctx] client: McpPeer,
    #[arg(description = "What to ask the model")] prompt: String,
) -> Result<String, ToolError> {
    let message = SamplingMessage::user_text(prompt);
    let result = client
        .sample(CreateMessageRequestParams::new(vec![message], 100))
        .await?;
    let answer = serde_json::to_value(&result.message.content).unwrap_or_default();
    let text = answer["text"]
        .as_str()
        .map_or_else(|| answer.to_string(), str::to_owned);
    Ok(format!("LLM response: {text}"))
}

/// Sends the client an elicitation and returns how the user answered.
async fn elicit(client: McpPeer, request: Value) -> Result<String, ToolError> {
    let params: ElicitRequestParams =
        serde_json::from_value(request).map_err(ToolError::internal)?;
    let result = client.elicit(params).await?;
    Ok(format!(
        "User response: {}",
        serde_json::to_string(&result).unwrap_or_default()
    ))
}

/// Asks the user, through the client, for a username and an email (MCP elicitation) and
/// returns the answer. Use it to test elicitation.
#[tool(
    domain = conformance,
    label = "Asking the user",
    hint = "Asks the user for their details",
    examples("A request" => r#"{"message": "Please provide your information"}"#),
)]
async fn test_elicitation(
    #[ctx] client: McpPeer,
    #[arg(description = "What to tell the user")] message: String,
) -> Result<String, ToolError> {
    elicit(
        client,
        json!({
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "Your username"},
                    "email": {"type": "string", "description": "Your email address"},
                },
                "required": ["username", "email"],
            },
        }),
    )
    .await
}

/// Asks the user for fields that all have defaults (SEP-1034) and returns the answer. Use it to
/// test elicitation defaults.
#[tool(domain = conformance, label = "Asking with defaults", hint = "An elicitation with defaults")]
async fn test_elicitation_sep1034_defaults(#[ctx] client: McpPeer) -> Result<String, ToolError> {
    elicit(
        client,
        json!({
            "message": "Please review and update the form fields with defaults",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {"type": "string", "description": "User status",
                        "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "description": "Verification status",
                        "default": true},
                },
            },
        }),
    )
    .await
}

/// Asks the user to pick from five kinds of enum (SEP-1330) and returns the answer. Use it to
/// test enum elicitation.
#[tool(domain = conformance, label = "Asking to choose", hint = "An elicitation with enums")]
async fn test_elicitation_sep1330_enums(#[ctx] client: McpPeer) -> Result<String, ToolError> {
    let options = ["option1", "option2", "option3"];
    let titled: Vec<Value> = options
        .iter()
        .enumerate()
        .map(|(i, o)| json!({"const": o, "title": format!("Option {}", i + 1)}))
        .collect();
    elicit(
        client,
        json!({
            "message": "Please select options from the enum fields",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "untitledSingle": {"type": "string", "description": "Pick one", "enum": options},
                    "titledSingle": {"type": "string", "description": "Pick one", "oneOf": titled},
                    "legacyEnum": {"type": "string", "description": "Pick one", "enum": options,
                        "enumNames": ["Option 1", "Option 2", "Option 3"]},
                    "untitledMulti": {"type": "array", "description": "Pick some",
                        "items": {"type": "string", "enum": options}},
                    "titledMulti": {"type": "array", "description": "Pick some",
                        "items": {"anyOf": titled}},
                },
            },
        }),
    )
    .await
}

// ---------------------------------------------------------------------------------------------
// Protocol 2026-07-28: questions in an `InputRequiredResult`, under the keys the suite expects
// (`McpPeer::named`). Each asks everything before it reads an answer (`?`), so that the
// questions of one run go out together.

/// An elicitation for a form of one required field.
fn form(message: &str, field: &str, kind: &str) -> Result<ElicitRequestParams, ToolError> {
    serde_json::from_value(json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {field: {"type": kind}},
            "required": [field],
        },
    }))
    .map_err(ToolError::internal)
}

/// What a user typed in a form's `field`.
fn field(answer: &ElicitResult, field: &str) -> String {
    answer
        .content
        .as_ref()
        .and_then(|c| c.get(field))
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
        .unwrap_or_default()
}

/// A sampling request of one user message.
fn ask_model(text: &str, max_tokens: u32) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(text)], max_tokens)
}

/// The text of a sampling answer.
fn said(answer: &CreateMessageResult) -> String {
    answer
        .message
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

/// The roots a client gave, as `name (uri)` separated by commas.
fn roots(answer: &ListRootsResult) -> String {
    let roots: Vec<String> = answer
        .roots
        .iter()
        .map(|r| format!("{} ({})", r.name.as_deref().unwrap_or("unnamed"), r.uri))
        .collect();
    roots.join(", ")
}

/// Asks the user's name under `user_name` and greets them by it: what several scenarios call.
async fn greet_by_asking(client: &McpPeer) -> Result<String, ToolError> {
    let answer = client
        .named("user_name")
        .elicit(form("What is your name?", "name", "string")?)
        .await?;
    Ok(format!("Hello, {}!", field(&answer, "name")))
}

/// Asks the user's name (`user_name`) and greets them. Use it to test an elicitation in an
/// InputRequiredResult.
#[tool(domain = conformance, label = "Asking a name", hint = "Greets the user by name")]
async fn test_input_required_result_elicitation(
    #[ctx] client: McpPeer,
) -> Result<String, ToolError> {
    greet_by_asking(&client).await
}

/// Asks the client's model a question (`capital_question`) and returns its answer. Use it to
/// test sampling in an InputRequiredResult.
#[tool(domain = conformance, label = "Asking the model", hint = "Asks the client's model")]
async fn test_input_required_result_sampling(#[ctx] client: McpPeer) -> Result<String, ToolError> {
    let answer = client
        .named("capital_question")
        .sample(ask_model("What is the capital of France?", 100))
        .await?;
    Ok(format!("The model said: {}", said(&answer)))
}

/// Asks the client for its roots (`client_roots`) and lists them. Use it to test roots/list in
/// an InputRequiredResult.
#[tool(domain = conformance, label = "Asking for roots", hint = "Lists the client's roots")]
async fn test_input_required_result_list_roots(
    #[ctx] client: McpPeer,
) -> Result<String, ToolError> {
    let answer = client.named("client_roots").list_roots().await?;
    Ok(format!("Roots: {}", roots(&answer)))
}

/// Asks the user to confirm (`confirm`); the answer comes back with the sealed requestState,
/// which the server checks. Use it to test requestState.
#[tool(domain = conformance, label = "Confirming", hint = "Asks for a confirmation")]
async fn test_input_required_result_request_state(
    #[ctx] client: McpPeer,
) -> Result<String, ToolError> {
    let answer = client
        .named("confirm")
        .elicit(form("Please confirm", "ok", "boolean")?)
        .await?;
    Ok(format!(
        "state-ok: the requestState opened, and the answer was {}",
        field(&answer, "ok")
    ))
}

/// Asks the user's name, the model for a greeting and the client for its roots, all at once.
/// Use it to test several questions in one InputRequiredResult.
#[tool(domain = conformance, label = "Asking three things", hint = "Three questions at once")]
async fn test_input_required_result_multiple_inputs(
    #[ctx] client: McpPeer,
) -> Result<String, ToolError> {
    let name = client
        .named("user_name")
        .elicit(form("What is your name?", "name", "string")?)
        .await;
    let greeting = client
        .named("greeting")
        .sample(ask_model("Generate a greeting", 50))
        .await;
    let found = client.named("client_roots").list_roots().await;
    let (name, greeting, found) = (name?, greeting?, found?);
    Ok(format!(
        "{} {}; roots: {}",
        said(&greeting),
        field(&name, "name"),
        roots(&found)
    ))
}

/// Asks the user's name (`step1`), then their favourite colour (`step2`) in a second round.
/// Use it to test an InputRequiredResult over several rounds.
#[tool(domain = conformance, label = "Asking twice", hint = "Two questions, one after the other")]
async fn test_input_required_result_multi_round(
    #[ctx] client: McpPeer,
) -> Result<String, ToolError> {
    let name = client
        .named("step1")
        .elicit(form("Step 1: What is your name?", "name", "string")?)
        .await?;
    let color = client
        .named("step2")
        .elicit(form(
            "Step 2: What is your favorite color?",
            "color",
            "string",
        )?)
        .await?;
    Ok(format!(
        "{} likes {}",
        field(&name, "name"),
        field(&color, "color")
    ))
}

/// Asks for a confirmation whose sealed requestState a client must not change. Use it to test
/// that a tampered requestState is refused.
#[tool(domain = conformance, label = "Guarding state", hint = "Refuses a tampered requestState")]
async fn test_input_required_result_tampered_state(
    #[ctx] client: McpPeer,
) -> Result<String, ToolError> {
    let answer = client
        .named("confirm")
        .elicit(form("Please confirm", "ok", "boolean")?)
        .await?;
    Ok(format!("confirmed: {}", field(&answer, "ok")))
}

/// Asks only what the client declared it can answer: the model if it has sampling, the user if
/// it has elicitation. Use it to test that questions follow the client's capabilities.
#[tool(domain = conformance, label = "Asking what can be", hint = "Asks only what the client can answer")]
async fn test_input_required_result_capabilities(
    #[ctx] client: McpPeer,
) -> Result<String, ToolError> {
    let declared = client.client_capabilities().unwrap_or_default();
    let mut answers = Vec::new();
    let sampled = match declared.sampling {
        Some(_) => Some(
            client
                .named("capital_question")
                .sample(ask_model("What is the capital of France?", 100))
                .await,
        ),
        None => None,
    };
    let elicited = match declared.elicitation {
        Some(_) => Some(
            client
                .named("user_name")
                .elicit(form("What is your name?", "name", "string")?)
                .await,
        ),
        None => None,
    };
    if let Some(sampled) = sampled {
        answers.push(format!("the model said {}", said(&sampled?)));
    }
    if let Some(elicited) = elicited {
        answers.push(format!("the user is {}", field(&elicited?, "name")));
    }
    if answers.is_empty() {
        return Ok("the client can be asked nothing, so nothing was asked".to_owned());
    }
    Ok(answers.join("; "))
}

mod schema_tool {
    use tool_core::prelude::*;

    use super::conformance;

    /// A postal address.
    #[tool_core::data(input)]
    #[schemars(rename = "address", extend("$anchor" = "addressDef"))]
    pub struct Address {
        /// Street and number.
        pub street: Option<String>,
        /// City.
        pub city: Option<String>,
    }

    /// How to reach a person.
    #[tool_core::data(input)]
    #[derive(Debug)]
    #[serde(rename_all = "lowercase")]
    pub enum ContactMethod {
        /// By phone.
        Phone,
        /// By email.
        Email,
    }

    /// A person, where they live and how to reach them: a phone or an email, and the one their
    /// contact method names.
    #[tool_core::data(input)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    #[schemars(extend(
        "allOf" = [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if" = {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then" = {"required": ["phone"]},
        "else" = {"required": ["email"]},
    ))]
    pub struct Person {
        /// The person's name.
        pub name: Option<String>,
        /// Where they live.
        pub address: Option<Address>,
        /// How they like to be reached.
        pub contact_method: Option<ContactMethod>,
        /// Their phone number.
        pub phone: Option<String>,
        /// Their email address.
        pub email: Option<String>,
    }

    /// Returns the name, address and contact it was given, on one line. Use it to test JSON
    /// Schema 2020-12 input schemas (`$defs` with `$anchor`, `$ref`, `allOf`/`anyOf`,
    /// `if`/`then`/`else`, `additionalProperties: false`).
    // An MCP-only tool: the suite requires keywords that OpenAI, Anthropic and Gemini refuse at
    // the root of a schema, which `check` (rightly) reports, so it is not asked to.
    #[tool(
        domain = conformance,
        label = "Reading a schema",
        hint = "Takes a 2020-12 schema input",
        check = false
    )]
    fn json_schema_2020_12_tool(#[input] person: Person) -> String {
        let address = person
            .address
            .map(|a| [a.street, a.city])
            .unwrap_or_default();
        let parts: Vec<String> = std::iter::once(person.name)
            .chain(address)
            .chain([person.phone, person.email])
            .flatten()
            .chain(
                person
                    .contact_method
                    .map(|m| format!("{m:?}").to_lowercase()),
            )
            .collect();
        parts.join(", ")
    }
}

// ---------------------------------------------------------------------------------------------
// The diagnostic tools of the stateless scenario (`server-stateless`).

/// Asks the client's model something, which needs the sampling capability: a client that did
/// not declare it gets the protocol error -32021. Use it to test capability checks.
#[tool(domain = conformance, label = "Needing sampling", hint = "Needs the client's sampling")]
async fn test_missing_capability(#[ctx] client: McpPeer) -> Result<String, ToolError> {
    let answer = client
        .named("needs_sampling")
        .sample(ask_model("Say hello", 20))
        .await?;
    Ok(said(&answer))
}

/// Asks the user a question, which in 2026-07-28 comes back in the result, never as a request
/// on the response stream. Use it to test what a stateless response stream carries.
#[tool(domain = conformance, label = "Asking on a stream", hint = "Asks the user a question")]
async fn test_streaming_elicitation(#[ctx] client: McpPeer) -> Result<String, ToolError> {
    greet_by_asking(&client).await
}

/// Logs three messages, sent only to a client that asked for a log level. Use it to test that
/// no log goes to a request without one.
#[tool(domain = conformance, label = "Logging", hint = "Logs three messages")]
async fn test_logging_tool(ctx: &ToolContext) -> &'static str {
    for message in ["first", "second", "third"] {
        ctx.log(LogLevel::Info, message);
    }
    "Logged three messages"
}

// ---------------------------------------------------------------------------------------------
// The Tasks extension's scenarios (`tasks-*`). The suite expects these calls to be tasks at
// once (`task_after = "0s"`), but `test_tool_with_task`, which asks before it becomes one.

/// Greets someone by name. Use it to test a call that is never a task.
#[tool(domain = conformance, label = "Greeting", hint = "Says hello", name = "greet")]
fn greet_someone(#[arg(description = "Who to greet")] name: String) -> String {
    format!("Hello, {name}!")
}

/// Waits `seconds` and returns that it is done; cancelled if its task is. Use it to test
/// tasks that run for a while.
#[tool(domain = conformance, label = "Computing", hint = "A slow computation", task, task_after = "0s")]
async fn slow_compute(
    #[arg(description = "How long the computation takes, in seconds (0 for at once)")] seconds: f64,
    #[arg(description = "A name for the computation, echoed in the result")] label: Option<String>,
) -> Result<String, ToolError> {
    if !(0.0..=600.0).contains(&seconds) {
        return Err(ToolError::invalid_input("from 0 to 600 seconds").with_path("seconds"));
    }
    tokio::time::sleep(std::time::Duration::from_secs_f64(seconds)).await;
    let label = label.unwrap_or_else(|| "computation".to_owned());
    Ok(format!("{label}: computed after {seconds} seconds"))
}

/// Fails after about a second, in its own terms (a tool error, not a protocol error). Its
/// calls must be tasks. Use it to test required tasks and a task that completes with an error.
#[tool(domain = conformance, label = "Failing", hint = "A job that fails", task = "required", task_after = "0s")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    Err(ToolError::failed("the job failed, as it always does"))
}

/// Panics, which fails its task with a protocol error. Use it to test a failed task.
#[tool(domain = conformance, label = "Breaking", hint = "A job that breaks", task, task_after = "0s")]
async fn protocol_error_job() -> String {
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    panic!("the job broke")
}

/// Asks the user to confirm a deletion, then reports what they said. Use it to test a task
/// waiting for input.
#[tool(domain = conformance, label = "Confirming a deletion", hint = "Asks before deleting", task, task_after = "0s")]
async fn confirm_delete(
    #[ctx] client: McpPeer,
    #[arg(description = "The file to delete")] filename: String,
) -> Result<String, ToolError> {
    let answer = client
        .named("confirm")
        .elicit(form(&format!("Delete {filename}?"), "confirm", "boolean")?)
        .await?;
    Ok(format!("{filename}: confirm {}", field(&answer, "confirm")))
}

/// Asks the user two things at once. Use it to test a task waiting for two answers.
#[tool(domain = conformance, label = "Asking two things", hint = "Two questions at once", task, task_after = "0s")]
async fn multi_input(#[ctx] client: McpPeer) -> Result<String, ToolError> {
    let name = client
        .named("name")
        .elicit(form("What is your name?", "name", "string")?)
        .await;
    let color = client
        .named("color")
        .elicit(form("What is your favorite color?", "color", "string")?)
        .await;
    let (name, color) = (name?, color?);
    Ok(format!(
        "{} likes {}",
        field(&name, "name"),
        field(&color, "color")
    ))
}

/// Asks the user's name (`user_name`), then greets them in a task. Its calls must be tasks.
/// Use it to test input gathered before a task.
#[tool(domain = conformance, label = "Greeting in a task", hint = "Asks, then works as a task", task = "required")]
async fn test_tool_with_task(#[ctx] client: McpPeer) -> Result<String, ToolError> {
    greet_by_asking(&client).await
}

mod header_tool {
    use tool_core::prelude::*;

    use super::conformance;

    /// A lookup routed by region.
    #[tool_core::data(input)]
    #[serde(deny_unknown_fields)]
    pub struct Lookup {
        /// The region the request is routed to, also sent as the `Mcp-Param-Region` header.
        #[schemars(extend("x-mcp-header" = "Region"))]
        pub region: String,
        /// What to look up.
        pub query: Option<String>,
    }

    /// Returns the region and query it was given. Use it to test `Mcp-Param-*` headers, which
    /// the server checks against the body.
    #[tool(domain = conformance, label = "Looking up", hint = "A lookup routed by region")]
    fn look_up_region(#[input] lookup: Lookup) -> String {
        format!(
            "{}: {}",
            lookup.region,
            lookup.query.unwrap_or_else(|| "everything".to_owned())
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Resources and prompts the suite reads (`resources-*`, `prompts-*`, `completion-complete`,
// `caching`, `input-required-result-non-tool-request`).

/// A fixed text. Use it to test reading a text resource.
#[resource(
    uri = "test://static-text",
    title = "Static text",
    mime_type = "text/plain"
)]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A 1x1 PNG image. Use it to test reading a binary resource.
#[resource(
    uri = "test://static-binary",
    title = "Static image",
    mime_type = "image/png"
)]
fn static_binary() -> Blob {
    Blob(PNG.to_vec())
}

/// The data of one record, by its id, as JSON. Use it to test resource templates.
#[resource(uri = "test://template/{id}/data", mime_type = "application/json")]
fn template_data(#[arg(complete = record_ids)] id: String) -> Value {
    // Written by hand so the keys keep the order the suite shows.
    json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") })
}

/// The ids `template_data` knows, for completion.
fn record_ids(typed: &str) -> Vec<String> {
    starting_with(typed, &["123", "124", "200"])
}

/// A resource whose changes are announced (`resources/subscribe`); `test_update_resource`
/// changes it.
#[resource(uri = "test://watched-resource", mime_type = "text/plain")]
fn watched_resource() -> String {
    format!(
        "version {}",
        WATCHED.load(std::sync::atomic::Ordering::Relaxed)
    )
}

static WATCHED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Changes `test://watched-resource` and tells the clients that subscribed to it. Use it to
/// test resource subscriptions.
#[tool(domain = conformance, label = "Changing a resource", hint = "Updates the watched resource")]
fn test_update_resource() -> Result<String, ToolError> {
    let server = SERVER
        .get()
        .ok_or_else(|| ToolError::unavailable("this tool works only under `serve`"))?;
    let version = WATCHED.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    server.resource_updated("test://watched-resource");
    Ok(format!("test://watched-resource is at version {version}"))
}

/// A fixed message. Use it to test getting a prompt without arguments.
#[prompt(title = "Simple prompt")]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A message that quotes its two arguments. Use it to test prompt arguments.
#[prompt]
fn test_prompt_with_arguments(
    #[arg(description = "First test argument", complete = places)] arg1: String,
    #[arg(description = "Second test argument")] arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// Words for completing `arg1`.
fn places(typed: &str) -> Vec<String> {
    starting_with(typed, &["paris", "park", "party", "london", "lisbon"])
}

fn starting_with(typed: &str, words: &[&str]) -> Vec<String> {
    words
        .iter()
        .filter(|w| w.starts_with(typed))
        .map(|w| (*w).to_owned())
        .collect()
}

/// A resource embedded in a message, then a request to process it. Use it to test embedded
/// resources in prompts.
#[prompt]
fn test_prompt_with_embedded_resource(
    #[arg(rename = "resourceUri", description = "URI of the resource to embed")] uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(
            ResourceContent::text("Embedded resource content for testing.")
                .with_uri(uri)
                .with_mime_type("text/plain"),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// An image, then a request to analyze it. Use it to test images in prompts.
#[prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(PromptContent::image("image/png", PNG)),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// Asks the user for context (`user_context`), then writes a message with it. Use it to test
/// an InputRequiredResult on `prompts/get`.
#[prompt]
async fn test_input_required_result_prompt(#[ctx] client: McpPeer) -> Result<String, ToolError> {
    let answer = client
        .named("user_context")
        .elicit(form(
            "What context should the prompt use?",
            "context",
            "string",
        )?)
        .await?;
    Ok(format!(
        "Write with this context in mind: {}",
        field(&answer, "context")
    ))
}

/// Ends the call's SSE stream mid-call (SEP-1699), then answers: the client reconnects with
/// `Last-Event-ID` and gets the answer on the resumed stream. Use it to test SSE polling.
#[tool(domain = conformance, label = "Reconnecting", hint = "Closes its stream, then answers")]
async fn test_reconnection(#[ctx] stream: tool_mcp::CallStream) -> String {
    let closed = stream.close();
    // The answer comes after the stream has ended, as a long call's would.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    if closed {
        "Reconnected: this answer came on the resumed stream".to_owned()
    } else {
        "This call had no stream to close; the answer came on the call's own".to_owned()
    }
}

// ---------------------------------------------------------------------------------------------
// A tool that changes the server's tools (`server-stateless`: a changed list is announced on
// the client's subscription stream).

/// The server `serve` built, kept by `main`'s hook.
static SERVER: std::sync::OnceLock<tool_mcp::McpServer> = std::sync::OnceLock::new();

/// Adds a tool to this server, or takes away the one it added, so that the tool list changes
/// and clients are told. Use it to test list-changed notifications.
#[tool(domain = conformance, label = "Changing the tools", hint = "Adds or removes a tool")]
fn test_trigger_tool_change() -> Result<String, ToolError> {
    const ADDED: &str = "test_added_tool";
    let server = SERVER
        .get()
        .ok_or_else(|| ToolError::unavailable("this tool works only under `serve`"))?;
    server.update(|registry| {
        if registry.unregister(ADDED) {
            return Ok(format!("removed {ADDED}"));
        }
        let added = tool_core::registry::DynamicTool::new(
            ADDED,
            "Returns nothing; added at run time.",
            json!({"type": "object"}),
        )
        .domain("conformance", "The tools the MCP conformance suite calls")
        .handler(|_, _| async { Ok(ToolOutput::new(json!("added"))) });
        registry.register(added).map_err(ToolError::internal)?;
        Ok(format!("added {ADDED}"))
    })
}

/// Adds a prompt to this server, or takes away the one it added, so that the prompt list
/// changes and clients are told. Use it to test prompt list-changed notifications.
#[tool(domain = conformance, label = "Changing the prompts", hint = "Adds or removes a prompt")]
fn test_trigger_prompt_change() -> Result<String, ToolError> {
    const ADDED: &str = "test_added_prompt";
    let server = SERVER
        .get()
        .ok_or_else(|| ToolError::unavailable("this tool works only under `serve`"))?;
    server.update(|registry| {
        if registry.remove_prompt(ADDED) {
            return Ok(format!("removed {ADDED}"));
        }
        let added = tool_core::prompt::Prompt::new(
            ADDED,
            "A prompt added at run time.",
            [],
            |_, _| async { Ok(tool_core::prompt::PromptReply::user("Added at run time.")) },
        )
        .map_err(ToolError::internal)?;
        registry.add_prompt(added).map_err(ToolError::internal)?;
        Ok(format!("added {ADDED}"))
    })
}

fn main() -> std::process::ExitCode {
    tool_cli::main!(|args| {
        args.on_server(|server| {
            let _ = SERVER.set(server.clone());
        })
    })
}
