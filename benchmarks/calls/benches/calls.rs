//! The call path, definition rendering, registry build and schema caching of tool-core, each
//! against its baseline measured in the same run (criterion), then a summary of ratios.
//!
//! `cargo bench -p bench-calls --bench calls` (the summary is printed at the end and written to
//! `$CARGO_TARGET_DIR/bench-calls/summary.md`, with the raw medians in `summary.json`).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use criterion::Criterion;
use rmcp::handler::server::tool::schema_for_input;
use rmcp::handler::server::wrapper::Parameters;
use serde_json::{Value, json};
use tool_core::render::{Format, RenderOptions, render_all};
use tool_core::{__private::ToolDef, ToolContext};

use bench_calls::rmcp_tools::S1AddNumbersArgs;

/// The run's record (machine, commit) and where its figures go for bench-report.
#[path = "../../report/src/meta.rs"]
mod meta;
use bench_calls::{
    RmcpEnv, add_input, big_router_1000, copy_input, core_call, core_registry, core_registry_all,
    floor_call, floor_dispatch, floor_table, rmcp_args, rmcp_side,
};

const CALL_SIZES: [usize; 2] = [1, 200];

fn calls(c: &mut Criterion) {
    let ctx = ToolContext::new();
    let env = RmcpEnv::new();
    let args = rmcp_args();
    let input = add_input();
    let mut g = c.benchmark_group("call");
    g.bench_function("floor", |b| {
        b.iter(|| black_box(floor_call(copy_input(black_box(&input)))))
    });
    g.bench_function("rmcp_request_context_clone", |b| {
        b.iter(|| black_box(env.ctx.clone()))
    });
    for n in CALL_SIZES {
        let registry = core_registry(n);
        g.bench_function(format!("core_n{n}"), |b| {
            b.iter(|| black_box(core_call(&registry, &ctx, black_box(&input))))
        });
        let table = floor_table(n);
        g.bench_function(format!("floor_dispatch_n{n}"), |b| {
            b.iter(|| {
                black_box(floor_dispatch(
                    &table,
                    black_box("add_numbers"),
                    copy_input(black_box(&input)),
                ))
            })
        });
        let side = rmcp_side(n);
        g.bench_function(format!("rmcp_once_n{n}"), |b| {
            b.iter(|| black_box(side.call_cached(&env, black_box(&args))))
        });
        g.bench_function(format!("rmcp_default_n{n}"), |b| {
            b.iter(|| black_box(side.call_default(&env, black_box(&args))))
        });
    }
    g.finish();
}

fn rendering(c: &mut Criterion) {
    let registry = core_registry(200);
    let mut g = c.benchmark_group("render");
    // The floor: the canonical schema copied unchanged beside the name and description.
    g.bench_function("copy_n200", |b| {
        b.iter(|| {
            let defs: Vec<Value> = registry
                .tools()
                .iter()
                .map(|t| {
                    json!({
                        "name": t.name(),
                        "description": t.description(),
                        "input_schema": t.input_schema().clone(),
                    })
                })
                .collect();
            black_box(Value::Array(defs))
        })
    });
    for format in Format::ALL {
        g.bench_function(format!("{}_n200", format.as_str()), |b| {
            b.iter(|| {
                black_box(render_all(
                    registry.tools(),
                    format,
                    RenderOptions::default(),
                ))
            })
        });
        if format.has_strict() {
            g.bench_function(format!("{}_strict_n200", format.as_str()), |b| {
                b.iter(|| {
                    black_box(render_all(
                        registry.tools(),
                        format,
                        RenderOptions::default().strict(true),
                    ))
                })
            });
        }
    }
    // rmcp's tools/list on a router built once: list_all (clones every Tool) and serialising.
    let router = bench_calls::rmcp_tools::Big::r0();
    g.bench_function("rmcp_list_n200", |b| {
        b.iter(|| black_box(serde_json::to_value(router.list_all()).expect("serialises")))
    });
    g.finish();
}

fn building(c: &mut Criterion) {
    let mut g = c.benchmark_group("build");
    g.sample_size(20);
    g.bench_function("core_registry_n1000", |b| {
        b.iter(|| black_box(core_registry_all()))
    });
    g.bench_function("rmcp_router_n1000", |b| {
        b.iter(|| black_box(big_router_1000()))
    });
    g.finish();
}

fn schemas(c: &mut Criterion) {
    let registry = core_registry(1);
    let def: &'static ToolDef = tool_core::__private::inventory::iter::<ToolDef>
        .into_iter()
        .find(|d| d.name == "add_numbers")
        .expect("add_numbers is linked");
    let mut g = c.benchmark_group("schema");
    // What tool-core does once per tool when the registry is built.
    g.bench_function("core_first", |b| {
        b.iter(|| {
            black_box(
                tool_core::definition::schema::canonical_input((def.input_schema)())
                    .expect("an object"),
            )
        })
    });
    // What every later access costs: a shared reference (and a clone, for an owned copy).
    g.bench_function("core_cached_ref", |b| {
        b.iter(|| {
            black_box(
                black_box(&registry)
                    .get("add_numbers")
                    .expect("registered")
                    .input_schema(),
            )
            .is_object()
        })
    });
    g.bench_function("core_cached_clone", |b| {
        b.iter(|| {
            black_box(
                registry
                    .get("add_numbers")
                    .expect("registered")
                    .input_schema()
                    .clone(),
            )
        })
    });
    // rmcp: the generation its cache misses do, and its thread-local cache (what every
    // `#[tool]`'s attr fn calls on each router build).
    g.bench_function("rmcp_uncached", |b| {
        b.iter(|| {
            black_box(
                schemars::generate::SchemaSettings::draft2020_12()
                    .into_generator()
                    .into_root_schema_for::<Parameters<S1AddNumbersArgs>>()
                    .to_value(),
            )
        })
    });
    g.bench_function("rmcp_cached", |b| {
        b.iter(|| black_box(schema_for_input::<Parameters<S1AddNumbersArgs>>()))
    });
    g.finish();
}

// ---------------------------------------------------------------------------------------------
// Summary: every figure as a ratio against its baseline, all from this run's estimates.

fn criterion_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("criterion")
}

/// The median (ns) of a benchmark measured in this run, if it was.
fn median(dir: &Path, since: SystemTime, group: &str, id: &str) -> Option<f64> {
    let path = dir.join(group).join(id).join("new/estimates.json");
    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
    if modified < since {
        return None;
    }
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn summary(dir: &Path, since: SystemTime) {
    let get = |group: &str, id: &str| median(dir, since, group, id);
    let mut md = String::new();
    let mut raw = serde_json::Map::new();
    let mut rows = Vec::new();
    let mut row = |what: &str,
                   (group, id): (&str, &str),
                   (bgroup, bid): (&str, &str),
                   target: Option<(f64, &str)>| {
        let (Some(v), Some(base)) = (get(group, id), get(bgroup, bid)) else {
            return;
        };
        raw.insert(format!("{group}/{id}"), v.into());
        raw.insert(format!("{bgroup}/{bid}"), base.into());
        let ratio = v / base;
        rows.push(json!({
            "measure": what,
            "id": format!("{group}/{id}"),
            "median_ns": v,
            "baseline": format!("{bgroup}/{bid}"),
            "baseline_ns": base,
            "ratio": ratio,
            "target_max": target.map(|t| t.0),
        }));
        let verdict = match target {
            Some((max, _)) if ratio <= max => format!("≤ {max}: met"),
            Some((max, _)) => format!("≤ {max}: **missed**"),
            None => String::new(),
        };
        md.push_str(&format!(
            "| {what} | {} | `{bgroup}/{bid}` {} | {ratio:.2} | {verdict} |\n",
            fmt_ns(v),
            fmt_ns(base)
        ));
    };
    for n in CALL_SIZES {
        let core_id = format!("core_n{n}");
        let core = ("call", core_id.as_str());
        row(
            &format!("registry.call, {n} tools, vs floor (decode, call, encode)"),
            core,
            ("call", "floor"),
            Some((1.2, "floor")),
        );
        let fd = format!("floor_dispatch_n{n}");
        row(
            &format!("registry.call, {n} tools, vs floor behind a name -> fn HashMap"),
            core,
            ("call", &fd),
            None,
        );
        let once = format!("rmcp_once_n{n}");
        let default = format!("rmcp_default_n{n}");
        row(
            &format!("registry.call, {n} tools, vs rmcp router built once"),
            core,
            ("call", &once),
            Some((0.5, "rmcp")),
        );
        row(
            &format!("registry.call, {n} tools, vs rmcp default (router per call)"),
            core,
            ("call", &default),
            Some((0.5, "rmcp")),
        );
        row(
            &format!("rmcp router built once, {n} tools, vs floor"),
            ("call", &once),
            ("call", "floor"),
            None,
        );
        row(
            &format!("rmcp default (router per call), {n} tools, vs floor"),
            ("call", &default),
            ("call", "floor"),
            None,
        );
    }
    row(
        "rmcp RequestContext clone (part of every rmcp call) vs floor",
        ("call", "rmcp_request_context_clone"),
        ("call", "floor"),
        None,
    );
    for format in Format::ALL {
        let id = format!("{}_n200", format.as_str());
        row(
            &format!(
                "render_all {} (200 tools) vs copying the schemas",
                format.as_str()
            ),
            ("render", &id),
            ("render", "copy_n200"),
            None,
        );
        if format.has_strict() {
            let id = format!("{}_strict_n200", format.as_str());
            row(
                &format!(
                    "render_all {} strict (200 tools) vs copying the schemas",
                    format.as_str()
                ),
                ("render", &id),
                ("render", "copy_n200"),
                None,
            );
        }
    }
    row(
        "render_all mcp (200 tools) vs rmcp list_all + serialise",
        ("render", "mcp_n200"),
        ("render", "rmcp_list_n200"),
        None,
    );
    row(
        "Registry::linked, 1,000 #[tool] fns (schemas built) vs rmcp router of 1,000 (schemas cached)",
        ("build", "core_registry_n1000"),
        ("build", "rmcp_router_n1000"),
        None,
    );
    row(
        "cached schema (registry reference) vs first (generate + canonicalise)",
        ("schema", "core_cached_ref"),
        ("schema", "core_first"),
        None,
    );
    row(
        "cached schema, owned clone vs first",
        ("schema", "core_cached_clone"),
        ("schema", "core_first"),
        None,
    );
    row(
        "tool-core cached reference vs rmcp's thread-local schema cache",
        ("schema", "core_cached_ref"),
        ("schema", "rmcp_cached"),
        None,
    );
    row(
        "tool-core first schema vs rmcp uncached generation",
        ("schema", "core_first"),
        ("schema", "rmcp_uncached"),
        None,
    );
    if md.is_empty() {
        println!("(no figures from this run to summarise)");
        return;
    }
    let table = format!(
        "| measure | median | baseline (same run) | ratio | target |\n|---|---|---|---|---|\n{md}"
    );
    println!("\n## Summary (medians of this run)\n\n{table}");
    let out = dir.parent().unwrap_or(dir).join("bench-calls");
    if std::fs::create_dir_all(&out).is_ok() {
        let _ = std::fs::write(out.join("summary.md"), &table);
        let _ = std::fs::write(
            out.join("summary.json"),
            serde_json::to_string_pretty(&Value::Object(raw)).unwrap_or_default(),
        );
        println!("written to {}", out.join("summary.md").display());
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    match meta::write_results(&root, "calls", json!({ "rows": rows })) {
        Ok(path) => println!("results: {}", path.display()),
        Err(e) => eprintln!("calls: {e}"),
    }
}

/// Every side answers 42 before anything is timed.
fn check_answers() {
    let ctx = ToolContext::new();
    let env = RmcpEnv::new();
    for n in CALL_SIZES {
        assert_eq!(core_call(&core_registry(n), &ctx, &add_input()), json!(42));
        assert_eq!(
            floor_dispatch(&floor_table(n), "add_numbers", add_input()),
            json!(42)
        );
        let side = rmcp_side(n);
        for out in [
            side.call_cached(&env, &rmcp_args()),
            side.call_default(&env, &rmcp_args()),
        ] {
            let rmcp::model::CallToolResponse::Complete(result) = out else {
                panic!("rmcp did not complete the call")
            };
            let content = serde_json::to_value(&result.content).expect("serialises");
            assert_eq!(content[0]["text"], "42", "{content}");
        }
    }
}

fn main() {
    check_answers();
    let since = SystemTime::now() - Duration::from_secs(1);
    let dir = criterion_dir();
    let mut c = Criterion::default()
        .output_directory(&dir)
        .warm_up_time(Duration::from_millis(800))
        .measurement_time(Duration::from_secs(2))
        .sample_size(40)
        .configure_from_args();
    calls(&mut c);
    rendering(&mut c);
    building(&mut c);
    schemas(&mut c);
    c.final_summary();
    summary(&dir, since);
}
