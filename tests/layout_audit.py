#!/usr/bin/env python3
"""The layout audit's rules, checked on `mha-tracer --layout` over every shipped lesson, tests/good and lessons
made here (rope, kv_heads, window, causal, positions, 1-8 tokens, d_model 2-8, 1-4 heads, notes, questions), at
1280x720 and 1920x1080, in English and French. One violation fails the test; the totals are printed.

usage: layout_audit.py MHA_TRACER SOURCE_DIR [--drop-operand | --drop-walk | --drop-panel | --drop-products |
                       --drop-tiles] [--quick]
                       [--only=LESSON,...] [--models [--drop-chart]]
  --drop-operand, --drop-walk, --drop-panel: the self-tests, which must fail (a planner that drops an operand; a walk
  that skips the part before a question: only the walk's rule counts then; a compare or shuffle panel that windows
  an output though both fit at the floor: only the panels' rule counts; --drop-products: a product whose operands fit
  on one screen shown one operand a part: only the products' rule counts; --drop-tiles: the tiles of a small lesson
  with S' windowed and V dropped: only the tiles' rule counts; with --models, --drop-chart: a next-token
  chart one bar short); --only=LESSON,...: those lessons and ten made here, both sizes, English, no deck (a look
  after a change, not the test); --quick: English at 1280x720 on a third of the made lessons (the
  sanitizer builds); --models: instead of lessons, tiny Hugging Face checkpoints made here (tests/test_hf_models.py:
  Llama with grouped K/V heads, Mistral's sliding window, GPT-2) with `--layout --model`, first and last layer: their
  own stages (the norm, the residual, the next token) and the overview under the same rules (needs NumPy)
"""
import itertools
import json
import os
import random
import re
import subprocess
import sys
import tempfile

exe, src = sys.argv[1], sys.argv[2]
SIZES = [(1280, 720), (1920, 1080)]
KV_KEYS = {"K", "V", "W_K", "W_V", "K_rot", "K_rot_T", "K_T"}
SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
BOARD_KINDS = {"stage", "question-asked", "question-answered"}
PAIR_PANELS = {"compare", "shuffle"}
PRODUCT_STAGES = {"scores", "weighted-sum"}


def lessons_made(tmp):
    """Small lessons over the combinations the issue names (a deterministic sample of them)."""
    rng = random.Random(36)
    out = []
    combos = list(itertools.product([1, 2, 3, 4, 5, 6, 7, 8], [2, 4, 6, 8], [1, 2, 4]))
    rng.shuffle(combos)
    for i, (n, d_model, heads) in enumerate(combos[:40]):
        if d_model % heads:
            continue
        d_k = d_model // heads
        toks = ["The", "cat", "sat", "on", "the", "mat", "today", "again"][:n]
        L = {"title": "made %d" % i, "tokens": toks,
             "embeddings": [[round(rng.uniform(-1, 1), 2) for _ in range(d_model)] for _ in range(n)],
             "heads": heads, "weights": {"random": {"seed": 1000 + i}}}
        if i % 2:
            L["mask"] = "causal"
        if i % 3 == 0 and d_k % 2 == 0:
            L["rope"] = True
        if heads > 1 and i % 4 in (1, 2):
            L["kv_heads"] = 1 if i % 4 == 1 else heads // 2
        if i % 5 == 2 and L.get("mask") == "causal":
            L["window"] = 2
        if i % 7 == 3 and "rope" not in L:
            L["positions"] = "sinusoidal"
        if i % 3 == 1:
            L["notes"] = "Notes for the class, long enough to wrap over several lines of the footer. " * 3
        if i % 4 == 0:
            L["questions"] = [{"stage": "softmax", "head": heads - 1, "text": "Which token does the last one attend to?",
                               "answer": {"kind": "cell", "cell": [n - 1, 0]}},
                              {"stage": "projections", "head": 0, "text": "What is K[0, 0]?",
                               "answer": {"kind": "value", "matrix": "K", "cell": [0, 0]}}]
        path = os.path.join(tmp, "made-%02d.json" % i)
        with open(path, "w") as f:
            json.dump(L, f)
        ok = subprocess.run([exe, "--check", path], capture_output=True).returncode == 0
        if not ok and "questions" in L:  # a question that does not fit this lesson: without it
            del L["questions"]
            with open(path, "w") as f:
                json.dump(L, f)
            ok = subprocess.run([exe, "--check", path], capture_output=True).returncode == 0
        if ok:
            out.append(path)
    return out


def overlap(a, b):
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


class Audit:
    def __init__(self):
        self.screens = self.matrices = self.operands = self.equations = 0
        self.errors = []
        self.exports = 0
        self.walks = self.walk_steps = 0

    def fail(self, where, what):
        self.errors.append("%s: %s" % (where, what))

    def check(self, lesson, size, lang, lines, drop):
        layers = sorted({d["layer"] for d in lines if "layer" in d})
        if len(layers) > 1:  # a lesson of layers: each layer's screens and walks are a lesson's
            for layer in layers:
                self.check(lesson, size, lang, [d for d in lines if d.get("layer", layer) == layer], drop)
            return
        groups, plain, asked, pairs = {}, {}, [], {}
        with open(lesson, encoding="utf-8") as f:
            spec = json.load(f)
        heads = spec.get("heads", 1) if isinstance(spec.get("heads", 1), int) else 1
        emb = spec.get("embeddings")
        # The small lessons (up to 8 tokens, d_model up to 8): every panel's matrix whole.
        small = isinstance(emb, list) and 0 < len(emb) <= 8 and all(isinstance(r, list) and len(r) <= 8 for r in emb)
        kv = spec.get("kv_heads", heads) if isinstance(spec.get("kv_heads", heads), int) else heads
        toks = spec.get("tokens")
        tokens = {t for t in toks if isinstance(t, str) and t} if isinstance(toks, list) else set()
        walks = [d for d in lines if d.get("walk")]
        lines = [d for d in lines if not d.get("walk")]
        # The tiles' small lessons by what the screens show (random embeddings too: flash-tiles): up to 8 queries
        # and keys, d_model up to 8; V on every tile screen where V is at most 6 x 2 (beside S' at the floor), and
        # at every block with d_k up to 4 and at blocks of up to 3 with d_k up to 8 (V's rows of the tile under the
        # table, or V turned under S', at worst).
        shape = {m["key"]: m["shape"] for d in lines if isinstance(d.get("matrices"), list) for m in d["matrices"]}
        n_q, n_k = shape.get("masked", [99, 99])
        small_tiles = n_q <= 8 and n_k <= 8 and shape.get("X", [0, 99])[1] <= 8
        narrow_v = n_k <= 6 and shape.get("V", [0, 99])[1] <= 2
        d_v = shape.get("V", [0, 99])[1]
        for d in lines:
            if d.get("summary"):
                continue
            self.screens += 1
            self.matrices += len(d["matrices"])
            where = "%s %dx%d %s: %s" % (os.path.basename(lesson), size[0], size[1], lang, d["name"])
            W, H = d["size"]
            floor = d["floor_font"]
            for m in d["matrices"]:
                x, y, w, h = m["box"]
                if x < 0 or y < 0 or x + w > W or y + h > H:
                    self.fail(where, "%s drawn outside the screen %s" % (m["title"], m["box"]))
                if d["screen"] != "help" and m["num_font"] < floor:
                    self.fail(where, "%s: numbers of %d px, under the floor %d" % (m["title"], m["num_font"], floor))
            for m in d["matrices"]:  # the next token's chart draws every bar its header announces
                if m["key"] == "next" and drop == "chart":  # the self-test: the chart that drew one bar less
                    m["cols"] = [0, m["shape"][1] - 1]
                if m["key"] == "next" and m["cols"] != [0, m["shape"][1]]:
                    self.fail(where, "the chart announces %d bars and draws %d" % (m["shape"][1],
                                                                                 m["cols"][1] - m["cols"][0]))
            for m in d["matrices"]:  # captions name the matrices the numbers come from: K/V heads' own index
                if m["key"] in KV_KEYS and heads > kv > 0:
                    sub = "".join(str(SUBSCRIPTS.index(ch)) for ch in m["title"].split("^")[0] if ch in SUBSCRIPTS)
                    g = m["head"] // (heads // kv)
                    if sub != str(g):
                        self.fail(where, "%s of head %d is K/V head %d's: captioned %r" % (m["key"], m["head"], g,
                                                                                          m["title"]))
            boxes = [m["box"] for m in d["matrices"]]
            if d["screen"] != "help":
                for a, b in itertools.combinations(range(len(boxes)), 2):
                    if overlap(boxes[a], boxes[b]):
                        self.fail(where, "%s and %s overlap" % (d["matrices"][a]["title"], d["matrices"][b]["title"]))
            for t in d["texts"]:
                x, y, w, h = t["box"]
                if x < 0 or y < 0 or x + w > W + 1 or y + h > H + 1:
                    self.fail(where, "text %r outside the screen" % t["t"][:30])
                if d["screen"] in BOARD_KINDS and t["role"] == "label" and t["size"] < floor:
                    self.fail(where, "axis label %r of %d px under the floor %d" % (t["t"][:20], t["size"], floor))
            if d["screen"] == "rotation":  # RoPE as a picture (key W): its labels at the floor, apart, all there
                labels = [t for t in d["texts"] if t["role"] == "label"]
                for t in labels:
                    if t["size"] < floor:
                        self.fail(where, "rotation label %r of %d px under the floor %d" % (t["t"][:30], t["size"], floor))
                for a, b in itertools.combinations(labels, 2):
                    if overlap(a["box"], b["box"]):
                        self.fail(where, "rotation labels %r and %r overlap" % (a["t"][:20], b["t"][:20]))
                for want in ("rad", "\u03b8 =", "q\u00b7k ="):
                    if not any(want in t["t"] for t in labels):
                        self.fail(where, "the rotation panel writes no %r" % want)
            if d["screen"] == "decode" and small:  # the decode slides whole: the caches, q and z (a token's row)
                for m in d["matrices"]:
                    if m["rows"][1] - m["rows"][0] != m["shape"][0] or m["cols"] != [0, m["shape"][1]]:
                        self.fail(where, "%s windowed (rows %s, cols %s of %s)" % (m["title"], m["rows"], m["cols"],
                                                                                   m["shape"]))
            if drop == "panel" and d["screen"] in PAIR_PANELS and d["matrices"] \
                    and (small or d.get("panel_fits")):  # the self-test: a panel that windows what fits
                m = d["matrices"][0]
                m["rows"] = [0, max(1, m["shape"][0] - 1)]
            if d["screen"] in PAIR_PANELS and small:  # a small lesson's M and X: every output whole
                for m in d["matrices"]:
                    shown = (m["rows"][1] - m["rows"][0], m["cols"][1] - m["cols"][0])
                    if shown != tuple(m["shape"]):
                        self.fail(where, "panel: %s windowed (rows %s, cols %s of %s) on a lesson of up to 8 tokens "
                                  "and d_model 8" % (m["title"], m["rows"], m["cols"], m["shape"]))
            if d["screen"] in PAIR_PANELS:  # M and X: the two outputs whole where they fit, the tokens at the floor
                fits = d.get("panel_fits")
                if fits is None:
                    self.fail(where, "the panel does not say whether its outputs fit at the floor")
                for m in d["matrices"]:
                    if fits and (m["rows"] != [0, m["shape"][0]] or m["cols"] != [0, m["shape"][1]]):
                        self.fail(where, "panel: %s windowed (rows %s, cols %s of %s) though each output fits "
                                  "whole at the floor" % (m["title"], m["rows"], m["cols"], m["shape"]))
                pairs.setdefault((d["screen"], d["head"]), []).append(d)
                for t in d["texts"]:
                    if t["size"] < floor and t["t"].rstrip(SUBSCRIPTS) in tokens:
                        self.fail(where, "panel: token label %r of %d px under the floor %d" % (t["t"], t["size"],
                                                                                               floor))
            if drop == "tiles" and d["screen"] == "tiles" and small_tiles:  # the self-test: S' windowed, V dropped
                d["matrices"] = [m for m in d["matrices"] if m["key"] != "V"]
                d["texts"] = [t for t in d["texts"] if not t["t"].startswith("O \u2190")]
                for m in d["matrices"]:
                    m["rows"] = [0, max(1, m["shape"][0] - 1)]
            if d["screen"] == "tiles" and small_tiles:  # every block size: S' whole, V whole or the tile's rows
                for m in d["matrices"]:
                    shown = (m["rows"][1] - m["rows"][0], m["cols"][1] - m["cols"][0])
                    if m["key"] == "masked" and shown != tuple(m["shape"]):
                        self.fail(where, "tiles: %s windowed (rows %s, cols %s of %s) on a lesson of up to 8 tokens "
                                  "and d_model 8" % (m["title"], m["rows"], m["cols"], m["shape"]))
                    if m["key"] == "V" and shown != tuple(m["shape"]) and \
                            (shown[1] != m["shape"][1] or shown[0] > d.get("block", 0)):
                        self.fail(where, "tiles: %s windowed (rows %s of %s), neither whole nor the tile's rows"
                                  % (m["title"], m["rows"], m["shape"]))
                block = d.get("block", 99)
                if (narrow_v or block <= 3 or d_v <= 4) and \
                        not any(m["key"] == "V" for m in d["matrices"]):
                    self.fail(where, "tiles: no V (the tile's O is built from V's rows) though V is %s, blocks of %s"
                              % (shape.get("V"), block))
            if d["screen"] == "tiles":  # the update O <- O e^(m-m') + P V[...] written only with V on the screen
                update = any(t["t"].startswith("O \u2190") for t in d["texts"])
                if update != any(m["key"] == "V" for m in d["matrices"]):
                    self.fail(where, "tiles: the update %s but V %s" % ("is written" if update else "is not",
                                                                      "is not shown" if update else "is"))
            if not d.get("themes_alike", False):
                self.fail(where, "the dark theme moves the screen")
            if d["screen"] in BOARD_KINDS and not d["stable"]:
                self.fail(where, "a banner or the notes moved the board")
            if d["screen"] == "stage":
                groups.setdefault((d["stage"], d["head"]), []).append(d)
                plain[(d["stage"], d["head"], d["part"], d["parts"])] = d
            elif d["screen"] in ("question-asked", "question-answered"):
                asked.append((where, d))
        # M and X in parts, as → walks them from the first: each output that fits whole at the floor is whole on one.
        for (kind, head), screens in pairs.items():
            where = "%s %dx%d %s: %s head %d" % (os.path.basename(lesson), size[0], size[1], lang, kind, head)
            if [(d["part"], d["parts"]) for d in screens] != [(k + 1, len(screens)) for k in range(len(screens))]:
                self.fail(where, "panel: → did not walk parts 1..N: %s" % [(d["part"], d["parts"]) for d in screens])
            if not any(d.get("panel_fits") for d in screens):
                continue
            whole = {m["title"] for d in screens for m in d["matrices"] if m["key"] == "output"
                     and m["rows"] == [0, m["shape"][0]] and m["cols"] == [0, m["shape"][1]]}
            if len(whole) < 2:
                self.fail(where, "panel: the outputs fit whole at the floor but no part shows both whole (%s)"
                          % sorted(whole))
        for w in walks:
            self.check_walk("%s %dx%d %s" % (os.path.basename(lesson), size[0], size[1], lang), w, lines, drop)
        # A question never moves what the board shows: each matrix on its screen where the stage's own screen of
        # that part has it.
        for where, d in asked:
            base = plain.get((d["stage"], d["head"], d["part"], d["parts"]))
            if not base:
                continue
            boxes = {(m["key"], m["head"]): m["box"] for m in base["matrices"]}
            for m in d["matrices"]:
                b = boxes.get((m["key"], m["head"]))
                if b and b != m["box"]:
                    self.fail(where, "the question moved %s from %s to %s" % (m["title"], b, m["box"]))
        # The lessons whose products always fit with their operands together at 1280x720 (rule 13).
        shapes = {m["key"]: m["shape"] for d in lines if d.get("screen") == "stage" for m in d["matrices"]}
        n_q, n_k = shapes.get("scores", [99, 99])
        small_products = n_q <= 8 and n_k <= 8 and shapes.get("Q", [0, 99])[1] <= 4
        for (stage, head), screens in groups.items():
            where = "%s %dx%d %s: %s head %d" % (os.path.basename(lesson), size[0], size[1], lang, stage, head)
            counts = {d["parts"] for d in screens}
            if len(counts) != 1 or sorted(d["part"] for d in screens) != list(range(1, counts.pop() + 1)):
                self.fail(where, "parts not numbered 1..N with one N: %s" % [(d["part"], d["parts"]) for d in screens])
                continue
            screens.sort(key=lambda d: d["part"])
            shown = [[(m["key"], m["head"]) for m in d["matrices"]] for d in screens]
            if drop == "operand" and shown and shown[-1]:
                shown[-1] = shown[-1][:-1]  # the self-test: a planner that drops one operand
            eqs = screens[0].get("equations", [])
            if drop == "products":  # the self-test: the old planner, each operand of a product on a part of its own
                for e in eqs:
                    ops = [(t.get("by_rows", t["key"]), t["head"]) for t in e["terms"] if not t["result"]]
                    ops += [(t["key"], t["head"]) for t in e["terms"] if not t["result"]]
                    if e.get("operands_together") is not None:
                        for s in shown:
                            mine = [t for t in s if t in ops]
                            for t in mine[1:]:
                                s.remove(t)
                                shown.append([t])
            # A transposed operand the board shows by rows (K beside Q for Q · K^T) counts as shown.
            alias = {(t["by_rows"], t["head"]): (t["key"], t["head"]) for e in eqs for t in e["terms"] if "by_rows" in t}
            shown = [[alias.get(t, t) for t in s] for s in shown]
            for e in eqs:
                self.equations += 1
                terms = [(t["key"], t["head"]) for t in e["terms"]]
                self.operands += len(terms)
                first = []
                for k, t in enumerate(terms):
                    parts = [i for i, s in enumerate(shown) if t in s]
                    if not parts:
                        self.fail(where, "operand %s of head %d never on screen" % t)
                        continue
                    first.append(parts[0])
                    for i in parts:
                        if i >= len(screens):
                            continue
                        m = next(m for m in screens[i]["matrices"] if alias.get((m["key"], m["head"]),
                                                                               (m["key"], m["head"])) == t)
                        whole = m["rows"] == [0, m["shape"][0]] and m["cols"] == [0, m["shape"][1]]
                        if not whole and e["terms"][k]["alone"]:
                            self.fail(where, "%s windowed (rows %s, cols %s) though it fits whole at the floor"
                                      % (m["title"], m["rows"], m["cols"]))
                if first != sorted(first):
                    self.fail(where, "operands out of order (first parts %s)" % first)
                if e["together"] and not any(all(t in s for t in terms) for s in shown):
                    self.fail(where, "equation %s fits on one screen at the floor but is split" % [t[0] for t in terms])
                # Rule 13: a product's operands on one screen where they fit at the floor; and on the small lessons
                # (up to 8 tokens, d_k up to 4) at 1280x720, the scores' and the weighted sum's always fit.
                if "operands_together" not in e:
                    continue
                ops = [(t["key"], t["head"]) for t in e["terms"] if not t["result"]]
                pinned = stage in PRODUCT_STAGES and size == SIZES[0] and small_products
                if pinned and not e["operands_together"]:
                    self.fail(where, "products: the operands %s do not fit on one screen at the floor"
                              % [t[0] for t in ops])
                if (e["operands_together"] or pinned) and not any(all(t in s for t in ops) for s in shown):
                    self.fail(where, "products: the operands %s fit on one screen at the floor but no part shows "
                              "them together" % [t[0] for t in ops])


    def check_walk(self, where, w, lines, drop):
        """The walk with → from Home on one head, answering each question, then ← back: every part of
        every stage of that head shown in order, none skipped; each question asked, on its own head,
        after the parts before its result and before its result shows, the board then back where it
        was; ← the same parts backwards, asking nothing."""
        head = w["head"]
        where = "%s: the walk on head %d" % (where, head)
        self.walks += 1
        expected = []
        for d in lines:
            if d.get("screen") == "stage" and d["head"] == head and (d["stage"], d["part"]) not in expected:
                expected.append((d["stage"], d["part"]))
        fwd, back = w["forward"], w["back"]
        if drop == "walk":  # the self-test: the walk that went to a question's part at once (the part before it
            # never shown on the class's head)
            j = next((i for i, s in enumerate(fwd) if s["quiz"] == "asked"), 3)
            fwd = fwd[:j - 1] + fwd[j:]
        seq, asked = [], {}
        for i, s in enumerate(fwd):
            self.walk_steps += 1
            if s["quiz"] == "asked" and s["question"] not in asked:
                asked[s["question"]] = i
            if s["head"] == head and (not seq or seq[-1] != (s["stage"], s["part"])):
                seq.append((s["stage"], s["part"]))
        if seq != expected:
            k = next((i for i, (a, b) in enumerate(zip(seq, expected)) if a != b), min(len(seq), len(expected)))
            self.fail(where, "→ shows %s where the stages' parts are %s (from step %d)"
                      % (seq[max(0, k - 1):k + 3], expected[max(0, k - 1):k + 3], k))
        if len(asked) != w["questions"]:
            self.fail(where, "%d of the lesson's %d questions asked" % (len(asked), w["questions"]))
        for q, j in asked.items():
            s = fwd[j]
            mat, qhead = s["question_matrix"], s["head"]
            for t in fwd[:j]:  # (a verdict on the same result shows it: the next question hides it again)
                if t["quiz"] is None and any(m[0] == mat and m[1] == qhead and m[2] for m in t["shown"]):
                    self.fail(where, "question %d's %s of head %d shows before it is asked (%s part %d)"
                              % (q + 1, mat, qhead, t["stage"], t["part"]))
                    break
            before = {(t["stage"], t["part"]) for t in fwd[:j] if t["head"] == head}
            for k in range(1, s["part"]):
                if qhead == head and (s["stage"], k) not in before:
                    self.fail(where, "question %d asked on %s part %d before part %d showed"
                              % (q + 1, s["stage"], s["part"], k))
            if qhead != head:  # back on the class's head where it left
                last = next((t for t in reversed(fwd[:j]) if t["head"] == head), None)
                nxt = next((t for t in fwd[j:] if t["head"] == head), None)
                if last and nxt and (nxt["stage"], nxt["part"]) in expected:
                    a = expected.index((last["stage"], last["part"]))
                    b = expected.index((nxt["stage"], nxt["part"]))
                    if b not in (a, a + 1):
                        self.fail(where, "after question %d the board comes back on %s part %d, not after %s part %d"
                                  % (q + 1, nxt["stage"], nxt["part"], last["stage"], last["part"]))
        bseq = []
        for s in back:
            self.walk_steps += 1
            if s["quiz"] == "asked" or s["head"] != head:
                self.fail(where, "← asks or moves to head %d on %s part %d" % (s["head"], s["stage"], s["part"]))
            if not bseq or bseq[-1] != (s["stage"], s["part"]):
                bseq.append((s["stage"], s["part"]))
        if bseq != expected[::-1][1:]:
            self.fail(where, "← shows %s, not the parts backwards" % bseq[:6])


def compare_exports(audit, lesson, tmp):
    """The default deck (--stage all) shows the audit's screens: per stage as many board slides as parts, each with the matrices the
    audit lists for that part (titles in the SVG's text), at 1280x720 (scale 1), head 0."""
    out = os.path.join(tmp, "export-" + os.path.basename(lesson)[:-5])
    # The whole deck as a teacher asks for it (--stage all: every part, without --parts all).
    r = subprocess.run([exe, "--export", out, lesson, "--what", "board", "--stage", "all",
                        "--scale", "1", "--format", "svg"], capture_output=True, text=True)
    if r.returncode != 0:
        audit.fail(lesson, "--export exited %d: %s" % (r.returncode, r.stderr.strip()[:200]))
        return
    r = subprocess.run([exe, "--layout", lesson, "--head", "0"], capture_output=True, text=True)
    screens = [json.loads(l) for l in r.stdout.splitlines()]
    slides = {}
    for f in os.listdir(out):
        m = re.search(r"-stage\d+-(?P<key>[a-z-]+?)(-head\d+)?(-part(?P<part>\d+))?\.svg$", f)
        if m and "question" not in f:
            slides.setdefault(m.group("key"), {})[int(m.group("part") or 1)] = f
    for d in screens:
        if d.get("screen") != "stage":
            continue
        mine = slides.get(d["stage"], {})
        where = "%s export of %s" % (os.path.basename(lesson), d["name"])
        if sorted(mine) != list(range(1, d["parts"] + 1)):
            audit.fail(where, "slides %s for %d parts" % (sorted(mine), d["parts"]))
            continue
        audit.exports += 1
        name = mine.get(d["part"])
        if not name:
            audit.fail(where, "no slide for part %d" % d["part"])
            continue
        svg = open(os.path.join(out, name), encoding="utf-8").read()
        for m in d["matrices"]:
            head = m["title"].split("^")[0]
            if head not in svg:
                audit.fail(where, "%s is on the screen but not in %s" % (m["title"], name))


MODEL_STAGES = ("input-norm", "residual", "next-token")


def audit_models(tmp, drop=None):
    """--layout --model on tiny checkpoints: every screen of the first and the last layer under the lessons' rules
    (the layer saved as a lesson gives check() its heads and shapes), and the model's own screens there."""
    sys.path.insert(0, os.path.join(src, "tests"))
    import numpy as np
    import test_hf_models as T
    rng = np.random.default_rng(37)
    llama3 = T.make_byte_level(T.LLAMA3, bos=True, merges_as_lists=True)
    gpt2 = T.make_byte_level(T.GPT2, bos=False)
    built = [(T.make_model(tmp, "llama-gqa", rng, tok=llama3)[0], 3),
             (T.make_model(tmp, "mistral-window", rng, model_type="mistral", tok=T.make_sentencepiece(), sliding=3,
                           kv=4)[0], 3),
             (T.make_gpt2(tmp, "gpt2", rng, tok=gpt2)[0], 2)]
    audit, own = Audit(), {}
    for d, layers in built:
        for layer in sorted({0, layers - 1}):
            spec = os.path.join(tmp, "%s-layer%d.json" % (os.path.basename(d), layer))
            r = subprocess.run([exe, "--model", d, "--layer", str(layer), "--save-lesson", spec],
                               capture_output=True, text=True)
            if r.returncode != 0:
                audit.fail(d, "--save-lesson exited %d: %s" % (r.returncode, r.stderr.strip()[:300]))
                continue
            for size in SIZES:
                for lang in ("en", "fr") if size == SIZES[0] else ("en",):
                    r = subprocess.run([exe, "--layout", "--model", d, "--layer", str(layer), "--size",
                                        "%dx%d" % size, "--lang", lang], capture_output=True, text=True)
                    if r.returncode != 0:
                        audit.fail(d, "--layout --model exited %d: %s" % (r.returncode, r.stderr.strip()[:300]))
                        continue
                    lines = [json.loads(l) for l in r.stdout.splitlines()]
                    for x in lines:
                        key = x.get("stage") if x.get("screen") == "stage" else x.get("screen")
                        own[(os.path.basename(d), key)] = own.get((os.path.basename(d), key), 0) + 1
                    audit.check(spec, size, lang, lines, drop)
    for name in ("llama-gqa", "mistral-window", "gpt2"):
        for key in MODEL_STAGES + ("overview",):
            if not own.get((name, key)):
                audit.fail(name, "no %s screen audited" % key)
    print("layout audit of checkpoints: %d layers, %d screens (%d of the model's own stages, %d overviews), "
          "%d matrices, %d equations, %d operands checked"
          % (sum(len({0, n - 1}) for _, n in built), audit.screens,
             sum(v for (n, k), v in own.items() if k in MODEL_STAGES),
             sum(v for (n, k), v in own.items() if k == "overview"), audit.matrices, audit.equations, audit.operands))
    if drop == "chart":  # the self-test of the chart's rule: its violations only
        audit.errors = [e for e in audit.errors if "the chart announces" in e]
    for e in audit.errors[:60]:
        print("  " + e)
    if audit.errors:
        print("layout audit of checkpoints: %d violations" % len(audit.errors))
        return 1
    return 0 if audit.screens >= 200 else 1


def main():
    if "--models" in sys.argv:
        return audit_models(tempfile.mkdtemp(), "chart" if "--drop-chart" in sys.argv else None)
    drop = next((a[len("--drop-"):] for a in sys.argv if a.startswith("--drop-")), None)
    tmp = tempfile.mkdtemp()
    files = sorted(os.path.join(src, "lessons", f) for f in os.listdir(os.path.join(src, "lessons"))
                   if f.endswith(".json") and "schema" not in f)
    files += sorted(os.path.join(src, "tests", "good", f) for f in os.listdir(os.path.join(src, "tests", "good"))
                    if f.endswith(".json"))
    made = lessons_made(tmp)
    only = next((a[len("--only="):].split(",") for a in sys.argv if a.startswith("--only=")), None)
    if only:  # a look at some lessons after a change (not the test): their files, both sizes, English
        files, made, sizes, langs = [os.path.abspath(f) for f in only], made[:10], SIZES, ("en",)
        drop = drop or "only"
    elif drop:  # the self-test: the shipped lessons at one size are enough to see it fail
        files, made, sizes, langs = files[:8], made[:4], SIZES[:1], ("en",)
    elif "--quick" in sys.argv:  # under the sanitizers (ten times slower): English at 720p, a third of the made
        sizes, langs, made = SIZES[:1], ("en",), made[::3]
    else:
        sizes, langs = SIZES, ("en", "fr")
    if len(made) < (4 if drop else 10) and not only:
        print("layout audit: only %d lessons made pass --check" % len(made))
        return 1
    files += made
    audit = Audit()
    for f in files:
        for size in sizes:
            for lang in langs:
                if lang == "fr" and size != SIZES[0] and f not in made[:8]:
                    continue  # French at 1080p on a sample: the words change widths, not the plan's rules
                r = subprocess.run([exe, "--layout", f, "--size", "%dx%d" % size, "--lang", lang],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    audit.fail(f, "--layout exited %d: %s" % (r.returncode, r.stderr.strip()[:300]))
                    continue
                audit.check(f, size, lang, [json.loads(l) for l in r.stdout.splitlines()], drop)
    for f in ([] if drop or only else [os.path.join(src, "lessons", "llama-rope-gqa.json"),
                               os.path.join(src, "lessons", "the-cat-sat.json")] + made[:6]):
        compare_exports(audit, f, tmp)
    print("layout audit: %d lessons (%d made here), %d screens, %d matrices, %d equations, %d operands checked; "
          "%d board slides compared with the audit's screens"
          % (len(files), len(made), audit.screens, audit.matrices, audit.equations, audit.operands, audit.exports))
    print("layout audit: %d walks with → and ← (%d steps)" % (audit.walks, audit.walk_steps))
    if drop == "walk":  # the self-test of the walk's rule: its violations only
        audit.errors = [e for e in audit.errors if "the walk on head" in e]
    if drop == "panel":  # the self-test of the panels' rule: its violations only
        audit.errors = [e for e in audit.errors if ": panel: " in e]
    if drop == "tiles":  # the self-test of the tiles' rule: its violations only
        audit.errors = [e for e in audit.errors if ": tiles: " in e]
    if drop == "products":  # the self-test of the products' rule: its violations only
        audit.errors = [e for e in audit.errors if ": products: " in e]
    if audit.exports < 20 and not drop and not only:
        audit.fail("exports", "only %d slides compared" % audit.exports)
    for e in audit.errors[:60]:
        print("  " + e)
    if audit.errors:
        print("layout audit: %d violations" % len(audit.errors))
        return 1
    if audit.screens < (200 if drop or "--quick" in sys.argv else 2000) and not only:
        print("layout audit: only %d screens" % audit.screens)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
