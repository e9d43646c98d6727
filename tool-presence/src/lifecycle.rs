//! For the tests: lifecycle events as only the executor makes them (a tool cannot build a
//! `Started`, `Finished` or `Failed`), taken from a real call.

use std::sync::Arc;

use serde_json::json;
use tool_core::context::{BroadcastEvents, ToolEvent};
use tool_core::exec::CallResult;
use tool_core::{Executor, Registry, ToolContext, registry::DynamicTool};

/// The events of one call `call_id` of a tool named `tool` with the label `label`, whose
/// handler answers `outcome`: `Started`, then `Finished` or `Failed` (with progress and logs
/// between, if the handler reports any). Run on a thread of its own, so that a test running
/// on a runtime can call it too.
pub(crate) fn lifecycle(
    call_id: &str,
    tool: &str,
    label: &str,
    outcome: impl Fn() -> CallResult + Send + Sync + 'static,
) -> Vec<ToolEvent> {
    let (call_id, tool, label) = (call_id.to_owned(), tool.to_owned(), label.to_owned());
    std::thread::spawn(move || {
        let outcome = Arc::new(outcome);
        let mut registry = Registry::empty();
        registry
            .register(
                DynamicTool::new(tool.clone(), "Answers as told.", json!({"type": "object"}))
                    .label(label)
                    .handler(move |_, _| {
                        let result = outcome();
                        async move { result }
                    }),
            )
            .expect("one tool");
        let events = Arc::new(BroadcastEvents::new(16));
        let mut seen = events.subscribe();
        let ctx = ToolContext::builder()
            .call_id(call_id)
            .events(events)
            .build();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let _ = runtime.block_on(Executor::new(registry).call(&tool, json!({}), &ctx));
        let mut out = Vec::new();
        while let Ok(event) = seen.try_recv() {
            out.push(event);
        }
        out
    })
    .join()
    .expect("the call's thread")
}

/// The `Started` event of a call that succeeds.
pub(crate) fn started(call_id: &str, tool: &str, label: &str) -> ToolEvent {
    lifecycle(call_id, tool, label, || Ok(tool_core::ToolOutput::text(""))).remove(0)
}

/// The event that ends a call: `Finished` or `Failed`.
pub(crate) fn ended(
    call_id: &str,
    tool: &str,
    outcome: impl Fn() -> CallResult + Send + Sync + 'static,
) -> ToolEvent {
    let mut events = lifecycle(call_id, tool, tool, outcome);
    events.pop().expect("an end")
}
