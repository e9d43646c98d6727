//! Tool search with a sentence-transformers model: quality on every query set for BM25, the
//! lexical catalog, the model alone and the hybrid, and what it costs.
//!
//! `cargo bench -p tool-embed --bench search_quality [MODEL_DIR...]` (default: the model that
//! `scripts/embed-model-env` installs, `target/models/all-MiniLM-L6-v2`). The fusion weight is
//! chosen on the development set alone; the test, held-out and paraphrase sets only report.
//! Figures go to stdout and to `target/bench/embed.json`.

#[path = "../../tool-core/benches/support/eval.rs"]
mod eval;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tool_core::Registry;
use tool_core::catalog::{
    Catalog, EmbedError, Embedding, Fusion, SearchOptions, TextEmbedder, VectorCache, tool_text,
};
use tool_embed::SentenceEmbedder;

/// The model, with every text's vector kept: a weight sweep re-ranks the same queries many
/// times, and must not pay the model each time.
struct Memo {
    model: Arc<SentenceEmbedder>,
    seen: Mutex<HashMap<String, Vec<f32>>>,
    calls: AtomicUsize,
}

impl TextEmbedder for Memo {
    fn model_id(&self) -> &str {
        self.model.model_id()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for text in texts {
            let known = self.seen.lock().unwrap().get(*text).cloned();
            let vector = match known {
                Some(v) => v,
                None => {
                    self.calls.fetch_add(1, Ordering::Relaxed);
                    let v = TextEmbedder::embed(&*self.model, &[text])?.remove(0);
                    self.seen
                        .lock()
                        .unwrap()
                        .insert((*text).to_owned(), v.clone());
                    v
                }
            };
            out.push(vector);
        }
        Ok(out)
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

fn hybrid(registry: &Registry, memo: &Arc<Memo>, fusion: Fusion) -> Catalog {
    let embedding = Embedding::new(memo.clone() as Arc<dyn TextEmbedder>)
        .fusion(fusion)
        .cache_dir(None);
    Catalog::with_embedding(registry, &embedding).expect("the model embeds every tool")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let root = eval::root();
    let mut dirs: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() {
        dirs.push(root.join("target/models/all-MiniLM-L6-v2"));
    }
    let registry = eval::registry();
    let sets = [
        ("development", eval::cases()),
        ("held out", eval::holdout()),
        ("test", eval::test_set()),
        ("paraphrase (blind)", eval::paraphrase()),
    ];
    let lexical = Catalog::new(&registry);
    let bm25 = eval::Bm25::new(&registry);
    let mut report = Vec::new();
    for dir in &dirs {
        report.push(run_model(dir, &registry, &sets, &lexical, &bm25));
    }
    let out = root.join("target/bench/embed.json");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(
        &out,
        serde_json::to_string_pretty(&json!({ "models": report })).unwrap(),
    )
    .unwrap();
    println!("\nresults: {}", out.display());
}

fn run_model(
    dir: &Path,
    registry: &Registry,
    sets: &[(&str, Vec<eval::Case>)],
    lexical: &Catalog,
    bm25: &eval::Bm25,
) -> serde_json::Value {
    let started = Instant::now();
    let model = Arc::new(SentenceEmbedder::load(dir).unwrap_or_else(|e| {
        panic!("{e}\n(run scripts/embed-model-env to install the test model)")
    }));
    let load = started.elapsed();
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    println!(
        "\n## {name} (loaded in {load:.0?}, {} dimensions)\n",
        model.dim()
    );

    // Cold: every tool embedded by the model, no cache.
    let memo = Arc::new(Memo {
        model: model.clone(),
        seen: Mutex::default(),
        calls: AtomicUsize::new(0),
    });
    let started = Instant::now();
    let dense_only = hybrid(registry, &memo, Fusion::Weighted { dense: 1.0 });
    let cold = started.elapsed();
    let tools_per_s = registry.len() as f64 / cold.as_secs_f64();
    println!(
        "cold index: {} tools embedded in {cold:.2?} ({tools_per_s:.1} tools/s)",
        registry.len()
    );

    // The weight, chosen on the development set alone.
    let development = &sets[0].1;
    let mut sweep = Vec::new();
    for step in 0..=20 {
        let w = step as f32 / 20.0;
        let catalog = hybrid(registry, &memo, Fusion::Weighted { dense: w });
        let m = eval::evaluate(development, |q| ranked(&catalog, q));
        sweep.push((w, m));
    }
    let (weight, _) = sweep
        .iter()
        .copied()
        .max_by(|a, b| {
            (a.1.recall_5, a.1.mrr)
                .partial_cmp(&(b.1.recall_5, b.1.mrr))
                .unwrap()
        })
        .unwrap();
    println!(
        "dense weight chosen on the development set: {weight:.2} (sweep: {})",
        sweep
            .iter()
            .map(|(w, m)| format!("{w:.2}→{:.3}", m.recall_5))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let chosen = hybrid(registry, &memo, Fusion::Weighted { dense: weight });
    let rrf = hybrid(registry, &memo, Fusion::Rrf { k: 60.0 });

    println!("\n| set | queries | ranker | recall@1 | recall@5 | MRR@10 |");
    println!("|---|---:|---|---:|---:|---:|");
    let mut rows = Vec::new();
    for (set, cases) in sets {
        let rankers: [(&str, Ranker); 5] = [
            ("BM25", Box::new(|q: &str| bm25.search(q, 10))),
            ("lexical catalog", Box::new(|q: &str| ranked(lexical, q))),
            ("dense alone", Box::new(|q: &str| ranked(&dense_only, q))),
            ("hybrid, RRF k=60", Box::new(|q: &str| ranked(&rrf, q))),
            ("hybrid, weighted", Box::new(|q: &str| ranked(&chosen, q))),
        ];
        for (ranker, rank) in rankers {
            let m = eval::evaluate(cases, rank);
            println!(
                "| {set} | {} | {ranker} | {:.3} | {:.3} | {:.3} |",
                cases.len(),
                m.recall_1,
                m.recall_5,
                m.mrr
            );
            rows.push(json!({
                "set": set, "queries": cases.len(), "ranker": ranker,
                "recall_1": m.recall_1, "recall_5": m.recall_5, "mrr": m.mrr,
            }));
        }
    }

    // A hybrid query as a server answers it: the query embedded by the model, then fused.
    let live = Embedding::new(model.clone() as Arc<dyn TextEmbedder>)
        .fusion(Fusion::Weighted { dense: weight })
        .cache_dir(None);
    let live = Catalog::with_embedding(registry, &live).unwrap();
    let mut times: Vec<Duration> = sets[2]
        .1
        .iter()
        .map(|case| {
            let started = Instant::now();
            let found = live.search(&case.query, &SearchOptions::limit(5));
            let took = started.elapsed();
            assert!(!found.is_empty());
            took
        })
        .collect();
    times.sort();
    let (median, p95) = (percentile(&times, 0.5), percentile(&times, 0.95));
    println!(
        "\nhybrid query ({} tools, {} queries; tokenise, embed, fuse): median {median:.2?}, p95 {p95:.2?}",
        registry.len(),
        times.len()
    );
    let per_tool = (live.heap_bytes() - lexical.heap_bytes()) as f64 / registry.len() as f64;
    println!("memory per tool for its vector and text: {per_tool:.0} B");

    // Warm cache at 10,000 tools: the cache file holds a vector for each tool's text, so
    // building the index reads them and embeds nothing. The vectors are pseudo-random unit
    // vectors of the model's length (embedding 10,000 texts would take minutes; reading
    // them does not depend on their values).
    let (synthetic, _) = eval::synthetic(10_000);
    let dir = std::env::temp_dir().join(format!("tool-embed-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let mut cache = VectorCache::open(&dir, model.model_id()).unwrap();
        let mut rng = fastrand::Rng::with_seed(11);
        let records: Vec<(String, Vec<f32>)> = synthetic
            .tools()
            .iter()
            .map(|tool| {
                let v: Vec<f32> = (0..model.dim()).map(|_| rng.f32() - 0.5).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                (tool_text(tool), v.into_iter().map(|x| x / norm).collect())
            })
            .collect();
        cache.append(&records).unwrap();
    }
    let counting = Arc::new(Memo {
        model: model.clone(),
        seen: Mutex::default(),
        calls: AtomicUsize::new(0),
    });
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

    json!({
        "model": name,
        "model_id": model.model_id(),
        "dim": model.dim(),
        "load_ms": load.as_secs_f64() * 1e3,
        "cold_tools_per_s": tools_per_s,
        "weight": weight,
        "sweep": sweep.iter().map(|(w, m)| json!({"dense": w, "recall_5": m.recall_5, "mrr": m.mrr})).collect::<Vec<_>>(),
        "rows": rows,
        "query_median_ms": median.as_secs_f64() * 1e3,
        "query_p95_ms": p95.as_secs_f64() * 1e3,
        "bytes_per_tool": per_tool,
        "warm_index_10k_ms": warm_median.as_secs_f64() * 1e3,
        "lexical_index_10k_ms": lexical_10k.as_secs_f64() * 1e3,
    })
}
