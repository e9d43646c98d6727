//! The transformer under a sentence-transformers model, chosen by `config.json`'s
//! `model_type`: BERT (candle-transformers' `BertModel`) or MPNet ([`crate::mpnet`]).

use std::path::Path;

use candle_core::{Device, Result, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{self, BertModel};
use serde::Deserialize;

use crate::error::{EmbedError, parse};
use crate::mpnet::{self, MpNet};

/// The architectures `config.json`'s `model_type` may name.
const KNOWN: &str = "bert, mpnet";

/// A configuration read, before the weights are.
#[derive(Debug)]
pub(crate) enum Architecture {
    Bert(Box<bert::Config>),
    MpNet(Box<mpnet::Config>, mpnet::Activation),
}

#[derive(Deserialize)]
struct ModelType {
    model_type: Option<String>,
}

impl Architecture {
    /// The architecture `config.json` (at `path`, read as `bytes`) describes; without a
    /// `model_type`, BERT.
    pub(crate) fn read(path: &Path, bytes: &[u8]) -> std::result::Result<Self, EmbedError> {
        let ModelType { model_type } = parse(path, bytes)?;
        match model_type.as_deref() {
            None | Some("bert") => Ok(Self::Bert(parse(path, bytes)?)),
            Some("mpnet") => {
                let config: Box<mpnet::Config> = parse(path, bytes)?;
                let activation =
                    config
                        .check()
                        .map_err(|(key, message)| EmbedError::Unsupported {
                            path: path.to_owned(),
                            key: key.to_owned(),
                            message,
                        })?;
                Ok(Self::MpNet(config, activation))
            }
            Some(other) => Err(EmbedError::Unsupported {
                path: path.to_owned(),
                key: "model_type".to_owned(),
                message: format!("`{other}` is not supported (the model types are {KNOWN})"),
            }),
        }
    }

    pub(crate) fn hidden_size(&self) -> usize {
        match self {
            Self::Bert(c) => c.hidden_size,
            Self::MpNet(c, _) => c.hidden_size,
        }
    }

    /// The most tokens a text may have, `[CLS]` and `[SEP]` (or `<s>` and `</s>`) included.
    pub(crate) fn max_tokens(&self) -> usize {
        match self {
            Self::Bert(c) => c.max_position_embeddings,
            Self::MpNet(c, _) => c.max_tokens(),
        }
    }

    /// The weights under `vb`, with or without the prefix transformers gives a base model
    /// inside a task model (`bert.`, `mpnet.`).
    pub(crate) fn load(&self, vb: VarBuilder) -> Result<Encoder> {
        let prefixed = |prefix: &str| {
            if !vb.contains_tensor("embeddings.word_embeddings.weight")
                && vb.contains_tensor(&format!("{prefix}.embeddings.word_embeddings.weight"))
            {
                vb.pp(prefix)
            } else {
                vb.clone()
            }
        };
        Ok(match self {
            Self::Bert(config) => Encoder::Bert(BertModel::load(prefixed("bert"), config)?),
            Self::MpNet(config, activation) => {
                Encoder::MpNet(MpNet::load(prefixed("mpnet"), config, *activation)?)
            }
        })
    }
}

/// A transformer with its weights.
pub(crate) enum Encoder {
    Bert(BertModel),
    MpNet(MpNet),
}

impl Encoder {
    /// The id a batch is padded with (masked, so only MPNet's position ids see it).
    pub(crate) fn pad_id(&self) -> u32 {
        match self {
            Self::Bert(_) => 0,
            Self::MpNet(_) => mpnet::PADDING_IDX,
        }
    }

    pub(crate) fn device(&self) -> &Device {
        match self {
            Self::Bert(m) => &m.device,
            Self::MpNet(m) => m.device(),
        }
    }

    /// The last hidden states `(batch, len, hidden)` of right-padded `input_ids`
    /// `(batch, len)`, `mask` 1 on real tokens and 0 on padding.
    pub(crate) fn forward(&self, input_ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        match self {
            Self::Bert(m) => m.forward(input_ids, &input_ids.zeros_like()?, Some(mask)),
            Self::MpNet(m) => m.forward(input_ids, mask),
        }
    }
}
