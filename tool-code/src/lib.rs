//! Code mode for tool-core tools: the model writes a short Python script that calls tools as
//! functions, loops, filters and joins their results, and returns only what matters.
//!
//! A model that calls tools one JSON call per turn reads every intermediate result and spends a
//! turn on each next step. In code mode it is shown each tool as a typed `async def`
//! ([`stubs`]) and writes one script; [`CodeMode::run`] runs it in
//! [Monty](https://github.com/pydantic/monty), a Python subset on its own bytecode VM with no
//! filesystem, environment or network, and every call the script makes goes through the
//! [`Executor`](tool_core::exec::Executor): the caller's scopes, input checks, the
//! application's layers, a person's approval, time limits, audit and events, exactly as a
//! call from the model would. Only what the script prints and returns goes back to the model.
//!
//! ```
//! use serde_json::json;
//! use tool_core::{registry::DynamicTool, Executor, Registry, ToolContext, ToolOutput};
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let mut registry = Registry::empty();
//! registry.register(DynamicTool::new("list_orders", "Lists a customer's orders.", json!({
//!     "type": "object",
//!     "properties": {"customer": {"type": "string"}},
//!     "required": ["customer"]
//! })).handler(|_, _| async {
//!     Ok(ToolOutput::new(json!([{"id": 1, "total": 30}, {"id": 2, "total": 120}])))
//! })).unwrap();
//! let code = tool_code::CodeMode::new(Executor::new(registry));
//! let script = r#"
//! orders = await list_orders(customer="ada")
//! big = [o["id"] for o in orders if o["total"] > 100]
//! print(f"{len(big)} of {len(orders)} orders are large")
//! big
//! "#;
//! let run = code.run(script, &ToolContext::new()).await;
//! assert_eq!(run.printed, "1 of 2 orders are large\n");
//! assert_eq!(run.result, Ok(json!([2])));
//! # });
//! ```
//!
//! The guide, with the limits, the exceptions a tool error becomes and a comparison with
//! peers' code modes, is `docs/code-mode.md`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bridge;
mod journal;
mod limits;
mod machine;
mod run;
mod stubs;
mod tool;
pub mod worker;

pub use bridge::exception_type;
pub use limits::{CodeLimits, Limit, LimitError};
pub use run::{CodeMode, Sandbox, ScriptError, ScriptRun};
pub use stubs::{python_name, stub, stubs};
pub use tool::{CodeToolError, EXECUTE_CODE, RUN_CODE};
