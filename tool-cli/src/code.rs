//! `serve --code-mode`: `search_tools` and `execute_code` in place of every tool.

use std::path::PathBuf;

use tool_core::Executor;

use crate::exit::{Exit, Out, usage};

/// The first argument that makes a binary on [`main!`](crate::main!) a code-mode worker: it
/// serves one script over stdin and stdout (`tool_code::worker::serve`) instead of parsing a
/// command line. `serve --code-mode` starts its own binary with it.
pub const WORKER_ARG: &str = "__code-worker";

/// Runs this process as a code-mode worker if [`WORKER_ARG`] is its first argument.
#[cfg(feature = "code")]
pub(crate) fn serve_as_worker() -> Option<std::process::ExitCode> {
    if std::env::args_os().nth(1).as_deref() != Some(std::ffi::OsStr::new(WORKER_ARG)) {
        return None;
    }
    Some(match tool_code::worker::serve() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {WORKER_ARG}: {e}");
            std::process::ExitCode::FAILURE
        }
    })
}

#[cfg(not(feature = "code"))]
pub(crate) fn serve_as_worker() -> Option<std::process::ExitCode> {
    None
}

/// Code mode's flags for `serve`.
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct CodeArgs {
    /// List `search_tools` and `execute_code` in place of every tool: the model writes a Python
    /// script that calls tools as functions (every call through the same scopes, checks,
    /// approvals and limits). Needs toolctl's feature `code`.
    #[arg(long)]
    pub code_mode: bool,
    /// Also list this tool as itself beside `execute_code` (repeatable).
    #[arg(long, value_name = "TOOL", requires = "code_mode")]
    pub code_keep: Vec<String>,
    /// The worker binary scripts run in, one process each (default: this binary itself, when
    /// built on `tool_cli::main!()`; else `tool-code-worker` beside it; without either, scripts
    /// run in this process, their memory bounded per value only).
    #[arg(long, value_name = "PATH", requires = "code_mode")]
    pub code_worker: Option<PathBuf>,
    /// Seconds of interpreter time a script may use, not counting its tool calls.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, requires = "code_mode", value_parser = seconds)]
    pub code_cpu_time: f64,
}

fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 3600.0 => Ok(s),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0 to 3600"
        )),
    }
}

/// The executor `serve` offers: `executor` itself, or with `--code-mode` the code tool over it,
/// showing the stubs of the tools `serve` would list (`show_deferred`: not only the core ones).
#[cfg(feature = "code")]
pub(crate) fn offered(
    args: &CodeArgs,
    executor: Executor,
    show_deferred: bool,
    err: Out,
) -> Result<Executor, Exit> {
    use tool_code::{CodeLimits, CodeMode, EXECUTE_CODE, Sandbox, worker::WorkerCommand};
    if !args.code_mode {
        return Ok(executor);
    }
    let worker = match &args.code_worker {
        Some(path) => Some(WorkerCommand::new(path)),
        None => WorkerCommand::this_binary(WORKER_ARG).or_else(WorkerCommand::beside_current_exe),
    };
    let sandbox = match worker {
        Some(worker) => {
            if !worker.program().is_file() {
                return Err(usage(
                    err,
                    format!("--code-worker {}: no such file", worker.program().display()),
                ));
            }
            Sandbox::Worker(worker)
        }
        None => {
            let _ = writeln!(
                err,
                "warning: this binary is not a code worker (its main is not tool_cli::main!()) \
                 and no tool-code-worker is beside it: scripts run in this process, their \
                 memory bounded per value only (see docs/code-mode.md)"
            );
            Sandbox::InProcess
        }
    };
    // MCP clients see `search_tools` beside `execute_code` (search, then write the script).
    let mut keep: Vec<&str> = args.code_keep.iter().map(String::as_str).collect();
    if executor
        .registry()
        .get(tool_catalog::SEARCH_TOOLS)
        .is_some()
        && !keep.contains(&tool_catalog::SEARCH_TOOLS)
    {
        keep.push(tool_catalog::SEARCH_TOOLS);
    }
    let limits =
        CodeLimits::default().cpu_time(std::time::Duration::from_secs_f64(args.code_cpu_time));
    CodeMode::new(executor)
        .limits(limits)
        .sandbox(sandbox)
        .show_deferred(show_deferred)
        .code_executor(EXECUTE_CODE, &keep)
        .map_err(|e| usage(err, format!("--code-keep: {e}")))
}

/// The executor `serve` offers; `--code-mode` needs the feature `code`.
#[cfg(not(feature = "code"))]
pub(crate) fn offered(
    args: &CodeArgs,
    executor: Executor,
    _show_deferred: bool,
    err: Out,
) -> Result<Executor, Exit> {
    if args.code_mode {
        return Err(usage(
            err,
            "--code-mode: this binary was built without tool-cli's feature `code`; build it \
             with `--features tool-cli/code`"
                .to_owned(),
        ));
    }
    Ok(executor)
}
