//! `mcp-backlog`: a client that writes many calls and does not read. Over stdio it writes N
//! `tools/call` requests with long string ids (20,000 of 4 KiB by default) while it reads
//! nothing for a few seconds, then reads every answer. For each server it reports whether
//! every call was answered exactly once, how much the client could write while it did not
//! read (a server that stops reading keeps it small), the server's peak memory, and how long
//! the backlog took to drain.
//!
//! ```text
//! mcp-backlog [--calls N] [--id-bytes N] [--unread SECS] [--only KIND,..] [--out FILE]
//! ```
//! KIND: tool-core, baseline (tool-core from `BENCH_MCP_BASELINE_DIR`), rmcp-best, floor.
//! Exit status 1 when a server loses or repeats an answer.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bench_mcp::driver::{self, CallMessage, INITIALIZED, Kind, Server, check_call, memory_mib};
use serde_json::{Value, json};

struct Args {
    calls: usize,
    id_bytes: usize,
    unread: Duration,
    only: Vec<Kind>,
    out: std::path::PathBuf,
}

/// One server's run.
#[derive(Debug, serde::Serialize)]
struct Backlog {
    server: String,
    label: &'static str,
    calls: usize,
    answered: usize,
    /// Bytes of requests the client could write while it read nothing.
    written_unread_mib: f64,
    idle_rss_mib: f64,
    /// VmHWM when the client starts to read.
    peak_rss_unread_mib: f64,
    /// VmHWM at the end.
    peak_rss_mib: f64,
    /// From the first read to the last answer.
    drain_s: f64,
    failure: Option<String>,
}

fn parse() -> Result<Args, String> {
    let target = driver::bin_dir()
        .parent()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "target".into());
    let mut a = Args {
        calls: 20_000,
        id_bytes: 4096,
        unread: Duration::from_secs(3),
        only: vec![Kind::ToolCore, Kind::Baseline, Kind::RmcpBest],
        out: target.join("bench/mcp-backlog.json"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{v}: {e}"));
        match arg.as_str() {
            "--calls" => a.calls = number(value()?)?.max(1),
            "--id-bytes" => a.id_bytes = number(value()?)?,
            "--unread" => {
                let v = value()?;
                let secs: f64 = v.parse().map_err(|e| format!("{v}: {e}"))?;
                a.unread = Duration::from_secs_f64(secs);
            }
            "--only" => a.only = Kind::parse_list(&value()?)?,
            "--out" => a.out = value()?.into(),
            _ => {
                return Err(
                    "usage: mcp-backlog [--calls N] [--id-bytes N] [--unread SECS] \
                            [--only tool-core,baseline,rmcp-best,floor] [--out FILE]"
                        .into(),
                );
            }
        }
    }
    Ok(a)
}

/// The id of call `i`: its number, then padding to `bytes`.
fn id(i: usize, bytes: usize) -> String {
    let mut id = format!("{i}-");
    id.extend(std::iter::repeat_n('x', bytes.saturating_sub(id.len())));
    id
}

fn run(server: &Server, a: &Args) -> Result<Backlog, String> {
    let mut child = Command::new(&server.program)
        .args(&server.stdio_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", server.program.display()))?;
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    writeln!(stdin, "{}\n{INITIALIZED}", driver::initialize_request(0))
        .map_err(|e| e.to_string())?;
    let mut line = String::new();
    stdout.read_line(&mut line).map_err(|e| e.to_string())?;
    let (idle, _) = memory_mib(pid);

    let written = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (written, calls, id_bytes) = (written.clone(), a.calls, a.id_bytes);
        std::thread::spawn(move || -> std::io::Result<()> {
            let mut stdin = BufWriter::new(stdin);
            for i in 0..calls {
                let (x, y) = driver::operands(i as u64);
                let request = json!({"jsonrpc": "2.0", "id": id(i, id_bytes),
                    "method": "tools/call",
                    "params": {"name": "add_numbers", "arguments": {"a": x, "b": y}}});
                let mut line = serde_json::to_vec(&request)?;
                line.push(b'\n');
                stdin.write_all(&line)?;
                written.fetch_add(line.len(), Ordering::Relaxed);
            }
            stdin.flush()
        })
    };
    std::thread::sleep(a.unread);
    let written_unread = written.load(Ordering::Relaxed) as f64 / (1024.0 * 1024.0);
    let (_, peak_unread) = memory_mib(pid);

    let started = Instant::now();
    let mut seen = vec![false; a.calls];
    let mut failure = None;
    let mut answered = 0;
    while answered < a.calls {
        line.clear();
        match stdout.read_line(&mut line) {
            Ok(0) => {
                failure = Some(format!("the server closed stdout after {answered} answers"));
                break;
            }
            Ok(_) => {}
            Err(e) => return Err(e.to_string()),
        }
        let message: CallMessage =
            serde_json::from_str(&line).map_err(|e| format!("not JSON-RPC ({e}): {line:.200}"))?;
        if message.method.is_some() {
            continue;
        }
        let i = message
            .id
            .as_ref()
            .and_then(Value::as_str)
            .and_then(|id| id.split('-').next()?.parse::<usize>().ok())
            .filter(|&i| i < a.calls)
            .ok_or_else(|| format!("an answer with an id no call had: {line:.200}"))?;
        check_call(&message, i as u64)?;
        if std::mem::replace(&mut seen[i], true) {
            failure.get_or_insert(format!("call {i} answered twice"));
        }
        answered += 1;
    }
    let drain = started.elapsed();
    let (_, peak) = memory_mib(pid);
    let _ = writer.join();
    let _ = child.kill();
    let _ = child.wait();
    let lost = seen.iter().filter(|s| !**s).count();
    if lost > 0 {
        failure.get_or_insert(format!("{lost} calls never answered"));
    }
    Ok(Backlog {
        server: server.name(),
        label: server.kind.label(),
        calls: a.calls,
        answered: seen.iter().filter(|s| **s).count(),
        written_unread_mib: written_unread,
        idle_rss_mib: idle,
        peak_rss_unread_mib: peak_unread,
        peak_rss_mib: peak,
        drain_s: drain.as_secs_f64(),
        failure,
    })
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("mcp-backlog: {e}");
            return ExitCode::from(2);
        }
    };
    let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let servers = driver::servers(&root, &[1], &a.only);
    println!(
        "{} calls, ids of {} bytes, stdout unread for {:.1} s\n",
        a.calls,
        a.id_bytes,
        a.unread.as_secs_f64()
    );
    println!(
        "| server | answered once | written while unread | idle RSS | peak RSS while unread | peak RSS | drain |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut results = Vec::new();
    let mut failed = false;
    for server in &servers {
        let row = match run(server, &a) {
            Ok(row) => row,
            Err(e) => {
                eprintln!("mcp-backlog: {}: {e}", server.name());
                failed = true;
                continue;
            }
        };
        failed |= row.failure.is_some();
        println!(
            "| {} | {} of {}{} | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.2} s |",
            server.kind.label(),
            row.answered,
            row.calls,
            row.failure
                .as_deref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default(),
            row.written_unread_mib,
            row.idle_rss_mib,
            row.peak_rss_unread_mib,
            row.peak_rss_mib,
            row.drain_s
        );
        results.push(row);
    }
    let json = json!({
        "calls": a.calls, "id_bytes": a.id_bytes, "unread_s": a.unread.as_secs_f64(),
        "meta": {"source": driver::source(&root), "machine": driver::machine()},
        "results": results,
    });
    if let Some(dir) = a.out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = std::fs::write(&a.out, serde_json::to_vec_pretty(&json).unwrap_or_default()) {
        eprintln!("mcp-backlog: {}: {e}", a.out.display());
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
