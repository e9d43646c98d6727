//! The two wire formats the harness speaks: OpenAI-compatible Chat Completions and Anthropic
//! Messages, both streamed as Server-Sent Events.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use futures::StreamExt as _;
use serde_json::{Value, json};

use super::error::AgentError;
use tool_core::render::Format;

/// Where the model is and how to reach it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProviderConfig {
    /// The API's base URL, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// The model's name.
    pub model: String,
    /// The API key, when the provider needs one.
    pub api_key: Option<String>,
    /// Most tokens per answer (Anthropic requires it). Default 4096.
    pub max_tokens: u32,
}

impl ProviderConfig {
    /// A model at a base URL.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            max_tokens: 4096,
        }
    }

    /// Sets the API key.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }
}

/// Which API a base URL speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provider {
    /// `POST {base}/chat/completions` (OpenAI, and Ollama, vLLM, llama.cpp servers).
    OpenAi,
    /// `POST {base}/messages` (Anthropic).
    Anthropic,
}

impl std::str::FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "openai" => Ok(Self::OpenAi),
            "anthropic" => Ok(Self::Anthropic),
            other => Err(format!(
                "`{other}` is not a provider; use openai or anthropic"
            )),
        }
    }
}

/// A tool call a model made, with its arguments as the model wrote them (JSON text, perhaps
/// malformed: the executor says what is wrong).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelCall {
    /// The provider's id for the call.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as text.
    pub arguments: String,
}

/// One model response, assembled from its stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    /// The text the model wrote.
    pub text: String,
    /// The tool calls, in order.
    pub calls: Vec<ModelCall>,
}

impl Provider {
    /// The definitions format its `tools` field takes.
    pub fn format(self) -> Format {
        match self {
            Self::OpenAi => Format::OpenAi,
            Self::Anthropic => Format::Anthropic,
        }
    }

    /// Sends one request and reads the streamed answer.
    pub(super) async fn complete(
        self,
        http: &reqwest::Client,
        config: &ProviderConfig,
        system: &str,
        messages: &[Value],
        tools: &Value,
    ) -> Result<Turn, AgentError> {
        let base = config.base_url.trim_end_matches('/');
        let has_tools = tools.as_array().is_some_and(|t| !t.is_empty());
        let request = match self {
            Self::OpenAi => {
                let mut all = vec![json!({"role": "system", "content": system})];
                all.extend_from_slice(messages);
                let mut body = json!({"model": config.model, "messages": all, "stream": true});
                if has_tools {
                    body["tools"] = tools.clone();
                }
                let mut request = http.post(format!("{base}/chat/completions")).json(&body);
                if let Some(key) = &config.api_key {
                    request = request.bearer_auth(key);
                }
                request
            }
            Self::Anthropic => {
                let mut body = json!({
                    "model": config.model,
                    "max_tokens": config.max_tokens,
                    "system": system,
                    "messages": messages,
                    "stream": true,
                });
                if has_tools {
                    body["tools"] = tools.clone();
                }
                let mut request = http
                    .post(format!("{base}/messages"))
                    .header("anthropic-version", "2023-06-01")
                    .json(&body);
                if let Some(key) = &config.api_key {
                    request = request.header("x-api-key", key);
                }
                request
            }
        };
        let response = request.send().await.map_err(AgentError::Http)?;
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return Err(AgentError::Provider {
                status: status.as_u16(),
                body: body.chars().take(500).collect(),
            });
        }
        let mut events = sse_stream::SseStream::from_bytes_stream(response.bytes_stream());
        let mut turn = TurnBuilder::default();
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| AgentError::Stream(e.to_string()))?;
            let Some(data) = event.data else { continue };
            if data.trim() == "[DONE]" {
                break;
            }
            let value: Value = serde_json::from_str(&data)
                .map_err(|e| AgentError::Stream(format!("an event is not JSON ({e}): {data}")))?;
            match self {
                Self::OpenAi => turn.openai(&value)?,
                Self::Anthropic => {
                    if turn.anthropic(&value)? {
                        break;
                    }
                }
            }
        }
        Ok(turn.finish())
    }

    /// The assistant message that records `turn` in the conversation.
    pub(super) fn assistant_message(self, turn: &Turn) -> Value {
        match self {
            Self::OpenAi => {
                let mut message = json!({"role": "assistant", "content": turn.text});
                if !turn.calls.is_empty() {
                    message["tool_calls"] = turn
                        .calls
                        .iter()
                        .map(|c| {
                            json!({"id": c.id, "type": "function",
                                "function": {"name": c.name, "arguments": c.arguments}})
                        })
                        .collect();
                }
                message
            }
            Self::Anthropic => {
                let mut content = Vec::new();
                if !turn.text.is_empty() {
                    content.push(json!({"type": "text", "text": turn.text}));
                }
                for call in &turn.calls {
                    // The input as sent when it is JSON, else an empty object (the error result
                    // that follows says what was wrong).
                    let input: Value = serde_json::from_str(&call.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    content.push(
                        json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}),
                    );
                }
                json!({"role": "assistant", "content": content})
            }
        }
    }

    /// The messages that carry the results of a turn's calls back to the model, images as image
    /// parts: inside Anthropic's tool results; for OpenAI, whose tool messages are text only, in
    /// a user message after them.
    pub(super) fn result_messages(self, replies: &[Reply]) -> Vec<Value> {
        match self {
            Self::OpenAi => {
                let mut messages: Vec<Value> = replies
                    .iter()
                    .map(|r| json!({"role": "tool", "tool_call_id": r.id, "content": r.text}))
                    .collect();
                let images: Vec<Value> = replies
                    .iter()
                    .flat_map(|r| &r.images)
                    .map(|m| {
                        json!({"type": "image_url", "image_url": {
                            "url": format!("data:{};base64,{}", m.mime_type, BASE64.encode(&m.data))
                        }})
                    })
                    .collect();
                if !images.is_empty() {
                    let mut content =
                        vec![json!({"type": "text", "text": "Images the tools returned:"})];
                    content.extend(images);
                    messages.push(json!({"role": "user", "content": content}));
                }
                messages
            }
            Self::Anthropic => vec![json!({
                "role": "user",
                "content": replies
                    .iter()
                    .map(|r| {
                        let mut content = vec![json!({"type": "text", "text": r.text})];
                        content.extend(r.images.iter().map(|m| json!({"type": "image", "source": {
                            "type": "base64", "media_type": m.mime_type, "data": BASE64.encode(&m.data)
                        }})));
                        json!({"type": "tool_result", "tool_use_id": r.id, "content": content, "is_error": r.is_error})
                    })
                    .collect::<Vec<_>>(),
            })],
        }
    }
}

/// A call's result as it goes back to the model.
pub(super) struct Reply {
    pub id: String,
    pub text: String,
    pub is_error: bool,
    pub images: Vec<tool_core::output::Media>,
}

/// Assembles a turn from stream events.
#[derive(Default)]
struct TurnBuilder {
    text: String,
    /// Calls by their index in the stream.
    calls: Vec<(usize, ModelCall)>,
}

impl TurnBuilder {
    fn call(&mut self, index: usize) -> &mut ModelCall {
        let at = match self.calls.iter().position(|(i, _)| *i == index) {
            Some(at) => at,
            None => {
                self.calls.push((
                    index,
                    ModelCall {
                        id: String::new(),
                        name: String::new(),
                        arguments: String::new(),
                    },
                ));
                self.calls.len() - 1
            }
        };
        &mut self.calls[at].1
    }

    /// A Chat Completions chunk: text deltas, and tool calls arriving in pieces by index.
    fn openai(&mut self, chunk: &Value) -> Result<(), AgentError> {
        if let Some(error) = chunk.get("error") {
            return Err(AgentError::Stream(format!(
                "the provider sent an error: {error}"
            )));
        }
        let Some(delta) = chunk.pointer("/choices/0/delta") else {
            return Ok(());
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.text.push_str(text);
        }
        for piece in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = piece.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
            let call = self.call(index);
            if let Some(id) = piece.get("id").and_then(Value::as_str) {
                call.id.push_str(id);
            }
            if let Some(name) = piece.pointer("/function/name").and_then(Value::as_str) {
                call.name.push_str(name);
            }
            if let Some(args) = piece.pointer("/function/arguments").and_then(Value::as_str) {
                call.arguments.push_str(args);
            }
        }
        Ok(())
    }

    /// A Messages stream event; returns true at `message_stop`.
    fn anthropic(&mut self, event: &Value) -> Result<bool, AgentError> {
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        match event.get("type").and_then(Value::as_str) {
            Some("content_block_start") => {
                let block = &event["content_block"];
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(text) = block.get("text").and_then(Value::as_str) {
                            self.text.push_str(text);
                        }
                    }
                    Some("tool_use") => {
                        let call = self.call(index);
                        call.id = block["id"].as_str().unwrap_or_default().to_owned();
                        call.name = block["name"].as_str().unwrap_or_default().to_owned();
                    }
                    _ => {}
                }
            }
            Some("content_block_delta") => {
                let delta = &event["delta"];
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        self.text
                            .push_str(delta["text"].as_str().unwrap_or_default());
                    }
                    Some("input_json_delta") => {
                        let json = delta["partial_json"].as_str().unwrap_or_default();
                        self.call(index).arguments.push_str(json);
                    }
                    _ => {}
                }
            }
            Some("message_stop") => return Ok(true),
            Some("error") => {
                return Err(AgentError::Stream(format!(
                    "the provider sent an error: {}",
                    event["error"]
                )));
            }
            _ => {}
        }
        Ok(false)
    }

    fn finish(self) -> Turn {
        let calls = self
            .calls
            .into_iter()
            .map(|(_, mut call)| {
                // A tool that takes nothing may stream no arguments at all.
                if call.arguments.trim().is_empty() {
                    call.arguments = "{}".to_owned();
                }
                call
            })
            .collect();
        Turn {
            text: self.text,
            calls,
        }
    }
}
