#!/usr/bin/env python3
"""--model DIR --head-scores on tiny checkpoints (made as tests/test_hf_models.py makes them): the probe's
token ids are BOS (where the tokenizer has one) then 20 random ids twice; each score agrees with the attention
weights --json prints for those ids (--ids), layer by layer, within 1e-12; the text output names the same heads.

Usage: test_head_scores.py MHA_TRACER   (skipped, or failed under MHA_REQUIRE_TOOLS: no numpy)
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from require_tool import missing_tool

try:
    import numpy as np
    import test_hf_models as hf
except ImportError:
    missing_tool("numpy (Debian: python3-numpy)")

EXE = sys.argv[1]
failures, checks = [], 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    r = subprocess.run([EXE] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def scores_from(weights, o, k):
    a = np.asarray(weights, dtype=float)
    n = a.shape[0]
    prev = np.mean([a[i, i - 1] for i in range(1, n)])
    dup = np.mean([a[i, i - k] for i in range(o + k, n)])
    ind = np.mean([a[i, i - k + 1] for i in range(o + k, n)])
    return prev, dup, ind


def model_case(d, layers, bos):
    code, out, err = run("--model", d, "--head-scores", "--json")
    check(code == 0, "%s: --head-scores --json: %s" % (d, err))
    if code:
        return
    got = json.loads(out)
    ids, k, o = got["token_ids"], got["repeat"], got["bos"]
    check(k == 20 and len(ids) == o + 2 * k and ids[o:o + k] == ids[o + k:], "%s: the probe repeats" % d)
    check((o > 0) == bos, "%s: BOS where the tokenizer has one (%d)" % (d, o))
    heads = {}
    for layer in range(layers):
        code, out, err = run("--model", d, "--ids", ",".join(map(str, ids)), "--layer", str(layer), "--json")
        check(code == 0, "%s: --ids --layer %d: %s" % (d, layer, err))
        if code:
            continue
        for h, head in enumerate(json.loads(out)["head"]):
            heads[(layer, h)] = scores_from(head["weights"], o, k)
    for s in got["heads"]:
        want = heads.get((s["layer"], s["head"]))
        check(want is not None and abs(want[0] - s["previous_token"]) <= 1e-12
              and abs(want[1] - s["duplicate_token"]) <= 1e-12 and abs(want[2] - s["induction"]) <= 1e-12,
              "%s: layer %d head %d agrees with --json's weights" % (d, s["layer"], s["head"]))
    check(len(got["heads"]) == len(heads), "%s: every head scored" % d)
    code, out, err = run("--model", d, "--head-scores")
    check(code == 0 and out.count("layer ") >= len(heads), "%s: the text report" % d)
    code, out, err = run("--model", d, "--head-scores", "--text", "x")
    check(code == 2 and "--head-scores" in err, "%s: --head-scores with --text refused" % d)


def main():
    rng = np.random.default_rng(48)
    with tempfile.TemporaryDirectory() as root:
        llama3 = hf.make_byte_level(hf.LLAMA3, bos=True, merges_as_lists=True)
        d, cfg, _ = hf.make_model(root, "llama", rng, model_type="llama", dtype="F32", tok=llama3)
        model_case(d, cfg["num_hidden_layers"], True)
        gpt2 = hf.make_byte_level(hf.GPT2, bos=False)
        d, cfg, _ = hf.make_gpt2(root, "gpt2", rng, dtype="F32", tok=gpt2, layers=2)
        model_case(d, cfg["n_layer"], False)
    print("%d checks, %d failed" % (checks, len(failures)))
    sys.exit(1 if failures or checks == 0 else 0)


main()
