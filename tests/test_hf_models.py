#!/usr/bin/env python3
"""--model DIR --json against a NumPy float64 reference written from Hugging Face's modeling_llama.py (issue 40).

Writes tiny random checkpoints in Hugging Face's exact layout (tensor names, shapes, config.json fields; F32, F16,
BF16; one file and shards with model.safetensors.index.json) with byte-level BPE tokenizers (GPT-2's, Llama 3's
and Qwen2's pre-tokenizer patterns, merges learnt here) and a SentencePiece-style one (byte fallback), runs
mha-tracer --model DIR --text T --layer L --json and checks: token ids exact, every head's attention weights and
the attention output (after o_proj, before the residual) within 1e-9, the top 5 next tokens and their
probabilities within 1e-9. Then bad checkpoints: exit 2 with the file and the field or tensor named.

Usage: test_hf_models.py MHA_TRACER [WORKDIR]
"""
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unicodedata

import numpy as np

TOL = 1e-9
checks = 0
failures = []


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL:", what)


# ---- Unicode classes and the pre-tokenizer patterns, as Python regexes -------------------------------------

def class_ranges(major):
    out, start = [], None
    for cp in range(0x110001):
        inside = cp < 0x110000 and unicodedata.category(chr(cp))[0] == major
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            out.append((start, cp - 1))
            start = None
    return "".join("\\U%08x-\\U%08x" % r for r in out)


WHITE_SPACE = "\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
LETTERS = class_ranges("L")
NUMBERS = class_ranges("N")

GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
          r"\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2 = LLAMA3.replace(r"\p{N}{1,3}", r"\p{N}")


def python_regex(pattern):
    """The pattern with \\p{L}, \\p{N}, \\s and \\S spelt out as Unicode's classes (Python's re has no \\p)."""
    out, inside, i = [], False, 0
    subs = {r"\p{L}": LETTERS, r"\p{N}": NUMBERS, r"\s": WHITE_SPACE}
    while i < len(pattern):
        two, five = pattern[i:i + 2], pattern[i:i + 5]
        if five in subs:
            out.append(subs[five] if inside else "[" + subs[five] + "]")
            i += 5
        elif two == r"\s":
            out.append(subs[two] if inside else "[" + subs[two] + "]")
            i += 2
        elif two == r"\S":
            out.append("[^" + WHITE_SPACE + "]")
            i += 2
        elif pattern[i] == "\\":
            out.append(two)
            i += 2
        else:
            if pattern[i] == "[":
                inside = True
            elif pattern[i] == "]":
                inside = False
            out.append(pattern[i])
            i += 1
    return re.compile("".join(out))


def bytes_to_unicode():
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


B2U = bytes_to_unicode()
U2B = {v: k for k, v in B2U.items()}


# ---- tokenizers: learnt on a small corpus, written as tokenizer.json, and the reference encoder --------------

CORPUS = ("The cat sat on the mat. The dog sat on the log. the cat and the dog, the mat and the log; "
          "it's the cat's mat, isn't it? 12345 67890 hello world\n\n  café naïve über 中文 ") * 3


def learn_bpe(words, merges_wanted):
    """Symbols of each word merged by frequency: the merges in order (most frequent pair first)."""
    seqs = [list(w) for w in words]
    merges = []
    for _ in range(merges_wanted):
        counts = {}
        for s in seqs:
            for a, b in zip(s, s[1:]):
                counts[(a, b)] = counts.get((a, b), 0) + 1
        if not counts:
            break
        best = max(sorted(counts), key=lambda p: counts[p])
        merges.append(best)
        for s in seqs:
            i = 0
            while i < len(s) - 1:
                if (s[i], s[i + 1]) == best:
                    s[i:i + 2] = [s[i] + s[i + 1]]
                i += 1
    return merges


def make_byte_level(pattern, bos, merges_as_lists=False, digits=False, nfc=False):
    """digits: SmolLM2's Digits pre-tokenizer first; nfc: Qwen2's NFC normalizer."""
    rx = python_regex(pattern)
    words = ["".join(B2U[b] for b in piece.encode()) for piece in rx.findall(CORPUS)]
    merges = learn_bpe(words, 60)
    vocab = {B2U[b]: i for i, b in enumerate(sorted(B2U))}
    for a, b in merges:
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    added = [{"id": len(vocab), "content": "<|begin_of_text|>", "special": True},
             {"id": len(vocab) + 1, "content": "<|end_of_text|>", "special": True}]
    if pattern == GPT2:
        pre = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    else:
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}
    if digits:
        pre = {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": True}, pre]}
    post = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True}
    if bos:
        post = {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                        {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [], "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>",
                                                                    "ids": [added[0]["id"]],
                                                                    "tokens": ["<|begin_of_text|>"]}}}]}
    tok = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
           "normalizer": {"type": "NFC"} if nfc else None,
           "pre_tokenizer": pre, "post_processor": post, "decoder": {"type": "ByteLevel"},
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                     "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                     "ignore_merges": pattern != GPT2, "vocab": vocab,
                     "merges": [[a, b] if merges_as_lists else a + " " + b for a, b in merges]}}
    return tok


def make_sentencepiece(metaspace=False):
    text = CORPUS.replace(" ", "\u2581")
    words = ["\u2581" + w for w in CORPUS.split(" ") if w]
    merges = learn_bpe([w.replace(" ", "\u2581") for w in words], 50)
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab["<0x%02X>" % b] = len(vocab)
    for ch in sorted(set(text) - {"\n"}):  # no newline token: it falls back to <0x0A>
        vocab.setdefault(ch, len(vocab))
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    added = [{"id": 0, "content": "<unk>", "special": True}, {"id": 1, "content": "<s>", "special": True},
             {"id": 2, "content": "</s>", "special": True}]
    normalizer = {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"},
                                                      {"type": "Replace", "pattern": {"String": " "},
                                                       "content": "\u2581"}]}
    pre = None
    if metaspace:  # transformers >= 4.38 writes Llama-2-style tokenizers this way
        normalizer = None
        pre = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True}
    return {"version": "1.0", "added_tokens": added, "normalizer": normalizer, "pre_tokenizer": pre,
            "post_processor": {"type": "TemplateProcessing",
                               "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                          {"Sequence": {"id": "A", "type_id": 0}}],
                               "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
            "decoder": None,
            "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "fuse_unk": True, "byte_fallback": True,
                      "ignore_merges": False, "vocab": vocab, "merges": [a + " " + b for a, b in merges]}}


def bpe(symbols, ranks):
    """GPT-2's bpe(): the lowest-ranked pair merged everywhere, again and again."""
    word = list(symbols)
    while len(word) > 1:
        pairs = [(ranks.get((a, b), 1 << 60), i) for i, (a, b) in enumerate(zip(word, word[1:]))]
        best = min(pairs)
        if best[0] == 1 << 60:
            break
        a, b = word[best[1]], word[best[1] + 1]
        out, i = [], 0
        while i < len(word):
            if i < len(word) - 1 and word[i] == a and word[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(word[i])
                i += 1
        word = out
    return word


def encode(tok, text):
    model = tok["model"]
    vocab = model["vocab"]
    merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    ranks = {m: i for i, m in enumerate(merges)}
    ids = []
    post = tok["post_processor"]
    procs = post["processors"] if post and post["type"] == "Sequence" else [post]
    for p in procs:
        if p and p["type"] == "TemplateProcessing":
            for item in p["single"]:
                if "SpecialToken" in item:
                    ids += p["special_tokens"][item["SpecialToken"]["id"]]["ids"]
    added = {a["content"]: a["id"] for a in tok["added_tokens"]}
    parts = re.split("(" + "|".join(re.escape(a) for a in sorted(added, key=len, reverse=True)) + ")", text)
    at = 0
    for part in parts:
        start, at = at, at + len(part)
        if part in added:
            ids.append(added[part])
            continue
        if not part:
            continue
        if model["byte_fallback"]:
            pre = tok["pre_tokenizer"]
            if pre:  # Metaspace: "▁" first only at the text's start, then split before each "▁"
                text_ = ("\u2581" if start == 0 else "") + part.replace(" ", "\u2581")
                pieces = re.findall("\u2581[^\u2581]*|[^\u2581]+", text_)
            else:
                pieces = ["\u2581" + part.replace(" ", "\u2581")]
            for piece in pieces:
                for sym in bpe(list(piece), ranks):
                    if sym in vocab:
                        ids.append(vocab[sym])
                    else:
                        ids += [vocab["<0x%02X>" % b] for b in sym.encode()]
            continue
        pre = tok["pre_tokenizer"]
        steps = pre["pretokenizers"] if pre["type"] == "Sequence" else [pre]
        pattern = GPT2
        segments = [part]
        for step in steps:
            if step["type"] == "Split":
                pattern = step["pattern"]["Regex"]
            if step["type"] == "Digits":  # each digit (\p{N}) alone
                segments = [x for x in re.split("([" + NUMBERS + "])", part) if x]
        pieces = [p for seg in segments for p in python_regex(pattern).findall(seg)]
        for piece in pieces:
            mapped = "".join(B2U[b] for b in piece.encode())
            if model["ignore_merges"] and mapped in vocab:
                ids.append(vocab[mapped])
                continue
            ids += [vocab[s] for s in bpe(list(mapped), ranks)]
    return ids


def display(tok, i):
    """The token as mha-tracer shows it: its bytes as text, a space as ▁, newline ↵, tab ⇥, other bytes <0xNN>."""
    inv = {v: k for k, v in tok["model"]["vocab"].items()}
    for a in tok["added_tokens"]:
        inv[a["id"]] = a["content"]
    if i not in inv:
        return "<%d>" % i  # a row of the embedding past the tokenizer's vocabulary
    s = inv[i]
    if any(a["id"] == i for a in tok["added_tokens"]):
        raw = s.encode()
    elif tok["model"]["byte_fallback"]:
        m = re.fullmatch(r"<0x([0-9A-F]{2})>", s)
        raw = bytes([int(m.group(1), 16)]) if m else s.replace("\u2581", " ").encode()
    else:
        raw = bytes(U2B[c] for c in s)
    out, k = [], 0
    while k < len(raw):
        for n in (1, 2, 3, 4):
            try:
                ch = raw[k:k + n].decode("utf-8")
                break
            except UnicodeDecodeError:
                ch = None
        if ch is None:
            out.append("<0x%02X>" % raw[k])
            k += 1
            continue
        k += len(ch.encode())
        if ch == " ":
            out.append("\u2581")
        elif ch == "\n":
            out.append("\u21b5")
        elif ch == "\t":
            out.append("\u21e5")
        elif ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append("<0x%02X>" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


# ---- checkpoints ------------------------------------------------------------------------------------------

def stored(a, dtype):
    """The array as the file stores it (bytes) and the float64 values the reader must see."""
    a32 = np.ascontiguousarray(a, dtype=np.float32)
    if dtype == "F32":
        return a32.tobytes(), a32.astype(np.float64)
    if dtype == "F16":
        h = a32.astype(np.float16)
        return h.tobytes(), h.astype(np.float64)
    bits = a32.view(np.uint32).astype(np.uint64)
    bf = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    back = (bf.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return bf.tobytes(), back


def write_safetensors(path, tensors):
    """tensors: [(name, dtype, shape, bytes)] -> a safetensors file (header padded to 8 bytes, as HF writes it)."""
    header, offset, blobs = {"__metadata__": {"format": "pt"}}, 0, []
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def write_checkpoint(d, entries, shards):
    """model.safetensors, or shards and model.safetensors.index.json as save_pretrained writes them."""
    if shards == 1:
        write_safetensors(os.path.join(d, "model.safetensors"), entries)
        return
    per = (len(entries) + shards - 1) // shards
    wmap = {}
    for s in range(shards):
        fname = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
        part = entries[s * per:(s + 1) * per]
        write_safetensors(os.path.join(d, fname), part)
        wmap.update({e[0]: fname for e in part})
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": wmap}, f, indent=2)


def make_model(root, name, rng, *, model_type="llama", dtype="F32", hidden=16, heads=4, kv=2, layers=3, inter=24,
               theta=10000.0, tie=False, shards=1, tok=None, sliding=None, eps=1e-5, extra_vocab=3, rope_scaling=None,
               max_positions=256, extra=None):
    d = os.path.join(root, name)
    os.makedirs(d)
    vocab = 1 + max(max(tok["model"]["vocab"].values()), max(a["id"] for a in tok["added_tokens"])) + extra_vocab
    hd = hidden // heads
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": model_type, "hidden_size": hidden,
           "num_attention_heads": heads, "num_key_value_heads": kv, "num_hidden_layers": layers,
           "intermediate_size": inter, "rms_norm_eps": eps, "rope_theta": theta, "vocab_size": vocab,
           "tie_word_embeddings": tie, "hidden_act": "silu", "max_position_embeddings": max_positions,
           "torch_dtype": {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype]}
    if model_type == "mistral":
        cfg["sliding_window"] = sliding
    if rope_scaling:
        cfg["rope_scaling"] = rope_scaling
    cfg.update(extra or {})
    names = [("model.embed_tokens.weight", (vocab, hidden))]
    for l in range(layers):
        p = "model.layers.%d." % l
        names += [(p + "input_layernorm.weight", (hidden,)),
                  (p + "self_attn.q_proj.weight", (heads * hd, hidden)),
                  (p + "self_attn.k_proj.weight", (kv * hd, hidden)),
                  (p + "self_attn.v_proj.weight", (kv * hd, hidden)),
                  (p + "self_attn.o_proj.weight", (hidden, heads * hd)),
                  (p + "post_attention_layernorm.weight", (hidden,)),
                  (p + "mlp.gate_proj.weight", (inter, hidden)),
                  (p + "mlp.up_proj.weight", (inter, hidden)),
                  (p + "mlp.down_proj.weight", (hidden, inter))]
        if model_type == "qwen2":
            names += [(p + "self_attn.q_proj.bias", (heads * hd,)), (p + "self_attn.k_proj.bias", (kv * hd,)),
                      (p + "self_attn.v_proj.bias", (kv * hd,))]
    names.append(("model.norm.weight", (hidden,)))
    if not tie:
        names.append(("lm_head.weight", (vocab, hidden)))
    weights, entries = {}, []
    for n, shape in names:
        if n.endswith("norm.weight"):
            a = 1.0 + 0.2 * rng.standard_normal(shape)
        else:
            a = rng.standard_normal(shape) * (0.8 if n.endswith("embed_tokens.weight") else 0.5 / np.sqrt(shape[-1]) * 2)
        raw, values = stored(a, dtype)
        weights[n] = values
        entries.append((n, dtype, shape, raw))
    write_checkpoint(d, entries, shards)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False, indent=1)
    return d, cfg, weights


def make_gpt2(root, name, rng, *, dtype="F32", hidden=16, heads=4, layers=2, positions=64, tok=None, prefix="",
              shards=1, inner=None):
    """A GPT-2 checkpoint as GPT2Model (bare names) or GPT2LMHeadModel (prefix "transformer.") saves it."""
    d = os.path.join(root, name)
    os.makedirs(d)
    vocab = 1 + max(max(tok["model"]["vocab"].values()), max(a["id"] for a in tok["added_tokens"])) + 2
    cfg = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": hidden, "n_head": heads,
           "n_layer": layers, "n_positions": positions, "n_ctx": positions, "vocab_size": vocab,
           "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new", "n_inner": inner}
    inner = inner or 4 * hidden
    names = [("wte.weight", (vocab, hidden)), ("wpe.weight", (positions, hidden))]
    for l in range(layers):
        p = "h.%d." % l
        names += [(p + "ln_1.weight", (hidden,)), (p + "ln_1.bias", (hidden,)),
                  (p + "attn.c_attn.weight", (hidden, 3 * hidden)), (p + "attn.c_attn.bias", (3 * hidden,)),
                  (p + "attn.c_proj.weight", (hidden, hidden)), (p + "attn.c_proj.bias", (hidden,)),
                  (p + "ln_2.weight", (hidden,)), (p + "ln_2.bias", (hidden,)),
                  (p + "mlp.c_fc.weight", (hidden, inner)), (p + "mlp.c_fc.bias", (inner,)),
                  (p + "mlp.c_proj.weight", (inner, hidden)), (p + "mlp.c_proj.bias", (hidden,))]
    names += [("ln_f.weight", (hidden,)), ("ln_f.bias", (hidden,))]
    weights, entries = {}, []
    for n, shape in names:
        if n.endswith("ln_1.weight") or n.endswith("ln_2.weight") or n == "ln_f.weight":
            a = 1.0 + 0.2 * rng.standard_normal(shape)
        elif n.endswith("bias"):
            a = 0.1 * rng.standard_normal(shape)
        else:
            a = rng.standard_normal(shape) * (0.8 if n in ("wte.weight", "wpe.weight") else 1.0 / np.sqrt(shape[0]))
        raw, values = stored(a, dtype)
        weights[n] = values
        entries.append((prefix + n, dtype, shape, raw))
    write_checkpoint(d, entries, shards)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False, indent=1)
    return d, cfg, weights


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def reference_gpt2(cfg, W, ids, layer):
    """modeling_gpt2.py in float64: GPT2Model.forward, GPT2Block, GPT2Attention (Conv1D: x @ W + b), GPT2MLP."""
    hidden, heads, eps, n = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"], len(ids)
    hd = hidden // heads
    h = W["wte.weight"][ids] + W["wpe.weight"][np.arange(n)]
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    kept = None
    for l in range(cfg["n_layer"]):
        p = "h.%d." % l
        x = layer_norm(h, W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
        qkv = x @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]
        q, k, v = (qkv[:, i * hidden:(i + 1) * hidden].reshape(n, heads, hd).transpose(1, 0, 2) for i in range(3))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
        scores = np.where(mask, -np.inf, scores)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        z = (weights @ v).transpose(1, 0, 2).reshape(n, hidden)
        out = z @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
        if l == layer:
            kept = (weights, out)
        h = h + out
        x = layer_norm(h, W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps)
        f = x @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"]
        f = 0.5 * f * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (f + 0.044715 * f ** 3)))  # NewGELUActivation
        h = h + f @ W[p + "mlp.c_proj.weight"] + W[p + "mlp.c_proj.bias"]
    h = layer_norm(h, W["ln_f.weight"], W["ln_f.bias"], eps)
    logits = h[-1] @ W["wte.weight"].T
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    return kept[0], kept[1], probs


# ---- the reference forward (modeling_llama.py, float64) ---------------------------------------------------

def rms_norm(x, w, eps):
    variance = (x ** 2).mean(-1, keepdims=True)  # LlamaRMSNorm.forward
    return w * (x / np.sqrt(variance + eps))


def rotate_half(x):
    d = x.shape[-1] // 2
    return np.concatenate([-x[..., d:], x[..., :d]], axis=-1)


def rope_inv_freq(cfg, hd, n):
    """modeling_rope_utils.py's ROPE_INIT_FUNCTIONS in float64: default, linear, dynamic (seq_len = n), llama3."""
    base = cfg["rope_theta"]
    scaling = cfg.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "dynamic":  # _compute_dynamic_ntk_parameters
        max_pos, factor = cfg["max_position_embeddings"], scaling["factor"]
        seq_len = n if n > max_pos else max_pos
        base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (hd / (hd - 2))
    inv_freq = 1.0 / (base ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
    if kind == "linear":  # _compute_linear_scaling_rope_parameters
        inv_freq = inv_freq / scaling["factor"]
    if kind == "llama3":  # _compute_llama3_parameters
        factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
        old_context_len = scaling["original_max_position_embeddings"]
        low_freq_wavelen, high_freq_wavelen = old_context_len / low, old_context_len / high
        wavelen = 2 * math.pi / inv_freq
        inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
        smooth_factor = (old_context_len / wavelen - low) / (high - low)
        smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
        is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
        inv_freq = np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)
    return inv_freq


def layer_windows(cfg):
    """Each layer's sliding window or None, as transformers' attention classes read the config: MistralAttention
    every layer's config.sliding_window; Qwen2 (Qwen2Config: sliding_window None unless use_sliding_window) the
    layers layer_types calls "sliding_attention", without layer_types those from max_window_layers on."""
    layers = cfg["num_hidden_layers"]
    if cfg["model_type"] == "mistral":
        return [cfg.get("sliding_window")] * layers
    if cfg["model_type"] != "qwen2":
        return [None] * layers
    sw = cfg.get("sliding_window") if cfg.get("use_sliding_window") else None
    types = cfg.get("layer_types") or ["sliding_attention" if sw is not None and l >= cfg.get("max_window_layers", 28)
                                       else "full_attention" for l in range(layers)]
    return [sw if t == "sliding_attention" else None for t in types]


def reference(cfg, W, ids, layer):
    hidden, heads, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, eps, n = hidden // heads, cfg["rms_norm_eps"], len(ids)
    qkv_bias = cfg["model_type"] == "qwen2"
    # LlamaRotaryEmbedding: inv_freq = 1 / theta^(arange(0, d, 2) / d) (rope_inv_freq: rope_scaling's);
    # emb = cat(freqs, freqs)
    inv_freq = rope_inv_freq(cfg, hd, n)
    freqs = np.outer(np.arange(n, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    causal = np.triu(np.ones((n, n), dtype=bool), 1)
    i, j = np.indices((n, n))
    windows = layer_windows(cfg)
    h = W["model.embed_tokens.weight"][ids]
    kept = None
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        x = rms_norm(h, W[p + "input_layernorm.weight"], eps)

        def proj(name, count):
            y = x @ W[p + "self_attn.%s.weight" % name].T
            if qkv_bias:
                y = y + W[p + "self_attn.%s.bias" % name]
            return y.reshape(n, count, hd).transpose(1, 0, 2)

        q, k, v = proj("q_proj", heads), proj("k_proj", kv), proj("v_proj", kv)
        q = q * cos + rotate_half(q) * sin  # apply_rotary_pos_emb
        k = k * cos + rotate_half(k) * sin
        k = np.repeat(k, heads // kv, axis=0)  # repeat_kv
        v = np.repeat(v, heads // kv, axis=0)
        scores = q @ k.transpose(0, 2, 1) * hd ** -0.5
        mask = causal | (j <= i - windows[l]) if windows[l] else causal  # sliding_window's mask
        scores = np.where(mask, -np.inf, scores)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        z = (weights @ v).transpose(1, 0, 2).reshape(n, heads * hd)
        out = z @ W[p + "self_attn.o_proj.weight"].T
        if l == layer:
            kept = (weights, out)
        h = h + out
        x = rms_norm(h, W[p + "post_attention_layernorm.weight"], eps)
        g = x @ W[p + "mlp.gate_proj.weight"].T
        u = x @ W[p + "mlp.up_proj.weight"].T
        h = h + (g / (1 + np.exp(-g)) * u) @ W[p + "mlp.down_proj.weight"].T
    h = rms_norm(h, W["model.norm.weight"], eps)
    head = W["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else W["lm_head.weight"]
    logits = h[-1] @ head.T
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    return kept[0], kept[1], probs


# ---- running mha-tracer -----------------------------------------------------------------------------------

def run(exe, *args):
    r = subprocess.run([exe, *args], capture_output=True)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def compare(exe, label, d, cfg, W, tok, text, layer):
    code, out, err = run(exe, "--model", d, "--text", text, "--layer", str(layer), "--json")
    what = "%s layer %d %r" % (label, layer, text)
    if code != 0:
        check(False, "%s: exit %d: %s" % (what, code, err.strip()))
        return 0.0
    got = json.loads(out)
    ids = encode(tok, text)
    check(got["token_ids"] == ids, "%s: token ids %s, expected %s" % (what, got["token_ids"], ids))
    if got["token_ids"] != ids:
        return 0.0
    check(got["tokens"] == [display(tok, i) for i in ids],
          "%s: tokens %s, expected %s" % (what, got["tokens"], [display(tok, i) for i in ids]))
    ref = reference_gpt2 if cfg["model_type"] == "gpt2" else reference
    weights, output, probs = ref(cfg, W, ids, layer)
    worst = 0.0
    for h in range(cfg.get("num_attention_heads") or cfg["n_head"]):
        w = np.array(got["head"][h]["weights"], dtype=np.float64)
        diff = np.abs(w - weights[h]).max()
        worst = max(worst, diff)
        check(diff <= TOL, "%s: head %d weights differ by %g" % (what, h, diff))
    diff = np.abs(np.array(got["output"]) - output).max()
    worst = max(worst, diff)
    check(diff <= TOL, "%s: output differs by %g" % (what, diff))
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))[:5]
    check([t["id"] for t in got["next_token"]] == order,
          "%s: next tokens %s, expected %s" % (what, [t["id"] for t in got["next_token"]], order))
    for t in got["next_token"]:
        diff = abs(t["p"] - probs[t["id"]])
        worst = max(worst, diff)
        check(diff <= TOL, "%s: p(%d) differs by %g" % (what, t["id"], diff))
        check(t["token"] == display(tok, t["id"]), "%s: next token %d shown %r" % (what, t["id"], t["token"]))
    return worst


def rope_scaling_cases(exe, root, built, models, rng):
    """The scaled models' checks above could fail: without rope_scaling the reference's output moves by more than
    the tolerance on some text. --save-lesson keeps the scaling: the lesson traces the layer's bits."""
    for name, kw in models:
        if not kw.get("rope_scaling"):
            continue
        _, cfg, W = make_model(root, name + "-unscaled", rng, **kw)
        moved = 0.0
        for text in TEXTS:
            ids = encode(kw["tok"], text)
            scaled, plain = reference(cfg, W, ids, 1)[1], reference(dict(cfg, rope_scaling=None), W, ids, 1)[1]
            moved = max(moved, float(np.abs(scaled - plain).max()))
        check(moved > 1e-6, "%s: rope_scaling moves the output by %g only" % (name, moved))
    for name in ("llama3-rope-scaling", "llama-rope-linear"):
        save_lesson_round_trip(exe, root, name, built[name])
        lesson = json.load(open(os.path.join(root, name + "-layer1.json")))
        check(lesson.get("rope", {}).get("scaling", {}).get("type") in ("llama3", "linear"),
              "%s: the saved lesson's rope has its scaling: %r" % (name, lesson.get("rope")))


def save_lesson_round_trip(exe, root, name, d):
    """--save-lesson writes layer 1 as a lesson whose own --json has the same weights and output, bit for bit."""
    path = os.path.join(root, name + "-layer1.json")
    text = "The cat sat on the mat, 42 times."
    code, out, err = run(exe, "--model", d, "--text", text, "--layer", "1", "--save-lesson", path)
    check(code == 0 and out.strip() == "wrote " + path, "%s --save-lesson: %d %r %r" % (name, code, out, err))
    if code != 0:
        return
    code, lesson_out, err = run(exe, "--json", path)
    code2, model_out, err2 = run(exe, "--model", d, "--text", text, "--layer", "1", "--json")
    check(code == 0 and code2 == 0, "%s: the saved lesson's --json: %d %r" % (name, code, err))
    if code or code2:
        return
    a, b = json.loads(lesson_out), json.loads(model_out)
    same = a["output"] == b["output"] and all(x["weights"] == y["weights"] for x, y in zip(a["head"], b["head"]))
    check(same and a["tokens"] == b["tokens"] and a["title"] == b["title"],
          "%s: the saved lesson traces otherwise than the model's layer" % name)
    code, out, err = run(exe, "--check", path)
    check(code == 0, "%s: --check of the saved lesson: %d %r" % (name, code, err))


def cli_cases(exe, d):
    """The options around --model: what goes with it and what does not (yet). Without --json, --trace or
    --save-lesson the window opens (tests/test_gui_model.sh); a head past the model's is refused before it."""
    code, out, err = run(exe, "--model", d, "--text", "The cat", "--trace")
    check(code == 0 and "==== The model ====" in out and "next token after the last position" in out,
          "--model --trace: %d %r" % (code, err))
    for args, word in [(["--text", "x", "--json"], "--model DIR"), (["--layer", "1", "--trace"], "--model DIR"),
                       (["--model", d, "--head", "9"], "--head 9: the model has 4 heads"),
                       (["--model", d, "--json", "--head", "1"], "--head"),
                       (["--model", d, "--json", "--ablate", "0"], "--ablate"),
                       (["--model", d, "--json", "--layer", "x"], "--layer"),
                       (["--model", d, "--json", "lessons/the-cat-sat.json"], "no lesson file"),
                       (["--save-lesson", "x.json"], "--model DIR")]:
        code, out, err = run(exe, *args)
        check(code == 2 and word in err and out == "", "%s: exit %d, %r" % (" ".join(args), code, err))


LLAMA3_SCALING = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 64}
TEXTS = ["The cat sat on the mat", "Hello, world! it's 1234567 THE dog's LOG\n\n  end  ",
         "naïve café über 中文 x\ty", "<|begin_of_text|>the cat<|end_of_text|>", "the<s> cat  sat</s>"]


def bad_cases(exe, root, good, rng):
    """Bad checkpoints: each must exit 2 (1: a file absent) and name the file and the field or tensor."""
    def case(name, mutate, *names, layer=0, want=2):
        d = os.path.join(root, "bad-" + name)
        shutil.copytree(good, d)
        mutate(d)
        code, out, err = run(exe, "--model", d, "--layer", str(layer), "--json")
        check(code == want, "bad %s: exit %d (stderr %r)" % (name, code, err.strip()))
        for n in names:
            check(n in err, "bad %s: %r not named in %r" % (name, n, err.strip()))
        check(out == "", "bad %s: printed %d bytes" % (name, len(out)))

    def edit_config(**kw):
        def f(d):
            p = os.path.join(d, "config.json")
            cfg = json.load(open(p))
            for k, v in kw.items():
                if v is None:
                    cfg.pop(k, None)
                else:
                    cfg[k] = v
            json.dump(cfg, open(p, "w"))
        return f

    st = "model.safetensors"
    case("no-config", lambda d: os.remove(os.path.join(d, "config.json")), "config.json", want=1)
    case("model-type", edit_config(model_type="falcon"), "config.json", "model_type")
    case("no-hidden", edit_config(hidden_size=None), "config.json", "hidden_size")
    case("hidden-size", edit_config(hidden_size=24), "model.embed_tokens.weight", "config.json", "shape")
    case("layers", edit_config(num_hidden_layers=4), "model.layers.3.", st)
    case("layer-range", lambda d: None, "config.json", "num_hidden_layers", layer=3)
    case("kv", edit_config(num_key_value_heads=3), "config.json", "num_key_value_heads")
    case("scaling-keys", edit_config(rope_scaling={"rope_type": "llama3", "factor": 8.0}), "config.json",
         "rope_scaling.low_freq_factor")
    case("scaling-type", edit_config(rope_scaling={"rope_type": "yarn", "factor": 4.0}), "config.json",
         "rope_scaling.rope_type", "yarn")
    case("scaling-bands", edit_config(rope_scaling=dict(LLAMA3_SCALING, high_freq_factor=1.0)), "config.json",
         "rope_scaling.high_freq_factor")
    case("scaling-factor", edit_config(rope_scaling={"rope_type": "linear", "factor": -2}), "config.json",
         "rope_scaling.factor")

    def truncate(d):
        p = os.path.join(d, st)
        size = os.path.getsize(p)
        with open(p, "r+b") as f:
            f.truncate(size - 10)
    case("truncated", truncate, st, "data_offsets")

    def header_length(d):
        p = os.path.join(d, st)
        with open(p, "r+b") as f:
            f.write(struct.pack("<Q", 1 << 40))
    case("header-length", header_length, st, "header")

    def lying(d):  # a tensor's end moved past the file, the header's length unchanged
        p = os.path.join(d, st)
        raw = open(p, "rb").read()
        n = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8:8 + n])
        header["model.norm.weight"]["data_offsets"][1] += 1 << 30
        h = json.dumps(header, separators=(",", ":")).encode()
        h = h[:n] if len(h) >= n else h + b" " * (n - len(h))
        open(p, "wb").write(raw[:8] + h + raw[8 + n:])
    case("lying-offsets", lying, st, "model.norm.weight")

    def wrong_shape(d):
        p = os.path.join(d, st)
        raw = open(p, "rb").read()
        n = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8:8 + n])
        header["model.norm.weight"]["shape"] = [8, 2]
        h = json.dumps(header, separators=(",", ":")).encode()
        h = h + b" " * (n - len(h))
        open(p, "wb").write(raw[:8] + h + raw[8 + n:])
    case("wrong-shape", wrong_shape, st, "model.norm.weight", "shape")

    def drop_tensor(d):
        p = os.path.join(d, st)
        raw = open(p, "rb").read()
        n = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8:8 + n])
        del header["model.layers.1.mlp.up_proj.weight"]
        h = json.dumps(header, separators=(",", ":")).encode()
        h = h + b" " * (n - len(h))
        open(p, "wb").write(raw[:8] + h + raw[8 + n:])
    case("missing-tensor", drop_tensor, st, "model.layers.1.mlp.up_proj.weight")
    case("no-tokenizer", lambda d: os.remove(os.path.join(d, "tokenizer.json")), "tokenizer.json", want=1)
    case("no-weights", lambda d: os.remove(os.path.join(d, st)), st, want=1)


def bad_shards(exe, root, sharded):
    d = os.path.join(root, "bad-shard")
    shutil.copytree(sharded, d)
    os.remove(os.path.join(d, "model-00002-of-00002.safetensors"))
    code, out, err = run(exe, "--model", d, "--json")
    check(code == 1 and "model-00002-of-00002.safetensors" in err and "index.json" in err,
          "missing shard: exit %d, %r" % (code, err.strip()))
    d = os.path.join(root, "bad-shard-map")
    shutil.copytree(sharded, d)
    p = os.path.join(d, "model.safetensors.index.json")
    idx = json.load(open(p))
    idx["weight_map"]["model.extra.weight"] = "model-00001-of-00002.safetensors"
    json.dump(idx, open(p, "w"))
    code, out, err = run(exe, "--model", d, "--json")
    check(code == 2 and "model.extra.weight" in err, "tensor missing from its shard: exit %d, %r" % (code, err.strip()))
    d = os.path.join(root, "bad-shard-path")
    shutil.copytree(sharded, d)
    p = os.path.join(d, "model.safetensors.index.json")
    idx = json.load(open(p))
    idx["weight_map"]["model.norm.weight"] = "../elsewhere.safetensors"
    json.dump(idx, open(p, "w"))
    code, out, err = run(exe, "--model", d, "--json")
    check(code == 2 and "model.norm.weight" in err, "shard outside the folder: exit %d, %r" % (code, err.strip()))


def main():
    exe = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="mha-hf-")
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(40)
    llama3 = make_byte_level(LLAMA3, bos=True, merges_as_lists=True)
    gpt2 = make_byte_level(GPT2, bos=False)
    qwen2 = make_byte_level(QWEN2, bos=False, nfc=True)
    smol = make_byte_level(GPT2, bos=False, digits=True)
    sp = make_sentencepiece()
    models = [
        ("llama-f32", dict(model_type="llama", dtype="F32", tok=llama3)),
        ("llama-bf16-sharded-tied", dict(model_type="llama", dtype="BF16", tok=gpt2, tie=True, shards=2,
                                         theta=500000.0)),
        ("qwen2-f16-mqa", dict(model_type="qwen2", dtype="F16", tok=qwen2, kv=1, hidden=24, heads=3, layers=2)),
        ("mistral-window", dict(model_type="mistral", dtype="F32", tok=sp, sliding=3, kv=4)),
        # Qwen2's window: layers 1 and 2 windowed (max_window_layers 1), then layer_types naming layer 0 and 2.
        ("qwen2-window", dict(model_type="qwen2", dtype="F32", tok=qwen2, layers=3,
                              extra={"use_sliding_window": True, "sliding_window": 2, "max_window_layers": 1})),
        ("qwen2-layer-types", dict(model_type="qwen2", dtype="F32", tok=qwen2, layers=3,
                                   extra={"use_sliding_window": True, "sliding_window": 3, "layer_types": [
                                       "sliding_attention", "full_attention", "sliding_attention"]})),
        ("llama-metaspace", dict(model_type="llama", dtype="F32", tok=make_sentencepiece(metaspace=True), layers=2)),
        # RoPE scaling (Llama 3.1/3.2's llama3; linear under its old key "type"; dynamic past 8 positions): d = 16,
        # so that llama3's 8 frequencies fall in all three of its bands (wavelength under 16, 16 to 64, over 64).
        ("llama3-rope-scaling", dict(model_type="llama", dtype="BF16", tok=llama3, hidden=32, heads=2, kv=1, layers=2,
                                     rope_scaling=LLAMA3_SCALING)),
        ("llama-rope-linear", dict(model_type="llama", dtype="F32", tok=gpt2, hidden=32, heads=2, kv=2, layers=2,
                                   rope_scaling={"type": "linear", "factor": 4.0})),
        ("llama-rope-dynamic", dict(model_type="llama", dtype="F32", tok=gpt2, hidden=32, heads=2, kv=2, layers=2,
                                    rope_scaling={"rope_type": "dynamic", "factor": 2.0}, max_positions=8)),
    ]
    worst = {}
    built = {}
    for name, kw in models:
        d, cfg, W = make_model(root, name, rng, **kw)
        built[name] = d
        worst[name] = 0.0
        for text in TEXTS:
            for layer in range(cfg["num_hidden_layers"]):
                worst[name] = max(worst[name], compare(exe, name, d, cfg, W, kw["tok"], text, layer))
    gpt2s = [("gpt2-f32-lmhead", dict(dtype="F32", tok=smol, prefix="transformer.")),
             ("gpt2-f16-sharded", dict(dtype="F16", tok=gpt2, shards=3, hidden=24, heads=3, layers=3, inner=40))]
    for name, kw in gpt2s:
        d, cfg, W = make_gpt2(root, name, rng, **kw)
        built[name] = d
        worst[name] = 0.0
        for text in TEXTS:
            for layer in range(cfg["n_layer"]):
                worst[name] = max(worst[name], compare(exe, name, d, cfg, W, kw["tok"], text, layer))
    for name in ("llama-f32", "qwen2-f16-mqa", "mistral-window", "gpt2-f16-sharded"):
        save_lesson_round_trip(exe, root, name, built[name])
    rope_scaling_cases(exe, root, built, models, rng)
    # NFC: a combining mark joins its letter before the tokens are found (tests/test_tokenizer_js.sh has more).
    code, out, err = run(exe, "--model", built["qwen2-f16-mqa"], "--text", "cafe\u0301 a\u0328\u0301", "--json")
    code2, out2, err2 = run(exe, "--model", built["qwen2-f16-mqa"], "--text", "caf\u00e9 \u0105\u0301", "--json")
    check(code == 0 and code2 == 0 and json.loads(out)["token_ids"] == json.loads(out2)["token_ids"],
          "NFC: a combining mark composed: %d %r / %d %r" % (code, err, code2, err2))
    cli_cases(exe, built["llama-f32"])
    long_text = "the cat " * 40  # 80 tokens past the 64 positions
    code, out, err = run(exe, "--model", built["gpt2-f32-lmhead"], "--text", long_text, "--json")
    check(code == 2 and "n_positions" in err and "config.json" in err, "gpt2 past n_positions: %d %r" % (code, err))
    for name, w in worst.items():
        print("%-26s largest difference against the reference: %.3g" % (name, w))
    bad_cases(exe, root, built["llama-f32"], rng)
    bad_shards(exe, root, built["llama-bf16-sharded-tied"])
    if len(sys.argv) <= 2:
        shutil.rmtree(root)
    print("%d checks, %d failed" % (checks, len(failures)))
    if checks == 0 or failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
