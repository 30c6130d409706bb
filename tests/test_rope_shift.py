#!/usr/bin/env python3
# RoPE's point against NumPy (issue 22): `--json --rope-shift K` on the shipped Llama lesson, with both pair
# conventions and several bases. Each head's Q_rot_shifted and K_rot_shifted must be Q and K turned by NumPy
# at positions p + K, its scores_shifted their product, all within 1e-12; and scores_shifted must equal the
# scores (of K = 0) within 1e-12 (for K up to 100). Bad uses of the option exit 2 naming it.
#   python3 tests/test_rope_shift.py BIN SOURCE_DIR
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

PAIRS = ["halves", "interleaved"]
BASES = [10000.0, 500000.0, 100.0, 2.5]
SHIFTS = [1, 3, 100]
failures = 0
checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
        print("FAIL:", what)


def turned(x, pairs, base, first):
    """x (rows, d_k) with row r turned at position first + r, as the issue defines RoPE."""
    rows, dk = x.shape
    j = np.arange(dk // 2)
    theta = 1.0 / base ** (2.0 * j / dk)
    angle = (first + np.arange(rows))[:, None] * theta[None, :]
    a = 2 * j if pairs == "interleaved" else j
    b = 2 * j + 1 if pairs == "interleaved" else j + dk // 2
    out = x.copy()
    out[:, a] = x[:, a] * np.cos(angle) - x[:, b] * np.sin(angle)
    out[:, b] = x[:, a] * np.sin(angle) + x[:, b] * np.cos(angle)
    return out


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def main():
    binary, source = sys.argv[1], sys.argv[2]
    with open(os.path.join(source, "lessons", "llama-rope-gqa.json"), encoding="utf-8") as f:
        lesson = json.load(f)
    lesson.pop("questions", None)  # their stated answers are the shipped rope's
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for pairs in PAIRS:
            for base in BASES:
                lesson["rope"] = {"base": base, "pairs": pairs}
                path = os.path.join(tmp, "lesson.json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(lesson, f)
                for k in SHIFTS:
                    r = run(binary, "--json", "--rope-shift", str(k), path)
                    check(r.returncode == 0, "%s %g k=%d: exit %d %s" % (pairs, base, k, r.returncode, r.stderr))
                    if r.returncode:
                        continue
                    d = json.loads(r.stdout)
                    check(d.get("rope_shift") == k, "the JSON names the shift")
                    for h, head in enumerate(d["head"]):
                        Q, K = np.array(head["Q"]), np.array(head["K"])
                        qs, ks = turned(Q, pairs, base, k), turned(K, pairs, base, k)
                        ss = qs @ ks.T
                        got_q, got_k = np.array(head["Q_rot_shifted"]), np.array(head["K_rot_shifted"])
                        got_s, scores = np.array(head["scores_shifted"]), np.array(head["scores"])
                        for name, got, want in (("Q_rot_shifted", got_q, qs), ("K_rot_shifted", got_k, ks),
                                                ("scores_shifted", got_s, ss)):
                            diff = float(np.max(np.abs(got - want)))
                            check(diff < 1e-12, "%s %g k=%d head %d: %s differs from NumPy by %g" % (pairs, base, k, h, name, diff))
                        diff = float(np.max(np.abs(got_s - scores)))
                        worst = max(worst, diff)
                        check(diff < 1e-12, "%s %g k=%d head %d: shifted scores differ from the scores by %g" % (pairs, base, k, h, diff))
                        # NumPy's own scores at k = 0 agree too (the point, independently of mha-tracer).
                        s0 = turned(Q, pairs, base, 0) @ turned(K, pairs, base, 0).T
                        check(float(np.max(np.abs(ss - s0))) < 1e-12, "NumPy: shifted scores equal the scores")
                        check(float(np.max(np.abs(qs - turned(Q, pairs, base, 0)))) > 1e-3, "the rows do turn")
        # Bad uses: exit 2, the option named, nothing on stdout.
        cat = os.path.join(source, "lessons", "the-cat-sat.json")
        for args, words in ((["--json", "--rope-shift", "2", cat], 'has no "rope"'),
                            (["--json", "--rope-shift", "-1", path], "--rope-shift expects a whole number"),
                            (["--trace", "--rope-shift", "1000001", path], "--rope-shift expects a whole number"),
                            (["--check", "--rope-shift", "2", path], "--rope-shift only works with")):
            r = run(binary, *args)
            check(r.returncode == 2 and words in r.stderr and r.stdout == "", "%s: exit %d, %s" % (args, r.returncode, r.stderr))
    print("largest difference of the shifted scores from the scores: %.2g" % worst)
    print("%d checks, %d failed" % (checks, failures))
    return 1 if failures or checks == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
