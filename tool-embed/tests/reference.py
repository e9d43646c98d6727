"""An independent sentence embedding, to check tool-embed's against: a BERT forward pass written
in numpy (float64) over weights read straight from model.safetensors, with mean, CLS or max
pooling and L2 normalisation as the model directory's sentence-transformers files say.

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
    # Names with or without a `bert.` prefix.
    if "embeddings.word_embeddings.weight" not in tensors:
        tensors = {k.removeprefix("bert."): v for k, v in tensors.items()}
    return tensors


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def bert(t, config, ids):
    def linear(x, name):
        return x @ t[name + ".weight"].T + t[name + ".bias"]

    eps = config["layer_norm_eps"]
    n = len(ids)
    x = (
        t["embeddings.word_embeddings.weight"][ids]
        + t["embeddings.position_embeddings.weight"][np.arange(n)]
        + t["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    heads = config["num_attention_heads"]
    d = config["hidden_size"] // heads
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."

        def split(y):
            return y.reshape(n, heads, d).transpose(1, 0, 2)

        q = split(linear(x, p + "attention.self.query"))
        k = split(linear(x, p + "attention.self.key"))
        v = split(linear(x, p + "attention.self.value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, heads * d)
        attention = linear(context, p + "attention.output.dense")
        x = layer_norm(
            attention + x,
            t[p + "attention.output.LayerNorm.weight"],
            t[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        hidden = gelu(linear(x, p + "intermediate.dense"))
        out = linear(hidden, p + "output.dense")
        x = layer_norm(
            out + x, t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"], eps
        )
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
    max_len = min(
        sbert.get("max_seq_length") or config["max_position_embeddings"],
        config["max_position_embeddings"],
    )

    tokenizer = Tokenizer.from_file(os.path.join(model, "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_len)
    tensors = read_safetensors(os.path.join(model, "model.safetensors"))

    vectors = []
    for text in json.load(sys.stdin):
        ids = tokenizer.encode(text).ids
        h = bert(tensors, config, np.array(ids))
        v = {"mean": h.mean(0), "cls": h[0], "max": h.max(0)}[pooling]
        if normalize:
            v = v / np.linalg.norm(v)
        vectors.append({"tokens": len(ids), "vector": v.tolist()})
    json.dump(vectors, sys.stdout)


if __name__ == "__main__":
    main()
