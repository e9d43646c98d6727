//! tool-core's MCP server with one tool, `add_numbers`: `tc-1 serve --stdio` (or `--http ADDR`)
//! runs `tool_cli`, exactly what `toolctl serve` runs.

use std::process::ExitCode;

use tool_core::prelude::*;

include!("../tc_tools.rs");

fn main() -> ExitCode {
    tool_cli::main!()
}
