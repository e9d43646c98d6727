//! The workspace's crates depend only downward: every dependency between two of its crates
//! (normal, build or dev) goes from a higher layer to a lower one, as `docs/architecture.md`
//! draws them. Cargo already rejects a cycle; this rejects an edge that points up a layer, or
//! across one (an adapter that reaches into another adapter at its own level), before it
//! becomes one.
//!
//! And what a crate links stays what it needs: tool-core links no network, server or CLI
//! crate, nor the tokenizer without its feature `tokens`; tool-mcp without features and a stdio server built on it (`bench-lean`) link no HTTP
//! client, TLS or CLI parser, and tool-mcp no JWT or RSA code; the example binaries without
//! their features (the README's first command) link no embedding model, JWT or PostgreSQL
//! client (`cargo tree -e normal`).

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

/// Each crate's layer: it may depend on crates of lower layers only.
const LAYERS: &[(&str, u8)] = &[
    ("tool-grammar", 0),
    ("tool-core-macros", 1),
    ("tool-core", 2),
    ("tool-http", 3),
    ("tool-endpoint", 3),
    ("tool-embed", 3),
    ("tool-tasks", 3),
    ("tool-mcp", 4),
    ("tool-agent", 4),
    ("tool-presence", 4),
    ("tool-bundle", 4),
    ("tool-cli", 5),
    // Fixtures: tool crates the tests link.
    ("hard-types", 6),
    ("extra-tools", 6),
    ("clashing-tools", 6),
    ("locked-tools", 6),
    // What sits on top: binaries, tests, benchmarks.
    ("examples", 7),
    ("tests", 7),
    ("ui-suite", 7),
    ("bench-calls", 7),
    ("bench-mcp", 7),
    ("bench-lean", 7),
    ("bench-report", 7),
    ("bench-tasks", 7),
];

/// A dependency that breaks the layering, as a message naming both crates and their layers.
fn back_edges(metadata: &Value) -> Vec<String> {
    let layer = |name: &str| LAYERS.iter().find(|(n, _)| *n == name).map(|(_, l)| *l);
    let mut problems = Vec::new();
    let packages = metadata["packages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default();
        let Some(from) = layer(name) else {
            problems.push(format!(
                "`{name}` is a workspace crate with no layer: add it to LAYERS in \
                 tests/tests/layers.rs and to docs/architecture.md"
            ));
            continue;
        };
        let dependencies = package["dependencies"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        // Only dependencies inside the workspace have a `path`.
        for dependency in dependencies.iter().filter(|d| d.get("path").is_some()) {
            let to_name = dependency["name"].as_str().unwrap_or_default();
            let kind = dependency["kind"].as_str().unwrap_or("normal");
            match layer(to_name) {
                Some(to) if to < from => {}
                Some(to) => problems.push(format!(
                    "`{name}` (layer {from}) depends on `{to_name}` (layer {to}, a {kind} \
                     dependency): a crate depends only on crates of lower layers"
                )),
                None => problems.push(format!(
                    "`{name}` depends on `{to_name}`, which has no layer: add it to LAYERS"
                )),
            }
        }
    }
    problems
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn every_crate_depends_only_on_lower_layers() {
    let metadata = metadata();
    let problems = back_edges(&metadata);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Every layer the table names that exists is checked: at least the core and the macros.
    let names: Vec<&str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(
        names.contains(&"tool-core") && names.contains(&"tool-core-macros"),
        "{names:?}"
    );
}

/// The check fails on a back edge: the real workspace with one edge added that points up.
#[test]
fn a_back_edge_is_reported() {
    let mut metadata = metadata();
    let packages = metadata["packages"].as_array_mut().unwrap();
    let core = packages
        .iter_mut()
        .find(|p| p["name"] == "tool-core")
        .expect("tool-core is a workspace crate");
    core["dependencies"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "tool-bundle", "kind": null, "path": "/x/tools"}));
    let problems = back_edges(&metadata);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("`tool-core` (layer 2) depends on `tool-bundle` (layer 4"),
        "{}",
        problems[0]
    );
    // And a crate the table does not know.
    let mut unknown = BTreeMap::new();
    unknown.insert(
        "packages",
        serde_json::json!([{"name": "tool-new", "dependencies": []}]),
    );
    let problems = back_edges(&serde_json::to_value(unknown).unwrap());
    assert!(
        problems[0].contains("`tool-new` is a workspace crate with no layer"),
        "{problems:?}"
    );
}

/// A package's normal dependencies (its own name first), as `cargo tree -p NAME -e normal`
/// lists them with their default features: crate names, once each.
fn normal_dependencies(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "-p", package, "-e", "normal", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The crates of `forbidden` that `package` links, as a message per crate.
fn forbidden_in(package: &str, forbidden: &[&str]) -> Vec<String> {
    let names = normal_dependencies(package);
    assert!(
        names.iter().any(|n| n == package),
        "cargo tree -p {package} does not list {package}: {names:?}"
    );
    forbidden
        .iter()
        .filter(|f| names.iter().any(|n| n == *f))
        .map(|f| {
            format!("`{package}` links `{f}` (see `cargo tree -p {package} -e normal -i {f}`)")
        })
        .collect()
}

/// No HTTP client, TLS or CLI parser.
const CLIENT_TLS_CLI: &[&str] = &["reqwest", "rustls", "clap"];

#[test]
fn crates_link_only_what_they_use() {
    let mut problems = Vec::new();
    // The core: definitions, registry, execution; no network, no server, no CLI.
    problems.extend(forbidden_in(
        "tool-core",
        &[
            "reqwest",
            "axum",
            "hyper",
            "rmcp",
            "rustls",
            "clap",
            "tiktoken-rs",
        ],
    ));
    // The MCP server without `mount` or `oauth` (no JWT or RSA code either), and a 200-tool
    // stdio server on it.
    problems.extend(forbidden_in("tool-mcp", CLIENT_TLS_CLI));
    problems.extend(forbidden_in("tool-mcp", &["jsonwebtoken", "rsa"]));
    // The tokenizer (tool-core's feature `tokens`) is the CLI's: a server does not link it.
    problems.extend(forbidden_in("tool-mcp", &["tiktoken-rs"]));
    problems.extend(forbidden_in("bench-lean", &["tiktoken-rs"]));
    // Nor a JSON Schema validator (tool-core's feature `check`): decoding into the tools' own
    // types checks every call; only checking definitions needs one (docs/lean-builds.md).
    problems.extend(forbidden_in("tool-mcp", &["jsonschema"]));
    problems.extend(forbidden_in("bench-lean", &["jsonschema"]));
    // A stdio server turns tool-mcp's default feature `http` off: no HTTP server either.
    problems.extend(forbidden_in("bench-lean", &["axum", "hyper"]));
    problems.extend(forbidden_in("bench-lean", CLIENT_TLS_CLI));
    // The README's first command (`cargo run --bin toolctl`) builds toolctl without the features
    // that bring the embedding model, OAuth and the PostgreSQL store (`examples/full` has them).
    problems.extend(forbidden_in(
        "examples",
        &[
            "candle-core",
            "tokenizers",
            "tool-embed",
            "jsonwebtoken",
            "rsa",
            "tokio-postgres",
        ],
    ));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The check sees a forbidden crate: bench-mcp links reqwest, rustls and clap (its driver's
/// HTTP client, and tool-cli's).
#[test]
fn a_forbidden_crate_is_reported() {
    let problems = forbidden_in("bench-mcp", CLIENT_TLS_CLI);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0].starts_with("`bench-mcp` links `reqwest`"),
        "{}",
        problems[0]
    );
}
