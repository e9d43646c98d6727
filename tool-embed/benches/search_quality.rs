//! Tool search with a sentence-transformers model: quality on every query set for BM25, the
//! lexical catalog, the model alone and the hybrids, and what it costs.
//!
//! `cargo bench -p tool-embed --bench search_quality [MODEL_DIR...]` (default: the models that
//! `scripts/embed-model-env` installs, `target/models/all-MiniLM-L6-v2` and
//! `target/models/all-mpnet-base-v2`, one after the other in one run). For each model, the
//! adaptive fusion's weight is chosen on the development and paraphrase sets (of the weights
//! with the best development recall@5, the best paraphrase recall@5) and compared with the one
//! stored with the model's settings (`tool_embed::KNOWN_MODELS`); the held-out, test and blind
//! paraphrase sets only report. Figures go to stdout and to `target/bench/embed.json`, which
//! `bench-report` writes into `docs/catalog.md`.

#[path = "../../tool-catalog/benches/support/eval.rs"]
mod eval;

#[path = "support/memory.rs"]
mod memory;

/// The run's record (machine, commit) and where its figures go for bench-report.
#[path = "../../benchmarks/report/src/meta.rs"]
mod meta;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use memory::memory_mib;
use serde_json::json;
use tool_catalog::{
    Catalog, EmbedError, Embedding, Fusion, SearchOptions, TextEmbedder, ToolTexts, VectorCache,
    tool_text, tool_texts,
};
use tool_core::{Registry, registry::Tool};
use tool_embed::SentenceEmbedder;

/// The model, with every text's vector kept: a weight sweep re-ranks the same queries many
/// times, and must not pay the model each time.
struct Memo {
    model: Arc<SentenceEmbedder>,
    seen: Mutex<HashMap<String, Vec<f32>>>,
    calls: AtomicUsize,
}

impl Memo {
    fn new(model: &Arc<SentenceEmbedder>) -> Arc<Self> {
        Arc::new(Self {
            model: model.clone(),
            seen: Mutex::default(),
            calls: AtomicUsize::new(0),
        })
    }
}

impl TextEmbedder for Memo {
    fn model_id(&self) -> &str {
        self.model.model_id()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let unseen: Vec<&str> = {
            let seen = self.seen.lock().unwrap();
            texts
                .iter()
                .copied()
                .filter(|t| !seen.contains_key(*t))
                .collect()
        };
        if !unseen.is_empty() {
            self.calls.fetch_add(unseen.len(), Ordering::Relaxed);
            let vectors = TextEmbedder::embed(&*self.model, &unseen)?;
            let mut seen = self.seen.lock().unwrap();
            for (text, v) in unseen.into_iter().zip(vectors) {
                seen.insert(text.to_owned(), v);
            }
        }
        let seen = self.seen.lock().unwrap();
        Ok(texts.iter().map(|t| seen[*t].clone()).collect())
    }
}

/// A ranking of the tool names for a query, best first.
type Ranker<'a> = Box<dyn Fn(&str) -> Vec<String> + 'a>;

fn ranked(catalog: &Catalog, query: &str) -> Vec<String> {
    catalog
        .search(query, &SearchOptions::limit(10))
        .iter()
        .map(|m| m.name.to_owned())
        .collect()
}

/// The hybrid search before multi-text vectors and adaptive fusion: one text a tool, fixed
/// weights.
const BEFORE: Fusion = Fusion::Weighted { dense: 0.35 };

fn one_text(tool: &Tool) -> Vec<String> {
    vec![tool_text(tool)]
}

fn hybrid(
    registry: &Registry,
    model: Arc<dyn TextEmbedder>,
    fusion: Fusion,
    texts: ToolTexts,
) -> Catalog {
    let embedding = Embedding::new(model)
        .fusion(fusion)
        .texts(texts)
        .cache_dir(None);
    Catalog::with_embedding(registry, &embedding).expect("the model embeds every tool")
}

/// What loading the model in `dir` adds to a fresh process: resident MiB after, and at the peak
/// of loading.
fn load_memory(dir: &Path) -> (f64, f64) {
    let (before, _) = memory_mib();
    let model = SentenceEmbedder::load(dir).unwrap_or_else(|e| panic!("{e}"));
    let (after, peak) = memory_mib();
    drop(model);
    (after - before, peak - before)
}

/// [`load_memory`] in a process of its own: in this one, the allocator keeps pages that earlier
/// models freed, and the next model's growth would read low.
fn load_memory_in_child(dir: &Path) -> (f64, f64) {
    let out = std::process::Command::new(std::env::current_exe().expect("this bench"))
        .arg("--load-memory")
        .arg(dir)
        .output()
        .expect("the bench runs itself");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut figures = text.split_whitespace().map(|f| f.parse::<f64>().unwrap());
    (figures.next().unwrap(), figures.next().unwrap())
}

/// The machine's load average over the last minute (Linux; 0 elsewhere).
fn loadavg() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// A query set, and whether choices were made on it.
struct Set {
    name: &'static str,
    cases: Vec<eval::Case>,
    tuned: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|a| a == "--load-memory") {
        let dir = args.get(at + 1).expect("--load-memory DIR");
        let (resident, peak) = load_memory(Path::new(dir));
        println!("{resident} {peak}");
        return;
    }
    let root = eval::root();
    let mut dirs: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() {
        for name in ["all-MiniLM-L6-v2", "all-mpnet-base-v2"] {
            dirs.push(root.join("target/models").join(name));
        }
    }
    let registry = eval::registry();
    let sets = [
        Set {
            name: "development",
            cases: eval::cases(),
            tuned: true,
        },
        Set {
            name: "held out",
            cases: eval::holdout(),
            tuned: false,
        },
        Set {
            name: "test",
            cases: eval::test_set(),
            tuned: false,
        },
        Set {
            name: "paraphrase",
            cases: eval::paraphrase(),
            tuned: true,
        },
        Set {
            name: "paraphrase, blind",
            cases: eval::paraphrase_blind(),
            tuned: false,
        },
    ];
    let lexical = Catalog::new(&registry);
    let bm25 = eval::Bm25::new(&registry);
    let mut report = Vec::new();
    for dir in &dirs {
        report.push(run_model(dir, &registry, &sets, &lexical, &bm25));
    }
    let figures = json!({
        "tools": registry.len(),
        "models": report,
    });
    match meta::write_results(&root, "embed", figures) {
        Ok(path) => println!("\nresults: {}", path.display()),
        Err(e) => eprintln!("search_quality: {e}"),
    }
}

fn run_model(
    dir: &Path,
    registry: &Registry,
    sets: &[Set],
    lexical: &Catalog,
    bm25: &eval::Bm25,
) -> serde_json::Value {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let load_at_start = loadavg();
    let started = Instant::now();
    let model = Arc::new(SentenceEmbedder::load(dir).unwrap_or_else(|e| {
        panic!("{e}\n(run scripts/embed-model-env {name} to install the model)")
    }));
    let load = started.elapsed();
    let (resident_mib, peak_mib) = load_memory_in_child(dir);
    // What scripts/embed-model-env downloaded for it (the wheels' bytes), when it installed it.
    let download_mb = std::fs::read_to_string(dir.join(".wheel-bytes"))
        .ok()
        .and_then(|b| b.trim().parse::<f64>().ok())
        .map(|b| b / 1e6);
    let stored = model.fusion();
    println!(
        "\n## {name} (loaded in {load:.0?}, {} dimensions; {resident_mib:.0} MiB resident, \
         {peak_mib:.0} MiB at the peak of loading; downloaded {}; stored fusion {stored:?})\n",
        model.dim(),
        download_mb.map_or("?".to_owned(), |mb| format!("{mb:.0} MB")),
    );

    // Cold: every tool embedded by the model, no cache; one text a tool, then every text.
    let cold = |texts: ToolTexts| {
        let memo = Memo::new(&model);
        let started = Instant::now();
        hybrid(registry, memo.clone(), Fusion::default(), texts);
        let took = started.elapsed();
        let n = memo.calls.load(Ordering::Relaxed);
        (memo, took, n)
    };
    let (_, cold_one, _) = cold(one_text);
    let (memo, cold_all, texts_embedded) = cold(tool_texts);
    let per_s = |took: Duration| registry.len() as f64 / took.as_secs_f64();
    println!(
        "cold index of {} tools: one text a tool {cold_one:.2?} ({:.1} tools/s); \
         {texts_embedded} texts ({:.1} a tool) {cold_all:.2?} ({:.1} tools/s)",
        registry.len(),
        per_s(cold_one),
        texts_embedded as f64 / registry.len() as f64,
        per_s(cold_all),
    );
    let memo = memo as Arc<dyn TextEmbedder>;

    // The adaptive fusion's weight, chosen on the development and paraphrase sets: of the
    // weights that rank the worded development queries best, the one that finds most of the
    // paraphrases (then the best MRR of both).
    let (development, paraphrase) = (&sets[0], &sets[3]);
    assert!(development.tuned && paraphrase.tuned);
    let mut sweep = Vec::new();
    for step in 0..=20 {
        let w = step as f32 / 20.0;
        let catalog = hybrid(
            registry,
            memo.clone(),
            Fusion::Adaptive { dense: w },
            tool_texts,
        );
        let d = eval::evaluate(&development.cases, |q| ranked(&catalog, q));
        let p = eval::evaluate(&paraphrase.cases, |q| ranked(&catalog, q));
        sweep.push((w, d, p));
    }
    let best_development = sweep.iter().map(|(_, d, _)| d.recall_5).fold(0.0, f64::max);
    let (weight, ..) = sweep
        .iter()
        .filter(|(_, d, _)| d.recall_5 == best_development)
        .max_by(|a, b| {
            (a.2.recall_5, a.1.mrr + a.2.mrr)
                .partial_cmp(&(b.2.recall_5, b.1.mrr + b.2.mrr))
                .unwrap()
        })
        .unwrap();
    let weight = *weight;
    println!(
        "adaptive dense weight chosen on the development and paraphrase sets: {weight:.2} \
         (recall@5, development / paraphrase: {})",
        sweep
            .iter()
            .map(|(w, d, p)| format!("{w:.2}→{:.3}/{:.3}", d.recall_5, p.recall_5))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let chosen = Fusion::Adaptive { dense: weight };
    if chosen != stored {
        println!(
            "NOTE: {name}'s settings store {stored:?} (tool_embed::KNOWN_MODELS); this run chose \
             {chosen:?}"
        );
    }

    let dense_only = hybrid(
        registry,
        memo.clone(),
        Fusion::Weighted { dense: 1.0 },
        tool_texts,
    );
    let rrf = hybrid(registry, memo.clone(), Fusion::Rrf { k: 60.0 }, tool_texts);
    let before = hybrid(registry, memo.clone(), BEFORE, one_text);
    let after = hybrid(registry, memo.clone(), chosen, tool_texts);
    let one_text_adaptive = hybrid(registry, memo.clone(), chosen, one_text);
    let texts_fixed = hybrid(registry, memo.clone(), BEFORE, tool_texts);

    println!("\n| set | queries | ranker | recall@1 | recall@5 | MRR@10 |");
    println!("|---|---:|---|---:|---:|---:|");
    let mut rows = Vec::new();
    let adaptive = format!("hybrid, adaptive {weight:.2}");
    for set in sets {
        let rankers: [(&str, &str, Ranker); 8] = [
            ("bm25", "BM25", Box::new(|q: &str| bm25.search(q, 10))),
            (
                "lexical",
                "lexical catalog",
                Box::new(|q: &str| ranked(lexical, q)),
            ),
            (
                "dense",
                "dense alone",
                Box::new(|q: &str| ranked(&dense_only, q)),
            ),
            (
                "rrf",
                "hybrid, RRF k=60",
                Box::new(|q: &str| ranked(&rrf, q)),
            ),
            (
                "before",
                "hybrid before (one text, weighted 0.35)",
                Box::new(|q: &str| ranked(&before, q)),
            ),
            ("hybrid", &adaptive, Box::new(|q: &str| ranked(&after, q))),
            (
                "one-text-adaptive",
                "ablation: one text, adaptive",
                Box::new(|q: &str| ranked(&one_text_adaptive, q)),
            ),
            (
                "texts-weighted",
                "ablation: tool texts, weighted 0.35",
                Box::new(|q: &str| ranked(&texts_fixed, q)),
            ),
        ];
        for (id, ranker, rank) in rankers {
            let m = eval::evaluate(&set.cases, rank);
            println!(
                "| {} | {} | {ranker} | {:.3} | {:.3} | {:.3} |",
                set.name,
                set.cases.len(),
                m.recall_1,
                m.recall_5,
                m.mrr
            );
            rows.push(json!({
                "set": set.name, "queries": set.cases.len(), "tuned": set.tuned,
                "id": id, "ranker": ranker,
                "recall_1": m.recall_1, "recall_5": m.recall_5, "mrr": m.mrr,
            }));
        }
    }

    // A hybrid query as a server answers it: the query embedded by the model, then fused;
    // before and after alternate, query by query, so both see the same machine.
    let live = |fusion: Fusion, texts: ToolTexts| {
        hybrid(
            registry,
            model.clone() as Arc<dyn TextEmbedder>,
            fusion,
            texts,
        )
    };
    let live = [live(BEFORE, one_text), live(chosen, tool_texts)];
    let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    let queries = &sets.iter().find(|s| s.name == "test").unwrap().cases;
    for (i, case) in queries.iter().enumerate() {
        for j in [i % 2, 1 - i % 2] {
            let started = Instant::now();
            let found = live[j].search(&case.query, &SearchOptions::limit(5));
            times[j].push(started.elapsed());
            assert!(!found.is_empty());
        }
    }
    let mut latency = Vec::new();
    for (label, mut t) in ["before", "after"].into_iter().zip(times) {
        t.sort();
        let (median, p95) = (percentile(&t, 0.5), percentile(&t, 0.95));
        println!(
            "\nhybrid query {label} ({} tools, {} queries; tokenise, embed, fuse): median {median:.2?}, p95 {p95:.2?}",
            registry.len(),
            t.len()
        );
        latency.push((median, p95));
    }
    let load_at_end = loadavg();
    println!(
        "load average (1 min) from loading the model to here: {load_at_start:.2} -> {load_at_end:.2} \
         (other work on the machine slows every figure above)"
    );
    let bytes =
        |c: &Catalog| (c.heap_bytes() - lexical.heap_bytes()) as f64 / registry.len() as f64;
    let (bytes_before, bytes_after) = (bytes(&live[0]), bytes(&live[1]));
    println!(
        "memory per tool for its vector and texts: {bytes_after:.0} B (one text: {bytes_before:.0} B)"
    );

    // Warm cache at 10,000 tools: the cache file holds a vector for each text of each tool,
    // so building the index reads them and embeds nothing. The vectors are pseudo-random
    // unit vectors of the model's length (embedding 40,000 texts would take many minutes;
    // reading them does not depend on their values).
    let (synthetic, _) = eval::synthetic(10_000);
    let dir = std::env::temp_dir().join(format!("tool-embed-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let mut cache = VectorCache::open(&dir, model.model_id()).unwrap();
        let mut rng = fastrand::Rng::with_seed(11);
        let records: Vec<(String, Vec<f32>)> = synthetic
            .tools()
            .iter()
            .flat_map(tool_texts)
            .map(|text| {
                let v: Vec<f32> = (0..model.dim()).map(|_| rng.f32() - 0.5).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                (text, v.into_iter().map(|x| x / norm).collect())
            })
            .collect();
        cache.append(&records).unwrap();
    }
    let counting = Memo::new(&model);
    let mut warm = Vec::new();
    for _ in 0..5 {
        let embedding =
            Embedding::new(counting.clone() as Arc<dyn TextEmbedder>).cache_dir(Some(dir.clone()));
        let started = Instant::now();
        let catalog = Catalog::with_embedding(&synthetic, &embedding).unwrap();
        warm.push(started.elapsed());
        assert_eq!(catalog.embedded(), 10_000);
    }
    assert_eq!(
        counting.calls.load(Ordering::Relaxed),
        0,
        "a warm cache embeds nothing"
    );
    let lexical_10k = {
        let started = Instant::now();
        let _ = Catalog::new(&synthetic);
        started.elapsed()
    };
    warm.sort();
    let warm_median = percentile(&warm, 0.5);
    println!(
        "warm-cache index of 10,000 tools: median {warm_median:.1?} of 5 (lexical index alone: {lexical_10k:.1?})"
    );
    let _ = std::fs::remove_dir_all(&dir);

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    json!({
        "model": name,
        "model_id": model.model_id(),
        "dim": model.dim(),
        "load_ms": ms(load),
        "loadavg_start": load_at_start,
        "loadavg_end": load_at_end,
        "resident_mib": resident_mib,
        "load_peak_mib": peak_mib,
        "download_mb": download_mb,
        "cold_tools_per_s": per_s(cold_all),
        "cold_tools_per_s_one_text": per_s(cold_one),
        "texts_per_tool": texts_embedded as f64 / registry.len() as f64,
        "weight": weight,
        "stored_fusion": format!("{stored:?}"),
        "stored_is_chosen": chosen == stored,
        "sweep": sweep.iter().map(|(w, d, p)| json!({
            "dense": w,
            "development_recall_5": d.recall_5, "development_mrr": d.mrr,
            "paraphrase_recall_5": p.recall_5, "paraphrase_mrr": p.mrr,
        })).collect::<Vec<_>>(),
        "rows": rows,
        "query_median_ms": ms(latency[1].0),
        "query_p95_ms": ms(latency[1].1),
        "query_before_median_ms": ms(latency[0].0),
        "query_before_p95_ms": ms(latency[0].1),
        "bytes_per_tool": bytes_after,
        "bytes_per_tool_one_text": bytes_before,
        "warm_index_10k_ms": ms(warm_median),
        "lexical_index_10k_ms": ms(lexical_10k),
    })
}
