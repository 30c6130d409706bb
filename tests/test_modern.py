#!/usr/bin/env python3
# Issue 22 against independent references: random lessons with RoPE (both pair conventions, several bases),
# kv_heads (1, between, heads), sliding windows, positions, "scale", cross-attention and causal masks.
#   python3 tests/test_modern.py numpy BIN [COUNT]   --json within 1e-12 of NumPy (and the seeded draw order)
#   python3 tests/test_modern.py torch BIN [COUNT]   --grad within 1e-9 of PyTorch autograd (float64)
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from test_numpy_features import sinusoidal  # the same reference positions as issue 14's test

BASES = [10000.0, 500000.0, 100.0, 2.5, 1e6, 7.0]


def rope_of(L):
    """(pairs, base) of the lesson's "rope", or None."""
    r = L.get("rope", False)
    if r is False:
        return None
    if r is True:
        return "halves", 10000.0
    return r.get("pairs", "halves"), float(r.get("base", 10000.0))


def rope_tables(rows, dk, pairs, base):
    """cos, sin (rows, dk/2) and the pair index arrays a, b, as the issue defines them."""
    j = np.arange(dk // 2)
    theta = np.array([1.0 / base ** (2 * jj / dk) for jj in j])
    angle = np.arange(rows)[:, None] * theta[None, :]
    a = 2 * j if pairs == "interleaved" else j
    b = 2 * j + 1 if pairs == "interleaved" else j + dk // 2
    return np.cos(angle), np.sin(angle), a, b


def rotate(x, pairs, base, ops):
    c, s, a, b = rope_tables(x.shape[0], x.shape[1], pairs, base)
    c, s = ops.tensor(c), ops.tensor(s)
    out = ops.copy(x)
    out[:, a] = x[:, a] * c - x[:, b] * s
    out[:, b] = x[:, a] * s + x[:, b] * c
    return out


class NumpyOps:
    tensor = staticmethod(np.asarray)
    copy = staticmethod(np.copy)
    cat = staticmethod(lambda zs: np.concatenate(zs, axis=1))

    @staticmethod
    def softmax(scaled, hidden):
        scaled = np.where(hidden, -np.inf, scaled)
        e = np.exp(scaled - np.max(scaled, axis=1, keepdims=True))
        return scaled, e / e.sum(axis=1, keepdims=True)


class TorchOps:
    def __init__(self):
        import torch
        torch.set_default_dtype(torch.float64)
        self.torch = torch
        self.tensor = torch.tensor
        self.copy = lambda x: x.clone()
        self.cat = lambda zs: torch.cat(zs, dim=1)

    def softmax(self, scaled, hidden):
        scaled = scaled.masked_fill(self.torch.tensor(hidden), float("-inf"))
        return scaled, self.torch.softmax(scaled, dim=1)


def forward(L, X, S, W, ops):
    """Every head's matrices and the output, with ops' arrays (NumPy's, or PyTorch's for autograd)."""
    heads, dk = L["heads"], L["d_k"]
    G = L.get("kv_heads", heads)
    rope = rope_of(L)
    hidden = band(X.shape[0], S.shape[0], L.get("mask") == "causal", L.get("window", 0))
    out = {"head": []}
    zs = []
    for i in range(heads):
        g = i // (heads // G)
        Q = X @ W["W_Q"][i] + W["b_Q"][i]
        K = S @ W["W_K"][g] + W["b_K"][g]
        V = S @ W["W_V"][g] + W["b_V"][g]
        h = {"kv_head": g, "W_K": W["W_K"][g], "W_V": W["W_V"][g], "Q": Q, "K": K, "V": V}
        if rope:
            Q, K = rotate(Q, *rope, ops), rotate(K, *rope, ops)
            h["Q_rot"], h["K_rot"] = Q, K
        scores = Q @ K.T
        scaled, A = ops.softmax(scores * L["scale"] if "scale" in L else scores / np.sqrt(dk), hidden)
        Z = A @ V
        h.update({"scores": scores, "scaled": scaled, "weights": A, "Z": Z})
        out["head"].append(h)
        zs.append(Z)
    out["concat"] = ops.cat(zs)
    out["output"] = out["concat"] @ W["W_O"] + W["b_O"]
    return out


def band(n, m, causal, window):
    """True where the mask hides key j from query i."""
    i = np.arange(n)[:, None]
    j = np.arange(m)[None, :]
    hidden = np.zeros((n, m), dtype=bool)
    if causal:
        hidden = j > i
        if window:
            hidden |= j <= i - window
    return hidden


def seeded_weights(L, d, dk):
    """The draw order of {"random": {"seed"}}: W_Q_i, then W_K_g, W_V_g when head i opens group g; W_O."""
    r = L["weights"]["random"]
    g = np.random.default_rng(r["seed"])
    heads, G = L["heads"], L.get("kv_heads", L["heads"])
    qs, oss = r.get("qkv_std", 1.0), r.get("out_std", 1.0)
    W = {"W_Q": [], "W_K": [], "W_V": []}
    for i in range(heads):
        W["W_Q"].append(g.normal(0, qs, (d, dk)))
        if i % (heads // G) == 0:
            W["W_K"].append(g.normal(0, qs, (d, dk)))
            W["W_V"].append(g.normal(0, qs, (d, dk)))
    W["W_O"] = g.normal(0, oss, (heads * dk, d))
    return W


def weights_of(L, d, dk):
    """Every weight as float arrays: W_Q, b_Q per head; W_K, W_V, b_K, b_V per K/V head; W_O, b_O."""
    heads, G = L["heads"], L.get("kv_heads", L["heads"])
    w = L["weights"]
    if "random" in w:
        W = seeded_weights(L, d, dk)
    else:
        W = {k: [np.array(x, dtype=float) for x in w[k]] for k in ("W_Q", "W_K", "W_V")}
        W["W_O"] = np.array(w["W_O"], dtype=float)
    for k, count in (("b_Q", heads), ("b_K", G), ("b_V", G)):
        W[k] = [np.array(x, dtype=float) for x in w[k]] if k in w else [np.zeros(dk) for _ in range(count)]
    W["b_O"] = np.array(w["b_O"], dtype=float) if "b_O" in w else np.zeros(d)
    return W


def inputs_of(L):
    E = np.array(L["embeddings"], dtype=float)
    n, d = E.shape
    cross = "source" in L
    ES = np.array(L["source"]["embeddings"], dtype=float) if cross else None
    pos = L.get("positions", "none")
    P = PS = None
    if pos == "sinusoidal":
        P, PS = sinusoidal(n, d), (sinusoidal(ES.shape[0], d) if cross else None)
    elif isinstance(pos, list):
        P = np.array(pos, dtype=float)
        PS = np.zeros_like(ES) if cross else None
    return E, ES, P, PS


def reference(L):
    """The trace as plain NumPy."""
    E, ES, P, PS = inputs_of(L)
    X = E + P if P is not None else E
    S = (ES + PS if PS is not None else ES) if ES is not None else X
    return forward(L, X, S, weights_of(L, E.shape[1], L["d_k"]), NumpyOps)


def random_lesson(rng, k):
    """Lesson k: every feature of issue 22 in turn, with the older ones (positions, scale, cross) beside."""
    cross = k % 5 == 4
    heads = [1, 2, 3, 4, 6][k % 5]
    divisors = [g for g in range(1, heads + 1) if heads % g == 0]
    G = divisors[(k // 5) % len(divisors)]
    rope_form = k % 4  # 0: none, 1: true, 2: {"base"}, 3: {"base", "pairs": "interleaved"}
    dk = int(rng.choice([2, 4])) if rope_form else int(rng.integers(1, 4))
    d = int(rng.integers(2, 7))
    n = int(rng.integers(1, 8))
    m = int(rng.integers(1, 7)) if cross else n
    L = {"title": "modern %d" % k, "tokens": ["t%d" % i for i in range(n)], "heads": heads, "d_k": dk}
    if k % 7 != 6:
        L["kv_heads"] = G
    L["embeddings"] = rng.normal(0, 1, (n, d)).tolist()
    if rope_form == 1:
        L["rope"] = True
    elif rope_form == 2:
        L["rope"] = {"base": BASES[k % len(BASES)]}
    elif rope_form == 3:
        L["rope"] = {"base": BASES[(k + 3) % len(BASES)], "pairs": "interleaved"}
    pos = ["none", "sinusoidal", "explicit", "none"][k % 4 if k % 3 else 0]
    if pos == "sinusoidal":
        L["positions"] = "sinusoidal"
    elif pos == "explicit":
        L["positions"] = rng.normal(0, 1, (n, d)).tolist()
    if cross:
        L["source"] = {"tokens": ["s%d" % i for i in range(m)], "embeddings": rng.normal(0, 1, (m, d)).tolist()}
    elif k % 3 != 2:
        L["mask"] = "causal"
        if k % 2 == 0:
            L["window"] = int(rng.integers(1, 4))
    if k % 4 == 2:
        L["scale"] = float(rng.uniform(0.1, 2.0))
    if k % 3 == 1:
        L["weights"] = {"random": {"seed": int(rng.integers(0, 2**40)), "qkv_std": 0.7, "out_std": 0.6}}
    else:
        L["weights"] = {"W_Q": rng.normal(0, 1, (heads, d, dk)).tolist(), "W_K": rng.normal(0, 1, (G, d, dk)).tolist(),
                        "W_V": rng.normal(0, 1, (G, d, dk)).tolist(), "W_O": rng.normal(0, 1, (heads * dk, d)).tolist()}
        if k % 2 == 0:
            L["weights"]["b_Q"] = rng.normal(0, 1, (heads, dk)).tolist()
            L["weights"]["b_K"] = rng.normal(0, 1, (G, dk)).tolist()
            L["weights"]["b_V"] = rng.normal(0, 1, (G, dk)).tolist()
            L["weights"]["b_O"] = rng.normal(0, 1, d).tolist()
    L["targets"] = rng.normal(0, 1, (n, d)).tolist()
    if "kv_heads" not in L and G != heads:  # without the key the lesson has one K/V head per head
        for key in ("W_K", "W_V", "b_K", "b_V"):
            if key in L["weights"]:
                L["weights"][key] = (np.array(L["weights"][key])[[i // (heads // G) for i in range(heads)]]).tolist()
    return L


def covered(L):
    return {"rope halves": rope_of(L) is not None and rope_of(L)[0] == "halves",
            "rope interleaved": rope_of(L) is not None and rope_of(L)[0] == "interleaved",
            "kv_heads 1 < heads": L.get("kv_heads") == 1 and L["heads"] > 1,
            "1 < kv_heads < heads": 1 < L.get("kv_heads", 0) < L["heads"],
            "kv_heads = heads": L.get("kv_heads") == L["heads"], "window": "window" in L,
            "causal": L.get("mask") == "causal", "cross": "source" in L, "scale": "scale" in L,
            "positions": "positions" in L, "seeded": "random" in L["weights"],
            "several bases": isinstance(L.get("rope"), dict)}


def as_array(v):
    if isinstance(v, list) and v and isinstance(v[0], list):
        return np.array([[np.nan if x is None else x for x in row] for row in v], dtype=float)
    return np.array(v, dtype=float)


def compare(failures, where, got, want, tol):
    got, want = as_array(got), np.asarray(want, dtype=float)
    if got.shape != want.shape:
        failures.append("%s: shape %s, reference %s" % (where, got.shape, want.shape))
        return 0.0
    diff = np.where(np.isinf(want) & np.isnan(got), 0.0, np.abs(got - want))  # JSON writes -inf as null
    if np.any(np.isnan(diff)):
        failures.append("%s: a NaN or a null where the reference has a number" % where)
        return 0.0
    m = float(diff.max()) if diff.size else 0.0
    if m > tol:
        failures.append("%s: largest difference %.3g" % (where, m))
    return m


def check_numpy(binary, path, L, failures):
    r = subprocess.run([binary, "--json", path], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append("%s: --json exit %d: %s" % (path, r.returncode, r.stderr.strip()))
        return 0.0
    J, R = json.loads(r.stdout), reference(L)
    worst = 0.0
    tag = L["title"]
    if ("kv_heads" in J) != ("kv_heads" in L) or J.get("kv_heads") != L.get("kv_heads"):
        failures.append("%s: top-level kv_heads %r, lesson %r" % (tag, J.get("kv_heads"), L.get("kv_heads")))
    for i, (jh, rh) in enumerate(zip(J["head"], R["head"])):
        if ("kv_head" in jh) != ("kv_heads" in L) or ("kv_heads" in L and jh["kv_head"] != rh["kv_head"]):
            failures.append("%s head %d: kv_head %r, reference %r" % (tag, i, jh.get("kv_head"), rh["kv_head"]))
        keys = ["W_K", "W_V", "Q", "K", "V", "scores", "scaled", "weights", "Z"]
        keys += ["Q_rot", "K_rot"] if rope_of(L) else []
        if not rope_of(L) and ("Q_rot" in jh or "K_rot" in jh):
            failures.append("%s head %d: rotated rows without rope" % (tag, i))
        for key in keys:
            if key not in jh:
                failures.append("%s head %d: no %s" % (tag, i, key))
                continue
            worst = max(worst, compare(failures, "%s head %d %s" % (tag, i, key), jh[key], rh[key], 1e-12))
    worst = max(worst, compare(failures, tag + " concat", J["concat"], R["concat"], 1e-12))
    return max(worst, compare(failures, tag + " output", J["output"], R["output"], 1e-12))


def autograd(L):
    """Loss and the gradients (W_K, W_V, b_K, b_V per K/V head) by PyTorch autograd, float64."""
    ops = TorchOps()
    t = lambda a: ops.torch.tensor(np.array(a, dtype=float), requires_grad=True)
    E0, ES0, P, PS = inputs_of(L)
    E = t(E0)
    ES = t(ES0) if ES0 is not None else None
    X = E + ops.tensor(P) if P is not None else E
    S = (ES + ops.tensor(PS) if PS is not None else ES) if ES is not None else X
    W = {k: t(np.stack(v)) if isinstance(v, list) else t(v) for k, v in weights_of(L, E0.shape[1], L["d_k"]).items()}
    out = forward(L, X, S, W, ops)["output"]
    loss = ((out - ops.tensor(np.array(L["targets"]))) ** 2).mean()
    loss.backward()
    grads = {"embeddings": E.grad.numpy()}
    if ES is not None:
        grads["source_embeddings"] = ES.grad.numpy()
    for k in W:
        grads[k] = W[k].grad.numpy()
    return loss.item(), grads


def check_torch(binary, path, L, failures):
    r = subprocess.run([binary, "--grad", path], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append("%s: --grad exit %d: %s" % (path, r.returncode, r.stderr.strip()))
        return 0.0
    mine = json.loads(r.stdout)
    loss, ref = autograd(L)
    worst = abs(mine["loss"] - loss)
    if not worst <= 1e-9:
        failures.append("%s: loss differs by %g" % (L["title"], worst))
    if set(mine["grad"]) != set(ref):
        failures.append("%s: gradients %s, PyTorch %s" % (L["title"], sorted(mine["grad"]), sorted(ref)))
    for key in sorted(set(mine["grad"]) & set(ref)):
        worst = max(worst, compare(failures, "%s grad %s" % (L["title"], key), mine["grad"][key], ref[key], 1e-9))
    return worst


def main():
    mode, binary = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 48
    check = check_numpy if mode == "numpy" else check_torch
    rng = np.random.default_rng(22)
    failures, worst, seen = [], 0.0, {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(count):
            L = random_lesson(rng, k)
            for what, yes in covered(L).items():
                seen[what] = seen.get(what, 0) + yes
            path = os.path.join(tmp, "modern%d.json" % k)
            with open(path, "w") as f:
                json.dump(L, f)
            worst = max(worst, check(binary, path, L, failures))
    for f in failures[:40]:
        print("FAIL:", f)
    missing = [what for what, c in seen.items() if c == 0]
    for what in missing:
        print("FAIL: not covered: %s" % what)
    print("test_modern %s: %d lessons (%s); largest difference %.3g (tolerance %g); %d failed"
          % (mode, count, ", ".join("%s %d" % kv for kv in seen.items()), worst, 1e-12 if mode == "numpy" else 1e-9,
             len(failures)))
    return 1 if failures or missing else 0


if __name__ == "__main__":
    sys.exit(main())
