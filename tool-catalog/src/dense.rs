//! Dense retrieval beside the lexical index: each tool is embedded once, by a model the
//! caller provides ([`TextEmbedder`]; `tool-embed` runs sentence-transformers models), each
//! query per search, and the two rankings are fused on their scores.
//!
//! Words are the lexical index's ceiling: a query that shares no word with the right tool
//! ("my teammate can't see the branch") finds it only by meaning. Dense scores alone rank worse
//! than the lexical ones on worded queries, so they are fused, not substituted: each ranking's
//! scores are scaled to `0..=1` and summed with weights, the lexical share scaled by how much
//! of the query its words explain ([`Fusion::Adaptive`], the default; [`Fusion::Weighted`]
//! keeps the weights fixed), or the ranks are combined ([`Fusion::Rrf`]).
//!
//! A tool is embedded as several texts ([`tool_texts`]: its name in words, its description,
//! its hint, its parameters), and its vector is their mean: a query that matches one facet of
//! a tool still lands near it, and a search stays one dot product per tool.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use super::cache::VectorCache;
use tool_core::registry::Tool;

/// Turns texts into vectors: a sentence embedding model. Implemented by `tool-embed`'s
/// `SentenceEmbedder`, or by your own.
pub trait TextEmbedder: Send + Sync {
    /// Identifies the model and its settings: two embedders with the same id give the same
    /// vectors, so cached vectors are kept under it.
    fn model_id(&self) -> &str;

    /// One vector per text, in order, all of the same length.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;

    /// The fusion that suits this model's rankings, which
    /// [`Embedding::new`](super::Embedding::new) takes: a stronger model deserves a larger dense
    /// weight. Default [`Fusion::default`], chosen with all-MiniLM-L6-v2.
    fn fusion(&self) -> Fusion {
        Fusion::default()
    }
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
///
/// In the two weighted variants, `l` is a tool's lexical score divided by the best of the
/// search (0 when the lexical index did not match it) and `d` its cosine similarity to the
/// query scaled to `0..=1` between the lowest and the highest of the search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// `dense × d + (1 − dense) × c × l`, where `c` is the share of the query's words (all but
    /// stopwords, known to the index or not) that the best lexical hit matches.
    ///
    /// Dividing by the best score makes the best lexical hit worth 1 however poor it is: when
    /// a query shares no word with the tool it wants, the lexical ranking is a few incidental
    /// words, and fixed weights let that noise outvote the model. `c` says how much of the
    /// query the words explain: a query whose words the best hit all matches is fused as by
    /// [`Fusion::Weighted`], and the fewer it matches, the more the model decides; in effect
    /// the dense weight of a search is `dense / (dense + (1 − dense) × c)`.
    Adaptive {
        /// The dense ranking's weight when the best lexical hit matches every word, `0..=1`.
        dense: f32,
    },
    /// `dense × d + (1 − dense) × l`: the same weights for every query.
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
    /// [`Fusion::Adaptive`], its weight chosen with all-MiniLM-L6-v2 on the development and
    /// paraphrase query sets together (`docs/catalog.md`, "Hybrid search with a model"): on
    /// worded queries it ranks as well as the best fixed weight, and on queries that share no
    /// word with their tool it finds far more. A model whose weight was chosen on its own says
    /// so through [`TextEmbedder::fusion`].
    fn default() -> Self {
        Self::Adaptive {
            dense: DEFAULT_DENSE,
        }
    }
}

/// [`Fusion::default`]'s dense weight.
const DEFAULT_DENSE: f32 = 0.35;

/// What a hybrid catalog embeds of a tool, one text or several (its vector is their mean):
/// [`tool_texts`] by default, `|tool| vec![tool_text(tool)]` for one text a tool.
pub type ToolTexts = fn(&Tool) -> Vec<String>;

/// A name in words: `github__create_issue` -> `github create issue`.
fn name_words(name: &str) -> String {
    name.split(['_', '-'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The top-level properties of a tool's input schema, in order.
fn properties(tool: &Tool) -> impl Iterator<Item = (&String, &serde_json::Value)> {
    tool.input_schema()
        .get("properties")
        .and_then(|p| p.as_object())
        .into_iter()
        .flatten()
}

/// A tool as one text: its name split into words, description, hint and parameter names
/// (what a hybrid catalog embedded before [`tool_texts`]).
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
    let names: Vec<&str> = properties(tool).map(|(name, _)| name.as_str()).collect();
    if !names.is_empty() {
        sentence(&format!("Parameters: {}", names.join(", ")));
    }
    text
}

/// The texts a hybrid catalog embeds of a tool, its vector being their mean: its name in
/// words, its description, its hint (when it is not the description) and its parameters as
/// `name: description`. Empty ones are left out.
///
/// Each says one thing about the tool. In one long text ([`tool_text`]) a query that matches
/// only the name, or only what a parameter is for, is diluted by the rest; as the mean of the
/// parts, it still lands near the tool.
///
/// ```
/// use serde_json::json;
/// use tool_catalog::tool_texts;
/// use tool_core::{registry::DynamicTool, Registry};
/// let schema = json!({"type": "object", "properties": {
///     "city_name": {"type": "string", "description": "Where."}, "days": {"type": "integer"}}});
/// let mut registry = Registry::empty();
/// registry.register(DynamicTool::new("weather__get_forecast", "Tomorrow's weather.", schema))?;
/// let texts = tool_texts(registry.get("weather__get_forecast").unwrap());
/// assert_eq!(texts, ["weather get forecast", "Tomorrow's weather.", "city name: Where. days"]);
/// # Ok::<(), tool_core::registry::RegistryError>(())
/// ```
pub fn tool_texts(tool: &Tool) -> Vec<String> {
    let mut params = String::new();
    for (name, schema) in properties(tool) {
        if !params.is_empty() {
            if !params.ends_with(['.', '!', '?']) {
                params.push('.');
            }
            params.push(' ');
        }
        params.push_str(&name_words(name));
        if let Some(d) = schema.get("description").and_then(|d| d.as_str())
            && !d.trim().is_empty()
        {
            params.push_str(": ");
            params.push_str(d.trim());
        }
    }
    let description = tool.description().trim();
    let hint = tool.hint().trim();
    [
        name_words(tool.name()),
        description.to_owned(),
        if hint == description {
            String::new()
        } else {
            hint.to_owned()
        },
        params,
    ]
    .into_iter()
    .filter(|t| !t.is_empty())
    .collect()
}

/// Tool vectors, kept in line with the catalog's tools.
pub(super) struct Dense {
    embedder: Arc<dyn TextEmbedder>,
    fusion: Fusion,
    texts: ToolTexts,
    cache: Option<VectorCache>,
    /// By tool name: the texts embedded and the unit mean of their vectors.
    vectors: HashMap<String, (Vec<String>, Vec<f32>)>,
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
        texts: ToolTexts,
        cache: Option<VectorCache>,
    ) -> Self {
        Self {
            embedder,
            fusion,
            texts,
            cache,
            vectors: HashMap::new(),
        }
    }

    /// Embeds the tools whose texts are new or changed: each text from the cache when it has
    /// it, else with the model (and into the cache). A tool with no text gets no vector.
    pub(super) fn insert(&mut self, tools: &[Tool]) -> Result<(), EmbedError> {
        let mut changed: Vec<(&str, Vec<String>)> = Vec::new();
        for tool in tools {
            let texts = (self.texts)(tool);
            if self
                .vectors
                .get(tool.name())
                .is_some_and(|(have, _)| *have == texts)
            {
                continue;
            }
            changed.push((tool.name(), texts));
        }
        // Each distinct text once: tools share texts (a parameter, a name). Cached vectors are
        // read where they lie, not copied: a warm start of 10,000 tools reads some 40,000.
        let mut missing: Vec<&str> = Vec::new();
        let mut listed: HashSet<&str> = HashSet::new();
        for text in changed.iter().flat_map(|(_, texts)| texts) {
            let cached = self.cache.as_ref().is_some_and(|c| c.get(text).is_some());
            if !cached && listed.insert(text) {
                missing.push(text);
            }
        }
        // Batches bound the memory a model's forward pass takes; texts of about one length go
        // together, as a model pads a batch to its longest.
        missing.sort_by_key(|t| t.len());
        let mut fresh: HashMap<&str, Vec<f32>> = HashMap::new();
        for chunk in missing.chunks(32) {
            let vectors = self.embedder.embed(chunk)?;
            if vectors.len() != chunk.len() {
                return Err(EmbedError::msg(format!(
                    "the model gave {} vectors for {} texts",
                    vectors.len(),
                    chunk.len()
                )));
            }
            let mut records = Vec::with_capacity(chunk.len());
            for (&text, vector) in chunk.iter().zip(vectors) {
                let vector = unit(vector);
                records.push((text.to_owned(), vector.clone()));
                fresh.insert(text, vector);
            }
            // Written chunk by chunk: a cold start cut short keeps what it embedded.
            if let Some(cache) = &mut self.cache
                && let Err(e) = cache.append(&records)
            {
                tracing::warn!(error = %e, "cannot write the tool vector cache");
            }
        }
        let cache = self.cache.as_ref();
        let means: Vec<Option<Vec<f32>>> = changed
            .iter()
            .map(|(_, texts)| {
                let vectors: Vec<&[f32]> = texts
                    .iter()
                    .filter_map(|t| {
                        fresh
                            .get(t.as_str())
                            .map(Vec::as_slice)
                            .or_else(|| cache.and_then(|c| c.get(t)))
                    })
                    .collect();
                mean(&vectors)
            })
            .collect::<Result<_, _>>()?;
        drop(fresh);
        for ((name, texts), vector) in changed.into_iter().zip(means) {
            match vector {
                Some(vector) => {
                    self.vectors.insert(name.to_owned(), (texts, unit(vector)));
                }
                None => {
                    self.vectors.remove(name);
                }
            }
        }
        Ok(())
    }

    pub(super) fn remove(&mut self, name: &str) {
        self.vectors.remove(name);
    }

    /// Fuses `lexical` (hits, best first, with their scores; `coverage` the share of the
    /// query's words the first matches) with the dense ranking of `tools`; the best `limit`,
    /// best first.
    pub(super) fn fuse<'t>(
        &self,
        query: &str,
        lexical: &[(&'t Tool, f32)],
        coverage: f32,
        tools: impl Iterator<Item = &'t Tool>,
        limit: usize,
    ) -> Result<Vec<(&'t Tool, f32)>, EmbedError> {
        let q = self
            .embedder
            .embed(&[query])?
            .pop()
            .map(unit)
            .ok_or_else(|| EmbedError::msg("the model gave no vector for the query"))?;
        let dense: Vec<(&Tool, f32)> = tools
            .filter_map(|tool| {
                let (_, v) = self.vectors.get(tool.name())?;
                Some((tool, dot(&q, v)))
            })
            .collect();
        Ok(fuse(self.fusion, lexical, coverage, dense, limit))
    }

    /// How many tools have a vector.
    pub(super) fn len(&self) -> usize {
        self.vectors.len()
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.vectors
            .iter()
            .map(|(name, (texts, v))| {
                name.capacity()
                    + texts.capacity() * size_of::<String>()
                    + texts.iter().map(String::capacity).sum::<usize>()
                    + v.capacity() * 4
            })
            .sum()
    }
}

/// Fuses a lexical ranking (best first, with scores; `coverage` as in [`Fusion::Adaptive`])
/// with dense scores (cosines, in any order): the best `limit`, best first, ties by name.
fn fuse<'t>(
    fusion: Fusion,
    lexical: &[(&'t Tool, f32)],
    coverage: f32,
    mut dense: Vec<(&'t Tool, f32)>,
    limit: usize,
) -> Vec<(&'t Tool, f32)> {
    // Each ranking's share of a tool's score, from its rank and score in that ranking.
    let best_lexical = lexical.first().map_or(0.0, |(_, s)| *s);
    let (lo, hi) = dense
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), (_, s)| {
            (lo.min(*s), hi.max(*s))
        });
    let span = if hi > lo { hi - lo } else { 1.0 };
    let weighted = |w: f32, lexical_scale: f32| -> (Part, Part) {
        (
            Box::new(move |_, s| {
                let l = if best_lexical > 0.0 {
                    s / best_lexical
                } else {
                    0.0
                };
                (1.0 - w) * lexical_scale * l
            }),
            Box::new(move |_, cos| w * (cos - lo) / span),
        )
    };
    let (lexical_part, dense_part): (Part, Part) = match fusion {
        Fusion::Adaptive { dense: w } => weighted(w, coverage.clamp(0.0, 1.0)),
        Fusion::Weighted { dense: w } => weighted(w, 1.0),
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
    fused
}

/// One ranking's share of a tool's fused score, from the tool's rank and score in it.
type Part = Box<dyn Fn(usize, f32) -> f32>;

/// The mean of vectors of one length; `None` for none.
fn mean(vectors: &[&[f32]]) -> Result<Option<Vec<f32>>, EmbedError> {
    let Some(first) = vectors.first() else {
        return Ok(None);
    };
    let mut sum = vec![0.0; first.len()];
    for v in vectors {
        if v.len() != sum.len() {
            return Err(EmbedError::msg(format!(
                "the model gave vectors of {} and {} dimensions",
                sum.len(),
                v.len()
            )));
        }
        sum.iter_mut().zip(*v).for_each(|(s, x)| *s += x);
    }
    let n = vectors.len() as f32;
    sum.iter_mut().for_each(|s| *s /= n);
    Ok(Some(sum))
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// The dot product of two vectors: their cosine similarity when both are unit vectors, as a
/// normalising [`TextEmbedder`]'s are (a hybrid catalog scales every vector to unit length
/// itself).
///
/// ```
/// use tool_catalog::dot;
/// assert_eq!(dot(&[0.6, 0.8], &[0.6, 0.8]), 1.0);
/// assert_eq!(dot(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
/// ```
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use proptest::prelude::*;
    use tool_core::{Registry, registry::DynamicTool};

    fn tools(n: usize) -> Vec<Tool> {
        let mut registry = Registry::empty();
        for i in 0..n {
            registry
                .register(DynamicTool::new(
                    format!("tool_{i}"),
                    format!("Does thing {i}."),
                    serde_json::json!({"type": "object"}),
                ))
                .unwrap();
        }
        registry.tools().to_vec()
    }

    fn names(fused: &[(&Tool, f32)]) -> Vec<String> {
        fused.iter().map(|(t, _)| t.name().to_owned()).collect()
    }

    #[test]
    fn the_less_of_the_query_the_words_explain_the_more_the_model_decides() {
        let tools = tools(3);
        // The lexical index likes tool_0 best, the model tool_1.
        let lexical = [(&tools[0], 4.0), (&tools[2], 1.0)];
        let dense = || vec![(&tools[0], 0.2), (&tools[1], 0.6), (&tools[2], 0.1)];
        let adaptive = Fusion::Adaptive { dense: 0.45 };
        let all = fuse(adaptive, &lexical, 1.0, dense(), 3);
        assert_eq!(names(&all), ["tool_0", "tool_1", "tool_2"]);
        // Fused as by fixed weights when the best hit matches every word.
        let fixed = fuse(Fusion::Weighted { dense: 0.45 }, &lexical, 1.0, dense(), 3);
        let scores = |f: &[(&Tool, f32)]| -> Vec<(String, f32)> {
            f.iter().map(|(t, s)| (t.name().to_owned(), *s)).collect()
        };
        assert_eq!(scores(&all), scores(&fixed));
        // A fifth of the query matched: the model's choice comes first.
        let little = fuse(adaptive, &lexical, 0.2, dense(), 3);
        assert_eq!(names(&little)[0], "tool_1");
        // Nothing matched: the model's ranking alone.
        let none = fuse(adaptive, &lexical, 0.0, dense(), 3);
        assert_eq!(names(&none), ["tool_1", "tool_0", "tool_2"]);
    }

    #[test]
    fn a_tool_only_the_lexical_index_found_is_ranked_too() {
        let tools = tools(3);
        let lexical = [(&tools[2], 2.0)];
        let dense = vec![(&tools[0], 0.9), (&tools[1], 0.1)];
        for fusion in [
            Fusion::default(),
            Fusion::Weighted { dense: 0.35 },
            Fusion::Rrf { k: 60.0 },
        ] {
            let fused = fuse(fusion, &lexical, 1.0, dense.clone(), 5);
            assert_eq!(fused.len(), 3, "{fusion:?}");
            assert!(names(&fused).contains(&"tool_2".to_owned()), "{fusion:?}");
        }
    }

    #[test]
    fn the_mean_of_no_vectors_is_none_and_of_mixed_lengths_an_error() {
        assert_eq!(mean(&[]).unwrap(), None);
        assert_eq!(
            mean(&[&[1.0, 0.0], &[0.0, 1.0]]).unwrap(),
            Some(vec![0.5, 0.5])
        );
        let error = mean(&[&[1.0, 0.0], &[1.0]]).unwrap_err();
        assert!(error.to_string().contains("2 and 1 dimensions"), "{error}");
    }

    /// Gives each text a vector from its words' lengths, and counts the texts it embeds.
    #[derive(Default)]
    struct Lengths(Mutex<Vec<String>>);

    impl TextEmbedder for Lengths {
        fn model_id(&self) -> &str {
            "lengths"
        }

        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            let mut seen = self.0.lock().unwrap();
            seen.extend(texts.iter().map(|t| t.to_string()));
            Ok(texts
                .iter()
                .map(|t| vec![t.len() as f32, t.split(' ').count() as f32])
                .collect())
        }
    }

    #[test]
    fn a_tools_vector_is_the_mean_of_its_texts_each_embedded_once() {
        let model = Arc::new(Lengths::default());
        let shared: ToolTexts = |tool| vec![tool.name().to_owned(), "shared".to_owned()];
        let mut dense = Dense::new(model.clone(), Fusion::default(), shared, None);
        let tools = tools(2);
        dense.insert(&tools).unwrap();
        let mut embedded = model.0.lock().unwrap().clone();
        embedded.sort();
        assert_eq!(embedded, ["shared", "tool_0", "tool_1"]);
        let (texts, vector) = &dense.vectors["tool_0"];
        assert_eq!(texts, &["tool_0", "shared"]);
        let want = unit(
            mean(&[&unit(vec![6.0, 1.0]), &unit(vec![6.0, 1.0])])
                .unwrap()
                .unwrap(),
        );
        // "tool_0" and "shared" have the same length and word count.
        assert_eq!(vector, &want);
        // Unchanged tools are not embedded again.
        dense.insert(&tools).unwrap();
        assert_eq!(model.0.lock().unwrap().len(), 3);
    }

    #[test]
    fn a_tool_without_texts_gets_no_vector() {
        let model = Arc::new(Lengths::default());
        let mut dense = Dense::new(model.clone(), Fusion::default(), |_| Vec::new(), None);
        dense.insert(&tools(2)).unwrap();
        assert_eq!(dense.len(), 0);
        assert!(model.0.lock().unwrap().is_empty());
    }

    proptest! {
        /// The adaptive fusion is the weighted one with the weight its docs give: the same
        /// scores, up to a factor the same for every tool of a search.
        #[test]
        fn adaptive_fusion_is_weighted_fusion_with_a_per_search_weight(
            w in 0.05f32..0.95,
            coverage in 0.0f32..=1.0,
            lexical_scores in proptest::collection::vec(0.01f32..20.0, 0..6),
            cosines in proptest::collection::vec(-1.0f32..1.0, 6),
        ) {
            let tools = tools(6);
            let mut lexical_scores = lexical_scores;
            lexical_scores.sort_by(|a, b| b.total_cmp(a));
            let lexical: Vec<(&Tool, f32)> = tools.iter().zip(lexical_scores).collect();
            let dense: Vec<(&Tool, f32)> = tools.iter().zip(cosines).collect();
            let adaptive = fuse(Fusion::Adaptive { dense: w }, &lexical, coverage, dense.clone(), 6);
            let scale = w + (1.0 - w) * coverage;
            let weighted = fuse(Fusion::Weighted { dense: w / scale }, &lexical, 1.0, dense, 6);
            let by_name: HashMap<&str, f32> =
                weighted.iter().map(|(t, s)| (t.name(), *s)).collect();
            prop_assert_eq!(adaptive.len(), weighted.len());
            for (tool, score) in adaptive {
                prop_assert!((score - by_name[tool.name()] * scale).abs() < 1e-4);
            }
        }

        #[test]
        fn tool_texts_are_never_empty_and_start_with_the_name(
            name in "[a-z]{1,8}(_[a-z]{1,8}){0,3}",
            description in "[ a-zA-Z.]{0,40}",
            params in proptest::collection::vec("[a-z][a-z_]{0,9}", 0..4),
        ) {
            let properties: serde_json::Map<String, serde_json::Value> = params
                .iter()
                .map(|p| (p.clone(), serde_json::json!({"type": "string"})))
                .collect();
            let mut registry = Registry::empty();
            registry
                .register(DynamicTool::new(
                    name.clone(),
                    description,
                    serde_json::json!({"type": "object", "properties": properties}),
                ))
                .unwrap();
            let tool = &registry.tools()[0];
            let texts = tool_texts(tool);
            prop_assert_eq!(&texts[0], &name.replace('_', " "));
            prop_assert!(texts.iter().all(|t| !t.is_empty()));
            prop_assert_eq!(texts.len(), 1 + usize::from(!tool.description().trim().is_empty())
                + usize::from(!params.is_empty()));
        }
    }
}
