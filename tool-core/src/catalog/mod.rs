//! The catalog: find the right deferred tool among thousands, so a request carries only a few
//! definitions.
//!
//! `core` tools are offered on every round; the others are deferred, and a model finds them
//! with the built-in `search_tools` tool, whose matches a [`ToolSession`] then loads. The index
//! covers each tool's name (split into words), label, hint, description, parameters, domain and
//! example labels, ranked with BM25F (per-field weights), English stemming, synonyms and
//! abbreviations people use (`PR`, `k8s`, `repo`), neighbouring query words joined (`data
//! source`), what a token's shape says (a URL, a path, `#channel`, `$20`), and a bonus for
//! matching more of the query. It is in-process, offline and incremental.
//!
//! The word lists it reads (stopwords, synonyms, abbreviations, British `-ise` roots, file
//! extensions and the words of token shapes) are data, not code: text files in
//! `tool-core/src/catalog/data/`, each opening with where its words came from, compiled into
//! the binary. `lexicon.rs` beside them gives their format and how to change them.
//!
//! ```
//! use serde_json::json;
//! use tool_core::catalog::{Catalog, SearchOptions};
//! use tool_core::{DynamicTool, Registry};
//! let mut registry = Registry::empty();
//! for (name, description) in [
//!     ("create_pull_request", "Opens a pull request from a branch."),
//!     ("list_issues", "Lists the issues of a repository."),
//! ] {
//!     registry.register(DynamicTool::new(name, description, json!({"type": "object"}))).unwrap();
//! }
//! let catalog = Catalog::new(&registry);
//! let found = catalog.search("open a PR for my branch", &SearchOptions::default());
//! assert_eq!(found[0].name, "create_pull_request");
//! ```

mod index;
mod lexicon;
mod search_tool;
mod session;
mod text;

use std::sync::{Arc, PoisonError, RwLock};

use index::Index;
pub use index::Ranking;
pub use search_tool::{SEARCH_TOOLS, install};
pub use session::{Deferral, ToolSession};
pub use text::{terms, words};

use crate::{Registry, Tool};

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
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchOptions {
    /// How many matches at most. Default 5.
    pub limit: usize,
    /// Only tools of this domain.
    pub domain: Option<String>,
    /// Whether `core` tools may match (they are loaded already in a session). Default true.
    pub include_core: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            limit: 5,
            domain: None,
            include_core: true,
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

/// A search index over tools.
#[derive(Debug, Default)]
pub struct Catalog {
    index: Index,
}

impl Catalog {
    /// A catalog of every tool of `registry`.
    pub fn new(registry: &Registry) -> Self {
        Self::with_ranking(registry, Ranking::default())
    }

    /// A catalog with parts of the ranking turned off, to measure what each is worth.
    pub fn with_ranking(registry: &Registry, ranking: Ranking) -> Self {
        let mut catalog = Self {
            index: Index::with_ranking(ranking),
        };
        catalog.add(registry.tools());
        catalog
    }

    /// Adds a tool, or replaces the one of the same name.
    pub fn insert(&mut self, tool: &Tool) {
        self.add(std::slice::from_ref(tool));
    }

    /// Indexes tools and recomputes the norms.
    fn add(&mut self, tools: &[Tool]) {
        self.index.insert_many(tools);
        self.index.renormalize();
    }

    /// Removes a tool; returns whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let removed = self.index.remove(name);
        if removed {
            self.index.renormalize();
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
        };
        self.index
            .search(query, options.limit, keep)
            .into_iter()
            .map(|hit| Match {
                name: hit.tool.name(),
                hint: hit.tool.hint(),
                domain: &hit.tool.domain().name,
                score: hit.score,
            })
            .collect()
    }

    /// The domains of the tools it holds, sorted.
    pub fn domains(&self) -> Vec<&str> {
        self.index.domains()
    }

    /// Checks that some tool it holds is in `domain` (before a search filtered by it).
    pub fn check_domain(&self, domain: &str) -> Result<(), UnknownDomain> {
        let known = self.domains();
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
        self.index.heap_bytes()
    }
}

/// A catalog shared between the `search_tools` tool and whoever keeps it in line with a
/// changing registry (an MCP server, an agent that mounts servers). The index is built on the
/// first search, not before: a server starts without paying for it.
#[derive(Debug, Clone, Default)]
pub struct SharedCatalog(Arc<RwLock<Shared>>);

#[derive(Debug)]
enum Shared {
    /// Not searched yet: the tools to index.
    Pending(Registry),
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
        Self(Arc::new(RwLock::new(Shared::Pending(registry.clone()))))
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
        if let Shared::Pending(registry) = &*shared {
            *shared = Shared::Built(Box::new(Catalog::new(registry)));
        }
        match &*shared {
            Shared::Built(catalog) => f(catalog),
            Shared::Pending(_) => f(&Catalog::default()),
        }
    }

    /// Brings it in line with `registry` (see [`Catalog::sync`]).
    pub fn sync(&self, registry: &Registry) {
        let mut shared = self.0.write().unwrap_or_else(PoisonError::into_inner);
        match &mut *shared {
            Shared::Pending(pending) => *pending = registry.clone(),
            Shared::Built(catalog) => catalog.sync(registry),
        }
    }
}
