//! The requests the transport answers itself, `tools/call` and `tools/list` in either era once
//! the session has begun, and the bookkeeping that answers every request exactly once: which ids
//! are in flight (here or in the SDK), which calls wait for room, what the end of input waits
//! for.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ErrorCode, ErrorData, JsonRpcResponse, JsonRpcVersion2_0,
    PaginatedRequestParams, RequestId, RequestMetaObject, ServerJsonRpcMessage,
};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer, ServerHandler as _};
use serde_json::value::RawValue;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::envelope::Refusal;
use super::output::Output;
use crate::request::Era;
use crate::result::{CallAnswer, ServerInfo, write_call_answer};
use crate::server::McpServer;
use crate::sync::lock;

/// Calls and listings running here at once beyond their first poll. More wait, in order, until
/// one finishes: a client that sends faster than its tools finish cannot grow memory without
/// bound.
pub(super) const MAX_RUNNING: usize = 1024;

/// Bytes of requests read while [`MAX_RUNNING`] are running, waiting to start. Beyond it the
/// reader stops reading; below it, it goes on reading, so that answers to the server's own
/// requests and cancellations, which running calls may wait on, still arrive.
const MAX_WAITING: usize = 4 << 20;

/// How long calls cancelled at the end of the grace period may take to answer.
const CANCELLED_ANSWER: Duration = Duration::from_secs(1);

/// What the connection's requests need.
pub(super) struct Calls {
    pub(super) out: Arc<Output>,
    server: McpServer,
    flight: Arc<Mutex<Flight>>,
    /// Told when a task finishes (and by the output, when it drains).
    wake: Arc<Notify>,
    /// Requests read while [`MAX_RUNNING`] run, in order, and their ids.
    waiting: VecDeque<Waiting>,
    waiting_ids: HashSet<RequestId>,
    waiting_bytes: usize,
    /// Answers queued by calls that finished as they started, not yet written.
    answered: bool,
    /// Set once input has ended: when the grace period ends, and whether running calls were
    /// cancelled at it.
    ending: Option<(Instant, bool)>,
    /// [`MAX_RUNNING`], but for tests.
    pub(super) max_running: usize,
}

/// Requests in progress.
#[derive(Default)]
struct Flight {
    /// Calls and listings running here past their first poll, by id, with the call's token.
    /// The client's `notifications/cancelled` takes one out (it is then never answered); the
    /// end of the grace period cancels them in place (they are answered).
    running: HashMap<RequestId, Option<CancellationToken>>,
    /// Tasks that have not yet queued (or dropped) their answer.
    tasks: usize,
    /// Requests passed to the SDK and not answered by it yet, and whether the end of input
    /// waits for their answers (all but `subscriptions/listen`, which lasts until the
    /// connection ends).
    sdk: HashMap<RequestId, bool>,
}

impl Flight {
    /// Nothing the end of input waits for is running.
    fn idle(&self) -> bool {
        self.tasks == 0 && !self.sdk.values().any(|&awaited| awaited)
    }
}

struct Waiting {
    id: RequestId,
    line: Box<[u8]>,
}

/// Who answers a request.
enum Route {
    /// This transport, with the session's client, in the request's era.
    Here(Peer<RoleServer>, Era),
    /// The SDK's loop: no session has begun yet.
    ToSdk,
    /// Nobody: the answer is this error.
    Refused(ErrorData),
}

/// What the reader does with a request this module may take.
pub(super) enum Taken {
    /// Started, answered, or queued to start.
    Done,
    /// The SDK's to answer (another protocol, or the session has not begun).
    ToSdk,
}

impl Calls {
    pub(super) fn new(server: McpServer, out: Arc<Output>, wake: Arc<Notify>) -> Self {
        Self {
            out,
            server,
            flight: Arc::default(),
            wake,
            waiting: VecDeque::new(),
            waiting_ids: HashSet::new(),
            waiting_bytes: 0,
            answered: false,
            ending: None,
            max_running: MAX_RUNNING,
        }
    }

    pub(super) fn server(&self) -> &McpServer {
        &self.server
    }

    /// The id is that of a request not answered yet: a second request with it would make two
    /// answers the client cannot tell apart.
    pub(super) fn in_flight(&self, id: &RequestId) -> bool {
        let flight = lock(&self.flight);
        flight.running.contains_key(id)
            || flight.sdk.contains_key(id)
            || self.waiting_ids.contains(id)
    }

    /// A request passed to the SDK: in flight until the SDK answers it. The end of input waits
    /// for its answer if `awaited`.
    pub(super) fn sent_to_sdk(&self, id: RequestId, awaited: bool) {
        lock(&self.flight).sdk.insert(id, awaited);
    }

    /// The SDK answered (or dropped, once cancelled) request `id`.
    pub(super) fn answered_by_sdk(&self, id: &RequestId) {
        let awaited = lock(&self.flight).sdk.remove(id);
        if awaited == Some(true) {
            self.wake.notify_one();
        }
    }

    /// Refuses a line with an error answer.
    pub(super) fn refuse(&mut self, refusal: &Refusal) {
        match self.out.queue_with(|line| refusal.write(line)) {
            Ok(()) => self.answered = true,
            Err(error) => tracing::error!(%error, "an error answer could not be written"),
        }
    }

    /// Takes `tools/call` or `tools/list` if this transport answers it: once the SDK's loop has
    /// begun the session (with `initialize`, or with a first request of protocol 2026-07-28),
    /// in either era, after the checks the SDK makes of a request's `_meta` ([`Era::of`]).
    /// `line` is the whole request, kept if it has to wait (`waited`: it already did, and
    /// starts now).
    pub(super) fn take(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        line: &[u8],
        waited: bool,
    ) -> Taken {
        // Params are checked here whoever answers: the SDK answers a `tools/call` without
        // params as an unknown method.
        let refuse = |calls: &mut Self, message: String| {
            calls.refuse(&Refusal::new(
                Some(id.clone()),
                ErrorCode::INVALID_PARAMS,
                message,
            ));
            Taken::Done
        };
        match method {
            "tools/call" => {
                let mut params = match read_params::<CallToolRequestParams>(params, method) {
                    Ok(Some(params)) => params,
                    Ok(None) => return refuse(self, needs_params(method)),
                    Err(message) => return refuse(self, message),
                };
                let meta = params.meta.take().unwrap_or_default();
                let (peer, era) = match self.route(&meta) {
                    Route::Here(peer, era) => (peer, era),
                    Route::ToSdk => return Taken::ToSdk,
                    Route::Refused(error) => return self.refuse_with(id, error),
                };
                if !waited && self.must_wait(&id, line) {
                    return Taken::Done;
                }
                let mut cx = RequestContext::new(id, peer);
                cx.meta = meta;
                self.run(params, cx, era);
                Taken::Done
            }
            "tools/list" => {
                let params = match read_params::<PaginatedRequestParams>(params, method) {
                    Ok(params) => params.unwrap_or_default(),
                    Err(message) => return refuse(self, message),
                };
                let meta = params.meta.unwrap_or_default();
                let (views, era) = match self.route(&meta) {
                    Route::Here(peer, era) => {
                        let mut cx = RequestContext::new(id.clone(), peer);
                        cx.meta = meta;
                        (self.server.views_for(&cx, era), era)
                    }
                    Route::ToSdk => return Taken::ToSdk,
                    Route::Refused(error) => return self.refuse_with(id, error),
                };
                if waited || !self.must_wait(&id, line) {
                    self.list(id, params.cursor.as_deref(), era, views);
                }
                Taken::Done
            }
            _ => Taken::ToSdk,
        }
    }

    /// Who answers a request made with `meta`.
    fn route(&self, meta: &RequestMetaObject) -> Route {
        let Some((peer, initialized)) = self.server.session_peer() else {
            // The SDK's handshake decides what begins a session, and how to answer before.
            return Route::ToSdk;
        };
        match Era::of(
            meta,
            initialized,
            &self.server.supported_protocol_versions(),
        ) {
            Ok(era) => Route::Here(peer, era),
            Err(error) => Route::Refused(error),
        }
    }

    fn refuse_with(&mut self, id: RequestId, error: ErrorData) -> Taken {
        self.refuse(&Refusal {
            id: Some(id),
            error,
        });
        Taken::Done
    }

    /// Keeps the request to start later if [`MAX_RUNNING`] are running (or others wait before
    /// it), unless input has ended.
    fn must_wait(&mut self, id: &RequestId, line: &[u8]) -> bool {
        let full = lock(&self.flight).tasks >= self.max_running;
        if self.ending.is_some() || (!full && self.waiting.is_empty()) {
            return false;
        }
        self.waiting_bytes += line.len();
        self.waiting_ids.insert(id.clone());
        self.waiting.push_back(Waiting {
            id: id.clone(),
            line: line.into(),
        });
        true
    }

    /// The requests that waited and may start now (all of them once input has ended), as whole
    /// lines to read again.
    pub(super) fn startable(&mut self) -> Vec<Box<[u8]>> {
        if self.waiting.is_empty() {
            return Vec::new();
        }
        let mut free = if self.ending.is_some() {
            usize::MAX
        } else {
            self.max_running.saturating_sub(lock(&self.flight).tasks)
        };
        let mut lines = Vec::new();
        while free > 0
            && let Some(waiting) = self.waiting.pop_front()
        {
            self.waiting_bytes -= waiting.line.len();
            self.waiting_ids.remove(&waiting.id);
            lines.push(waiting.line);
            free -= 1;
        }
        lines
    }

    /// Requests wait for room.
    pub(super) fn has_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// The reader may read more: the output is not backed up, and not too much waits to start.
    pub(super) fn has_room(&self) -> bool {
        !self.out.is_backed_up() && self.waiting_bytes < MAX_WAITING
    }

    /// Runs the call and queues its answer. Most calls finish in their first poll, made here:
    /// they need no task, and their answers leave together once the lines read so far are
    /// handled ([`write_answers`](Self::write_answers)). A call still running after it goes on
    /// in a task of its own, as the SDK runs every call, and writes its answer itself. (A sync
    /// tool runs within that poll, as it would within the task: one that may block for long is
    /// marked `blocking`, and runs on the blocking pool.) Either way the call's token is
    /// cancelled once it is answered, so work it started in the background stops.
    fn run(&mut self, params: CallToolRequestParams, cx: RequestContext<RoleServer>, era: Era) {
        let id = cx.id.clone();
        let token = cx.ct.clone();
        let server = self.server.clone();
        let modern = (era == Era::Modern).then(|| self.server.server_info().clone());
        let mut call = Box::pin(async move { server.call(params, cx, era).await });
        // A waker that does nothing: a call not finished is polled again by its task, which
        // registers the task's own.
        let first = call
            .as_mut()
            .poll(&mut Context::from_waker(std::task::Waker::noop()));
        if let Poll::Ready(result) = first {
            drop(call);
            match queue_answer(&self.out, result, id, modern.as_deref()) {
                Ok(()) => self.answered = true,
                Err(error) => tracing::error!(%error, "a call's answer could not be written"),
            }
            token.cancel();
            return;
        }
        self.spawn(id, Some(token.clone()), async move {
            let result = call.await;
            move |out: &Output, id| {
                let queued = queue_answer(out, result, id, modern.as_deref());
                token.cancel();
                queued
            }
        });
    }

    /// Writes the page of `tools/list` asked for straight from the registry (see
    /// [`crate::listing`]), in a task of its own: a large page takes a millisecond.
    fn list(&mut self, id: RequestId, cursor: Option<&str>, era: Era, views: bool) {
        let page = self.server.list_page(cursor, era, views);
        self.spawn(id, None, async move {
            move |out: &Output, id| match page {
                Ok(page) => out.queue(&JsonRpcResponse {
                    jsonrpc: JsonRpcVersion2_0,
                    id,
                    result: page,
                }),
                Err(error) => out.queue(&ServerJsonRpcMessage::error(error, Some(id))),
            }
        });
    }

    /// Runs `work` in a task, then queues the answer it makes, unless the client cancelled the
    /// request meanwhile.
    fn spawn<A>(
        &self,
        id: RequestId,
        token: Option<CancellationToken>,
        work: impl Future<Output = A> + Send + 'static,
    ) where
        A: FnOnce(&Output, RequestId) -> io::Result<()> + Send,
    {
        {
            let mut flight = lock(&self.flight);
            flight.running.insert(id.clone(), token);
            flight.tasks += 1;
        }
        let flight = self.flight.clone();
        let out = self.out.clone();
        let wake = self.wake.clone();
        tokio::spawn(async move {
            let answer = work.await;
            // Gone from the map: the client cancelled it and expects no answer.
            let wanted = lock(&flight).running.remove(&id).is_some();
            let queued = if wanted { Some(answer(&out, id)) } else { None };
            // Counted until its answer is queued: the end of input waits for it.
            lock(&flight).tasks -= 1;
            wake.notify_one();
            let sent = match queued {
                Some(Ok(())) => out.flush().await,
                Some(Err(error)) => Err(error),
                None => Ok(()),
            };
            if let Err(error) = sent {
                tracing::debug!(%error, "the client is gone: an answer was not sent");
            }
        });
    }

    /// Writes the answers of the calls that finished as they started, in one write if the
    /// writer is free and the client's end takes them now, else in a task that waits for it.
    pub(super) fn write_answers(&mut self) {
        if !std::mem::take(&mut self.answered) || self.out.try_write() {
            return;
        }
        let out = self.out.clone();
        tokio::spawn(async move {
            if let Err(error) = out.flush().await {
                tracing::debug!(%error, "the client is gone: answers were not sent");
            }
        });
    }

    /// The client's `notifications/cancelled` for `id`: a call running or waiting here stops
    /// and is never answered; a request of the SDK's is the SDK's to stop (and it answers
    /// none).
    pub(super) fn cancel(&mut self, id: &RequestId) {
        let running = {
            let mut flight = lock(&self.flight);
            flight.sdk.remove(id);
            flight.running.remove(id)
        };
        if let Some(Some(token)) = running {
            token.cancel();
        }
        if self.waiting_ids.remove(id)
            && let Some(at) = self.waiting.iter().position(|w| &w.id == id)
            && let Some(waiting) = self.waiting.remove(at)
        {
            self.waiting_bytes -= waiting.line.len();
        }
    }

    /// Input has ended: every request that waits may start, and calls have `grace` to finish.
    pub(super) fn end_input(&mut self, grace: Duration) {
        self.ending.get_or_insert((Instant::now() + grace, false));
    }

    /// Once input has ended: waits until every call and listing here has queued its answer and
    /// the SDK has answered the requests it was given, until the grace period ends (then
    /// cancels the calls still running here, which answer that they were cancelled), and writes
    /// every answer. The SDK's loop goes on meanwhile (it polls this among its other work):
    /// the notifications of a call, and the SDK's own answers, still go out. Cancel-safe: the
    /// loop may drop it and call again; it goes on where it was.
    pub(super) async fn finish(&mut self) {
        let Some((deadline, _)) = self.ending else {
            return;
        };
        let grace = deadline.saturating_duration_since(Instant::now());
        loop {
            let woken = self.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if lock(&self.flight).idle() {
                break;
            }
            let now = Instant::now();
            let cancelled = self.ending.is_some_and(|(_, cancelled)| cancelled);
            if now >= deadline && !cancelled {
                let tokens: Vec<_> = lock(&self.flight)
                    .running
                    .values()
                    .flatten()
                    .cloned()
                    .collect();
                tracing::warn!(
                    calls = tokens.len(),
                    "input ended and the grace period is over: cancelling the calls still running"
                );
                for token in tokens {
                    token.cancel();
                }
                self.ending = Some((deadline, true));
            }
            let give_up = deadline + CANCELLED_ANSWER;
            if now >= give_up {
                let flight = lock(&self.flight);
                if flight.tasks > 0 {
                    tracing::error!(
                        "calls did not answer their cancellation: their answers are lost"
                    );
                } else {
                    tracing::error!(
                        requests = flight.sdk.values().filter(|&&awaited| awaited).count(),
                        "requests the SDK's loop serves did not finish in the grace period: \
                         their answers are lost"
                    );
                }
                break;
            }
            let next = if now < deadline { deadline } else { give_up };
            tokio::select! {
                () = &mut woken => {}
                () = tokio::time::sleep_until(next) => {}
            }
        }
        self.write_answers();
        // A client that stopped reading does not keep the server from exiting.
        let flushing = self.out.flush();
        match tokio::time::timeout(grace.max(CANCELLED_ANSWER), flushing).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::debug!(%error, "the client is gone: answers were not sent"),
            Err(_) => tracing::warn!("the client did not read the last answers"),
        }
    }

    /// Stops every call still running: the connection is gone, and no answer can be sent.
    pub(super) fn abandon(&self) {
        for token in lock(&self.flight).running.drain().filter_map(|(_, t)| t) {
            token.cancel();
        }
    }
}

/// `params` read as `P`; `None` when absent or null. The error names the member that failed.
pub(crate) fn read_params<P: serde::de::DeserializeOwned>(
    params: Option<&RawValue>,
    method: &str,
) -> Result<Option<P>, String> {
    let Some(params) = params else {
        return Ok(None);
    };
    // Read again to find where it failed: tracking the path costs every call it does not fail.
    serde_json::from_str(params.get()).map(Some).map_err(|_| {
        let mut json = serde_json::Deserializer::from_str(params.get());
        match serde_path_to_error::deserialize::<_, P>(&mut json) {
            Err(error) => invalid_params(method, error),
            Ok(_) => format!("Invalid params for `{method}`"),
        }
    })
}

/// The message for a request without the params its method needs.
pub(super) fn needs_params(method: &str) -> String {
    format!("Invalid params: `{method}` needs params (an object), and got none")
}

/// An invalid-params message: the JSON path of what failed (from `params`), and why, without
/// serde_json's position (a column within `params` says nothing to the client).
pub(super) fn invalid_params(
    method: &str,
    error: serde_path_to_error::Error<serde_json::Error>,
) -> String {
    let path = error.path().to_string();
    let inner = error.into_inner();
    let mut why = inner.to_string();
    if inner.line() > 0
        && let Some(at) = why.rfind(" at line ")
    {
        why.truncate(at);
    }
    let place = if path == "." {
        "params".to_owned()
    } else {
        format!("params.{path}")
    };
    format!("Invalid params for `{method}`: {place}: {why}")
}

/// Queues a call's answer ([`write_call_answer`]).
fn queue_answer(
    out: &Output,
    result: Result<CallAnswer, ErrorData>,
    id: RequestId,
    modern: Option<&ServerInfo>,
) -> io::Result<()> {
    out.queue_with(|line| write_call_answer(line, result, &id, modern))
}
