#!/usr/bin/env python3
# Issue 22, items 4 and 5, on random lessons (RoPE of both conventions, grouped K/V heads, sliding windows,
# positions, scale): --json --decode (KV-cache decoding) must give, at every step, the full trace's row t bit
# for bit (q, the first t+1 weights, z, the output row, the caches = K and V rows 0..t, rotated with RoPE, the
# group's with kv_heads); --json --tiles B (FlashAttention's online softmax) must agree with a NumPy run of the
# same tiles from the trace's Q, K, V within 1e-12 (each tile's m, l and O), end with m = the row maximum of
# the scaled masked scores, l = sum e^(s - m) and O / l = Z (the NumPy reference's), and skip exactly the
# tiles the mask hides. Bad uses exit 2.
#   python3 tests/test_decode_tiles.py path/to/mha-tracer [COUNT]
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_numpy_features import reference  # noqa: E402  (the independent NumPy trace)

TOL = 1e-12


def random_lesson(rng, k, causal=True):
    n = int(rng.integers(1, 9))
    heads = int(rng.integers(1, 5))
    rope = k % 3 == 1
    dk = int(rng.choice([2, 4])) if rope else int(rng.integers(1, 5))
    d = int(rng.integers(1, 9))
    L = {"title": "decode %d" % k, "tokens": ["t%d" % i for i in range(n)], "heads": heads, "d_k": dk}
    L["embeddings"] = rng.normal(0, 1.5, (n, d)).tolist()
    if causal:
        L["mask"] = "causal"
    if k % 3 == 0:
        L["positions"] = "sinusoidal"
    if k % 4 == 1:
        L["scale"] = float(rng.uniform(0.1, 2.0))
    if rope:
        L["rope"] = True if k % 2 else {"base": float(rng.choice([100.0, 500.0, 10000.0])),
                                        "pairs": str(rng.choice(["halves", "interleaved"]))}
    kv = heads
    if k % 4 == 2 and heads > 1:
        kv = int(rng.choice([g for g in range(1, heads) if heads % g == 0]))
        L["kv_heads"] = kv
    if causal and k % 5 == 3:
        L["window"] = int(rng.integers(1, n + 1))
    w = {"W_Q": rng.normal(0, 1, (heads, d, dk)).tolist()}
    w["W_K"] = rng.normal(0, 1, (kv, d, dk)).tolist()
    w["W_V"] = rng.normal(0, 1, (kv, d, dk)).tolist()
    w["W_O"] = rng.normal(0, 1, (heads * dk, d)).tolist()
    if k % 2 == 0:
        w["b_Q"] = rng.normal(0, 1, (heads, dk)).tolist()
        w["b_K"] = rng.normal(0, 1, (kv, dk)).tolist()
        w["b_O"] = rng.normal(0, 1, d).tolist()
    L["weights"] = w
    return L


def run(binary, path, args, expect=0):
    r = subprocess.run([binary, "--json", path] + args, capture_output=True, text=True)
    if r.returncode != expect:
        raise SystemExit("FAIL: %s %s: exit %d (expected %d): %s" % (path, " ".join(args), r.returncode, expect, r.stderr))
    return (json.loads(r.stdout) if expect == 0 else None), r


def same_bits(a, b):
    return np.array_equal(np.array(a, dtype=float), np.array(b, dtype=float))


def check_decode(fails, tag, J, D, L):
    """Each step adds k and v rows (the trace's row t of K, rotated with RoPE, and of V, per K/V head); the
    caches it names (cache_positions, oldest first, at slots position mod cache_rows) are the rows of those
    positions: the last `window` with a sliding window (Mistral's rolling buffer), else all up to t."""
    heads = len(J["head"])
    n = len(J["tokens"])
    window = L.get("window", 0) if L.get("mask") == "causal" else 0
    rows = min(window, n) if window > 0 else n
    kv = L.get("kv_heads", heads)
    if len(D["steps"]) != n or D["cache_rows"] != rows or D["kv_heads"] != kv:
        fails.append("%s: %d steps for %d tokens, cache_rows %r (want %d)" % (tag, len(D["steps"]), n, D["cache_rows"], rows))
        return
    total_with = total_without = 0
    k_rows = {}  # (kv head, position) -> the k row its step printed; the same for v
    v_rows = {}
    for t, s in enumerate(D["steps"]):
        if s["position"] != t or s["token"] != J["tokens"][t]:
            fails.append("%s step %d: position or token" % (tag, t))
        first = max(0, t + 1 - rows)
        if s["cache_positions"] != list(range(first, t + 1)) or s["cache_slots"] != [j % rows for j in range(first, t + 1)]:
            fails.append("%s step %d: cache_positions %r slots %r" % (tag, t, s["cache_positions"], s["cache_slots"]))
        if s["slot_written"] != t % rows or s["evicted_position"] != (t - rows if t >= rows else None):
            fails.append("%s step %d: slot_written %r evicted %r" % (tag, t, s["slot_written"], s["evicted_position"]))
        if s["cache_values"] != 2 * kv * (t + 1 - first) * L["d_k"]:
            fails.append("%s step %d: cache_values %r" % (tag, t, s["cache_values"]))
        if [e["kv_head"] for e in s["new_kv"]] != list(range(kv)):
            fails.append("%s step %d: new_kv heads" % (tag, t))
        for e in s["new_kv"]:
            k_rows[e["kv_head"], t], v_rows[e["kv_head"], t] = e["k"], e["v"]
        for h in range(heads):
            jh, sh = J["head"][h], s["head"][h]
            q, k = ("Q_rot", "K_rot") if "Q_rot" in jh else ("Q", "K")
            if sh.get("kv_head") != jh.get("kv_head"):
                fails.append("%s step %d head %d: kv_head %r, the trace's %r" % (tag, t, h, sh.get("kv_head"), jh.get("kv_head")))
            g = jh.get("kv_head", h)
            cache_k = [k_rows[g, j] for j in s["cache_positions"]]
            cache_v = [v_rows[g, j] for j in s["cache_positions"]]
            for key, got, want in (("q", sh["q"], jh[q][t]), ("weights", sh["weights"], jh["weights"][t][: t + 1]),
                                   ("z", sh["z"], jh["Z"][t]), ("k_cache", cache_k, jh[k][first: t + 1]),
                                   ("v_cache", cache_v, jh["V"][first: t + 1])):
                if not same_bits(got, want):
                    fails.append("%s step %d head %d: %s is not the trace's bit for bit" % (tag, t, h, key))
            if any(w != 0 for w in sh["weights"][:first]):
                fails.append("%s step %d head %d: a key out of the cache weighs more than 0" % (tag, t, h))
        if not same_bits(s["output"], J["output"][t]):
            fails.append("%s step %d: the output row is not the trace's bit for bit" % (tag, t))
        w = s["multiply_adds"]
        if not 0 < w["with_cache"] <= w["without_cache"]:
            fails.append("%s step %d: multiply_adds %r" % (tag, t, w))
        total_with += w["with_cache"]
        total_without += w["without_cache"]
    if D["multiply_adds"] != {"with_cache": total_with, "without_cache": total_without}:
        fails.append("%s: the totals are not the sums of the steps" % tag)


def hidden(r, c, causal, window):
    """The lesson's mask: key c hidden from query r (causal: after it, or at or before r - window)."""
    return causal and (c > r or (window > 0 and c <= r - window))


def numpy_tiles(Q, K, V, scale_fn, causal, B, window=0):
    """FlashAttention's loop, written from the issue's equations: the steps (r0, r1, c0, c1, m, l, O)."""
    n, m = Q.shape[0], K.shape[0]
    steps = []
    Z = np.zeros((n, V.shape[1]))
    M = np.zeros(n)
    Lsum = np.zeros(n)
    for r0 in range(0, n, B):
        r1 = min(r0 + B, n)
        mm = np.full(r1 - r0, -np.inf)
        ll = np.zeros(r1 - r0)
        O = np.zeros((r1 - r0, V.shape[1]))
        for c0 in range(0, m, B):
            c1 = min(c0 + B, m)
            mask = np.array([[hidden(r, c, causal, window) for c in range(c0, c1)] for r in range(r0, r1)])
            if mask.all():
                continue  # FlashAttention skips the tiles the mask hides entirely
            S = np.where(mask, -np.inf, scale_fn(Q[r0:r1] @ K[c0:c1].T))
            m_new = np.maximum(mm, S.max(axis=1))
            carry = np.where(np.isneginf(mm), 0.0, np.exp(mm - np.where(np.isneginf(m_new), 0, m_new)))
            P = np.where(np.isneginf(S), 0.0, np.exp(S - np.where(np.isneginf(m_new), 0, m_new)[:, None]))
            ll = ll * carry + P.sum(axis=1)
            O = O * carry[:, None] + P @ V[c0:c1]
            mm = m_new
            steps.append((r0, r1, c0, c1, mm.copy(), ll.copy(), O.copy()))
        Z[r0:r1] = O / ll[:, None]
        M[r0:r1] = mm
        Lsum[r0:r1] = ll
    return steps, Z, M, Lsum


def close(a, b):
    a = np.array([np.nan if x is None else x for x in np.ravel(np.array(a, dtype=object))], dtype=float)
    b = np.ravel(np.array(b, dtype=float))
    if a.shape != b.shape:
        return False
    both = np.isneginf(b) & np.isnan(a)
    return bool(np.all(both | (np.abs(a - b) <= TOL)))


def check_tiles(fails, tag, J, L, B):
    causal = L.get("mask") == "causal"
    dk = L["d_k"]
    scale_fn = (lambda s: s * L["scale"]) if "scale" in L else (lambda s: s / np.sqrt(dk))
    for h, jh in enumerate(J["head"]):
        T = jh["tiles"]
        # The tiles' inputs are the trace's rows (checked against NumPy by test_numpy_features and test_modern).
        q, k = ("Q_rot", "K_rot") if "Q_rot" in jh else ("Q", "K")
        rh = {"Q": np.array(jh[q], dtype=float), "K": np.array(jh[k], dtype=float), "V": np.array(jh["V"], dtype=float),
              "Z": np.array(jh["Z"], dtype=float),
              "scaled": np.array([[-np.inf if x is None else x for x in row] for row in jh["scaled"]], dtype=float)}
        steps, Z, M, Lsum = numpy_tiles(rh["Q"], rh["K"], rh["V"], scale_fn, causal, B, L.get("window", 0))
        if T["block"] != B or len(T["steps"]) != len(steps) or T["computed"] != len(steps):
            fails.append("%s head %d: %d tiles (computed %s), NumPy %d" % (tag, h, len(T["steps"]), T["computed"], len(steps)))
            continue
        n = rh["Q"].shape[0]
        blocks = -(-n // B)
        if T["computed"] + T["skipped"] != blocks * blocks:
            fails.append("%s head %d: computed + skipped != %d tiles" % (tag, h, blocks * blocks))
        for got, (r0, r1, c0, c1, mm, ll, O) in zip(T["steps"], steps):
            if got["rows"] != [r0, r1] or got["cols"] != [c0, c1]:
                fails.append("%s head %d: tile %r %r, NumPy %r %r" % (tag, h, got["rows"], got["cols"], [r0, r1], [c0, c1]))
            elif not (close(got["m"], mm) and close(got["l"], ll) and close(got["O"], O)):
                fails.append("%s head %d tile rows %d-%d cols %d-%d: m, l or O differ" % (tag, h, r0, r1, c0, c1))
        scaled = rh["scaled"]
        row_max = scaled.max(axis=1)
        want_l = np.exp(scaled - row_max[:, None]).sum(axis=1)
        if not close(T["m"], row_max) or not close(T["l"], want_l):
            fails.append("%s head %d: the final m or l is not the softmax's row maximum and sum" % (tag, h))
        if not close(T["m"], M) or T["largest_difference_from_Z"] > TOL:
            fails.append("%s head %d: O / l differs from Z by %g" % (tag, h, T["largest_difference_from_Z"]))
        if np.abs(Z - rh["Z"]).max() > TOL:
            fails.append("%s head %d: the NumPy tiles disagree with the NumPy softmax" % (tag, h))


def check_bounds(fails, binary, tmp):
    """--tiles 1 of 512 tokens with d_k 256 would print 34 M numbers (each 1x1 tile its O row): refused at once
    naming a block that fits; a running O that overflows where Z does not: refused naming the cell; --decode
    prints each k and v row once (its size grows like n, not n^2, in the rows it prints)."""
    big = {"title": "long", "tokens": ["t%d" % i for i in range(512)], "d_model": 4, "heads": 1, "d_k": 256,
           "mask": "causal", "embeddings": {"random": {"seed": 1, "std": 1.0}},
           "weights": {"random": {"seed": 2, "qkv_std": 0.5, "out_std": 0.5}}}
    path = os.path.join(tmp, "long.json")
    with open(path, "w") as f:
        json.dump(big, f)
    _, r = run(binary, path, ["--tiles", "1"], expect=2)
    if r.stdout or "--tiles 1" not in r.stderr or "at most" not in r.stderr or "fits (--tiles" not in r.stderr:
        fails.append("--tiles 1 on 512 tokens of d_k 256: %r" % r.stderr)
    over = {"title": "overflow", "tokens": ["a", "b", "c"], "embeddings": [[1], [1], [1]], "heads": 1, "d_k": 1,
            "weights": {"W_Q": [[[0]]], "W_K": [[[0]]], "W_V": [[[1e308]]], "W_O": [[1e-300]]}}
    path = os.path.join(tmp, "overflow.json")
    with open(path, "w") as f:
        json.dump(over, f)
    run(binary, path, [])  # --json: Z and the output are finite
    for B in (1, 3):
        _, r = run(binary, path, ["--tiles", str(B)], expect=2)
        if r.stdout or "O[0][0]" not in r.stderr or "head[0].tiles.steps[" not in r.stderr:
            fails.append("--tiles %d whose running O overflows: %r" % (B, r.stderr))
    # The shipped sliding-window lesson's notes: "at most 3 keys and values per K/V head are kept".
    mistral = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lessons", "mistral-sliding-window.json")
    D, _ = run(binary, mistral, ["--decode"])
    with open(mistral) as f:
        M = json.load(f)
    most = max(s["cache_values"] for s in D["steps"])
    if D["cache_rows"] != 3 or "at most 3 keys and values per K/V head" not in M["notes"] or \
            most != 2 * M["kv_heads"] * 3 * M["d_k"]:
        fails.append("mistral-sliding-window: cache_rows %r, largest cache_values %r" % (D["cache_rows"], most))
    small = dict(big, tokens=big["tokens"][:64], d_k=8)
    path = os.path.join(tmp, "decode.json")
    with open(path, "w") as f:
        json.dump(small, f)
    D, r = run(binary, path, ["--decode"])
    rows = sum(len(s["new_kv"]) for s in D["steps"])
    if rows != 64 or "k_cache" in r.stdout:
        fails.append("--decode printed %d k/v rows for 64 tokens (each step adds one)" % rows)


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 24
    rng = np.random.default_rng(20261201)
    fails = []
    tiles_seen = skipped_seen = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(count):
            L = random_lesson(rng, k, causal=k % 5 != 4)
            path = os.path.join(tmp, "lesson%d.json" % k)
            with open(path, "w") as f:
                json.dump(L, f)
            J, _ = run(binary, path, [])
            if "rope" not in L and "kv_heads" not in L and "window" not in L:  # the features NumPy's reference knows
                R = reference(L, set())
                for h, (jh, rh) in enumerate(zip(J["head"], R["head"])):
                    if np.abs(np.array(jh["Z"]) - rh["Z"]).max() > TOL:
                        fails.append("lesson %d head %d: the trace's Z is not NumPy's" % (k, h))
            if L.get("mask") == "causal":
                D, _ = run(binary, path, ["--decode"])
                check_decode(fails, "lesson %d" % k, J, D, L)
            else:
                _, r = run(binary, path, ["--decode"], expect=2)
                if r.stdout or '"mask"' not in r.stderr:
                    fails.append("lesson %d: --decode without the causal mask: %r" % (k, r.stderr))
            for B in sorted({1, 2, 3, len(L["tokens"]) + 2}):
                JT, _ = run(binary, path, ["--tiles", str(B)])
                check_tiles(fails, "lesson %d B=%d" % (k, B), JT, L, B)
                tiles_seen += sum(len(h["tiles"]["steps"]) for h in JT["head"])
                skipped_seen += sum(h["tiles"]["skipped"] for h in JT["head"])
                # Without the tiles the JSON is the plain --json's.
                plain = {key: v for key, v in JT.items()}
                for h in plain["head"]:
                    h.pop("tiles")
                if plain != J:
                    fails.append("lesson %d B=%d: --tiles changed the rest of the JSON" % (k, B))
        # A source sequence cannot be decoded; --tiles 0 is no block; both together are refused.
        cross = random_lesson(rng, 99, causal=False)
        cross["source"] = {"tokens": ["s0", "s1"], "embeddings": rng.normal(0, 1, (2, len(cross["embeddings"][0]))).tolist()}
        path = os.path.join(tmp, "cross.json")
        with open(path, "w") as f:
            json.dump(cross, f)
        for args, needle in ((["--decode"], '"source"'), (["--tiles", "0"], "--tiles"),
                             (["--decode", "--tiles", "2"], "--decode and --tiles")):
            _, r = run(binary, path, args, expect=2)
            if r.stdout or needle not in r.stderr:
                fails.append("%s: %r" % (" ".join(args), r.stderr))
        # Issue 39: the outputs stay within --json's limit, and never print infinity.
        check_bounds(fails, binary, tmp)
    for f in fails:
        print("FAIL:", f)
    print("%d random lessons: decoding bit for bit, %d tiles computed, %d skipped by the mask (tolerance %g)"
          % (count, tiles_seen, skipped_seen, TOL))
    if skipped_seen == 0:
        print("FAIL: no tile was skipped: the mask's case is not covered")
        return 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
