//! MPNet, as Hugging Face transformers defines it (`models/mpnet/modeling_mpnet.py`): the
//! encoder of sentence-transformers/all-mpnet-base-v2 and its kin.
//!
//! Where it differs from BERT:
//! - position ids count from the padding index, RoBERTa-style: a real token's id is
//!   `padding_idx` + its rank among the real tokens, a padding token's is `padding_idx`;
//! - no token-type embeddings;
//! - a relative position bias: `relative_attention_bias` maps the bucket of each key's
//!   distance from each query (32 buckets, exact up to 8 either way, logarithmic to 128) to one
//!   number per head, computed once per forward pass and added to every layer's attention
//!   scores.
//!
//! The blocks are post-layer-norm, as in BERT: `LayerNorm(x + attention(x))`, then
//! `LayerNorm(h + output(gelu(intermediate(h))))`.

use candle_core::{D, DType, Device, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder};
use serde::Deserialize;

/// The padding index: transformers' `MPNetEmbeddings` fixes it at 1 whatever `pad_token_id`
/// says, and position ids count from it.
pub(crate) const PADDING_IDX: u32 = 1;

/// The buckets and the distance `relative_position_bucket` is called with: transformers passes
/// neither, so its defaults hold whatever `relative_attention_num_buckets` says (the table must
/// only be large enough).
const BUCKETS: usize = 32;
const MAX_DISTANCE: usize = 128;

/// `config.json` of an MPNet model: the keys the encoder needs, with transformers' defaults.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Config {
    vocab_size: usize,
    pub(crate) hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    #[serde(default = "gelu")]
    hidden_act: String,
    pub(crate) max_position_embeddings: usize,
    #[serde(default = "layer_norm_eps")]
    layer_norm_eps: f64,
    #[serde(default = "buckets")]
    pub(crate) relative_attention_num_buckets: usize,
}

fn gelu() -> String {
    "gelu".to_owned()
}

fn layer_norm_eps() -> f64 {
    1e-12
}

fn buckets() -> usize {
    BUCKETS
}

/// What is wrong with a configuration, as `(key, message)`.
pub(crate) type ConfigError = (&'static str, String);

impl Config {
    /// The most tokens a text may have: positions `padding_idx + 1 ..` must fit the table.
    pub(crate) fn max_tokens(&self) -> usize {
        self.max_position_embeddings
            .saturating_sub(PADDING_IDX as usize + 1)
    }

    pub(crate) fn check(&self) -> std::result::Result<Activation, ConfigError> {
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return Err((
                "num_attention_heads",
                format!(
                    "{} does not divide hidden_size {}",
                    self.num_attention_heads, self.hidden_size
                ),
            ));
        }
        if self.relative_attention_num_buckets < BUCKETS {
            return Err((
                "relative_attention_num_buckets",
                format!(
                    "{}, but the relative position bias uses {BUCKETS} buckets",
                    self.relative_attention_num_buckets
                ),
            ));
        }
        if self.max_tokens() == 0 {
            return Err((
                "max_position_embeddings",
                format!(
                    "{} leaves no position after the padding index",
                    self.max_position_embeddings
                ),
            ));
        }
        Activation::named(&self.hidden_act).ok_or_else(|| {
            (
                "hidden_act",
                format!(
                    "`{}` is not supported (gelu, gelu_new, gelu_pytorch_tanh and relu are)",
                    self.hidden_act
                ),
            )
        })
    }
}

/// The feed-forward activation, as transformers' `ACT2FN` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Activation {
    /// `gelu`: exact, with erf.
    Gelu,
    /// `gelu_new`, `gelu_pytorch_tanh`: the tanh approximation.
    GeluTanh,
    Relu,
}

impl Activation {
    fn named(name: &str) -> Option<Self> {
        match name {
            "gelu" => Some(Self::Gelu),
            "gelu_new" | "gelu_pytorch_tanh" => Some(Self::GeluTanh),
            "relu" => Some(Self::Relu),
            _ => None,
        }
    }

    fn apply(self, x: &Tensor) -> Result<Tensor> {
        match self {
            Self::Gelu => x.gelu_erf(),
            Self::GeluTanh => x.gelu(),
            Self::Relu => x.relu(),
        }
    }
}

/// transformers' `relative_position_bucket` for `relative = key − query`: half the buckets for
/// keys before the query, half for keys after; distances under 8 each their own bucket, longer
/// ones on a log scale up to 128, the last bucket beyond.
fn bucket(relative: i64) -> usize {
    let half = BUCKETS / 2;
    let mut ret = if relative > 0 { half } else { 0 };
    let n = relative.unsigned_abs() as usize;
    let max_exact = half / 2;
    ret += if n < max_exact {
        n
    } else {
        // Truncation, as `.to(torch.long)`; float32 and float64 agree on every n up to 512.
        let large = max_exact
            + ((n as f64 / max_exact as f64).ln() / (MAX_DISTANCE as f64 / max_exact as f64).ln()
                * (half - max_exact) as f64) as usize;
        large.min(half - 1)
    };
    ret
}

/// Position ids for right-padded rows of `len` ids: `padding_idx` + the running count of
/// non-padding ids at each non-padding id, `padding_idx` at padding ids.
pub(crate) fn position_ids(ids: &[u32], len: usize) -> Vec<u32> {
    let mut positions = Vec::with_capacity(ids.len());
    for row in ids.chunks(len.max(1)) {
        let mut seen = 0;
        for &id in row {
            if id == PADDING_IDX {
                positions.push(PADDING_IDX);
            } else {
                seen += 1;
                positions.push(PADDING_IDX + seen);
            }
        }
    }
    positions
}

struct Layer {
    /// q, k and v in one matrix: one matrix multiply instead of three.
    qkv: Linear,
    o: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// An MPNet encoder with its weights.
pub(crate) struct MpNet {
    word_embeddings: Embedding,
    position_embeddings: Embedding,
    embeddings_norm: LayerNorm,
    relative_attention_bias: Embedding,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    activation: Activation,
    device: Device,
}

fn layer_norm(size: usize, eps: f64, vb: VarBuilder) -> Result<LayerNorm> {
    candle_nn::layer_norm(size, eps, vb)
}

impl MpNet {
    /// Reads the weights under `vb` (names as transformers' `MPNetModel` saves them).
    pub(crate) fn load(vb: VarBuilder, config: &Config, activation: Activation) -> Result<Self> {
        let h = config.hidden_size;
        let eps = config.layer_norm_eps;
        let embeddings = vb.pp("embeddings");
        let encoder = vb.pp("encoder");
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let layer = encoder.pp(format!("layer.{i}"));
            let attention = layer.pp("attention");
            let attn = attention.pp("attn");
            let (mut weights, mut biases) = (Vec::new(), Vec::new());
            for name in ["q", "k", "v"] {
                weights.push(attn.pp(name).get((h, h), "weight")?);
                biases.push(attn.pp(name).get(h, "bias")?);
            }
            let qkv = Linear::new(Tensor::cat(&weights, 0)?, Some(Tensor::cat(&biases, 0)?));
            layers.push(Layer {
                qkv,
                o: candle_nn::linear(h, h, attn.pp("o"))?,
                attention_norm: layer_norm(h, eps, attention.pp("LayerNorm"))?,
                intermediate: candle_nn::linear(
                    h,
                    config.intermediate_size,
                    layer.pp("intermediate.dense"),
                )?,
                output: candle_nn::linear(config.intermediate_size, h, layer.pp("output.dense"))?,
                output_norm: layer_norm(h, eps, layer.pp("output.LayerNorm"))?,
            });
        }
        Ok(Self {
            word_embeddings: candle_nn::embedding(
                config.vocab_size,
                h,
                embeddings.pp("word_embeddings"),
            )?,
            position_embeddings: candle_nn::embedding(
                config.max_position_embeddings,
                h,
                embeddings.pp("position_embeddings"),
            )?,
            embeddings_norm: layer_norm(h, eps, embeddings.pp("LayerNorm"))?,
            relative_attention_bias: candle_nn::embedding(
                config.relative_attention_num_buckets,
                config.num_attention_heads,
                encoder.pp("relative_attention_bias"),
            )?,
            layers,
            heads: config.num_attention_heads,
            head_dim: h / config.num_attention_heads,
            activation,
            device: vb.device().clone(),
        })
    }

    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// The relative position bias of a sequence of `len`, `(1, heads, len, len)`.
    fn position_bias(&self, len: usize) -> Result<Tensor> {
        let mut buckets = Vec::with_capacity(len * len);
        for query in 0..len {
            for key in 0..len {
                buckets.push(bucket(key as i64 - query as i64) as u32);
            }
        }
        let buckets = Tensor::from_vec(buckets, len * len, &self.device)?;
        // (len * len, heads) -> (heads, len, len)
        self.relative_attention_bias
            .forward(&buckets)?
            .t()?
            .reshape((1, self.heads, len, len))
    }

    /// The last hidden states `(batch, len, hidden)` of right-padded `input_ids` `(batch, len)`,
    /// `mask` 1 on real tokens and 0 on padding.
    pub(crate) fn forward(&self, input_ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (batch, len) = input_ids.dims2()?;
        let ids = input_ids.flatten_all()?.to_vec1::<u32>()?;
        let positions = Tensor::from_vec(position_ids(&ids, len), (batch, len), &self.device)?;
        let mut x = (self.word_embeddings.forward(input_ids)?
            + self.position_embeddings.forward(&positions)?)?;
        x = self.embeddings_norm.forward(&x)?;

        // The position bias and the padding mask, added to every layer's scores: `(batch, heads,
        // len, len)`, a padded key at the lowest float, as transformers' extended mask.
        let padding = ((1.0 - mask.to_dtype(DType::F32)?)? * f64::from(f32::MIN))?
            .reshape((batch, 1, 1, len))?;
        let bias = self.position_bias(len)?.broadcast_add(&padding)?;

        let scale = 1.0 / (self.head_dim as f64).sqrt();
        for layer in &self.layers {
            let heads = |t: Tensor| {
                t.reshape((batch, len, self.heads, self.head_dim))?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let qkv = layer.qkv.forward(&x)?;
            let h = self.heads * self.head_dim;
            let q = heads(qkv.narrow(D::Minus1, 0, h)?)?;
            let k = heads(qkv.narrow(D::Minus1, h, h)?)?;
            let v = heads(qkv.narrow(D::Minus1, 2 * h, h)?)?;
            let scores = ((q.matmul(&k.t()?)? * scale)? + &bias)?;
            let probs = candle_nn::ops::softmax_last_dim(&scores)?;
            let context = probs
                .matmul(&v)?
                .transpose(1, 2)?
                .reshape((batch, len, h))?;
            let attended = layer
                .attention_norm
                .forward(&(layer.o.forward(&context)? + &x)?)?;
            let hidden = self
                .activation
                .apply(&layer.intermediate.forward(&attended)?)?;
            x = layer
                .output_norm
                .forward(&(layer.output.forward(&hidden)? + &attended)?)?;
        }
        Ok(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// transformers' buckets, written out for the distances where the rule changes.
    #[test]
    fn buckets_follow_transformers() {
        // A key before the query (negative relative position) counts in the lower half.
        let cases = [
            (0, 0),
            (-1, 1),
            (-7, 7),
            (-8, 8),
            (-11, 8),
            (-12, 9),
            (-16, 10),
            (-31, 11),
            (-32, 12),
            (-64, 14),
            (-127, 15),
            (-128, 15),
            (-500, 15),
            (1, 17),
            (7, 23),
            (8, 24),
            (16, 26),
            (128, 31),
            (383, 31),
        ];
        for (relative, want) in cases {
            assert_eq!(bucket(relative), want, "relative position {relative}");
        }
    }

    #[test]
    fn positions_count_from_the_padding_index() {
        // Two rows of 4: the second padded after two tokens.
        assert_eq!(
            position_ids(&[0, 9, 9, 2, 0, 9, 1, 1], 4),
            [2, 3, 4, 5, 2, 3, 1, 1]
        );
        // A padding id inside the text (the literal `<pad>`) gets the padding position and
        // does not count, as in transformers.
        assert_eq!(position_ids(&[0, 1, 9, 2], 4), [2, 1, 3, 4]);
    }

    #[test]
    fn a_configuration_is_checked_before_loading() {
        let config = |extra: &str| -> Config {
            let mut config = serde_json::json!({
                "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
                "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 12,
            });
            let extra: serde_json::Value =
                serde_json::from_str(&format!("{{{}}}", extra.trim_start_matches(',')))
                    .expect("extra keys");
            for (key, value) in extra.as_object().expect("an object") {
                config[key] = value.clone();
            }
            serde_json::from_value(config).expect("config")
        };
        assert_eq!(config("").check(), Ok(Activation::Gelu));
        assert_eq!(config("").max_tokens(), 10);
        assert_eq!(
            config(r#", "hidden_act": "gelu_new""#).check(),
            Ok(Activation::GeluTanh)
        );
        assert_eq!(
            config(r#", "hidden_act": "swish""#).check().unwrap_err().0,
            "hidden_act"
        );
        assert_eq!(
            config(r#", "num_attention_heads": 3"#)
                .check()
                .unwrap_err()
                .0,
            "num_attention_heads"
        );
        assert_eq!(
            config(r#", "relative_attention_num_buckets": 16"#)
                .check()
                .unwrap_err()
                .0,
            "relative_attention_num_buckets"
        );
    }
}
