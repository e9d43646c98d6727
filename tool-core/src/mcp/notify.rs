//! Progress and log events of a call, sent to the client as MCP notifications in the order the
//! tool sent them, and all before the call's result.

use std::sync::Arc;

use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::to_mcp_level;
use crate::{EventSink, LogLevel, ToolContext, ToolEvent};

/// The notification side of one call: a sink for its context and the task that sends.
pub(super) struct Notifier {
    sink: Arc<McpEvents>,
    task: JoinHandle<()>,
}

/// Notifications a call may queue before the client catches up; beyond that they are dropped
/// (progress is superseded by the next one anyway), so a chatty tool cannot grow memory.
const QUEUE: usize = 256;

enum Message {
    Event(ToolEvent),
    /// The call is over: send what came before and stop.
    Done,
}

/// Forwards a call's events to the base context's sink (UIs, tracing) and queues the ones the
/// client asked for.
struct McpEvents {
    queue: mpsc::Sender<Message>,
    base: ToolContext,
    /// Progress counts of this call only: a tool it calls counts its own work.
    call_id: String,
    wants_progress: bool,
    min_level: LogLevel,
}

impl Notifier {
    /// Starts the sending task for a call of `tool`. Progress goes out only when the request
    /// carried a progress token; log messages at `min_level` and above.
    pub(super) fn start(
        peer: Peer<RoleServer>,
        progress: Option<ProgressToken>,
        min_level: LogLevel,
        call_id: String,
        tool: &str,
        base: ToolContext,
    ) -> Self {
        let (queue, mut rx) = mpsc::channel(QUEUE);
        let sink = Arc::new(McpEvents {
            queue,
            base,
            call_id,
            wants_progress: progress.is_some(),
            min_level,
        });
        let logger = tool.to_owned();
        let task = tokio::spawn(async move {
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
                        peer.notify_progress(param).await
                    }
                    ToolEvent::Log { level, message, .. } => {
                        let mut param = LoggingMessageNotificationParam::new(
                            to_mcp_level(level),
                            serde_json::Value::String(message),
                        );
                        param.logger = Some(logger.clone());
                        peer.notify_logging_message(param).await
                    }
                    _ => continue,
                };
                if let Err(e) = sent {
                    // The client went away; the call's result will not reach it either.
                    tracing::debug!(error = %e, "cannot send a notification");
                    break;
                }
            }
        });
        Self { sink, task }
    }

    /// The sink for the call's context.
    pub(super) fn sink(&self) -> Arc<dyn EventSink> {
        self.sink.clone()
    }

    /// Waits until every event the call sent so far has gone out.
    pub(super) async fn finish(self) {
        // Waits for room rather than dropping the marker: everything queued goes out first.
        let _ = self.sink.queue.send(Message::Done).await;
        let _ = self.task.await;
    }
}

impl EventSink for McpEvents {
    fn emit(&self, event: &ToolEvent) {
        self.base.emit(event.clone());
        let wanted = match event {
            ToolEvent::Progress { call_id, .. } => self.wants_progress && *call_id == self.call_id,
            ToolEvent::Log { level, .. } => *level >= self.min_level,
            _ => false,
        };
        if wanted {
            // After `finish`, nobody listens: late events (from an abandoned blocking call) go
            // only to the base sink.
            let _ = self.queue.try_send(Message::Event(event.clone()));
        }
    }
}
