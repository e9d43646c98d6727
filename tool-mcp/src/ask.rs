//! Asking the client in every era: a tool's [`McpPeer::elicit`] and [`McpPeer::sample`] become
//! a request to the client in a session, and in protocol 2026-07-28 (which has no requests
//! from the server to the client) a question in an `InputRequiredResult`: the call ends there,
//! the client asks its user or model and calls again with the answers and the sealed
//! `requestState`, and the tool runs again, this time finding its answers ([`Round`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, ListRootsRequest, ListRootsResult, RequestStateCodec,
    SealOptions,
};
use rmcp::service::ServiceError;
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use tool_core::context::Rerun;
use tool_core::{ToolContext, ToolError, context::FromContext, error::ErrorKind};

use crate::sync::{get_mut, lock};

/// The connected client, for tools that ask it for something: its model
/// ([`sample`](Self::sample), MCP sampling) or its user ([`elicit`](Self::elicit), MCP
/// elicitation). Present in the context of every call made over MCP: take it as a parameter,
/// `#[ctx] client: McpPeer`, or read `ctx.extension::<McpPeer>()`.
///
/// How the question reaches the client depends on the request's protocol:
///
/// - **A session** (begun with `initialize`: stdio, or Streamable HTTP with sessions): a
///   request from the server to the client, whose answer the call waits for.
/// - **Protocol 2026-07-28** (stdio or HTTP, sessions or stateless): the call ends with an
///   `InputRequiredResult` that carries the question and a sealed `requestState`; the client
///   asks, then makes the call again with the answer, and the tool runs again from the start.
///   This time `elicit` (or `sample`) returns the answer at once. A tool that asks must
///   therefore be safe to run again: ask before doing anything that changes the world (or
///   read, on the second run, what the first already did), and ask the same question the same
///   way (the answer is found by the question's content). The error `elicit` returns while the
///   answer is not there yet is the call's end: return it (`?`), do not carry on.
///
/// Asking fails at once, with a [`ToolError`] that says why, where nothing can carry the
/// question: a stateless HTTP server and a client before 2026-07-28, or a client that did not
/// declare the capability (in 2026-07-28, the request is then answered with the protocol
/// error -32021, which names the capability).
///
/// ```
/// # #![allow(deprecated)] // sampling is deprecated upstream (SEP-2577), still served
/// use tool_core::context::FromContext;
/// use tool_mcp::McpPeer;
/// use tool_mcp::rmcp::model::{CreateMessageRequestParams, SamplingMessage};
/// use tool_core::prelude::*;
/// # tool_core::domain!(writing, "Writing");
///
/// /// Asks the client's model for a title for `text`.
/// #[tool(domain = writing, label = "Naming", hint = "A title for a text")]
/// async fn suggest_title(#[ctx] client: McpPeer, text: String) -> Result<String, ToolError> {
///     let message = SamplingMessage::user_text(format!("A title for: {text}"));
///     let answer = client.sample(CreateMessageRequestParams::new(vec![message], 50)).await?;
///     let text = answer.message.content.first().and_then(|c| c.as_text());
///     Ok(text.map(|t| t.text.clone()).unwrap_or_default())
/// }
///
/// // Outside MCP there is no client to ask.
/// let error = McpPeer::from_context(&ToolContext::new()).unwrap_err();
/// assert!(error.message().contains("called over MCP"), "{error}");
/// ```
#[derive(Clone, Debug)]
pub struct McpPeer {
    /// The connection the call came in on; none for a task's run, which outlives it.
    peer: Option<Peer<RoleServer>>,
    reach: Reach,
    /// The key the next question goes under in an `InputRequiredResult` ([`Self::named`]).
    name: Option<String>,
}

/// How a question reaches the client.
#[derive(Clone, Debug)]
enum Reach {
    /// A session begun with `initialize`: a request to the client.
    Session,
    /// No session and a protocol before 2026-07-28: nothing can carry it.
    Stateless,
    /// Protocol 2026-07-28: in the call's `InputRequiredResult`.
    Rounds(Arc<Round>),
}

impl McpPeer {
    /// The client of a session-era call: `in_session` when its connection began with
    /// `initialize`.
    pub(crate) fn session(peer: Peer<RoleServer>, in_session: bool) -> Self {
        let reach = if in_session {
            Reach::Session
        } else {
            Reach::Stateless
        };
        Self {
            peer: Some(peer),
            reach,
            name: None,
        }
    }

    /// The client of a 2026-07-28 call, which asks through `round`.
    pub(crate) fn rounds(peer: Peer<RoleServer>, round: Arc<Round>) -> Self {
        Self {
            peer: Some(peer),
            reach: Reach::Rounds(round),
            name: None,
        }
    }

    /// The client of a task's run after its call was answered (run again with the client's
    /// answers, or by another instance): it asks through `round`, whose questions the task
    /// holds until the client answers them with `tasks/update`.
    #[cfg(feature = "tasks")]
    pub(crate) fn task(round: Arc<Round>) -> Self {
        Self {
            peer: None,
            reach: Reach::Rounds(round),
            name: None,
        }
    }

    /// This client, asking its questions under `key` in an `InputRequiredResult` (protocol
    /// 2026-07-28 and tasks) instead of under a digest of the question: for a client that
    /// expects a question by name (`client.named("user_name").elicit(..)`). The answer is found
    /// by the key alone, so ask one question per key; a second question under the same key in
    /// one run goes under `key-2`. In a session the key is not sent (a request has none).
    /// Keys beginning with `tool-mcp/` are the server's own and are refused.
    ///
    /// ```
    /// # fn asks(client: tool_mcp::McpPeer) {
    /// let by_name = client.named("user_name");
    /// # }
    /// ```
    pub fn named(&self, key: impl Into<String>) -> Self {
        Self {
            name: Some(key.into()),
            ..self.clone()
        }
    }

    /// The capabilities the client declared: in protocol 2026-07-28 those the request carries
    /// (`_meta."io.modelcontextprotocol/clientCapabilities"`), in a session those of its
    /// `initialize`. `None` where it declared none that this server could read. A tool reads
    /// them to ask only what the client can answer, and fall back otherwise: a question the
    /// client cannot answer ends a 2026-07-28 call with the protocol error -32021.
    pub fn client_capabilities(&self) -> Option<ClientCapabilities> {
        match &self.reach {
            Reach::Rounds(round) => Some(round.capabilities.clone()),
            _ => self
                .peer
                .as_ref()
                .and_then(|p| p.peer_info())
                .map(|info| info.capabilities.clone()),
        }
    }

    /// Asks the client for its roots (`roots/list`): the directories or files it offers this
    /// server, as `file://` URIs.
    ///
    /// Fails at once, without asking, when the client cannot be asked (see the type's docs)
    /// or did not declare the `roots` capability.
    pub async fn list_roots(&self) -> Result<ListRootsResult, ToolError> {
        const WHAT: &str = "roots";
        match &self.reach {
            Reach::Rounds(round) => round.ask(
                WHAT,
                self.name.as_deref(),
                InputRequest::ListRoots(ListRootsRequest::default()),
            ),
            _ => {
                let peer = self.can_ask(WHAT)?;
                let asked = peer.list_roots().await;
                asked.map_err(|e| refused(WHAT, e))
            }
        }
    }

    /// Asks the client's model for a completion (`sampling/createMessage`) and returns it.
    ///
    /// Fails at once, without asking, when the client cannot be asked (see the type's docs)
    /// or did not declare the `sampling` capability; fails when the client refuses.
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        const WHAT: &str = "sampling";
        match &self.reach {
            Reach::Rounds(round) => round.ask(
                WHAT,
                self.name.as_deref(),
                InputRequest::CreateMessage(CreateMessageRequest::new(params)),
            ),
            _ => {
                let peer = self.can_ask(WHAT)?;
                let asked = peer.create_message(params).await;
                asked.map_err(|e| refused(WHAT, e))
            }
        }
    }

    /// Asks the client's user for input (`elicitation/create`): a form, or a URL to visit. The
    /// answer says whether the user accepted, declined or cancelled; a refusal of the request
    /// itself is an error.
    ///
    /// Fails at once, without asking, when the client cannot be asked (see the type's docs)
    /// or did not declare the `elicitation` capability.
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, ToolError> {
        const WHAT: &str = "elicitation";
        match &self.reach {
            Reach::Rounds(round) => round.ask(
                WHAT,
                self.name.as_deref(),
                InputRequest::Elicitation(ElicitRequest::new(params)),
            ),
            _ => {
                let peer = self.can_ask(WHAT)?;
                let asked = peer.create_elicitation(params).await;
                asked.map_err(|e| refused(WHAT, e))
            }
        }
    }

    /// The SDK's handle on the client, for what this type does not wrap (notifications,
    /// `roots/list`, the client's info). A request sent through it waits for the client's
    /// answer even where none can come: prefer [`sample`](Self::sample) and
    /// [`elicit`](Self::elicit). `None` in a task's run once its call was answered (it outlives
    /// the connection the call came in on).
    pub fn peer(&self) -> Option<&Peer<RoleServer>> {
        self.peer.as_ref()
    }

    /// Whether the client can be asked to elicit now; `Err` says why not (nothing carries a
    /// question to it, or it did not declare the capability).
    pub(crate) fn can_elicit(&self) -> Result<(), String> {
        const WHAT: &str = "elicitation";
        match &self.reach {
            Reach::Rounds(round) if declares(&round.capabilities, WHAT) => Ok(()),
            Reach::Rounds(_) => Err(not_declared(WHAT).message().to_owned()),
            _ => self
                .can_ask(WHAT)
                .map(|_| ())
                .map_err(|e| e.message().to_owned()),
        }
    }

    /// Whether a question goes back with the call's own answer (protocol 2026-07-28, or a
    /// task), so that the call ends and is made again with the answer.
    pub(crate) fn asks_by_answer(&self) -> bool {
        matches!(self.reach, Reach::Rounds(_))
    }

    /// The connection, when a request for `what` can reach the client of a session-era call
    /// and the client said it serves it.
    fn can_ask(&self, what: &str) -> Result<&Peer<RoleServer>, ToolError> {
        match (&self.reach, &self.peer) {
            (Reach::Stateless, _) => Err(ToolError::failed(format!(
                "this server is stateless: {what} needs an MCP session, which carries the \
                 server's request to the client, and a stateless server keeps none; serve the \
                 tool with sessions (without --stateless), or call it with protocol 2026-07-28"
            ))),
            (Reach::Session | Reach::Rounds(_), Some(peer)) => {
                let info = peer.peer_info();
                if info.is_some_and(|i| declares(&i.capabilities, what)) {
                    Ok(peer)
                } else {
                    Err(not_declared(what))
                }
            }
            (_, None) => Err(not_declared(what)),
        }
    }
}

/// Whether `capabilities` declare what a request for `what` needs.
fn declares(capabilities: &ClientCapabilities, what: &str) -> bool {
    match what {
        "sampling" => capabilities.sampling.is_some(),
        "roots" => capabilities.roots.is_some(),
        _ => capabilities.elicitation.is_some(),
    }
}

/// The capabilities a request for `what` needs.
fn needed(what: &str) -> ClientCapabilities {
    let mut needed = ClientCapabilities::default();
    match what {
        "sampling" => needed.sampling = Some(Default::default()),
        "roots" => needed.roots = Some(Default::default()),
        _ => needed.elicitation = Some(Default::default()),
    }
    needed
}

fn not_declared(what: &str) -> ToolError {
    ToolError::failed(format!(
        "the client did not declare the `{what}` capability, so it cannot be asked for {what}"
    ))
}

/// Why a request the client was sent failed, for the model.
fn refused(what: &str, error: ServiceError) -> ToolError {
    match error {
        ServiceError::McpError(e) => ToolError::failed(format!(
            "the client refused the {what} request: {}",
            e.message
        )),
        ServiceError::Cancelled { .. } => ToolError::new(
            ErrorKind::Cancelled,
            format!("the {what} request was cancelled"),
        ),
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => ToolError::failed(
            format!("the client went away before it answered the {what} request"),
        ),
        other => ToolError::failed(format!("the {what} request failed: {other}")),
    }
}

impl FromContext for McpPeer {
    /// The client of a call made over MCP; an error for a call made any other way.
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.extension::<McpPeer>().cloned().ok_or_else(|| {
            ToolError::failed(
                "this tool asks the client for something, which works only when it is called \
                 over MCP",
            )
        })
    }
}

/// One run of a 2026-07-28 call: the answers the client gave in earlier rounds, and the
/// questions this run asks that it has no answer for.
#[derive(Debug)]
pub(crate) struct Round {
    /// The request's `clientCapabilities` (none when absent or not capabilities).
    capabilities: ClientCapabilities,
    state: Mutex<RoundState>,
    /// What the tool keeps for the next run, and carries from the last one (sealed with the
    /// answers), in the call's context.
    rerun: Rerun,
}

#[derive(Debug, Default)]
struct RoundState {
    /// Answers by question key, from the sealed state and this retry's `inputResponses`.
    answers: BTreeMap<String, Value>,
    /// The answers this run read: kept for the next run, which asks them again.
    used: BTreeSet<String>,
    /// Questions without an answer yet, by key.
    asked: InputRequests,
    /// How often this run asked each question, so that one asked twice gets two keys.
    seen: HashMap<String, usize>,
    /// Why the call is answered with a protocol error instead: a question the client did not
    /// declare it can answer, or an answer that is not one.
    refusal: Option<McpError>,
}

/// The key under which a task's stored answers hold what its tool kept for the next run: no
/// question's key (those are `elicitation-…`, `sampling-…`, `roots-…` or a name a tool chose
/// that is not [`RESERVED`]), and one a client's
/// `tasks/update` cannot set (only outstanding questions take answers).
pub(crate) const KEPT: &str = "tool-mcp/kept";

/// The beginning of the keys this server keeps for itself: no question a tool names may have it.
const RESERVED: &str = "tool-mcp/";

/// What a round ends in.
pub(crate) enum RoundEnd {
    /// The tool asked nothing it had no answer for: its result is the call's.
    Complete,
    /// The call's answer is this `InputRequiredResult`.
    InputRequired(InputRequiredResult),
}

/// What a task's run asked without an answer, and the answers it used.
#[cfg(feature = "tasks")]
pub(crate) type TaskInput = (InputRequests, BTreeMap<String, Value>);

/// What the sealed `requestState` holds: the answers so far, the keys of the questions asked
/// last, whose answers the retry carries, and what the tool kept for its next run.
#[derive(Serialize, Deserialize)]
struct Sealed {
    answers: BTreeMap<String, Value>,
    asked: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kept: Option<Value>,
}

/// What a retry brings: the answers so far, and what the tool kept for this run.
#[derive(Debug, Default)]
pub(crate) struct Carried {
    pub answers: BTreeMap<String, Value>,
    pub kept: Option<Value>,
}

impl Round {
    /// The round of a call whose request declared `capabilities` (its `_meta` member, as JSON)
    /// and carried `answers` (from [`RequestStates::open`]).
    /// A task's answers may hold what its tool kept, under [`KEPT`] (see
    /// [`take_input`](Self::take_input)).
    pub(crate) fn new(capabilities: Option<Value>, mut answers: BTreeMap<String, Value>) -> Self {
        let kept = answers.remove(KEPT);
        Self {
            capabilities: capabilities
                .and_then(|c| serde_json::from_value(c).ok())
                .unwrap_or_default(),
            state: Mutex::new(RoundState {
                answers,
                ..RoundState::default()
            }),
            rerun: Rerun::carrying(kept),
        }
    }

    /// The slot the call's tool keeps its state in for the next run.
    pub(crate) fn rerun(&self) -> &Rerun {
        &self.rerun
    }

    /// The answer to `request` (under `name`, or a digest of the request) if the client gave
    /// it, else the question kept for the call's `InputRequiredResult` and an error that ends
    /// the run.
    fn ask<T: DeserializeOwned>(
        &self,
        what: &str,
        name: Option<&str>,
        request: InputRequest,
    ) -> Result<T, ToolError> {
        if let Some(name) = name
            && (name.is_empty() || name.starts_with(RESERVED))
        {
            return Err(ToolError::invalid_input(format!(
                "`{name}` cannot name a question: a key is not empty and does not begin with \
                 `{RESERVED}`"
            )));
        }
        let mut state = lock(&self.state);
        let key = {
            let base = name.map_or_else(|| question_key(what, &request), str::to_owned);
            let seen = state.seen.entry(base.clone()).or_default();
            *seen += 1;
            if *seen == 1 {
                base
            } else {
                format!("{base}-{seen}")
            }
        };
        if let Some(answer) = state.answers.get(&key) {
            let read = serde_json::from_value::<T>(answer.clone());
            return match read {
                Ok(answer) => {
                    state.used.insert(key);
                    Ok(answer)
                }
                Err(error) => {
                    let message = format!("inputResponses.{key}: not a {what} result: {error}");
                    state
                        .refusal
                        .get_or_insert_with(|| McpError::invalid_params(message.clone(), None));
                    Err(ToolError::failed(message))
                }
            };
        }
        if !declares(&self.capabilities, what) {
            state
                .refusal
                .get_or_insert_with(|| McpError::missing_required_client_capability(needed(what)));
            return Err(not_declared(what));
        }
        state.asked.insert(key, request);
        self.rerun.set_waiting();
        Err(ToolError::failed(format!(
            "waiting for the client's answer to a {what} request: the call is made again with it"
        )))
    }

    /// Gives the round what a retry brought (from [`RequestStates::open`]).
    pub(crate) fn answer(&mut self, carried: Carried) {
        get_mut(&mut self.state).answers = carried.answers;
        self.rerun = Rerun::carrying(carried.kept);
    }

    /// Whether this run asked something it has no answer for (or was refused): its call ends
    /// with the questions (or the refusal), not a result.
    #[cfg(feature = "tasks")]
    pub(crate) fn is_asking(&self) -> bool {
        let state = lock(&self.state);
        !state.asked.is_empty() || state.refusal.is_some()
    }

    /// Whether the tool may ask the client anything: only then can the round end in a state
    /// to seal.
    pub(crate) fn may_ask(&self) -> bool {
        ["sampling", "elicitation", "roots"]
            .iter()
            .any(|what| declares(&self.capabilities, what))
    }

    /// The questions a task's run asked without an answer, by key, and the answers it used
    /// (the next run asks those again), with what the tool kept under [`KEPT`]: a task keeps
    /// them in its store rather than in a sealed state. `None` when it asked nothing it had no answer for; `Err` for a refusal.
    #[cfg(feature = "tasks")]
    pub(crate) fn take_input(&self) -> Result<Option<TaskInput>, McpError> {
        let mut state = lock(&self.state);
        if let Some(refusal) = state.refusal.take() {
            return Err(refusal);
        }
        if state.asked.is_empty() {
            return Ok(None);
        }
        let asked = std::mem::take(&mut state.asked);
        let used = std::mem::take(&mut state.used);
        let mut answers: BTreeMap<String, Value> = std::mem::take(&mut state.answers)
            .into_iter()
            .filter(|(key, _)| used.contains(key))
            .collect();
        if let Some(kept) = self.rerun.kept() {
            answers.insert(KEPT.to_owned(), kept);
        }
        Ok(Some((asked, answers)))
    }

    /// How the call ends, once its tool has run: sealed with `states` and `binding` when it
    /// asked something it has no answer for. `binding` may be `None` when the round cannot
    /// ask ([`may_ask`](Self::may_ask)).
    pub(crate) fn end(
        &self,
        states: &RequestStates,
        binding: Option<&[u8]>,
    ) -> Result<RoundEnd, McpError> {
        let mut state = lock(&self.state);
        if let Some(refusal) = state.refusal.take() {
            return Err(refusal);
        }
        if state.asked.is_empty() {
            return Ok(RoundEnd::Complete);
        }
        let Some(binding) = binding else {
            return Err(McpError::internal_error(
                "a call asked its client without a binding for its requestState",
                None,
            ));
        };
        let asked = std::mem::take(&mut state.asked);
        let used = std::mem::take(&mut state.used);
        let answers = std::mem::take(&mut state.answers);
        let sealed = Sealed {
            answers: answers
                .into_iter()
                .filter(|(key, _)| used.contains(key))
                .collect(),
            asked: asked.keys().cloned().collect(),
            kept: self.rerun.kept(),
        };
        let request_state = states.seal(&sealed, binding)?;
        Ok(RoundEnd::InputRequired(InputRequiredResult::new(
            Some(asked),
            Some(request_state),
        )))
    }
}

/// The key of a question: what it asks for and a digest of the request, so that the same
/// question asked again (on the retry) finds its answer, and another question does not.
fn question_key(what: &str, request: &InputRequest) -> String {
    let json = serde_json::to_value(request).unwrap_or(Value::Null);
    let digest = Sha256::digest(tool_core::exec::canonical_json(&json));
    let mut key = String::with_capacity(what.len() + 17);
    key.push_str(what);
    key.push('-');
    for byte in &digest[..8] {
        key.push_str(&format!("{byte:02x}"));
    }
    key
}

/// Seals and opens the `requestState` of 2026-07-28 calls: integrity-protected (HMAC-SHA256,
/// rmcp's [`RequestStateCodec`]), expiring, and bound to the call (its tool, its arguments and
/// its caller) through the codec's associated data, so that a state made for one call opens
/// for no other.
#[derive(Clone, Debug)]
pub(crate) struct RequestStates {
    codec: RequestStateCodec,
    ttl: Duration,
}

impl RequestStates {
    pub(crate) fn new(codec: RequestStateCodec, ttl: Duration) -> Self {
        Self { codec, ttl }
    }

    /// A codec with a random key of this process's own: states it seals open only here.
    pub(crate) fn random_codec() -> RequestStateCodec {
        let mut key = [0u8; 32];
        if let Err(error) = getrandom::fill(&mut key) {
            // No randomness at all: a state sealed with a guessable key must never open.
            tracing::error!(%error, "no random key for requestState: 2026-07-28 calls that ask will fail");
        }
        RequestStateCodec::new_unchecked(key.to_vec())
    }

    fn seal(&self, sealed: &Sealed, binding: &[u8]) -> Result<String, McpError> {
        let options = SealOptions::new().associated_data(binding).ttl(self.ttl);
        self.codec
            .seal_json_with(sealed, &options)
            .map_err(|error| {
                McpError::internal_error(
                    format!("the requestState could not be sealed: {error}"),
                    None,
                )
            })
    }

    /// What a retry brings: the answers sealed in `request_state` and, for the questions it
    /// says were asked, the ones in `responses`, and what the tool kept. Without a state, the
    /// answers in `responses` stand on their own, as the spec's retry carries "everything the
    /// server needs" (a key no question of the tool's has is never read, which is the spec's
    /// "ignore what it does not recognize"); what a tool kept travels only sealed, so keys
    /// beginning with [`RESERVED`] are dropped. A client could answer before it is asked, but
    /// it answers every question anyway: a state adds no trust, only binding and expiry.
    /// A state that does not open (forged, changed, expired, made for another call or caller)
    /// is a protocol error.
    pub(crate) fn open(
        &self,
        request_state: Option<&str>,
        responses: Option<InputResponses>,
        binding: &[u8],
    ) -> Result<Carried, McpError> {
        let Some(request_state) = request_state else {
            let answers = responses
                .unwrap_or_default()
                .into_iter()
                .filter(|(key, _)| !key.starts_with(RESERVED))
                .collect();
            return Ok(Carried {
                answers,
                kept: None,
            });
        };
        let sealed: Sealed =
            self.codec
                .open_json_with(request_state, binding)
                .map_err(|error| {
                    McpError::invalid_params(
                        format!(
                            "requestState: {error} (it opens only for the same tool, arguments and \
                         caller, before it expires): make the call again without it"
                        ),
                        None,
                    )
                })?;
        let mut answers = sealed.answers;
        let mut responses = responses.unwrap_or_default();
        for key in sealed.asked {
            if let Some(answer) = responses.remove(&key) {
                answers.insert(key, answer);
            }
        }
        Ok(Carried {
            answers,
            kept: sealed.kept,
        })
    }
}

/// What a `requestState` is bound to: the request's `method` (`tools/call`, `prompts/get`: a
/// state sealed for one opens for no other), the tool or prompt `name`, its arguments (in any
/// member order) and the caller (issuer and subject; none for an unauthenticated one).
pub(crate) fn binding_of(
    method: &str,
    name: &str,
    arguments: &Value,
    caller: Option<(&str, &str)>,
) -> Vec<u8> {
    let mut binding = Vec::with_capacity(96);
    binding.extend_from_slice(b"tool-mcp/");
    binding.extend_from_slice(method.as_bytes());
    binding.push(0);
    binding.extend_from_slice(name.as_bytes());
    binding.push(0);
    binding.extend_from_slice(&Sha256::digest(tool_core::exec::canonical_json(arguments)));
    if let Some((issuer, subject)) = caller {
        binding.push(1);
        binding.extend_from_slice(&Sha256::digest(issuer.as_bytes()));
        binding.extend_from_slice(subject.as_bytes());
    }
    binding
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A `tools/call`'s binding.
    fn bind(tool: &str, arguments: &Value, caller: Option<(&str, &str)>) -> Vec<u8> {
        binding_of("tools/call", tool, arguments, caller)
    }

    fn states() -> RequestStates {
        RequestStates::new(RequestStates::random_codec(), Duration::from_secs(60))
    }

    fn elicitation(message: &str) -> ElicitRequestParams {
        serde_json::from_value(json!({
            "message": message,
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        }))
        .unwrap()
    }

    fn declared() -> Option<Value> {
        Some(json!({"elicitation": {}}))
    }

    fn ask(round: &Round, message: &str) -> Result<ElicitResult, ToolError> {
        round.ask(
            "elicitation",
            None,
            InputRequest::Elicitation(ElicitRequest::new(elicitation(message))),
        )
    }

    fn ask_named(round: &Round, key: &str, message: &str) -> Result<ElicitResult, ToolError> {
        round.ask(
            "elicitation",
            Some(key),
            InputRequest::Elicitation(ElicitRequest::new(elicitation(message))),
        )
    }

    /// A question a tool names goes out under that name, and its answer is found by it, with
    /// or without a state; answers without a state never carry what a tool kept.
    #[test]
    fn a_named_question_is_answered_by_its_name_even_without_a_state() {
        let states = states();
        let binding = bind("ask_name", &json!({}), None);
        let first = Round::new(declared(), BTreeMap::new());
        assert!(ask_named(&first, "user_name", "Your name?").is_err());
        assert!(ask_named(&first, "user_name", "Your name, again?").is_err());
        let RoundEnd::InputRequired(result) = first.end(&states, Some(&binding)).unwrap() else {
            panic!("the first round asks");
        };
        let keys: Vec<&String> = result.input_requests.as_ref().unwrap().keys().collect();
        assert_eq!(keys, ["user_name", "user_name-2"]);

        let answer = json!({"action": "accept", "content": {"name": "Ada"}});
        let responses = BTreeMap::from([
            ("user_name".to_owned(), answer),
            (KEPT.to_owned(), json!({"forged": true})),
            ("unknown_extra_key".to_owned(), json!({"action": "accept"})),
        ]);
        let carried = states.open(None, Some(responses), &binding).unwrap();
        assert_eq!(carried.kept, None, "what a tool kept travels only sealed");
        assert!(!carried.answers.contains_key(KEPT));
        let mut second = Round::new(declared(), BTreeMap::new());
        second.answer(carried);
        let got = ask_named(&second, "user_name", "Your name?").unwrap();
        assert_eq!(got.content.unwrap()["name"], "Ada");
        // The extra key is never read; the call completes.
        assert!(matches!(
            second.end(&states, Some(&binding)).unwrap(),
            RoundEnd::Complete
        ));
        // A name of the server's own is refused.
        let error = ask_named(&second, "tool-mcp/kept", "?").unwrap_err();
        assert!(
            error.message().contains("cannot name a question"),
            "{error}"
        );
    }

    /// Two rounds: the question comes back sealed, the retry's answer is found by it.
    #[test]
    fn a_question_is_asked_once_and_answered_on_the_retry() {
        let states = states();
        let binding = bind("ask_name", &json!({"a": 1}), None);
        let first = Round::new(declared(), BTreeMap::new());
        assert!(ask(&first, "Your name?").is_err());
        assert!(first.rerun().is_waiting());
        first.rerun().keep(json!({"sent": 1}));
        let RoundEnd::InputRequired(result) = first.end(&states, Some(&binding)).unwrap() else {
            panic!("the first round asks");
        };
        let requests = result.input_requests.clone().unwrap();
        let (key, _) = requests.iter().next().unwrap();
        let answer = json!({"action": "accept", "content": {"name": "Ada"}});
        let responses = BTreeMap::from([(key.clone(), answer), ("other".into(), json!(1))]);
        let state = result.request_state.as_deref();
        let carried = states.open(state, Some(responses), &binding).unwrap();
        assert_eq!(
            carried.answers.len(),
            1,
            "only answers to questions asked: {carried:?}"
        );
        // What the tool kept travels sealed with the answers.
        assert_eq!(carried.kept, Some(json!({"sent": 1})));
        let mut second = Round::new(declared(), BTreeMap::new());
        second.answer(carried);
        assert_eq!(second.rerun().carried(), Some(json!({"sent": 1})));
        let got = ask(&second, "Your name?").unwrap();
        assert!(!second.rerun().is_waiting());
        assert_eq!(got.content.unwrap()["name"], "Ada");
        assert!(matches!(
            second.end(&states, Some(&binding)),
            Ok(RoundEnd::Complete)
        ));
    }

    #[test]
    fn a_state_opens_only_for_its_call_and_caller_and_key() {
        let states = states();
        let binding = bind(
            "ask_name",
            &json!({"a": 1, "b": [1, 2]}),
            Some(("iss", "alice")),
        );
        let round = Round::new(declared(), BTreeMap::new());
        let _ = ask(&round, "Your name?");
        let RoundEnd::InputRequired(result) = round.end(&states, Some(&binding)).unwrap() else {
            panic!("asks");
        };
        let state = result.request_state.as_deref();
        // The same call, its arguments in another order: opens.
        let same = bind(
            "ask_name",
            &json!({"b": [1, 2], "a": 1}),
            Some(("iss", "alice")),
        );
        assert!(states.open(state, None, &same).is_ok());
        for other in [
            bind(
                "ask_name",
                &json!({"a": 2, "b": [1, 2]}),
                Some(("iss", "alice")),
            ),
            bind(
                "ask_age",
                &json!({"a": 1, "b": [1, 2]}),
                Some(("iss", "alice")),
            ),
            bind(
                "ask_name",
                &json!({"a": 1, "b": [1, 2]}),
                Some(("iss", "bob")),
            ),
            bind("ask_name", &json!({"a": 1, "b": [1, 2]}), None),
        ] {
            let error = states.open(state, None, &other).unwrap_err();
            assert!(error.message.contains("requestState"), "{}", error.message);
        }
        // Another server's key, and a changed state, do not open either.
        assert!(self::states().open(state, None, &binding).is_err());
        let mut changed = result.request_state.clone().unwrap();
        changed.push('A');
        assert!(states.open(Some(&changed), None, &binding).is_err());
        // Nor an expired one.
        let quick = RequestStates::new(RequestStates::random_codec(), Duration::from_millis(1));
        let round = Round::new(declared(), BTreeMap::new());
        let _ = ask(&round, "Your name?");
        let RoundEnd::InputRequired(result) = round.end(&quick, Some(&binding)).unwrap() else {
            panic!("asks");
        };
        std::thread::sleep(Duration::from_millis(20));
        let error = quick
            .open(result.request_state.as_deref(), None, &binding)
            .unwrap_err();
        assert!(error.message.contains("expired"), "{}", error.message);
    }

    #[test]
    fn a_client_without_the_capability_gets_the_protocol_error() {
        let round = Round::new(Some(json!({"sampling": {}})), BTreeMap::new());
        assert!(ask(&round, "Your name?").is_err());
        let error = round.end(&states(), Some(b"b")).err().unwrap();
        assert_eq!(
            error.code,
            rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        );
        assert!(error.data.unwrap()["requiredCapabilities"]["elicitation"].is_object());
    }

    #[test]
    fn an_answer_that_is_not_one_is_invalid_params() {
        let round = Round::new(declared(), BTreeMap::new());
        let _ = ask(&round, "Your name?");
        let RoundEnd::InputRequired(result) = round.end(&states(), Some(b"b")).unwrap() else {
            panic!("asks");
        };
        let key = result.input_requests.unwrap().into_keys().next().unwrap();
        let round = Round::new(declared(), BTreeMap::from([(key, json!("yes"))]));
        assert!(ask(&round, "Your name?").is_err());
        let error = round.end(&states(), Some(b"b")).err().unwrap();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(
            error.message.contains("inputResponses."),
            "{}",
            error.message
        );
    }

    /// The same question twice in one run is two questions; two different ones, two keys.
    #[test]
    fn each_question_of_a_run_has_its_own_key() {
        let round = Round::new(declared(), BTreeMap::new());
        for message in ["Your name?", "Your name?", "Your age?"] {
            let _ = ask(&round, message);
        }
        let RoundEnd::InputRequired(result) = round.end(&states(), Some(b"b")).unwrap() else {
            panic!("asks");
        };
        assert_eq!(result.input_requests.unwrap().len(), 3);
    }
}
