//! What every benchmark writes beside its figures: the machine it ran on and the source it
//! measured. Included (`#[path]`) by the bench binaries that write JSON for `bench-report`, so
//! they share it without depending on one another; std and serde_json only.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// The machine a run is on: CPU, cores, memory, kernel, load, and how an idle CPU waits.
pub fn machine() -> Value {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpu = read("/proc/cpuinfo")
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_default();
    let mem_gib = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / (1024.0 * 1024.0));
    json!({
        "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "cpu": cpu,
        "memory_gib": (mem_gib * 10.0).round() / 10.0,
        "kernel": read("/proc/sys/kernel/osrelease").trim(),
        "loadavg": read("/proc/loadavg").trim(),
        // How an idle CPU waits: what a wake-up from another CPU costs depends on it.
        "cpuidle_driver": read("/sys/devices/system/cpu/cpuidle/current_driver").trim(),
        "guest_halt_poll_ns": read("/sys/module/haltpoll/parameters/guest_halt_poll_ns").trim(),
    })
}

/// What was measured: the commit checked out at `root` (and whether tracked files other than
/// the docs and the plots had changes), when, with which arguments, the toolchain, and the
/// cargo profile this binary was built with.
pub fn source(root: &Path) -> Value {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let rustc = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("-V")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    // target/<profile>/bin, or target/<profile>/deps/bench for a bench target.
    let profile = std::env::current_exe().ok().and_then(|exe| {
        let dir = exe.parent()?;
        let dir = if dir.file_name()? == "deps" {
            dir.parent()?
        } else {
            dir
        };
        Some(dir.file_name()?.to_string_lossy().into_owned())
    });
    let time = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    json!({
        "commit": git(&["rev-parse", "--short=7", "HEAD"]),
        "time": time,
        // The arguments the benchmark was run with (after the program's name).
        "args": std::env::args().skip(1).collect::<Vec<_>>(),
        // Changed tracked files other than the docs and the plots, which benchmarks write and
        // which change nothing that is measured.
        "dirty": git(&[
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            ".",
            ":!*.md",
            ":!benchmarks/calls/plots",
        ])
        .map(|s| !s.is_empty()),
        "rustc": rustc,
        "profile": profile,
    })
}

/// Where a benchmark leaves its figures for `bench-report`: `$CARGO_TARGET_DIR/bench/NAME.json`,
/// by default `ROOT/target/bench/NAME.json`.
pub fn results_path(root: &Path, name: &str) -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("bench")
        .join(format!("{name}.json"))
}

/// Writes `figures` (a JSON object) to [`results_path`] with `meta.source` and `meta.machine`
/// added; the path written.
pub fn write_results(
    root: &Path,
    name: &str,
    mut figures: Value,
) -> Result<std::path::PathBuf, String> {
    let meta = figures
        .as_object_mut()
        .ok_or("figures must be a JSON object")?
        .entry("meta")
        .or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert("source".into(), source(root));
        meta.insert("machine".into(), machine());
    }
    let path = results_path(root, name);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(&figures).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}
