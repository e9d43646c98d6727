//! Scripts in a worker process: a script that exhausts memory, or crashes the interpreter,
//! ends its worker, never the host.
//!
//! The host starts one worker per script and speaks to it over its stdin and stdout: frames of
//! a little-endian `u32` length and a postcard body, the host's commands one way and the
//! machine's outcomes the other. A worker is any binary whose `main` calls [`serve`] with
//! `monty_alloc::LimitedAllocator` as its global allocator, which is what enforces
//! [`CodeLimits::max_memory`](crate::CodeLimits::max_memory) on everything the script holds;
//! this crate's `tool-code-worker` binary is one, and so is any binary on `tool_cli::main!()`
//! built with tool-cli's feature `code`, which serves as its own worker
//! ([`WorkerCommand::this_binary`]).

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::Stdio;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command as Process};

use crate::machine::{Answer, Budget, Machine, Outcome};

/// The allocator a worker binary installs as its global allocator: the system's, counting the
/// bytes live so that a script over its memory limit ends the process with the limit's exit
/// code. Installing it is safe (`#[global_allocator] static A: LimitedAllocator =
/// LimitedAllocator;`); it costs an atomic add per allocation and per free.
pub use monty_alloc::LimitedAllocator;

/// The largest frame either side reads: a step's outcome carries at most the printed output
/// and the script's value, both limited far below this.
const MAX_FRAME: usize = 64 << 20;

/// What the host asks of a worker.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Command {
    /// Compile and start a script, holding at most `max_memory` bytes.
    Start {
        script: String,
        budget: Budget,
        max_memory: usize,
    },
    /// Go on with the answer to the last event.
    Answer(Answer),
}

/// Why a worker could not run a script's step.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkerError {
    /// It could not be started.
    #[error("could not start the code worker {path}: {source}")]
    Spawn {
        /// The binary.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// It ran out of the memory the script may hold, and ended.
    #[error("the worker ran out of memory")]
    OutOfMemory,
    /// It ended or broke the protocol (a crash inside the interpreter).
    #[error("the code worker failed: {0}")]
    Crashed(String),
}

/// The command that starts a worker: a binary that calls [`serve`], and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCommand {
    program: PathBuf,
    args: Vec<String>,
}

impl WorkerCommand {
    /// `program`, with no arguments.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
        }
    }

    /// Adds an argument (for a binary that serves as a worker under a subcommand).
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// This process's own binary run with `arg`, if it can be a worker: its global allocator
    /// is [`LimitedAllocator`] ([`allocator_installed`]) and its `main` calls [`serve`] when
    /// given `arg`. A binary that is its own worker needs nothing else installed.
    pub fn this_binary(arg: impl Into<String>) -> Option<Self> {
        if !allocator_installed() {
            return None;
        }
        Some(Self::new(std::env::current_exe().ok()?).arg(arg))
    }

    /// `tool-code-worker` beside this process's own binary, if it is there.
    pub fn beside_current_exe() -> Option<Self> {
        let exe = std::env::current_exe().ok()?;
        let worker = exe
            .parent()?
            .join(format!("tool-code-worker{}", std::env::consts::EXE_SUFFIX));
        worker.is_file().then(|| Self::new(worker))
    }

    /// The binary.
    pub fn program(&self) -> &std::path::Path {
        &self.program
    }
}

/// A running worker, holding one script. Dropping it kills the process.
pub(crate) struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
}

impl Worker {
    pub async fn spawn(command: &WorkerCommand) -> Result<Self, WorkerError> {
        let spawn_error = |source| WorkerError::Spawn {
            path: command.program.clone(),
            source,
        };
        let mut child = Process::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // Nothing from the host's environment for the interpreter to find.
            .env_clear()
            .kill_on_drop(true)
            .spawn()
            .map_err(spawn_error)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(spawn_error(io::Error::other("no pipes to the worker")));
        };
        Ok(Self {
            child,
            stdin,
            stdout,
        })
    }

    /// Sends `command` and reads the step's outcome.
    pub async fn send(&mut self, command: &Command) -> Result<Outcome, WorkerError> {
        let body = postcard::to_allocvec(command)
            .map_err(|e| WorkerError::Crashed(format!("encoding a command: {e}")))?;
        let sent = async {
            self.stdin.write_all(&frame_len(body.len())?).await?;
            self.stdin.write_all(&body).await?;
            self.stdin.flush().await
        }
        .await;
        let read = match sent {
            Ok(()) => self.read().await,
            Err(e) => Err(e),
        };
        match read {
            Ok(body) => postcard::from_bytes(&body)
                .map_err(|e| WorkerError::Crashed(format!("decoding an outcome: {e}"))),
            Err(e) => Err(self.ended(e).await),
        }
    }

    async fn read(&mut self) -> io::Result<Vec<u8>> {
        let mut len = [0; 4];
        self.stdout.read_exact(&mut len).await?;
        let len = checked_len(len)?;
        let mut body = vec![0; len];
        self.stdout.read_exact(&mut body).await?;
        Ok(body)
    }

    /// Why the worker stopped answering.
    async fn ended(&mut self, e: io::Error) -> WorkerError {
        match self.child.wait().await {
            Ok(status) if status.code() == Some(monty_types::OOM_EXIT_CODE) => {
                WorkerError::OutOfMemory
            }
            Ok(status) => WorkerError::Crashed(format!("{e}; the worker {status}")),
            Err(wait) => WorkerError::Crashed(format!("{e}; {wait}")),
        }
    }
}

fn frame_len(len: usize) -> io::Result<[u8; 4]> {
    if len > MAX_FRAME {
        return Err(io::Error::other(format!("a frame of {len} bytes")));
    }
    Ok(u32::try_from(len).map_err(io::Error::other)?.to_le_bytes())
}

fn checked_len(len: [u8; 4]) -> io::Result<usize> {
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::other(format!(
            "a frame of {len} bytes, over the {MAX_FRAME} allowed"
        )));
    }
    Ok(len)
}

/// Whether this process counts its memory with [`LimitedAllocator`] (the allocator counts
/// from the first allocation, so a process that has it has a count above zero by now).
pub fn allocator_installed() -> bool {
    monty_types::LIVE_MEMORY.load(std::sync::atomic::Ordering::Relaxed) != 0
}

/// Serves one script over stdin and stdout until the host closes stdin: the `main` of a
/// worker binary, which must have `monty_alloc::LimitedAllocator` as its global allocator
/// (without it, the memory limit is not enforced and this returns an error).
///
/// ```no_run
/// #[global_allocator]
/// static ALLOCATOR: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;
///
/// fn main() -> std::io::Result<()> {
///     tool_code::worker::serve()
/// }
/// ```
pub fn serve() -> io::Result<()> {
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    let mut machine: Option<Machine> = None;
    loop {
        let mut len = [0; 4];
        match input.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        let mut body = vec![0; checked_len(len)?];
        input.read_exact(&mut body)?;
        let command: Command = postcard::from_bytes(&body).map_err(io::Error::other)?;
        let outcome = match (command, machine.as_mut()) {
            (
                Command::Start {
                    script,
                    budget,
                    max_memory,
                },
                None,
            ) => {
                monty_alloc::set_limit(Some(max_memory), false).map_err(io::Error::other)?;
                let (started, outcome) = Machine::start(script, budget);
                machine = Some(started);
                outcome
            }
            (Command::Answer(answer), Some(machine)) => machine.answer(answer),
            (command, _) => {
                return Err(io::Error::other(format!(
                    "{command:?} out of turn: a worker runs one script"
                )));
            }
        };
        let body = postcard::to_allocvec(&outcome).map_err(io::Error::other)?;
        output.write_all(&frame_len(body.len())?)?;
        output.write_all(&body)?;
        output.flush()?;
    }
}
