#!/usr/bin/env python3
# Issue 14 against NumPy: random lessons with sinusoidal or explicit positions (self- and cross-attention),
# a "scale", --ablate and --shuffle; our --json must match an independent NumPy implementation within 1e-12.
#   python3 tests/test_numpy_features.py path/to/mha-tracer [COUNT]
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

TOL = 1e-12


def sinusoidal(rows, d):
    p = np.zeros((rows, d))
    for pos in range(rows):
        for i in range(0, (d + 1) // 2):
            angle = pos / 10000 ** (2 * i / d)
            p[pos, 2 * i] = np.sin(angle)
            if 2 * i + 1 < d:
                p[pos, 2 * i + 1] = np.cos(angle)
    return p


def softmax(x):
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=1, keepdims=True)


def reference(L, ablated, perm=None):
    """The trace of lesson L as plain NumPy (token i of a shuffled lesson is token perm[i])."""
    E = np.array(L["embeddings"], dtype=float)
    n, d = E.shape
    h, dk = L["heads"], L["d_k"]
    cross = "source" in L
    ES = np.array(L["source"]["embeddings"], dtype=float) if cross else None
    if perm is not None:
        E = E[perm]
        if not cross:
            pass  # keys and values read X: they move with it
    pos = L.get("positions", "none")
    P = PS = None
    if pos == "sinusoidal":
        P = sinusoidal(n, d)
        PS = sinusoidal(ES.shape[0], d) if cross else None
    elif isinstance(pos, list):
        P = np.array(pos, dtype=float)
        if cross:
            sp = L["source"].get("positions")
            PS = np.array(sp, dtype=float) if sp is not None else np.zeros_like(ES)
    X = E + P if P is not None else E
    S = (ES + PS if PS is not None else ES) if cross else X
    w = L["weights"]
    out = {"X": X, "S": S, "E": E, "P": P, "ES": ES, "PS": PS, "head": []}
    zs = []
    for i in range(h):
        Wq, Wk, Wv = (np.array(w[k][i], dtype=float) for k in ("W_Q", "W_K", "W_V"))
        bq, bk, bv = (np.array(w[k][i], dtype=float) if k in w else np.zeros(dk) for k in ("b_Q", "b_K", "b_V"))
        Q = X @ Wq + bq
        K = S @ Wk + bk
        V = S @ Wv + bv
        scores = Q @ K.T
        scaled = scores * L["scale"] if "scale" in L else scores / np.sqrt(dk)
        if L.get("mask") == "causal":
            scaled = np.where(np.triu(np.ones_like(scaled, dtype=bool), 1), -np.inf, scaled)
        A = softmax(scaled)
        Z = A @ V
        out["head"].append({"Q": Q, "K": K, "V": V, "scores": scores, "scaled": scaled, "weights": A, "Z": Z})
        zs.append(Z)
    concat_all = np.concatenate(zs, axis=1)
    concat = np.concatenate([np.zeros_like(z) if i in ablated else z for i, z in enumerate(zs)], axis=1)
    WO = np.array(w["W_O"], dtype=float)
    bO = np.array(w.get("b_O", np.zeros(d)), dtype=float)
    out["concat"] = concat
    out["output"] = concat @ WO + bO
    out["output_all_heads"] = concat_all @ WO + bO
    return out


def as_array(v):
    return np.array([[np.nan if x is None else x for x in row] for row in v], dtype=float)


class Worst:
    def __init__(self):
        self.value = 0.0
        self.failures = []

    def compare(self, where, got, want):
        got = as_array(got) if isinstance(got, list) and got and isinstance(got[0], list) else np.array(got, dtype=float)
        want = np.asarray(want, dtype=float)
        if got.shape != want.shape:
            self.failures.append("%s: shape %s, NumPy %s" % (where, got.shape, want.shape))
            return
        both_inf = np.isinf(want) & np.isnan(got)  # JSON writes the masked -inf as null
        diff = np.where(both_inf, 0.0, np.abs(got - want))
        if np.any(np.isnan(diff)):
            self.failures.append("%s: a NaN or a null where NumPy has a number" % where)
            return
        m = float(diff.max()) if diff.size else 0.0
        self.value = max(self.value, m)
        if m > TOL:
            self.failures.append("%s: largest difference %.3g" % (where, m))


def random_lesson(rng, k):
    cross = k % 3 == 2
    n = int(rng.integers(1, 7))
    m = int(rng.integers(1, 7)) if cross else n
    heads = int(rng.integers(1, 4))
    dk = int(rng.integers(1, 4))
    d = int(rng.integers(1, 8))  # odd widths too: the last column of a sinusoid is a sine
    tokens = ["t%d" % i for i in range(n)]
    L = {"title": "random lesson %d" % k, "tokens": tokens, "heads": heads, "d_k": dk}
    L["embeddings"] = rng.normal(0, 1, (n, d)).tolist()
    kind = ["sinusoidal", "explicit", "none", "sinusoidal", "explicit"][k % 5]
    if kind == "sinusoidal":
        L["positions"] = "sinusoidal"
    elif kind == "explicit":
        L["positions"] = rng.normal(0, 1, (n, d)).tolist()
    if cross:
        L["source"] = {"tokens": ["s%d" % i for i in range(m)], "embeddings": rng.normal(0, 1, (m, d)).tolist()}
        if kind == "explicit" and k % 2 == 0:
            L["source"]["positions"] = rng.normal(0, 1, (m, d)).tolist()
    elif k % 4 == 1:
        L["mask"] = "causal"
    if k % 2 == 0:
        L["scale"] = float(rng.choice([1.0, 1.0 / dk, float(rng.uniform(0.05, 3.0))]))
    w = {
        "W_Q": rng.normal(0, 1, (heads, d, dk)).tolist(),
        "W_K": rng.normal(0, 1, (heads, d, dk)).tolist(),
        "W_V": rng.normal(0, 1, (heads, d, dk)).tolist(),
        "W_O": rng.normal(0, 1, (heads * dk, d)).tolist(),
    }
    if k % 3 == 0:
        w["b_Q"] = rng.normal(0, 1, (heads, dk)).tolist()
        w["b_V"] = rng.normal(0, 1, (heads, dk)).tolist()
        w["b_O"] = rng.normal(0, 1, d).tolist()
    L["weights"] = w
    ablated = sorted(set(int(x) for x in rng.integers(0, heads, int(rng.integers(0, heads + 1)))))
    return L, ablated


def run(binary, path, args):
    r = subprocess.run([binary, "--json", path] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("FAIL: %s %s: exit %d: %s" % (path, " ".join(args), r.returncode, r.stderr))
    return json.loads(r.stdout)


def check_json(worst, tag, J, R, L, ablated):
    c = worst.compare
    c(tag + " embeddings", J["embeddings"], R["X"])
    c(tag + " source_embeddings", J["source_embeddings"], R["S"])
    if R["P"] is not None:
        c(tag + " token_embeddings", J["token_embeddings"], R["E"])
        c(tag + " positions", J["positions"], R["P"])
        if "source" in L:
            c(tag + " source_token_embeddings", J["source_token_embeddings"], R["ES"])
            c(tag + " source_positions", J["source_positions"], R["PS"])
    elif "positions" in J or "token_embeddings" in J:
        worst.failures.append(tag + ": positions in the JSON of a lesson without them")
    for i, (jh, rh) in enumerate(zip(J["head"], R["head"])):
        for key in ("Q", "K", "V", "scores", "scaled", "weights", "Z"):
            c("%s head %d %s" % (tag, i, key), jh[key], rh[key])
    c(tag + " concat", J["concat"], R["concat"])
    c(tag + " output", J["output"], R["output"])
    if ablated:
        c(tag + " output_all_heads", J["output_all_heads"], R["output_all_heads"])
        if J.get("ablated") != ablated:
            worst.failures.append("%s: \"ablated\" is %r, not %r" % (tag, J.get("ablated"), ablated))
    elif "ablated" in J or "output_all_heads" in J:
        worst.failures.append(tag + ": \"ablated\" without --ablate")
    if "scale" in L:
        c(tag + " scale", [J.get("scale", float("nan"))], [L["scale"]])
    elif "scale" in J:
        worst.failures.append(tag + ": \"scale\" in the JSON of a lesson without it")


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    rng = np.random.default_rng(20261130)
    worst = Worst()
    kinds = {"sinusoidal": 0, "explicit": 0, "none": 0, "cross": 0, "scale": 0, "ablate": 0, "shuffle": 0}
    shuffle_same = shuffle_changed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(count):
            L, ablated = random_lesson(rng, k)
            path = os.path.join(tmp, "lesson%d.json" % k)
            with open(path, "w") as f:
                json.dump(L, f)
            pos = L.get("positions", "none")
            kinds["none" if pos == "none" else "sinusoidal" if pos == "sinusoidal" else "explicit"] += 1
            kinds["cross"] += "source" in L
            kinds["scale"] += "scale" in L
            args = ["--ablate", ",".join(map(str, ablated))] if ablated else []
            kinds["ablate"] += bool(ablated)
            J = run(binary, path, args)
            check_json(worst, "lesson %d" % k, J, reference(L, set(ablated)), L, ablated)
            # The shuffle: the reversed order (a real reordering when n > 1).
            n = len(L["tokens"])
            if n < 2:
                continue
            perm = list(range(n))[::-1]
            kinds["shuffle"] += 1
            JS = run(binary, path, args + ["--shuffle", ",".join(map(str, perm))])
            RS = reference(L, set(ablated), perm)
            check_json(worst, "lesson %d shuffled" % k, JS, RS, L, ablated)
            if JS.get("shuffle") != perm or JS.get("tokens") != [L["tokens"][i] for i in perm]:
                worst.failures.append("lesson %d shuffled: \"shuffle\" or the tokens are not the reordering" % k)
            plain = "positions" not in L or L["positions"] == "none"
            moved = np.abs(np.array(JS["output"]) - reference(L, set(ablated))["output"][perm]).max()
            if plain and L.get("mask") != "causal":
                # Without positions (and without the mask) the rows only move.
                shuffle_same += 1
                if not JS["shuffle_only_reorders"] or moved > TOL:
                    worst.failures.append("lesson %d: the shuffle changed the rows without positions (%.3g)" % (k, moved))
            elif not plain and moved > 1e-6:
                shuffle_changed += 1
                if JS["shuffle_only_reorders"]:
                    worst.failures.append("lesson %d: the shuffle says the rows only moved, NumPy: %.3g" % (k, moved))
            if abs(JS["shuffle_largest_difference"] - moved) > TOL:
                worst.failures.append("lesson %d: shuffle_largest_difference %.17g, NumPy %.17g"
                                      % (k, JS["shuffle_largest_difference"], moved))
    for f in worst.failures:
        print("FAIL:", f)
    print("%d random lessons (%s); shuffles: %d only reordered, %d changed by positions; "
          "largest difference from NumPy %.3g (tolerance %g)"
          % (count, ", ".join("%s %d" % kv for kv in kinds.items()), shuffle_same, shuffle_changed, worst.value, TOL))
    if shuffle_same == 0 or shuffle_changed == 0 or kinds["ablate"] == 0:
        print("FAIL: the random lessons did not cover every case")
        return 1
    return 1 if worst.failures else 0


if __name__ == "__main__":
    sys.exit(main())
