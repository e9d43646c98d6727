//! The agent loop: send the session's loaded tools, run the calls the model
//! makes as one ordered parallel batch, send the results back, and repeat until the model
//! answers or the turn limit. Native tool calling over OpenAI-compatible Chat Completions or
//! Anthropic Messages (streamed), or the text tag protocol for models without it.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use tool_agent::{Agent, Protocol, Provider, ProviderConfig};
//! use tool_core::exec::Executor;
//! use tool_core::Registry;
//! let mut registry = Registry::linked()?;
//! tool_catalog::install(&mut registry)?;
//! let config = ProviderConfig::new("https://api.openai.com/v1", "gpt-5-mini")
//!     .api_key(std::env::var("OPENAI_API_KEY")?);
//! let mut agent = Agent::new(Executor::new(registry), Provider::OpenAi, config);
//! let answer = agent.run("What time is it in Tokyo?").await?;
//! println!("{}", answer.text);
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod error;
pub mod protocol;
mod provider;

use serde_json::{Value, json};

pub use error::AgentError;
use provider::Reply;
pub use provider::{ModelCall, Provider, ProviderConfig, Turn};

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::protocol::{Event, TagParser, prompt_docs, result_tag};
use tool_catalog::{Deferral, ToolSession};
use tool_core::exec::{CallInput, Executor, ToolCall};
use tool_core::render::RenderOptions;
use tool_core::{
    ToolContext, ToolError,
    context::{ApprovalScope, Approver, Audience, Remembering},
    output::MediaKind,
};

/// How tool calls travel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// The provider's own tool calling.
    #[default]
    Native,
    /// Tags in the text, documented in the system prompt (for models without tool calling).
    Tags,
}

/// The model's final answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// What the model wrote last.
    pub text: String,
    /// How many requests it took.
    pub turns: usize,
    /// How many tool calls were run.
    pub calls: usize,
}

/// An agent: a model, the tools it may use and the conversation so far.
pub struct Agent {
    executor: Executor,
    session: ToolSession,
    provider: Provider,
    config: ProviderConfig,
    protocol: Protocol,
    max_turns: usize,
    system: String,
    /// The context calls run in: the application's ([`Agent::context`]) with the approver
    /// ([`Agent::approver`]) put on it.
    context: ToolContext,
    /// The application's context, before the approver was put on it.
    base: ToolContext,
    /// Who is asked before a call that needs approval, remembering for this agent what the
    /// person chose to keep.
    approver: Option<Arc<dyn Approver>>,
    /// This agent's session, for approvals kept "for this session" when the context names no
    /// principal.
    scope: ApprovalScope,
    messages: Vec<Value>,
    /// Built on first use (rustls on ring, the platform's roots), unless one was given.
    http: Option<reqwest::Client>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("provider", &self.provider)
            .field("model", &self.config.model)
            .field("protocol", &self.protocol)
            .field("loaded", &self.session.loaded_names())
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// An agent over `executor`'s tools (core ones loaded; install the catalog for the rest).
    pub fn new(executor: Executor, provider: Provider, config: ProviderConfig) -> Self {
        static SESSIONS: AtomicU64 = AtomicU64::new(1);
        let session = ToolSession::new(executor.registry());
        let scope = ApprovalScope(
            format!(
                "agent:{}:{}",
                std::process::id(),
                SESSIONS.fetch_add(1, Ordering::Relaxed)
            )
            .into(),
        );
        let context = ToolContext::new();
        Self {
            executor,
            session,
            provider,
            config,
            protocol: Protocol::Native,
            max_turns: 8,
            system: "You are a helpful assistant. Use the tools when they help.".to_owned(),
            base: context.clone(),
            context,
            approver: None,
            scope,
            messages: Vec::new(),
            http: None,
        }
    }

    /// Uses `protocol` for tool calls.
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Stops after `turns` requests that still call tools. Default 8.
    pub fn max_turns(mut self, turns: usize) -> Self {
        self.max_turns = turns.max(1);
        self
    }

    /// Sets the system prompt (the tags protocol appends its documentation).
    pub fn system(mut self, system: impl Into<String>) -> Self {
        self.system = system.into();
        self
    }

    /// Runs calls in `context` (its root, headers, event sink reach every tool). Its
    /// principal, if it has one, is the caller: the model is offered only the tools it may call.
    pub fn context(mut self, context: ToolContext) -> Self {
        self.session = self.session.with_caller(context.principal().cloned());
        self.base = context;
        self.context = self.with_approver();
        self
    }

    /// Asks `approver` before a call that needs a person's yes (a tool's own
    /// `#[tool(approval)]`, or the executor's [`ApprovalPolicy`]); it may take minutes, and the
    /// executor bounds the wait with the policy's timeout and the call's cancellation. An
    /// approval the person chose to keep for identical calls, or for every call of a tool,
    /// lasts as long as this agent: it is kept for the context's principal, or, without one,
    /// for this agent's session. A call that is not approved is not run, and the model gets a
    /// tool result that says so (an error result, `not_approved`), and the loop goes on.
    ///
    /// Without an approver, a call that needs one is refused (nobody can be asked). Set after
    /// or before [`Agent::context`], it replaces the context's approver.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_agent::{Agent, Provider, ProviderConfig};
    /// use tool_core::exec::{ApprovalPolicy, ExecPolicy, Executor};
    /// use tool_core::{Registry, context::{ApprovalFuture, ApprovalRequest, Approver, Decision}};
    ///
    /// /// Says no to everything, and why.
    /// struct Never;
    /// impl Approver for Never {
    ///     fn approve<'a>(&'a self, _: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
    ///         Box::pin(async { Decision::denied("not today".to_owned()) })
    ///     }
    /// }
    /// let policy = ExecPolicy::default().approval("write".parse()?);
    /// let executor = Executor::with_policy(Registry::empty(), policy);
    /// let config = ProviderConfig::new("http://127.0.0.1:8700/v1", "scripted");
    /// let agent = Agent::new(executor, Provider::OpenAi, config).approver(Arc::new(Never));
    /// # let _ = agent;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`ApprovalPolicy`]: tool_core::exec::ApprovalPolicy
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(Arc::new(Remembering::new(approver)));
        self.context = self.with_approver();
        self
    }

    /// The application's context with the approver on it, and this agent's session as the
    /// scope of kept approvals unless the context names one.
    fn with_approver(&self) -> ToolContext {
        let Some(approver) = &self.approver else {
            return self.base.clone();
        };
        let mut builder = self.base.derive().approver(approver.clone());
        if self.base.extension::<ApprovalScope>().is_none() {
            builder = builder.extension(self.scope.clone());
        }
        builder.build()
    }

    /// Uses `client` for requests to the model (proxies, TLS settings).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    fn client(&mut self) -> Result<reqwest::Client, AgentError> {
        if let Some(client) = &self.http {
            return Ok(client.clone());
        }
        let tls = tool_http::tls_config().map_err(AgentError::Setup)?;
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .build()
            .map_err(AgentError::Http)?;
        self.http = Some(client.clone());
        Ok(client)
    }

    /// The tools loaded so far.
    pub fn session(&self) -> &ToolSession {
        &self.session
    }

    /// Sends `prompt` and loops until the model answers.
    pub async fn run(&mut self, prompt: &str) -> Result<Answer, AgentError> {
        self.messages
            .push(json!({"role": "user", "content": prompt}));
        let mut calls_run = 0;
        for turn_no in 1..=self.max_turns {
            let (system, tools) = match self.protocol {
                Protocol::Native => {
                    let tools = self.session.render(
                        self.provider.format(),
                        RenderOptions::default(),
                        Deferral::Session,
                    );
                    (self.system.clone(), tools)
                }
                Protocol::Tags => (
                    format!("{}\n\n{}", self.system, prompt_docs(self.session.loaded())),
                    json!([]),
                ),
            };
            let http = self.client()?;
            let turn = self
                .provider
                .complete(&http, &self.config, &system, &self.messages, &tools)
                .await?;
            let (text, calls) = match self.protocol {
                Protocol::Native => {
                    self.messages.push(self.provider.assistant_message(&turn));
                    let calls = turn.calls.iter().cloned().map(Planned::run).collect();
                    (turn.text.clone(), calls)
                }
                Protocol::Tags => {
                    self.messages.push(self.provider.assistant_message(&Turn {
                        text: turn.text.clone(),
                        calls: Vec::new(),
                    }));
                    self.tag_calls(&turn.text)
                }
            };
            if calls.is_empty() {
                return Ok(Answer {
                    text: text.trim().to_owned(),
                    turns: turn_no,
                    calls: calls_run,
                });
            }
            calls_run += calls.len();
            let feeds_back = self.run_calls(&calls).await;
            if !feeds_back {
                return Ok(Answer {
                    text: text.trim().to_owned(),
                    turns: turn_no,
                    calls: calls_run,
                });
            }
        }
        Err(AgentError::TurnLimit(self.max_turns))
    }

    /// The calls written as tags in `text`; tags that are not calls come back as error
    /// results at once, so the model can correct them.
    fn tag_calls(&self, text: &str) -> (String, Vec<Planned>) {
        let mut parser = TagParser::new(self.session.loaded().map(|t| t.name().to_owned()));
        let mut events = parser.feed(text);
        events.extend(parser.finish());
        let mut prose = String::new();
        let mut calls = Vec::new();
        for (i, event) in events.into_iter().enumerate() {
            let id = format!("tag_{i}");
            match event {
                Event::Text(t) => prose.push_str(&t),
                Event::Call(call) => {
                    // The parser only knows loaded tools, so the tool is there.
                    let registry = self.executor.registry();
                    let input = registry.get(&call.name).map(|tool| call.to_input(tool));
                    let (arguments, refused) = match input {
                        Some(Ok(input)) => (input.to_string(), None),
                        Some(Err(e)) => (String::new(), Some(e.to_string())),
                        None => {
                            let caller = self.context.principal();
                            let suggestions = registry.suggest_for(&call.name, caller);
                            let e = tool_core::exec::unknown_tool(&call.name, &suggestions);
                            (String::new(), Some(e.to_string()))
                        }
                    };
                    calls.push(Planned {
                        call: ModelCall {
                            id,
                            name: call.name,
                            arguments,
                        },
                        refused,
                    });
                }
                Event::Error(error) => calls.push(Planned {
                    call: ModelCall {
                        id,
                        name: String::new(),
                        arguments: String::new(),
                    },
                    refused: Some(format!("{error}: `{}`", error.raw)),
                }),
            }
        }
        (prose, calls)
    }

    /// Runs a turn's calls as one batch, loads what searches found, and appends the results.
    /// Returns whether any result goes back to the model (`feeds_back`).
    async fn run_calls(&mut self, planned: &[Planned]) -> bool {
        let batch: Vec<ToolCall> = planned
            .iter()
            .filter(|p| p.refused.is_none())
            .map(|p| {
                let c = &p.call;
                ToolCall::new(
                    c.id.clone(),
                    c.name.clone(),
                    CallInput::Text(c.arguments.clone()),
                )
            })
            .collect();
        // The model's calls reach what a model may: a tool for views only is refused at the
        // executor, whatever the model names.
        let model = self.context.for_audience(Audience::Model);
        let mut results = self.executor.call_batch(batch, &model).await.into_iter();
        let mut feeds_back = false;
        let mut replies = Vec::new();
        let mut tags = Vec::new();
        for p in planned {
            let call = &p.call;
            let result = match &p.refused {
                Some(message) => Err(ToolError::invalid_input(message.clone())),
                None => results
                    .next()
                    .unwrap_or_else(|| Err(ToolError::internal("a call had no result"))),
            };
            if let Ok(output) = &result {
                self.session.observe(&call.name, output);
            }
            feeds_back |= self
                .executor
                .registry()
                .get(&call.name)
                .is_none_or(|t| t.feeds_back());
            let reply = match &result {
                Ok(output) => Reply {
                    id: call.id.clone(),
                    text: output.echo().into_owned(),
                    is_error: false,
                    images: output
                        .media()
                        .iter()
                        .filter(|m| m.kind == MediaKind::Image)
                        .cloned()
                        .collect(),
                },
                Err(e) => Reply {
                    id: call.id.clone(),
                    text: e.to_string(),
                    is_error: true,
                    images: Vec::new(),
                },
            };
            tags.push(result_tag(&call.name, &result));
            replies.push(reply);
        }
        match self.protocol {
            Protocol::Native => self
                .messages
                .extend(self.provider.result_messages(&replies)),
            Protocol::Tags => self
                .messages
                .push(json!({"role": "user", "content": tags.join("\n")})),
        }
        feeds_back
    }
}

/// A call to run, or one the tags layer refused (its message goes back as the result).
struct Planned {
    call: ModelCall,
    refused: Option<String>,
}

impl Planned {
    fn run(call: ModelCall) -> Self {
        Self {
            call,
            refused: None,
        }
    }
}
