//! HAProxy in front of three instances, for the scale-out tests: the shipped
//! `deploy/haproxy.cfg` run with its addresses set through the environment variables it reads,
//! its stats socket read, and a keep-alive HTTP/1.1 client of its frontends.
//!
//! Included by the tests that use it (`#[path]`), beside `mcp.rs` as `mcp_support` and
//! `validators.rs` as `py_support`.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::mcp_support::HttpServer;
use super::py_support;

pub const TOOLCTL: &str = env!("CARGO_BIN_EXE_toolctl");
pub const CONFORMANCE: &str = env!("CARGO_BIN_EXE_conformance-server");
pub const INSTANCES: usize = 3;

/// One test at a time: two load runs side by side would measure each other.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// HAProxy: `HAPROXY`, else `haproxy` on PATH, else Debian's `/usr/sbin/haproxy` (not on a
/// non-root PATH). Missing is a failure, never a skip.
pub fn haproxy() -> String {
    let candidates = match std::env::var("HAPROXY") {
        Ok(bin) => vec![bin],
        Err(_) => vec!["haproxy".to_owned(), "/usr/sbin/haproxy".to_owned()],
    };
    for bin in &candidates {
        if let Ok(out) = Command::new(bin).arg("-v").output()
            && out.status.success()
        {
            return bin.clone();
        }
    }
    panic!(
        "HAProxy is needed for this test and none of {candidates:?} runs.\n\
         Install Debian's haproxy: run `scripts/haproxy-env` (as root it runs \
         `apt-get install -y haproxy`; otherwise run `sudo apt-get install -y haproxy`), \
         or point HAPROXY at an HAProxy (2.6 or later) binary."
    )
}

/// `127.0.0.1:PORT` of a server started by [`HttpServer`].
pub fn authority(server: &HttpServer) -> String {
    server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// A loopback port nothing listens on right now, for HAProxy to bind.
pub fn free_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

/// Three stateless toolctl instances, three session-mode conformance servers, and HAProxy in
/// front of them running `deploy/haproxy.cfg`. Everything is killed when dropped.
pub struct Cluster {
    /// `None` once killed.
    pub stateless: Vec<Option<HttpServer>>,
    _sessions: Vec<HttpServer>,
    pub haproxy: Child,
    /// HAProxy's stdout (one log line per request) and stderr, as they arrive.
    pub log: Arc<Log>,
    pub socket: PathBuf,
    /// Where HAProxy listens: `127.0.0.1:PORT` of each frontend.
    pub stateless_front: String,
    pub sessions_front: String,
    _dir: tempfile::TempDir,
}

impl Cluster {
    pub fn start() -> Self {
        Self::start_with(TOOLCTL, &["--stateless"], &[])
    }

    /// A cluster whose stateless instances are `server serve --http ... args`, with `env`.
    pub fn start_with(server: &str, args: &[&str], env: &[(&str, &str)]) -> Self {
        let bin = haproxy();
        let stateless: Vec<HttpServer> = (0..INSTANCES)
            .map(|_| HttpServer::start_with_env(server, args, env))
            .collect();
        let sessions: Vec<HttpServer> = (0..INSTANCES)
            .map(|_| HttpServer::start(CONFORMANCE, &[]))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("haproxy.sock");
        let stateless_front = free_port();
        let sessions_front = free_port();
        let config = py_support::workspace_root().join("deploy/haproxy.cfg");

        let mut cmd = Command::new(&bin);
        cmd.arg("-db")
            .arg("-f")
            .arg(&config)
            .env("MCP_HAPROXY_SOCKET", &socket)
            .env("MCP_STATELESS_BIND", &stateless_front)
            .env("MCP_SESSIONS_BIND", &sessions_front)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (n, server) in stateless.iter().enumerate() {
            cmd.env(format!("MCP_STATELESS_{}", n + 1), authority(server));
        }
        for (n, server) in sessions.iter().enumerate() {
            cmd.env(format!("MCP_SESSIONS_{}", n + 1), authority(server));
        }
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
        let log = Arc::new(Log::default());
        collect(child.stdout.take().expect("piped"), &log);
        collect(child.stderr.take().expect("piped"), &log);

        let mut cluster = Self {
            stateless: stateless.into_iter().map(Some).collect(),
            _sessions: sessions,
            haproxy: child,
            log,
            socket,
            stateless_front,
            sessions_front,
            _dir: dir,
        };
        cluster.wait_until_checked();
        cluster
    }

    /// Waits until HAProxy's health checks passed on every server, so no test starts while the
    /// proxy still believes an instance is down.
    pub fn wait_until_checked(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.haproxy.try_wait().unwrap() {
                panic!("haproxy exited ({status}):\n{}", self.log_tail(40));
            }
            if self.socket.exists()
                && let Ok(stats) = self.try_stats()
            {
                let servers: Vec<&HashMap<String, String>> = stats
                    .rows
                    .iter()
                    .filter(|r| r["svname"].starts_with('s'))
                    .collect();
                let ready = servers.len() == 2 * INSTANCES
                    && servers.iter().all(|r| {
                        r["status"] == "UP" && matches!(r["check_status"].as_str(), "L7OK" | "L4OK")
                    });
                if ready {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "HAProxy did not see every instance up within 20 s:\n{}",
                self.log_tail(40)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// One command on HAProxy's stats socket, and its whole answer.
    pub fn command(&self, command: &str) -> std::io::Result<String> {
        let mut socket = UnixStream::connect(&self.socket)?;
        socket.set_read_timeout(Some(Duration::from_secs(10)))?;
        socket.write_all(format!("{command}\n").as_bytes())?;
        let mut answer = String::new();
        socket.read_to_string(&mut answer)?;
        Ok(answer)
    }

    pub fn try_stats(&self) -> std::io::Result<Stats> {
        Ok(Stats::parse(&self.command("show stat")?))
    }

    pub fn stats(&self) -> Stats {
        self.try_stats()
            .unwrap_or_else(|e| panic!("HAProxy's stats socket: {e}"))
    }

    /// Session id -> the server (`s1`...) the stick table sends it to.
    pub fn stuck_sessions(&self) -> BTreeMap<String, String> {
        let table = self.command("show table mcp_sessions").unwrap();
        table
            .lines()
            .filter_map(|line| {
                let field = |name: &str| {
                    line.split_whitespace()
                        .find_map(|w| w.strip_prefix(name))
                        .map(str::to_owned)
                };
                Some((field("key=")?, field("server_key=")?))
            })
            .collect()
    }

    pub fn log_lines(&self) -> Vec<String> {
        self.log.lines()
    }

    pub fn log_tail(&self, n: usize) -> String {
        self.log.tail(n)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.haproxy.kill();
        let _ = self.haproxy.wait();
    }
}

/// Lines a process writes, as they arrive, and word of each.
#[derive(Default)]
pub struct Log {
    lines: Mutex<Vec<String>>,
    more: Condvar,
}

impl Log {
    pub fn push(&self, line: String) {
        self.lines.lock().unwrap().push(line);
        self.more.notify_all();
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    pub fn tail(&self, n: usize) -> String {
        let lines = self.lines.lock().unwrap();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    /// Waits until `done` holds of the lines so far, checked again as each line arrives, for
    /// `within` at most: the lines then, whether it holds or not.
    pub fn until(&self, within: Duration, done: impl Fn(&[String]) -> bool) -> Vec<String> {
        let lines = self.lines.lock().unwrap();
        let (lines, _) = self
            .more
            .wait_timeout_while(lines, within, |lines| !done(lines))
            .unwrap();
        lines.clone()
    }
}

pub fn collect(from: impl Read + Send + 'static, into: &Arc<Log>) {
    let into = Arc::clone(into);
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            into.push(line);
        }
    });
}

/// HAProxy's `show stat`: one row per frontend, server and backend.
pub struct Stats {
    rows: Vec<HashMap<String, String>>,
}

impl Stats {
    pub fn parse(csv: &str) -> Self {
        let mut lines = csv.lines();
        let header: Vec<&str> = lines
            .next()
            .and_then(|h| h.strip_prefix("# "))
            .unwrap_or_else(|| panic!("not `show stat` output: {csv:?}"))
            .split(',')
            .collect();
        let rows = lines
            .filter(|l| !l.is_empty())
            .map(|l| {
                header
                    .iter()
                    .zip(l.split(','))
                    .map(|(k, v)| ((*k).to_owned(), v.to_owned()))
                    .collect()
            })
            .collect();
        Self { rows }
    }

    pub fn row(&self, proxy: &str, server: &str) -> &HashMap<String, String> {
        self.rows
            .iter()
            .find(|r| r["pxname"] == proxy && r["svname"] == server)
            .unwrap_or_else(|| panic!("no {proxy}/{server} in HAProxy's stats"))
    }

    /// A counter; empty fields (not kept for this row) read as 0.
    pub fn get(&self, proxy: &str, server: &str, field: &str) -> u64 {
        let value = &self.row(proxy, server)[field];
        if value.is_empty() {
            0
        } else {
            value
                .parse()
                .unwrap_or_else(|_| panic!("{field} = {value:?}"))
        }
    }

    /// `field` for each server of `proxy`, in the order s1, s2, s3.
    pub fn per_server(&self, proxy: &str, field: &str) -> Vec<u64> {
        (1..=INSTANCES)
            .map(|n| self.get(proxy, &format!("s{n}"), field))
            .collect()
    }
}

/// One keep-alive HTTP/1.1 connection to the proxy. A request is never sent twice: a failed
/// exchange is a lost call, and the next call opens a fresh connection.
pub struct Conn {
    addr: String,
    stream: Option<BufReader<TcpStream>>,
}

pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Conn {
    pub fn new(addr: &str) -> Self {
        Self {
            addr: addr.to_owned(),
            stream: None,
        }
    }

    pub fn post(&mut self, body: &str) -> Result<Reply, String> {
        self.post_with(body, &[])
    }

    /// [`post`](Self::post) with these headers too.
    pub fn post_with(&mut self, body: &str, headers: &[(&str, &str)]) -> Result<Reply, String> {
        let result = self.exchange(body, headers);
        if result.is_err() {
            self.stream = None;
        }
        result
    }

    fn exchange(&mut self, body: &str, headers: &[(&str, &str)]) -> Result<Reply, String> {
        if self.stream.is_none() {
            let socket = TcpStream::connect(&self.addr).map_err(|e| format!("connect: {e}"))?;
            socket.set_nodelay(true).map_err(|e| e.to_string())?;
            socket
                .set_read_timeout(Some(Duration::from_secs(30)))
                .map_err(|e| e.to_string())?;
            self.stream = Some(BufReader::new(socket));
        }
        let reader = self.stream.as_mut().expect("connected above");
        let extra: String = headers
            .iter()
            .map(|(name, value)| format!("{name}: {value}\r\n"))
            .collect();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        reader
            .get_mut()
            .write_all(request.as_bytes())
            .map_err(|e| format!("send: {e}"))?;

        let mut line = String::new();
        let read_line = |reader: &mut BufReader<TcpStream>, line: &mut String| {
            line.clear();
            match reader.read_line(line) {
                Ok(0) => Err("the proxy closed the connection".to_owned()),
                Ok(_) => Ok(()),
                Err(e) => Err(format!("receive: {e}")),
            }
        };
        read_line(reader, &mut line)?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("bad status line {line:?}"))?;
        let (mut length, mut chunked, mut close, mut content_type) =
            (None, false, false, String::new());
        loop {
            read_line(reader, &mut line)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let Some((name, value)) = header.split_once(':') else {
                return Err(format!("bad header {header:?}"));
            };
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().ok(),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "connection" => close = value.eq_ignore_ascii_case("close"),
                "content-type" => content_type = value.to_owned(),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                read_line(reader, &mut line)?;
                let size = usize::from_str_radix(line.trim(), 16)
                    .map_err(|_| format!("bad chunk size {line:?}"))?;
                let mut chunk = vec![0; size + 2];
                reader
                    .read_exact(&mut chunk)
                    .map_err(|e| format!("receive: {e}"))?;
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else if let Some(length) = length {
            body.resize(length, 0);
            reader
                .read_exact(&mut body)
                .map_err(|e| format!("receive: {e}"))?;
        } else {
            reader
                .read_to_end(&mut body)
                .map_err(|e| format!("receive: {e}"))?;
            close = true;
        }
        if close {
            self.stream = None;
        }
        Ok(Reply {
            status,
            content_type,
            body,
        })
    }
}
