//! Each section's markdown, from the loaded results. A section returns `None` when the results
//! it needs are missing, and its old text stays.

use std::fmt::Write as _;

use serde_json::Value;

use crate::Data;

/// Section `name`, or `None` when its results are missing. `old` is the section's text as it
/// stands: the sections drawn from several results (`runs`, `targets`, `summary`) keep from it
/// the rows of the results that are missing, so that one benchmark can be rerun and reported
/// alone.
pub fn render(name: &str, data: &Data, old: &str) -> Option<String> {
    match name {
        "runs" => runs(data, old),
        "targets" => targets(data, old),
        "mcp-stdio" => mcp_table(data.get("mcp")?, "stdio"),
        "mcp-http" => mcp_table(data.get("mcp")?, "http"),
        "mcp-eras" => mcp_eras(data.get("mcp")?, "stdio"),
        "mcp-http-eras" => mcp_eras(data.get("mcp")?, "http"),
        "backlog" => backlog(data.get("backlog")?),
        "footprint" => footprint(data.get("footprint")?),
        "footprint-deps" => footprint_deps(data.get("footprint")?),
        "calls" => calls(data.get("calls")?),
        "plots-calls" => plots_calls(data.get("plots")?),
        "plots-search" => plots_search(data.get("plots")?),
        "compile-time" => compile_time(data.get("compile-time")?),
        "first-build" => first_build(data.get("first-build")?),
        "catalog-quality" => catalog_quality(data.get("catalog")?),
        "catalog-speed" => catalog_speed(data.get("catalog")?),
        "catalog-tokens" => catalog_tokens(data.get("catalog")?),
        "catalog-hybrid" => catalog_hybrid(data.get("embed")?),
        "catalog-hybrid-costs" => catalog_hybrid_costs(data.get("embed")?),
        "tasks" => tasks(data.get("tasks")?),
        "code" => code(data.get("code")?),
        "catalog-models" => catalog_models(data.get("embed")?),
        "summary" => summary(data, old),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Formatting.

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// A rate: 312.1k, 9.81k, 820.
fn rate(v: f64) -> String {
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

fn micros(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.1} ms", v / 1000.0)
    } else if v >= 100.0 {
        format!("{v:.0} µs")
    } else {
        format!("{v:.1} µs")
    }
}

fn nanos(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn times(v: f64) -> String {
    if v < 0.001 {
        format!("{v:.1e}×")
    } else if v < 0.01 {
        format!("{v:.4}×")
    } else if v >= 100.0 {
        format!("{v:.0}×")
    } else {
        format!("{v:.2}×")
    }
}

/// 1234567 -> "1,234,567".
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn verdict(pass: bool) -> &'static str {
    if pass { "met" } else { "**missed**" }
}

/// `YYYY-MM-DD` of a Unix time (UTC).
fn date(secs: u64) -> String {
    // Howard Hinnant's days-to-civil.
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The `source` record of a results file (`meta.source`).
fn source(v: &Value) -> &Value {
    &v["meta"]["source"]
}

/// "`abc1234`" (with "+ changes" when the work tree had some).
fn commit(v: &Value) -> String {
    let s = source(v);
    let c = s["commit"].as_str().unwrap_or("?");
    if s["dirty"].as_bool() == Some(true) {
        format!("`{c}` + changes")
    } else {
        format!("`{c}`")
    }
}

/// The command that reproduces a results file, with the arguments it was run with.
fn command(input: &str, v: &Value) -> String {
    let args: Vec<&str> = source(v)["args"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // Where the results went is this machine's business, not the command's.
    let mut kept = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if matches!(*a, "--out" | "--root") {
            it.next();
        } else {
            kept.push(*a);
        }
    }
    let with = |base: &str| {
        let mut c = base.to_owned();
        for a in &kept {
            c.push(' ');
            c.push_str(a);
        }
        c
    };
    match input {
        "mcp" => with("benchmarks/mcp/run"),
        "backlog" => with("benchmarks/mcp/run --backlog"),
        "footprint" => with("benchmarks/mcp/run --footprint"),
        "calls" => "cargo bench -p bench-calls --bench calls".into(),
        "plots" => "cargo run --release -p bench-calls --bin plots".into(),
        "compile-time" if kept.is_empty() => {
            "cargo run --release -p bench-calls --bin compile-time".into()
        }
        "compile-time" => with("cargo run --release -p bench-calls --bin compile-time --"),
        "first-build" => with("benchmarks/first-build/run"),
        "catalog" => "cargo bench -p tool-catalog --bench catalog".into(),
        "tasks" => with("scripts/postgres-env && cargo run --release -p bench-tasks --"),
        "code" => with(
            "cargo build --release -p tool-code --bin tool-code-worker && cargo run --release -p bench-code --",
        ),
        "embed" => {
            "scripts/embed-model-env && cargo bench -p tool-embed --bench search_quality".into()
        }
        _ => "?".into(),
    }
}

/// What a section says while no run has written it: how to produce its results.
pub fn pending(name: &str) -> String {
    let input = match name {
        "mcp-stdio" | "mcp-http" | "mcp-eras" | "mcp-http-eras" => "mcp",
        "footprint" | "footprint-deps" => "footprint",
        "plots-calls" | "plots-search" => "plots",
        "catalog-quality" | "catalog-speed" | "catalog-tokens" => "catalog",
        "catalog-hybrid" | "catalog-hybrid-costs" | "catalog-models" => "embed",
        "backlog" | "calls" | "compile-time" | "first-build" | "tasks" | "code" => name,
        // Sections drawn from several runs.
        _ => {
            return "No results yet: run the benchmarks (BENCHMARKS.md), then \
                    `cargo run -p bench-report`."
                .into();
        }
    };
    format!(
        "No results yet: `{}`, then `cargo run -p bench-report`.",
        command(input, &Value::Null)
    )
}

/// The line under a table: which run, and how to reproduce it.
fn from(input: &str, v: &Value) -> String {
    let s = source(v);
    let when = s["time"].as_u64().map(date).unwrap_or_else(|| "?".into());
    format!("\n{}, {when}: `{}`\n", commit(v), command(input, v))
}

// ---------------------------------------------------------------------------------------------
// The run and the machine.

/// The rows of `old`'s table (lines that begin with `| ` and are not its heading or rule),
/// each with the input it belongs to by `input_of`; `None` drops a row.
fn old_rows(
    old: &str,
    input_of: impl Fn(&str) -> Option<&'static str>,
) -> Vec<(&'static str, &str)> {
    let mut lines = old.lines().filter(|l| l.starts_with("| "));
    // The first is the heading (the rule begins with `|-`).
    lines.next();
    lines
        .filter_map(|l| input_of(l).map(|input| (input, l)))
        .collect()
}

fn runs(data: &Data, old: &str) -> Option<String> {
    if data.is_empty() {
        return None;
    }
    let mut out = String::new();
    let machine = data.values().find_map(|v| {
        let m = &v["meta"];
        [&m["machine"], &m["machine_before"]]
            .into_iter()
            .find(|m| m.is_object())
            .cloned()
    });
    // The command of each run is under its tables. A results file that is missing keeps its
    // row, if the section had one.
    let kept = old_rows(old, |row| {
        crate::INPUTS
            .iter()
            .find(|(_, f)| row.starts_with(&format!("| `{f}` |")))
            .map(|(n, _)| *n)
    });
    if let Some(m) = machine {
        let described = format!(
            "{}, {} cores, {} GiB, Linux {}, idle driver `{}`; {}.",
            m["cpu"].as_str().unwrap_or("?"),
            m["cores"],
            m["memory_gib"],
            m["kernel"].as_str().unwrap_or("?"),
            m["cpuidle_driver"].as_str().unwrap_or("?"),
            data.values()
                .find_map(|v| source(v)["rustc"].as_str())
                .unwrap_or("rustc ?")
        );
        // The rows kept from an earlier run keep the machine they ran on, when the results
        // present came from another.
        let earlier = old
            .lines()
            .find_map(|l| l.strip_prefix("Machine: "))
            .filter(|line| kept.iter().any(|(i, _)| !data.contains_key(i)) && *line != described);
        match earlier {
            Some(line) => {
                let mut files: Vec<&str> = crate::INPUTS
                    .iter()
                    .filter(|(n, _)| data.contains_key(n))
                    .map(|(_, f)| *f)
                    .collect();
                files.sort();
                writeln!(
                    out,
                    "Machine: {line}\n\nMachine of {}: {described}\n",
                    files
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
                .ok()?;
            }
            None => writeln!(out, "Machine: {described}\n").ok()?,
        }
    }
    out.push_str("| results | commit | date | profile |\n|---|---|---|---|\n");
    let mut inputs = crate::INPUTS.to_vec();
    inputs.sort();
    for (input, file) in inputs {
        let Some(v) = data.get(input) else {
            for (_, row) in kept.iter().filter(|(i, _)| *i == input) {
                writeln!(out, "{row}").ok()?;
            }
            continue;
        };
        let s = source(v);
        writeln!(
            out,
            "| `{file}` | {} | {} | `{}` |",
            commit(v),
            s["time"].as_u64().map(date).unwrap_or_else(|| "?".into()),
            s["profile"].as_str().unwrap_or("?"),
        )
        .ok()?;
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Targets.

/// The results a row of the targets table comes from, by how [`targets`] writes it: mcp-load's
/// begin with their transport, mcp-footprint's with lean-200, compile-time's with "compile
/// time"; the rest are the calls bench's.
fn target_input(row: &str) -> &'static str {
    if row.starts_with("| stdio, ") || row.starts_with("| http, ") {
        "mcp"
    } else if row.starts_with("| lean-200") {
        "footprint"
    } else if row.starts_with("| compile time of ") {
        "compile-time"
    } else {
        "calls"
    }
}

fn targets(data: &Data, old: &str) -> Option<String> {
    let kept = old_rows(old, |row| Some(target_input(row)));
    let rows = std::cell::RefCell::new(String::new());
    // The rows of a missing results file, as the section had them.
    let keep = |input: &str| {
        for (_, row) in kept.iter().filter(|(i, _)| *i == input) {
            let _ = writeln!(rows.borrow_mut(), "{row}");
        }
    };
    let row = |target: &str, wanted: &str, measured: String, floor: String, pass: bool| {
        let _ = writeln!(
            rows.borrow_mut(),
            "| {target} | {wanted} | {measured} | {floor} | {} |",
            verdict(pass)
        );
    };
    if data.get("mcp").is_none() {
        keep("mcp");
    }
    if let Some(mcp) = data.get("mcp") {
        // A transport the run did not measure (`--transport stdio`) keeps its rows.
        for transport in ["stdio", "http"] {
            let measured = mcp["results"]
                .as_array()
                .is_some_and(|rows| rows.iter().any(|r| r["transport"] == transport));
            if !measured {
                let prefix = format!("| {transport}, ");
                for (_, row) in kept.iter().filter(|(_, r)| r.starts_with(&prefix)) {
                    let _ = writeln!(rows.borrow_mut(), "{row}");
                }
            }
        }
        for t in mcp["targets"].as_array().into_iter().flatten() {
            let what = t["what"].as_str().unwrap_or("?");
            // The baseline's rows belong to a comparison against a commit, not to the targets.
            if what.contains("baseline") {
                continue;
            }
            let value = num(&t["value"]);
            let what = what
                .replace("1 tool(s)", "1 tool")
                .replace("tool(s)", "tools")
                .replace(": tool-core / ", " / ")
                .replace("rmcp macros, ", "rmcp ");
            // The peer's name without its version (the tables below give it).
            let what = match what.find(" SDK") {
                Some(i) => what[..i + 4].to_owned(),
                None => what,
            };
            let (what, measured) = if what.contains("start-up") {
                ("200 tools: start-up".to_owned(), format!("{value:.2} ms"))
            } else if what.contains("idle RSS") {
                ("200 tools: idle RSS".to_owned(), format!("{value:.2} MiB"))
            } else {
                (what, times(value))
            };
            row(
                &format!("{}, {what}", t["mode"].as_str().unwrap_or("?")),
                &t["target"]
                    .as_str()
                    .unwrap_or("")
                    .replace(">=", "≥")
                    .replace('x', "×"),
                measured,
                t["floor"].as_f64().map(times).unwrap_or_default(),
                t["pass"].as_bool() == Some(true),
            );
        }
    }
    if data.get("footprint").is_none() {
        keep("footprint");
    }
    if let Some(fp) = data.get("footprint")
        && let Some(lean) = row_of(&fp["results"], "server", "lean")
    {
        let profile = source(fp)["profile"].as_str().unwrap_or("?");
        let rss = num(&lean["idle_rss_mib"]);
        let start = num(&lean["startup_ms"]);
        let what = format!("lean-200 (`{profile}`)");
        row(
            &format!("{what}: idle RSS"),
            "< 10 MiB",
            format!("{rss:.2} MiB"),
            String::new(),
            rss < 10.0,
        );
        row(
            &format!("{what}: start-up"),
            "< 5 ms",
            format!("{start:.2} ms"),
            String::new(),
            start < 5.0,
        );
        if let Some(deps) = row_of(&fp["dependencies"], "package", "bench-lean") {
            let found: Vec<&str> = deps["forbidden_found"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            row(
                "lean-200: reqwest, rustls, clap linked",
                "none",
                if found.is_empty() {
                    "none".to_owned()
                } else {
                    found.join(", ")
                },
                String::new(),
                found.is_empty(),
            );
        }
    }
    if data.get("calls").is_none() {
        keep("calls");
    }
    if let Some(calls) = data.get("calls") {
        for r in calls["rows"].as_array().into_iter().flatten() {
            let Some(max) = r["target_max"].as_f64() else {
                continue;
            };
            let ratio = num(&r["ratio"]);
            row(
                r["measure"].as_str().unwrap_or("?"),
                &format!("≤ {max}×"),
                times(ratio),
                String::new(),
                ratio <= max,
            );
        }
    }
    if data.get("compile-time").is_none() {
        keep("compile-time");
    }
    if let Some(ct) = data.get("compile-time") {
        for r in ct["rows"].as_array().into_iter().flatten() {
            let ratio = num(&r["ratio"]);
            let max = r["target_max"].as_f64().unwrap_or(0.7);
            row(
                &format!(
                    "compile time of 200 tools, {}, against rmcp's",
                    r["profile"].as_str().unwrap_or("?")
                ),
                &format!("≤ {max}×"),
                times(ratio),
                String::new(),
                ratio <= max,
            );
        }
    }
    let rows = rows.into_inner();
    // Nothing measured: the section stays as it is.
    if rows.is_empty()
        || ["mcp", "footprint", "calls", "compile-time"]
            .iter()
            .all(|i| data.get(i).is_none())
    {
        return None;
    }
    Some(format!(
        "| target (MCP: transport, tools, phase / peer) | wanted | measured | the floor | |\n|---|---|---:|---:|---|\n{rows}"
    ))
}

fn row_of<'a>(rows: &'a Value, key: &str, value: &str) -> Option<&'a Value> {
    rows.as_array()?.iter().find(|r| r[key] == value)
}

// ---------------------------------------------------------------------------------------------
// MCP servers.

/// A row's protocol era in mcp.json: `session`, or `2026-07-28` (rows written before the era
/// axis have none and are of the session era).
fn mcp_era(r: &Value) -> &str {
    r["era"].as_str().unwrap_or("session")
}

/// The medians of one server in mcp.json, in the session era.
fn mcp_median<'a>(mcp: &'a Value, transport: &str, server: &str, tools: u64) -> Option<&'a Value> {
    mcp_median_in(mcp, transport, "session", server, tools)
}

fn mcp_median_in<'a>(
    mcp: &'a Value,
    transport: &str,
    era: &str,
    server: &str,
    tools: u64,
) -> Option<&'a Value> {
    mcp["results"]
        .as_array()?
        .iter()
        .find(|r| {
            r["transport"] == transport
                && mcp_era(r) == era
                && r["server"] == server
                && r["tools"] == tools
        })
        .map(|r| &r["median"])
        .filter(|m| m.is_object())
}

fn mcp_label<'a>(mcp: &'a Value, server: &'a str) -> &'a str {
    mcp["results"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["server"] == server))
        .and_then(|r| r["label"].as_str())
        .unwrap_or(server)
}

fn mcp_table(mcp: &Value, transport: &str) -> Option<String> {
    let mut out = String::from(
        "| server | tools | sequential/s | p50 | p99 | 64 in flight/s | p50 | p99 | start-up | idle RSS | peak RSS | tool-core / this (seq, 64) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut any = false;
    for r in mcp["results"].as_array()? {
        if r["transport"] != transport || mcp_era(r) != "session" {
            continue;
        }
        any = true;
        let tools = r["tools"].as_u64().unwrap_or(0);
        let label = r["label"].as_str().unwrap_or("?");
        let m = &r["median"];
        if !m.is_object() {
            let why = r["failures"][0].as_str().unwrap_or("no sample");
            writeln!(
                out,
                "| {label} | {tools} | failed: {} |||||||||||",
                why.replace('|', "/")
            )
            .ok()?;
            continue;
        }
        let ratio = match mcp_median(mcp, transport, "tool-core", tools) {
            Some(tc) if r["server"] != "tool-core" => format!(
                "{}, {}",
                times(num(&tc["seq_req_per_s"]) / num(&m["seq_req_per_s"])),
                times(num(&tc["inflight_req_per_s"]) / num(&m["inflight_req_per_s"]))
            ),
            _ => String::new(),
        };
        writeln!(
            out,
            "| {label} | {tools} | {} | {} | {} | {} | {} | {} | {:.1} ms | {:.1} MiB | {:.1} MiB | {ratio} |",
            rate(num(&m["seq_req_per_s"])),
            micros(num(&m["seq_p50_us"])),
            micros(num(&m["seq_p99_us"])),
            rate(num(&m["inflight_req_per_s"])),
            micros(num(&m["inflight_p50_us"])),
            micros(num(&m["inflight_p99_us"])),
            num(&m["startup_ms"]),
            num(&m["idle_rss_mib"]),
            num(&m["peak_rss_mib"]),
        )
        .ok()?;
    }
    if !any {
        return None;
    }
    let meta = &mcp["meta"];
    // The 1-minute load average: whether something else had the cores.
    let load = |m: &Value| {
        m["loadavg"]
            .as_str()
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or("?")
            .to_owned()
    };
    writeln!(
        out,
        "\nMedians of {} rounds; per phase at most {} calls and {} s; {} starts per round. Load \
         average {} before, {} after.",
        meta["rounds"],
        meta["calls_per_phase"],
        meta["phase_limit_s"],
        meta["stdio_starts_per_round"],
        load(&meta["machine_before"]),
        load(&meta["machine_after"]),
    )
    .ok()?;
    out.push_str(&from("mcp", mcp));
    Some(out)
}

/// The servers measured on `transport` in 2026-07-28, beside their session-era figures of the
/// same run: calls/s of each phase in both eras and 2026-07-28's over the session's, and the
/// start-up of each (to the `initialize` answer, to the `server/discover` answer); then who was
/// left out of 2026-07-28 and why.
fn mcp_eras(mcp: &Value, transport: &str) -> Option<String> {
    let mut out = String::from(
        "| server | tools | sequential/s, session | 2026-07-28 | 2026 / session | 64 in flight/s, session | 2026-07-28 | 2026 / session | start-up, session | 2026-07-28 |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut any = false;
    for r in mcp["results"].as_array()? {
        if r["transport"] != transport || mcp_era(r) != "2026-07-28" {
            continue;
        }
        any = true;
        let tools = r["tools"].as_u64().unwrap_or(0);
        let label = r["label"].as_str().unwrap_or("?");
        let m = &r["median"];
        if !m.is_object() {
            let why = r["failures"][0].as_str().unwrap_or("no sample");
            writeln!(
                out,
                "| {label} | {tools} | failed in 2026-07-28: {} |||||||||",
                why.replace('|', "/")
            )
            .ok()?;
            continue;
        }
        let server = r["server"].as_str().unwrap_or("?");
        let session = mcp_median(mcp, transport, server, tools);
        let cells = |key: &str| {
            let now = num(&m[key]);
            match session {
                Some(s) => (rate(num(&s[key])), rate(now), times(now / num(&s[key]))),
                None => ("-".into(), rate(now), String::new()),
            }
        };
        let (s_seq, x_seq, r_seq) = cells("seq_req_per_s");
        let (s_64, x_64, r_64) = cells("inflight_req_per_s");
        let start = session.map_or("-".into(), |s| format!("{:.1} ms", num(&s["startup_ms"])));
        writeln!(
            out,
            "| {label} | {tools} | {s_seq} | {x_seq} | {r_seq} | {s_64} | {x_64} | {r_64} | {start} | {:.1} ms |",
            num(&m["startup_ms"]),
        )
        .ok()?;
    }
    if !any {
        return None;
    }
    let meta = &mcp["meta"];
    let left: Vec<String> = meta["left_out"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["era"] == "2026-07-28")
        .map(|l| {
            format!(
                "{}: {}",
                l["label"].as_str().unwrap_or("?"),
                l["why"].as_str().unwrap_or("?")
            )
        })
        .collect();
    writeln!(
        out,
        "\nMedians of {} rounds, both eras in each round (the order rotating). Not measured in \
         2026-07-28: {}.",
        meta["rounds"],
        if left.is_empty() {
            "none".to_owned()
        } else {
            left.join("; ")
        },
    )
    .ok()?;
    out.push_str(&from("mcp", mcp));
    Some(out)
}

fn backlog(v: &Value) -> Option<String> {
    let mut out = format!(
        "{} `tools/call`s with ids of {} bytes, stdout unread for {} s, then read to the end.\n\n\
         | server | answered once | written while unread | idle RSS | peak RSS while unread | peak RSS | drain |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
        thousands(v["calls"].as_u64()?),
        thousands(v["id_bytes"].as_u64()?),
        v["unread_s"]
    );
    for r in v["results"].as_array()? {
        let failure = r["failure"]
            .as_str()
            .map(|f| format!(" ({f})"))
            .unwrap_or_default();
        writeln!(
            out,
            "| {} | {} of {}{failure} | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.2} s |",
            r["label"].as_str().or(r["server"].as_str()).unwrap_or("?"),
            thousands(r["answered"].as_u64().unwrap_or(0)),
            thousands(r["calls"].as_u64().unwrap_or(0)),
            num(&r["written_unread_mib"]),
            num(&r["idle_rss_mib"]),
            num(&r["peak_rss_unread_mib"]),
            num(&r["peak_rss_mib"]),
            num(&r["drain_s"]),
        )
        .ok()?;
    }
    out.push_str(&from("backlog", v));
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Footprint.

fn footprint(v: &Value) -> Option<String> {
    // lean-200 first: the others are compared with it.
    let mut rows: Vec<&Value> = v["results"].as_array()?.iter().collect();
    rows.sort_by_key(|r| r["server"] != "lean");
    let lean = row_of(&v["results"], "server", "lean");
    let mut out = String::from(
        "| server | binary | start-up | idle RSS | peak RSS | lean-200 / this (binary, start-up, RSS) |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for r in &rows {
        let bytes = num(&r["binary_bytes"]);
        let ratio = match lean {
            Some(l) if r["server"] != "lean" => format!(
                "{}, {}, {}",
                times(num(&l["binary_bytes"]) / bytes),
                times(num(&l["startup_ms"]) / num(&r["startup_ms"])),
                times(num(&l["idle_rss_mib"]) / num(&r["idle_rss_mib"]))
            ),
            _ => String::new(),
        };
        let label = match r["server"].as_str() {
            Some("tool-core") => "tc-200 (tool-cli, `serve --stdio`)".to_owned(),
            Some("rmcp-default") => "rmcp-200, rmcp's macros as documented".to_owned(),
            Some("rmcp-best") => "rmcp-200 `--best`, router built once".to_owned(),
            _ => r["label"].as_str().unwrap_or("?").to_owned(),
        };
        writeln!(
            out,
            "| {label} | {:.1} MB | {:.2} ms | {:.2} MiB | {:.2} MiB | {ratio} |",
            bytes / 1e6,
            num(&r["startup_ms"]),
            num(&r["idle_rss_mib"]),
            num(&r["peak_rss_mib"]),
        )
        .ok()?;
    }
    let meta = &v["meta"];
    writeln!(
        out,
        "\nStart-up: median of {} starts per server ({} rounds of {}); idle RSS: median over the \
         rounds, after `initialize` and the whole listing.",
        rows.first()
            .and_then(|r| r["startup_samples"].as_array())
            .map_or(0, Vec::len),
        meta["rounds"],
        meta["starts_per_round"],
    )
    .ok()?;
    // The run line is under the dependencies' table, the last this run writes in its section.
    Some(out)
}

fn footprint_deps(v: &Value) -> Option<String> {
    let mut out = String::from(
        "| package | crates linked (normal) | direct dependencies | reqwest, rustls, clap | hyper-util's features |\n|---|---:|---|---|---|\n",
    );
    for d in v["dependencies"].as_array()? {
        let list = |key: &str| -> Vec<String> {
            d[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let found = list("forbidden_found");
        writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            d["package"].as_str().unwrap_or("?"),
            d["crates"],
            // Names without versions (`tokio v1.54.1`): which crates, not which release.
            list("direct")
                .iter()
                .map(|c| format!("`{}`", c.split(' ').next().unwrap_or(c)))
                .collect::<Vec<_>>()
                .join(", "),
            if found.is_empty() {
                "none".to_owned()
            } else {
                found.join(", ")
            },
            list("hyper_util_features").join(", ")
        )
        .ok()?;
    }
    out.push_str(&from("footprint", v));
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// The calls bench, the plots, compile time.

fn calls(v: &Value) -> Option<String> {
    // The targets among these rows are judged in the targets table.
    let mut out =
        String::from("| measure | median | baseline (same run) | ratio |\n|---|---:|---:|---:|\n");
    let mut shown = std::collections::BTreeSet::new();
    for r in v["rows"].as_array()? {
        let (id, baseline) = (r["id"].as_str(), r["baseline"].as_str());
        // A row whose two medians are both in the table already adds only their quotient.
        if shown.contains(&id) && shown.contains(&baseline) {
            continue;
        }
        shown.extend([id, baseline]);
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            r["measure"].as_str().unwrap_or("?"),
            nanos(num(&r["median_ns"])),
            nanos(num(&r["baseline_ns"])),
            times(num(&r["ratio"])),
        )
        .ok()?;
    }
    out.push_str(&from("calls", v));
    Some(out)
}

fn plots_calls(v: &Value) -> Option<String> {
    let mut out = String::from(
        "| tools | floor | floor + name map | registry.call | rmcp router once | rmcp default | registry.call / floor | / rmcp once | / rmcp default |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in v["calls"].as_array()? {
        let [f, d, c, o, def] = [
            "floor_ns",
            "floor_map_ns",
            "core_ns",
            "rmcp_once_ns",
            "rmcp_default_ns",
        ]
        .map(|k| num(&r[k]));
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r["tools"],
            nanos(f),
            nanos(d),
            nanos(c),
            nanos(o),
            nanos(def),
            times(c / f),
            times(c / o),
            times(c / def)
        )
        .ok()?;
    }
    writeln!(
        out,
        "\nMedians of {} interleaved rounds per point.",
        v["rounds"]
    )
    .ok()?;
    // The run line is under the search sweep's table, the last this run writes in its section.
    Some(out)
}

fn plots_search(v: &Value) -> Option<String> {
    let mut out =
        String::from("| tools | index build | median query | p90 query |\n|---:|---:|---:|---:|\n");
    for r in v["search"].as_array()? {
        writeln!(
            out,
            "| {} | {:.1} ms | {} | {} |",
            thousands(r["tools"].as_u64().unwrap_or(0)),
            num(&r["build_ms"]),
            micros(num(&r["median_us"])),
            micros(num(&r["p90_us"])),
        )
        .ok()?;
    }
    out.push_str(&from("plots", v));
    Some(out)
}

fn compile_time(v: &Value) -> Option<String> {
    // The target is judged in the targets table.
    let mut out = String::from(
        "| profile | tool-core style | rmcp style | ratio | rustc peak, tool-core | rustc peak, rmcp |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for r in v["rows"].as_array()? {
        let mib = |k: &Value| {
            k.as_f64()
                .map_or("?".to_owned(), |k| format!("{:.0} MiB", k / 1024.0))
        };
        writeln!(
            out,
            "| {} | {:.1} s | {:.1} s | {} | {} | {} |",
            r["profile"].as_str().unwrap_or("?"),
            num(&r["core_s"]),
            num(&r["rmcp_s"]),
            times(num(&r["ratio"])),
            mib(&r["core_peak_kib"]),
            mib(&r["rmcp_peak_kib"]),
        )
        .ok()?;
    }
    writeln!(
        out,
        "\nA clean build of the generated crate of {} tools (dependencies prebuilt), median of {} \
         alternating runs.",
        v["tools"], v["runs"]
    )
    .ok()?;
    out.push_str(&from("compile-time", v));
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// First builds.

fn first_build(v: &Value) -> Option<String> {
    let rows = v["rows"].as_array()?;
    let median = |kind: &str| {
        rows.iter()
            .find(|r| r["kind"] == kind)
            .map(|r| num(&r["median_s"]))
    };
    let rmcp = median("rmcp-server");
    let mut out = String::from(
        "| clean debug build | crates | median | runs | / rmcp |\n\
         |---|---:|---:|---|---:|\n",
    );
    for r in rows {
        let kind = r["kind"].as_str().unwrap_or("?");
        let what = match kind {
            "first-command" => "README's first command (toolctl)",
            "first-crate" => "README's example on tool-core + tool-cli",
            "tools-crate" => "a tools crate: three tools, tool-core alone",
            "lean-server" => "same tool, stdio, tool-core + tool-mcp, no default features",
            "rmcp-server" => "same tool, stdio, rmcp 3.11 macros",
            "own-binary" => "README's example as its own binary, tool-cli by path",
            "own-binary-code" => "... with tool-cli's feature `code` (code mode)",
            "own-binary-stdio" => {
                "... tool-core and tool-cli without default features (stdio alone)"
            }
            other => other,
        };
        let what = match (kind, v["baseline"].as_str()) {
            ("tools-crate-base", Some(rev)) => {
                format!("the same tools crate on tool-core at `{rev}`")
            }
            ("own-binary-stdio-base", Some(rev)) => {
                format!("the stdio-only binary on tool-cli at `{rev}` (nothing to turn off)")
            }
            _ => what.to_owned(),
        };
        let runs: Vec<String> = r["runs_s"]
            .as_array()?
            .iter()
            .map(|s| format!("{:.0} s", num(s)))
            .collect();
        let ratio = match rmcp {
            Some(rmcp) if kind != "rmcp-server" => times(num(&r["median_s"]) / rmcp),
            _ => String::new(),
        };
        writeln!(
            out,
            "| {what} | {} | {:.0} s | {} | {ratio} |",
            r["crates"],
            num(&r["median_s"]),
            runs.join(", "),
        )
        .ok()?;
    }
    if let (Some(after), Some(before), Some(rev)) = (
        median("tools-crate"),
        median("tools-crate-base"),
        v["baseline"].as_str(),
    ) {
        writeln!(
            out,
            "\nThe tools crate, tool-core now against tool-core at `{rev}`: {}.",
            times(after / before)
        )
        .ok()?;
    }
    if let (Some(after), Some(before), Some(rev)) = (
        median("own-binary-stdio"),
        median("own-binary-stdio-base"),
        v["baseline"].as_str(),
    ) {
        writeln!(
            out,
            "The stdio-only binary, tool-cli now against tool-cli at `{rev}`: {}.",
            times(after / before)
        )
        .ok()?;
    }
    if let (Some(with), Some(without)) = (median("own-binary-code"), median("own-binary")) {
        writeln!(
            out,
            "Code mode's feature adds {:.0} s to the binary's first build ({}).",
            with - without,
            times(with / without)
        )
        .ok()?;
    }
    writeln!(
        out,
        "\n{} rounds in turn; load {} to {} at the starts.",
        v["rounds"], v["loadavg_min"], v["loadavg_max"]
    )
    .ok()?;
    out.push_str(&from("first-build", v));
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Tasks.

fn tasks(v: &Value) -> Option<String> {
    let mut out = String::from(
        "| store | create/s | get/s | renew/s | create/s, 32 at once | `tools/call` → task/s, 32 in flight | `tasks/get`/s | `tasks/get`/s, 32 in flight |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for s in v["stores"].as_array()? {
        let r = &s["per_second"];
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            s["store"].as_str().unwrap_or("?"),
            rate(num(&r["store_create"])),
            rate(num(&r["store_get"])),
            rate(num(&r["store_renew"])),
            rate(num(&r["store_create_32"])),
            rate(num(&r["mcp_create_32"])),
            rate(num(&r["mcp_get"])),
            rate(num(&r["mcp_get_32"])),
        )
        .ok()?;
    }
    let p = &v["plain_calls"];
    writeln!(
        out,
        "\nPlain `tools/call` (a tool not marked `task`, 2026-07-28) on a server with tasks \
         (memory store) against the same server without, median of {} alternating rounds: \
         {} against {} calls/s sequential ({}), {} against {} with 64 in flight ({}). {} calls \
         per store and round, median of {} rounds.",
        p["rounds"],
        rate(num(&p["on"]["sequential"])),
        rate(num(&p["off"]["sequential"])),
        times(num(&p["sequential_ratio"])),
        rate(num(&p["on"]["in_flight_64"])),
        rate(num(&p["off"]["in_flight_64"])),
        times(num(&p["in_flight_ratio"])),
        v["calls"],
        v["rounds"],
    )
    .ok()?;
    out.push_str(&from("tasks", v));
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Code mode.

fn code(v: &Value) -> Option<String> {
    let mut out = format!(
        "What the model reads (every request's body, {} tokens) and its turns, each task done \
         with native calls and in code mode by the same scripted model through the agent loop. \
         The development set was measured while code mode's guide and stubs were made shorter; \
         the held-out set was written after that and is reported as first measured.\n\n\
         | set | task | tool calls | native turns | native tokens | code-mode turns | code-mode tokens | code/native |\n\
         |---|---|---:|---:|---:|---:|---:|---:|\n",
        v["tokenizer"].as_str().unwrap_or("?")
    );
    for t in v["tasks"].as_array()? {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            t["set"].as_str().unwrap_or("?"),
            t["task"].as_str().unwrap_or("?"),
            t["calls"],
            t["native"]["turns"],
            t["native"]["tokens"],
            t["code"]["turns"],
            t["code"]["tokens"],
            times(num(&t["ratio"])),
        )
        .ok()?;
    }
    for s in v["sets"].as_array()? {
        writeln!(
            out,
            "| {} | all | | | {} | | {} | **{}** |",
            s["set"].as_str().unwrap_or("?"),
            s["native_tokens"],
            s["code_tokens"],
            times(num(&s["ratio"])),
        )
        .ok()?;
    }
    out.push_str(
        "\n| sandbox | direct `Executor::call` | a script's start | a script with that one call |\n\
         |---|---:|---:|---:|\n",
    );
    for t in v["timing"].as_array()? {
        writeln!(
            out,
            "| {} | {:.1} µs | {:.1} µs | {:.1} µs |",
            t["sandbox"].as_str().unwrap_or("?"),
            num(&t["direct_us"]),
            num(&t["start_us"]),
            num(&t["one_call_us"]),
        )
        .ok()?;
    }
    out.push_str(&from("code", v));
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// The catalog.

fn catalog_quality(v: &Value) -> Option<String> {
    let q = &v["quality"];
    let mut out = format!(
        "{} tools from {} MCP servers; {} test queries, {} development and {} held out.\n\n\
         | ranker | test recall@1 | test recall@5 | test MRR@10 | development recall@5 | held out recall@5 |\n\
         |---|---:|---:|---:|---:|---:|\n",
        q["tools"], q["servers"], q["test_queries"], q["dev_queries"], q["held_out_queries"]
    );
    for r in q["rows"].as_array()? {
        writeln!(
            out,
            "| {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
            r["ranker"].as_str().unwrap_or("?"),
            num(&r["test_recall_1"]),
            num(&r["test_recall_5"]),
            num(&r["test_mrr_10"]),
            num(&r["dev_recall_5"]),
            num(&r["held_out_recall_5"]),
        )
        .ok()?;
    }
    out.push_str(&from("catalog", v));
    Some(out)
}

fn catalog_speed(v: &Value) -> Option<String> {
    let s = &v["speed"];
    if !s.is_object() {
        return None;
    }
    let pair = |ours: &str, base: &str| (num(&s[ours]), num(&s[base]));
    let mut out = format!(
        "{} synthetic tools, {} queries; the baseline is a plain BM25 built in the same run.\n\n\
         | measure | catalog | BM25 baseline | catalog / baseline |\n|---|---:|---:|---:|\n",
        thousands(s["tools"].as_u64()?),
        thousands(s["queries"].as_u64().unwrap_or(0))
    );
    let (b, bb) = pair("build_ms", "bm25_build_ms");
    writeln!(
        out,
        "| index build | {b:.1} ms | {bb:.1} ms | {} |",
        times(b / bb)
    )
    .ok()?;
    for (label, ours, base) in [
        ("median query", "median_query_us", "bm25_median_query_us"),
        ("p90 query", "p90_query_us", "bm25_p90_query_us"),
    ] {
        let (o, b) = pair(ours, base);
        writeln!(
            out,
            "| {label} | {} | {} | {} |",
            micros(o),
            micros(b),
            times(o / b)
        )
        .ok()?;
    }
    writeln!(
        out,
        "| replace one tool (remove + insert) | {} | | |\n\
         | memory per tool (heap, counted) | {} B | | |\n\
         | memory per tool (RSS growth) | {} B | | |",
        micros(num(&s["replace_one_us"])),
        thousands(s["heap_bytes_per_tool"].as_u64().unwrap_or(0)),
        thousands(s["rss_bytes_per_tool"].as_u64().unwrap_or(0)),
    )
    .ok()?;
    out.push_str(&from("catalog", v));
    Some(out)
}

fn catalog_tokens(v: &Value) -> Option<String> {
    let t = &v["tokens"];
    // Runs before token counts were recorded have bytes only: four bytes a token.
    let counted = t["tokenizer"]
        .as_str()
        .filter(|c| !c.starts_with("estimate"));
    let how = match counted {
        Some(tokenizer) => format!("tokens counted with {tokenizer}"),
        None => "tokens estimated at four bytes each".to_owned(),
    };
    let mut out = format!(
        "Definitions sent per round for the {} evaluation tools ({how}), and what a deferred \
         session saves of the tokens of every tool.\n\n\
         | format | every tool | session: `search_tools` only | after one search ({} tools loaded) | saved, first round | saved, after the search |\n\
         |---|---:|---:|---:|---:|---:|\n",
        t["tools"], t["loaded"]
    );
    for r in t["rows"].as_array()? {
        let tokens = |k: &str| {
            let tokens = &r[format!("{k}_tokens")];
            if tokens.is_null() {
                (num(&r[format!("{k}_bytes")]) / 4.0).ceil()
            } else {
                num(tokens)
            }
        };
        let cell = |k: &str| {
            let b = num(&r[format!("{k}_bytes")]);
            format!(
                "{} tokens ({} B)",
                thousands(tokens(k) as u64),
                thousands(b as u64)
            )
        };
        let saved = |k: &str| format!("{:.1}%", 100.0 * (1.0 - tokens(k) / tokens("all")));
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            r["format"].as_str().unwrap_or("?"),
            cell("all"),
            cell("session"),
            cell("after_search"),
            saved("session"),
            saved("after_search"),
        )
        .ok()?;
    }
    out.push_str(&from("catalog", v));
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Hybrid search with a model.

/// The columns of the hybrid table, by a ranker's id in embed.json (headed by its label there).
const HYBRID_COLUMNS: &[&str] = &["bm25", "lexical", "dense", "rrf", "before", "hybrid"];

/// The sets of a model's rows, in their order.
fn sets_of(rows: &[Value]) -> Vec<&Value> {
    let mut sets: Vec<&Value> = Vec::new();
    for r in rows {
        if !sets.iter().any(|s| s["set"] == r["set"]) {
            sets.push(r);
        }
    }
    sets
}

fn hybrid_row<'a>(rows: &'a [Value], set: &Value, id: &str) -> Option<&'a Value> {
    rows.iter().find(|r| r["set"] == *set && r["id"] == id)
}

fn catalog_hybrid(v: &Value) -> Option<String> {
    let models = v["models"].as_array()?;
    let mut out = String::new();
    for m in models {
        let rows = m["rows"].as_array()?;
        if models.len() > 1 {
            writeln!(out, "**{}**\n", m["model"].as_str().unwrap_or("?")).ok()?;
        }
        writeln!(
            out,
            "recall@5, {} tools; the hybrid is `Fusion::Adaptive` with a dense weight of {:.2} \
             over the mean vector of each tool's texts (`tool_texts`).\n",
            v["tools"],
            num(&m["weight"]),
        )
        .ok()?;
        out.push_str("| set | queries |");
        for id in HYBRID_COLUMNS {
            let heading = rows
                .iter()
                .find(|r| r["id"] == *id)
                .and_then(|r| r["ranker"].as_str())
                .unwrap_or(id);
            write!(out, " {heading} |").ok()?;
        }
        out.push_str("\n|---|---:|");
        out.push_str(&"---:|".repeat(HYBRID_COLUMNS.len()));
        out.push('\n');
        for first in sets_of(rows) {
            let set = &first["set"];
            let tuned = if first["tuned"].as_bool() == Some(true) {
                " (weight chosen here)"
            } else {
                ""
            };
            write!(
                out,
                "| {}{tuned} | {} |",
                set.as_str().unwrap_or("?"),
                first["queries"]
            )
            .ok()?;
            for id in HYBRID_COLUMNS {
                let cell = hybrid_row(rows, set, id)
                    .map(|r| format!("{:.3}", num(&r["recall_5"])))
                    .unwrap_or_else(|| "-".into());
                if *id == "hybrid" {
                    write!(out, " **{cell}** |").ok()?;
                } else {
                    write!(out, " {cell} |").ok()?;
                }
            }
            out.push('\n');
        }
        out.push_str(
            "\nEvery ranker at recall@1, recall@5 and MRR@10, with the two halves of the change \
             alone:\n\n| set | ranker | recall@1 | recall@5 | MRR@10 |\n|---|---|---:|---:|---:|\n",
        );
        for first in sets_of(rows) {
            for r in rows.iter().filter(|r| r["set"] == first["set"]) {
                writeln!(
                    out,
                    "| {} | {} | {:.3} | {:.3} | {:.3} |",
                    r["set"].as_str().unwrap_or("?"),
                    r["ranker"].as_str().unwrap_or("?"),
                    num(&r["recall_1"]),
                    num(&r["recall_5"]),
                    num(&r["mrr"]),
                )
                .ok()?;
            }
        }
        out.push('\n');
    }
    let mut out = out.trim_end().to_owned();
    out.push('\n');
    out.push_str(&from("embed", v));
    Some(out)
}

fn catalog_hybrid_costs(v: &Value) -> Option<String> {
    let mut out = String::new();
    for m in v["models"].as_array()? {
        writeln!(
            out,
            "{}: loading the model {:.2} s; a hybrid query (tokenise, embed, fuse over {} tools) \
             median {:.1} ms, p95 {:.1} ms (one text a tool and fixed weights, in turn with it: \
             {:.1} ms, {:.1} ms); embedding tools cold, {:.1} tools/s ({:.1} texts a tool; one \
             text a tool, {:.1} tools/s); building the index of 10,000 tools from a warm cache, \
             {:.0} ms ({:.0} ms for the lexical index alone); {:.1} KB a tool for its vector and \
             texts.",
            m["model"].as_str().unwrap_or("?"),
            num(&m["load_ms"]) / 1e3,
            v["tools"],
            num(&m["query_median_ms"]),
            num(&m["query_p95_ms"]),
            num(&m["query_before_median_ms"]),
            num(&m["query_before_p95_ms"]),
            num(&m["cold_tools_per_s"]),
            num(&m["texts_per_tool"]),
            num(&m["cold_tools_per_s_one_text"]),
            num(&m["warm_index_10k_ms"]),
            num(&m["lexical_index_10k_ms"]),
            num(&m["bytes_per_tool"]) / 1e3,
        )
        .ok()?;
    }
    out.push_str(&from("embed", v));
    Some(out)
}

/// One row per model: the hybrid's recall@5 on every set at the model's own weight, and what
/// the model costs.
fn catalog_models(v: &Value) -> Option<String> {
    let models = v["models"].as_array()?;
    let first = models.first()?["rows"].as_array()?;
    let sets = sets_of(first);
    let mut out = format!(
        "Hybrid recall@5 over {} tools (`Fusion::Adaptive` at each model's weight; * marks the \
         sets the weight was chosen on), and what each model costs on this machine.\n\n| model \
         | dense weight |",
        v["tools"]
    );
    for set in &sets {
        let star = if set["tuned"].as_bool() == Some(true) {
            "*"
        } else {
            ""
        };
        write!(out, " {}{star} |", set["set"].as_str().unwrap_or("?")).ok()?;
    }
    out.push_str(
        " query, median / p95 | embedding tools cold | memory resident (peak while loading) | \
         load | download |\n|---|---:|",
    );
    out.push_str(&"---:|".repeat(sets.len() + 5));
    out.push('\n');
    for m in models {
        let rows = m["rows"].as_array()?;
        write!(
            out,
            "| {} | {:.2} |",
            m["model"].as_str().unwrap_or("?"),
            num(&m["weight"])
        )
        .ok()?;
        for set in &sets {
            let cell = hybrid_row(rows, &set["set"], "hybrid")
                .map(|r| format!("{:.3}", num(&r["recall_5"])))
                .unwrap_or_else(|| "-".into());
            write!(out, " {cell} |").ok()?;
        }
        let download = m["download_mb"]
            .as_f64()
            .map_or_else(|| "-".to_owned(), |mb| format!("{mb:.0} MB"));
        writeln!(
            out,
            " {:.1} / {:.1} ms | {:.1} tools/s | {:.0} MiB ({:.0} MiB) | {:.2} s | {download} |",
            num(&m["query_median_ms"]),
            num(&m["query_p95_ms"]),
            num(&m["cold_tools_per_s"]),
            num(&m["resident_mib"]),
            num(&m["load_peak_mib"]),
            num(&m["load_ms"]) / 1e3,
        )
        .ok()?;
    }
    // Other work on the machine slows every timing: say how much there was.
    let loads: Vec<String> = models
        .iter()
        .map(|m| {
            format!(
                "{} {:.1} to {:.1}",
                m["model"].as_str().unwrap_or("?"),
                num(&m["loadavg_start"]),
                num(&m["loadavg_end"])
            )
        })
        .collect();
    write!(
        out,
        "\nThe machine's load average (1 minute, {} cores) while each model was measured: {}.\n",
        v["meta"]["machine"]["cores"],
        loads.join("; ")
    )
    .ok()?;
    out.push_str(&from("embed", v));
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// The README's summary.

fn summary(data: &Data, old: &str) -> Option<String> {
    // An earlier run's rows, kept for what this run did not measure.
    let kept = old_rows(old, |_| Some(""));
    let mut out = String::from(
        "| measured | against | tool-core | peer | tool-core / peer | run |\n|---|---|---:|---:|---:|---|\n",
    );
    let mut any = false;
    let keep = |out: &mut String, prefix: &str| {
        for (_, row) in kept.iter().filter(|(_, r)| r.starts_with(prefix)) {
            let _ = writeln!(out, "{row}");
        }
    };
    let mcp = data.get("mcp");
    let run = mcp.map(commit).unwrap_or_default();
    for (what, transport, tools, peer, key) in [
        (
            "MCP stdio, 1 tool, sequential calls/s",
            "stdio",
            1,
            "rmcp-best",
            "seq_req_per_s",
        ),
        (
            "MCP stdio, 1 tool, 64 in flight, calls/s",
            "stdio",
            1,
            "rmcp-best",
            "inflight_req_per_s",
        ),
        (
            "MCP Streamable HTTP, 1 tool, sequential calls/s",
            "http",
            1,
            "rmcp-best",
            "seq_req_per_s",
        ),
        (
            "MCP Streamable HTTP, 1 tool, 64 in flight, calls/s",
            "http",
            1,
            "rmcp-best",
            "inflight_req_per_s",
        ),
        (
            "MCP stdio, 200 tools, sequential calls/s",
            "stdio",
            200,
            "rmcp-default",
            "seq_req_per_s",
        ),
        (
            "MCP stdio, 1 tool, sequential calls/s",
            "stdio",
            1,
            "ts-sdk",
            "seq_req_per_s",
        ),
        (
            "MCP stdio, 1 tool, 64 in flight, calls/s",
            "stdio",
            1,
            "ts-sdk",
            "inflight_req_per_s",
        ),
        (
            "MCP stdio, 1 tool, sequential calls/s",
            "stdio",
            1,
            "py-sdk",
            "seq_req_per_s",
        ),
    ] {
        let measured = mcp.and_then(|mcp| {
            Some((
                mcp_median(mcp, transport, "tool-core", tools)?,
                mcp_median(mcp, transport, peer, tools)?,
            ))
        });
        let Some((tc, p)) = measured else {
            // The peer as the row names it, without its version.
            let peer = match peer {
                "rmcp-best" => "rmcp macros, best",
                "rmcp-default" => "rmcp macros, default",
                "ts-sdk" => "TypeScript SDK",
                _ => "Python SDK",
            };
            keep(&mut out, &format!("| {what} | {peer}"));
            continue;
        };
        let (a, b) = (num(&tc[key]), num(&p[key]));
        any = true;
        let _ = writeln!(
            out,
            "| {what} | {} | {} | {} | {} | {run} |",
            mcp.map_or(peer, |mcp| mcp_label(mcp, peer)),
            rate(a),
            rate(b),
            times(a / b)
        );
    }
    // Start-up and memory against every peer measured, in one row each.
    for (what, key, unit, digits) in [
        (
            "start-up to `initialize`, 200 tools",
            "startup_ms",
            "ms",
            1usize,
        ),
        ("idle RSS, 200 tools", "idle_rss_mib", "MiB", 1),
    ] {
        let measured = mcp.and_then(|mcp| {
            let tc = mcp_median(mcp, "stdio", "tool-core", 200)?;
            let peers: Vec<(&str, f64)> = ["rmcp-best", "ts-sdk", "py-sdk"]
                .into_iter()
                .filter_map(|p| mcp_median(mcp, "stdio", p, 200).map(|m| (p, num(&m[key]))))
                .collect();
            (!peers.is_empty()).then_some((tc, peers))
        });
        let Some((tc, peers)) = measured else {
            keep(&mut out, &format!("| {what} |"));
            continue;
        };
        let names = peers
            .iter()
            .map(|(p, _)| match *p {
                "rmcp-best" => "rmcp best",
                "ts-sdk" => "TypeScript",
                _ => "Python",
            })
            .collect::<Vec<_>>()
            .join(" / ");
        let values = peers
            .iter()
            .map(|(_, v)| format!("{v:.digits$}"))
            .collect::<Vec<_>>()
            .join(" / ");
        any = true;
        let _ = writeln!(
            out,
            "| {what} | {names} | {:.digits$} {unit} | {values} {unit} | | {run} |",
            num(&tc[key])
        );
    }
    match data.get("footprint").and_then(|fp| {
        Some((
            fp,
            row_of(&fp["results"], "server", "lean")?,
            row_of(&fp["results"], "server", "rmcp-best")?,
        ))
    }) {
        Some((fp, lean, rmcp)) => {
            let run = commit(fp);
            let profile = source(fp)["profile"].as_str().unwrap_or("?").to_owned();
            for (what, key, unit, scale) in [
                ("idle RSS", "idle_rss_mib", "MiB", 1.0),
                ("start-up", "startup_ms", "ms", 1.0),
                ("binary", "binary_bytes", "MB", 1e-6),
            ] {
                let (a, b) = (num(&lean[key]) * scale, num(&rmcp[key]) * scale);
                any = true;
                let _ = writeln!(
                    out,
                    "| 200-tool stdio server on tool-core + tool-mcp, `{profile}`: {what} | rmcp's, router built once, built alike | {a:.1} {unit} | {b:.1} {unit} | {} | {run} |",
                    times(a / b)
                );
            }
        }
        None => keep(&mut out, "| 200-tool stdio server on tool-core + tool-mcp,"),
    }
    match data.get("calls") {
        Some(calls) => {
            let run = commit(calls);
            for r in calls["rows"].as_array().into_iter().flatten() {
                if r["id"] == "call/core_n1" && r["baseline"] == "call/rmcp_once_n1" {
                    any = true;
                    let _ = writeln!(
                        out,
                        "| one call in process, 1 tool (the bare call) | rmcp's tool router, built once | {} | {} | {} | {run} |",
                        nanos(num(&r["median_ns"])),
                        nanos(num(&r["baseline_ns"])),
                        times(num(&r["ratio"]))
                    );
                }
            }
        }
        None => keep(&mut out, "| one call in process,"),
    }
    match data.get("compile-time") {
        Some(ct) => {
            let run = commit(ct);
            for r in ct["rows"].as_array().into_iter().flatten() {
                any = true;
                let _ = writeln!(
                    out,
                    "| clean {} build of 200 tools | the same tools in rmcp's macros | {:.1} s | {:.1} s | {} | {run} |",
                    r["profile"].as_str().unwrap_or("?"),
                    num(&r["core_s"]),
                    num(&r["rmcp_s"]),
                    times(num(&r["ratio"]))
                );
            }
        }
        None => keep(&mut out, "| clean "),
    }
    // Only kept rows and no results at all: the section stays as it is.
    (any && !data.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates_and_numbers() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(1_700_000_000), "2023-11-14");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(rate(312_100.0), "312.1k");
        assert_eq!(rate(9_810.0), "9.81k");
        assert_eq!(times(0.4712), "0.47×");
        assert_eq!(times(0.000_014), "1.4e-5×");
    }

    #[test]
    fn a_section_without_results_says_how_to_produce_them() {
        assert_eq!(
            pending("compile-time"),
            "No results yet: `cargo run --release -p bench-calls --bin compile-time`, then \
             `cargo run -p bench-report`."
        );
        assert!(pending("footprint-deps").contains("`benchmarks/mcp/run --footprint`"));
        assert!(pending("summary").contains("BENCHMARKS.md"));
        for (name, _) in crate::SECTIONS {
            assert!(render(name, &Data::new(), "").is_none(), "{name}");
            assert!(pending(name).contains("bench-report"), "{name}");
        }
    }

    #[test]
    fn the_hybrid_table_reads_embed_json() {
        let row = |set: &str, tuned: bool, id: &str, r5: f64| {
            json!({"set": set, "queries": 3, "tuned": tuned, "id": id, "ranker": id,
                   "recall_1": 0.5, "recall_5": r5, "mrr": 0.25})
        };
        let embed = json!({
            "meta": {"source": {"commit": "abc1234", "dirty": false, "time": 0}},
            "tools": 9,
            "models": [{
                "model": "m", "weight": 0.35,
                "rows": [
                    row("development", true, "lexical", 0.5),
                    row("development", true, "hybrid", 0.75),
                    row("test", false, "hybrid", 1.0),
                ],
                "load_ms": 200.0, "query_median_ms": 10.0, "query_p95_ms": 15.0,
                "query_before_median_ms": 9.0, "query_before_p95_ms": 14.0,
                "cold_tools_per_s": 5.0, "texts_per_tool": 2.9,
                "cold_tools_per_s_one_text": 20.0, "warm_index_10k_ms": 250.0,
                "lexical_index_10k_ms": 30.0, "bytes_per_tool": 2200.0,
                "resident_mib": 100.0, "load_peak_mib": 190.0, "download_mb": 83.3,
                "loadavg_start": 1.0, "loadavg_end": 2.0,
            }],
        });
        let table = catalog_hybrid(&embed).unwrap();
        assert!(
            table.contains(
                "| development (weight chosen here) | 3 | - | 0.500 | - | - | - | **0.750** |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| test | 3 | - | - | - | - | - | **1.000** |"),
            "{table}"
        );
        assert!(table.contains("dense weight of 0.35"), "{table}");
        assert!(
            table.contains("| test | hybrid | 0.500 | 1.000 | 0.250 |"),
            "{table}"
        );
        assert!(table.contains("search_quality"), "{table}");
        let costs = catalog_hybrid_costs(&embed).unwrap();
        assert!(costs.contains("median 10.0 ms, p95 15.0 ms"), "{costs}");
        assert!(costs.contains("2.2 KB a tool"), "{costs}");
        assert!(catalog_hybrid(&json!({})).is_none());
        let models = catalog_models(&embed).unwrap();
        assert!(
            models.contains("| model | dense weight | development* | test |"),
            "{models}"
        );
        assert!(
            models.contains("| m | 0.35 | 0.750 | 1.000 | 10.0 / 15.0 ms | 5.0 tools/s | 100 MiB (190 MiB) | 0.20 s | 83 MB |"),
            "{models}"
        );
        assert!(catalog_models(&json!({})).is_none());
    }

    #[test]
    fn the_summary_reads_mcp_json() {
        let m = |seq: f64| {
            json!({"seq_req_per_s": seq, "inflight_req_per_s": seq * 10.0,
                                 "startup_ms": 3.0, "idle_rss_mib": 9.0})
        };
        let mcp = json!({
            "meta": {"source": {"commit": "abc1234", "dirty": false}},
            "results": [
                {"transport": "stdio", "server": "tool-core", "label": "tool-core", "tools": 1, "median": m(20_000.0)},
                {"transport": "stdio", "server": "rmcp-best", "label": "rmcp macros, best", "tools": 1, "median": m(10_000.0)},
            ],
        });
        let mut data = Data::new();
        data.insert("mcp", mcp);
        let table = summary(&data, "").unwrap();
        assert!(
            table.contains("| MCP stdio, 1 tool, sequential calls/s | rmcp macros, best | 20.0k | 10.0k | 2.00× | `abc1234` |"),
            "{table}"
        );
        assert!(summary(&Data::new(), "").is_none());
    }

    fn mcp_with_eras() -> Value {
        let m = |seq: f64, start: f64| {
            json!({"seq_req_per_s": seq, "inflight_req_per_s": seq * 10.0,
                   "startup_ms": start, "idle_rss_mib": 9.0})
        };
        let row = |era: Option<&str>, server: &str, label: &str, median: Value| {
            let mut r = json!({"transport": "stdio", "server": server, "label": label,
                               "tools": 200, "median": median, "failures": []});
            if let Some(era) = era {
                r["era"] = era.into();
            }
            r
        };
        json!({
            "meta": {"source": {"commit": "abc1234", "dirty": true, "time": 0, "args": []},
                     "rounds": 3,
                     "left_out": [{"era": "2026-07-28", "server": "floor",
                                   "label": "the floor", "why": "no resultType"}]},
            "results": [
                // Written before the era axis: the session era.
                row(None, "tool-core", "tool-core", m(20_000.0, 3.0)),
                row(Some("session"), "rmcp-best", "rmcp best", m(10_000.0, 2.0)),
                row(Some("2026-07-28"), "tool-core", "tool-core", m(19_000.0, 2.5)),
                row(Some("2026-07-28"), "rmcp-best", "rmcp best", json!(null)),
            ],
        })
    }

    #[test]
    fn the_eras_table_sets_2026_beside_the_session() {
        let mcp = mcp_with_eras();
        let table = mcp_eras(&mcp, "stdio").unwrap();
        assert!(
            table.contains(
                "| tool-core | 200 | 20.0k | 19.0k | 0.95× | 200.0k | 190.0k | 0.95× | 3.0 ms | 2.5 ms |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| rmcp best | 200 | failed in 2026-07-28: no sample"),
            "{table}"
        );
        assert!(
            table.contains("Not measured in 2026-07-28: the floor: no resultType."),
            "{table}"
        );
        // Each transport's eras table reads its own rows: none over HTTP here.
        assert!(mcp_eras(&mcp, "http").is_none());
        let mut http = mcp.clone();
        for row in http["results"].as_array_mut().unwrap() {
            row["transport"] = "http".into();
        }
        let table = mcp_eras(&http, "http").unwrap();
        assert!(
            table.contains("| tool-core | 200 | 20.0k | 19.0k | 0.95× |"),
            "{table}"
        );
        // The session table and the summary read the session era only.
        let stdio = mcp_table(&mcp, "stdio").unwrap();
        assert!(!stdio.contains("19.0k"), "{stdio}");
        assert!(stdio.contains("| rmcp best | 200 | 10.0k |"), "{stdio}");
        let mut old = mcp;
        old["results"].as_array_mut().unwrap().truncate(2);
        assert!(mcp_eras(&old, "stdio").is_none());
    }

    #[test]
    fn the_summary_keeps_the_rows_of_missing_results_in_their_place() {
        let old = "\n| measured | against | tool-core | peer | tool-core / peer | run |\n\
                   |---|---|---:|---:|---:|---|\n\
                   | MCP stdio, 1 tool, sequential calls/s | rmcp macros, best | 1k | 1k | 1× | `old` |\n\
                   | MCP Streamable HTTP, 1 tool, sequential calls/s | rmcp macros, best | 2k | 1k | 2× | `old` |\n\
                   | start-up to `initialize`, 200 tools | rmcp best | 3 ms | 4 ms | | `old` |\n\
                   | 200-tool stdio server on tool-core + tool-mcp, `p`: idle RSS | rmcp's | 8 MiB | 9 MiB | 0.9× | `old` |\n\
                   | one call in process, 1 tool (the bare call) | rmcp's | 70 ns | 300 ns | 0.23× | `old` |\n\
                   | clean debug build of 200 tools | rmcp's | 2 s | 6 s | 0.33× | `old` |\n";
        let mut data = Data::new();
        data.insert(
            "calls",
            json!({"meta": {"source": {"commit": "new"}}, "rows": [{"id": "call/core_n1",
                "baseline": "call/rmcp_once_n1", "median_ns": 60.0, "baseline_ns": 300.0,
                "ratio": 0.2}]}),
        );
        let summary = summary(&data, old).unwrap();
        let runs: Vec<&str> = summary
            .lines()
            .skip(2)
            .map(|l| l.rsplit('|').nth(1).unwrap_or("").trim())
            .collect();
        assert_eq!(
            runs,
            ["`old`", "`old`", "`old`", "`old`", "`new`", "`old`"],
            "{summary}"
        );
        assert!(
            summary.contains("| 60 ns | 300 ns | 0.20× | `new` |"),
            "{summary}"
        );
        assert!(super::summary(&Data::new(), old).is_none());
    }

    #[test]
    fn runs_and_targets_keep_the_rows_of_missing_results() {
        let mut data = Data::new();
        data.insert("mcp", mcp_with_eras());
        let old_runs = "\nMachine: x.\n\n| results | commit | date | profile |\n|---|---|---|---|\n\
                        | `calls.json` | `old` | 2026-01-01 | `release` |\n\
                        | `mcp.json` | `old` | 2026-01-01 | `release` |\n";
        let runs = runs(&data, old_runs).unwrap();
        assert!(runs.contains("| `calls.json` | `old` | 2026-01-01 | `release` |\n| `mcp.json` | `abc1234` + changes | 1970-01-01 |"), "{runs}");
        assert!(!runs.contains("| `mcp.json` | `old`"), "{runs}");
        // The kept row ran on the machine the section named; the new results on their own.
        data.get_mut("mcp").unwrap()["meta"]["machine"] = json!({"cpu": "y", "cores": 2, "memory_gib": 1.0, "kernel": "k", "cpuidle_driver": "d"});
        let runs = super::runs(&data, old_runs).unwrap();
        assert!(
            runs.starts_with("Machine: x.\n\nMachine of `mcp.json`: y, 2 cores"),
            "{runs}"
        );
        // Every row from this machine: one line.
        let only_mcp = old_runs.replace("| `calls.json` | `old` | 2026-01-01 | `release` |\n", "");
        let runs = super::runs(&data, &only_mcp).unwrap();
        assert!(
            runs.starts_with("Machine: y, 2 cores") && !runs.contains("Machine of"),
            "{runs}"
        );

        let old_targets = "\n| target | wanted | measured | the floor | |\n|---|---|---:|---:|---|\n\
                           | stdio, old mcp row | ≥ 1× | 1× |  | met |\n\
                           | lean-200 (`p`): idle RSS | < 10 MiB | 8 MiB |  | met |\n\
                           | registry.call, 1 tools | ≤ 1.2× | 1.1× |  | met |\n\
                           | compile time of 200 tools, debug, against rmcp's | ≤ 0.7× | 0.3× |  | met |\n";
        data.get_mut("mcp").unwrap()["targets"] = json!([{"mode": "stdio",
            "what": "1 tool(s), sequential: tool-core / rmcp macros, best", "value": 2.0,
            "target": ">= 1x", "pass": true, "floor": null}]);
        let targets = targets(&data, old_targets).unwrap();
        assert!(!targets.contains("old mcp row"), "{targets}");
        let order: Vec<&str> = targets.lines().skip(2).map(target_input).collect();
        assert_eq!(
            order,
            ["mcp", "footprint", "calls", "compile-time"],
            "{targets}"
        );
        assert!(
            targets.contains("| stdio, 1 tool, sequential / rmcp best | ≥ 1× | 2.00× |  | met |"),
            "{targets}"
        );
        assert!(super::targets(&Data::new(), old_targets).is_none());

        // A run over stdio alone keeps the rows of HTTP.
        let with_http = old_targets.replace(
            "| stdio, old mcp row |",
            "| stdio, old mcp row | x | x |  | met |\n| http, old http row |",
        );
        let stdio_only = super::targets(&data, &with_http).unwrap();
        assert!(
            stdio_only.contains("| http, old http row |"),
            "{stdio_only}"
        );
        assert!(!stdio_only.contains("old mcp row"), "{stdio_only}");
    }
}
