//! The stdio client: newline-delimited JSON-RPC on a child's stdin and stdout, on this thread
//! (no hand-off per message), with a watchdog thread that kills a server that stops answering;
//! in either protocol era ([`Era`]).

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;

use super::{
    CallMessage, Config, Era, INITIALIZED, Listing, Message, Phase, Sample, Server,
    call_request_in, check_call_in, check_discover, check_initialize, discover_request, id_of,
    initialize_request, memory_mib, server_log,
};

/// Kills the child when the current step's deadline passes.
struct Watchdog {
    start: Instant,
    /// Milliseconds since `start`; `u64::MAX` for none.
    deadline_ms: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
    fired: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn new(child: Arc<Mutex<Child>>) -> Watchdog {
        let start = Instant::now();
        let deadline_ms = Arc::new(AtomicU64::new(u64::MAX));
        let done = Arc::new(AtomicBool::new(false));
        let fired = Arc::new(AtomicBool::new(false));
        let thread = {
            let (deadline_ms, done, fired) = (deadline_ms.clone(), done.clone(), fired.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(20));
                    let now = start.elapsed().as_millis() as u64;
                    if now > deadline_ms.load(Ordering::Relaxed) {
                        fired.store(true, Ordering::Relaxed);
                        if let Ok(mut child) = child.lock() {
                            let _ = child.kill();
                        }
                        return;
                    }
                }
            })
        };
        Watchdog {
            start,
            deadline_ms,
            done,
            fired,
            thread: Some(thread),
        }
    }

    /// The next step must finish within `limit`.
    fn arm(&self, limit: Duration) {
        let at = (self.start.elapsed() + limit).as_millis() as u64;
        self.deadline_ms.store(at, Ordering::Relaxed);
    }

    fn fired(&self) -> bool {
        self.fired.load(Ordering::Relaxed)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Conn {
    reader: BufReader<ChildStdout>,
    writer: BufWriter<std::process::ChildStdin>,
    line: Vec<u8>,
}

impl Conn {
    /// The next line that is a response (server notifications and requests are skipped).
    fn read_line(&mut self) -> Result<&[u8], String> {
        loop {
            self.line.clear();
            let n = self
                .reader
                .read_until(b'\n', &mut self.line)
                .map_err(|e| format!("reading stdout: {e}"))?;
            if n == 0 {
                return Err("the server closed its stdout".to_owned());
            }
            if self.line.trim_ascii().is_empty() {
                continue;
            }
            return Ok(self.line.trim_ascii());
        }
    }

    /// The next answer (notifications the server sends are skipped).
    fn read_message<R: DeserializeOwned>(&mut self) -> Result<Message<R>, String> {
        loop {
            let line = self.read_line()?;
            let msg: Message<R> = serde_json::from_slice(line)
                .map_err(|e| format!("not JSON-RPC ({e}): {}", String::from_utf8_lossy(line)))?;
            if msg.method.is_none() {
                return Ok(msg);
            }
        }
    }

    fn send(&mut self, text: &str) -> Result<(), String> {
        self.writer
            .write_all(text.as_bytes())
            .and_then(|()| self.writer.write_all(b"\n"))
            .and_then(|()| self.writer.flush())
            .map_err(|e| format!("writing stdin: {e}"))
    }

    fn queue_call(&mut self, era: Era, id: u64) -> Result<(), String> {
        call_request_in(&mut self.writer, era, id)
            .and_then(|()| self.writer.write_all(b"\n"))
            .map_err(|e| format!("writing stdin: {e}"))
    }

    fn flush(&mut self) -> Result<(), String> {
        self.writer
            .flush()
            .map_err(|e| format!("writing stdin: {e}"))
    }
}

/// Starts `server` on pipes and measures it once in `era`; its start-up is the median of this
/// start and `cfg.starts` more.
pub fn run(server: &Server, cfg: &Config, era: Era, round: usize) -> Result<Sample, String> {
    let transport = match era {
        Era::Session => "stdio".to_owned(),
        Era::Stateless => format!("stdio-{}", era.key()),
    };
    let (stderr, log) = server_log(cfg, server, &transport, round)?;
    let mut starts = Vec::with_capacity(cfg.starts + 1);
    for _ in 0..cfg.starts {
        starts.push(time_start(server, cfg, era).map_err(|e| format!("a start to time: {e}"))?);
    }
    let begun = Instant::now();
    let (mut conn, child, dog) = spawn(server, stderr.into())?;
    let pid = child.lock().unwrap_or_else(|e| e.into_inner()).id();
    let result = measure(&mut conn, server, cfg, era, begun, pid, &dog);
    let result = result.map_err(|e| {
        let why = if dog.fired() {
            format!("{e} (killed after its time limit)")
        } else {
            e
        };
        format!("{why}; stderr in {}", log.display())
    });
    // Closing stdin is how a stdio server is told to stop.
    drop(conn);
    stop(child, dog);
    result.map(|mut sample| {
        starts.push(sample.startup_ms);
        sample.startup_ms = super::report::median(starts);
        sample
    })
}

/// One start of `server`, timed: milliseconds from the spawn to the checked answer to the
/// first request of `era` (`initialize`, or 2026-07-28's `server/discover`).
pub fn time_start(server: &Server, cfg: &Config, era: Era) -> Result<f64, String> {
    let (mut conn, child, dog) = spawn(server, Stdio::null())?;
    let started = start(&mut conn, &dog, cfg, era, Instant::now());
    drop(conn);
    stop(child, dog);
    started
}

/// What a server holds once idle: starts `server`, makes the handshake and reads its whole
/// listing (checked), then reads its memory. Its start-up (ms), VmRSS and VmHWM (MiB).
pub fn idle(server: &Server, cfg: &Config, round: usize) -> Result<(f64, f64, f64), String> {
    let (stderr, log) = server_log(cfg, server, "idle", round)?;
    let begun = Instant::now();
    let (mut conn, child, dog) = spawn(server, stderr.into())?;
    let pid = child.lock().unwrap_or_else(|e| e.into_inner()).id();
    let result = handshake(&mut conn, server, cfg, Era::Session, begun, &dog).map(|startup_ms| {
        let (rss, hwm) = memory_mib(pid);
        (startup_ms, rss, hwm)
    });
    drop(conn);
    stop(child, dog);
    result.map_err(|e| format!("{e}; stderr in {}", log.display()))
}

/// Spawns `server` on pipes, with a watchdog over it.
fn spawn(server: &Server, stderr: Stdio) -> Result<(Conn, Arc<Mutex<Child>>, Watchdog), String> {
    let mut child = Command::new(&server.program)
        .args(&server.stdio_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", server.program.display()))?;
    let conn = Conn {
        writer: BufWriter::with_capacity(1 << 16, child.stdin.take().expect("piped")),
        reader: BufReader::with_capacity(1 << 16, child.stdout.take().expect("piped")),
        line: Vec::with_capacity(4096),
    };
    let child = Arc::new(Mutex::new(child));
    let dog = Watchdog::new(child.clone());
    Ok((conn, child, dog))
}

/// Milliseconds from `begun` (the spawn) to the checked answer to `era`'s first request:
/// `initialize`, or `server/discover`.
fn start(
    conn: &mut Conn,
    dog: &Watchdog,
    cfg: &Config,
    era: Era,
    begun: Instant,
) -> Result<f64, String> {
    dog.arm(cfg.start_limit);
    conn.send(&match era {
        Era::Session => initialize_request(0),
        Era::Stateless => discover_request(0),
    })?;
    let first: Message = conn.read_message()?;
    let ms = begun.elapsed().as_secs_f64() * 1000.0;
    if id_of(&first.id) != Some(0) {
        return Err(format!("first answer to id {:?}, asked 0", first.id));
    }
    match era {
        Era::Session => check_initialize(&first)?,
        Era::Stateless => check_discover(&first)?,
    }
    Ok(ms)
}

/// Waits for a server whose stdin is closed to exit (3 s at most, then kills it).
fn stop(child: Arc<Mutex<Child>>, dog: Watchdog) {
    drop(dog);
    let mut child = child.lock().unwrap_or_else(|e| e.into_inner());
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break;
            }
        }
    }
}

fn measure(
    conn: &mut Conn,
    server: &Server,
    cfg: &Config,
    era: Era,
    begun: Instant,
    pid: u32,
    dog: &Watchdog,
) -> Result<Sample, String> {
    let mut sample = Sample {
        startup_ms: handshake(conn, server, cfg, era, begun, dog)?,
        ..Sample::default()
    };
    sample.idle_rss_mib = memory_mib(pid).0;

    let limit = cfg.phase_limit;
    dog.arm(limit + Duration::from_secs(20));
    sequential(conn, era, 1_000, cfg.warmup, limit)?;
    dog.arm(limit + Duration::from_secs(20));
    sample.sequential = sequential(conn, era, 1_000_000, cfg.calls, limit)?;
    dog.arm(limit + Duration::from_secs(20));
    sample.in_flight = pipelined(conn, era, 2_000_000, cfg.calls, cfg.in_flight, limit)?;
    dog.arm(Duration::from_secs(20));
    sample.peak_rss_mib = memory_mib(pid).1;
    Ok(sample)
}

/// `initialize` (timed from `begun`, the spawn) and `notifications/initialized`, or in
/// 2026-07-28 `server/discover` (timed alike); then every page of `tools/list` in `era`,
/// checked against `server.listed`. The start-up in milliseconds.
fn handshake(
    conn: &mut Conn,
    server: &Server,
    cfg: &Config,
    era: Era,
    begun: Instant,
    dog: &Watchdog,
) -> Result<f64, String> {
    let startup_ms = start(conn, dog, cfg, era, begun)?;
    if era == Era::Session {
        conn.send(INITIALIZED)?;
    }
    let mut listing = Listing::new(era);
    loop {
        conn.send(&listing.request())?;
        if !listing.read(&conn.read_message()?)? {
            break;
        }
    }
    listing.finish(server.listed)?;
    Ok(startup_ms)
}

/// One call at a time: `n` calls at most, none started after `limit`.
fn sequential(
    conn: &mut Conn,
    era: Era,
    base: u64,
    n: usize,
    limit: Duration,
) -> Result<Phase, String> {
    let mut lat = Vec::with_capacity(n);
    let start = Instant::now();
    for i in 0..n as u64 {
        if start.elapsed() > limit {
            break;
        }
        let id = base + i;
        let sent = Instant::now();
        conn.queue_call(era, id)?;
        conn.flush()?;
        let msg: CallMessage = conn.read_message()?;
        if id_of(&msg.id) != Some(id) {
            return Err(format!("answer to id {:?}, asked {id}", msg.id));
        }
        check_call_in(&msg, id, era)?;
        lat.push(sent.elapsed().as_nanos() as u64);
    }
    Ok(Phase::from_latencies(lat, start.elapsed().as_secs_f64()))
}

/// `window` calls in flight: a new one is sent as each answer arrives; writes are flushed when
/// no further answer is already buffered.
fn pipelined(
    conn: &mut Conn,
    era: Era,
    base: u64,
    n: usize,
    window: usize,
    limit: Duration,
) -> Result<Phase, String> {
    let mut sent_at: Vec<Option<Instant>> = vec![None; n];
    let mut lat = Vec::with_capacity(n);
    let start = Instant::now();
    let mut sent = 0usize;
    while sent < n.min(window) {
        sent_at[sent] = Some(Instant::now());
        conn.queue_call(era, base + sent as u64)?;
        sent += 1;
    }
    conn.flush()?;
    let mut done = 0usize;
    while done < sent {
        let msg: CallMessage = conn.read_message()?;
        let now = Instant::now();
        let id =
            id_of(&msg.id).ok_or_else(|| format!("answer without a numeric id: {:?}", msg.id))?;
        let slot = id
            .checked_sub(base)
            .map(|i| i as usize)
            .filter(|&i| i < sent)
            .ok_or_else(|| format!("answer to id {id}, which was not asked"))?;
        let at = sent_at[slot]
            .take()
            .ok_or_else(|| format!("a second answer to id {id}"))?;
        check_call_in(&msg, id, era)?;
        lat.push((now - at).as_nanos() as u64);
        done += 1;
        if sent < n && start.elapsed() <= limit {
            sent_at[sent] = Some(Instant::now());
            conn.queue_call(era, base + sent as u64)?;
            sent += 1;
        }
        if conn.reader.buffer().is_empty() {
            conn.flush()?;
        }
    }
    Ok(Phase::from_latencies(lat, start.elapsed().as_secs_f64()))
}
