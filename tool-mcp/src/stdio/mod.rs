//! MCP over newline-delimited JSON-RPC (stdio, or any byte stream): the transport
//! [`serve_stdio`] and [`serve_io`] put a server on. What it guarantees is on [`serve_io`]; how:
//!
//! - [`frame`] cuts the input into lines; [`envelope`] reads every line as a JSON-RPC 2.0
//!   message first, and refuses what is not one;
//! - [`calls`] answers `tools/call` and `tools/list` of a begun session, in either era, by the
//!   same handler the SDK calls, with the context the SDK would build (the client's peer, the
//!   request's metadata, a cancellation token that `notifications/cancelled` fires and the
//!   answer cancels), and keeps the books that answer every request once: which ids are in
//!   flight, here or in the SDK, which calls wait for room, what the end of input waits for;
//! - [`output`] is the connection's one writer, with the backlog count backpressure reads;
//! - everything else (`initialize`, `server/discover`, the request that begins a 2026-07-28
//!   session, `ping`, log levels, answers to the server's own requests) goes on, already parsed, to the SDK's service loop ([`Lines`] is
//!   its [`Transport`]). The SDK's tasks ([`RequestContext`](rmcp::service::RequestContext)'s
//!   task-locals) are not around a call answered here: they tell Streamable HTTP which stream
//!   a server-to-client request belongs on, and stdio has one stream.
//!
//! Tool answers written here are byte for byte what the SDK writes; the tests check it against
//! the rmcp the workspace pins (`~3.11`), so a newer rmcp that writes differently fails them.

pub(crate) mod calls;
pub(crate) mod envelope;
mod frame;
mod output;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorCode, ErrorData, GetMeta as _,
    JsonRpcMessage, JsonRpcNotification, JsonRpcRequest,
};
use rmcp::service::{RxJsonRpcMessage, ServerInitializeError, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServerHandler as _, ServiceExt as _};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use self::calls::{Calls, Taken};
use self::envelope::{Message, Refusal};
use self::frame::{Frame, Frames};
use self::output::Output;
use super::error::ServeError;
use super::request::Era;
use super::server::McpServer;

/// Serves `server` on this process's stdin and stdout until the client closes stdin or
/// `shutdown` is cancelled; either way the calls in flight are answered first. What the
/// transport guarantees is on [`serve_io`].
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use tool_core::exec::Executor;
/// use tool_mcp::{McpServer, serve_stdio, shutdown_on_signal};
/// let server = McpServer::new(Executor::new(tool_core::Registry::linked()?));
/// serve_stdio(server, shutdown_on_signal()).await?;
/// # Ok(()) }
/// ```
pub async fn serve_stdio(server: McpServer, shutdown: CancellationToken) -> Result<(), ServeError> {
    let (read, write) = rmcp::transport::stdio_pipes();
    serve_io(server, read, write, shutdown).await
}

/// Serves `server` as newline-delimited JSON-RPC (MCP's stdio framing) on any byte stream: a
/// pipe, a socket, a child's stdio. Returns when the client closes its end or `shutdown` is
/// cancelled, once the calls in flight are answered; a client that leaves before `initialize`
/// ends it too, without an error.
///
/// - **Every request is answered once.** A request with a usable id (a string, or an integer
///   that fits an `i64`) gets exactly one answer, unless the client cancels it with
///   `notifications/cancelled`. Whatever else arrives gets the JSON-RPC 2.0 error it calls for:
///   a line that is not JSON -32700, a message that is not a valid request -32600 (with
///   `"id": null` when there is no usable id, else with the id), bad params -32602 (with the
///   id; the message names the member). A message that carries both `method` and
///   `result`/`error`, or a member twice, is refused; a second request with the id of one in
///   progress is refused with `"id": null`. Responses and notifications are never answered,
///   and a notification at any time, even before `initialize`, never ends the server.
/// - **`tools/call` and `tools/list` are answered by the transport** in every protocol
///   version, once the session has begun (with `initialize`, or with a first request of
///   protocol 2026-07-28 that the SDK's loop answers): the same handler the SDK would call,
///   with the same checks of a request's `_meta` (a version the server does not speak gets
///   -32022 with the supported list; a 2026-07-28 request without its `protocolVersion` or
///   `clientCapabilities`, -32602), without its service loop. A call's token is cancelled once it is
///   answered, so work it started in the background stops. At most 1,024 calls run at once
///   beyond their first poll; more wait, in order, until one finishes.
/// - **Backpressure.** While more than 1 MiB of answers waits for the client to read it, or
///   more than 4 MiB of requests wait to start, nothing more is read: a client that writes
///   without reading cannot grow the server's memory. Each byte of output is written once, so a
///   backlog drains in time proportional to its size.
/// - **The end of input** (the client closes its end, or `shutdown` is cancelled: `toolctl`
///   cancels it on SIGTERM and SIGINT): nothing more is read; the calls in flight, those the
///   SDK's loop serves among them (requests read before the session began), have
///   [`ServerOptions::shutdown_grace`](super::ServerOptions::shutdown_grace) (default 5 s) to
///   finish (each call's own time limit still ends it sooner), and their progress and log
///   notifications still go out; the ones still running then are cancelled and answer that
///   they were; every answer is written, and the function returns.
///
/// [`ServerOptions::sdk_transport`](super::ServerOptions::sdk_transport) serves the connection
/// through the SDK's own codec and loop instead, which give none of these guarantees: for
/// comparison, or as a fallback.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
/// use tool_core::exec::Executor;
/// use tool_mcp::{McpServer, serve_io};
/// let server = McpServer::new(Executor::new(tool_core::Registry::empty()));
/// let (client, server_end) = tokio::io::duplex(1 << 16);
/// let (read, write) = tokio::io::split(server_end);
/// let serving = tokio::spawn(serve_io(server, read, write, Default::default()));
/// let (client_read, mut client_write) = tokio::io::split(client);
/// client_write.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n").await.unwrap();
/// drop(client_write); // the end of input: answered, then done
/// let mut answer = String::new();
/// tokio::io::BufReader::new(client_read).read_line(&mut answer).await.unwrap();
/// assert_eq!(answer, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
/// assert!(serving.await.unwrap().is_ok());
/// # });
/// ```
pub async fn serve_io(
    server: McpServer,
    read: impl AsyncRead + Send + Unpin + 'static,
    write: impl AsyncWrite + Send + Unpin + 'static,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let connection = server.connection();
    let started = if server.options().sdk_transport {
        connection.serve_with_ct((read, write), shutdown).await
    } else {
        let transport = Lines::new(connection.clone(), read, write, shutdown);
        connection.serve(transport).await
    };
    let running = match started {
        Ok(running) => running,
        // Nothing began that could be left unanswered.
        Err(ServerInitializeError::ConnectionClosed(_) | ServerInitializeError::Cancelled) => {
            return Ok(());
        }
        Err(error) => return Err(Box::new(error).into()),
    };
    running.waiting().await?;
    server.stop_tasks(server.options().shutdown_grace).await;
    Ok(())
}

/// A server's end of one newline-delimited JSON-RPC connection: an rmcp [`Transport`] whose
/// `receive` hands the SDK only what it should see.
pub(super) struct Lines<R> {
    read: R,
    frames: Frames,
    shutdown: CancellationToken,
    /// Stdin ended, or `shutdown` was cancelled: nothing more is read.
    ended: bool,
    /// Messages parsed for the SDK's loop, in order.
    to_sdk: VecDeque<ClientJsonRpcMessage>,
    /// Whether the SDK's loop has begun the session (before that, its handshake ends the
    /// connection on any notification or response).
    session_begun: bool,
    calls: Calls,
    grace: Duration,
    /// Told when a task finishes or the output drains: the reader may have room again.
    wake: Arc<Notify>,
}

impl<R: AsyncRead + Send + Unpin + 'static> Lines<R> {
    pub(super) fn new(
        server: McpServer,
        read: R,
        write: impl AsyncWrite + Send + 'static,
        shutdown: CancellationToken,
    ) -> Self {
        let wake = Arc::new(Notify::new());
        let out = Arc::new(Output::new(Box::pin(write), wake.clone()));
        let grace = server.options().shutdown_grace;
        Self {
            read,
            frames: Frames::default(),
            shutdown,
            ended: false,
            to_sdk: VecDeque::new(),
            session_begun: false,
            calls: Calls::new(server, out, wake.clone()),
            grace,
            wake,
        }
    }

    /// Handles every whole line read so far.
    fn split(&mut self) {
        let mut frames = std::mem::take(&mut self.frames);
        frames.split(|frame| self.frame(frame));
        self.frames = frames;
    }

    /// Nothing more is read. At the end of the stream (`eof`) the rest of the buffer is the
    /// last line; on a shutdown it is part of a line that never came whole.
    fn end_input(&mut self, eof: bool) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let mut frames = std::mem::take(&mut self.frames);
        if eof {
            frames.finish(|frame| self.frame(frame));
        }
        self.calls.end_input(self.grace);
    }

    fn frame(&mut self, frame: Frame<'_>) {
        match frame {
            Frame::Line(line) => self.line(line, false),
            Frame::TooLong => self.calls.refuse(&Refusal::new(
                None,
                ErrorCode::INVALID_REQUEST,
                format!(
                    "Invalid request: the message is longer than {} MiB, the most this server reads",
                    frame::MAX_LINE >> 20
                ),
            )),
        }
    }

    /// One message (`waited`: a request that waited for room, started now).
    fn line(&mut self, line: &[u8], waited: bool) {
        match envelope::read(line) {
            Message::Blank => {}
            Message::Invalid(refusal) => self.calls.refuse(&refusal),
            Message::Dropped(why) => tracing::debug!("a message was dropped: {why}"),
            Message::Request(request) => {
                if !waited && self.calls.in_flight(&request.id) {
                    let id = serde_json::to_string(&request.id).unwrap_or_default();
                    self.calls.refuse(&Refusal::new(
                        None,
                        ErrorCode::INVALID_REQUEST,
                        format!(
                            "Invalid request: the id {id} is already used by a request in progress"
                        ),
                    ));
                    return;
                }
                let id = request.id.clone();
                if let Taken::ToSdk =
                    self.calls
                        .take(request.id, &request.method, request.params, line, waited)
                {
                    self.request_to_sdk(id, &request.method, line);
                }
            }
            Message::Notification { method } => self.notification_to_sdk(&method, line),
            Message::Response { id } => self.response_to_sdk(id, line),
        }
    }

    fn request_to_sdk(&mut self, id: rmcp::model::RequestId, method: &str, line: &[u8]) {
        let request = match parse::<JsonRpcRequest<ClientRequest>>(line) {
            // The SDK reads a method it knows, without the params it needs, as a method of
            // its own, and answers that no such method exists.
            Ok(request)
                if matches!(request.request, ClientRequest::CustomRequest(_)) && knows(method) =>
            {
                let message = calls::needs_params(method);
                self.calls
                    .refuse(&Refusal::new(Some(id), ErrorCode::INVALID_PARAMS, message));
                return;
            }
            Ok(request) => request,
            Err(error) => {
                let message = calls::invalid_params(method, error);
                self.calls
                    .refuse(&Refusal::new(Some(id), ErrorCode::INVALID_PARAMS, message));
                return;
            }
        };
        if !self.session_begun && begins_session(&request.request, self.calls.server()) {
            self.session_begun = true;
        }
        let lasts = matches!(
            request.request,
            ClientRequest::SubscriptionsListenRequest(_)
        );
        self.calls.sent_to_sdk(id, !lasts);
        self.to_sdk.push_back(JsonRpcMessage::Request(request));
    }

    fn notification_to_sdk(&mut self, method: &str, line: &[u8]) {
        let notification = match parse::<JsonRpcNotification<ClientNotification>>(line) {
            Ok(notification) => notification,
            Err(error) => {
                tracing::debug!(method, %error, "a notification was dropped: its params are not valid");
                return;
            }
        };
        if let ClientNotification::CancelledNotification(cancelled) = &notification.notification
            && let Some(id) = &cancelled.params.request_id
        {
            self.calls.cancel(id);
        }
        if !self.session_begun {
            tracing::debug!(
                method,
                "a notification before the session began was dropped"
            );
            return;
        }
        self.to_sdk
            .push_back(JsonRpcMessage::Notification(notification));
    }

    fn response_to_sdk(&mut self, id: rmcp::model::RequestId, line: &[u8]) {
        if !self.session_begun {
            tracing::debug!(%id, "a response before the session began was dropped");
            return;
        }
        let message = parse::<ClientJsonRpcMessage>(line).unwrap_or_else(|error| {
            // The request it answers ends with an error rather than waiting for its time limit.
            ClientJsonRpcMessage::error(
                ErrorData::invalid_params(
                    format!(
                        "the client's answer could not be read: {}",
                        error.into_inner()
                    ),
                    None,
                ),
                Some(id),
            )
        });
        self.to_sdk.push_back(message);
    }
}

/// `line` (UTF-8, checked by [`envelope::read`]) as `T`, with the path of what failed.
fn parse<T: serde::de::DeserializeOwned>(
    line: &[u8],
) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_slice(line))
}

/// Whether `method` is one of the SDK's own requests ([`ClientRequest`]'s variants).
fn knows(method: &str) -> bool {
    use rmcp::model::*;
    fn value<M: ConstString>() -> &'static str {
        M::VALUE
    }
    [
        value::<PingRequestMethod>(),
        value::<InitializeResultMethod>(),
        value::<DiscoverRequestMethod>(),
        value::<CompleteRequestMethod>(),
        value::<SetLevelRequestMethod>(),
        value::<GetPromptRequestMethod>(),
        value::<ListPromptsRequestMethod>(),
        value::<ListResourcesRequestMethod>(),
        value::<ListResourceTemplatesRequestMethod>(),
        value::<ReadResourceRequestMethod>(),
        value::<SubscriptionsListenRequestMethod>(),
        value::<SubscribeRequestMethod>(),
        value::<UnsubscribeRequestMethod>(),
        value::<CallToolRequestMethod>(),
        value::<ListToolsRequestMethod>(),
        value::<GetTaskMethod>(),
        value::<UpdateTaskMethod>(),
        value::<CancelTaskMethod>(),
        value::<ListSkillsRequestMethod>(),
        value::<GetSkillRequestMethod>(),
        value::<ReadResourceDirectoryRequestMethod>(),
    ]
    .contains(&method)
}

/// Whether the SDK's handshake, given `request`, begins the session: `initialize`, or a request
/// that says who is asking in a version the server speaks, by the rule every request of a
/// session without `initialize` is held to ([`Era::of`]). (The SDK's own rule, in
/// `serve_server_with_ct_inner`; the tests pin it.)
fn begins_session(request: &ClientRequest, server: &McpServer) -> bool {
    match request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        request => Era::of(
            request.get_meta(),
            false,
            &server.supported_protocol_versions(),
        )
        .is_ok(),
    }
}

impl<R: AsyncRead + Send + Unpin + 'static> Transport<RoleServer> for Lines<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let out = &self.calls.out;
        // Queued now, written by whoever writes next: messages leave in the order they are sent.
        let queued = match &item {
            JsonRpcMessage::Response(response) => {
                self.calls.answered_by_sdk(&response.id);
                out.queue(&item)
            }
            JsonRpcMessage::Error(error) => match &error.id {
                Some(id) => {
                    self.calls.answered_by_sdk(id);
                    out.queue(&item)
                }
                // rmcp leaves the member out; JSON-RPC wants `"id": null`.
                None => out.queue_with(|line| {
                    Refusal {
                        id: None,
                        error: error.error.clone(),
                    }
                    .write(line)
                }),
            },
            _ => out.queue(&item),
        };
        let out = out.clone();
        async move {
            queued?;
            out.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        // Cancel-safe, as the SDK's loop needs: every await below either takes nothing (a read
        // that does not finish) or leaves its progress in `self`.
        loop {
            for line in self.calls.startable() {
                self.line(&line, true);
            }
            self.calls.write_answers();
            if let Some(message) = self.to_sdk.pop_front() {
                return Some(message);
            }
            if self.ended {
                self.calls.finish().await;
                return None;
            }
            if !self.calls.has_room() {
                let wake = self.wake.clone();
                let woken = wake.notified();
                tokio::pin!(woken);
                woken.as_mut().enable();
                // Checked again now that a wake-up cannot be missed.
                if !self.calls.has_room() {
                    tokio::select! {
                        biased;
                        () = self.shutdown.cancelled() => self.end_input(false),
                        () = &mut woken => {}
                    }
                }
                continue;
            }
            // A call that finishes makes room for one that waits: the reader starts it.
            let wake = self.wake.clone();
            let waits = self.calls.has_waiting();
            tokio::select! {
                biased;
                () = self.shutdown.cancelled() => self.end_input(false),
                () = wake.notified(), if waits => {}
                more = self.frames.fill(&mut self.read) => {
                    self.split();
                    if !more {
                        self.end_input(true);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.calls.abandon();
        // A client that stopped reading does not keep the server from exiting.
        tokio::time::timeout(
            self.grace.max(Duration::from_secs(1)),
            self.calls.out.flush(),
        )
        .await
        .unwrap_or(Ok(()))
    }
}

impl<R> Drop for Lines<R> {
    fn drop(&mut self) {
        self.calls.abandon();
    }
}
