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
//! `tool-catalog/src/data/`, each opening with where its words came from, compiled into
//! the binary. `lexicon.rs` beside them gives their format and how to change them.
//!
//! ```
//! use serde_json::json;
//! use tool_catalog::{Catalog, SearchOptions};
//! use tool_core::{registry::DynamicTool, Registry};
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

mod cache;
mod dense;
mod index;
mod lexicon;
mod search;
mod search_tool;
mod session;
mod text;

pub use cache::{CacheError, VectorCache, default_cache_dir};
pub use dense::{EmbedError, Fusion, TextEmbedder, ToolTexts, dot, tool_text, tool_texts};
pub use index::Ranking;
pub use search::{Catalog, Embedding, Match, SearchOptions, SharedCatalog, UnknownDomain};
pub use search_tool::{SEARCH_TOOLS, install, install_with};
pub use session::{Deferral, ToolSession};
pub use text::{terms, words};
