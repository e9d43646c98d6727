//! tool-embed's vectors against an independent implementation: a numpy BERT forward pass
//! (`tests/reference.py`) over the same weights, and the cosine values measured with
//! sentence-transformers. Needs the model that `scripts/embed-model-env` unpacks into
//! `target/models/all-MiniLM-L6-v2` and the venv of `scripts/python-env`; without them the
//! tests fail, saying which script to run.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use proptest::prelude::*;
use tool_embed::{Pooling, SentenceEmbedder, dot};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tool-embed sits in the workspace")
        .to_owned()
}

fn model_dir() -> PathBuf {
    workspace().join("target/models/all-MiniLM-L6-v2")
}

/// The model, loaded once for every test of this file.
fn embedder() -> &'static SentenceEmbedder {
    static EMBEDDER: OnceLock<SentenceEmbedder> = OnceLock::new();
    EMBEDDER.get_or_init(|| {
        let dir = model_dir();
        assert!(
            dir.join("model.safetensors").is_file(),
            "{} has no model: run scripts/embed-model-env (scripts/test does)",
            dir.display()
        );
        SentenceEmbedder::load(&dir).unwrap_or_else(|e| panic!("loading {}: {e}", dir.display()))
    })
}

#[test]
fn the_model_is_configured_as_its_files_say() {
    let e = embedder();
    assert_eq!(e.dim(), 384);
    assert_eq!(e.pooling(), Pooling::Mean);
    assert!(e.normalizes());
    assert_eq!(
        e.max_seq_length(),
        256,
        "sentence_bert_config.json, not the tokenizer's 128"
    );
    assert_eq!(e.model_id().len(), 64);
    assert!(e.model_id().bytes().all(|b| b.is_ascii_hexdigit()));
    // Stable: the same files, the same id.
    let again = SentenceEmbedder::load(&model_dir()).expect("loads twice");
    assert_eq!(again.model_id(), e.model_id());
}

/// The values the notes record from sentence-transformers.
#[test]
fn cosines_match_sentence_transformers() {
    let e = embedder();
    let q = e.embed_one("How do I reset my password?").expect("query");
    let docs = e
        .embed(&[
            "Steps to recover account access",
            "The weather is sunny today",
        ])
        .expect("docs");
    let near = dot(&q, &docs[0]);
    let far = dot(&q, &docs[1]);
    assert!((near - 0.549).abs() < 2e-3, "{near}");
    assert!((far - -0.035).abs() < 2e-3, "{far}");
}

fn long_text() -> String {
    // ~400 word pieces: past the tokenizer.json's 128 and the model's 256.
    (0..60)
        .map(|i| format!("Sentence number {i} talks about tools, agents and vectors."))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The numpy forward pass's vectors, and each text's token count.
fn reference(texts: &[String]) -> Vec<(usize, Vec<f64>)> {
    let python = workspace().join("target/py-venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run scripts/python-env (scripts/test does)",
        python.display()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .arg(model_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(serde_json::to_string(texts).expect("json").as_bytes())
        .expect("write texts");
    let out = child.wait_with_output().expect("python runs");
    assert!(
        out.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON vectors");
    value
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| {
            let tokens = v["tokens"].as_u64().expect("tokens") as usize;
            let vector = v["vector"]
                .as_array()
                .expect("vector")
                .iter()
                .map(|x| x.as_f64().expect("number"))
                .collect();
            (tokens, vector)
        })
        .collect()
}

#[test]
fn vectors_match_a_numpy_forward_pass() {
    let texts: Vec<String> = vec![
        "hi".into(),
        "How do I reset my password?".into(),
        long_text(),
        "Wait... what?! (Really) -- yes: 100% [sure]; #tags & @names, \"quoted\".".into(),
        "Ünïcödé: café, naïve, 東京の天気は晴れ, Привет мир, emoji 🚀🔥".into(),
        "".into(),
    ];
    let expected = reference(&texts);
    assert!(
        expected[2].0 == 256,
        "the long text is cut at max_seq_length: {} tokens",
        expected[2].0
    );
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // Batched (padded and masked) and one at a time give the same vectors.
    let batched = embedder().embed(&refs).expect("batch");
    for (i, (text, (_, want))) in texts.iter().zip(&expected).enumerate() {
        let single = embedder().embed_one(text).expect("one");
        for (name, got) in [("batched", &batched[i]), ("single", &single)] {
            assert_eq!(got.len(), want.len());
            let worst = got
                .iter()
                .zip(want)
                .map(|(g, w)| (f64::from(*g) - w).abs())
                .fold(0.0, f64::max);
            assert!(
                worst < 1e-4,
                "text {i} ({name}): off by {worst} from the numpy reference"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Any text, empty or far past max_seq_length, gives a finite unit vector of dim().
    #[test]
    fn any_text_embeds_to_a_finite_unit_vector(
        text in prop_oneof![
            any::<String>(),
            Just(String::new()),
            "\\PC{0,40}".prop_map(|s| s.repeat(200)),
        ],
    ) {
        let v = embedder().embed_one(&text).expect("embeds");
        prop_assert_eq!(v.len(), embedder().dim());
        prop_assert!(v.iter().all(|x| x.is_finite()));
        let norm = dot(&v, &v).sqrt();
        prop_assert!((norm - 1.0).abs() < 1e-4, "norm {}", norm);
    }
}
