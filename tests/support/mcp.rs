//! What the MCP end-to-end tests share: the Node.js tools they run (the official conformance
//! suite and the MCP Inspector), installed into `target/node-env` by `scripts/node-env` (a missing
//! install is a failure, never a skip), and a binary of this workspace serving MCP over HTTP.
//! Included with `#[path]`, like `validators.rs`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn node_env() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives inside the workspace")
        .join("target/node-env")
}

/// The Node 22 binary. Panics when `scripts/node-env` has not (successfully) run.
pub fn node() -> PathBuf {
    let env = node_env();
    let node = env.join("node_modules/node/bin/node");
    // Written by scripts/node-env only after every package installed.
    let stamp = env.join(".installed.sha256");
    assert!(
        node.exists() && stamp.exists(),
        "{} is missing or incomplete: run scripts/node-env first (scripts/test does it for you)",
        env.display()
    );
    node
}

/// `target/node-env/node_modules`, for scripts that load the installed packages themselves.
pub fn node_modules() -> PathBuf {
    node();
    node_env().join("node_modules")
}

/// A finished command's exit code and both streams, for assertion messages.
pub fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `node <package entry> ARGS` for an installed package's entry file.
pub fn npm_tool(entry: &str) -> Command {
    let mut cmd = Command::new(node());
    cmd.arg(node_env().join("node_modules").join(entry));
    cmd
}

/// The conformance suite's CLI.
pub fn conformance() -> Command {
    npm_tool("@modelcontextprotocol/conformance/dist/index.js")
}

/// The MCP Inspector's CLI (`--cli` mode).
pub fn inspector() -> Command {
    let mut cmd = npm_tool("@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    cmd.arg("--cli");
    cmd
}

/// A `serve --http 127.0.0.1:0` of an MCP binary of this workspace, killed when dropped.
pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`
    pub url: String,
    /// Told when the server's stderr closes: it has exited (or closed stderr to exit). In a
    /// mutex, as clients on other threads share the server.
    stderr_closed: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
}

impl HttpServer {
    /// Starts `bin serve --http 127.0.0.1:0 EXTRA...` and reads the URL it prints.
    pub fn start(bin: &str, extra: &[&str]) -> Self {
        Self::start_with_env(bin, extra, &[])
    }

    /// [`start`](Self::start) with environment variables set for the server.
    pub fn start_with_env(bin: &str, extra: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(bin)
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(extra)
            .envs(env.iter().copied())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
        let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
        let mut line = String::new();
        stderr
            .read_line(&mut line)
            .expect("the server says where it listens");
        // Keep draining (and showing) what it writes later, so it never writes to a closed pipe.
        let (closed, stderr_closed) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                eprintln!("[server] {line}");
            }
            let _ = closed.send(());
        });
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_owned();
        Self {
            child,
            url,
            stderr_closed: std::sync::Mutex::new(stderr_closed),
        }
    }
}

impl HttpServer {
    /// The server's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Its exit status, if it has exited.
    pub fn try_wait(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Its exit status once it exits within `limit` (its stderr closing says when); `None`
    /// if it is still running then.
    pub fn exit_within(&mut self, limit: std::time::Duration) -> Option<std::process::ExitStatus> {
        let closed = self
            .stderr_closed
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match closed.recv_timeout(limit) {
            Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => self.child.wait().ok(),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => None,
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
