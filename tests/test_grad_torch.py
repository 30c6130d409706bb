#!/usr/bin/env python3
# Issue 15 against PyTorch autograd (float64): random lessons in every weight form (explicit with biases,
# {"random": {"seed"}}, PyTorch's in_proj form), causal, cross-attention, positions (sinusoidal, explicit),
# "scale", targets given or made by a "train" task; our --grad must match within 1e-9. Then --train (40 steps
# of two shipped lessons) against torch.optim.Adam on the sequences drawn in Python as docs/lesson-format.md documents
# (numpy.random.default_rng(seed).random((sequences, n)) * V): the trained weights within 1e-9.
#   python3 tests/test_grad_torch.py path/to/mha-tracer [COUNT]
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

TOL = 1e-9
torch.set_default_dtype(torch.float64)


def sinusoidal(rows, d):
    p = np.zeros((rows, d))
    for pos in range(rows):
        for i in range(0, (d + 1) // 2):
            angle = pos / 10000 ** (2 * i / d)
            p[pos, 2 * i] = np.sin(angle)
            if 2 * i + 1 < d:
                p[pos, 2 * i + 1] = np.cos(angle)
    return p


def random_lesson(g, k):
    """Lesson k: sizes, form and features drawn from g (a numpy Generator)."""
    form = ("explicit", "random", "pytorch")[k % 3]
    cross = k % 4 == 3
    heads = int(g.integers(1, 4))
    d_k = int(g.integers(1, 4))
    d = heads * d_k if form == "pytorch" else int(g.integers(2, 7))
    n = int(g.integers(2, 7))
    m = int(g.integers(2, 6)) if cross else n
    L = {"title": "grad %d" % k, "heads": heads, "d_k": d_k}
    L["tokens"] = ["t%d" % i for i in range(n)]
    L["embeddings"] = g.normal(0, 1, (n, d)).tolist()
    if cross:
        L["source"] = {"tokens": ["s%d" % i for i in range(m)], "embeddings": g.normal(0, 1, (m, d)).tolist()}
    elif k % 2 == 0:
        L["mask"] = "causal"
    pos = ("none", "sinusoidal", "explicit")[(k // 3) % 3]
    if pos == "sinusoidal":
        L["positions"] = "sinusoidal"
    elif pos == "explicit":
        L["positions"] = g.normal(0, 0.5, (n, d)).tolist()
        if cross:
            L["source"]["positions"] = g.normal(0, 0.5, (m, d)).tolist()
    if k % 5 in (1, 3):
        L["scale"] = float(g.uniform(0.2, 1.5))
    if form == "explicit":
        L["weights"] = {
            "W_Q": g.normal(0, 0.7, (heads, d, d_k)).tolist(),
            "W_K": g.normal(0, 0.7, (heads, d, d_k)).tolist(),
            "W_V": g.normal(0, 0.7, (heads, d, d_k)).tolist(),
            "W_O": g.normal(0, 0.5, (heads * d_k, d)).tolist(),
            "b_Q": g.normal(0, 0.3, (heads, d_k)).tolist(),
            "b_K": g.normal(0, 0.3, (heads, d_k)).tolist(),
            "b_V": g.normal(0, 0.3, (heads, d_k)).tolist(),
            "b_O": g.normal(0, 0.3, d).tolist(),
        }
    elif form == "random":
        L["weights"] = {"random": {"seed": int(g.integers(0, 2**40)), "qkv_std": 0.6, "out_std": 0.5}}
    else:
        L["weights"] = {"pytorch": {
            "num_heads": heads,
            "in_proj_weight": g.normal(0, 0.5, (3 * d, d)).tolist(),
            "in_proj_bias": g.normal(0, 0.2, 3 * d).tolist(),
            "out_proj_weight": g.normal(0, 0.5, (d, d)).tolist(),
            "out_proj_bias": g.normal(0, 0.2, d).tolist(),
        }}
    if not cross and k % 7 == 5:
        # no "targets": the task's, on a vocabulary with repeated tokens
        L["tokens"] = ["a", "b", "a", "c", "b", "a"][:n]
        vocab = {t: L["embeddings"][i] for i, t in reversed(list(enumerate(L["tokens"])))}
        L["embeddings"] = [vocab[t] for t in L["tokens"]]
        L["train"] = {"task": ("previous-token", "first-token", "previous-and-first")[k % 3]}
    else:
        L["targets"] = g.normal(0, 1, (n, d)).tolist()
    return L, form, pos


def task_targets(L, E):
    task = L["train"]["task"]
    n, d = E.shape
    T = np.zeros((n, d))
    half = d // 2
    for i in range(n):
        prev = E[max(i - 1, 0)]
        if task == "previous-token":
            T[i] = prev
        elif task == "first-token":
            T[i] = E[0]
        else:
            T[i, :half] = prev[:half]
            T[i, half:2 * half] = E[0, :half]
    return T


def autograd(L, form, pos):
    """Loss and gradients (explicit per-head form) by PyTorch autograd."""
    t = lambda a: torch.tensor(np.array(a, dtype=float), requires_grad=True)
    heads, d_k = L["heads"], L["d_k"]
    E = t(L["embeddings"])
    n, d = E.shape
    cross = "source" in L
    ES = t(L["source"]["embeddings"]) if cross else None
    if pos == "sinusoidal":
        P = torch.tensor(sinusoidal(n, d))
        PS = torch.tensor(sinusoidal(ES.shape[0], d)) if cross else None
    elif pos == "explicit":
        P = torch.tensor(np.array(L["positions"]))
        PS = torch.tensor(np.array(L["source"].get("positions", np.zeros(ES.shape)))) if cross else None
    else:
        P = PS = None
    X = E + P if P is not None else E
    S = (ES + PS if PS is not None else ES) if cross else X
    w = L["weights"]
    leaves = {}
    if form == "explicit":
        for key in ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V"):
            leaves[key] = t(w[key])
        leaves["W_O"], leaves["b_O"] = t(w["W_O"]), t(w["b_O"])
        Wq = [leaves["W_Q"][h] for h in range(heads)]
        Wk = [leaves["W_K"][h] for h in range(heads)]
        Wv = [leaves["W_V"][h] for h in range(heads)]
        bq = [leaves["b_Q"][h] for h in range(heads)]
        bk = [leaves["b_K"][h] for h in range(heads)]
        bv = [leaves["b_V"][h] for h in range(heads)]
        WO, bO = leaves["W_O"], leaves["b_O"]
    elif form == "random":
        r = np.random.default_rng(w["random"]["seed"])
        mats = []
        for h in range(heads):
            mats.append([r.normal(0, 0.6, (d, d_k)) for _ in range(3)])
        wo = r.normal(0, 0.5, (heads * d_k, d))
        leaves["W_Q"] = t([mm[0] for mm in mats])
        leaves["W_K"] = t([mm[1] for mm in mats])
        leaves["W_V"] = t([mm[2] for mm in mats])
        for key in ("b_Q", "b_K", "b_V"):
            leaves[key] = t(np.zeros((heads, d_k)))
        leaves["W_O"], leaves["b_O"] = t(wo), t(np.zeros(d))
        Wq = [leaves["W_Q"][h] for h in range(heads)]
        Wk = [leaves["W_K"][h] for h in range(heads)]
        Wv = [leaves["W_V"][h] for h in range(heads)]
        bq = [leaves["b_Q"][h] for h in range(heads)]
        bk = [leaves["b_K"][h] for h in range(heads)]
        bv = [leaves["b_V"][h] for h in range(heads)]
        WO, bO = leaves["W_O"], leaves["b_O"]
    else:  # PyTorch's own layout: the gradient is taken on in_proj_weight and mapped to the heads after
        pt = w["pytorch"]
        inw, inb = t(pt["in_proj_weight"]), t(pt["in_proj_bias"])
        ow, ob = t(pt["out_proj_weight"]), t(pt["out_proj_bias"])
        leaves = {"in_w": inw, "in_b": inb, "out_w": ow, "out_b": ob}
        rows = lambda part, h: slice(part * d + h * d_k, part * d + (h + 1) * d_k)
        Wq = [inw[rows(0, h)].T for h in range(heads)]
        Wk = [inw[rows(1, h)].T for h in range(heads)]
        Wv = [inw[rows(2, h)].T for h in range(heads)]
        bq = [inb[rows(0, h)] for h in range(heads)]
        bk = [inb[rows(1, h)] for h in range(heads)]
        bv = [inb[rows(2, h)] for h in range(heads)]
        WO, bO = ow.T, ob
    zs = []
    for h in range(heads):
        Q, K, V = X @ Wq[h] + bq[h], S @ Wk[h] + bk[h], S @ Wv[h] + bv[h]
        scores = Q @ K.T
        scaled = scores * L["scale"] if "scale" in L else scores / np.sqrt(d_k)
        if L.get("mask") == "causal":
            scaled = scaled.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
        zs.append(torch.softmax(scaled, dim=1) @ V)
    out = torch.cat(zs, dim=1) @ WO + bO
    T = torch.tensor(np.array(L["targets"])) if "targets" in L else torch.tensor(task_targets(L, E.detach().numpy()))
    loss = ((out - T) ** 2).mean()
    loss.backward()
    g = {"embeddings": E.grad.numpy()}
    if cross:
        g["source_embeddings"] = ES.grad.numpy()
    if form == "pytorch":
        gw, gb = leaves["in_w"].grad.numpy(), leaves["in_b"].grad.numpy()
        for part, key in enumerate(("W_Q", "W_K", "W_V")):
            g[key] = np.stack([gw[part * d + h * d_k: part * d + (h + 1) * d_k].T for h in range(heads)])
        for part, key in enumerate(("b_Q", "b_K", "b_V")):
            g[key] = np.stack([gb[part * d + h * d_k: part * d + (h + 1) * d_k] for h in range(heads)])
        g["W_O"], g["b_O"] = leaves["out_w"].grad.numpy().T, leaves["out_b"].grad.numpy()
    else:
        for key in ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "W_O", "b_O"):
            g[key] = leaves[key].grad.numpy()
    return loss.item(), g


def train_check(binary, src, tmp, name, steps):
    """--train LESSON --steps N against torch.optim.Adam on the same sequences, drawn in Python with NumPy as
    docs/lesson-format.md says: the written weights within 1e-9. Returns the largest difference (inf on failure)."""
    path = os.path.join(src, "lessons", name)
    L = json.load(open(path))
    out = os.path.join(tmp, "trained-" + name)
    run = subprocess.run([binary, "--train", path, "--steps", str(steps), "--out", out], capture_output=True, text=True)
    if run.returncode != 0:
        print("--train %s failed: %s" % (name, run.stderr))
        return float("inf")
    T = json.load(open(out))
    tokens = L["tokens"]
    n = len(tokens)
    E = np.array(L["embeddings"], dtype=float)
    d = E.shape[1]
    distinct = []
    for t in tokens:
        if t not in distinct:
            distinct.append(t)
    vocab = np.array([E[tokens.index(t)] for t in distinct])
    tr = L["train"]
    ids = (np.random.default_rng(tr["seed"]).random((tr["sequences"], n)) * len(distinct)).astype(int)
    P = np.array(L["positions"], dtype=float)
    heads, d_k = L["heads"], L["d_k"]
    r = np.random.default_rng(L["weights"]["random"]["seed"])
    qs = L["weights"]["random"]["qkv_std"]
    mats = [[r.normal(0, qs, (d, d_k)) for _ in range(3)] for _ in range(heads)]
    wo = r.normal(0, L["weights"]["random"]["out_std"], (heads * d_k, d))
    t = lambda a: torch.tensor(np.array(a, dtype=float), requires_grad=True)
    Wq, Wk, Wv = (t([m[i] for m in mats]) for i in range(3))
    bq, bk, bv = (t(np.zeros((heads, d_k))) for _ in range(3))
    WO, bO = t(wo), t(np.zeros(d))
    params = [Wq, Wk, Wv, bq, bk, bv, WO, bO]
    opt = torch.optim.Adam(params, lr=tr["learning_rate"], betas=(0.9, 0.999), eps=1e-8)
    X = torch.tensor(vocab[ids] + P)  # (sequences, n, d)
    T_all = np.zeros((tr["sequences"], n, d))
    for s_ in range(tr["sequences"]):
        T_all[s_] = task_targets({"train": tr}, vocab[ids[s_]])
    targets = torch.tensor(T_all)
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    for _ in range(steps):
        opt.zero_grad()
        zs = []
        for h in range(heads):
            Q, K, V = X @ Wq[h] + bq[h], X @ Wk[h] + bk[h], X @ Wv[h] + bv[h]
            sc = (Q @ K.transpose(1, 2)) / np.sqrt(d_k)
            sc = sc.masked_fill(mask, float("-inf"))
            zs.append(torch.softmax(sc, dim=2) @ V)
        out = torch.cat(zs, dim=2) @ WO + bO
        loss = ((out - targets) ** 2).mean()
        loss.backward()
        opt.step()
    mine = T["weights"]
    worst = 0.0
    for key, ref in (("W_Q", Wq), ("W_K", Wk), ("W_V", Wv), ("W_O", WO)):
        worst = max(worst, float(np.max(np.abs(np.array(mine[key]) - ref.detach().numpy()))))
    for key, ref in (("b_Q", bq), ("b_K", bk), ("b_V", bv)):
        got = np.array(mine.get(key, np.zeros((heads, d_k))))
        worst = max(worst, float(np.max(np.abs(got - ref.detach().numpy()))))
    worst = max(worst, float(np.max(np.abs(np.array(mine.get("b_O", np.zeros(d))) - bO.detach().numpy()))))
    return worst


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 36
    g = np.random.default_rng(15)
    worst, failures, checked, worst_train = 0.0, 0, 0, 0.0
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(count):
            L, form, pos = random_lesson(g, k)
            seen.add((form, pos, "source" in L, L.get("mask") == "causal", "scale" in L, "train" in L))
            path = os.path.join(tmp, "lesson%d.json" % k)
            with open(path, "w") as f:
                json.dump(L, f)
            run = subprocess.run([binary, "--grad", path], capture_output=True, text=True)
            if run.returncode != 0:
                print("lesson %d: --grad failed (%d): %s" % (k, run.returncode, run.stderr))
                failures += 1
                continue
            mine = json.loads(run.stdout)
            loss, ref = autograd(L, form, pos)
            diffs = {"loss": abs(mine["loss"] - loss)}
            keys = set(ref) | set(mine["grad"])
            for key in sorted(keys):
                if key not in ref or key not in mine["grad"]:
                    print("lesson %d: gradient %s only on one side" % (k, key))
                    failures += 1
                    continue
                a, b = np.array(mine["grad"][key], dtype=float), ref[key]
                if a.shape != b.shape:
                    print("lesson %d: %s shape %s, PyTorch %s" % (k, key, a.shape, b.shape))
                    failures += 1
                    continue
                diffs[key] = float(np.max(np.abs(a - b))) if a.size else 0.0
                checked += a.size
            for key, dv in diffs.items():
                worst = max(worst, dv)
                if not dv <= TOL:
                    print("lesson %d (%s, positions %s): %s differs from PyTorch by %g" % (k, form, pos, key, dv))
                    failures += 1
        src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for name, steps in (("learn-previous-token.json", 40), ("two-heads-two-jobs.json", 40)):
            dv = train_check(binary, src, tmp, name, steps)
            print("--train %s --steps %d vs torch.optim.Adam: largest weight difference %.3g" % (name, steps, dv))
            worst_train = max(worst_train, dv)
            if not dv <= TOL:
                print("%s: --train differs from torch.optim.Adam by %g" % (name, dv))
                failures += 1
    forms = {s[0] for s in seen}
    need = [("every weight form", forms == {"explicit", "random", "pytorch"}),
            ("cross-attention", any(s[2] for s in seen)), ("causal", any(s[3] for s in seen)),
            ("sinusoidal positions", any(s[1] == "sinusoidal" for s in seen)),
            ("explicit positions", any(s[1] == "explicit" for s in seen)), ("scale", any(s[4] for s in seen)),
            ("a train task's targets", any(s[5] for s in seen))]
    for what, ok in need:
        if not ok:
            print("not covered: %s" % what)
            failures += 1
    print("test_grad_torch: %d lessons, %d gradient values, largest difference from PyTorch autograd %.3g; "
          "--train vs torch.optim.Adam %.3g; %d failed" % (count, checked, worst, worst_train, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
