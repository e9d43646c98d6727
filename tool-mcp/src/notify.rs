//! Progress and log events of a call, sent to the client as MCP notifications in the order the
//! tool sent them, and all before the call's result.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::level::to_mcp_level;
use super::sync::lock;
use tool_core::{
    ToolContext,
    context::{EventSink, LogLevel, ToolEvent},
};

/// The notification side of one call: a sink for its context, and the task that sends, started
/// by the first event the client wants (most calls send none, and pay for no task).
pub(super) struct Notifier {
    sink: Arc<McpEvents>,
}

/// Notifications a call may queue before the client catches up; beyond that they are dropped
/// (progress is superseded by the next one anyway), so a chatty tool cannot grow memory.
const QUEUE: usize = 256;

/// How long one notification may wait for the connection to take it. A connection that
/// takes none (the SDK's own loop once its input ended only drains answers) would otherwise
/// hold the call's result behind its notifications until the call is dropped; past this, the
/// call's remaining notifications are dropped and its result goes out.
const SEND_LIMIT: std::time::Duration = std::time::Duration::from_secs(1);

enum Message {
    Event(ToolEvent),
    /// The call is over: send what came before and stop.
    Done,
}

/// What the sending task needs, until it starts.
struct Parts {
    peer: Peer<RoleServer>,
    progress: Option<ProgressToken>,
    /// The tool's name (borrowed for a linked tool: nothing to allocate per call).
    logger: Cow<'static, str>,
    runtime: tokio::runtime::Handle,
}

enum Sending {
    /// No event wanted yet.
    Idle(Parts),
    Running(mpsc::Sender<Message>, JoinHandle<()>),
    /// The call is over: late events (from an abandoned blocking call) go only to the base
    /// sink.
    Finished,
}

/// Forwards a call's events to the base context's sink (UIs, tracing) and queues the ones the
/// client asked for.
struct McpEvents {
    sending: Mutex<Sending>,
    base: ToolContext,
    /// Progress counts of this call only: a tool it calls counts its own work.
    call_id: String,
    wants_progress: bool,
    /// `None`: the client wants no log messages from this call.
    min_level: Option<LogLevel>,
}

impl Notifier {
    /// The notifier of a call of `tool`. Progress goes out only when the request carried a
    /// progress token; log messages at `min_level` and above, none when it is `None`. Call it
    /// on the runtime.
    pub(super) fn start(
        peer: Peer<RoleServer>,
        progress: Option<ProgressToken>,
        min_level: Option<LogLevel>,
        call_id: String,
        tool: Cow<'static, str>,
        base: ToolContext,
    ) -> Self {
        let wants_progress = progress.is_some();
        let parts = Parts {
            peer,
            progress,
            logger: tool,
            runtime: tokio::runtime::Handle::current(),
        };
        Self {
            sink: Arc::new(McpEvents {
                sending: Mutex::new(Sending::Idle(parts)),
                base,
                call_id,
                wants_progress,
                min_level,
            }),
        }
    }

    /// The sink for the call's context.
    pub(super) fn sink(&self) -> Arc<dyn EventSink> {
        self.sink.clone()
    }

    /// Waits until every event the call sent so far has gone out.
    pub(super) async fn finish(self) {
        let sending = std::mem::replace(&mut *lock(&self.sink.sending), Sending::Finished);
        if let Sending::Running(queue, task) = sending {
            // Waits for room rather than dropping the marker: everything queued goes out first.
            let _ = queue.send(Message::Done).await;
            let _ = task.await;
        }
    }
}

/// Sends the queued events in order until `Done`.
async fn send_all(parts: Parts, mut rx: mpsc::Receiver<Message>) {
    let Parts {
        peer,
        progress,
        logger,
        ..
    } = parts;
    // Progress must increase (MCP); a tool that repeats or goes back is not forwarded.
    let mut last_progress = None;
    while let Some(Message::Event(event)) = rx.recv().await {
        let sent = match event {
            ToolEvent::Progress {
                done,
                total,
                message,
                ..
            } => {
                let Some(token) = progress.clone() else {
                    continue;
                };
                if last_progress.is_some_and(|last| done <= last) {
                    continue;
                }
                last_progress = Some(done);
                let mut param = ProgressNotificationParam::new(token, done as f64);
                param.total = total.map(|t| t as f64);
                param.message = (!message.is_empty()).then_some(message);
                limited(peer.notify_progress(param)).await
            }
            ToolEvent::Log { level, message, .. } => {
                let mut param = LoggingMessageNotificationParam::new(
                    to_mcp_level(level),
                    serde_json::Value::String(message),
                );
                param.logger = Some(logger.to_string());
                limited(peer.notify_logging_message(param)).await
            }
            _ => continue,
        };
        if let Err(e) = sent {
            // The client went away (its result will not reach it either), or the connection
            // took nothing for SEND_LIMIT: the result must not wait on what cannot be sent.
            tracing::debug!(error = %e, "cannot send a notification");
            break;
        }
    }
}

/// A notification's sending, given up after [`SEND_LIMIT`].
async fn limited<E: std::fmt::Display>(
    send: impl std::future::Future<Output = Result<(), E>>,
) -> Result<(), String> {
    match tokio::time::timeout(SEND_LIMIT, send).await {
        Ok(sent) => sent.map_err(|e| e.to_string()),
        Err(_) => Err(format!(
            "the connection took no notification for {} s",
            SEND_LIMIT.as_secs()
        )),
    }
}

impl EventSink for McpEvents {
    fn emit(&self, event: &ToolEvent) {
        self.base.events().emit(event);
        let wanted = match event {
            ToolEvent::Progress { call_id, .. } => self.wants_progress && *call_id == self.call_id,
            ToolEvent::Log { level, .. } => self.min_level.is_some_and(|min| *level >= min),
            _ => false,
        };
        if !wanted {
            return;
        }
        let mut sending = lock(&self.sending);
        *sending = match std::mem::replace(&mut *sending, Sending::Finished) {
            Sending::Idle(parts) => {
                let (queue, rx) = mpsc::channel(QUEUE);
                let task = parts.runtime.clone().spawn(send_all(parts, rx));
                Sending::Running(queue, task)
            }
            other => other,
        };
        if let Sending::Running(queue, _) = &*sending {
            let _ = queue.try_send(Message::Event(event.clone()));
        }
    }

    fn wants_lifecycle(&self) -> bool {
        // Only progress and logs become notifications; the rest is the base sink's.
        self.base.events().wants_lifecycle()
    }
}
