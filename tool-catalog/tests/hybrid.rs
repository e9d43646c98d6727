//! Hybrid search: the lexical ranking fused with a model's, tool vectors cached on disk, and
//! a failing model leaving search to words. The model here maps words to a few concepts, so
//! what it "understands" is known exactly; `tool-embed`'s tests run a real one.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use tool_catalog::{
    Catalog, EmbedError, Embedding, Fusion, SearchOptions, TextEmbedder, tool_text, tool_texts,
};
use tool_core::{Registry, registry::DynamicTool};

/// Words of the same concept get the same direction.
const CONCEPTS: &[&[&str]] = &[
    &["email", "mail", "inbox", "boss", "message"],
    &["merge", "pull", "request", "teammate", "branch", "official"],
    &["weather", "forecast", "umbrella", "rain"],
    &["invoice", "bill", "payment", "owe"],
];

#[derive(Default)]
struct Concepts {
    texts: AtomicUsize,
    broken: bool,
    /// The fusion it asks for, when not the default.
    fusion: Option<Fusion>,
}

impl TextEmbedder for Concepts {
    fn model_id(&self) -> &str {
        "concepts-v1"
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if self.broken {
            return Err(EmbedError::msg("the model is broken"));
        }
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|text| {
                let mut v = vec![0.01; CONCEPTS.len()];
                for word in text.to_lowercase().split(|c: char| !c.is_alphanumeric()) {
                    for (i, concept) in CONCEPTS.iter().enumerate() {
                        if concept.contains(&word) {
                            v[i] += 1.0;
                        }
                    }
                }
                v
            })
            .collect())
    }

    fn fusion(&self) -> Fusion {
        self.fusion.unwrap_or_default()
    }
}

const TOOLS: &[(&str, &str)] = &[
    ("send_email", "Sends an email to one address."),
    (
        "merge_pull_request",
        "Merges a pull request into its base branch.",
    ),
    ("get_forecast", "Returns the weather forecast for a city."),
    ("create_invoice", "Creates an invoice for a customer."),
    ("list_files", "Lists the files of a folder."),
];

fn registry() -> Registry {
    registry_of(TOOLS)
}

fn registry_of(tools: &[(&'static str, &'static str)]) -> Registry {
    let mut registry = Registry::empty();
    for &(name, description) in tools {
        let schema = json!({"type": "object", "properties": {"target": {"type": "string"}}});
        registry
            .register(DynamicTool::new(name, description, schema))
            .unwrap();
    }
    registry
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tool-core-hybrid-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn names(catalog: &Catalog, query: &str) -> Vec<String> {
    catalog
        .search(query, &SearchOptions::limit(3))
        .iter()
        .map(|m| m.name.to_owned())
        .collect()
}

#[test]
fn a_query_that_shares_no_word_with_the_tool_is_found_by_meaning() {
    let registry = registry();
    let query = "will I need an umbrella tomorrow";
    assert!(
        names(&Catalog::new(&registry), query)
            .first()
            .map(String::as_str)
            != Some("get_forecast")
    );
    for fusion in [
        Fusion::default(),
        Fusion::Weighted { dense: 0.35 },
        Fusion::Rrf { k: 60.0 },
    ] {
        let embedding = Embedding::new(Arc::new(Concepts::default()))
            .fusion(fusion)
            .cache_dir(None);
        let catalog = Catalog::with_embedding(&registry, &embedding).unwrap();
        assert!(catalog.is_hybrid());
        assert_eq!(catalog.embedded(), 5);
        assert_eq!(names(&catalog, query)[0], "get_forecast", "{fusion:?}");
        // Words still count: a query the lexical index answers keeps its answer.
        assert_eq!(
            names(&catalog, "list the files")[0],
            "list_files",
            "{fusion:?}"
        );
        assert_eq!(
            names(
                &catalog,
                "my teammate cannot see the branch, make it official"
            )[0],
            "merge_pull_request",
            "{fusion:?}"
        );
    }
}

#[test]
fn adaptive_fusion_lets_the_model_decide_when_the_words_explain_little_of_the_query() {
    // One word of the query is a tool's ("files"); the rest is about the weather, in words no
    // tool uses. The lexical ranking's best hit is worth 1 however little of the query it
    // explains, so with fixed weights it wins; the adaptive fusion sees it matches one word
    // in six.
    let registry = registry();
    let query = "need an umbrella in the rain tomorrow, or a coat? files";
    assert_eq!(names(&Catalog::new(&registry), query)[0], "list_files");
    let top = |fusion: Fusion| {
        let embedding = Embedding::new(Arc::new(Concepts::default()))
            .fusion(fusion)
            .cache_dir(None);
        names(
            &Catalog::with_embedding(&registry, &embedding).unwrap(),
            query,
        )[0]
        .clone()
    };
    assert_eq!(top(Fusion::Weighted { dense: 0.35 }), "list_files");
    assert_eq!(top(Fusion::Adaptive { dense: 0.35 }), "get_forecast");
    // A query the words explain whole is fused as with fixed weights.
    let query = "list the files";
    let embedding = |fusion| {
        Embedding::new(Arc::new(Concepts::default()))
            .fusion(fusion)
            .cache_dir(None)
    };
    let adaptive =
        Catalog::with_embedding(&registry, &embedding(Fusion::Adaptive { dense: 0.35 })).unwrap();
    let fixed =
        Catalog::with_embedding(&registry, &embedding(Fusion::Weighted { dense: 0.35 })).unwrap();
    let options = SearchOptions::limit(5);
    assert_eq!(
        adaptive.search(query, &options),
        fixed.search(query, &options)
    );
}

#[test]
fn filters_and_limits_hold_in_hybrid_search() {
    let registry = registry();
    let embedding = Embedding::new(Arc::new(Concepts::default())).cache_dir(None);
    let catalog = Catalog::with_embedding(&registry, &embedding).unwrap();
    let mut options = SearchOptions::limit(2);
    assert_eq!(catalog.search("anything", &options).len(), 2);
    options.limit = 0;
    assert!(catalog.search("rain", &options).is_empty());
    let mut options = SearchOptions::limit(5);
    options.domain = Some("no_such_domain".into());
    assert!(catalog.search("rain", &options).is_empty());
}

#[test]
fn tool_vectors_are_cached_and_only_new_or_changed_tools_are_embedded() {
    let dir = temp_dir("cache");
    let registry = registry();
    let model = Arc::new(Concepts::default());
    let embedding = Embedding::new(model.clone()).cache_dir(Some(dir.clone()));
    Catalog::with_embedding(&registry, &embedding).unwrap();
    // Two texts a tool (the name, the description) and the parameter text they share, each
    // embedded once.
    assert_eq!(model.texts.load(Ordering::SeqCst), 5 * 2 + 1);

    // A restart: every vector comes from the cache.
    let model = Arc::new(Concepts::default());
    let embedding = Embedding::new(model.clone()).cache_dir(Some(dir.clone()));
    let mut catalog = Catalog::with_embedding(&registry, &embedding).unwrap();
    assert_eq!(model.texts.load(Ordering::SeqCst), 0);
    assert_eq!(names(&catalog, "do I owe anything")[0], "create_invoice");

    // A registry update: one tool changed, one added; only their new texts are embedded.
    let mut tools: Vec<(&'static str, &'static str)> = TOOLS
        .iter()
        .copied()
        .filter(|(name, _)| *name != "get_forecast")
        .collect();
    tools.push(("get_forecast", "Returns tomorrow's rain forecast."));
    tools.push(("read_inbox", "Reads the newest mail."));
    let updated = registry_of(&tools);
    catalog.sync(&updated);
    // Each query embeds one text; the sync embedded the changed tool's description (its name
    // and parameter were cached), and the new tool's name and description.
    assert_eq!(model.texts.load(Ordering::SeqCst), 1 + 1 + 2);
    assert_eq!(catalog.embedded(), 6);
    assert!(catalog.remove("read_inbox"));
    assert_eq!(catalog.embedded(), 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failing_model_is_an_error_when_built_and_leaves_search_to_words_later() {
    let registry = registry();
    let broken = Embedding::new(Arc::new(Concepts {
        broken: true,
        ..Concepts::default()
    }))
    .cache_dir(None);
    let error = Catalog::with_embedding(&registry, &broken).unwrap_err();
    assert!(error.to_string().contains("the model is broken"), "{error}");

    let shared = tool_catalog::SharedCatalog::with_embedding(&registry, Some(broken));
    let found = shared.read(|c| {
        assert!(!c.is_hybrid());
        names(c, "list the files")
    });
    assert_eq!(found[0], "list_files");
}

#[test]
fn the_embedded_texts_are_the_name_the_description_and_the_parameters() {
    let registry = registry();
    let tool = registry.get("send_email").unwrap();
    assert_eq!(
        tool_text(tool),
        "send email. Sends an email to one address. Parameters: target"
    );
    assert_eq!(
        tool_texts(tool),
        ["send email", "Sends an email to one address.", "target"]
    );
}

#[test]
fn what_is_embedded_of_a_tool_can_be_chosen() {
    let registry = registry();
    let model = Arc::new(Concepts::default());
    let embedding = Embedding::new(model.clone())
        .texts(|tool| vec![tool_text(tool)])
        .cache_dir(None);
    let catalog = Catalog::with_embedding(&registry, &embedding).unwrap();
    assert_eq!(model.texts.load(Ordering::SeqCst), 5);
    assert_eq!(names(&catalog, "do I owe anything")[0], "create_invoice");
}

#[test]
fn a_model_brings_the_fusion_chosen_for_it() {
    let asks = Fusion::Adaptive { dense: 0.6 };
    let embedding = Embedding::new(Arc::new(Concepts {
        fusion: Some(asks),
        ..Concepts::default()
    }));
    assert_eq!(embedding.fusion, asks);
    assert_eq!(
        Embedding::new(Arc::new(Concepts::default())).fusion,
        Fusion::default(),
        "a model that says nothing gets the default"
    );
    // Still the caller's to override.
    let fixed = Fusion::Weighted { dense: 0.35 };
    assert_eq!(
        Embedding::new(Arc::new(Concepts {
            fusion: Some(asks),
            ..Concepts::default()
        }))
        .fusion(fixed)
        .fusion,
        fixed
    );
}
