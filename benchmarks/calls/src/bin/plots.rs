//! Measures two sweeps and draws them as PNGs in `benchmarks/calls/plots/`:
//!
//! - call latency of `add_numbers` against the number of registered tools (1, 10, 50, 200,
//!   1,000): tool-core's `registry.call`, the hand-written floor (direct, and behind a
//!   name -> fn map), rmcp's router built once and rmcp's default (router built per call);
//! - catalog search latency (median and p90 over 1,000 queries) against catalog size (100 to
//!   10,000 deterministic synthetic tools).
//!
//! `cargo run --release -p bench-calls --bin plots` (about two minutes on 2 shared cores).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use plotters::prelude::*;
use plotters::style::FontStyle;
use tool_catalog::{Catalog, SearchOptions};
use tool_core::ToolContext;

/// tool-catalog's evaluation, for its synthetic catalog: the same tools as the catalog
/// bench, so the figures line up.
#[path = "../../../../tool-catalog/benches/support/eval.rs"]
mod eval;

/// The run's record (machine, commit) and where its figures go for bench-report.
#[path = "../../../report/src/meta.rs"]
mod meta;

use bench_calls::{
    RmcpEnv, SIZES, add_input, copy_input, core_call, core_registry, floor_call, floor_dispatch,
    floor_table, rmcp_args, rmcp_side, time_per_call,
};

const ROUNDS: usize = 21;
const CATALOG_SIZES: [usize; 6] = [100, 300, 1000, 3000, 5000, 10_000];

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("plots");
    std::fs::create_dir_all(&out).expect("create the plots directory");
    load_font();

    let mut figures = serde_json::Map::new();
    let calls = call_sweep(&mut figures);
    draw(
        &out.join("call_latency.png"),
        "add_numbers call latency vs registered tools (median)",
        "registered tools",
        ("ns", "time per call (log scale)"),
        &calls,
    );
    let search = search_sweep(&mut figures);
    draw(
        &out.join("search_latency.png"),
        "catalog search latency vs catalog size (1,000 queries)",
        "tools in the catalog",
        ("µs", "time per query (log scale)"),
        &search,
    );
    println!(
        "\nwrote {} and {}",
        out.join("call_latency.png").display(),
        out.join("search_latency.png").display()
    );
    figures.insert("rounds".into(), ROUNDS.into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    match meta::write_results(&root, "plots", figures.into()) {
        Ok(path) => println!("results: {}", path.display()),
        Err(e) => eprintln!("plots: {e}"),
    }
}

/// A named line of (x, y) points.
type Series = (&'static str, RGBColor, Vec<(f64, f64)>);

/// The call sweep; its table goes into `figures["calls"]`, one row per size.
fn call_sweep(figures: &mut serde_json::Map<String, serde_json::Value>) -> Vec<Series> {
    let mut rows = Vec::new();
    let ctx = ToolContext::new();
    let env = RmcpEnv::new();
    let args = rmcp_args();
    let input = add_input();
    let ns = |d: Duration| d.as_secs_f64() * 1e9;
    let mut core = Vec::new();
    let mut floor = Vec::new();
    let mut dispatch = Vec::new();
    let mut once = Vec::new();
    let mut default = Vec::new();
    println!("## Call latency of add_numbers (median ns per call, {ROUNDS} rounds)\n");
    println!(
        "| tools | floor | floor + name map | registry.call | rmcp router once | rmcp default | registry.call / floor | / rmcp once | / rmcp default |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for n in SIZES {
        let registry = core_registry(n);
        let table = floor_table(n);
        let side = rmcp_side(n);
        // Interleaved, so drift from other load on the machine hits every side alike.
        let mut t = [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..5 {
            t[0].push(time_per_call(ROUNDS, || {
                black_box(floor_call(copy_input(black_box(&input))).ok());
            }));
            t[1].push(time_per_call(ROUNDS, || {
                black_box(floor_dispatch(
                    &table,
                    black_box("add_numbers"),
                    copy_input(black_box(&input)),
                ));
            }));
            t[2].push(time_per_call(ROUNDS, || {
                black_box(core_call(&registry, &ctx, black_box(&input)));
            }));
            t[3].push(time_per_call(ROUNDS, || {
                black_box(side.call_cached(&env, black_box(&args)));
            }));
            t[4].push(time_per_call(ROUNDS.min(7), || {
                black_box(side.call_default(&env, black_box(&args)));
            }));
        }
        let [f, d, c, o, def] = t.map(|mut v| {
            v.sort();
            ns(v[v.len() / 2])
        });
        println!(
            "| {n} | {f:.0} | {d:.0} | {c:.0} | {o:.0} | {def:.0} | {:.2} | {:.2} | {:.3} |",
            c / f,
            c / o,
            c / def
        );
        rows.push(serde_json::json!({
            "tools": n, "floor_ns": f, "floor_map_ns": d, "core_ns": c,
            "rmcp_once_ns": o, "rmcp_default_ns": def,
        }));
        let x = n as f64;
        floor.push((x, f));
        dispatch.push((x, d));
        core.push((x, c));
        once.push((x, o));
        default.push((x, def));
    }
    figures.insert("calls".into(), rows.into());
    vec![
        ("tool-core registry.call", RGBColor(31, 119, 180), core),
        ("floor: decode, call, encode", RGBColor(44, 160, 44), floor),
        (
            "floor behind a name -> fn HashMap",
            RGBColor(148, 103, 189),
            dispatch,
        ),
        ("rmcp ToolRouter built once", RGBColor(255, 127, 14), once),
        (
            "rmcp default: router built per call",
            RGBColor(214, 39, 40),
            default,
        ),
    ]
}

/// The search sweep; its table goes into `figures["search"]`, one row per catalog size.
fn search_sweep(figures: &mut serde_json::Map<String, serde_json::Value>) -> Vec<Series> {
    let mut rows = Vec::new();
    let mut median = Vec::new();
    let mut p90 = Vec::new();
    println!("\n## Catalog search latency (synthetic tools, 1,000 queries, default options)\n");
    println!("| tools | index build | median query | p90 query |");
    println!("|---|---|---|---|");
    let options = SearchOptions::default();
    for n in CATALOG_SIZES {
        let (registry, queries) = eval::synthetic(n);
        let start = Instant::now();
        let catalog = black_box(Catalog::new(&registry));
        let built = start.elapsed();
        queries
            .iter()
            .for_each(|q| drop(black_box(catalog.search(q, &options))));
        let mut times: Vec<Duration> = queries
            .iter()
            .map(|q| {
                let start = Instant::now();
                drop(black_box(catalog.search(q, &options)));
                start.elapsed()
            })
            .collect();
        times.sort();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        let (m, p) = (us(times[times.len() / 2]), us(times[times.len() * 9 / 10]));
        println!(
            "| {n} | {:.1} ms | {m:.1} µs | {p:.1} µs |",
            built.as_secs_f64() * 1e3
        );
        rows.push(serde_json::json!({
            "tools": n, "build_ms": built.as_secs_f64() * 1e3, "median_us": m, "p90_us": p,
        }));
        median.push((n as f64, m));
        p90.push((n as f64, p));
    }
    figures.insert("search".into(), rows.into());
    vec![
        ("median query", RGBColor(31, 119, 180), median),
        ("p90 query", RGBColor(255, 127, 14), p90),
    ]
}

/// DejaVu Sans from the system, for plotters' ab_glyph text (no font-kit, no freetype).
fn load_font() {
    let candidates = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    ];
    let path = candidates
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .expect("DejaVuSans.ttf (Debian: apt-get install fonts-dejavu-core)");
    let bytes: &'static [u8] =
        Box::leak(std::fs::read(&path).expect("read font").into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
        .unwrap_or_else(|_| panic!("{} is not a font", path.display()));
}

/// A tick label: `y` in `unit` ("ns" or "µs"), rescaled to the unit that reads best.
fn human(y: f64, unit: &str) -> String {
    let ns = if unit == "ns" { y } else { y * 1e3 };
    let (v, u) = if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    if v >= 10.0 || v.fract() == 0.0 {
        format!("{v:.0} {u}")
    } else {
        format!("{v:.1} {u}")
    }
}

/// A log-log line chart; `y_unit` is "ns" or "µs".
fn draw(
    path: &Path,
    title: &str,
    x_label: &str,
    (y_unit, y_desc): (&str, &str),
    series: &[Series],
) {
    let xs = series.iter().flat_map(|s| s.2.iter().map(|p| p.0));
    let ys = series.iter().flat_map(|s| s.2.iter().map(|p| p.1));
    let (x_min, x_max) = xs.fold((f64::MAX, 0f64), |(a, b), x| (a.min(x), b.max(x)));
    let (y_min, y_max) = ys.fold((f64::MAX, 0f64), |(a, b), y| (a.min(y), b.max(y)));
    let root = BitMapBackend::new(path, (1000, 640)).into_drawing_area();
    root.fill(&WHITE).expect("fill");
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(96)
        .build_cartesian_2d(
            (x_min * 0.8..x_max * 1.25).log_scale(),
            // Whole decades, so every axis has labelled ticks.
            (10f64.powf(y_min.log10().floor())..10f64.powf(y_max.log10().ceil())).log_scale(),
        )
        .expect("chart");
    chart
        .configure_mesh()
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| human(*y, y_unit))
        .x_desc(x_label)
        .y_desc(y_desc)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .draw()
        .expect("mesh");
    for (name, color, points) in series {
        let color = *color;
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .expect("line")
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .expect("points");
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()
        .expect("legend");
    root.present().expect("write png");
}
