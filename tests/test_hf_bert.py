#!/usr/bin/env python3
"""--model DIR --json on BERT checkpoints against a NumPy float64 reference written from modeling_bert.py (issue 40).

Writes tiny random BERT checkpoints in Hugging Face's layout (BertModel's bare names and BertForMaskedLM's "bert."
prefix; F32 in one file, BF16 in shards) with WordPiece tokenizers (tokenizer.json: BertNormalizer lowercasing
and stripping accents, or cased; BertPreTokenizer; the [CLS] ... [SEP] template or BertProcessing) and checks:
token ids exact (a reference BertNormalizer, BertPreTokenizer and WordPiece written here from Hugging Face's
tokenizers), every head's attention weights and the attention output (after attention.output.dense, before the
residual add and its LayerNorm) within 1e-9 at every layer, "next_token" null; then bad BERT checkpoints.

Usage: test_hf_bert.py MHA_TRACER [WORKDIR]
"""
import json
import os
import shutil
import sys
import tempfile
import unicodedata

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_hf_models as hf  # noqa: E402  (the checkpoint writers and the runner)

TOL = 1e-9
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


# ---- the tokenizer: BertNormalizer, BertPreTokenizer, WordPiece (tokenizers' normalizers/bert.rs, ...) ------

def is_chinese(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B920 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF
            or 0x2F800 <= cp <= 0x2FA1F)


def normalize(text, lower, strip):
    out = []
    for c in text:  # clean_text, handle_chinese_chars
        if ord(c) in (0, 0xFFFD) or (c not in "\t\n\r" and unicodedata.category(c)[0] == "C"):
            continue
        if c in "\t\n\r" or c.isspace():
            c = " "
        out.append(" %s " % c if is_chinese(ord(c)) else c)
    s = "".join(out)
    if strip:
        s = "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
    if lower:
        s = "".join(c.lower() for c in s)
    return s


def is_punct(c):
    o = ord(c)
    return 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126 or unicodedata.category(c)[0] == "P"


def pre_tokenize(s):
    words, cur = [], ""
    for c in s:
        if c.isspace():
            words.append(cur)
            cur = ""
        elif is_punct(c):
            words += [cur, c]
            cur = ""
        else:
            cur += c
    words.append(cur)
    return [w for w in words if w]


def wordpiece(word, vocab, unk="[UNK]", prefix="##", max_chars=100):
    if len(word) > max_chars:
        return [vocab[unk]]
    out, start = [], 0
    while start < len(word):
        end, cur = len(word), None
        while start < end:
            sub = (prefix if start > 0 else "") + word[start:end]
            if sub in vocab:
                cur = vocab[sub]
                break
            end -= 1
        if cur is None:
            return [vocab[unk]]
        out.append(cur)
        start = end
    return out


def encode(tok, text):
    norm = tok["normalizer"]
    lower = norm.get("lowercase", True)
    strip = norm.get("strip_accents")
    strip = lower if strip is None else strip
    vocab = tok["model"]["vocab"]
    ids = [vocab["[CLS]"]]
    added = {a["content"]: a["id"] for a in tok["added_tokens"]}
    import re
    for part in re.split("(" + "|".join(re.escape(a) for a in sorted(added, key=len, reverse=True)) + ")", text):
        if part in added:
            ids.append(added[part])
        elif part:
            for w in pre_tokenize(normalize(part, lower, strip)):
                ids += wordpiece(w, vocab)
    return ids + [vocab["[SEP]"]]


def display(tok, i):
    inv = {v: k for k, v in tok["model"]["vocab"].items()}
    return inv[i] if i in inv else "<%d>" % i


CORPUS = hf.CORPUS + " Naïve Café ÜBER résumé jalapeño "


def make_wordpiece(lower=True, bert_processing=False):
    words = pre_tokenize(normalize(CORPUS, lower, lower))
    vocab = {s: i for i, s in enumerate(SPECIALS)}
    for w in words:
        for k, c in enumerate(w):
            for t in (c, "##" + c):
                vocab.setdefault(t, len(vocab))
    for w in sorted(set(words)):
        if len(w) <= 4:
            vocab.setdefault(w, len(vocab))
        else:
            vocab.setdefault(w[:3], len(vocab))
            vocab.setdefault("##" + w[3:5], len(vocab))
    added = [{"id": vocab[s], "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for s in SPECIALS]
    if bert_processing:
        post = {"type": "BertProcessing", "sep": ["[SEP]", vocab["[SEP]"]], "cls": ["[CLS]", vocab["[CLS]"]]}
    else:
        post = {"type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                           {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                "pair": [], "special_tokens": {s: {"id": s, "ids": [vocab[s]], "tokens": [s]} for s in ("[CLS]", "[SEP]")}}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": lower},
            "pre_tokenizer": {"type": "BertPreTokenizer"}, "post_processor": post,
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": vocab}}


# ---- the checkpoint and the reference forward (modeling_bert.py) ------------------------------------------

def make_bert(root, name, rng, *, dtype="F32", hidden=16, heads=4, layers=2, inter=40, positions=64, types=2,
              tok=None, prefix="", shards=1, gamma_beta=False):
    d = os.path.join(root, name)
    os.makedirs(d)
    vocab = max(tok["model"]["vocab"].values()) + 3
    cfg = {"architectures": ["BertForMaskedLM" if prefix else "BertModel"], "model_type": "bert",
           "hidden_size": hidden, "num_attention_heads": heads, "num_hidden_layers": layers,
           "intermediate_size": inter, "hidden_act": "gelu", "max_position_embeddings": positions,
           "type_vocab_size": types, "layer_norm_eps": 1e-12, "vocab_size": vocab, "pad_token_id": 0,
           "position_embedding_type": "absolute", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1}
    names = [("embeddings.word_embeddings.weight", (vocab, hidden)),
             ("embeddings.position_embeddings.weight", (positions, hidden)),
             ("embeddings.token_type_embeddings.weight", (types, hidden)),
             ("embeddings.LayerNorm.weight", (hidden,)), ("embeddings.LayerNorm.bias", (hidden,))]
    for l in range(layers):
        p = "encoder.layer.%d." % l
        for m in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            names += [(p + m + ".weight", (hidden, hidden)), (p + m + ".bias", (hidden,))]
        names += [(p + "attention.output.LayerNorm.weight", (hidden,)), (p + "attention.output.LayerNorm.bias", (hidden,)),
                  (p + "intermediate.dense.weight", (inter, hidden)), (p + "intermediate.dense.bias", (inter,)),
                  (p + "output.dense.weight", (hidden, inter)), (p + "output.dense.bias", (hidden,)),
                  (p + "output.LayerNorm.weight", (hidden,)), (p + "output.LayerNorm.bias", (hidden,))]
    weights, entries = {}, []
    for n, shape in names:
        if n.endswith("LayerNorm.weight"):
            a = 1.0 + 0.2 * rng.standard_normal(shape)
        elif n.endswith("bias"):
            a = 0.1 * rng.standard_normal(shape)
        else:
            a = rng.standard_normal(shape) * (0.8 if n.startswith("embeddings") else 1.0 / np.sqrt(shape[-1]))
        raw, values = hf.stored(a, dtype)
        weights[n] = values
        if gamma_beta:  # the names of bert-base-uncased's own files: a LayerNorm's gamma and beta
            n = n.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
        entries.append((prefix + n, dtype, shape, raw))
    if prefix:  # BertForMaskedLM's head, which the forward pass does not read
        raw, _ = hf.stored(np.zeros(vocab), dtype)
        entries.append(("cls.predictions.bias", dtype, (vocab,), raw))
    hf.write_checkpoint(d, entries, shards)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False, indent=1)
    return d, cfg, weights


def gelu(x):
    from math import erf, sqrt
    return x * 0.5 * (1.0 + np.vectorize(erf)(x / sqrt(2.0)))


def reference(cfg, W, ids, layer):
    """BertModel.forward in float64: embeddings, then per layer self-attention, dense, LayerNorm(+h), MLP."""
    n, hd, heads, eps = len(ids), cfg["hidden_size"] // cfg["num_attention_heads"], cfg["num_attention_heads"], 1e-12
    e = "embeddings."
    h = (W[e + "word_embeddings.weight"][ids] + W[e + "token_type_embeddings.weight"][0]) \
        + W[e + "position_embeddings.weight"][:n]
    h = hf.layer_norm(h, W[e + "LayerNorm.weight"], W[e + "LayerNorm.bias"], eps)
    kept = None
    for l in range(cfg["num_hidden_layers"]):
        p = "encoder.layer.%d." % l

        def lin(x, m):
            return x @ W[p + m + ".weight"].T + W[p + m + ".bias"]
        q, k, v = lin(h, "attention.self.query"), lin(h, "attention.self.key"), lin(h, "attention.self.value")
        heads_w, zs = [], []
        for i in range(heads):
            s = q[:, i * hd:(i + 1) * hd] @ k[:, i * hd:(i + 1) * hd].T / np.sqrt(hd)
            w = np.exp(s - s.max(-1, keepdims=True))
            w /= w.sum(-1, keepdims=True)
            heads_w.append(w)
            zs.append(w @ v[:, i * hd:(i + 1) * hd])
        a = lin(np.concatenate(zs, 1), "attention.output.dense")
        if l == layer:
            kept = (heads_w, a)
        h = hf.layer_norm(a + h, W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"], eps)
        out = lin(gelu(lin(h, "intermediate.dense")), "output.dense")
        h = hf.layer_norm(out + h, W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], eps)
    return kept


def compare(exe, label, d, cfg, W, tok, text, layer):
    code, out, err = hf.run(exe, "--model", d, "--text", text, "--layer", str(layer), "--json")
    what = "%s layer %d %r" % (label, layer, text)
    if code != 0:
        hf.check(False, "%s: exit %d: %s" % (what, code, err.strip()))
        return 0.0
    got = json.loads(out)
    ids = encode(tok, text)
    hf.check(got["token_ids"] == ids, "%s: token ids %s, expected %s" % (what, got["token_ids"], ids))
    if got["token_ids"] != ids:
        return 0.0
    hf.check(got["tokens"] == [display(tok, i) for i in ids], "%s: tokens %s" % (what, got["tokens"]))
    hf.check(got.get("next_token", None) is None, "%s: next_token %r, expected null" % (what, got.get("next_token")))
    weights, output = reference(cfg, W, ids, layer)
    worst = 0.0
    for h in range(cfg["num_attention_heads"]):
        diff = np.abs(np.array(got["head"][h]["weights"]) - weights[h]).max()
        worst = max(worst, diff)
        hf.check(diff <= TOL, "%s: head %d weights differ by %g" % (what, h, diff))
    diff = np.abs(np.array(got["output"]) - output).max()
    worst = max(worst, diff)
    hf.check(diff <= TOL, "%s: output differs by %g" % (what, diff))
    return worst


TEXTS = ["The cat sat on the mat", "Hello, World! It's 1234567 THE Dog's LOG\n\n  end  ",
         "Naïve CAFÉ über 中文 x\ty résumé", "[CLS] the cat [SEP] [MASK]", "ß😀 the jalapeño, the\u00a0mat"]


def bad_cases(exe, root, good):
    def case(name, mutate, *words):
        d = os.path.join(root, "bad-bert-" + name)
        shutil.copytree(good, d)
        mutate(d)
        code, out, err = hf.run(exe, "--model", d, "--json")
        hf.check(code == 2 and all(w in err for w in words), "bad bert %s: exit %d, %r" % (name, code, err.strip()))

    def config(**kw):
        def mutate(d):
            p = os.path.join(d, "config.json")
            c = json.load(open(p))
            c.update(kw)
            json.dump(c, open(p, "w"))
        return mutate
    case("act", config(hidden_act="gelu_new"), "config.json", "hidden_act")
    case("relative", config(position_embedding_type="relative_key"), "config.json", "position_embedding_type")
    case("decoder", config(is_decoder=True), "config.json", "is_decoder")
    case("types", config(type_vocab_size=3), "embeddings.token_type_embeddings.weight", "shape")
    case("heads", config(num_attention_heads=3), "config.json", "num_attention_heads")
    code, out, err = hf.run(exe, "--model", good, "--text", "the cat " * 40, "--json")
    hf.check(code == 2 and "max_position_embeddings" in err, "bert past its positions: %d %r" % (code, err))


def older_files(exe, root, rng, built):
    """No tokenizer.json: GPT-2's vocab.json and merges.txt, BERT's vocab.txt (with tokenizer_config.json)."""
    import copy
    tok = hf.make_byte_level(hf.GPT2, bos=False)
    d, cfg, W = hf.make_gpt2(root, "gpt2-vocab-merges", rng, tok=tok)
    os.remove(os.path.join(d, "tokenizer.json"))
    vocab = dict(tok["model"]["vocab"])
    eot = len(vocab)
    vocab["<|endoftext|>"] = eot
    with open(os.path.join(d, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(d, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(m + "\n" for m in tok["model"]["merges"]))
    old = copy.deepcopy(tok)
    old["added_tokens"] = [{"id": eot, "content": "<|endoftext|>", "special": True}]
    worst = 0.0
    for text in hf.TEXTS[:3] + ["the cat<|endoftext|>The dog"]:
        for layer in range(cfg["n_layer"]):
            worst = max(worst, hf.compare(exe, "gpt2 vocab.json", d, cfg, W, old, text, layer))
    print("%-30s largest difference against the reference: %.3g" % ("gpt2 vocab.json + merges.txt", worst))
    for name, lower in (("bert-f32-uncased", True), ("bert-bf16-sharded-cased-mlm", False)):
        src, cfg, W, tok = built[name]
        d = os.path.join(root, name + "-vocab-txt")
        shutil.copytree(src, d)
        os.remove(os.path.join(d, "tokenizer.json"))
        inv = sorted(tok["model"]["vocab"].items(), key=lambda kv: kv[1])
        assert [i for _, i in inv] == list(range(len(inv)))
        with open(os.path.join(d, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t, _ in inv))
        with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
            json.dump({"do_lower_case": lower, "tokenizer_class": "BertTokenizer"}, f)
        worst = 0.0
        for text in TEXTS:
            worst = max(worst, compare(exe, name + " vocab.txt", d, cfg, W, tok, text, 0))
        print("%-30s largest difference against the reference: %.3g" % (name + " vocab.txt", worst))
    bad = os.path.join(root, "gpt2-no-merges")
    shutil.copytree(os.path.join(root, "gpt2-vocab-merges"), bad)
    os.remove(os.path.join(bad, "merges.txt"))
    code, out, err = hf.run(exe, "--model", bad, "--json")
    hf.check(code == 1 and "merges.txt" in err, "vocab.json without merges.txt: %d %r" % (code, err))
    with open(os.path.join(bad, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n")
    with open(os.path.join(bad, "vocab.json"), "w") as f:
        f.write('{"a": ')
    code, out, err = hf.run(exe, "--model", bad, "--json")
    hf.check(code == 2 and "vocab.json" in err, "vocab.json not JSON: %d %r" % (code, err))
    empty = os.path.join(root, "no-tokenizer")
    shutil.copytree(built["bert-f32-uncased"][0], empty)
    os.remove(os.path.join(empty, "tokenizer.json"))
    code, out, err = hf.run(exe, "--model", empty, "--json")
    hf.check(code == 1 and "tokenizer.json" in err and "vocab.txt" in err, "no tokenizer files: %d %r" % (code, err))


def repeated_lines(exe, root, bert):
    """vocab.txt with a line repeated: the token's id is its last line's (transformers' load_vocab:
    vocab[token] = index over the lines), and 120,000 lines read in linear time."""
    import time
    src, cfg, W, tok = bert
    d = os.path.join(root, "bert-vocab-repeated")
    shutil.copytree(src, d)
    os.remove(os.path.join(d, "tokenizer.json"))
    lines = [t for t, _ in sorted(tok["model"]["vocab"].items(), key=lambda kv: kv[1])]
    lines.append("cat")  # a second "cat", the last line
    while len(lines) < cfg["vocab_size"]:
        lines.append("[unused%d]" % len(lines))
    lines += ["w%d" % i for i in range(120000)]  # past vocab_size: read, never in the text
    with open(os.path.join(d, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(t + "\n" for t in lines))
    want = {}
    for i, t in enumerate(lines):  # load_vocab
        want[t] = i
    t0 = time.monotonic()
    code, out, err = hf.run(exe, "--model", d, "--text", "the cat sat", "--json")
    secs = time.monotonic() - t0
    print("vocab.txt of %d lines: --json in %.2f s" % (len(lines), secs))
    ids = json.loads(out)["token_ids"] if code == 0 else []
    hf.check(code == 0 and want["cat"] in ids and tok["model"]["vocab"]["cat"] not in ids,
             "a repeated vocab.txt line: ids %r, expected cat = %d (its last line): %r" % (ids, want["cat"], err))
    hf.check(secs < 30, "vocab.txt of %d lines took %.1f s" % (len(lines), secs))


def missing_gamma(exe, root, good):
    """A LayerNorm under neither name: the message names both."""
    d = os.path.join(root, "bert-no-gamma")
    shutil.copytree(good, d)
    p = os.path.join(d, "model.safetensors")
    raw = open(p, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    del header["bert.embeddings.LayerNorm.gamma"]
    h = json.dumps(header, separators=(",", ":")).encode()
    open(p, "wb").write(len(h + b" " * (n - len(h))).to_bytes(8, "little") + h + b" " * (n - len(h)) + raw[8 + n:])
    code, out, err = hf.run(exe, "--model", d, "--json")
    hf.check(code == 2 and "bert.embeddings.LayerNorm.weight" in err and "bert.embeddings.LayerNorm.gamma" in err,
             "no LayerNorm gamma: %d %r" % (code, err))


def main():
    exe = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="mha-bert-")
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(41)
    models = [("bert-f32-uncased", dict(dtype="F32", tok=make_wordpiece())),
              ("bert-bf16-sharded-cased-mlm", dict(dtype="BF16", tok=make_wordpiece(lower=False, bert_processing=True),
                                                   prefix="bert.", shards=3, hidden=24, heads=3, layers=3)),
              ("bert-gamma-beta", dict(dtype="F32", tok=make_wordpiece(), prefix="bert.", gamma_beta=True))]
    worst, built = {}, {}
    for name, kw in models:
        d, cfg, W = make_bert(root, name, rng, **kw)
        built[name] = (d, cfg, W, kw["tok"])
        worst[name] = 0.0
        for text in TEXTS:
            for layer in range(cfg["num_hidden_layers"]):
                worst[name] = max(worst[name], compare(exe, name, d, cfg, W, kw["tok"], text, layer))
    hf.save_lesson_round_trip(exe, root, "bert-f32-uncased", built["bert-f32-uncased"][0])
    code, out, err = hf.run(exe, "--model", built["bert-f32-uncased"][0], "--text", "the cat", "--trace")
    hf.check(code == 0 and "no next token" in out, "bert --trace: %d %r" % (code, err))
    for name, w in worst.items():
        print("%-30s largest difference against the reference: %.3g" % (name, w))
    older_files(exe, root, rng, built)
    bad_cases(exe, root, built["bert-f32-uncased"][0])
    repeated_lines(exe, root, built["bert-f32-uncased"])
    missing_gamma(exe, root, built["bert-gamma-beta"][0])
    if len(sys.argv) <= 2:
        shutil.rmtree(root)
    print("%d checks, %d failed" % (hf.checks, len(hf.failures)))
    if hf.checks == 0 or hf.failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
