//! Medians over rounds, the tables with ratios (between servers, and between protocol eras),
//! the targets, and the JSON results file.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Value, json};

use super::{Era, Kind, Mode, Sample};

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

/// Results keyed by transport, protocol era, implementation and tool count.
pub type Results = BTreeMap<(Mode, Era, Kind, usize), Runs>;

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

/// The medians of a server in the session era (what the targets and the main tables compare).
fn get(results: &Results, mode: Mode, kind: Kind, tools: usize) -> Option<Medians> {
    get_in(results, mode, Era::Session, kind, tools)
}

fn get_in(results: &Results, mode: Mode, era: Era, kind: Kind, tools: usize) -> Option<Medians> {
    results
        .get(&(mode, era, kind, tools))
        .and_then(Runs::medians)
}

/// The targets for tool-core (in the session era; over HTTP in 2026-07-28 too), for
/// every pair measured.
pub fn targets(results: &Results, modes: &[Mode]) -> Vec<Target> {
    let mut out = Vec::new();
    for &mode in modes {
        let eras: &[Era] = match mode {
            Mode::Stdio => &[Era::Session],
            Mode::Http => &Era::ALL,
        };
        for &era in eras {
            targets_in(results, mode, era, &mut out);
        }
    }
    out
}

fn targets_in(results: &Results, mode: Mode, era: Era, out: &mut Vec<Target>) {
    let rate_seq = (|m: &Medians| m.seq_req_per_s) as fn(&Medians) -> f64;
    let rate_64 = (|m: &Medians| m.inflight_req_per_s) as fn(&Medians) -> f64;
    let in_era = match era {
        Era::Session => String::new(),
        Era::Stateless => format!("{}, ", era.key()),
    };
    // The floor serves one tool; what it does per call does not depend on the count.
    let floor = get_in(results, mode, era, Kind::Floor, 1);
    let mut ratio = |tools: usize, base: Kind, seq_min: f64, inflight_min: f64| {
        let (Some(tc), Some(b)) = (
            get_in(results, mode, era, Kind::ToolCore, tools),
            get_in(results, mode, era, base, tools),
        ) else {
            return;
        };
        for (phase, rate, min) in [
            ("sequential", rate_seq, seq_min),
            ("64 in flight", rate_64, inflight_min),
        ] {
            if min <= 0.0 {
                continue;
            }
            let value = rate(&tc) / rate(&b);
            out.push(Target {
                mode: mode.key(),
                what: format!(
                    "{in_era}{tools} tool(s), {phase}: tool-core / {}",
                    base.label()
                ),
                value,
                target: format!(">= {min}x"),
                pass: value >= min,
                floor: floor.as_ref().map(|f| rate(f) / rate(&b)),
            });
        }
    };
    // Over HTTP: twice rmcp's best on every line, and 0.7 of the floor with 64 in flight.
    let best = if mode == Mode::Http { 2.0 } else { 1.0 };
    ratio(1, Kind::RmcpBest, best, best);
    if mode == Mode::Http {
        ratio(200, Kind::RmcpBest, best, best);
    }
    if era == Era::Session {
        ratio(200, Kind::RmcpDefault, 20.0, 20.0);
        ratio(1, Kind::TypeScript, 1.5, 2.0);
        ratio(200, Kind::TypeScript, 1.5, 2.0);
    }
    if era == Era::Session {
        ratio(1, Kind::Python, 25.0, 25.0);
        ratio(200, Kind::Python, 25.0, 25.0);
    }
    // A change may cost, but no more than a tenth.
    ratio(1, Kind::Baseline, 0.9, 0.9);
    ratio(200, Kind::Baseline, 0.9, 0.9);
    if mode == Mode::Http
        && let Some(f) = &floor
    {
        for tools in [1, 200] {
            if let Some(tc) = get_in(results, mode, era, Kind::ToolCore, tools) {
                let value = tc.inflight_req_per_s / f.inflight_req_per_s;
                out.push(Target {
                    mode: mode.key(),
                    what: format!(
                        "{in_era}{tools} tool(s), 64 in flight: tool-core / {}",
                        Kind::Floor.label()
                    ),
                    value,
                    target: ">= 0.7x".into(),
                    pass: value >= 0.7,
                    floor: None,
                });
            }
        }
    }
    if mode == Mode::Stdio
        && era == Era::Session
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

/// The markdown table of the session era: one row per server, with tool-core's throughput over
/// each row's.
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
    for ((m, era, kind, tools), runs) in results {
        if *m != mode || *era != Era::Session {
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

/// The stdio servers measured in 2026-07-28 beside their session-era figures from the same
/// run: calls/s of each phase in both eras, and 2026-07-28's over the session's. Empty when no
/// server was measured in 2026-07-28.
pub fn eras_table(results: &Results, mode: Mode) -> String {
    let mut out = String::new();
    for ((m, era, kind, tools), runs) in results {
        if *m != mode || *era != Era::Stateless {
            continue;
        }
        if out.is_empty() {
            writeln!(
                out,
                "| server ({}) | tools | seq session | seq 2026-07-28 | 2026 / session | 64 session | 64 2026-07-28 | 2026 / session |\n|---|---:|---:|---:|---:|---:|---:|---:|",
                mode.key()
            )
            .unwrap();
        }
        let session = get_in(results, mode, Era::Session, *kind, *tools);
        let Some(x) = runs.medians() else {
            writeln!(
                out,
                "| {} | {tools} | failed in 2026-07-28: {} | | | | | |",
                kind.label(),
                runs.failures
                    .first()
                    .map_or("", String::as_str)
                    .replace('|', "/")
            )
            .unwrap();
            continue;
        };
        let cells = |rate: fn(&Medians) -> f64| match &session {
            Some(s) => (
                k(rate(s)),
                k(rate(&x)),
                format!("{:.2}x", rate(&x) / rate(s)),
            ),
            None => ("-".into(), k(rate(&x)), "-".into()),
        };
        let (s_seq, x_seq, r_seq) = cells(|m| m.seq_req_per_s);
        let (s_64, x_64, r_64) = cells(|m| m.inflight_req_per_s);
        writeln!(
            out,
            "| {} | {tools} | {s_seq} | {x_seq} | {r_seq} | {s_64} | {x_64} | {r_64} |",
            kind.label()
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

/// Everything, for plotting. Each row names its protocol era (`era`: `session` or
/// `2026-07-28`) and the version its requests named.
pub fn json(results: &Results, targets: &[Target], meta: Value) -> Value {
    let rows: Vec<Value> = results
        .iter()
        .map(|((mode, era, kind, tools), runs)| {
            json!({
                "transport": mode.key(),
                "era": era.key(),
                "protocol_version": era.protocol(),
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
        let session = |kind| (Mode::Stdio, Era::Session, kind, 1);
        results.insert(session(Kind::ToolCore), runs(20_000.0, 200_000.0));
        results.insert(session(Kind::Python), runs(1_000.0, 1_000.0));
        results.insert(session(Kind::Floor), runs(24_000.0, 300_000.0));
        // Another era's figures do not count towards the targets.
        results.insert(
            (Mode::Stdio, Era::Stateless, Kind::ToolCore, 1),
            runs(1.0, 1.0),
        );
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

        results.remove(&session(Kind::Floor));
        assert!(
            targets(&results, &[Mode::Stdio])
                .iter()
                .all(|t| t.floor.is_none())
        );
    }

    #[test]
    fn the_eras_table_sets_2026_beside_the_session() {
        let mut results = Results::new();
        assert_eq!(eras_table(&results, Mode::Stdio), "");
        results.insert(
            (Mode::Stdio, Era::Session, Kind::ToolCore, 200),
            runs(20_000.0, 200_000.0),
        );
        results.insert(
            (Mode::Stdio, Era::Stateless, Kind::ToolCore, 200),
            runs(19_000.0, 220_000.0),
        );
        results.insert(
            (Mode::Stdio, Era::Stateless, Kind::Python, 200),
            Runs {
                samples: Vec::new(),
                failures: vec!["call 3: no result".into()],
            },
        );
        let eras = eras_table(&results, Mode::Stdio);
        assert!(
            eras.contains(
                "| tool-core (toolctl serve) | 200 | 20.0k | 19.0k | 0.95x | 200.0k | 220.0k | 1.10x |"
            ),
            "{eras}"
        );
        assert!(eras.contains("failed in 2026-07-28: call 3"), "{eras}");
        // The session-era table leaves the 2026-07-28 rows out.
        assert!(!table(&results, Mode::Stdio).contains("19.0k"));
    }
}
