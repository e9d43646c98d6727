//! Medians over rounds, the table with ratios, the targets, and the JSON results file.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Value, json};

use super::{Kind, Mode, Sample};

/// Every sample of one server on one transport.
#[derive(Debug, Default)]
pub struct Runs {
    pub samples: Vec<Sample>,
    pub failures: Vec<String>,
}

/// The medians of one server's samples.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Medians {
    pub rounds: usize,
    pub startup_ms: f64,
    pub idle_rss_mib: f64,
    pub peak_rss_mib: f64,
    pub seq_req_per_s: f64,
    pub seq_p50_us: f64,
    pub seq_p99_us: f64,
    pub seq_calls: usize,
    pub inflight_req_per_s: f64,
    pub inflight_p50_us: f64,
    pub inflight_p99_us: f64,
    pub inflight_calls: usize,
}

pub(super) fn median(mut v: Vec<f64>) -> f64 {
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

impl Runs {
    pub fn medians(&self) -> Option<Medians> {
        let s = &self.samples;
        if s.is_empty() {
            return None;
        }
        let m = |f: fn(&Sample) -> f64| median(s.iter().map(f).collect());
        Some(Medians {
            rounds: s.len(),
            startup_ms: m(|x| x.startup_ms),
            idle_rss_mib: m(|x| x.idle_rss_mib),
            peak_rss_mib: m(|x| x.peak_rss_mib),
            seq_req_per_s: m(|x| x.sequential.req_per_s),
            seq_p50_us: m(|x| x.sequential.p50_us),
            seq_p99_us: m(|x| x.sequential.p99_us),
            seq_calls: s.iter().map(|x| x.sequential.calls).sum(),
            inflight_req_per_s: m(|x| x.in_flight.req_per_s),
            inflight_p50_us: m(|x| x.in_flight.p50_us),
            inflight_p99_us: m(|x| x.in_flight.p99_us),
            inflight_calls: s.iter().map(|x| x.in_flight.calls).sum(),
        })
    }
}

/// Results keyed by transport, implementation and tool count.
pub type Results = BTreeMap<(Mode, Kind, usize), Runs>;

/// One target of the issue, evaluated.
#[derive(Debug, Clone, Serialize)]
pub struct Target {
    pub mode: &'static str,
    pub what: String,
    pub value: f64,
    pub target: String,
    pub pass: bool,
    /// For a throughput ratio, the floor's ratio to the same server in the same run: about the
    /// most any server could have reached on the machine that day.
    pub floor: Option<f64>,
}

fn get(results: &Results, mode: Mode, kind: Kind, tools: usize) -> Option<Medians> {
    results.get(&(mode, kind, tools)).and_then(Runs::medians)
}

/// The targets for tool-core, for every pair measured.
pub fn targets(results: &Results, modes: &[Mode]) -> Vec<Target> {
    let mut out = Vec::new();
    for &mode in modes {
        let mut ratio = |tools: usize, base: Kind, seq_min: f64, inflight_min: f64| {
            let (Some(tc), Some(b)) = (
                get(results, mode, Kind::ToolCore, tools),
                get(results, mode, base, tools),
            ) else {
                return;
            };
            // The floor serves one tool; what it does per call does not depend on the count.
            let floor = get(results, mode, Kind::Floor, 1);
            for (phase, rate, min) in [
                (
                    "sequential",
                    (|m: &Medians| m.seq_req_per_s) as fn(&Medians) -> f64,
                    seq_min,
                ),
                (
                    "64 in flight",
                    |m: &Medians| m.inflight_req_per_s,
                    inflight_min,
                ),
            ] {
                let value = rate(&tc) / rate(&b);
                out.push(Target {
                    mode: mode.key(),
                    what: format!("{tools} tool(s), {phase}: tool-core / {}", base.label()),
                    value,
                    target: format!(">= {min}x"),
                    pass: value >= min,
                    floor: floor.as_ref().map(|f| rate(f) / rate(&b)),
                });
            }
        };
        ratio(200, Kind::RmcpDefault, 20.0, 20.0);
        ratio(1, Kind::RmcpBest, 1.0, 1.0);
        ratio(1, Kind::TypeScript, 1.5, 2.0);
        ratio(200, Kind::TypeScript, 1.5, 2.0);
        ratio(1, Kind::Python, 25.0, 25.0);
        ratio(200, Kind::Python, 25.0, 25.0);
        // A change may cost, but no more than a tenth.
        ratio(1, Kind::Baseline, 0.9, 0.9);
        ratio(200, Kind::Baseline, 0.9, 0.9);
        if mode == Mode::Stdio
            && let Some(tc) = get(results, mode, Kind::ToolCore, 200)
        {
            out.push(Target {
                mode: mode.key(),
                what: "200 tools: tool-core start-up, ms".into(),
                value: tc.startup_ms,
                target: "< 5 ms".into(),
                pass: tc.startup_ms < 5.0,
                floor: None,
            });
            out.push(Target {
                mode: mode.key(),
                what: "200 tools: tool-core idle RSS, MiB".into(),
                value: tc.idle_rss_mib,
                target: "< 10 MiB".into(),
                pass: tc.idle_rss_mib < 10.0,
                floor: None,
            });
        }
    }
    out
}

fn k(v: f64) -> String {
    if v.is_nan() {
        "-".into()
    } else if v >= 10_000.0 {
        format!("{:.1}k", v / 1000.0)
    } else if v >= 1000.0 {
        format!("{:.2}k", v / 1000.0)
    } else {
        format!("{v:.0}")
    }
}

fn us(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.1} ms", v / 1000.0)
    } else {
        format!("{v:.0} µs")
    }
}

/// The markdown table: one row per server, with tool-core's throughput over each row's.
pub fn table(results: &Results, mode: Mode) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "| server ({}) | tools | seq req/s | seq p50 | seq p99 | 64-in-flight req/s | p50 | p99 | start-up | idle RSS | peak RSS | tool-core / this (seq, 64) |",
        mode.key()
    )
    .unwrap();
    writeln!(
        out,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    .unwrap();
    for ((m, kind, tools), runs) in results {
        if *m != mode {
            continue;
        }
        let Some(x) = runs.medians() else {
            writeln!(
                out,
                "| {} | {tools} | failed: {} | | | | | | | | | |",
                kind.label(),
                runs.failures
                    .first()
                    .map_or("", String::as_str)
                    .replace('|', "/")
            )
            .unwrap();
            continue;
        };
        let ratio = match get(results, mode, Kind::ToolCore, *tools) {
            Some(tc) if *kind != Kind::ToolCore => format!(
                "{:.2}x, {:.2}x",
                tc.seq_req_per_s / x.seq_req_per_s,
                tc.inflight_req_per_s / x.inflight_req_per_s
            ),
            _ => "1".into(),
        };
        writeln!(
            out,
            "| {} | {tools} | {} | {} | {} | {} | {} | {} | {:.1} ms | {:.1} MiB | {:.1} MiB | {ratio} |",
            kind.label(),
            k(x.seq_req_per_s),
            us(x.seq_p50_us),
            us(x.seq_p99_us),
            k(x.inflight_req_per_s),
            us(x.inflight_p50_us),
            us(x.inflight_p99_us),
            x.startup_ms,
            x.idle_rss_mib,
            x.peak_rss_mib,
        )
        .unwrap();
    }
    out
}

/// The targets as a markdown table; for a ratio, the floor's ratio to the same server beside it.
pub fn targets_table(targets: &[Target]) -> String {
    let mut out = String::from(
        "| transport | target | measured | wanted | | the floor / the same |\n|---|---|---:|---|---|---:|\n",
    );
    for t in targets {
        let value = if t.what.contains("tool-core /") {
            format!("{:.2}x", t.value)
        } else {
            format!("{:.2}", t.value)
        };
        let floor = t.floor.map_or(String::new(), |f| format!("{f:.2}x"));
        writeln!(
            out,
            "| {} | {} | {value} | {} | {} | {floor} |",
            t.mode,
            t.what,
            t.target,
            if t.pass { "met" } else { "MISSED" }
        )
        .unwrap();
    }
    out
}

/// Everything, for plotting.
pub fn json(results: &Results, targets: &[Target], meta: Value) -> Value {
    let rows: Vec<Value> = results
        .iter()
        .map(|((mode, kind, tools), runs)| {
            json!({
                "transport": mode.key(),
                "server": kind.key(),
                "label": kind.label(),
                "tools": tools,
                "median": runs.medians(),
                "samples": runs.samples,
                "failures": runs.failures,
            })
        })
        .collect();
    json!({ "meta": meta, "results": rows, "targets": targets })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::Phase;

    fn runs(seq: f64, inflight: f64) -> Runs {
        let phase = |rate| Phase {
            req_per_s: rate,
            ..Phase::default()
        };
        Runs {
            samples: vec![Sample {
                sequential: phase(seq),
                in_flight: phase(inflight),
                ..Sample::default()
            }],
            failures: Vec::new(),
        }
    }

    #[test]
    fn ratios_carry_the_floors_ratio_to_the_same_server() {
        let mut results = Results::new();
        results.insert((Mode::Stdio, Kind::ToolCore, 1), runs(20_000.0, 200_000.0));
        results.insert((Mode::Stdio, Kind::Python, 1), runs(1_000.0, 1_000.0));
        results.insert((Mode::Stdio, Kind::Floor, 1), runs(24_000.0, 300_000.0));
        let found = targets(&results, &[Mode::Stdio]);
        let [seq, inflight] = &found[..] else {
            panic!("two targets against Python with one tool: {found:?}");
        };
        assert_eq!((seq.value, seq.pass, seq.floor), (20.0, false, Some(24.0)));
        assert_eq!(
            (inflight.value, inflight.pass, inflight.floor),
            (200.0, true, Some(300.0))
        );
        let table = targets_table(&found);
        assert!(
            table.contains("| 20.00x | >= 25x | MISSED | 24.00x |"),
            "{table}"
        );

        results.remove(&(Mode::Stdio, Kind::Floor, 1));
        assert!(
            targets(&results, &[Mode::Stdio])
                .iter()
                .all(|t| t.floor.is_none())
        );
    }
}
