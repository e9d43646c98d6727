//! Runs `mcp-load` in its quickest mode against tool-core's server (stdio and HTTP in both
//! protocol eras, 1 and 200 tools) and the floor (the same, 1 tool): the handshake or
//! `server/discover`, the listing check, and every answer checked (over HTTP, wrk's phases
//! run for the limit, 2 s, and check each answer too).

use std::process::Command;

use serde_json::Value;

#[test]
fn quick_run_against_tool_core() {
    let out = std::env::temp_dir().join(format!("bench-mcp-test-{}.json", std::process::id()));
    let run = Command::new(env!("CARGO_BIN_EXE_mcp-load"))
        // Over stdio bounded by count, not time: every call of each phase must be made and
        // checked (50 calls take milliseconds). Over HTTP wrk runs each phase for the limit.
        .args([
            "--quick",
            // Two more starts per round, timed and checked like the measured one.
            "--starts",
            "2",
            "--calls",
            "50",
            "--limit",
            "2",
            "--only",
            "tool-core,floor",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("mcp-load runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "mcp-load failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("| tool-core (toolctl serve) | 200 |"),
        "{stdout}"
    );

    let json: Value = serde_json::from_slice(&std::fs::read(&out).expect("results file")).unwrap();
    let _ = std::fs::remove_file(&out);
    let rows = json["results"].as_array().expect("results");
    assert!(
        stdout.contains("| hand-written, no SDK (floor) | 1 |"),
        "{stdout}"
    );
    assert_eq!(
        rows.len(),
        12,
        "tool-core with 1 and 200 tools and the floor, on stdio and http in both eras: {json}"
    );
    let stateless: Vec<&Value> = rows.iter().filter(|r| r["era"] == "2026-07-28").collect();
    assert_eq!(stateless.len(), 6, "{json}");
    assert_eq!(
        stateless.iter().filter(|r| r["server"] == "floor").count(),
        2,
        "{json}"
    );
    for row in &stateless {
        assert_eq!(row["protocol_version"], "2026-07-28", "{row}");
    }
    for transport in ["stdio", "http"] {
        let of = stateless.iter().filter(|r| r["transport"] == transport);
        assert_eq!(of.count(), 3, "{json}");
    }
    assert!(
        rows.iter()
            .filter(|r| r["era"] != "2026-07-28")
            .all(|r| r["era"] == "session" && r["protocol_version"] == "2025-06-18"),
        "{json}"
    );
    assert!(
        stdout.contains("| tool-core (toolctl serve) | 200 | "),
        "{stdout}"
    );
    assert!(stdout.contains("| seq 2026-07-28 |"), "{stdout}");
    assert_eq!(json["meta"]["left_out"], serde_json::json!([]), "{json}");
    for row in rows {
        assert_eq!(row["failures"].as_array().map(Vec::len), Some(0), "{row}");
        let median = &row["median"];
        if row["transport"] == "stdio" {
            assert_eq!(median["seq_calls"], 50, "{row}");
            assert_eq!(median["inflight_calls"], 50, "{row}");
        } else {
            assert!(median["seq_calls"].as_u64().unwrap() > 0, "{row}");
            assert!(median["inflight_calls"].as_u64().unwrap() > 0, "{row}");
        }
        assert!(median["startup_ms"].as_f64().unwrap() > 0.0, "{row}");
        assert!(median["peak_rss_mib"].as_f64().unwrap() > 0.0, "{row}");
    }
}
