// A tool cannot write an audit record: the record cannot be built outside tool-core, and the
// context does not hand out its sink.
use tool_core::prelude::*;
use tool_core::context::AuditRecord;

fn forge(ctx: &ToolContext) {
    let record = AuditRecord {
        tool: "delete_branch".into(),
        call_id: "c1".into(),
        principal: None,
        input_digest: "sha256:00".into(),
        outcome: "ok".into(),
        duration_ms: 0,
        approval: Some("approved".into()),
        approval_message: None,
    };
    ctx.audit().record(&record);
}

fn main() {
    forge(&ToolContext::new());
}
