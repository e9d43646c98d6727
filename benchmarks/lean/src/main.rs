//! `lean-200`: tool-core's MCP stdio server with bench-mcp's 200 tools (`add_numbers` and the
//! 199 generated fillers), and nothing else: no command line, no HTTP client, no TLS. What a
//! user's crate that depends on `tool-core` and `tool-mcp` and serves its tools over stdio
//! links; `tc-200 serve --stdio` serves the same tools through `tool-cli`.
//!
//! It stops at the end of its input, or on SIGTERM or Ctrl-C (calls in flight are answered
//! first).

use std::process::ExitCode;

use tool_core::prelude::*;

include!("../../mcp/src/tc_tools.rs");
include!(concat!(env!("OUT_DIR"), "/tc_fillers.rs"));

fn main() -> ExitCode {
    // Serving uses every core, as `toolctl serve` does.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("lean-200: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lean-200: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let registry = tool_core::Registry::linked()?;
    let server = tool_mcp::McpServer::new(tool_core::exec::Executor::new(registry));
    tool_mcp::serve_stdio(server, tool_mcp::shutdown_on_signal()).await?;
    Ok(())
}
