//! What UIs are told about a call while it runs, and the sinks that take it.

/// What UIs are told about a call while it runs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolEvent {
    /// The call started; `label` is the tool's UI text. Only the executor makes one (as
    /// `Finished` and `Failed`): a tool reports logs and progress, never its own lifecycle.
    #[non_exhaustive]
    Started {
        /// The call id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// The tool's label.
        label: String,
    },
    /// The tool logged a message.
    Log {
        /// The call id.
        call_id: String,
        /// How severe.
        level: LogLevel,
        /// The message.
        message: String,
    },
    /// The tool reported progress.
    Progress {
        /// The call id.
        call_id: String,
        /// Units done.
        done: u64,
        /// Units in all, when known.
        total: Option<u64>,
        /// What is happening.
        message: String,
    },
    /// The call succeeded.
    #[non_exhaustive]
    Finished {
        /// The call id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// The event name for UI cards, when the tool set one.
        event: Option<String>,
        /// The structured result, when there is one.
        payload: Option<serde_json::Value>,
    },
    /// The call failed.
    #[non_exhaustive]
    Failed {
        /// The call id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// The error kind.
        kind: crate::error::ErrorKind,
        /// The message for the model.
        message: String,
    },
}

/// The severity of a message a tool logs with [`ToolContext::log`](crate::ToolContext::log)
/// (the syslog levels MCP uses), from the least severe.
///
/// ```
/// use tool_core::context::LogLevel;
/// assert_eq!(LogLevel::Warning.as_str(), "warning");
/// assert_eq!(serde_json::to_string(&LogLevel::Warning).unwrap(), r#""warning""#);
/// assert_eq!(LogLevel::ALL[LogLevel::Warning as usize], LogLevel::Warning);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Action is needed now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, from the least severe: `ALL[level as usize] == level`.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name, as MCP and syslog write it (`debug` ... `emergency`); also what it
    /// serializes as.
    pub const fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl serde::Serialize for LogLevel {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // What `#[derive(Serialize)]` writes for a unit variant, with the name from `as_str`.
        serializer.serialize_unit_variant("LogLevel", *self as u32, self.as_str())
    }
}

/// Where UI events go.
pub trait EventSink: Send + Sync {
    /// Delivers one event; must not block.
    fn emit(&self, event: &ToolEvent);

    /// Whether the sink does anything with the executor's own events (`Started`, `Finished`,
    /// `Failed`). When it does not, the executor does not build them: they copy the call's
    /// names and its output. Events tools send (progress, logs) are delivered either way.
    fn wants_lifecycle(&self) -> bool {
        true
    }
}

/// The default event sink: `tracing` debug events, target `tool_core::events`.
#[derive(Debug, Default, Clone, Copy)]
pub struct TracingEvents;

impl EventSink for TracingEvents {
    fn emit(&self, event: &ToolEvent) {
        tracing::debug!(target: "tool_core::events", ?event, "tool event");
    }

    fn wants_lifecycle(&self) -> bool {
        tracing::enabled!(target: "tool_core::events", tracing::Level::DEBUG)
    }
}

/// An event sink that broadcasts to every subscriber (UIs, a server's progress notifications).
/// Slow subscribers miss old events rather than slowing calls down.
///
/// ```
/// use std::sync::Arc;
/// use tool_core::{ToolContext, context::BroadcastEvents};
/// let events = Arc::new(BroadcastEvents::new(64));
/// let mut rx = events.subscribe();
/// let ctx = ToolContext::builder().events(events.clone()).build();
/// ctx.progress(1, Some(2), "halfway");
/// assert!(matches!(rx.try_recv(), Ok(tool_core::context::ToolEvent::Progress { done: 1, .. })));
/// ```
#[derive(Debug)]
pub struct BroadcastEvents {
    sender: tokio::sync::broadcast::Sender<ToolEvent>,
}

impl BroadcastEvents {
    /// A sink that keeps up to `capacity` events for slow subscribers.
    pub fn new(capacity: usize) -> Self {
        Self {
            sender: tokio::sync::broadcast::channel(capacity.max(1)).0,
        }
    }

    /// A receiver of every event emitted from now on.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<ToolEvent> {
        self.sender.subscribe()
    }
}

impl EventSink for BroadcastEvents {
    fn emit(&self, event: &ToolEvent) {
        // No subscriber is not an error: events are for whoever listens.
        let _ = self.sender.send(event.clone());
    }

    fn wants_lifecycle(&self) -> bool {
        self.sender.receiver_count() > 0
    }
}
