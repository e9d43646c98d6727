//! What a model costs: load time, memory, and per-query latency.
//!
//! `cargo run -p tool-embed --example cost [MODEL_DIR]` (default:
//! `target/models/all-MiniLM-L6-v2`, from `scripts/embed-model-env`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tool_embed::SentenceEmbedder;

#[path = "../benches/support/memory.rs"]
mod memory;
use memory::memory_mib;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/models/all-MiniLM-L6-v2"),
        PathBuf::from,
    );
    let start = Instant::now();
    let embedder = SentenceEmbedder::load(&dir)?;
    let load = start.elapsed();
    let (rss, peak) = memory_mib();
    println!("load: {load:.0?}; resident {rss:.0} MiB, peak {peak:.0} MiB");
    println!("{embedder:?}");

    let queries = [
        "How do I reset my password?",
        "list the files in a directory sorted by size",
        "what is the weather in Paris tomorrow",
        "send an email to the team about the release",
    ];
    embedder.embed_one(queries[0])?; // warm-up
    let mut times: Vec<Duration> = (0..50)
        .map(|i| {
            let start = Instant::now();
            embedder
                .embed_one(queries[i % queries.len()])
                .map(|_| start.elapsed())
        })
        .collect::<Result<_, _>>()?;
    times.sort();
    println!(
        "one query (8-12 tokens): median {:.1?}, p95 {:.1?}",
        times[times.len() / 2],
        times[times.len() * 95 / 100]
    );

    let docs: Vec<String> = (0..64)
        .map(|i| format!("Tool number {i}: reads a file from the workspace, returns its lines with numbers, and fails with a clear message when the path is outside the allowed roots or the file is not text."))
        .collect();
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let start = Instant::now();
    embedder.embed(&refs)?;
    let batched = start.elapsed();
    let start = Instant::now();
    for d in &refs {
        embedder.embed_one(d)?;
    }
    let single = start.elapsed();
    println!(
        "64 descriptions (~40 tokens): batched {batched:.2?} ({:.1?} each), one at a time {single:.2?}",
        batched / 64
    );
    Ok(())
}
