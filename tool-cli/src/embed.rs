//! `--embed-model`: hybrid tool search with a sentence-transformers model (the feature
//! `embed`; without it, naming a model is an error rather than a silent lexical search).

use std::path::PathBuf;

use tool_catalog::Embedding;

use crate::exit::{Exit, Out};

/// The environment variable that names a model when `--embed-model` does not.
pub const EMBED_MODEL_ENV: &str = "TOOL_CORE_EMBED_MODEL";

/// The model for hybrid search (`search`, and `search_tools` under `serve`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct EmbedArgs {
    /// A sentence-transformers model directory (config.json, model.safetensors,
    /// tokenizer.json): search fuses its ranking with the lexical one. Default: the directory
    /// in $TOOL_CORE_EMBED_MODEL, if set.
    #[arg(long, value_name = "DIR")]
    pub embed_model: Option<PathBuf>,
    /// Where tool vectors are kept between runs (default: $XDG_CACHE_HOME/tool-core/vectors or
    /// ~/.cache/tool-core/vectors).
    #[arg(long, value_name = "DIR")]
    pub embed_cache: Option<PathBuf>,
}

impl EmbedArgs {
    /// The model directory asked for, by flag or environment.
    fn model_dir(&self) -> Option<PathBuf> {
        self.embed_model.clone().or_else(|| {
            std::env::var_os(EMBED_MODEL_ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }

    /// The model loaded, when one is asked for: `None` when neither `--embed-model` nor
    /// `$TOOL_CORE_EMBED_MODEL` names one.
    pub fn embedding(&self) -> Result<Option<Embedding>, EmbedSetupError> {
        let Some(dir) = self.model_dir() else {
            return Ok(None);
        };
        let mut embedding = load(dir)?;
        if let Some(cache) = &self.embed_cache {
            embedding = embedding.cache_dir(Some(cache.clone()));
        }
        Ok(Some(embedding))
    }

    /// [`embedding`](Self::embedding), its error printed as a command's.
    pub(crate) fn embedding_or_exit(&self, err: Out<'_>) -> Result<Option<Embedding>, Exit> {
        self.embedding().map_err(|e| match e {
            EmbedSetupError::NotBuilt { .. } => crate::exit::usage(err, e.to_string()),
            EmbedSetupError::Load(_) => crate::exit::failed(err, e.to_string()),
        })
    }
}

/// A model was asked for and cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedSetupError {
    /// The binary was built without the feature `embed`.
    #[error(
        "a model is named ({}), but this binary was built without tool-cli's feature `embed`; \
         build it with `--features tool-cli/embed`, or unset {EMBED_MODEL_ENV}",
        dir.display()
    )]
    NotBuilt {
        /// The model directory named.
        dir: PathBuf,
    },
    /// The model directory could not be loaded.
    #[error(transparent)]
    Load(Box<dyn std::error::Error + Send + Sync>),
}

#[cfg(feature = "embed")]
fn load(dir: PathBuf) -> Result<Embedding, EmbedSetupError> {
    let model =
        tool_embed::SentenceEmbedder::load(&dir).map_err(|e| EmbedSetupError::Load(Box::new(e)))?;
    Ok(Embedding::new(std::sync::Arc::new(model)))
}

#[cfg(not(feature = "embed"))]
fn load(dir: PathBuf) -> Result<Embedding, EmbedSetupError> {
    Err(EmbedSetupError::NotBuilt { dir })
}
