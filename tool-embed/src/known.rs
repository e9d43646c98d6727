//! The models this project has measured, with the settings chosen for each: the ones
//! `scripts/embed-model-env` installs. Each is keyed by its [`SentenceEmbedder::model_id`], a
//! hash of its files, so a setting holds for exactly the vectors it was measured with; any other
//! model gets the defaults.
//!
//! [`SentenceEmbedder::model_id`]: crate::SentenceEmbedder::model_id

use tool_catalog::Fusion;

/// A model measured by `tool-embed`'s `search_quality` bench, and what was chosen for it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct KnownModel {
    /// Its name, the directory `scripts/embed-model-env` unpacks it to under `target/models/`.
    pub name: &'static str,
    /// The [`SentenceEmbedder::model_id`](crate::SentenceEmbedder::model_id) of its files as
    /// that script unpacks them.
    pub model_id: &'static str,
    /// The fusion chosen for it on the development and paraphrase query sets (`docs/catalog.md`,
    /// "Which model"): of the adaptive weights with the best development recall@5, the one with
    /// the best paraphrase recall@5.
    pub fusion: Fusion,
}

/// Every model measured, in the order `docs/catalog.md` compares them.
pub const KNOWN_MODELS: &[KnownModel] = &[
    KnownModel {
        name: "all-MiniLM-L6-v2",
        model_id: "60aa4f0422dfeaca3e8cf86cafa656309c10170cceeab15d3d3a560100aa17dd",
        fusion: Fusion::Adaptive { dense: 0.35 },
    },
    KnownModel {
        name: "all-mpnet-base-v2",
        model_id: "f17404113cef514c1333214c25e34424dfd17f55de4da408975d9be4d3e4946f",
        fusion: Fusion::Adaptive { dense: 0.30 },
    },
];

/// The known model whose files hash to `model_id`.
pub fn known_model(model_id: &str) -> Option<&'static KnownModel> {
    KNOWN_MODELS.iter().find(|m| m.model_id == model_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_fusion_is_minilms() {
        // tool-core's Fusion::default() says it was chosen with all-MiniLM-L6-v2.
        assert_eq!(
            known_model(KNOWN_MODELS[0].model_id).map(|m| m.name),
            Some("all-MiniLM-L6-v2")
        );
        assert_eq!(KNOWN_MODELS[0].fusion, Fusion::default());
        assert_eq!(known_model("not a model id"), None);
    }

    #[test]
    fn names_and_ids_are_unique() {
        for (i, a) in KNOWN_MODELS.iter().enumerate() {
            assert_eq!(a.model_id.len(), 64, "{}", a.name);
            for b in &KNOWN_MODELS[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.model_id, b.model_id);
            }
        }
    }
}
