//! Audit records of calls to tools that are not read-only or needed approval, and where they
//! go.

/// A record of a call to a tool that is not read-only, or that needed a person's approval.
#[derive(Debug, Clone, serde::Serialize)]
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
