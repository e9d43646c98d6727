//! `toolctl`: list, inspect and call every tool linked into this binary.

use std::process::ExitCode;

// Naming the tools crate links it, so its #[tool]s are collected.
use tool_bundle as _;

fn main() -> ExitCode {
    tool_cli::main!()
}
