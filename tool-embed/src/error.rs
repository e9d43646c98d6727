//! What loading a model or embedding a text fails with ([`EmbedError`]), and the reader of a
//! model directory's JSON files that names the key that failed: a leaf below the encoders and
//! the embedder.

use std::path::{Path, PathBuf};

/// What went wrong while loading a model or embedding a text, naming the file, the JSON key or
/// the text concerned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// A file of the model directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A JSON file is malformed or a key has the wrong type.
    #[error("{}: at `{key}`: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where in the file, as a path of keys (`.` for the whole document).
        key: String,
        /// What the parser said.
        message: String,
    },
    /// A configuration the embedder cannot honour (an unsupported pooling mode or module, sizes
    /// that disagree).
    #[error("{}: `{key}`: {message}", path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// The key that asks for it.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// `tokenizer.json` could not be loaded or configured.
    #[error("{}: {source}", path.display())]
    Tokenizer {
        /// The file.
        path: PathBuf,
        /// What the tokenizers crate said.
        #[source]
        source: tokenizers::Error,
    },
    /// The weights do not fit the configuration (a missing or misshapen tensor).
    #[error("{}: {source}", path.display())]
    Weights {
        /// The weights file.
        path: PathBuf,
        /// What candle said.
        #[source]
        source: candle_core::Error,
    },
    /// A text could not be tokenised.
    #[error("cannot tokenise text {index}: {source}")]
    Tokenize {
        /// The text's position in the slice given to [`SentenceEmbedder::embed`](crate::SentenceEmbedder::embed).
        index: usize,
        /// What the tokenizers crate said.
        #[source]
        source: tokenizers::Error,
    },
    /// The forward pass failed.
    #[error("forward pass over texts {texts:?}: {source}")]
    Forward {
        /// The batch's texts (positions in the slice given to `embed`).
        texts: Vec<usize>,
        /// What candle said.
        #[source]
        source: candle_core::Error,
    },
}

/// `bytes`, the JSON file at `path`, as a `T`; an error names the file and the key.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    path: &Path,
    bytes: &[u8],
) -> Result<T, EmbedError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| EmbedError::Json {
        path: path.to_owned(),
        key: e.path().to_string(),
        message: e.into_inner().to_string(),
    })
}
