//! A child process for the end-to-end tests: killed when dropped, its stdout and stderr lines
//! arriving on channels.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Waits for `child` to exit, for `within` at most: its exit status, told by a thread that waits
/// for it; or `None`, once it has been killed (SIGKILL) for taking too long.
pub fn exit_within(child: Child, within: Duration) -> Option<ExitStatus> {
    let pid = child.id();
    let (exited, exit) = mpsc::channel();
    std::thread::spawn(move || {
        let mut child = child;
        let _ = exited.send(child.wait());
    });
    match exit.recv_timeout(within) {
        Ok(status) => Some(status.expect("the child is waited for")),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            None
        }
    }
}

/// A child process, killed when dropped, with its output lines arriving on channels.
pub struct Running {
    pub child: Child,
    stdout: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<String>,
    /// Every stderr line seen so far, for failure messages.
    seen: Vec<String>,
}

impl Running {
    pub fn spawn(command: &mut Command) -> Self {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{command:?} starts: {e}"));
        let stdout = lines(child.stdout.take().expect("piped"));
        let stderr = lines(child.stderr.take().expect("piped"));
        Self {
            child,
            stdout,
            stderr,
            seen: Vec::new(),
        }
    }

    /// The first stderr line containing `needle`, waiting up to a minute.
    pub fn stderr_line(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no `{needle}` on stderr; it said:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Its exit status once it exits within `within`: its stderr closing says when (the lines it
    /// wrote until then are kept for failure messages); `None` if it is still running then.
    pub fn exit_within(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(mpsc::RecvTimeoutError::Disconnected) => return self.child.wait().ok(),
                Err(mpsc::RecvTimeoutError::Timeout) => return None,
            }
        }
    }

    /// Every stderr line seen so far.
    pub fn said(&self) -> String {
        self.seen.join("\n")
    }

    /// The next stdout line, waiting up to a minute.
    pub fn stdout_line(&mut self) -> String {
        match self.stdout.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(_) => {
                while let Ok(line) = self.stderr.try_recv() {
                    self.seen.push(line);
                }
                panic!("nothing on stdout; stderr said:\n{}", self.seen.join("\n"))
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lines(from: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
