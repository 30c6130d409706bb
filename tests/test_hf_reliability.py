#!/usr/bin/env python3
"""Checkpoints as people have them, and files made to hurt (--model): each ends as a correct result or a
clear refusal, exit 1 (a file absent, unreadable or not a file: I/O) or 2 (what a file says), naming the
file and the field, within a bounded time; never a crash, a hang or a silent wrong answer. Crafted
tokenizer.json, index.json, config.json, safetensors and --text; the tensors' numbers and the sliding
window against the float64 reference are in test_hf_models.py, BERT's gamma/beta and vocab.txt in
test_hf_bert.py, the mapped file that shrinks in test_safetensors.c.
Usage: test_hf_reliability.py MHA_TRACER [WORKDIR]"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_hf_models as hf  # noqa: E402  (the checkpoint writers and the runner)

LIMIT = 60  # seconds: a hang or a quadratic loop fails instead of waiting for ever


def run(exe, *args):
    t0 = time.monotonic()
    try:
        r = subprocess.run([exe, *args], capture_output=True, timeout=LIMIT)
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %d s" % LIMIT, LIMIT
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace"), \
        time.monotonic() - t0


def refused(exe, what, d, want, words, *extra):
    code, out, err, secs = run(exe, "--model", d, *extra)
    hf.check(code == want and out == "" and all(w in err for w in words),
             "%s: exit %d (expected %d) in %.1f s, %r; wanted %r" % (what, code, want, secs, err.strip(), words))
    return err


def copy(good, root, name):
    d = os.path.join(root, name)
    shutil.copytree(good, d)
    return d


def edit_json(path, change):
    j = json.load(open(path, encoding="utf-8"))
    change(j)
    json.dump(j, open(path, "w", encoding="utf-8"), ensure_ascii=False)


def set_tensor(d, name, fill):
    """Overwrites the tensor's numbers in model.safetensors (F32) with fill(numpy array)."""
    p = os.path.join(d, "model.safetensors")
    raw = bytearray(open(p, "rb").read())
    n = struct.unpack("<Q", raw[:8])[0]
    entry = json.loads(raw[8:8 + n])[name]
    a, b = entry["data_offsets"]
    values = np.frombuffer(bytes(raw[8 + n + a:8 + n + b]), dtype=np.float32).copy()
    fill(values)
    raw[8 + n + a:8 + n + b] = values.tobytes()
    open(p, "wb").write(bytes(raw))


def tokenizer_cases(exe, root, good):
    # 1. a post_processor Sequence of seven BertProcessing: more special tokens than are kept
    d = copy(good, root, "post-seven")
    bert = {"type": "BertProcessing", "cls": ["<s>", 0], "sep": ["</s>", 1]}
    edit_json(os.path.join(d, "tokenizer.json"),
              lambda t: t.update(post_processor={"type": "Sequence", "processors": [bert] * 7}))
    refused(exe, "seven BertProcessing", d, 2, ["tokenizer.json", "post_processor.processors"], "--json")
    # 6. a vocabulary key given twice: the last one's id (serde's map, Python's json)
    d = copy(good, root, "dup-key")
    p = os.path.join(d, "tokenizer.json")
    text = open(p, encoding="utf-8").read()
    tok = json.loads(text)
    vocab = tok["model"]["vocab"]
    code, out, err, _ = run(exe, "--model", good, "--text", "cat", "--json")
    want = json.loads(out)["token_ids"][-1] if code == 0 else -1
    key = next((k for k, v in vocab.items() if v == want), None)  # the text's last token
    last = 1000  # an id no other token has
    text = text.replace('"vocab": {', '"vocab": {%s: %d, ' % (json.dumps(key), last), 1) \
        if '"vocab": {' in text and key else None
    if text is None:
        hf.check(False, "the tokenizer.json has no '\"vocab\": {'")
        return
    # the key now comes first and again later: the later (original) id wins, as in tokenizers
    open(p, "w", encoding="utf-8").write(text)
    code, out, err, _ = run(exe, "--model", d, "--text", "cat", "--json")
    ids = json.loads(out)["token_ids"] if code == 0 else []
    hf.check(code == 0 and want in ids and last not in ids,
             "a repeated vocab key: ids %r, expected the last (%r) %r" % (ids, want, err))
    # 4. a long --text: refused past the token limit quickly, never quadratic
    for size in (32, 64, 120):
        long_text = ("the cat sat on the mat; " * (size * 1024 // 24 + 1))[:size * 1024]
        code, out, err, secs = run(exe, "--model", good, "--text", long_text, "--json")
        print("--text of %d KB: exit %d in %.2f s" % (size, code, secs))
        hf.check(code == 2 and "more than 512 tokens" in err and secs < 20,
                 "--text of %d KB: exit %d in %.1f s, %r" % (size, code, secs, err.strip()))
        word = "x" * (size * 1024)  # one piece, no space: BPE in n log n
        code, out, err, secs = run(exe, "--model", good, "--text", word, "--json")
        print("--text of one %d KB word: exit %d in %.2f s" % (size, code, secs))
        hf.check(code in (0, 2) and code != -1 and secs < 20, "one %d KB word: exit %d in %.1f s" % (size, code, secs))
    # 8. --text that is not UTF-8, or a lone surrogate: refused with its byte offset, nothing written
    for name, raw in (("byte ff", b"ab\xffcd"), ("surrogate", b"the \xed\xa0\x80 cat"), ("cut", b"caf\xc3")):
        out_path = os.path.join(root, "bad-text.json")
        r = subprocess.run([exe, "--model", good, "--text", raw, "--save-lesson", out_path], capture_output=True,
                           timeout=LIMIT)
        err = r.stderr.decode("utf-8", "replace")
        at = "byte %d" % next(i for i in range(len(raw)) if raw[i] >= 0x80)
        hf.check(r.returncode == 2 and "--text" in err and at in err and not os.path.exists(out_path),
                 "--text %s: exit %d %r" % (name, r.returncode, err.strip()))
        r = subprocess.run([exe, "--model", good, "--text", raw, "--json"], capture_output=True, timeout=LIMIT)
        hf.check(r.returncode == 2 and r.stdout == b"", "--json --text %s: exit %d" % (name, r.returncode))


def file_cases(exe, root, good, sharded):
    # 2. the index as a FIFO, a link to /dev/zero, a folder: refused as not a file, at once
    for name, make in (("fifo", lambda p: os.mkfifo(p)), ("zero", lambda p: os.symlink("/dev/zero", p)),
                       ("folder", lambda p: os.mkdir(p))):
        d = copy(sharded, root, "index-" + name)
        p = os.path.join(d, "model.safetensors.index.json")
        os.remove(p)
        make(p)
        refused(exe, "index.json as a " + name, d, 1, ["model.safetensors.index.json", "not a file"], "--json")
    # 11. model.safetensors as a FIFO or a device
    for name, make in (("fifo", lambda p: os.mkfifo(p)), ("device", lambda p: os.symlink("/dev/null", p))):
        d = copy(good, root, "weights-" + name)
        p = os.path.join(d, "model.safetensors")
        os.remove(p)
        make(p)
        refused(exe, "model.safetensors as a " + name, d, 1, ["model.safetensors", "not a file"], "--json")
    # 12. a missing folder: an I/O failure (exit 1); a broken config.json: its line and column
    refused(exe, "a missing folder", os.path.join(root, "no-such-folder"), 1, ["config.json"], "--json")
    d = copy(good, root, "config-broken")
    p = os.path.join(d, "config.json")
    open(p, "w").write('{\n  "model_type": "llama",\n  "hidden_size": 16,,\n}\n')
    refused(exe, "a broken config.json", d, 2, ["config.json:3:21", "not JSON"], "--json")
    d = copy(good, root, "config-zero")
    os.remove(os.path.join(d, "config.json"))
    os.symlink("/dev/zero", os.path.join(d, "config.json"))
    refused(exe, "config.json a link to /dev/zero", d, 1, ["config.json", "not a file"], "--json")


def number_cases(exe, root, good):
    # 7. a NaN in the final norm, the unembedding, an embedding row the text reads: named
    for name, tensor, fill in (("norm", "model.norm.weight", lambda v: v.__setitem__(3, np.nan)),
                               ("head", "lm_head.weight", lambda v: v.__setitem__(len(v) - 5, np.inf)),
                               ("embed", "model.embed_tokens.weight", lambda v: v.__setitem__(slice(None), np.nan))):
        d = copy(good, root, "nan-" + name)
        set_tensor(d, tensor, fill)
        refused(exe, "a NaN in " + tensor, d, 2, ["model.safetensors", tensor, "NaN"], "--json")


def config_cases(exe, root, good):
    # 10. what changes the math and is not read: refused by name
    for name, change, words in (
            ("partial-rotary", lambda c: c.update(partial_rotary_factor=0.5), ["partial_rotary_factor"]),
            ("layer-types-length", lambda c: c.update(model_type="qwen2", use_sliding_window=True, sliding_window=2,
                                                      layer_types=["sliding_attention"]), ["layer_types"]),
            ("layer-types-kind", lambda c: c.update(model_type="qwen2", use_sliding_window=True, sliding_window=2,
                                                    layer_types=["chunked_attention"] * c["num_hidden_layers"]),
             ["layer_types[0]"]),
            ("window-kind", lambda c: c.update(model_type="mistral", sliding_window="big"), ["sliding_window"])):
        d = copy(good, root, "config-" + name)
        edit_json(os.path.join(d, "config.json"), change)
        refused(exe, "config " + name, d, 2, ["config.json"] + words, "--json")


def main():
    exe = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="mha-hf-rel-")
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(47)
    tok = hf.make_byte_level(hf.LLAMA3, bos=True, merges_as_lists=True)
    good, _, _ = hf.make_model(root, "good", rng, model_type="llama", dtype="F32", tok=tok, layers=2)
    sharded, _, _ = hf.make_model(root, "sharded", rng, model_type="llama", dtype="F32", tok=tok, layers=2, shards=2)
    code, out, err, _ = run(exe, "--model", good, "--json")
    hf.check(code == 0, "the good checkpoint: exit %d %r" % (code, err))
    tokenizer_cases(exe, root, good)
    file_cases(exe, root, good, sharded)
    number_cases(exe, root, good)
    config_cases(exe, root, good)
    if len(sys.argv) <= 2:
        shutil.rmtree(root)
    print("%d checks, %d failed" % (hf.checks, len(hf.failures)))
    if hf.checks == 0 or hf.failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
