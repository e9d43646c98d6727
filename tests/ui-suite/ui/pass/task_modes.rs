// `task` (may be a task), `task = "required"` (must be) and `task_after` (when a call becomes
// one, in place of the server's threshold).
use std::time::Duration;

use tool_core::definition::TaskSupport;
use tool_core::prelude::*;

tool_core::domain!(pub demo, "Demo tools");

/// Exports the report and returns its text.
#[tool(domain = demo, label = "Exporting", hint = "Exports the report", task)]
fn export_report() -> String {
    String::new()
}

/// Trains the model and returns its score.
#[tool(domain = demo, label = "Training", hint = "Trains the model", task = "required", task_after = "0s")]
fn train_model() -> u8 {
    1
}

/// Returns one.
#[tool(domain = demo, label = "Counting", hint = "Returns one", task = false)]
fn get_one() -> u8 {
    1
}

fn main() {
    let registry = Registry::linked().unwrap();
    let export = registry.get("export_report").unwrap();
    assert_eq!(export.task_support(), TaskSupport::Optional);
    assert_eq!(export.task_after(), None);
    assert_eq!(tool_core::render::mcp(export)["_meta"]["tool-core/task"], true);
    let train = registry.get("train_model").unwrap();
    assert_eq!(train.task_support(), TaskSupport::Required);
    assert_eq!(train.task_after(), Some(Duration::ZERO));
    assert_eq!(tool_core::render::mcp(train)["_meta"]["tool-core/task"], "required");
    let one = registry.get("get_one").unwrap();
    assert!(!one.task());
    assert!(tool_core::render::mcp(one)["_meta"].get("tool-core/task").is_none());
}
