//! The transport [`serve_stdio`](super::serve_stdio) and [`serve_io`](super::serve_io) put a
//! server on: newline-delimited JSON-RPC, with `tools/call` and `tools/list` answered where
//! they are read instead of through the SDK's service loop.
//!
//! The SDK's codec parses every line into a large untagged enum, and its service loop hands
//! each request through two channels and three tasks inside tracing spans: together about four
//! fifths of the instructions a `tools/call` cost. Here the lines are split and looked at
//! first. A call of a session begun with `initialize` (every protocol before 2026-07-28) is
//! parsed straight into the SDK's `CallToolRequestParams` and run by the same handler with the
//! context the SDK would build (the client's peer, the request's metadata, a cancellation token
//! that `notifications/cancelled` fires). Its first poll is made where it is read: a call that
//! finishes then (most do) costs no task, and the answers of every such call in one read leave
//! in one write. A call still running goes on in a task of its own, and is answered straight to
//! the writer, or not at all once cancelled. An answer without media is written straight from
//! the call's outcome, as the SDK would serialize its `CallToolResult` ([`super::result`]). A
//! listing of such a session is written straight from the registry ([`super::listing`]),
//! without the copy of every schema the SDK's types need. Every other line (`initialize`, log
//! levels, requests of the 2026-07-28 protocol, answers to the server's own requests, malformed
//! lines) goes on to the SDK's own codec and service loop, as before.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientNotification, ErrorData, JsonRpcMessage,
    JsonRpcResponse, JsonRpcVersion2_0, PaginatedRequestParams, RequestId, ServerJsonRpcMessage,
    ServerResult,
};
use rmcp::service::{RequestContext, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite};
use tokio_util::sync::CancellationToken;

use super::McpServer;
use super::result::{CallOutcome, call_result, text_result};
use super::server::lock;

type Writer = Pin<Box<dyn AsyncWrite + Send>>;

/// The longest line read, as the SDK's codec allows (a longer one is dropped, and logged).
const MAX_LINE: usize = 16 * 1024 * 1024;

/// The largest buffer kept once empty: enough for the usual message, not for a rare large one.
const KEEP: usize = 64 * 1024;

/// A server's end of one newline-delimited JSON-RPC connection.
pub(super) struct Lines<R> {
    read: R,
    /// Bytes read and not yet split into lines. The unfinished line is at the front, and its
    /// first `scanned` bytes hold no newline: a long line is searched once, not per read.
    buf: Vec<u8>,
    scanned: usize,
    /// Dropping the rest of a line longer than [`MAX_LINE`].
    discarding: bool,
    eof: bool,
    /// The SDK's codec, reading the lines this module passes on (and replying to the ones
    /// that are JSON but no message).
    inner: AsyncRwTransport<RoleServer, Feed, Shared>,
    feed: Feed,
    calls: Calls,
}

/// What a call answered here needs.
struct Calls {
    out: Arc<Output>,
    server: McpServer,
    /// Calls answered here and still running after their first poll, by request id: to
    /// cancel one when the client asks, and every one when the connection ends.
    running: Arc<Mutex<HashMap<RequestId, CancellationToken>>>,
    /// Answers queued by calls that finished as they started, not yet written.
    answered: bool,
}

impl<R: AsyncRead + Send + Unpin + 'static> Lines<R> {
    pub(super) fn new(server: McpServer, read: R, write: impl AsyncWrite + Send + 'static) -> Self {
        let out = Arc::new(Output::new(Box::pin(write)));
        let feed = Feed::default();
        Self {
            read,
            buf: Vec::new(),
            scanned: 0,
            discarding: false,
            eof: false,
            inner: AsyncRwTransport::new(feed.clone(), Shared::new(out.clone())),
            feed,
            calls: Calls {
                out,
                server,
                running: Arc::default(),
                answered: false,
            },
        }
    }

    /// Takes every whole line read so far: calls start here, the rest go to the SDK's codec.
    fn split_lines(&mut self) {
        let mut start = 0;
        while let Some(end) = newline(&self.buf[start + self.scanned..]) {
            let end = start + self.scanned + end;
            let line = &self.buf[start..end];
            start = end + 1;
            self.scanned = 0;
            if std::mem::take(&mut self.discarding) {
                continue;
            }
            if line.len() > MAX_LINE {
                too_long();
                continue;
            }
            if !self.calls.start(line) {
                self.feed.push(line);
            }
        }
        // Keep the unfinished line at the front, unless it has grown too long to keep.
        self.buf.drain(..start);
        self.scanned = self.buf.len();
        if self.buf.len() > MAX_LINE {
            too_long();
            self.buf.clear();
            self.scanned = 0;
            self.discarding = true;
        }
        // A large request's buffer is not kept for the rest of the connection.
        if self.buf.is_empty() && self.buf.capacity() > KEEP {
            self.buf = Vec::new();
        }
    }
}

fn too_long() {
    tracing::error!(
        max_line_length = MAX_LINE,
        "Incoming message exceeded the maximum line length, discarding it"
    );
}

/// Reads more bytes into `buf`; false at the end of the stream.
async fn fill(read: &mut (impl AsyncRead + Unpin), buf: &mut Vec<u8>) -> bool {
    const CHUNK: usize = 8 * 1024;
    buf.reserve(CHUNK);
    match read.read_buf(buf).await {
        Ok(0) => false,
        Ok(_) => true,
        Err(error) => {
            tracing::error!(%error, "Error reading from stream");
            false
        }
    }
}

impl Calls {
    /// Starts `line` here if it is a request this module may take: a well-formed `tools/call`
    /// or `tools/list` of a session begun with `initialize`, naming no protocol version of its
    /// own.
    fn start(&mut self, line: &[u8]) -> bool {
        // Checked as UTF-8 once, not string by string as `from_slice` checks it.
        let Ok(line) = std::str::from_utf8(line) else {
            return false;
        };
        // Any other line fails to parse as either (its params are not a call's, nor a
        // listing's), or names another method: both go on to the SDK, which reads them as before.
        match serde_json::from_str::<CallLine<'_>>(line) {
            Ok(call) => self.start_call(call),
            Err(_) => self.start_listing(line),
        }
    }

    fn start_call(&mut self, call: CallLine<'_>) -> bool {
        if call.method != "tools/call" {
            return false;
        }
        let Some(peer) = self.server.session_peer() else {
            return false;
        };
        let mut params = call.params;
        let meta = params.meta.take().unwrap_or_default();
        // A request that names its protocol version is checked by the SDK.
        if meta.protocol_version().is_some() {
            return false;
        }
        let mut cx = RequestContext::new(call.id, peer);
        cx.meta = meta;
        self.run(params, cx);
        true
    }

    /// Writes the page of `tools/list` asked for straight from the registry (see
    /// [`super::listing`]), in a task of its own: a large page takes a millisecond.
    fn start_listing(&self, line: &str) -> bool {
        let Ok(list) = serde_json::from_str::<ListLine<'_>>(line) else {
            return false;
        };
        if list.method != "tools/list" || self.server.session_peer().is_none() {
            return false;
        }
        let params = list.params.unwrap_or_default();
        if params
            .meta
            .is_some_and(|meta| meta.protocol_version().is_some())
        {
            return false;
        }
        let page = self.server.list_page(params.cursor.as_deref());
        let id = list.id;
        let out = self.out.clone();
        tokio::spawn(async move {
            // Written out of the queue's lock: other answers are not held up while it is.
            let line = match page {
                Ok(page) => line_of(&JsonRpcResponse {
                    jsonrpc: JsonRpcVersion2_0,
                    id,
                    result: page,
                }),
                Err(error) => line_of(&ServerJsonRpcMessage::error(error, Some(id))),
            };
            let sent = match line {
                Ok(line) => {
                    out.queue_bytes(&line);
                    out.flush().await
                }
                Err(error) => Err(error),
            };
            if let Err(error) = sent {
                tracing::debug!(%error, "the client is gone: a listing was not sent");
            }
        });
        true
    }

    /// Runs the call and queues its answer. Most calls finish in their first poll, made here:
    /// they need no task, and their answers leave together once the lines read so far are
    /// started ([`write_answers`](Self::write_answers)). A call still running after it goes on
    /// in a task of its own, as the SDK runs every call, and writes its answer itself. (A sync
    /// tool runs within that poll, as it would within the task: one that may block for long is
    /// marked `blocking`, and runs on the blocking pool.)
    fn run(&mut self, params: CallToolRequestParams, cx: RequestContext<RoleServer>) {
        let id = cx.id.clone();
        let cancel = cx.ct.clone();
        let server = self.server.clone();
        let mut call = Box::pin(async move { server.call(params, cx).await });
        // A waker that does nothing: a call not finished is polled again by its task, which
        // registers the task's own.
        let first = call
            .as_mut()
            .poll(&mut Context::from_waker(std::task::Waker::noop()));
        if let Poll::Ready(result) = first {
            match queue_answer(&self.out, result, id) {
                Ok(()) => self.answered = true,
                Err(error) => tracing::debug!(%error, "a call's answer could not be written"),
            }
            return;
        }
        lock(&self.running).insert(id.clone(), cancel);
        let running = self.running.clone();
        let out = self.out.clone();
        tokio::spawn(async move {
            let result = call.await;
            // Gone from the map: the client cancelled it and expects no answer.
            if lock(&running).remove(&id).is_none() {
                return;
            }
            let sent = match queue_answer(&out, result, id) {
                Ok(()) => out.flush().await,
                Err(error) => Err(error),
            };
            if let Err(error) = sent {
                tracing::debug!(%error, "the client is gone: a call's answer was not sent");
            }
        });
    }

    /// Writes the answers of the calls that finished as they started, in one write if the
    /// writer is free and the client's end takes them now, else in a task that waits for it.
    fn write_answers(&mut self) {
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

    /// Stops every call still running: the connection has ended, and no answer is sent.
    fn close(&self) {
        for (_, call) in lock(&self.running).drain() {
            call.cancel();
        }
    }

    /// Cancels a call running here, if `message` is the client's `notifications/cancelled`.
    fn cancel(&self, message: &RxJsonRpcMessage<RoleServer>) {
        if let JsonRpcMessage::Notification(notification) = message
            && let ClientNotification::CancelledNotification(cancelled) = &notification.notification
            && let Some(id) = &cancelled.params.request_id
            && let Some(call) = lock(&self.running).remove(id)
        {
            call.cancel();
        }
    }
}

/// A `tools/call` request, read straight into the SDK's types.
#[derive(Deserialize)]
struct CallLine<'a> {
    #[allow(dead_code)] // Read to refuse what is not JSON-RPC 2.0.
    jsonrpc: Version2,
    id: RequestId,
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: CallToolRequestParams,
}

/// A `tools/list` request.
#[derive(Deserialize)]
struct ListLine<'a> {
    #[allow(dead_code)] // Read to refuse what is not JSON-RPC 2.0.
    jsonrpc: Version2,
    id: RequestId,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(default)]
    params: Option<PaginatedRequestParams>,
}

/// Queues a call's answer, in the wire shape the SDK gives a session begun with `initialize`:
/// written straight from the outcome ([`text_result`]) unless it has media.
fn queue_answer(
    out: &Output,
    result: Result<CallOutcome, ErrorData>,
    id: RequestId,
) -> io::Result<()> {
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(error) => return out.queue(&ServerJsonRpcMessage::error(error, Some(id))),
    };
    if let Some(result) = text_result(&outcome) {
        return out.queue_with(|line| {
            line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
            serde_json::to_writer(&mut *line, &id)?;
            line.extend_from_slice(br#","result":"#);
            result.write(line)?;
            line.push(b'}');
            Ok(())
        });
    }
    let mut result = ServerResult::from(CallToolResponse::from(call_result(outcome)));
    result.strip_result_type_for_legacy_peer();
    result.strip_non_object_output_for_legacy_peer();
    out.queue(&ServerJsonRpcMessage::response(result, id))
}

/// `"jsonrpc": "2.0"`, checked in place (the SDK's type copies the string first). Any other
/// value fails the line's parse, and the line goes on to the SDK.
struct Version2;

impl<'de> Deserialize<'de> for Version2 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Version2;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(r#""2.0""#)
            }
            fn visit_str<E: serde::de::Error>(self, version: &str) -> Result<Version2, E> {
                match version {
                    "2.0" => Ok(Version2),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(version), &self)),
                }
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

/// `message` as one line of JSON.
fn line_of(message: &impl serde::Serialize) -> io::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    Ok(line)
}

fn newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

impl<R: AsyncRead + Send + Unpin + 'static> Transport<RoleServer> for Lines<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        // Queued now, written by whoever writes next: messages leave in the order they are sent.
        let queued = self.calls.out.queue(&item);
        let out = self.calls.out.clone();
        async move {
            queued?;
            out.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        // Cancel-safe, as the service loop needs: reading keeps a partial line in `buf`, and
        // the SDK's codec keeps its own.
        loop {
            self.split_lines();
            self.calls.write_answers();
            if self.eof {
                self.feed.close();
                let message = self.inner.receive().await;
                match &message {
                    Some(message) => self.calls.cancel(message),
                    None => self.calls.close(),
                }
                return message;
            }
            // The SDK's codec is polled only when it may have a message: not while it waits
            // for the feed to get a line, which only this loop gives it.
            let inner_waits = self.feed.waiting();
            tokio::select! {
                biased;
                message = self.inner.receive(), if !inner_waits => {
                    if let Some(message) = &message {
                        self.calls.cancel(message);
                    }
                    // The SDK sees a cancellation too: it cancels the requests it runs itself.
                    return message;
                }
                more = fill(&mut self.read, &mut self.buf) => self.eof = !more,
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.calls.close();
        self.calls.out.flush().await
    }
}

impl<R> Drop for Lines<R> {
    fn drop(&mut self) {
        self.calls.close();
    }
}

/// The lines passed on to the SDK's codec: a reader over a queue this module fills.
#[derive(Clone, Default)]
struct Feed(Arc<Mutex<FeedState>>);

#[derive(Default)]
struct FeedState {
    bytes: std::collections::VecDeque<u8>,
    closed: bool,
    reader: Option<std::task::Waker>,
}

impl Feed {
    fn push(&self, line: &[u8]) {
        let mut state = lock(&self.0);
        state.bytes.extend(line);
        state.bytes.push_back(b'\n');
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
    }

    /// The SDK's codec has read all it was given, and waits for more.
    fn waiting(&self) -> bool {
        lock(&self.0).reader.is_some()
    }

    fn close(&self) {
        let mut state = lock(&self.0);
        state.closed = true;
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
    }
}

impl AsyncRead for Feed {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut state = lock(&self.0);
        if state.bytes.is_empty() {
            if state.closed {
                return Poll::Ready(Ok(()));
            }
            state.reader = Some(cx.waker().clone());
            return Poll::Pending;
        }
        let n = buf.remaining().min(state.bytes.len());
        let (front, back) = state.bytes.as_slices();
        let from_front = n.min(front.len());
        buf.put_slice(&front[..from_front]);
        buf.put_slice(&back[..n - from_front]);
        state.bytes.drain(..n);
        Poll::Ready(Ok(()))
    }
}

/// Every message of a connection goes out through one writer, whole lines at a time. A
/// sender queues its line, then takes the writer in turn and writes everything queued so
/// far: under load one write carries many answers, and a sender that finds its line already
/// written has nothing left to do.
struct Output {
    queued: Mutex<Vec<u8>>,
    writer: tokio::sync::Mutex<(Writer, Vec<u8>)>,
}

impl Output {
    fn new(writer: Writer) -> Self {
        Self {
            queued: Mutex::new(Vec::new()),
            writer: tokio::sync::Mutex::new((writer, Vec::new())),
        }
    }

    fn queue(&self, message: &impl serde::Serialize) -> io::Result<()> {
        self.queue_with(|line| serde_json::to_writer(line, message))
    }

    /// Queues the line `write` appends, or nothing if it fails.
    fn queue_with(
        &self,
        write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
    ) -> io::Result<()> {
        let mut queued = lock(&self.queued);
        let start = queued.len();
        if let Err(error) = write(&mut queued) {
            queued.truncate(start);
            return Err(error.into());
        }
        queued.push(b'\n');
        Ok(())
    }

    fn queue_bytes(&self, bytes: &[u8]) {
        lock(&self.queued).extend_from_slice(bytes);
    }

    /// Writes everything queued, after whatever an earlier sender is writing.
    async fn flush(&self) -> io::Result<()> {
        let mut guard = self.writer.lock().await;
        let (writer, batch) = &mut *guard;
        self.take_queued(batch);
        let written = std::future::poll_fn(|cx| poll_drain(writer, batch, cx)).await;
        if written.is_err() {
            batch.clear();
        }
        keep_small(batch);
        written
    }

    /// Writes everything queued if that needs no waiting: the writer is free and takes it all
    /// now. False if something is left for [`flush`](Self::flush) (which also meets and
    /// reports an error this one saw).
    fn try_write(&self) -> bool {
        let Ok(mut guard) = self.writer.try_lock() else {
            return false;
        };
        let (writer, batch) = &mut *guard;
        self.take_queued(batch);
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let done = matches!(poll_drain(writer, batch, &mut cx), Poll::Ready(Ok(())));
        keep_small(batch);
        done
    }

    /// Moves what is queued to the end of `batch`, which holds what is still to be written.
    fn take_queued(&self, batch: &mut Vec<u8>) {
        let mut queued = lock(&self.queued);
        if batch.is_empty() {
            // Swapped with the spare buffer: neither is reallocated once both have grown.
            std::mem::swap(batch, &mut *queued);
        } else {
            batch.append(&mut queued);
        }
    }
}

/// Writes `batch` from its front until it is empty, each write taken off it: what a pending or
/// cancelled write leaves is still at the front for the next.
fn poll_drain(
    writer: &mut Writer,
    batch: &mut Vec<u8>,
    cx: &mut Context<'_>,
) -> Poll<io::Result<()>> {
    while !batch.is_empty() {
        match std::task::ready!(writer.as_mut().poll_write(cx, batch))? {
            0 => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
            n => drop(batch.drain(..n)),
        }
    }
    writer.as_mut().poll_flush(cx)
}

/// A large answer (a listing) leaves no buffer of its size behind: the next swap would hand it
/// to the queue, and both would stay that large while the server idles.
fn keep_small(batch: &mut Vec<u8>) {
    if batch.is_empty() && batch.capacity() > KEEP {
        *batch = Vec::new();
    }
}

/// The writer the SDK's codec is given (for its replies to malformed lines): it passes whole
/// lines to the connection's [`Output`], so they never land inside another message.
struct Shared {
    out: Arc<Output>,
    line: Vec<u8>,
    flushing: Option<Pin<Box<dyn Future<Output = io::Result<()>> + Send>>>,
}

impl Shared {
    fn new(out: Arc<Output>) -> Self {
        Self {
            out,
            line: Vec::new(),
            flushing: None,
        }
    }
}

impl AsyncWrite for Shared {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.line.extend_from_slice(buf);
        // Only complete lines leave: JSON text holds no raw newline, so each is a message.
        if let Some(end) = this.line.iter().rposition(|&b| b == b'\n') {
            this.out.queue_bytes(&this.line[..=end]);
            this.line.drain(..=end);
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let flushing = this.flushing.get_or_insert_with(|| {
            let out = this.out.clone();
            Box::pin(async move { out.flush().await })
        });
        let done = flushing.as_mut().poll(cx);
        if done.is_ready() {
            this.flushing = None;
        }
        done
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;
    use rmcp::ServiceExt as _;
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream};

    use super::*;
    use crate::exec::Executor;
    use crate::{DynamicTool, Registry, ToolError, ToolOutput};

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

    fn server() -> McpServer {
        let wait = DynamicTool::new(
            "wait_forever",
            "Waits until cancelled.",
            json!({"type": "object"}),
        )
        .handler(|_, ctx| async move {
            ctx.cancellation().cancelled().await;
            Err(ToolError::failed("cancelled"))
        });
        serving([add_numbers(), wait])
    }

    fn add_numbers() -> DynamicTool {
        DynamicTool::new("add_numbers", "Adds a and b.", json!({"type": "object"})).handler(
            |input, _| async move {
                let sum = input["a"].as_i64().unwrap_or(0) + input["b"].as_i64().unwrap_or(0);
                Ok(ToolOutput::text(sum.to_string()))
            },
        )
    }

    fn serving(tools: impl IntoIterator<Item = DynamicTool>) -> McpServer {
        let mut registry = Registry::empty();
        registry.register_all(tools).unwrap();
        McpServer::new(Executor::new(registry))
    }

    /// A raw client: the test's end of a connection served by [`Lines`], and the connection's
    /// server handle.
    struct Raw {
        write: tokio::io::WriteHalf<DuplexStream>,
        read: BufReader<tokio::io::ReadHalf<DuplexStream>>,
        connection: McpServer,
    }

    impl Raw {
        fn start() -> Self {
            Self::serving(server())
        }

        fn serving(server: McpServer) -> Self {
            let (client, served) = tokio::io::duplex(1 << 16);
            let connection = server.connection();
            let transport = {
                let (read, write) = tokio::io::split(served);
                Lines::new(connection.clone(), read, write)
            };
            let handle = connection.clone();
            tokio::spawn(async move {
                if let Ok(running) = handle.serve(transport).await {
                    let _ = running.waiting().await;
                }
            });
            let (read, write) = tokio::io::split(client);
            Self {
                write,
                read: BufReader::new(read),
                connection,
            }
        }

        async fn send(&mut self, bytes: &[u8]) {
            self.write.write_all(bytes).await.unwrap();
        }

        async fn line(&mut self) -> Value {
            let mut line = String::new();
            tokio::time::timeout(Duration::from_secs(5), self.read.read_line(&mut line))
                .await
                .expect("an answer in time")
                .unwrap();
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
        }

        /// Initializes, and waits until calls are answered by the transport.
        async fn initialized(&mut self) {
            self.send(format!("{INITIALIZE}\n{INITIALIZED}\n").as_bytes())
                .await;
            assert_eq!(self.line().await["id"], 0);
            started(&self.connection).await;
        }
    }

    /// Waits until the connection's session has begun (its `initialize` handled).
    async fn started(connection: &McpServer) {
        for _ in 0..2500 {
            if connection.session_peer().is_some() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        panic!("the session did not start");
    }

    fn call(id: i64, a: i64, b: i64) -> String {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "add_numbers", "arguments": {"a": a, "b": b}}})
        .to_string()
    }

    /// Everything `opening` and then `rest` get back from a server on this transport, or on the
    /// SDK's own, sorted by id; read until the server has been quiet for a while.
    async fn answers(opening: &str, rest: &str, through_lines: bool) -> Vec<Value> {
        let (client, served) = tokio::io::duplex(1 << 16);
        let connection = server().connection();
        let handle = connection.clone();
        tokio::spawn(async move {
            let running = if through_lines {
                let (read, write) = tokio::io::split(served);
                let transport = Lines::new(handle.clone(), read, write);
                handle.serve(transport).await
            } else {
                handle.serve(served).await
            };
            if let Ok(running) = running {
                let _ = running.waiting().await;
            }
        });
        let (read, mut write) = tokio::io::split(client);
        write.write_all(opening.as_bytes()).await.unwrap();
        // Once the session has started, this transport answers the calls itself.
        started(&connection).await;

        write.write_all(rest.as_bytes()).await.unwrap();
        let mut read = BufReader::new(read);
        let mut answers = Vec::new();
        loop {
            let mut line = String::new();
            let quiet = Duration::from_millis(300);
            match tokio::time::timeout(quiet, read.read_line(&mut line)).await {
                Ok(Ok(n)) if n > 0 => answers.push(serde_json::from_str::<Value>(&line).unwrap()),
                _ => break,
            }
        }
        answers.sort_by_key(|a| a["id"].to_string());
        answers
    }

    /// Whatever a call's line looks like, and whether or not it comes before the session has
    /// started, the client gets what the SDK's own transport would give it.
    #[tokio::test]
    async fn every_line_is_answered_as_the_sdks_own_transport_answers_it() {
        // A call before `initialized`, read with the `initialize` before it, is the SDK's.
        let opening = format!("{INITIALIZE}\n{}\n{INITIALIZED}\n", call(1, 1, 1));
        let lines = [
            "not json",
            r#"{"foo": 1}"#,
            "",
            &format!("{}\r", call(2, 2, 3)),
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"nope"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add_numbers","arguments":{"a":1},"_meta":{"protocolVersion":"2025-06-18"}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add_numbers","arguments":[1,2]}}"#,
            r#"{"jsonrpc":"1.0","id":5,"method":"tools/call","params":{"name":"add_numbers"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add_numbers"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":"1"}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":"3"}}"#,
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}"#,
            r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"add_numbers","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}"#,
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"1.0","id":13,"method":"tools/list"}"#,
        ];
        let rest = lines.join("\n") + "\n";
        let sdk = answers(&opening, &rest, false).await;
        let ours = answers(&opening, &rest, true).await;
        // The same requests answered (a clearer message than the whole answers' difference).
        let ids = |answers: &[Value]| {
            answers
                .iter()
                .map(|a| a["id"].to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&ours), ids(&sdk));
        assert_eq!(ours, sdk);
        // Fourteen requests answered, and three lines that are JSON but no message (`foo`,
        // and JSON-RPC 1.0 twice); the calls with their sums, the listings with their pages.
        assert_eq!(ours.len(), 17, "{ours:#?}");
        let sum = |id: i64| {
            ours.iter().find(|a| a["id"] == id).unwrap()["result"]["content"][0]["text"].clone()
        };
        assert_eq!((sum(1), sum(2)), (json!("2"), json!("5")));
        let listed = |id: i64| {
            let answer = ours.iter().find(|a| a["id"] == id).unwrap();
            answer["result"]["tools"].as_array().map(Vec::len)
        };
        assert_eq!((listed(6), listed(8), listed(9)), (Some(2), Some(1), None));
    }

    /// A listing of a session begun with `initialize` is this transport's to write; before
    /// that, or naming a protocol version, it is the SDK's.
    #[tokio::test]
    async fn a_listing_is_written_here_once_the_session_has_started() {
        let mut raw = Raw::start();
        let (client, served) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(served);
        let mut lines = Lines::new(raw.connection.clone(), read, write);
        let list = br#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#;
        let versioned = br#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}"#;
        assert!(!lines.calls.start(list));
        raw.initialized().await;
        assert!(!lines.calls.start(versioned));
        assert!(lines.calls.start(list));
        let mut answer = String::new();
        BufReader::new(client).read_line(&mut answer).await.unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        let names: Vec<&str> = answer["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(
            (&answer["id"], names),
            (&json!(6), vec!["add_numbers", "wait_forever"])
        );
    }

    #[tokio::test]
    async fn a_cancelled_call_stops_and_is_not_answered() {
        let mut raw = Raw::start();
        raw.initialized().await;
        let wait =
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_forever"}}"#;
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#;
        raw.send(format!("{wait}\n").as_bytes()).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
        raw.send(format!("{cancel}\n").as_bytes()).await;
        // The call returns when cancelled; had its answer been sent, it would come first.
        tokio::time::sleep(Duration::from_millis(50)).await;
        raw.send(format!("{}\n", call(4, 1, 2)).as_bytes()).await;
        let next = raw.line().await;
        assert_eq!(next["id"], 4, "{next}");
    }

    /// A call that does not finish in its first poll goes on in a task: it is answered when
    /// it finishes, after calls that came later and finished at once.
    #[tokio::test]
    async fn a_call_still_running_is_answered_when_it_finishes() {
        let wait = DynamicTool::new("wait_a_little", "Waits 50 ms.", json!({"type": "object"}))
            .handler(|_, _| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Ok(ToolOutput::text("waited"))
            });
        let mut raw = Raw::serving(serving([add_numbers(), wait]));
        raw.initialized().await;
        let wait =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait_a_little"}}"#;
        raw.send(format!("{wait}\n{}\n", call(2, 1, 2)).as_bytes())
            .await;
        let (first, second) = (raw.line().await, raw.line().await);
        assert_eq!(first["id"], 2, "{first}");
        assert_eq!(first["result"]["content"][0]["text"], "3");
        assert_eq!(second["id"], 1, "{second}");
        assert_eq!(second["result"]["content"][0]["text"], "waited");
    }

    /// The end of the connection cancels every call still running on it.
    #[tokio::test]
    async fn a_call_still_running_stops_when_the_connection_ends() {
        /// Dropped with the handler's future: when the executor stops the cancelled call.
        struct Stopped(Arc<tokio::sync::Notify>);
        impl Drop for Stopped {
            fn drop(&mut self) {
                self.0.notify_one();
            }
        }
        let stopped = Arc::new(tokio::sync::Notify::new());
        let seen = stopped.clone();
        let wait = DynamicTool::new("wait_forever", "Waits.", json!({"type": "object"})).handler(
            move |_, _| {
                let stopped = Stopped(seen.clone());
                async move {
                    let _stopped = stopped;
                    std::future::pending::<()>().await;
                    Ok(ToolOutput::text("never"))
                }
            },
        );
        let mut raw = Raw::serving(serving([wait]));
        raw.initialized().await;
        let wait =
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_forever"}}"#;
        raw.send(format!("{wait}\n").as_bytes()).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(raw);
        tokio::time::timeout(Duration::from_secs(5), stopped.notified())
            .await
            .expect("the call is cancelled when the connection ends");
    }

    /// What the client's end cannot take at once is left, in order, for a flush that waits;
    /// nothing is written twice.
    #[tokio::test]
    async fn answers_the_client_cannot_take_now_are_written_when_it_can() {
        let (mut client, served) = tokio::io::duplex(16);
        let out = Arc::new(Output::new(Box::pin(served)));
        out.queue_bytes(b"short\n");
        assert!(out.try_write(), "6 bytes fit in 16");
        out.queue_bytes(b"0123456789abcdefghijklmnopqrstuvwxyz\n");
        assert!(!out.try_write(), "37 bytes do not fit in the 10 left");
        out.queue_bytes(b"next\n");
        // While another sender holds the writer, nothing is written here, and nothing is lost.
        let held = out.writer.try_lock().unwrap();
        assert!(!out.try_write());
        drop(held);
        let flushing = tokio::spawn({
            let out = out.clone();
            async move { out.flush().await }
        });
        let expected = b"short\n0123456789abcdefghijklmnopqrstuvwxyz\nnext\n";
        let mut got = Vec::new();
        while got.len() < expected.len() {
            let mut buf = [0; 64];
            let n = tokio::time::timeout(Duration::from_secs(5), client.read(&mut buf))
                .await
                .expect("the rest is written")
                .unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        flushing.await.unwrap().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(expected)
        );
        assert!(out.try_write(), "nothing is left");
    }

    #[tokio::test]
    async fn a_line_too_long_is_dropped_and_the_next_one_read() {
        let mut raw = Raw::start();
        raw.initialized().await;
        // A call at the end of an over-long line is part of that line: dropped with it.
        let mut long = vec![b' '; MAX_LINE + 10];
        long.extend_from_slice(call(99, 1, 1).as_bytes());
        long.push(b'\n');
        raw.send(&long).await;
        raw.send(format!("{}\n", call(5, 2, 2)).as_bytes()).await;
        let answer = raw.line().await;
        assert_eq!(answer["id"], 5, "{answer}");
    }

    #[tokio::test]
    async fn a_large_line_leaves_no_large_buffer_behind() {
        let (_client, served) = tokio::io::duplex(64);
        let (read, write) = tokio::io::split(served);
        let mut lines = Lines::new(server().connection(), read, write);
        let mut big = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
            "x".repeat(1 << 20)
        );
        big.push('\n');
        lines.buf.extend_from_slice(big.as_bytes());
        lines.split_lines();
        assert!(
            lines.buf.capacity() <= 64 * 1024,
            "{}",
            lines.buf.capacity()
        );
        // The line itself went on to the SDK's codec.
        assert_eq!(lock(&lines.feed.0).bytes.len(), big.len());
    }

    #[tokio::test]
    async fn a_large_answer_leaves_no_large_buffer_behind() {
        let (_client, served) = tokio::io::duplex(4 << 20);
        let out = Output::new(Box::pin(served));
        for _ in 0..2 {
            let mut line = vec![b' '; 1 << 20];
            line.push(b'\n');
            out.queue_bytes(&line);
            out.flush().await.unwrap();
        }
        assert!(lock(&out.queued).capacity() <= KEEP);
        assert!(out.writer.lock().await.1.capacity() <= KEEP);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// However the bytes are cut into reads (a call may arrive before the session has
        /// started, and go the SDK's way), every call is answered once, with its own sum.
        #[test]
        fn answers_do_not_depend_on_how_the_input_is_cut(
            cuts in proptest::collection::vec(0usize..2000, 0..12),
            calls in 1usize..20,
        ) {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let mut raw = Raw::start();
                let mut input = format!("{INITIALIZE}\n{INITIALIZED}\n");
                for i in 1..=calls {
                    let i = i as i64;
                    input.push_str(&call(i, i, 10 * i));
                    input.push('\n');
                }
                let input = input.into_bytes();
                let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % input.len()).collect();
                cuts.sort_unstable();
                let mut from = 0;
                for cut in cuts.into_iter().chain([input.len()]) {
                    raw.send(&input[from..cut]).await;
                    raw.write.flush().await.unwrap();
                    tokio::task::yield_now().await;
                    from = cut;
                }
                let mut seen = std::collections::BTreeMap::new();
                for _ in 0..=calls {
                    let answer = raw.line().await;
                    let id = answer["id"].as_i64().unwrap();
                    if id > 0 {
                        let text = answer["result"]["content"][0]["text"].clone();
                        assert_eq!(text, json!((11 * id).to_string()), "{answer}");
                    }
                    assert!(seen.insert(id, ()).is_none(), "answered twice: {id}");
                }
                assert_eq!(seen.len(), calls + 1);
            });
        }
    }
}
