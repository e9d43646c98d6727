//! The catalog's report, every figure measured in this run: quality on the evaluation set
//! against two baselines, speed and memory on 10,000 synthetic tools against the BM25
//! baseline, and the tokens of tool definitions a request carries with every tool versus a
//! deferred session (o200k_base, as `toolctl lock` counts them).
//!
//! `cargo bench -p tool-catalog --bench catalog` (the figures also go to
//! `target/bench/catalog.json`, which `bench-report` writes into BENCHMARKS.md).

#[path = "support/eval.rs"]
mod eval;

/// The run's record (machine, commit) and where its figures go for bench-report.
#[path = "../../benchmarks/report/src/meta.rs"]
mod meta;

use std::cell::RefCell;

use serde_json::{Map, Value, json};

use std::hint::black_box;
use std::time::{Duration, Instant};

use tool_catalog::{Catalog, Deferral, Ranking, SearchOptions, ToolSession};
use tool_core::render::{Format, RenderOptions};

/// The tokenizer `tool_lock::tokens` uses with its feature `tokens` (tool-lock sits beside
/// this crate, so the bench counts with the same encoding directly).
const TOKENIZER: &str = "o200k_base";

fn count_tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

fn main() {
    let mut figures = Map::new();
    quality(&mut figures);
    speed(&mut figures);
    tokens(&mut figures);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    match meta::write_results(&root, "catalog", figures.into()) {
        Ok(path) => println!("\nresults: {}", path.display()),
        Err(e) => eprintln!("catalog: {e}"),
    }
}

fn names(found: Vec<tool_catalog::Match<'_>>) -> Vec<String> {
    found.into_iter().map(|m| m.name.to_owned()).collect()
}

fn quality(figures: &mut Map<String, Value>) {
    let registry = eval::registry();
    let rows = RefCell::new(Vec::new());
    // The ranking (weights, thesaurus, token shapes) was developed looking at the misses of
    // the first two sets; the test set was written by someone who had seen neither them nor
    // the engine, and was not used to develop it.
    let test = eval::test_set();
    let dev = eval::cases();
    let held = eval::holdout();
    println!(
        "## Quality: {} tools from {} MCP servers; {} test queries; {} + {} development queries\n",
        registry.len(),
        registry.domains().len(),
        test.len(),
        dev.len(),
        held.len()
    );
    println!(
        "| ranker | test: recall@1 | recall@5 | MRR@10 | development: recall@5 | held out (now development): recall@5 |"
    );
    println!("|---|---|---|---|---|---|");
    let row = |label: &str, rank: &dyn Fn(&str) -> Vec<String>| {
        let t = eval::evaluate(&test, rank);
        let d = eval::evaluate(&dev, rank);
        let h = eval::evaluate(&held, rank);
        println!(
            "| {label} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
            t.recall_1, t.recall_5, t.mrr, d.recall_5, h.recall_5
        );
        rows.borrow_mut().push(json!({
            "ranker": label, "test_recall_1": t.recall_1, "test_recall_5": t.recall_5,
            "test_mrr_10": t.mrr, "dev_recall_5": d.recall_5, "held_out_recall_5": h.recall_5,
        }));
    };
    let top10 = SearchOptions::limit(10);
    for (label, ranking) in [
        ("catalog", Ranking::default()),
        (
            "catalog, every ranking part off (BM25 over the same fields)",
            Ranking::default()
                .stemming(false)
                .synonyms(false)
                .field_weights(false)
                .coordination(false)
                .domains(false),
        ),
        (
            "catalog without stemming",
            Ranking::default().stemming(false),
        ),
        (
            "catalog without synonyms, abbreviations and token shapes",
            Ranking::default().synonyms(false),
        ),
        (
            "catalog without field weights",
            Ranking::default().field_weights(false),
        ),
        (
            "catalog without coordination",
            Ranking::default().coordination(false),
        ),
        (
            "catalog with domain grouping",
            Ranking::default().domains(true),
        ),
    ] {
        let catalog = Catalog::with_ranking(&registry, ranking);
        row(label, &|q| names(catalog.search(q, &top10)));
    }
    let bm25 = eval::Bm25::new(&registry);
    row("BM25, name + description (baseline)", &|q| {
        bm25.search(q, 10)
    });
    let words = eval::WordMatch::new(&registry);
    row("regex word match (baseline)", &|q| words.search(q, 10));
    println!();
    figures.insert(
        "quality".into(),
        json!({
            "tools": registry.len(),
            "servers": registry.domains().len(),
            "test_queries": test.len(),
            "dev_queries": dev.len(),
            "held_out_queries": held.len(),
            "rows": rows.into_inner(),
        }),
    );
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[((sorted.len() - 1) as f64 * p) as usize]
}

/// Resident memory, from /proc (Linux); 0 elsewhere.
fn rss_bytes() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<usize>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn speed(figures: &mut Map<String, Value>) {
    const N: usize = 10_000;
    let (registry, queries) = eval::synthetic(N);
    println!(
        "## Speed and memory: {N} synthetic tools, {} queries\n",
        queries.len()
    );
    // Measured first, before builds free memory the allocator would reuse.
    let before = rss_bytes();
    let catalog = Catalog::new(&registry);
    let rss = rss_bytes().saturating_sub(before);

    // Each build is timed alone; dropping it is not part of building.
    fn build<T>(f: impl Fn() -> T) -> Duration {
        let mut kept = Vec::new();
        let times = (0..7)
            .map(|_| {
                let start = Instant::now();
                kept.push(black_box(f()));
                start.elapsed()
            })
            .collect();
        drop(kept);
        median(times)
    }
    let catalog_build = build(|| Catalog::new(&registry));
    let bm25_build = build(|| eval::Bm25::new(&registry));

    let bm25 = eval::Bm25::new(&registry);
    let options = SearchOptions::default();
    let time_queries = |f: &dyn Fn(&str)| -> Vec<Duration> {
        // One warm-up pass, then one timed pass over every query.
        queries.iter().for_each(|q| f(q));
        queries
            .iter()
            .map(|q| {
                let start = Instant::now();
                f(q);
                start.elapsed()
            })
            .collect()
    };
    let ours = time_queries(&|q| drop(black_box(catalog.search(q, &options))));
    let base = time_queries(&|q| drop(black_box(bm25.search(q, 5))));

    let mut updated = Catalog::new(&registry);
    let tool = registry.tools()[N / 2].clone();
    let update = median(
        (0..101)
            .map(|_| {
                let start = Instant::now();
                updated.remove(tool.name());
                updated.insert(&tool);
                start.elapsed()
            })
            .collect(),
    );

    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("| measure | catalog | BM25 baseline | ratio (catalog / baseline) | target |");
    println!("|---|---|---|---|---|");
    println!(
        "| index build | {:.1} ms | {:.1} ms | {:.2} | under 50 ms |",
        ms(catalog_build),
        ms(bm25_build),
        ms(catalog_build) / ms(bm25_build)
    );
    println!(
        "| median query | {:.1} µs | {:.1} µs | {:.2} | under 50 µs |",
        us(median(ours.clone())),
        us(median(base.clone())),
        us(median(ours.clone())) / us(median(base.clone()))
    );
    println!(
        "| p90 query | {:.1} µs | {:.1} µs | {:.2} | |",
        us(percentile(&ours, 0.9)),
        us(percentile(&base, 0.9)),
        us(percentile(&ours, 0.9)) / us(percentile(&base, 0.9))
    );
    println!(
        "| replace one tool (remove + insert) | {:.1} µs | | | |",
        us(update)
    );
    println!(
        "| memory per tool (heap, counted) | {} bytes | | | reported |",
        catalog.heap_bytes() / N
    );
    println!(
        "| memory per tool (RSS growth) | {} bytes | | | reported |",
        rss / N
    );
    println!();
    figures.insert(
        "speed".into(),
        json!({
            "tools": N,
            "queries": queries.len(),
            "build_ms": ms(catalog_build),
            "bm25_build_ms": ms(bm25_build),
            "median_query_us": us(median(ours.clone())),
            "bm25_median_query_us": us(median(base.clone())),
            "p90_query_us": us(percentile(&ours, 0.9)),
            "bm25_p90_query_us": us(percentile(&base, 0.9)),
            "replace_one_us": us(update),
            "heap_bytes_per_tool": catalog.heap_bytes() / N,
            "rss_bytes_per_tool": rss / N,
        }),
    );
}

fn tokens(figures: &mut Map<String, Value>) {
    let mut rows = Vec::new();
    let mut registry = eval::registry();
    tool_catalog::install(&mut registry).expect("search_tools is a new name");
    let mut session = ToolSession::new(&registry);
    let initial = session.clone();
    // One search a model might make, loading what it found.
    let searched = Catalog::new(&registry);
    let mut options = SearchOptions::default();
    options.include_core = false;
    let found = names(searched.search("open a pull request", &options));
    for name in &found {
        session.load(name);
    }
    println!(
        "## Tokens per round: the {} evaluation tools, all sent versus a deferred session\n",
        registry.len() - 1
    );
    println!(
        "| format | all tools | session: search_tools only | session after one search ({} loaded) | fewer, first round | fewer, after the search |",
        found.len()
    );
    println!("|---|---|---|---|---|---|");
    // Tokens of each request's tool array, as sent: o200k_base with the feature `tokens`,
    // four bytes a token without it (the JSON says which).
    let size = |v: serde_json::Value| {
        let text = serde_json::to_string(&v).unwrap_or_default();
        (text.len() as f64, count_tokens(&text) as f64)
    };
    for format in [
        Format::OpenAi,
        Format::Anthropic,
        Format::Gemini,
        Format::Mcp,
    ] {
        let options = RenderOptions::default();
        // "All tools": every definition, none deferred (what a request carries without a catalog).
        let all = size(tool_core::render::render_all(
            registry
                .tools()
                .iter()
                .filter(|t| t.name() != tool_catalog::SEARCH_TOOLS),
            format,
            options,
        ));
        let first = size(initial.render(format, options, Deferral::Session));
        let after = size(session.render(format, options, Deferral::Session));
        println!(
            "| {} | {:.0} B ({:.0} tokens) | {:.0} B ({:.0} tokens) | {:.0} B ({:.0} tokens) | {:.1}% | {:.1}% |",
            format.as_str(),
            all.0,
            all.1,
            first.0,
            first.1,
            after.0,
            after.1,
            100.0 * (1.0 - first.1 / all.1),
            100.0 * (1.0 - after.1 / all.1)
        );
        rows.push(json!({
            "format": format.as_str(), "all_bytes": all.0, "session_bytes": first.0,
            "after_search_bytes": after.0, "all_tokens": all.1, "session_tokens": first.1,
            "after_search_tokens": after.1,
        }));
    }
    println!("\n(tokens counted by {})", TOKENIZER);
    figures.insert(
        "tokens".into(),
        json!({
            "tools": registry.len() - 1, "loaded": found.len(), "rows": rows,
            "tokenizer": TOKENIZER,
        }),
    );
}
