//! `mcp-load`: the MCP server benchmark. Runs tool-core's server, rmcp's macro servers (default
//! and best), the TypeScript SDK and the Python SDK, each with 1 and 200 tools, and a
//! hand-written server with no SDK (the floor, 1 tool), round by round (the order rotating),
//! over stdio and Streamable HTTP, in both protocol eras (a session begun with `initialize`,
//! and stateless 2026-07-28 requests, the servers that speak it interleaved with the
//! session-era runs in each round); prints a table with ratios, the eras side by side and the
//! targets, and writes the JSON results.
//!
//! ```text
//! mcp-load [--quick] [--rounds N] [--calls N] [--limit SECS] [--starts N] [--only KIND,..]
//!          [--tools 1,200] [--transport stdio,http] [--era session,2026-07-28] [--awake]
//!          [--client-threads N] [--out FILE] [--root DIR]
//! ```
//! KIND: tool-core, baseline, lean, rmcp-default, rmcp-best, ts-sdk, py-sdk, floor (`baseline`:
//! tool-core built from the commit in `BENCH_MCP_BASELINE_DIR`, when set; `lean`: `lean-200`,
//! only when named). `--era` picks the eras (default both; 2026-07-28 only for the servers that
//! speak it: not the TypeScript SDK, see [`Kind::not_in`]). Over HTTP the calls are timed by wrk
//! (`scripts/wrk-env`), sequential on one connection and in flight on 64 from
//! `--client-threads N` threads (default one a core); the floor's rate with more threads shows
//! whether the client bounds the figures. `--awake` keeps every CPU
//! out of halt for the run (see [`driver::awake`]). Exit status 1 when a server
//! fails a check (a wrong or missing answer), 0 otherwise; missed targets are reported, not
//! failed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use bench_mcp::driver::report::{self, Results};
use bench_mcp::driver::{self, Config, Era, Kind, Mode};

struct Args {
    cfg: Config,
    only: Vec<Kind>,
    counts: Vec<usize>,
    modes: Vec<Mode>,
    eras: Vec<Era>,
    out: PathBuf,
    root: PathBuf,
    quick: bool,
    awake: bool,
}

fn parse() -> Result<Args, String> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let target = driver::bin_dir()
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let mut a = Args {
        cfg: Config {
            rounds: 5,
            calls: 20_000,
            warmup: 1_000,
            in_flight: 64,
            phase_limit: Duration::from_secs(4),
            start_limit: Duration::from_secs(30),
            starts: 4,
            log_dir: target.join("bench/mcp-logs"),
            client_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        },
        only: Vec::new(),
        counts: vec![1, 200],
        modes: vec![Mode::Stdio, Mode::Http],
        eras: Era::ALL.to_vec(),
        out: target.join("bench/mcp.json"),
        root,
        quick: false,
        awake: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{v}: {e}"));
        match arg.as_str() {
            "--quick" => {
                a.quick = true;
                a.cfg.rounds = 1;
                a.cfg.calls = 300;
                a.cfg.warmup = 20;
                a.cfg.phase_limit = Duration::from_secs(2);
                a.cfg.starts = 0;
            }
            "--starts" => a.cfg.starts = number(value()?)?,
            "--rounds" => a.cfg.rounds = number(value()?)?.max(1),
            "--calls" => a.cfg.calls = number(value()?)?.max(1),
            "--warmup" => a.cfg.warmup = number(value()?)?,
            "--in-flight" => a.cfg.in_flight = number(value()?)?.max(1),
            "--limit" => {
                let v = value()?;
                let secs: f64 = v.parse().map_err(|e| format!("{v}: {e}"))?;
                a.cfg.phase_limit = Duration::from_secs_f64(secs);
            }
            "--only" => a.only = Kind::parse_list(&value()?)?,
            "--tools" => {
                a.counts = value()?
                    .split(',')
                    .map(|n| match n {
                        "1" => Ok(1),
                        "200" => Ok(200),
                        _ => Err(format!("--tools: 1 or 200, not {n}")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--transport" => {
                a.modes = value()?
                    .split(',')
                    .map(|m| match m {
                        "stdio" => Ok(Mode::Stdio),
                        "http" => Ok(Mode::Http),
                        _ => Err(format!("--transport: stdio or http, not {m}")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--era" => a.eras = Era::parse_list(&value()?)?,
            "--awake" => a.awake = true,
            "--client-threads" => {
                a.cfg.client_threads = value()?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--client-threads: a number above 0")?;
            }
            "--out" => a.out = value()?.into(),
            "--root" => a.root = value()?.into(),
            "-h" | "--help" => {
                return Err("usage: mcp-load [--quick] [--rounds N] [--calls N] [--warmup N] \
                     [--in-flight N] [--limit SECS] [--starts N] [--only tool-core,baseline,lean,rmcp-default,rmcp-best,ts-sdk,py-sdk,floor] \
                     [--tools 1,200] [--transport stdio,http] [--era session,2026-07-28] [--awake] \
                     [--client-threads N] [--out FILE] [--root DIR]"
                    .into());
            }
            _ => return Err(format!("unknown argument {arg} (see --help)")),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let cfg = &args.cfg;
    // reqwest (with the workspace's `rustls-no-provider`) needs a provider to build a client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    if let Err(e) = std::fs::create_dir_all(&cfg.log_dir) {
        eprintln!("mcp-load: {}: {e}", cfg.log_dir.display());
        return ExitCode::from(2);
    }
    let servers = driver::servers(&args.root, &args.counts, &args.only);
    if servers.is_empty() {
        eprintln!("mcp-load: no server to run");
        return ExitCode::from(2);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let _spinners = match args.awake.then(|| driver::awake::Spinners::start(cores)) {
        Some(Err(e)) => {
            eprintln!("mcp-load: {e}");
            return ExitCode::from(2);
        }
        spinners => spinners,
    };
    // Who is left out of an era, and why (once, for the log and the JSON).
    let mut left_out = Vec::new();
    for &era in &args.eras {
        let mut seen = Vec::new();
        for server in &servers {
            if let Some(why) = server.kind.not_in(era)
                && !seen.contains(&server.kind)
            {
                seen.push(server.kind);
                eprintln!(
                    "mcp-load: {} is not measured in {}: {why}",
                    server.kind.label(),
                    era.key()
                );
                left_out.push(serde_json::json!({
                    "era": era.key(), "server": server.kind.key(),
                    "label": server.kind.label(), "why": why,
                }));
            }
        }
    }
    let before = driver::machine();
    let began = Instant::now();
    let mut results = Results::new();
    let mut failed = false;
    for &mode in &args.modes {
        // Every server in every era it is measured in, on this transport: one run each a round.
        let runs_of_round: Vec<(&driver::Server, Era)> = servers
            .iter()
            .flat_map(|server| args.eras.iter().map(move |&era| (server, era)))
            .filter(|(server, era)| match mode {
                Mode::Stdio => server.kind.not_in(*era).is_none(),
                Mode::Http => server.http_args.is_some() && server.kind.not_in(*era).is_none(),
            })
            .collect();
        for round in 0..cfg.rounds {
            // Alternate: each round starts one run later, so none is always first.
            let n = runs_of_round.len();
            for i in 0..n {
                let (server, era) = runs_of_round[(i + round) % n];
                let sample = match mode {
                    Mode::Stdio => driver::stdio::run(server, cfg, era, round),
                    Mode::Http => runtime.block_on(driver::http::run(server, cfg, era, round)),
                };
                let runs = results
                    .entry((mode, era, server.kind, server.tools))
                    .or_default();
                let at = match era {
                    Era::Session => mode.key().to_owned(),
                    Era::Stateless => format!("{} {}", mode.key(), era.key()),
                };
                match sample {
                    Ok(s) => {
                        eprintln!(
                            "[{at}] round {}/{} {:<16} start {:>7.1} ms  seq {:>8.0}/s  64 {:>8.0}/s  rss {:.1}/{:.1} MiB",
                            round + 1,
                            cfg.rounds,
                            server.name(),
                            s.startup_ms,
                            s.sequential.req_per_s,
                            s.in_flight.req_per_s,
                            s.idle_rss_mib,
                            s.peak_rss_mib
                        );
                        runs.samples.push(s);
                    }
                    Err(e) => {
                        eprintln!("[{at}] round {} {}: FAILED: {e}", round + 1, server.name());
                        failed = true;
                        runs.failures.push(e);
                    }
                }
            }
        }
    }
    let targets = report::targets(&results, &args.modes);
    let meta = serde_json::json!({
        "machine_before": before,
        "machine_after": driver::machine(),
        "source": driver::source(&args.root),
        "seconds": began.elapsed().as_secs_f64(),
        "protocol_version": driver::PROTOCOL_VERSION,
        "eras": args.eras.iter().map(|e| e.key()).collect::<Vec<_>>(),
        "stateless_protocol_version": driver::STATELESS_VERSION,
        "stateless_meta": serde_json::from_str::<serde_json::Value>(&format!(
            "{{{}}}",
            driver::STATELESS_META
        ))
        .map(|v| v["_meta"].clone())
        .unwrap_or_default(),
        "left_out": left_out,
        "rounds": cfg.rounds,
        "calls_per_phase": cfg.calls,
        "warmup": cfg.warmup,
        "in_flight": cfg.in_flight,
        "phase_limit_s": cfg.phase_limit.as_secs_f64(),
        "stdio_starts_per_round": cfg.starts + 1,
        "quick": args.quick,
        "awake": args.awake,
        // Where the servers came from, when not beside the driver (`run --plain-release`).
        "servers_dir": std::env::var_os("BENCH_MCP_BIN_DIR")
            .map(|dir| dir.to_string_lossy().into_owned()),
    });
    for &mode in &args.modes {
        println!("{}", report::table(&results, mode));
        let eras = report::eras_table(&results, mode);
        if !eras.is_empty() {
            println!("{eras}");
        }
    }
    if !targets.is_empty() {
        println!("{}", report::targets_table(&targets));
    }
    println!(
        "medians of {} round(s){}; stdio start-up per round the median of {} starts; at most {} calls and {:.1} s per phase; load average {} before, {} after",
        cfg.rounds,
        if args.awake {
            ", every CPU kept out of halt (--awake)"
        } else {
            ""
        },
        cfg.starts + 1,
        cfg.calls,
        cfg.phase_limit.as_secs_f64(),
        meta["machine_before"]["loadavg"].as_str().unwrap_or("?"),
        meta["machine_after"]["loadavg"].as_str().unwrap_or("?"),
    );
    let json = report::json(&results, &targets, meta);
    if let Some(dir) = args.out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    match std::fs::write(
        &args.out,
        serde_json::to_string_pretty(&json).unwrap_or_default(),
    ) {
        Ok(()) => println!("results: {}", args.out.display()),
        Err(e) => {
            eprintln!("mcp-load: {}: {e}", args.out.display());
            return ExitCode::from(2);
        }
    }
    if failed {
        eprintln!("mcp-load: a server failed a check (above)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
