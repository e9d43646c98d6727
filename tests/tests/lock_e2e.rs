//! The review end to end, on a real tools crate (`tests/fixtures/locked-tools`) and its
//! committed `tools.lock.json`: the crate as locked passes; a breaking change (the feature
//! `breaking` drops a parameter) fails both its `cargo test` and `lockedctl check --baseline`;
//! an additive one (the feature `additive` adds an optional parameter) passes both, with its
//! token delta shown.

use std::process::Output;

use tests::workspace;

fn lock_file() -> String {
    workspace()
        .join("tests/fixtures/locked-tools/tools.lock.json")
        .display()
        .to_string()
}

/// `cargo ARGS` in the workspace, never told to write a lock.
fn cargo(args: &[&str]) -> Output {
    tests::cargo()
        .args(args)
        .env_remove(tool_lock::LOCK_ENV)
        .output()
        .expect("cargo runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn crate_test(feature: Option<&str>) -> Output {
    let mut args = vec!["test", "-p", "locked-tools", "--test", "lock"];
    if let Some(feature) = feature {
        args.extend(["--features", feature]);
    }
    // The review is printed: shown for a passing test too.
    args.extend(["--", "--nocapture"]);
    cargo(&args)
}

fn lockedctl(feature: Option<&str>, check: &[&str]) -> Output {
    let mut args = vec!["run", "-q", "-p", "locked-tools", "--bin", "lockedctl"];
    if let Some(feature) = feature {
        args.extend(["--features", feature]);
    }
    args.push("--");
    args.extend(check);
    cargo(&args)
}

#[test]
fn a_breaking_change_fails_cargo_test_and_check_and_an_additive_one_passes_with_its_delta() {
    let lock = lock_file();
    // As locked: no change.
    let out = crate_test(None);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("0 breaking, 0 additive, 0 cosmetic"),
        "{}",
        text(&out)
    );

    // Breaking: `days` removed.
    let out = crate_test(Some("breaking"));
    assert!(!out.status.success(), "{}", text(&out));
    let removed = "breaking[input.param.removed] get_forecast at /inputSchema/properties/days: parameter `days` was removed";
    assert!(text(&out).contains(removed), "{}", text(&out));
    assert!(
        text(&out).contains("TOOLS_LOCK=update cargo test -p locked-tools"),
        "{}",
        text(&out)
    );
    let out = lockedctl(Some("breaking"), &["check", "--baseline", &lock]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains(removed), "{}", text(&out));
    let out = lockedctl(
        Some("breaking"),
        &[
            "check",
            "--baseline",
            &lock,
            "--allow-breaking",
            "get_forecast:input.param.removed",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // Additive: `units` added; both pass and show what it costs.
    let out = crate_test(Some("additive"));
    assert!(out.status.success(), "{}", text(&out));
    let added = "additive[input.param.added] get_forecast at /inputSchema/properties/units: new optional parameter `units`";
    assert!(text(&out).contains(added), "{}", text(&out));
    assert!(
        text(&out).contains("  get_forecast: openai "),
        "{}",
        text(&out)
    );
    let out = lockedctl(Some("additive"), &["check", "--baseline", &lock]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let printed = text(&out);
    assert!(printed.contains(added), "{printed}");
    let delta = printed
        .lines()
        .find(|l| l.starts_with("  get_forecast: openai "))
        .unwrap_or_else(|| panic!("no token delta for get_forecast: {printed}"));
    assert!(delta.contains(" (+"), "{delta}");
    let out = lockedctl(
        Some("additive"),
        &["check", "--baseline", &lock, "--markdown"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let markdown = String::from_utf8_lossy(&out.stdout);
    assert!(
        markdown.contains(": passes\n\n**0 breaking**, 1 additive, 0 cosmetic"),
        "{markdown}"
    );
    assert!(markdown.contains("| additive | `input.param.added` | `get_forecast` | `/inputSchema/properties/units` | new optional parameter `units` |"), "{markdown}");
    assert!(markdown.contains("| `get_forecast` | "), "{markdown}");
}
