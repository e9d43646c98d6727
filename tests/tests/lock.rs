//! The lock of the bundled tools and the rules of the review, against what ships: the committed
//! `tools/tools.lock.json` is what `toolctl lock` writes for them (the tools crate's own test
//! keeps it current), and docs/checking.md lists every rule with its class.

use clap::Parser;
use tool_core::Registry;
use tool_lock::RULES;

// The bundled tools, as `toolctl` links them.
use tool_bundle as _;

#[derive(Parser)]
struct Toolctl {
    #[command(flatten)]
    args: tool_cli::ToolArgs,
}

fn workspace_file(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn toolctl_lock_writes_the_committed_lock_of_the_bundled_tools() {
    let registry = Registry::linked().unwrap();
    let cli = Toolctl::parse_from(["toolctl", "lock", "-o", "-"]);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli.args.run(registry, &mut out, &mut err);
    assert_eq!(
        code,
        std::process::ExitCode::SUCCESS,
        "{}",
        String::from_utf8_lossy(&err)
    );
    let written = String::from_utf8(out).unwrap();
    assert!(
        written == workspace_file("tools/tools.lock.json"),
        "tools/tools.lock.json is not what `toolctl lock` writes: run \
         `TOOLS_LOCK=update cargo test -p tool-bundle --test lock`"
    );
}

#[test]
fn every_rule_of_the_review_is_documented_with_its_class() {
    let doc = workspace_file("docs/checking.md");
    let mut missing = Vec::new();
    for rule in RULES {
        let row = format!("| `{}` | {} |", rule.id, rule.class);
        if !doc.contains(&row) {
            missing.push(row);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/checking.md lacks these rows of the review's rules table:\n{}",
        missing.join("\n")
    );
}
