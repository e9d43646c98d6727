//! `mcp-footprint`: what a 200-tool stdio server costs before it serves a call. For `lean-200`
//! (tool-core and tool-mcp alone), `tc-200` (the same tools through tool-cli, as `toolctl
//! serve`) and rmcp's 200-tool servers, all built with the profile this driver was built with
//! (`benchmarks/mcp/run --footprint` uses `plain-release`, what a user's crate gets): the
//! binary's size, start-up (spawn to the `initialize` answer, median of every start) and idle
//! RSS (after the handshake and the whole listing, median over rounds), and the normal
//! dependencies of `bench-lean` and `tool-cli` as `cargo tree` lists them.
//!
//! ```text
//! mcp-footprint [--rounds N] [--starts N] [--only KIND,..] [--out FILE] [--root DIR]
//! ```
//! KIND: lean, tool-core, rmcp-default, rmcp-best. Each round starts every server `--starts`
//! times, then once more for the memory, the order rotating from round to round. Exit status 1
//! when a server fails a check.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use bench_mcp::driver::{self, Config, Kind};
use serde_json::{Value, json};

/// Crates a lean stdio server must not link: an HTTP client, TLS, a CLI parser.
const FORBIDDEN: [&str; 3] = ["reqwest", "rustls", "clap"];

/// The packages whose normal dependencies are listed: the lean server's and tool-cli's (what
/// `tc-200` links beside tool-core and tool-mcp).
const PACKAGES: [&str; 2] = ["bench-lean", "tool-cli"];

struct Args {
    rounds: usize,
    starts: usize,
    only: Vec<Kind>,
    out: PathBuf,
    root: PathBuf,
}

fn parse() -> Result<Args, String> {
    let target = driver::bin_dir()
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| "target".into());
    let mut a = Args {
        rounds: 5,
        starts: 10,
        only: vec![
            Kind::Lean,
            Kind::ToolCore,
            Kind::RmcpDefault,
            Kind::RmcpBest,
        ],
        out: target.join("bench/footprint.json"),
        root: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{v}: {e}"));
        match arg.as_str() {
            "--rounds" => a.rounds = number(value()?)?.max(1),
            "--starts" => a.starts = number(value()?)?,
            "--only" => a.only = Kind::parse_list(&value()?)?,
            "--out" => a.out = value()?.into(),
            "--root" => a.root = value()?.into(),
            "-h" | "--help" => {
                return Err("usage: mcp-footprint [--rounds N] [--starts N] \
                            [--only lean,tool-core,rmcp-default,rmcp-best] [--out FILE] [--root DIR]"
                    .into());
            }
            _ => return Err(format!("unknown argument {arg} (see --help)")),
        }
    }
    Ok(a)
}

/// One server's figures.
#[derive(Debug, Default, serde::Serialize)]
struct Footprint {
    server: &'static str,
    label: &'static str,
    program: String,
    binary_bytes: u64,
    startup_ms: f64,
    idle_rss_mib: f64,
    /// VmHWM at the same moment: the most it held during start-up and the listing.
    peak_rss_mib: f64,
    startup_samples: Vec<f64>,
    idle_rss_samples: Vec<f64>,
    failures: Vec<String>,
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// `cargo tree -p package -e normal --prefix none`: the distinct crates, the direct ones, and
/// which forbidden ones are among them.
fn dependencies(root: &Path, package: &str) -> Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let tree = |depth: Option<&str>| -> Result<Vec<String>, String> {
        let mut cmd = Command::new(&cargo);
        cmd.args(["tree", "-p", package, "-e", "normal", "--prefix", "none"])
            .arg("--manifest-path")
            .arg(root.join("Cargo.toml"));
        if let Some(depth) = depth {
            cmd.args(["--depth", depth]);
        }
        let out = cmd.output().map_err(|e| format!("cargo tree: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let mut crates: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let mut words = l.split_whitespace();
                Some(format!("{} {}", words.next()?, words.next()?))
            })
            .collect();
        crates.sort();
        crates.dedup();
        Ok(crates)
    };
    // hyper-util's features: `client` (and `client-legacy`) would be an HTTP client.
    let hyper_util: Vec<String> = Command::new(&cargo)
        .args([
            "tree",
            "-p",
            package,
            "-e",
            "normal,features",
            "-i",
            "hyper-util",
        ])
        .args(["--prefix", "none"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            let mut features: Vec<String> = String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter_map(|l| l.strip_prefix("hyper-util feature \""))
                .filter_map(|l| l.split('"').next())
                .map(str::to_owned)
                .collect();
            features.sort();
            features.dedup();
            features
        })
        .unwrap_or_default();
    match (tree(None), tree(Some("1"))) {
        (Ok(all), Ok(direct)) => {
            let name = |c: &String| c.split(' ').next().unwrap_or_default().to_owned();
            let forbidden: Vec<String> = all
                .iter()
                .map(name)
                .filter(|n| FORBIDDEN.contains(&n.as_str()))
                .collect();
            json!({
                "package": package,
                // The package itself is the first line; the rest is what it links.
                "crates": all.len().saturating_sub(1),
                "direct": direct.iter().filter(|c| name(c) != package).collect::<Vec<_>>(),
                "forbidden_checked": FORBIDDEN,
                "forbidden_found": forbidden,
                "hyper_util_features": hyper_util,
            })
        }
        (Err(e), _) | (_, Err(e)) => json!({ "package": package, "error": e }),
    }
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("mcp-footprint: {e}");
            return ExitCode::from(2);
        }
    };
    let target = a.out.parent().and_then(Path::parent).map(PathBuf::from);
    let cfg = Config {
        rounds: a.rounds,
        calls: 0,
        warmup: 0,
        in_flight: 1,
        phase_limit: Duration::from_secs(1),
        start_limit: Duration::from_secs(30),
        starts: a.starts,
        log_dir: target
            .unwrap_or_else(|| "target".into())
            .join("bench/mcp-logs"),
        client_threads: 1,
    };
    if let Err(e) = std::fs::create_dir_all(&cfg.log_dir) {
        eprintln!("mcp-footprint: {}: {e}", cfg.log_dir.display());
        return ExitCode::from(2);
    }
    let servers = driver::servers(&a.root, &[200], &a.only);
    if servers.is_empty() {
        eprintln!("mcp-footprint: no server to run");
        return ExitCode::from(2);
    }
    let mut rows: Vec<Footprint> = servers
        .iter()
        .map(|s| Footprint {
            server: s.kind.key(),
            label: s.kind.label(),
            program: s.program.display().to_string(),
            binary_bytes: std::fs::metadata(&s.program).map_or(0, |m| m.len()),
            ..Footprint::default()
        })
        .collect();
    let machine = driver::machine();
    let mut failed = false;
    for round in 0..a.rounds {
        let n = servers.len();
        for i in 0..n {
            let k = (i + round) % n;
            let (server, row) = (&servers[k], &mut rows[k]);
            let mut run = || -> Result<(), String> {
                for _ in 0..a.starts {
                    row.startup_samples.push(driver::stdio::time_start(
                        server,
                        &cfg,
                        driver::Era::Session,
                    )?);
                }
                let (startup, rss, hwm) = driver::stdio::idle(server, &cfg, round)?;
                row.startup_samples.push(startup);
                row.idle_rss_samples.push(rss);
                row.peak_rss_mib = row.peak_rss_mib.max(hwm);
                Ok(())
            };
            match run() {
                Ok(()) => eprintln!(
                    "round {}/{} {:<16} start {:>6.2} ms  idle {:.2} MiB",
                    round + 1,
                    a.rounds,
                    server.name(),
                    row.startup_samples.last().copied().unwrap_or(f64::NAN),
                    row.idle_rss_samples.last().copied().unwrap_or(f64::NAN),
                ),
                Err(e) => {
                    eprintln!("round {} {}: FAILED: {e}", round + 1, server.name());
                    row.failures.push(e);
                    failed = true;
                }
            }
        }
    }
    for row in &mut rows {
        row.startup_ms = median(row.startup_samples.clone());
        row.idle_rss_mib = median(row.idle_rss_samples.clone());
    }
    println!("| server | binary | start-up | idle RSS | peak RSS |\n|---|---:|---:|---:|---:|");
    for row in &rows {
        println!(
            "| {} | {:.1} MB | {:.2} ms | {:.2} MiB | {:.2} MiB |",
            row.label,
            row.binary_bytes as f64 / 1e6,
            row.startup_ms,
            row.idle_rss_mib,
            row.peak_rss_mib
        );
    }
    let deps: Vec<Value> = PACKAGES.iter().map(|p| dependencies(&a.root, p)).collect();
    for d in &deps {
        println!(
            "{}: {} crates linked (normal dependencies); of {:?}: {}",
            d["package"].as_str().unwrap_or("?"),
            d["crates"],
            FORBIDDEN,
            d["forbidden_found"]
        );
    }
    let json = json!({
        "meta": {
            "source": driver::source(&a.root),
            "machine": machine,
            "rounds": a.rounds,
            "starts_per_round": a.starts + 1,
        },
        "results": rows,
        "dependencies": deps,
    });
    if let Some(dir) = a.out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    match std::fs::write(&a.out, serde_json::to_vec_pretty(&json).unwrap_or_default()) {
        Ok(()) => println!("results: {}", a.out.display()),
        Err(e) => {
            eprintln!("mcp-footprint: {}: {e}", a.out.display());
            return ExitCode::from(2);
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
