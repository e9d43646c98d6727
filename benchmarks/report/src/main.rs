//! `bench-report`: writes every generated figure of the docs from the JSON the benchmarks leave
//! in `target/bench/` (`mcp.json` from `mcp-load`, `mcp-backlog.json`, `footprint.json` from
//! `mcp-footprint`, `calls.json`, `plots.json` and `compile-time.json` from bench-calls,
//! `catalog.json` from tool-catalog's bench, `tasks.json` from bench-tasks).
//!
//! ```text
//! cargo run -p bench-report [-- --results DIR] [--root DIR] [--sections NAME,..] [--check]
//! ```
//! In `BENCHMARKS.md`, `README.md` and `docs/*.md`, the text between `<!-- bench:NAME -->` and
//! `<!-- /bench:NAME -->` is replaced by section NAME (see `inputs::SECTIONS`); the prose around it
//! is left alone. A section whose JSON is missing keeps its text (and is named on stderr), or
//! says how to produce it when it has none; a section drawn from several JSON files (`runs`,
//! `targets`, `summary`) keeps the rows of those that are missing.
//! `--sections` rewrites only the sections named and leaves every other as it is.
//! `--check` writes nothing and exits 1 when a file would change.

mod inputs;
mod sections;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use inputs::{Data, INPUTS, SECTIONS};

struct Args {
    results: PathBuf,
    root: PathBuf,
    /// Only these sections are rewritten (`--sections`); none named: every one.
    sections: Vec<String>,
    check: bool,
}

fn parse() -> Result<Args, String> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut a = Args {
        results: std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target"))
            .join("bench"),
        root,
        sections: Vec::new(),
        check: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--results" => a.results = it.next().ok_or("--results needs a directory")?.into(),
            "--root" => a.root = it.next().ok_or("--root needs a directory")?.into(),
            "--check" => a.check = true,
            "--sections" => {
                for name in it.next().ok_or("--sections needs names")?.split(',') {
                    if !SECTIONS.iter().any(|(n, _)| *n == name) {
                        return Err(format!("--sections: no section {name}"));
                    }
                    a.sections.push(name.to_owned());
                }
            }
            "-h" | "--help" => {
                return Err(
                    "usage: bench-report [--results DIR] [--root DIR] [--sections NAME,..] [--check]"
                        .into(),
                );
            }
            _ => return Err(format!("unknown argument {arg} (see --help)")),
        }
    }
    Ok(a)
}

fn load(dir: &Path) -> Data {
    let mut data = Data::new();
    for (name, file) in INPUTS {
        let path = dir.join(file);
        match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(v) => {
                    data.insert(name, v);
                }
                Err(e) => eprintln!("bench-report: {}: {e}", path.display()),
            },
            Err(_) => eprintln!(
                "bench-report: no {} (its sections are left as they are)",
                path.display()
            ),
        }
    }
    data
}

/// `text` with every marked section replaced by `render(name, its text now)` where that gives
/// one; a section `render` has nothing for keeps its text, or, when it has none, says how to
/// produce it. An error for a marker that is not closed or names no section. Markers count only
/// at the start of a line (so prose can quote one).
pub fn fill(text: &str, render: &dyn Fn(&str, &str) -> Option<String>) -> Result<String, String> {
    const OPEN: &str = "<!-- bench:";
    /// The first `pat` at the start of a line of `s`.
    fn at_line_start(s: &str, pat: &str) -> Option<usize> {
        if s.starts_with(pat) {
            return Some(0);
        }
        s.find(&format!("\n{pat}")).map(|i| i + 1)
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = at_line_start(rest, OPEN) {
        let after = &rest[at + OPEN.len()..];
        let end = after
            .find("-->")
            .ok_or("a `<!-- bench:` marker without `-->`")?;
        let name = after[..end].trim();
        if !SECTIONS.iter().any(|(n, _)| *n == name) {
            return Err(format!("`<!-- bench:{name} -->` names no section"));
        }
        let opening = &rest[..at + OPEN.len() + end + 3];
        let body = &rest[opening.len()..];
        let close = format!("<!-- /bench:{name} -->");
        let close_at = at_line_start(body, &close).ok_or(format!(
            "`<!-- bench:{name} -->` is not closed by `{close}`"
        ))?;
        out.push_str(opening);
        match render(name, &body[..close_at]) {
            Some(section) => {
                out.push('\n');
                out.push_str(section.trim_end());
                out.push('\n');
            }
            None if body[..close_at].trim().is_empty() => {
                out.push('\n');
                out.push_str(&sections::pending(name));
                out.push('\n');
            }
            None => out.push_str(&body[..close_at]),
        }
        out.push_str(&close);
        rest = &body[close_at + close.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The files that may hold markers: BENCHMARKS.md, README.md and docs/*.md.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("BENCHMARKS.md"), root.join("README.md")];
    if let Ok(dir) = std::fs::read_dir(root.join("docs")) {
        let mut docs: Vec<PathBuf> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        docs.sort();
        files.extend(docs);
    }
    files
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench-report: {e}");
            return ExitCode::from(2);
        }
    };
    let data = load(&a.results);
    let missing = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let render = |name: &str, old: &str| {
        if !a.sections.is_empty() && !a.sections.iter().any(|n| n == name) {
            return None;
        }
        let section = sections::render(name, &data, old);
        if section.is_none() {
            missing.borrow_mut().insert(name.to_owned());
        }
        section
    };
    let mut changed = Vec::new();
    for path in documents(&a.root) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let filled = match fill(&text, &render) {
            Ok(filled) => filled,
            Err(e) => {
                eprintln!("bench-report: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        if filled != text {
            if !a.check
                && let Err(e) = std::fs::write(&path, &filled)
            {
                eprintln!("bench-report: {}: {e}", path.display());
                return ExitCode::from(2);
            }
            changed.push(path);
        }
    }
    for name in missing.borrow().iter() {
        eprintln!("bench-report: section {name} kept as it was (its results are missing)");
    }
    for path in &changed {
        let shown = path.strip_prefix(&a.root).unwrap_or(path);
        println!(
            "{} {}",
            if a.check { "would change" } else { "wrote" },
            shown.display()
        );
    }
    if a.check && !changed.is_empty() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_replaced_and_prose_kept() {
        let text = "intro\n<!-- bench:calls -->\nold\n<!-- /bench:calls -->\nmiddle\n\
                    <!-- bench:summary -->\nkept\n<!-- /bench:summary -->\nend\n";
        let filled = fill(text, &|name, _| {
            (name == "calls").then(|| "| new |\n".into())
        })
        .unwrap();
        assert_eq!(
            filled,
            "intro\n<!-- bench:calls -->\n| new |\n<!-- /bench:calls -->\nmiddle\n\
             <!-- bench:summary -->\nkept\n<!-- /bench:summary -->\nend\n"
        );
        // Filling again changes nothing.
        let again = fill(&filled, &|name, _| {
            (name == "calls").then(|| "| new |\n".into())
        })
        .unwrap();
        assert_eq!(again, filled);
    }

    /// Every marker in the repository's docs names a section and is closed, no section is
    /// blank, and every section is somewhere.
    #[test]
    fn the_docs_markers_are_well_formed() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let seen = std::cell::RefCell::new(std::collections::BTreeSet::new());
        for path in documents(&root) {
            let text = std::fs::read_to_string(&path).unwrap();
            let kept = fill(&text, &|name, _| {
                seen.borrow_mut().insert(name.to_owned());
                None
            })
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(kept, text, "{}: a section is blank", path.display());
        }
        let missing: Vec<&str> = SECTIONS
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| !seen.borrow().contains(*n))
            .collect();
        assert!(missing.is_empty(), "no marker for {missing:?}");
    }

    #[test]
    fn a_blank_section_says_how_to_produce_it() {
        let text = "<!-- bench:compile-time -->\n<!-- /bench:compile-time -->\n";
        let filled = fill(text, &|_, _| None).unwrap();
        assert!(
            filled.contains(
                "\nNo results yet: `cargo run --release -p bench-calls --bin compile-time`"
            ),
            "{filled}"
        );
        assert_eq!(fill(&filled, &|_, _| None).unwrap(), filled);
    }

    #[test]
    fn bad_markers_are_errors() {
        let none = |_: &str, _: &str| None;
        assert!(
            fill("<!-- bench:nope -->x<!-- /bench:nope -->", &none)
                .unwrap_err()
                .contains("names no section")
        );
        assert!(
            fill("<!-- bench:calls -->x", &none)
                .unwrap_err()
                .contains("not closed")
        );
    }
}
