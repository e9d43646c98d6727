//! Shared by the validator tests of every package with an `export` binary (`examples`: toolctl;
//! `tests`: hardctl): export each format, run it past the official packages through
//! `scripts/validate_defs.py`, and fail (never skip) when the Python environment is missing.
//! Included with `#[path]`, since a `CARGO_BIN_EXE_*` exists only in its own package's tests.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The workspace root: the parent of this crate's directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives inside the workspace")
        .to_path_buf()
}

/// The venv's interpreter. Panics when `scripts/python-env` has not (successfully) run: a missing
/// validator is a failure, never a skip.
pub fn python() -> PathBuf {
    let venv = workspace_root().join("target/py-venv");
    let python = venv.join("bin/python");
    // Written by scripts/python-env only after every package installed and imported.
    let stamp = venv.join(".requirements.sha256");
    assert!(
        python.exists() && stamp.exists(),
        "{} is missing or incomplete: run scripts/python-env first (scripts/test does it for you)",
        venv.display()
    );
    python
}

/// Runs `validate_defs.py --format F [--strict]` on `defs`.
pub fn run_validator(defs: &[u8], format: &str, strict: bool) -> Output {
    let mut cmd = Command::new(python());
    cmd.arg(workspace_root().join("scripts/validate_defs.py"))
        .args(["--format", format]);
    if strict {
        cmd.arg("--strict");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", python().display()));
    // The script reads all of its input before it writes anything, so this cannot deadlock.
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(defs)
        .expect("the validator reads its input");
    child.wait_with_output().expect("the validator runs")
}

/// Runs the client script `examples/tests/mcp/NAME` with `args` under the venv's interpreter
/// and asserts it succeeded; with `checks`, also that it reported all of them (a script that
/// exits 0 without running its checks proves nothing). Its stdout.
pub fn run_mcp_script(name: &str, args: &[&str], checks: Option<usize>) -> String {
    let script = workspace_root().join("examples/tests/mcp").join(name);
    let out = Command::new(python())
        .arg(&script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "{} failed (exit {:?}):\n{}",
        script.display(),
        out.status.code(),
        report(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if let Some(checks) = checks {
        let all = format!("all {checks} checks passed");
        assert!(
            stdout.lines().any(|l| l == all),
            "the script did not report its {checks} checks:\n{}",
            report(&out)
        );
    }
    stdout
}

/// Both output streams, for failure messages.
pub fn report(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Exports every tool of `bin` (`bin export --format F [--strict]`) and asserts the official
/// validators accept every definition, showing the validator's output when they do not.
pub fn validate(bin: &Path, format: &str, strict: bool) {
    let mut args = vec!["export", "--format", format];
    if strict {
        args.push("--strict");
    }
    let command = format!("{} {}", bin.display(), args.join(" "));
    let export = Command::new(bin)
        .args(&args)
        .current_dir(workspace_root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{command}`: {e}"));
    assert!(
        export.status.success(),
        "`{command}` failed:\n{}",
        report(&export)
    );
    let defs: Value = serde_json::from_slice(&export.stdout)
        .unwrap_or_else(|e| panic!("`{command}` did not print JSON ({e}):\n{}", report(&export)));
    let count = defs.as_array().map_or(0, Vec::len);
    assert!(count > 0, "`{command}` exported no definitions: {defs}");

    let out = run_validator(&export.stdout, format, strict);
    assert!(
        out.status.success(),
        "the official validators reject `{command}` (exit {:?}):\n{}",
        out.status.code(),
        report(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.lines().last(),
        Some(format!("{count} passed, 0 failed").as_str()),
        "the validator did not check every definition of `{command}`:\n{}",
        report(&out)
    );
}

/// One `#[test]` per format and strict mode for a binary with an `export` subcommand, plus
/// `$cases`, the list of what they cover.
#[macro_export]
macro_rules! export_tests {
    ($bin:expr, $cases:ident; $($test:ident => $format:literal $(, $strict:ident)?;)+) => {
        const $cases: &[(&str, bool)] = &[$(($format, export_tests!(@strict $($strict)?))),+];
        $(
            #[test]
            fn $test() {
                validate(::std::path::Path::new($bin), $format, export_tests!(@strict $($strict)?));
            }
        )+
    };
    (@strict strict) => { true };
    (@strict) => { false };
}
