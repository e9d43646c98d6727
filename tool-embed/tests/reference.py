"""An independent sentence embedding, to check tool-embed's against: a BERT or MPNet forward pass
(as config.json's model_type says) written in numpy (float64) over weights read straight from
model.safetensors, with mean, CLS or max pooling and L2 normalisation as the model directory's
sentence-transformers files say. MPNet follows transformers' models/mpnet/modeling_mpnet.py.

Usage: reference.py MODEL_DIR < texts.json > vectors.json
(a JSON list of strings in, a JSON list of vectors out). Token ids come from the Hugging Face
`tokenizers` package reading the same tokenizer.json, with padding off and truncation at
max_seq_length.
"""

import json
import math
import os
import struct
import sys

import numpy as np
from tokenizers import Tokenizer

DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64}


def read_safetensors(path):
    """name -> float64 array: an 8-byte little-endian header length, a JSON header, raw data."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in DTYPES:
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], dtype=DTYPES[info["dtype"]])
        tensors[name] = array.reshape(info["shape"]).astype(np.float64)
    # Names with or without a `bert.` or `mpnet.` prefix.
    if "embeddings.word_embeddings.weight" not in tensors:
        tensors = {k.removeprefix("bert.").removeprefix("mpnet."): v for k, v in tensors.items()}
    return tensors


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def attention(x, q, k, v, heads, bias=None):
    """Multi-head attention over one text: x (n, hidden) and its projections."""
    n = x.shape[0]
    d = q.shape[1] // heads

    def split(y):
        return y.reshape(n, heads, d).transpose(1, 0, 2)

    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    if bias is not None:
        scores = scores + bias
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    scores /= scores.sum(-1, keepdims=True)
    return (scores @ v).transpose(1, 0, 2).reshape(n, heads * d)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


ACTIVATIONS = {
    "gelu": gelu,
    "gelu_new": gelu_tanh,
    "gelu_pytorch_tanh": gelu_tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


def relative_position_bucket(relative, buckets=32, max_distance=128):
    """transformers' MPNetEncoder.relative_position_bucket, for relative = key - query."""
    n = -relative
    half = buckets // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    safe = np.maximum(n, 1).astype(np.float32)  # log(0) is never taken: is_small covers it
    large = max_exact + (
        np.log(safe / max_exact) / math.log(max_distance / max_exact) * (half - max_exact)
    ).astype(np.int64)
    large = np.minimum(large, half - 1)
    return ret + np.where(n < max_exact, n, large)


def linear(t, x, name):
    return x @ t[name + ".weight"].T + t[name + ".bias"]


def add_and_norm(t, x, residual, name, eps):
    """Post-layer-norm: LayerNorm(x + residual), as both models' blocks end."""
    return layer_norm(x + residual, t[name + ".weight"], t[name + ".bias"], eps)


def feed_forward(t, config, p, x):
    """The second half of a layer, named alike in BERT and MPNet."""
    act = ACTIVATIONS[config.get("hidden_act", "gelu")]
    hidden = act(linear(t, x, p + "intermediate.dense"))
    out = linear(t, hidden, p + "output.dense")
    return add_and_norm(t, out, x, p + "output.LayerNorm", config["layer_norm_eps"])


def mpnet(t, config, ids):
    eps = config["layer_norm_eps"]
    n = len(ids)
    padding_idx = 1  # fixed in MPNetEmbeddings, whatever pad_token_id says
    not_pad = (ids != padding_idx).astype(np.int64)
    positions = np.cumsum(not_pad) * not_pad + padding_idx
    x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][
        positions
    ]
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    heads = config["num_attention_heads"]
    # (heads, n, n): one bias per head for each key's distance from each query, every layer.
    relative = np.arange(n)[None, :] - np.arange(n)[:, None]
    bias = t["encoder.relative_attention_bias.weight"][relative_position_bucket(relative)]
    bias = bias.transpose(2, 0, 1)
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        a = p + "attention.attn."
        q, k, v = (linear(t, x, a + name) for name in ("q", "k", "v"))
        context = attention(x, q, k, v, heads, bias)
        x = add_and_norm(t, linear(t, context, a + "o"), x, p + "attention.LayerNorm", eps)
        x = feed_forward(t, config, p, x)
    return x


def bert(t, config, ids):
    eps = config["layer_norm_eps"]
    n = len(ids)
    x = (
        t["embeddings.word_embeddings.weight"][ids]
        + t["embeddings.position_embeddings.weight"][np.arange(n)]
        + t["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    heads = config["num_attention_heads"]
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        a = p + "attention.self."
        q, k, v = (linear(t, x, a + name) for name in ("query", "key", "value"))
        context = attention(x, q, k, v, heads)
        out = linear(t, context, p + "attention.output.dense")
        x = add_and_norm(t, out, x, p + "attention.output.LayerNorm", eps)
        x = feed_forward(t, config, p, x)
    return x


def load_json(path, default):
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return json.load(f)


def main():
    model = sys.argv[1]
    config = load_json(os.path.join(model, "config.json"), None)
    modules = load_json(os.path.join(model, "modules.json"), None)
    pooling, normalize = "mean", True
    if modules is not None:
        normalize = any(m["type"].endswith("Normalize") for m in modules)
        for m in modules:
            if m["type"].endswith("Pooling"):
                pc = load_json(os.path.join(model, m["path"], "config.json"), {})
                if pc.get("pooling_mode_cls_token"):
                    pooling = "cls"
                elif pc.get("pooling_mode_max_tokens"):
                    pooling = "max"
    sbert = load_json(os.path.join(model, "sentence_bert_config.json"), {})
    forward = bert
    positions = config["max_position_embeddings"]
    if config.get("model_type") == "mpnet":
        # Positions count from the padding index (1): two fewer tokens fit.
        forward, positions = mpnet, positions - 2
    max_len = min(sbert.get("max_seq_length") or positions, positions)

    tokenizer = Tokenizer.from_file(os.path.join(model, "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_len)
    tensors = read_safetensors(os.path.join(model, "model.safetensors"))

    vectors = []
    for text in json.load(sys.stdin):
        ids = tokenizer.encode(text).ids
        h = forward(tensors, config, np.array(ids))
        v = {"mean": h.mean(0), "cls": h[0], "max": h.max(0)}[pooling]
        if normalize:
            v = v / np.linalg.norm(v)
        vectors.append({"tokens": len(ids), "vector": v.tolist()})
    json.dump(vectors, sys.stdout)


if __name__ == "__main__":
    main()
