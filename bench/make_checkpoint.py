#!/usr/bin/env python3
# A full-size Llama-shape checkpoint with random BF16 weights, for `mha-bench --model` (issue 40): made here,
# never downloaded. Hugging Face's layout (config.json, model.safetensors, a byte-level tokenizer.json).
#
#   python3 bench/make_checkpoint.py smollm2-135m DIR    (SmolLM2-135M's sizes: 30 layers, hidden 576, 9 heads,
#                                                          3 K/V heads, intermediate 1536, vocab 49152; 270 MB)
#   python3 bench/make_checkpoint.py llama-1b DIR        (Llama-3.2-1B's sizes without its rope_scaling: 16 layers,
#                                                          hidden 2048, 32 heads, 8 K/V heads, intermediate 8192,
#                                                          vocab 128256, tied; 2.5 GB: put it under /tmp)
#   python3 bench/make_checkpoint.py tiny DIR            (2 layers, hidden 64, untied: the bench's smoke test)
#
# The weights are drawn from a pool of 2^22 normal numbers (scaled per tensor by 1/sqrt(in)) at random offsets,
# so a 1.2B-parameter file is written in seconds; the numbers are random enough for timing, not for learning.
import json
import os
import struct
import sys

import numpy as np

SHAPES = {
    "smollm2-135m": dict(layers=30, hidden=576, heads=9, kv=3, inter=1536, vocab=49152, theta=100000.0, tie=True),
    "tiny": dict(layers=2, hidden=64, heads=4, kv=2, inter=96, vocab=300, theta=10000.0, tie=False),
    "llama-1b": dict(layers=16, hidden=2048, heads=32, kv=8, inter=8192, vocab=128256, theta=500000.0, tie=True),
}


def bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def tensors(s):
    h, hd = s["hidden"], s["hidden"] // s["heads"]
    yield "model.embed_tokens.weight", (s["vocab"], h)
    for l in range(s["layers"]):
        p = "model.layers.%d." % l
        yield p + "input_layernorm.weight", (h,)
        yield p + "self_attn.q_proj.weight", (s["heads"] * hd, h)
        yield p + "self_attn.k_proj.weight", (s["kv"] * hd, h)
        yield p + "self_attn.v_proj.weight", (s["kv"] * hd, h)
        yield p + "self_attn.o_proj.weight", (h, s["heads"] * hd)
        yield p + "post_attention_layernorm.weight", (h,)
        yield p + "mlp.gate_proj.weight", (s["inter"], h)
        yield p + "mlp.up_proj.weight", (s["inter"], h)
        yield p + "mlp.down_proj.weight", (h, s["inter"])
    yield "model.norm.weight", (h,)
    if not s["tie"]:
        yield "lm_head.weight", (s["vocab"], h)


def tokenizer():
    """Byte-level BPE over GPT-2's byte map with no merges: one token a byte, ids 0-255, <|begin_of_text|> 256."""
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    vocab = {chr(c): i for i, (b, c) in enumerate(sorted(zip(bs, cs)))}
    bos = {"id": 256, "content": "<|begin_of_text|>", "special": True}
    return {"version": "1.0", "added_tokens": [bos], "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            "post_processor": {"type": "TemplateProcessing",
                               "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                                          {"Sequence": {"id": "A", "type_id": 0}}],
                               "pair": [], "special_tokens": {"<|begin_of_text|>": {
                                   "id": "<|begin_of_text|>", "ids": [256], "tokens": ["<|begin_of_text|>"]}}},
            "decoder": {"type": "ByteLevel"},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                      "merges": []}}


def main():
    shape, d = sys.argv[1], sys.argv[2]
    s = SHAPES[shape]
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(40)
    pool = rng.standard_normal(1 << 22).astype(np.float32)
    names = list(tensors(s))
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shp in names:
        size = 2 * int(np.prod(shp))
        header[name] = {"dtype": "BF16", "shape": list(shp), "data_offsets": [offset, offset + size]}
        offset += size
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    with open(os.path.join(d, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head)
        for name, shp in names:
            count = int(np.prod(shp))
            if name.endswith("norm.weight"):
                f.write(bf16(1.0 + 0.1 * pool[:count]).tobytes())
                continue
            scale = 0.8 if name.endswith("embed_tokens.weight") else 1.0 / np.sqrt(shp[-1])
            done = 0
            while done < count:  # pieces of at most the pool's length, each from a random offset of it
                k = min(count - done, len(pool) // 2)
                at = int(rng.integers(0, len(pool) - k))
                f.write(bf16(pool[at:at + k] * scale).tobytes())
                done += k
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": s["hidden"],
           "num_attention_heads": s["heads"], "num_key_value_heads": s["kv"], "num_hidden_layers": s["layers"],
           "intermediate_size": s["inter"], "rms_norm_eps": 1e-5, "rope_theta": s["theta"],
           "vocab_size": s["vocab"], "tie_word_embeddings": s["tie"], "hidden_act": "silu",
           "max_position_embeddings": 8192, "torch_dtype": "bfloat16"}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer(), f, ensure_ascii=False)
    print("wrote %s: %s, %d tensors, %.2f GB" % (d, shape, len(names), (offset + len(head) + 8) / 1e9))


if __name__ == "__main__":
    main()
