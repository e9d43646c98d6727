//! The catalog itself: the listed tools indexed by their words (and, with a model, their
//! vectors), searched and shared. Below the search tool and the session, which use it; the
//! module above (`catalog`) only re-exports.

use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};

use super::cache::{VectorCache, default_cache_dir};
use super::dense::{Dense, EmbedError, Fusion, TextEmbedder, ToolTexts, tool_texts};
use super::index::{Index, Ranking};
use tool_core::{Registry, registry::Tool};

/// A search filtered by a domain no tool is in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no domain is named `{domain}`; the domains are: {}", known.join(", "))]
pub struct UnknownDomain {
    /// The domain asked for.
    pub domain: String,
    /// The domains there are.
    pub known: Vec<String>,
}

/// How to search.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SearchOptions {
    /// How many matches at most. Default 5.
    pub limit: usize,
    /// Only tools of this domain.
    pub domain: Option<String>,
    /// Whether `core` tools may match (they are loaded already in a session). Default true.
    pub include_core: bool,
    /// Who is searching: only tools whose scopes it holds may match ([`Tool::permits`]), so a
    /// caller learns nothing of tools it may not call. Default none: every tool.
    pub caller: Option<tool_core::context::Principal>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            limit: 5,
            domain: None,
            include_core: true,
            caller: None,
        }
    }
}

impl SearchOptions {
    /// At most `limit` matches.
    pub fn limit(limit: usize) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }
}

/// One match, best first in a result list.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Match<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// Its one-sentence hint.
    pub hint: &'a str,
    /// Its domain.
    pub domain: &'a str,
    /// How well it matches (higher is better; comparable within one search only).
    pub score: f32,
}

/// How much of the lexical ranking a hybrid search fuses: its best this many hits.
const LEXICAL_POOL: usize = 50;

/// A model for hybrid search, and how to use it: see [`Catalog::with_embedding`].
#[derive(Clone)]
#[non_exhaustive]
pub struct Embedding {
    /// The model.
    pub embedder: Arc<dyn TextEmbedder>,
    /// How its ranking is fused with the lexical one.
    pub fusion: Fusion,
    /// Where tool vectors are kept between runs (`None`: not kept). Default
    /// [`default_cache_dir`].
    pub cache_dir: Option<PathBuf>,
    /// What is embedded of each tool. Default [`tool_texts`].
    pub texts: ToolTexts,
}

impl Embedding {
    /// `embedder` with the fusion it asks for ([`TextEmbedder::fusion`]) and the default
    /// cache directory.
    pub fn new(embedder: Arc<dyn TextEmbedder>) -> Self {
        Self {
            fusion: embedder.fusion(),
            embedder,
            cache_dir: default_cache_dir(),
            texts: tool_texts,
        }
    }

    /// With another fusion.
    pub fn fusion(mut self, fusion: Fusion) -> Self {
        self.fusion = fusion;
        self
    }

    /// With another cache directory, or none.
    pub fn cache_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.cache_dir = dir;
        self
    }

    /// Embedding other texts of each tool (its vector is their mean), such as one text a
    /// tool: `.texts(|tool| vec![tool_text(tool)])`.
    pub fn texts(mut self, texts: ToolTexts) -> Self {
        self.texts = texts;
        self
    }
}

impl std::fmt::Debug for Embedding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedding")
            .field("model", &self.embedder.model_id())
            .field("fusion", &self.fusion)
            .field("cache_dir", &self.cache_dir)
            .finish()
    }
}

fn matched(tool: &Tool, score: f32) -> Match<'_> {
    Match {
        name: tool.name(),
        hint: tool.hint(),
        domain: &tool.domain().name,
        score,
    }
}

/// A search index over tools: lexical, and hybrid when it has a model
/// ([`Catalog::with_embedding`]).
#[derive(Debug, Default)]
pub struct Catalog {
    index: Index,
    dense: Option<Dense>,
}

impl Catalog {
    /// A catalog of every tool of `registry`.
    pub fn new(registry: &Registry) -> Self {
        Self::with_ranking(registry, Ranking::default())
    }

    /// A catalog with parts of the ranking turned off, to measure what each is worth.
    pub fn with_ranking(registry: &Registry, ranking: Ranking) -> Self {
        Self::of_tools(registry.tools(), ranking)
    }

    fn of_tools(tools: &[Tool], ranking: Ranking) -> Self {
        let mut catalog = Self {
            index: Index::with_ranking(ranking),
            dense: None,
        };
        catalog.add(tools);
        catalog
    }

    /// A hybrid catalog: the lexical index, and `embedding`'s model over every tool (the
    /// texts of [`Embedding::texts`], by default [`tool_texts`]: the name in words, the
    /// description, the hint, the parameters; the tool's vector is their mean), the two rankings
    /// fused on each search. Texts whose vectors are in the cache directory are not embedded
    /// again; the others are, now (the rate a model embeds them at is measured by
    /// `tool-embed`'s `search_quality` bench, in `docs/catalog.md`).
    ///
    /// A cache that cannot be opened is skipped (with a warning); a model that fails here is
    /// an error. Later, a tool the model fails on is found by words alone, and a query it
    /// fails on gets the lexical ranking (each with a warning).
    pub fn with_embedding(registry: &Registry, embedding: &Embedding) -> Result<Self, EmbedError> {
        Self::of_tools_embedded(registry.tools(), embedding)
    }

    fn of_tools_embedded(tools: &[Tool], embedding: &Embedding) -> Result<Self, EmbedError> {
        let cache = embedding.cache_dir.as_deref().and_then(|dir| {
            VectorCache::open(dir, embedding.embedder.model_id())
                .inspect_err(|e| tracing::warn!(error = %e, "tool vectors will not be cached"))
                .ok()
        });
        let mut dense = Dense::new(
            embedding.embedder.clone(),
            embedding.fusion,
            embedding.texts,
            cache,
        );
        dense.insert(tools)?;
        let mut catalog = Self::of_tools(tools, Ranking::default());
        catalog.dense = Some(dense);
        Ok(catalog)
    }

    /// Whether searches fuse a model's ranking with the lexical one.
    pub fn is_hybrid(&self) -> bool {
        self.dense.is_some()
    }

    /// Adds a tool, or replaces the one of the same name.
    pub fn insert(&mut self, tool: &Tool) {
        self.add(std::slice::from_ref(tool));
    }

    /// Indexes tools and recomputes the norms.
    fn add(&mut self, tools: &[Tool]) {
        self.index.insert_many(tools);
        self.index.renormalize();
        if let Some(dense) = &mut self.dense
            && let Err(e) = dense.insert(tools)
        {
            tracing::warn!(error = %e, "new tools will be found by words alone");
        }
    }

    /// Removes a tool; returns whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let removed = self.index.remove(name);
        if removed {
            self.index.renormalize();
        }
        if let Some(dense) = &mut self.dense {
            dense.remove(name);
        }
        removed
    }

    /// Brings the catalog in line with `registry`: tools gone are removed, new ones added, and
    /// tools replaced under the same name indexed anew.
    pub fn sync(&mut self, registry: &Registry) {
        let gone: Vec<Tool> = self
            .index
            .tools()
            .filter(|tool| registry.get(tool.name()).is_none())
            .cloned()
            .collect();
        for tool in gone {
            self.index.remove(tool.name());
            if let Some(dense) = &mut self.dense {
                dense.remove(tool.name());
            }
        }
        let changed: Vec<Tool> = registry
            .tools()
            .iter()
            .filter(|tool| !self.index.get(tool.name()).is_some_and(|t| t.same(tool)))
            .cloned()
            .collect();
        self.add(&changed);
    }

    /// The tools that best match `query`, best first.
    pub fn search(&self, query: &str, options: &SearchOptions) -> Vec<Match<'_>> {
        let keep = |tool: &Tool| {
            options
                .domain
                .as_deref()
                .is_none_or(|d| tool.domain().name == d)
                && (options.include_core || !tool.is_core())
                && tool.to_model()
                && tool.permits(options.caller.as_ref())
        };
        let Some(dense) = self.dense.as_ref().filter(|_| options.limit > 0) else {
            return self
                .index
                .search(query, options.limit, keep)
                .into_iter()
                .map(|hit| matched(hit.tool, hit.score))
                .collect();
        };
        let hits = self
            .index
            .search(query, LEXICAL_POOL.max(options.limit), keep);
        let coverage = hits.first().map_or(0.0, |hit| hit.coverage);
        let lexical: Vec<(&Tool, f32)> = hits.into_iter().map(|h| (h.tool, h.score)).collect();
        match dense.fuse(
            query,
            &lexical,
            coverage,
            self.index.tools().filter(|t| keep(t)),
            options.limit,
        ) {
            Ok(fused) => fused
                .into_iter()
                .map(|(tool, s)| matched(tool, s))
                .collect(),
            Err(e) => {
                tracing::warn!(error = %e, "searching by words alone");
                lexical
                    .into_iter()
                    .take(options.limit)
                    .map(|(tool, s)| matched(tool, s))
                    .collect()
            }
        }
    }

    /// The domains of the tools it holds, sorted.
    pub fn domains(&self) -> Vec<&str> {
        self.index.domains(None)
    }

    /// Checks that some tool it holds is in `domain` (before a search filtered by it).
    pub fn check_domain(&self, domain: &str) -> Result<(), UnknownDomain> {
        self.check_domain_for(domain, None)
    }

    /// [`check_domain`](Self::check_domain) for `caller`: only domains with a tool it may call
    /// ([`Tool::permits`]) are there, and only those are named, so the answer tells a caller
    /// nothing of tools its scopes hide.
    pub fn check_domain_for(
        &self,
        domain: &str,
        caller: Option<&tool_core::context::Principal>,
    ) -> Result<(), UnknownDomain> {
        let known = self.index.domains(caller);
        if known.contains(&domain) {
            return Ok(());
        }
        Err(UnknownDomain {
            domain: domain.to_owned(),
            known: known.into_iter().map(str::to_owned).collect(),
        })
    }

    /// How many tools it holds.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.index.len() == 0
    }

    /// Bytes it holds on the heap (an estimate from capacities; the tools themselves are
    /// shared with the registry).
    pub fn heap_bytes(&self) -> usize {
        self.index.heap_bytes() + self.dense.as_ref().map_or(0, Dense::heap_bytes)
    }

    /// How many tools have a model's vector (0 when it is not hybrid).
    pub fn embedded(&self) -> usize {
        self.dense.as_ref().map_or(0, Dense::len)
    }
}

/// A catalog shared between the `search_tools` tool and whoever keeps it in line with a
/// changing registry (an MCP server, an agent that mounts servers). The index is built on the
/// first search, not before: a server starts without paying for it.
#[derive(Debug, Clone, Default)]
pub struct SharedCatalog(Arc<RwLock<Shared>>);

#[derive(Debug)]
enum Shared {
    /// Not searched yet: the tools to index (definitions: a catalog runs nothing), and the
    /// model, if any.
    Pending(Vec<Tool>, Option<Embedding>),
    Built(Box<Catalog>),
}

impl Default for Shared {
    fn default() -> Self {
        Self::Built(Box::default())
    }
}

impl SharedCatalog {
    /// A shared catalog of every tool of `registry`, indexed when first read.
    pub fn new(registry: &Registry) -> Self {
        Self::with_embedding(registry, None)
    }

    /// A shared catalog that is hybrid when `embedding` is given (see
    /// [`Catalog::with_embedding`]); a model that fails when it is built leaves it lexical,
    /// with a warning.
    pub fn with_embedding(registry: &Registry, embedding: Option<Embedding>) -> Self {
        Self(Arc::new(RwLock::new(Shared::Pending(
            registry.tools().to_vec(),
            embedding,
        ))))
    }

    /// Runs `f` with the catalog (building it, the first time).
    pub fn read<R>(&self, f: impl FnOnce(&Catalog) -> R) -> R {
        {
            let shared = self.0.read().unwrap_or_else(PoisonError::into_inner);
            if let Shared::Built(catalog) = &*shared {
                return f(catalog);
            }
        }
        let mut shared = self.0.write().unwrap_or_else(PoisonError::into_inner);
        if let Shared::Pending(tools, embedding) = &*shared {
            let lexical = || Catalog::of_tools(tools, Ranking::default());
            let catalog = match embedding {
                None => lexical(),
                Some(embedding) => {
                    Catalog::of_tools_embedded(tools, embedding).unwrap_or_else(|e| {
                        tracing::warn!(error = %e, "the catalog searches by words alone");
                        lexical()
                    })
                }
            };
            *shared = Shared::Built(Box::new(catalog));
        }
        match &*shared {
            Shared::Built(catalog) => f(catalog),
            Shared::Pending(..) => f(&Catalog::default()),
        }
    }

    /// Brings it in line with `registry` (see [`Catalog::sync`]).
    pub fn sync(&self, registry: &Registry) {
        let mut shared = self.0.write().unwrap_or_else(PoisonError::into_inner);
        match &mut *shared {
            Shared::Pending(pending, _) => *pending = registry.tools().to_vec(),
            Shared::Built(catalog) => catalog.sync(registry),
        }
    }
}
