//! Dense retrieval beside the lexical index: each tool's text is embedded once, by a model the
//! caller provides ([`TextEmbedder`]; `tool-embed` runs sentence-transformers models), each
//! query per search, and the two rankings are fused on their scores.
//!
//! Words are the lexical index's ceiling: a query that shares no word with the right tool
//! ("my teammate can't see the branch") finds it only by meaning. Dense scores alone rank worse
//! than the lexical ones on tool search, so they are fused, not substituted: each ranking's
//! scores are scaled to `0..=1` and summed with weights ([`Fusion::Weighted`]), or the ranks
//! are combined ([`Fusion::Rrf`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::cache::VectorCache;
use crate::Tool;

/// Turns texts into vectors: a sentence embedding model. Implemented by `tool-embed`'s
/// `SentenceEmbedder`, or by your own.
pub trait TextEmbedder: Send + Sync {
    /// Identifies the model and its settings: two embedders with the same id give the same
    /// vectors, so cached vectors are kept under it.
    fn model_id(&self) -> &str;

    /// One vector per text, in order, all of the same length.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// An embedding model failed (reading its files, or running).
#[derive(Debug, thiserror::Error)]
#[error("embedding failed: {0}")]
pub struct EmbedError(#[source] pub Box<dyn std::error::Error + Send + Sync>);

impl EmbedError {
    /// An error with a message of its own.
    pub fn msg(message: impl Into<String>) -> Self {
        Self(message.into().into())
    }
}

/// How the lexical and the dense ranking are combined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// `dense × d + (1 − dense) × l`, where `l` is a tool's lexical score divided by the best
    /// one (0 when the lexical index did not match it) and `d` its cosine similarity scaled to
    /// `0..=1` between the lowest and the highest of the search.
    Weighted {
        /// The dense ranking's weight, `0..=1`.
        dense: f32,
    },
    /// Reciprocal rank fusion: `1 / (k + lexical rank) + 1 / (k + dense rank)`.
    Rrf {
        /// The damping constant (60 in the paper that introduced it).
        k: f32,
    },
}

impl Default for Fusion {
    /// The dense weight chosen on the development set with all-MiniLM-L6-v2 (see
    /// `docs/catalog.md`, "Hybrid search").
    fn default() -> Self {
        Self::Weighted { dense: 0.35 }
    }
}

/// The text of a tool that is embedded: its name split into words, description, hint and
/// parameter names.
pub fn tool_text(tool: &Tool) -> String {
    let mut text: String = tool
        .name()
        .split('_')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut sentence = |part: &str| {
        let part = part.trim();
        if part.is_empty() {
            return;
        }
        if !text.ends_with(['.', '!', '?']) {
            text.push('.');
        }
        text.push(' ');
        text.push_str(part);
    };
    sentence(tool.description());
    if tool.hint() != tool.description() {
        sentence(tool.hint());
    }
    if let Some(props) = tool
        .input_schema()
        .get("properties")
        .and_then(|p| p.as_object())
        && !props.is_empty()
    {
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        sentence(&format!("Parameters: {}", names.join(", ")));
    }
    text
}

/// Tool vectors, kept in line with the catalog's tools.
pub(super) struct Dense {
    embedder: Arc<dyn TextEmbedder>,
    fusion: Fusion,
    cache: Option<VectorCache>,
    /// By tool name: the text embedded and its unit vector.
    vectors: HashMap<String, (String, Vec<f32>)>,
}

impl fmt::Debug for Dense {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dense")
            .field("model", &self.embedder.model_id())
            .field("fusion", &self.fusion)
            .field("tools", &self.vectors.len())
            .finish_non_exhaustive()
    }
}

impl Dense {
    pub(super) fn new(
        embedder: Arc<dyn TextEmbedder>,
        fusion: Fusion,
        cache: Option<VectorCache>,
    ) -> Self {
        Self {
            embedder,
            fusion,
            cache,
            vectors: HashMap::new(),
        }
    }

    /// Embeds the tools whose text is new or changed: from the cache when it has them, else
    /// with the model (and into the cache).
    pub(super) fn insert(&mut self, tools: &[Tool]) -> Result<(), EmbedError> {
        let mut missing: Vec<(String, String)> = Vec::new();
        for tool in tools {
            let text = tool_text(tool);
            if self
                .vectors
                .get(tool.name())
                .is_some_and(|(have, _)| *have == text)
            {
                continue;
            }
            match self.cache.as_ref().and_then(|c| c.get(&text)) {
                Some(vector) => {
                    let vector = vector.to_vec();
                    self.vectors.insert(tool.name().to_owned(), (text, vector));
                }
                None => missing.push((tool.name().to_owned(), text)),
            }
        }
        // Batches bound the memory a model's forward pass takes.
        for chunk in missing.chunks(32) {
            let texts: Vec<&str> = chunk.iter().map(|(_, t)| t.as_str()).collect();
            let vectors = self.embedder.embed(&texts)?;
            if vectors.len() != texts.len() {
                return Err(EmbedError::msg(format!(
                    "the model gave {} vectors for {} texts",
                    vectors.len(),
                    texts.len()
                )));
            }
            let mut fresh = Vec::with_capacity(chunk.len());
            for ((name, text), vector) in chunk.iter().zip(vectors) {
                let vector = unit(vector);
                fresh.push((text.clone(), vector.clone()));
                self.vectors.insert(name.clone(), (text.clone(), vector));
            }
            if let Some(cache) = &mut self.cache
                && let Err(e) = cache.append(&fresh)
            {
                tracing::warn!(error = %e, "cannot write the tool vector cache");
            }
        }
        Ok(())
    }

    pub(super) fn remove(&mut self, name: &str) {
        self.vectors.remove(name);
    }

    /// Fuses `lexical` (hits, best first, with their scores) with the dense ranking of every
    /// tool `keep` accepts; the best `limit`, best first.
    pub(super) fn fuse<'t>(
        &self,
        query: &str,
        lexical: &[(&'t Tool, f32)],
        tools: impl Iterator<Item = &'t Tool>,
        limit: usize,
    ) -> Result<Vec<(&'t Tool, f32)>, EmbedError> {
        let q = self
            .embedder
            .embed(&[query])?
            .pop()
            .map(unit)
            .ok_or_else(|| EmbedError::msg("the model gave no vector for the query"))?;
        let mut dense: Vec<(&Tool, f32)> = tools
            .filter_map(|tool| {
                let (_, v) = self.vectors.get(tool.name())?;
                Some((tool, dot(&q, v)))
            })
            .collect();
        // Each ranking's share of a tool's score, from its rank and score in that ranking.
        let best_lexical = lexical.first().map_or(0.0, |(_, s)| *s);
        let (lo, hi) = dense
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), (_, s)| {
                (lo.min(*s), hi.max(*s))
            });
        let span = if hi > lo { hi - lo } else { 1.0 };
        let (lexical_part, dense_part): (Part, Part) = match self.fusion {
            Fusion::Weighted { dense: w } => (
                Box::new(move |_, s| {
                    let l = if best_lexical > 0.0 {
                        s / best_lexical
                    } else {
                        0.0
                    };
                    (1.0 - w) * l
                }),
                Box::new(move |_, cos| w * (cos - lo) / span),
            ),
            Fusion::Rrf { k } => {
                dense.sort_by(|a, b| b.1.total_cmp(&a.1));
                (
                    Box::new(move |rank, _| 1.0 / (k + rank as f32 + 1.0)),
                    Box::new(move |rank, _| 1.0 / (k + rank as f32 + 1.0)),
                )
            }
        };
        // A tool either ranking found, the model's vector or not.
        let mut scores: HashMap<&str, (&Tool, f32)> = dense
            .iter()
            .enumerate()
            .map(|(rank, &(tool, cos))| (tool.name(), (tool, dense_part(rank, cos))))
            .collect();
        for (rank, &(tool, score)) in lexical.iter().enumerate() {
            scores.entry(tool.name()).or_insert((tool, 0.0)).1 += lexical_part(rank, score);
        }
        let mut fused: Vec<(&Tool, f32)> = scores.into_values().collect();
        fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.name().cmp(b.0.name())));
        fused.truncate(limit);
        Ok(fused)
    }

    /// How many tools have a vector.
    pub(super) fn len(&self) -> usize {
        self.vectors.len()
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.vectors
            .iter()
            .map(|(name, (text, v))| name.capacity() + text.capacity() + v.capacity() * 4)
            .sum()
    }
}

/// One ranking's share of a tool's fused score, from the tool's rank and score in it.
type Part = Box<dyn Fn(usize, f32) -> f32>;

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
