//! tool-embed's vectors against independent implementations, for both models
//! `scripts/embed-model-env` installs: a numpy forward pass (`tests/reference.py`) over the same
//! weights, the cosines measured with sentence-transformers (all-MiniLM-L6-v2), and the vector
//! Hugging Face's text-embeddings-inference publishes for all-mpnet-base-v2. Needs the models in
//! `target/models/` and the venv of `scripts/python-env`; without them the tests fail, saying
//! which script to run.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use proptest::prelude::*;
use tool_catalog::{Fusion, TextEmbedder};
use tool_embed::{Pooling, SentenceEmbedder, dot, known_model};

const MINILM: &str = "all-MiniLM-L6-v2";
const MPNET: &str = "all-mpnet-base-v2";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tool-embed sits in the workspace")
        .to_owned()
}

fn model_dir(name: &str) -> PathBuf {
    workspace().join("target/models").join(name)
}

fn load(name: &str) -> SentenceEmbedder {
    let dir = model_dir(name);
    assert!(
        dir.join("model.safetensors").is_file(),
        "{} has no model: run scripts/embed-model-env {name} (scripts/test does)",
        dir.display()
    );
    SentenceEmbedder::load(&dir).unwrap_or_else(|e| panic!("loading {}: {e}", dir.display()))
}

/// Each model, loaded once for every test of this file.
fn embedder(name: &str) -> &'static SentenceEmbedder {
    static MODELS: [(&str, OnceLock<SentenceEmbedder>); 2] =
        [(MINILM, OnceLock::new()), (MPNET, OnceLock::new())];
    let (_, cell) = MODELS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a model of this file");
    cell.get_or_init(|| load(name))
}

fn assert_configured(name: &str, dim: usize, max_seq_length: usize) {
    let e = embedder(name);
    assert_eq!(e.dim(), dim);
    assert_eq!(e.pooling(), Pooling::Mean);
    assert!(e.normalizes());
    assert_eq!(
        e.max_seq_length(),
        max_seq_length,
        "sentence_bert_config.json, not the tokenizer's 128"
    );
    assert_eq!(e.model_id().len(), 64);
    assert!(e.model_id().bytes().all(|b| b.is_ascii_hexdigit()));
    // The files the script unpacks are the ones the settings were measured with.
    let known = e.known().unwrap_or_else(|| {
        panic!(
            "{name}'s model id {} is not in KNOWN_MODELS: did scripts/embed-model-env's pins \
             change? Measure the model again (docs/catalog.md) and update tool-embed/src/known.rs",
            e.model_id()
        )
    });
    assert_eq!(known.name, name);
    assert_eq!(known_model(e.model_id()), Some(known));
    assert_eq!(e.fusion(), known.fusion);
    assert_eq!(
        TextEmbedder::fusion(e),
        known.fusion,
        "what Embedding::new takes"
    );
}

#[test]
fn minilm_is_configured_as_its_files_say() {
    assert_configured(MINILM, 384, 256);
    // Stable: the same files, the same id.
    let again = load(MINILM);
    assert_eq!(again.model_id(), embedder(MINILM).model_id());
}

#[test]
fn mpnet_is_configured_as_its_files_say() {
    assert_configured(MPNET, 768, 384);
    assert_ne!(embedder(MPNET).model_id(), embedder(MINILM).model_id());
}

/// The values the notes record from sentence-transformers.
#[test]
fn minilm_cosines_match_sentence_transformers() {
    let e = embedder(MINILM);
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
    // ~600 word pieces: past the tokenizer.json's 128 and both models' max_seq_length.
    (0..90)
        .map(|i| format!("Sentence number {i} talks about tools, agents and vectors."))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The numpy forward pass's vectors, and each text's token count.
fn reference(name: &str, texts: &[String]) -> Vec<(usize, Vec<f64>)> {
    let python = workspace().join("target/py-venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run scripts/python-env (scripts/test does)",
        python.display()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .arg(model_dir(name))
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

/// The largest difference between two vectors, element by element.
fn worst(got: &[f32], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    got.iter()
        .zip(want)
        .map(|(g, w)| (f64::from(*g) - w).abs())
        .fold(0.0, f64::max)
}

fn assert_matches_numpy(name: &str) {
    let e = embedder(name);
    let texts: Vec<String> = vec![
        "hi".into(),
        "How do I reset my password?".into(),
        long_text(),
        "Wait... what?! (Really) -- yes: 100% [sure]; #tags & @names, \"quoted\".".into(),
        "Ünïcödé: café, naïve, 東京の天気は晴れ, Привет мир, emoji 🚀🔥".into(),
        // MPNet's padding token inside a text: its position id is the padding index, as in
        // transformers (for BERT, only characters).
        "a <pad> inside the text".into(),
        "".into(),
    ];
    let expected = reference(name, &texts);
    assert_eq!(
        expected[2].0,
        e.max_seq_length(),
        "the long text is cut at max_seq_length"
    );
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // Batched (padded and masked) and one at a time give the same vectors.
    let batched = e.embed(&refs).expect("batch");
    for (i, (text, (_, want))) in texts.iter().zip(&expected).enumerate() {
        let single = e.embed_one(text).expect("one");
        for (how, got) in [("batched", &batched[i]), ("single", &single)] {
            let worst = worst(got, want);
            assert!(
                worst < 1e-4,
                "{name}, text {i} ({how}): off by {worst} from the numpy reference"
            );
        }
    }
}

#[test]
fn minilm_vectors_match_a_numpy_forward_pass() {
    assert_matches_numpy(MINILM);
}

#[test]
fn mpnet_vectors_match_a_numpy_forward_pass() {
    assert_matches_numpy(MPNET);
}

/// The vector text-embeddings-inference publishes for this checkpoint
/// (`tests/data/mpnet-tei-reference.json`, which names its source). It was computed with the
/// tanh approximation of GELU, so it is compared with the model run so (a copy of the
/// directory whose config.json says `gelu_new`); the model as shipped (exact GELU) differs
/// from it by a few 1e-4.
#[test]
fn mpnet_matches_the_vector_text_embeddings_inference_publishes() {
    let published: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mpnet-tei-reference.json"),
        )
        .expect("the published vector"),
    )
    .expect("JSON");
    let mut want: Vec<f64> = published["pooled"]
        .as_array()
        .expect("pooled")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect();
    let norm = want.iter().map(|x| x * x).sum::<f64>().sqrt();
    want.iter_mut().for_each(|x| *x /= norm);
    let text = published["text"].as_str().expect("text");

    let shipped = embedder(MPNET).embed_one(text).expect("embeds");
    let off = worst(&shipped, &want);
    assert!(off < 1e-3, "exact GELU: off by {off}");

    let dir = tempfile::tempdir().expect("temp dir");
    let source = model_dir(MPNET);
    for entry in std::fs::read_dir(&source).expect("the model directory") {
        let entry = entry.expect("an entry");
        if entry.file_name() != "config.json" {
            std::os::unix::fs::symlink(entry.path(), dir.path().join(entry.file_name()))
                .expect("symlink");
        }
    }
    let mut config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(source.join("config.json")).expect("config"))
            .expect("JSON");
    config["hidden_act"] = "gelu_new".into();
    std::fs::write(dir.path().join("config.json"), config.to_string()).expect("write config");
    let tanh = SentenceEmbedder::load(dir.path()).expect("loads");
    assert!(tanh.known().is_none(), "other files, another model id");
    assert_eq!(tanh.fusion(), Fusion::default());
    let got = tanh.embed_one(text).expect("embeds");
    let off = worst(&got, &want);
    assert!(
        off < 1e-4,
        "tanh GELU: off by {off} from the published vector"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Any text, empty or far past max_seq_length, gives a finite unit vector of dim().
    #[test]
    fn any_text_embeds_to_a_finite_unit_vector(
        text in prop_oneof![
            any::<String>(),
            Just(String::new()),
            "\\PC{0,40}".prop_map(|s| s.repeat(200)),
        ],
        name in prop_oneof![Just(MINILM), Just(MPNET)],
    ) {
        let e = embedder(name);
        let v = e.embed_one(&text).expect("embeds");
        prop_assert_eq!(v.len(), e.dim());
        prop_assert!(v.iter().all(|x| x.is_finite()));
        let norm = dot(&v, &v).sqrt();
        prop_assert!((norm - 1.0).abs() < 1e-4, "norm {}", norm);
    }
}
