//! Any text as a code-mode script, in this process, with a tool to call and tight limits: no
//! panic, every run ends with a value or an error, and a value that came back survives the JSON
//! bridge both ways unchanged.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tool_code::{CodeLimits, CodeMode, bridge};
use tool_core::{registry::DynamicTool, Executor, Registry, ToolContext, ToolOutput};

fn setup() -> &'static (tokio::runtime::Runtime, CodeMode) {
    static SETUP: OnceLock<(tokio::runtime::Runtime, CodeMode)> = OnceLock::new();
    SETUP.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let mut registry = Registry::empty();
        registry
            .register(
                DynamicTool::new("echo_value", "Echoes.", json!({"type": "object"}))
                    .handler(|input, _| async move { Ok(ToolOutput::new(input)) }),
            )
            .expect("the tool registers");
        let limits = CodeLimits::default()
            .cpu_time(Duration::from_millis(50))
            .wall_time(Duration::from_secs(2))
            .max_tool_calls(5)
            .max_memory(1 << 20)
            .max_recursion(50)
            .max_output(1024)
            .max_result(1024);
        (runtime, CodeMode::new(Executor::new(registry)).limits(limits))
    })
}

fuzz_target!(|data: &[u8]| {
    let script = String::from_utf8_lossy(&data[..data.len().min(4096)]);
    let (runtime, code) = setup();
    let run = runtime.block_on(code.run(&script, &ToolContext::new()));
    assert!(run.printed.len() <= 1024);
    if let Ok(value) = run.result {
        assert_eq!(bridge::from_python(&bridge::to_python(&value)), Ok(value));
    }
});
