#!/usr/bin/env python3
"""The reference for test_model_stream (issue 40, the window's stages): writes a tiny random Llama checkpoint in
Hugging Face's layout (tests/test_hf_models.py's make_model) into DIR/llama and, computed in float64 from
modeling_llama.py's order of operations, DIR/expected.txt: the text's token ids, then for layer LAYER the residual
stream h at its input (before input_layernorm) and after the attention's residual add, and at every position the 10
most probable next tokens with their probabilities.

usage: model_stream_ref.py SOURCE_DIR DIR LAYER
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(sys.argv[1], "tests"))
import test_hf_models as T  # noqa: E402

TEXT = "The cat sat on the mat"


def forward(cfg, W, ids, layer):
    hidden, heads, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, eps, n = hidden // heads, cfg["rms_norm_eps"], len(ids)
    inv_freq = 1.0 / (cfg["rope_theta"] ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
    emb = np.concatenate([np.outer(np.arange(n, dtype=np.float64), inv_freq)] * 2, axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    h = W["model.embed_tokens.weight"][ids]
    before = after = None
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        x = T.rms_norm(h, W[p + "input_layernorm.weight"], eps)

        def proj(name, count):
            return (x @ W[p + "self_attn.%s.weight" % name].T).reshape(n, count, hd).transpose(1, 0, 2)

        q, k, v = proj("q_proj", heads), proj("k_proj", kv), proj("v_proj", kv)
        q = q * cos + T.rotate_half(q) * sin
        k = np.repeat(k * cos + T.rotate_half(k) * sin, heads // kv, axis=0)
        v = np.repeat(v, heads // kv, axis=0)
        scores = np.where(mask, -np.inf, q @ k.transpose(0, 2, 1) * hd ** -0.5)
        w = np.exp(scores - scores.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        out = (w @ v).transpose(1, 0, 2).reshape(n, heads * hd) @ W[p + "self_attn.o_proj.weight"].T
        if l == layer:
            before = h.copy()
        h = h + out
        if l == layer:
            after = h.copy()
        x = T.rms_norm(h, W[p + "post_attention_layernorm.weight"], eps)
        g, u = x @ W[p + "mlp.gate_proj.weight"].T, x @ W[p + "mlp.up_proj.weight"].T
        h = h + (g / (1 + np.exp(-g)) * u) @ W[p + "mlp.down_proj.weight"].T
    logits = T.rms_norm(h, W["model.norm.weight"], eps) @ W["lm_head.weight"].T
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    return before, after, probs


def main():
    root, layer = sys.argv[2], int(sys.argv[3])
    tok = T.make_byte_level(T.LLAMA3, bos=True, merges_as_lists=True)
    d, cfg, W = T.make_model(root, "llama", np.random.default_rng(40), tok=tok)
    ids = T.encode(tok, TEXT)
    before, after, probs = forward(cfg, W, ids, layer)
    with open(os.path.join(root, "expected.txt"), "w") as f:
        f.write("ids %s\n" % " ".join(map(str, ids)))
        for name, m in (("before", before), ("after", after)):
            for row in m:
                f.write("%s %s\n" % (name, " ".join(repr(float(v)) for v in row)))
        for i, row in enumerate(probs):
            order = sorted(range(len(row)), key=lambda v: (-row[v], v))[:10]
            f.write("top %d %s\n" % (i, " ".join("%d:%r" % (v, float(row[v])) for v in order)))


if __name__ == "__main__":
    main()
