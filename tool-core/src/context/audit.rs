//! Audit records of calls to tools that are not read-only or needed approval, and where they
//! go.

/// A record of a call to a tool that is not read-only, or that needed a person's approval.
///
/// Only the executor makes records: the type cannot be built outside tool-core, and a tool
/// has no handle on its context's sink, so no tool can write a record of a call (an "approved",
/// say) that did not happen. Sinks read the fields.
#[derive(Debug, Clone, serde::Serialize)]
#[non_exhaustive]
pub struct AuditRecord {
    /// The tool's name.
    pub tool: String,
    /// The call id.
    pub call_id: String,
    /// Who asked, when known.
    pub principal: Option<String>,
    /// A digest of the input, never the input itself.
    pub input_digest: String,
    /// `ok`, or the error kind.
    pub outcome: String,
    /// How long the call took, in milliseconds (the wait for approval not counted).
    pub duration_ms: u64,
    /// For a call that needed a person's approval: `approved`, `denied`, `unavailable` (no one
    /// could be asked), `asked` (the question went out with the call's answer), `timed_out`
    /// or `cancelled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
    /// What the person was shown: the call's tool and arguments, in the tool's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_message: Option<String>,
}

/// Where audit records go.
pub trait AuditSink: Send + Sync {
    /// Records one call.
    fn record(&self, record: &AuditRecord);
}

/// An audit sink that writes each record as one line of JSON (`toolctl serve --audit FILE`):
/// appended and flushed at once, so a reader sees each call as it ends.
///
/// ```
/// use std::sync::Arc;
/// use serde_json::json;
/// use tool_core::{registry::DynamicTool, Executor, Registry, ToolContext, ToolOutput, context::JsonLinesAudit};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("audit.jsonl");
/// let mut registry = Registry::empty();
/// registry.register(
///     DynamicTool::new("delete_branch", "Deletes a branch.", json!({"type": "object"}))
///         .annotations(tool_core::definition::Annotations::READ_ONLY.read_only(false).destructive(true)
///             .idempotent(false))
///         .handler(|_, _| async { Ok(ToolOutput::text("deleted")) }),
/// ).unwrap();
/// let ctx = ToolContext::builder()
///     .audit(Arc::new(JsonLinesAudit::append(&path).unwrap()))
///     .build();
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// Executor::new(registry).call("delete_branch", json!({"branch": "old"}), &ctx).await.unwrap();
/// # });
/// let line: serde_json::Value =
///     serde_json::from_str(std::fs::read_to_string(&path).unwrap().trim()).unwrap();
/// assert_eq!(line["tool"], "delete_branch");
/// assert_eq!(line["outcome"], "ok");
/// ```
pub struct JsonLinesAudit {
    out: std::sync::Mutex<Box<dyn std::io::Write + Send>>,
}

impl JsonLinesAudit {
    /// Writes to `out`.
    pub fn new(out: impl std::io::Write + Send + 'static) -> Self {
        Self {
            out: std::sync::Mutex::new(Box::new(out)),
        }
    }

    /// Appends to the file at `path`, creating it when missing.
    pub fn append(path: impl AsRef<std::path::Path>) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Self::new(file))
    }
}

impl std::fmt::Debug for JsonLinesAudit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonLinesAudit").finish_non_exhaustive()
    }
}

impl AuditSink for JsonLinesAudit {
    fn record(&self, record: &AuditRecord) {
        let Ok(mut line) = serde_json::to_vec(record) else {
            return;
        };
        line.push(b'\n');
        let mut out = self
            .out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // An audit trail that cannot be written is an operator's problem, not the caller's.
        if let Err(error) = out.write_all(&line).and_then(|()| out.flush()) {
            tracing::error!(%error, "an audit record could not be written");
        }
    }
}

/// The default audit sink: one `tracing` event per record, target `tool_core::audit`.
#[derive(Debug, Default, Clone, Copy)]
pub struct TracingAudit;

impl AuditSink for TracingAudit {
    fn record(&self, r: &AuditRecord) {
        tracing::info!(
            target: "tool_core::audit",
            tool = %r.tool,
            call_id = %r.call_id,
            principal = r.principal.as_deref().unwrap_or("-"),
            input_digest = %r.input_digest,
            outcome = %r.outcome,
            duration_ms = r.duration_ms,
            approval = r.approval.as_deref().unwrap_or("-"),
            "tool call",
        );
    }
}
