//! tool-core's MCP server with 200 tools: `add_numbers` and 199 generated fillers (build.rs).
//! `tc-200 serve --stdio` (or `--http ADDR`) runs `tool_cli`, as `toolctl serve` does.

use std::process::ExitCode;

use tool_core::prelude::*;

include!("../tc_tools.rs");
include!(concat!(env!("OUT_DIR"), "/tc_fillers.rs"));

fn main() -> ExitCode {
    tool_cli::main!()
}
