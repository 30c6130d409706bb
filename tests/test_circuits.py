#!/usr/bin/env python3
"""Lessons of layers against a float64 PyTorch reference.

Random explicit lessons (1 to 3 layers, 1 to 4 heads, small vocabularies, biases, causal masks or
none, positions with more rows than tokens, the list form and the one-object form of "weights"):
--json's residual stream, every layer's weights and attention, the logits and the loss within
1e-12, --grad's gradient within 1e-9 of torch.autograd. Then the lesson's own errors (the field
path named, exit 2), --ablate L:H against the reference with that head's Z zeroed, a random
{"random": ...} lesson of L layers drawn from one stream, and --train: a short run that writes an
explicit lesson which loads and trains again.

Usage: test_circuits.py MHA_TRACER   (skipped, or failed under MHA_REQUIRE_TOOLS: no torch)
"""
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from require_tool import missing_tool

try:
    import numpy as np
    import torch
except ImportError:
    missing_tool("numpy and torch (Debian: python3-numpy, python3-torch)")

torch.set_default_dtype(torch.float64)
EXE = sys.argv[1]
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(args, lesson=None):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "l.json")
        if lesson is not None:
            with open(path, "w") as f:
                json.dump(lesson, f)
        args = [a if a != "LESSON" else path for a in args]
        return subprocess.run([EXE] + args, capture_output=True, text=True)


def random_lesson(rng, layers, heads, vocab, n, d_k, causal, biases, list_form, extra_pos):
    d = heads * d_k if rng.random() < 0.5 else int(rng.integers(2, 9))
    words = ["w%d" % i for i in range(vocab)]
    tokens = [words[int(i)] for i in rng.integers(0, vocab, n)]
    def mat(r, c, s=0.6):
        return (rng.normal(0, s, (r, c))).round(6).tolist()
    ws = []
    for _ in range(layers):
        w = {"W_Q": [mat(d, d_k) for _ in range(heads)], "W_K": [mat(d, d_k) for _ in range(heads)],
             "W_V": [mat(d, d_k) for _ in range(heads)], "W_O": mat(heads * d_k, d)}
        if biases:
            w["b_Q"] = mat(heads, d_k, 0.2)
            w["b_K"] = mat(heads, d_k, 0.2)
            w["b_V"] = mat(heads, d_k, 0.2)
            w["b_O"] = mat(1, d, 0.2)[0]
        ws.append(w)
    lesson = {"title": "random circuit", "vocabulary": words, "tokens": tokens, "heads": heads,
              "d_k": d_k, "token_embeddings": mat(vocab, d, 1.0),
              "positions": mat(n + extra_pos, d, 0.5), "unembedding": mat(d, vocab, 1.0),
              "weights": ws if (list_form or layers > 1) else ws[0]}
    if causal:
        lesson["mask"] = "causal"
    return lesson


def reference(lesson, ablated=()):
    """The forward pass in torch float64, with every leaf requiring a gradient."""
    V = len(lesson["vocabulary"])
    ids = [lesson["vocabulary"].index(t) for t in lesson["tokens"]]
    n = len(ids)
    ws = lesson["weights"] if isinstance(lesson["weights"], list) else [lesson["weights"]]
    H, dk = lesson["heads"], lesson["d_k"]
    E = torch.tensor(lesson["token_embeddings"], requires_grad=True)
    P = torch.tensor(lesson["positions"], requires_grad=True)
    U = torch.tensor(lesson["unembedding"], requires_grad=True)
    d = E.shape[1]
    leaves = []
    x = E[ids] + P[:n]
    xs = [x]
    attn = []
    for li, w in enumerate(ws):
        t = {k: torch.tensor(w[k], requires_grad=True) for k in ("W_Q", "W_K", "W_V", "W_O")}
        for k, shape in (("b_Q", (H, dk)), ("b_K", (H, dk)), ("b_V", (H, dk)), ("b_O", (d,))):
            t[k] = torch.tensor(w[k] if k in w else np.zeros(shape), requires_grad=True)
        leaves.append(t)
        zs, layer_attn = [], []
        for h in range(H):
            q = x @ t["W_Q"][h] + t["b_Q"][h]
            k = x @ t["W_K"][h] + t["b_K"][h]
            v = x @ t["W_V"][h] + t["b_V"][h]
            s = (q @ k.T) / math.sqrt(dk)
            if lesson.get("mask") == "causal":
                s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
            if lesson.get("window"):  # query i sees the keys j with i - W < j <= i
                s = s.masked_fill(torch.tril(torch.ones(n, n, dtype=torch.bool), -lesson["window"]),
                                  float("-inf"))
            a = torch.softmax(s, dim=-1)
            layer_attn.append(a)
            z = a @ v
            if (li, h) in ablated:
                z = z * 0
            zs.append(z)
        attn.append(layer_attn)
        x = x + torch.cat(zs, dim=1) @ t["W_O"] + t["b_O"]
        xs.append(x)
    logits = x @ U
    loss = torch.nn.functional.cross_entropy(logits[:-1], torch.tensor(ids[1:]))
    return dict(E=E, P=P, U=U, leaves=leaves, xs=xs, attn=attn, logits=logits, loss=loss)


def close(a, b, tol):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=0, atol=tol)


def compare_forward(lesson, got, ref, name):
    check(close(got["logits"], ref["logits"].detach().numpy(), 1e-12), name + ": logits")
    check(abs(got["loss"] - ref["loss"].item()) <= 1e-12, name + ": loss")
    for k, x in enumerate(ref["xs"]):
        check(close(got["residual"][k], x.detach().numpy(), 1e-12), name + ": residual %d" % k)
    for li, layer in enumerate(got["layers"]):
        w = ref["leaves"][li]
        for h, head in enumerate(layer["head"]):
            check(close(head["W_Q"], w["W_Q"][h].detach().numpy(), 0), name + ": W_Q")
            check(close(head["b_K"], w["b_K"][h].detach().numpy(), 0), name + ": b_K")
            check(close(head["weights"], ref["attn"][li][h].detach().numpy(), 1e-12),
                  name + ": layer %d head %d weights" % (li, h))
        check(close(layer["W_O"], w["W_O"].detach().numpy(), 0), name + ": W_O")


def compare_grad(got, ref, name):
    ref["loss"].backward()
    g = got["grad"]
    check(abs(got["loss"] - ref["loss"].item()) <= 1e-12, name + ": grad loss")
    check(close(g["token_embeddings"], ref["E"].grad.numpy(), 1e-9), name + ": dE")
    check(close(g["positions"], ref["P"].grad.numpy(), 1e-9), name + ": dP")
    check(close(g["unembedding"], ref["U"].grad.numpy(), 1e-9), name + ": dU")
    check(len(g["weights"]) == len(ref["leaves"]), name + ": grad layers")
    for li, w in enumerate(ref["leaves"]):
        for k in ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O"):
            check(close(g["weights"][li][k], w[k].grad.numpy(), 1e-9),
                  name + ": layer %d d%s" % (li, k))


def random_cases():
    rng = np.random.default_rng(48)
    for case in range(12):
        layers, heads = 1 + case % 3, 1 + (case * 5) % 4
        lesson = random_lesson(rng, layers, heads, vocab=int(rng.integers(3, 9)),
                               n=int(rng.integers(2, 9)), d_k=int(rng.integers(1, 5)),
                               causal=case % 2 == 0, biases=case % 3 != 1,
                               list_form=case % 4 == 0, extra_pos=case % 3)
        name = "case %d (%d layers, %d heads)" % (case, layers, heads)
        r = run(["--json", "LESSON"], lesson)
        check(r.returncode == 0, name + ": --json exit " + r.stderr)
        if r.returncode:
            continue
        compare_forward(lesson, json.loads(r.stdout), reference(lesson), name)
        r = run(["--grad", "LESSON"], lesson)
        check(r.returncode == 0, name + ": --grad exit " + r.stderr)
        if r.returncode == 0:
            compare_grad(json.loads(r.stdout), reference(lesson), name)
        if layers > 1:
            off = (layers - 2, heads - 1)
            r = run(["--json", "--ablate", "%d:%d" % off, "LESSON"], lesson)
            check(r.returncode == 0, name + ": --ablate")
            if r.returncode == 0:
                got = json.loads(r.stdout)
                ref = reference(lesson, ablated={off})
                check(close(got["logits"], ref["logits"].detach().numpy(), 1e-12),
                      name + ": ablated logits")
                check(got["ablated"] == [list(off)], name + ": ablated listed")


def window_cases():
    """A sliding window in every layer (with the causal mask): forward and gradients."""
    rng = np.random.default_rng(4807)
    for case, (layers, heads, window) in enumerate([(2, 2, 2), (3, 1, 3)]):
        lesson = random_lesson(rng, layers, heads, vocab=6, n=7, d_k=2, causal=True, biases=True,
                               list_form=True, extra_pos=1)
        lesson["window"] = window
        name = "window %d (%d layers, %d heads, W %d)" % (case, layers, heads, window)
        r = run(["--json", "LESSON"], lesson)
        check(r.returncode == 0, name + ": --json exit " + r.stderr)
        if r.returncode == 0:
            compare_forward(lesson, json.loads(r.stdout), reference(lesson), name)
        r = run(["--grad", "LESSON"], lesson)
        check(r.returncode == 0, name + ": --grad exit " + r.stderr)
        if r.returncode == 0:
            compare_grad(json.loads(r.stdout), reference(lesson), name)


def error_cases():
    rng = np.random.default_rng(7)
    base = random_lesson(rng, 2, 2, 5, 4, 2, True, True, True, 0)
    bad = json.loads(json.dumps(base))
    bad["weights"][1]["W_Q"][0] = bad["weights"][1]["W_Q"][0][:-1]
    r = run(["--json", "LESSON"], bad)
    check(r.returncode == 2 and "weights[1].W_Q[0]" in r.stderr, "error path weights[1].W_Q[0]: "
          + r.stderr)
    bad = json.loads(json.dumps(base))
    bad["tokens"][2] = "nope"
    r = run(["--json", "LESSON"], bad)
    check(r.returncode == 2 and "tokens[2]" in r.stderr, "a token outside the vocabulary: "
          + r.stderr)
    bad = json.loads(json.dumps(base))
    bad["layers"] = 3
    r = run(["--json", "LESSON"], bad)
    check(r.returncode == 2 and "weights" in r.stderr, "layers disagreeing: " + r.stderr)
    bad = json.loads(json.dumps(base))
    bad["unembedding"] = bad["unembedding"][:-1]
    r = run(["--json", "LESSON"], bad)
    check(r.returncode == 2 and "unembedding" in r.stderr, "unembedding rows: " + r.stderr)


def random_weights_case():
    """{"random": ...} with "layers": one default_rng stream, layer after layer."""
    lesson = {"title": "seeded", "vocabulary": ["a", "b", "c"], "tokens": ["a", "b", "c", "a"],
              "d_model": 4, "heads": 2, "d_k": 2, "layers": 2, "mask": "causal",
              "token_embeddings": {"random": {"seed": 1}}, "positions": {"random": {"seed": 2}},
              "unembedding": {"random": {"seed": 3, "std": 0.5}},
              "weights": {"random": {"seed": 4, "qkv_std": 0.5, "out_std": 0.25}}}
    r = run(["--json", "LESSON"], lesson)
    check(r.returncode == 0, "random lesson: " + r.stderr)
    if r.returncode:
        return
    got = json.loads(r.stdout)
    g = np.random.default_rng(4)
    for li in range(2):
        for h in range(2):
            for k in ("W_Q", "W_K", "W_V"):
                m = g.normal(0, 0.5, (4, 2))
                check(close(got["layers"][li]["head"][h][k], m, 0), "random %s layer %d" % (k, li))
        check(close(got["layers"][li]["W_O"], g.normal(0, 0.25, (4, 4)), 0), "random W_O")
    check(close(got["unembedding"], np.random.default_rng(3).normal(0, 0.5, (4, 3)), 0),
          "random unembedding")


def train_case():
    with open(os.path.join(os.path.dirname(__file__), "..", "lessons",
                           "induction-heads.json")) as f:
        lesson = json.load(f)
    with tempfile.TemporaryDirectory() as d:
        src, out, again = (os.path.join(d, x) for x in ("l.json", "t.json", "t2.json"))
        with open(src, "w") as f:
            json.dump(lesson, f)
        r = subprocess.run([EXE, "--train", src, "--out", out, "--steps", "20"],
                           capture_output=True, text=True)
        check(r.returncode == 0 and "seconds=" in r.stdout.splitlines()[-1],
              "--train: " + r.stderr)
        if r.returncode:
            return
        trained = json.load(open(out))
        check(isinstance(trained["weights"], list) and len(trained["weights"]) == 2,
              "trained weights a list of layers")
        r = subprocess.run([EXE, "--json", out], capture_output=True, text=True)
        check(r.returncode == 0, "trained lesson loads")
        if r.returncode == 0:
            compare_forward(trained, json.loads(r.stdout), reference(trained), "trained")
        r = subprocess.run([EXE, "--train", out, "--out", again, "--steps", "5"],
                           capture_output=True, text=True)
        check(r.returncode == 0, "trained lesson trains again: " + r.stderr)


def export_cases():
    """--export of a lesson of layers: a later layer's slides (--layer, named -layerL), the circuit panel
    trained with the one-layer lesson beside it (--what circuit --beside), --layout of one layer, and
    what is refused (exit 2, saying why). Skipped in a build without the scene."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lessons")
    two, one = os.path.join(here, "induction-heads.json"), os.path.join(here, "induction-one-layer.json")
    cat = os.path.join(here, "the-cat-sat.json")
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([EXE, "--export", d, "--what", "board", "--stage", "softmax", "--layer", "1", two],
                           capture_output=True, text=True)
        if "-DMHA_GUI=OFF" in r.stderr:
            return
        want = os.path.join(d, "induction-heads-layer1-stage06-softmax-head0.png")
        check(r.returncode == 0 and r.stdout.split() == [want], "--layer 1 board: %s %s" % (r.stdout, r.stderr))
        r = subprocess.run([EXE, "--export", d, "--what", "circuit", "--steps", "40", "--beside", one, two],
                           capture_output=True, text=True)
        want = os.path.join(d, "induction-heads-circuit.png")
        check(r.returncode == 0 and r.stdout.split() == [want] and os.path.getsize(want) > 10000,
              "--what circuit --beside: %s %s" % (r.stdout, r.stderr))
        with tempfile.TemporaryDirectory() as e:
            small = dict(json.load(open(one)))
            small["vocabulary"] = small["vocabulary"][:12]
            small["tokens"] = [t for t in small["tokens"] if t in small["vocabulary"]]
            bad = os.path.join(e, "twelve.json")
            with open(bad, "w") as f:
                json.dump(small, f)
            refused = [(["--layer", "2", "--what", "board"], two, "--layer 2: the lesson has 2 layers (0 to 1)"),
                       (["--layer", "1"], cat, "--layer: the lesson has one layer"),
                       (["--what", "circuit", "--beside", cat], two, "--beside needs a lesson of layers"),
                       (["--what", "circuit", "--steps", "2", "--beside", bad], two,
                        "has 12 words and 16 positions, the lesson shown 16 and 16"),
                       (["--what", "board", "--beside", one], two, "--beside goes with --what circuit"),
                       (["--what", "circuit"], cat, "the circuit panel is for a lesson of layers")]
            for args, lesson, said in refused:
                r = subprocess.run([EXE, "--export", e] + args + [lesson], capture_output=True, text=True)
                check(r.returncode == 2 and said in r.stderr and r.stdout == "",
                      "refused %s: exit %d %r" % (" ".join(args), r.returncode, r.stderr))
    r = subprocess.run([EXE, "--layout", "--layer", "1", two], capture_output=True, text=True)
    lines = [json.loads(l) for l in r.stdout.splitlines()]
    layers = {l["layer"] for l in lines if "layer" in l}
    check(r.returncode == 0 and layers == {1} and lines[-1].get("summary"), "--layout --layer 1: %s %s"
          % (layers, r.stderr))
    r = subprocess.run([EXE, "--trace", "--layer", "1", two], capture_output=True, text=True)
    check(r.returncode == 2 and "--model DIR, or --export DIR or --layout" in r.stderr, "--trace --layer: "
          + r.stderr)


def last_line(stdout):
    return dict(kv.split("=") for kv in stdout.strip().splitlines()[-1].split())


def shipped_training():
    """The shipped lessons: the two-layer one forms the circuit and reproduces its -trained file byte for
    byte; the one-layer one does not learn the task."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lessons")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.json")
        r = subprocess.run([EXE, "--train", os.path.join(here, "induction-heads.json"), "--out", out],
                           capture_output=True, text=True)
        check(r.returncode == 0, "--train induction-heads: " + r.stderr)
        if r.returncode:
            return
        got = last_line(r.stdout)
        check(float(got["repeat_accuracy"]) >= 0.9, "two layers: repeat accuracy " + got["repeat_accuracy"])
        check(float(got["previous_token"]) >= 0.4, "two layers: previous-token " + got["previous_token"])
        check(float(got["induction"]) >= 0.7, "two layers: induction " + got["induction"])
        off = [float(l.split()[-3]) for l in r.stdout.splitlines() if l.startswith("switched off layer 0")]
        check(max(off) >= 0.4 * math.log(16) + 0.3, "a layer-0 head that matters: %s" % off)
        with open(out, "rb") as a, open(os.path.join(here, "induction-heads-trained.json"), "rb") as b:
            check(a.read() == b.read(), "induction-heads-trained.json reproduced byte for byte")
        r = subprocess.run([EXE, "--train", os.path.join(here, "induction-one-layer.json"), "--out", out],
                           capture_output=True, text=True)
        check(r.returncode == 0, "--train induction-one-layer: " + r.stderr)
        if r.returncode == 0:
            check(float(last_line(r.stdout)["repeat_accuracy"]) <= 0.8, "one layer stays below 80 %")


random_cases()
window_cases()
error_cases()
export_cases()
shipped_training()
random_weights_case()
train_case()
print("%d checks, %d failed" % (checks, len(failures)))
sys.exit(1 if failures or checks == 0 else 0)
