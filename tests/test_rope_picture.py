#!/usr/bin/env python3
"""Issue 38: the rotation panel (key W, --export --what rotation) writes the program's own numbers. From --json's
Q, K, Q_rot and scores of each RoPE lesson and head, NumPy turns every pair of every row by p·θ_i (θ_i =
base^(-2i/d_k), the lesson's pairs) and must find Q_rot within 1e-12; the exported SVG must write the last token's
pairs before and after the turn as --json has them, and the relative view's score twice, which NumPy finds again
with the query at 0 and the key at −p.

usage: test_rope_picture.py MHA_TRACER SOURCE_DIR
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

exe, src = sys.argv[1], sys.argv[2]
fails, checks, worst = [], 0, 0.0


def fmt(v):
    """A number as the board writes it (model_format_value): 4 decimals, U+2212, exact integers bare."""
    if v == int(v) and abs(v) < 1e5:
        return ("\u2212" if v < 0 else "") + "%d" % abs(v)
    if abs(v) < 0.00005:
        v = 0.0
    return ("\u2212" if v < 0 else "") + "%.4f" % abs(v)


def turn(x, pos, base, dk, inter):
    y = x.copy()
    for i in range(dk // 2):
        a, b = (2 * i, 2 * i + 1) if inter else (i, i + dk // 2)
        al = pos * base ** (-2.0 * i / dk)
        y[a], y[b] = x[a] * np.cos(al) - x[b] * np.sin(al), x[a] * np.sin(al) + x[b] * np.cos(al)
    return y


for name in ("llama-rope-gqa", "mistral-sliding-window"):
    lesson = os.path.join(src, "lessons", name + ".json")
    d = json.loads(subprocess.run([exe, "--json", lesson], capture_output=True, text=True, check=True).stdout)
    rope = d["rope"]
    base = rope["base"] if isinstance(rope, dict) else 10000.0
    inter = isinstance(rope, dict) and rope.get("pairs") == "interleaved"
    dk = d["d_k"]
    for h, ht in enumerate(d["head"]):
        Q, QR, K, S = (np.array(ht[k], dtype=float) for k in ("Q", "Q_rot", "K", "scores"))
        n = Q.shape[0]
        for p in range(n):
            diff = abs(turn(Q[p], p, base, dk, inter) - QR[p]).max()
            worst = max(worst, diff)
            checks += 1
            if diff > 1e-12:
                fails.append("%s head %d row %d: Q_rot differs from NumPy by %g" % (name, h, p, diff))
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run([exe, "--export", out, "--what", "rotation", "--format", "svg", "--head", str(h), lesson],
                               capture_output=True, text=True)
            files = [f for f in os.listdir(out) if f.endswith(".svg")]
            checks += 1
            if r.returncode != 0 or len(files) != 1:
                fails.append("%s head %d: the export (%d, %s)" % (name, h, r.returncode, r.stderr.strip()[:200]))
                continue
            with open(os.path.join(out, files[0]), encoding="utf-8") as f:
                texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", f.read())]
        p = n - 1
        for i in range(dk // 2):
            a, b = (2 * i, 2 * i + 1) if inter else (i, i + dk // 2)
            for want in ("(%s, %s) \u2192" % (fmt(Q[p, a]), fmt(Q[p, b])), "(%s, %s)" % (fmt(QR[p, a]), fmt(QR[p, b]))):
                checks += 1
                if want not in texts:
                    fails.append("%s head %d pair %d: %r not on the slide" % (name, h, i, want))
        s0 = turn(Q[p], p, base, dk, inter) @ turn(K[0], 0, base, dk, inter)
        s1 = turn(Q[p], 0, base, dk, inter) @ turn(K[0], -p, base, dk, inter)
        checks += 2
        if abs(s0 - S[p, 0]) > 1e-12 or abs(s1 - s0) > 1e-12:
            fails.append("%s head %d: scores %r, %r, --json %r" % (name, h, s0, s1, S[p, 0]))
        if texts.count("q\u00b7k = %s" % fmt(S[p, 0])) != 2:
            fails.append("%s head %d: the score %s not written twice" % (name, h, fmt(S[p, 0])))

for f in fails[:20]:
    print("FAIL: " + f)
print("%d checks, largest |Q_rot - NumPy| %.2g, %d failed" % (checks, worst, len(fails)))
sys.exit(1 if fails or checks < 40 else 0)
