//! Compile time of 200 tools in tool-core's style against the same 200 in rmcp's style.
//!
//! Writes a throwaway workspace of two crates under the target dir (`bench-calls-compile/`):
//! `gen-core200` (`#[tool]` fns, depends on tool-core by path) and `gen-rmcp200` (one
//! `#[tool_router(server_handler)]` impl of `#[tool]` methods taking `Parameters<T>` structs
//! that derive `Deserialize` + `JsonSchema`). Dependencies are built once; then each run cleans
//! and rebuilds only the generated crate, debug and release, alternating the two styles,
//! measuring wall time and rustc's peak memory (`/usr/bin/time -f %M`: the largest child's
//! maximum RSS). Medians, and ratios against rmcp measured in the same run.
//!
//! `cargo run --release -p bench-calls --bin compile-time -- [--runs N]` (default 3).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use bench_calls::generate;

/// The run's record (machine, commit) and where its figures go for bench-report.
#[path = "../../../report/src/meta.rs"]
mod meta;

const FILLERS: usize = 199; // plus add_numbers: 200 tools

/// One build: seconds, and rustc's peak RSS in KiB when `/usr/bin/time` is there.
type Measure = (f64, Option<u64>);

#[derive(Clone, Copy, PartialEq)]
enum Style {
    Core,
    Rmcp,
}

impl Style {
    fn package(self) -> &'static str {
        match self {
            Style::Core => "gen-core200",
            Style::Rmcp => "gen-rmcp200",
        }
    }
}

fn main() {
    let mut runs = 3usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).expect("--runs N"),
            other => panic!("unknown argument `{other}`; usage: compile-time [--runs N]"),
        }
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest
        .parent()
        .and_then(Path::parent)
        .expect("benchmarks/calls lives two levels below the workspace");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let dir = target.join("bench-calls-compile");
    write_workspace(&dir, workspace);
    let time_bin = Path::new("/usr/bin/time")
        .exists()
        .then_some("/usr/bin/time");
    if time_bin.is_none() {
        eprintln!("/usr/bin/time not found (Debian: apt-get install time): no peak memory");
    }

    println!(
        "prebuilding dependencies (debug and release) in {}",
        dir.display()
    );
    for release in [false, true] {
        let status = cargo(&dir)
            .args(["build", "--workspace"])
            .args(profile_args(release))
            .status()
            .expect("run cargo");
        assert!(status.success(), "prebuild failed");
    }

    let mut results: Vec<((Style, bool), Vec<Measure>)> = Vec::new();
    for release in [false, true] {
        for style in [Style::Core, Style::Rmcp] {
            results.push(((style, release), Vec::new()));
        }
    }
    for run in 0..runs {
        for release in [false, true] {
            let order = if run % 2 == 0 {
                [Style::Core, Style::Rmcp]
            } else {
                [Style::Rmcp, Style::Core]
            };
            for style in order {
                let m = clean_build(&dir, style, release, time_bin);
                println!(
                    "run {} {} {}: {:.1} s, rustc peak {}",
                    run + 1,
                    if release { "release" } else { "debug" },
                    style.package(),
                    m.0,
                    m.1.map_or("?".to_owned(), |k| format!("{} MiB", k / 1024))
                );
                results
                    .iter_mut()
                    .find(|(k, _)| *k == (style, release))
                    .expect("slot")
                    .1
                    .push(m);
            }
        }
    }

    let median = |v: &[Measure]| -> Measure {
        let mut t: Vec<f64> = v.iter().map(|m| m.0).collect();
        t.sort_by(f64::total_cmp);
        let mut mem: Vec<u64> = v.iter().filter_map(|m| m.1).collect();
        mem.sort();
        (t[t.len() / 2], mem.get(mem.len() / 2).copied())
    };
    let get = |style, release| {
        median(
            &results
                .iter()
                .find(|(k, _)| *k == (style, release))
                .expect("slot")
                .1,
        )
    };
    let mut rows = Vec::new();
    let mut md = String::from(
        "| profile | tool-core style | rmcp style (baseline) | ratio | target | rustc peak, tool-core | rustc peak, rmcp | ratio |\n|---|---|---|---|---|---|---|---|\n",
    );
    for release in [false, true] {
        let (ct, cm) = get(Style::Core, release);
        let (rt, rm) = get(Style::Rmcp, release);
        let ratio = ct / rt;
        let mib =
            |k: Option<u64>| k.map_or("?".to_owned(), |k| format!("{:.0} MiB", k as f64 / 1024.0));
        let mem_ratio = match (cm, rm) {
            (Some(c), Some(r)) => format!("{:.2}", c as f64 / r as f64),
            _ => "?".to_owned(),
        };
        rows.push(serde_json::json!({
            "profile": if release { "release" } else { "debug" },
            "core_s": ct, "rmcp_s": rt, "ratio": ratio, "target_max": 0.7,
            "core_peak_kib": cm, "rmcp_peak_kib": rm,
        }));
        md.push_str(&format!(
            "| {} | {ct:.1} s | {rt:.1} s | {ratio:.2} | ≤ 0.7: {} | {} | {} | {mem_ratio} |\n",
            if release { "release" } else { "debug" },
            if ratio <= 0.7 { "met" } else { "**missed**" },
            mib(cm),
            mib(rm),
        ));
    }
    println!(
        "\n## Clean build of the generated crate, 200 tools, median of {runs} alternating runs\n\n{md}"
    );
    let _ = std::fs::write(dir.join("summary.md"), &md);
    println!("written to {}", dir.join("summary.md").display());
    let figures = serde_json::json!({ "runs": runs, "tools": FILLERS + 1, "rows": rows });
    match meta::write_results(workspace, "compile-time", figures) {
        Ok(path) => println!("results: {}", path.display()),
        Err(e) => eprintln!("compile-time: {e}"),
    }
}

/// `cargo` for the generated workspace: its own target dir, offline (every crate is in the
/// local registry once the bench crate has been built).
fn cargo(dir: &Path) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .args(["--offline", "--quiet"]);
    cmd
}

fn profile_args(release: bool) -> &'static [&'static str] {
    if release { &["--release"] } else { &[] }
}

/// Times a clean build of the generated crate alone. Another engineer may edit tool-core
/// meanwhile, so dependencies are brought up to date first (untimed), and a timed build that
/// compiled anything besides the generated crate is thrown away and redone.
fn clean_build(dir: &Path, style: Style, release: bool, time_bin: Option<&str>) -> Measure {
    for attempt in 0..4 {
        let status = cargo(dir)
            .args(["build", "-p", style.package()])
            .args(profile_args(release))
            .status()
            .expect("cargo build");
        assert!(status.success(), "cargo build failed");
        let (measure, compiled) = timed_build(dir, style, release, time_bin);
        if compiled.len() == 1 {
            return measure;
        }
        eprintln!(
            "attempt {}: the timed build also compiled {:?}; measuring again",
            attempt + 1,
            compiled
        );
    }
    panic!("dependencies kept changing during the timed builds");
}

/// Cleans the generated crate's artifacts (incremental cache included), builds it, and says
/// how long it took, rustc's peak memory and which crates were compiled.
fn timed_build(
    dir: &Path,
    style: Style,
    release: bool,
    time_bin: Option<&str>,
) -> (Measure, Vec<String>) {
    let status = cargo(dir)
        .args(["clean", "-p", style.package()])
        .args(profile_args(release))
        .status()
        .expect("cargo clean");
    assert!(status.success(), "cargo clean failed");
    let profile_dir = dir
        .join("target")
        .join(if release { "release" } else { "debug" });
    let crate_name = style.package().replace('-', "_");
    if let Ok(entries) = std::fs::read_dir(profile_dir.join("incremental")) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&crate_name) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let cargo_bin = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = match time_bin {
        Some(time) => {
            let mut c = Command::new(time);
            c.args(["-f", "%M"]).arg(&cargo_bin);
            c
        }
        None => Command::new(&cargo_bin),
    };
    cmd.current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .args(["build", "--offline", "-p", style.package()])
        .args(profile_args(release));
    let start = Instant::now();
    let out = cmd.output().expect("run the build");
    let secs = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "build of {} failed:\n{stderr}",
        style.package()
    );
    let compiled = stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("Compiling "))
        .map(str::to_owned)
        .collect();
    let peak = time_bin.and_then(|_| stderr.lines().last()?.trim().parse::<u64>().ok());
    ((secs, peak), compiled)
}

fn write_workspace(dir: &Path, workspace: &Path) {
    let write = |rel: &str, text: &str| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create dir");
        // Unchanged files keep their mtime, so a rerun does not rebuild for nothing.
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            std::fs::write(&path, text).expect("write");
        }
    };
    let tool_core = workspace.join("tool-core");
    write(
        "Cargo.toml",
        r#"[workspace]
resolver = "3"
members = ["core200", "rmcp200"]

# As the tool-core workspace builds.
[profile.dev]
debug = "line-tables-only"

[profile.dev.package."*"]
debug = false
"#,
    );
    write(
        "core200/Cargo.toml",
        &format!(
            r#"[package]
name = "gen-core200"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
tool-core = {{ path = "{}" }}
"#,
            tool_core.display()
        ),
    );
    write("core200/src/lib.rs", &generate::core_crate(FILLERS));
    write(
        "rmcp200/Cargo.toml",
        r#"[package]
name = "gen-rmcp200"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
rmcp = { version = "3.11", default-features = false, features = ["server", "macros"] }
serde = { version = "1", features = ["derive"] }
schemars = { version = "1", default-features = false, features = ["derive", "std", "preserve_order"] }
"#,
    );
    write("rmcp200/src/lib.rs", &generate::rmcp_crate(FILLERS));
    // The same dependency versions as the tool-core workspace.
    if !dir.join("Cargo.lock").exists() {
        let _ = std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock"));
    }
}
