#!/usr/bin/env python3
# The NumPy side of mha-bench: the same multi-head attention, the same sizes, timed the same way
# (minimum over repetitions), so `mha-bench` can be read beside the script a teacher would write.
#
#   /usr/bin/python3 bench/numpy_bench.py [--reps N] [--case NAME]   (`mha-bench --versus-numpy` runs it)
#   /usr/bin/python3 bench/numpy_bench.py --model DIR --ids 256,84,104 [--reps N]   (`mha-bench --model` runs it)
#       a Llama-shape checkpoint's forward pass in float64 as modeling_llama.py orders it, each layer's weights
#       converted from the mapped file when the layer runs (as mha-tracer does); prints seconds_per_forward=X.
#
# Prints `case=NAME tokens=N d_model=D heads=H seconds_per_trace=X`, then the BLAS NumPy loaded
# (read from /proc/self/maps, so it says what really runs, not what NumPy was built against).
import argparse
import json
import os
import struct
import time

import numpy as np

CASES = [("classroom", 3, 4, 2), ("paper", 10, 512, 8), ("bert-base", 128, 768, 12), ("bert-long", 512, 768, 12)]


def trace(E, W_Q, W_K, W_V, W_O):
    # Every intermediate of every head is computed (as mha-tracer keeps them all).
    d_k = W_Q[0].shape[1]
    Z = []
    for i in range(len(W_Q)):
        Q, K, V = E @ W_Q[i], E @ W_K[i], E @ W_V[i]
        scores = Q @ K.T
        scaled = scores / np.sqrt(d_k)
        e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
        weights = e / e.sum(axis=1, keepdims=True)
        Z.append(weights @ V)
    concat = np.concatenate(Z, axis=1)
    return concat @ W_O


def open_safetensors(path):
    """name -> a function giving the tensor in float64 (F32, F16, BF16), read from the mapped file when called."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)

    def getter(meta):
        a, b = meta["data_offsets"]
        part = raw[a:b]
        if meta["dtype"] == "BF16":
            v = (part.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            v = part.view({"F32": np.float32, "F16": np.float16, "F64": np.float64}[meta["dtype"]])
        return lambda: v.astype(np.float64).reshape(meta["shape"])

    return {k: getter(v) for k, v in header.items() if k != "__metadata__"}


def llama_forward(cfg, T, ids):
    """modeling_llama.py in float64: RMSNorm, q/k/v, RoPE (rotate_half), repeat_kv, causal softmax, o_proj, SwiGLU."""
    h, heads, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, eps, n = h // heads, cfg["rms_norm_eps"], len(ids)
    embed = T["model.embed_tokens.weight"]()
    x = embed[ids]
    inv = 1.0 / cfg["rope_theta"] ** (np.arange(0, hd, 2) / hd)
    ang = np.outer(np.arange(n), inv)
    cos, sin = np.cos(np.concatenate([ang, ang], 1)), np.sin(np.concatenate([ang, ang], 1))

    def norm(v, w):
        return v / np.sqrt((v * v).mean(-1, keepdims=True) + eps) * w

    def rot(v):
        return v * cos + np.concatenate([-v[..., hd // 2:], v[..., :hd // 2]], -1) * sin

    mask = np.triu(np.full((n, n), -np.inf), 1)
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        a = norm(x, T[p + "input_layernorm.weight"]())
        q = (a @ T[p + "self_attn.q_proj.weight"]().T).reshape(n, heads, hd).transpose(1, 0, 2)
        k = (a @ T[p + "self_attn.k_proj.weight"]().T).reshape(n, kv, hd).transpose(1, 0, 2)
        v = (a @ T[p + "self_attn.v_proj.weight"]().T).reshape(n, kv, hd).transpose(1, 0, 2)
        k, v = np.repeat(rot(k), heads // kv, 0), np.repeat(v, heads // kv, 0)
        s = rot(q) @ k.transpose(0, 2, 1) / np.sqrt(hd) + mask
        w = np.exp(s - s.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        x = x + (w @ v).transpose(1, 0, 2).reshape(n, heads * hd) @ T[p + "self_attn.o_proj.weight"]().T
        a = norm(x, T[p + "post_attention_layernorm.weight"]())
        g, u = a @ T[p + "mlp.gate_proj.weight"]().T, a @ T[p + "mlp.up_proj.weight"]().T
        x = x + (g / (1 + np.exp(-g)) * u) @ T[p + "mlp.down_proj.weight"]().T
    last = norm(x[-1], T["model.norm.weight"]())
    head = embed if cfg.get("tie_word_embeddings") else T["lm_head.weight"]()
    logits = head @ last
    e = np.exp(logits - logits.max())
    return e / e.sum()


def bench_model(d, ids, reps):
    cfg = json.load(open(os.path.join(d, "config.json")))
    T = open_safetensors(os.path.join(d, "model.safetensors"))
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        llama_forward(cfg, T, ids)
        best = min(best, time.perf_counter() - t0)
    print("case=model tokens=%d seconds_per_forward=%.6f" % (len(ids), best), flush=True)


def blas_in_use():
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if any(k in path for k in ("blas", "lapack", "mkl", "blis")):
                libs.add(path)
    return sorted(libs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--case", help="one case only")
    ap.add_argument("--model", help="a Llama-shape checkpoint folder: its forward pass")
    ap.add_argument("--ids", help="the token ids, comma-separated (with --model)")
    args = ap.parse_args()
    reps = max(1, args.reps)
    if args.model:
        bench_model(args.model, [int(i) for i in args.ids.split(",")], reps)
        print("numpy=%s blas=%s" % (np.__version__, ",".join(blas_in_use()) or "?"))
        return
    for name, n, d_model, heads in CASES:
        if args.case and name != args.case:
            continue
        d_k = d_model // heads
        rng = np.random.default_rng(42)
        E = rng.normal(0, 1, (n, d_model))
        rng = np.random.default_rng(7)
        W_Q, W_K, W_V = [], [], []
        for _ in range(heads):
            W_Q.append(rng.normal(0, 1, (d_model, d_k)))
            W_K.append(rng.normal(0, 1, (d_model, d_k)))
            W_V.append(rng.normal(0, 1, (d_model, d_k)))
        W_O = rng.normal(0, 0.5, (heads * d_k, d_model))
        case_reps = (reps + 3) // 4 if n >= 512 else reps
        best = float("inf")
        for _ in range(case_reps):
            t0 = time.perf_counter()
            trace(E, W_Q, W_K, W_V, W_O)
            best = min(best, time.perf_counter() - t0)
        print(f"case={name} tokens={n} d_model={d_model} heads={heads} seconds_per_trace={best:.6f}", flush=True)
    print("numpy=%s blas=%s" % (np.__version__, ",".join(blas_in_use()) or "?"))


if __name__ == "__main__":
    main()
