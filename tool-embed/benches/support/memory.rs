//! The memory of this process, from /proc: shared (`#[path]`) by the `search_quality` bench and
//! the `cost` example.

/// `VmRSS` and `VmHWM` (peak) of this process in MiB (Linux only; 0 elsewhere).
pub fn memory_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
