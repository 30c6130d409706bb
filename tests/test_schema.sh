#!/bin/sh
# lessons/lesson.schema.json (JSON Schema draft 2020-12): every shipped lesson (and tests/good) passes it,
# and every bad lesson in tests/bad fails it, except those only the loader can catch (the list in the Python below).
# Needs Python 3 with jsonschema >= 4 (Debian: python3-jsonschema); exits 77 (skipped) without it.
# usage: test_schema.sh SOURCE_DIR
src=$1
py=
for cand in /usr/bin/python3 python3; do
    if "$cand" -c 'import jsonschema; jsonschema.Draft202012Validator' >/dev/null 2>&1; then
        py=$cand
        break
    fi
done
if [ -z "$py" ]; then
    . "$(dirname "$0")/require.sh"
    missing_tool "a Python with jsonschema (Debian: python3-jsonschema)"
fi

exec "$py" - "$src" <<'EOF'
import glob
import json
import os
import re
import sys

from jsonschema import Draft202012Validator

src = sys.argv[1]

# Bad lessons that are valid JSON Schema-wise: what makes them bad depends on other values (sizes that
# must agree), on duplicate keys (a JSON parser keeps one), or on the numbers' results.
SCHEMA_CANNOT_CATCH = {
    "embeddings-random-std-overflow": "std times a normal draw beyond a double: depends on the seed's draws",
    "positions-sum-overflow": "embeddings + positions beyond a double: a sum of two items",
    "rope-scaling-bands": "high_freq_factor above low_freq_factor: one item against another",
    "weights-random-qkv-std-overflow": "qkv_std times a normal draw beyond a double: depends on the seed's draws",
    "questions-head-out-of-range": "a question's head below heads: depends on heads",
    "questions-correct-out-of-range": "correct indexes choices: depends on their count",
    "d_model-disagrees": "d_model must equal the embeddings' row length: another value",
    "embeddings-ragged": "rows of different lengths: items cannot refer to each other",
    "embeddings-too-few-rows": "one row per token: the count depends on tokens",
    "explicit-W_K-cols": "d_k columns: depends on d_model / heads",
    "explicit-W_O-cols": "d_model columns: depends on the embeddings",
    "explicit-W_O-rows": "heads * d_k rows: depends on heads and d_model",
    "explicit-W_Q-count": "one matrix per head: depends on heads",
    "kv_heads-W_K-too-many": "one matrix per K/V head: depends on kv_heads",
    "kv_heads-W_V-too-few": "one matrix per K/V head: depends on kv_heads",
    "kv_heads-b_K-count": "one bias per K/V head: depends on kv_heads",
    "kv_heads-above-heads": "kv_heads at most heads: another value",
    "kv_heads-not-dividing": "kv_heads divides heads: another value",
    "kv_heads-pytorch": "PyTorch weights need kv_heads = heads: another value",
    "rope-odd-d_k": "an even d_k: depends on d_model / heads",
    "explicit-W_Q-rows": "d_model rows: depends on the embeddings",
    "explicit-b_O-length": "d_model numbers: depends on the embeddings",
    "targets-row-width": "d_model numbers per row: depends on the embeddings",
    "targets-too-few-rows": "one row per token: the count depends on tokens",
    "train-too-many-targets": "sequences * n * d_model: a product of three values",
    "train-token-two-embeddings": "a repeated token's embeddings must agree: rows cannot refer to each other",
    "explicit-b_Q-length": "d_k numbers: depends on d_model / heads",
    "explicit-b_V-count": "one bias vector per head: depends on heads",
    "heads-not-dividing": "heads must divide d_model: a relation between two values",
    "pytorch-heads-times-d_k": "heads * d_k == d_model: a relation between three values",
    "pytorch-num-heads": "num_heads == heads: a relation between two values",
    "pytorch-in-proj-bias": "3 * d_model numbers: depends on the embeddings",
    "pytorch-in-proj-cols": "rows of d_model numbers: depends on the embeddings",
    "pytorch-in-proj-rows": "3 * d_model rows: depends on the embeddings",
    "pytorch-out-proj-rows": "d_model rows: depends on the embeddings",
    "pytorch-out-proj-shape": "d_model x d_model: depends on the embeddings",
    "sentence-513-characters": "characters are clusters (marks stay with their letter): a pattern counts code points",
    "positions-too-few-rows": "one row of positions per token: the count depends on tokens",
    "positions-row-width": "rows of d_model numbers: depends on the embeddings",
    "source-positions-rows": "one source position row per source token: the count depends on the source tokens",
    "source-rows": "one source row per source token: the count depends on the source tokens",
    "source-width": "source rows of d_model numbers: depends on the query embeddings",
    "syntax-lone-surrogate": "a JSON text problem: Python's parser accepts a lone \\uD83D escape",
    "top-duplicate-key": "duplicate keys: a JSON parser keeps only one of them",
    "weights-too-big": "4 * heads * d_k * d_model over the limit: a product of values",
    "weights-just-over": "4 * heads * d_k * d_model over the limit: a product of values",
    "trace-too-big": "the trace's size is a polynomial of n, m, heads, d_k and d_model",
    "trace-too-big-cross": "the trace's size is a polynomial of n, m, heads, d_k and d_model",
    "trace-too-big-rope": "the trace's size is a polynomial of n, m, heads, d_k and d_model (and RoPE)",
}


def strict_load(path):
    """json.load that rejects NaN/Infinity, which are not JSON (Python accepts them by default)."""
    def no_constant(name):
        raise ValueError("not JSON: " + name)
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"), parse_constant=no_constant)


schema_path = os.path.join(src, "lessons", "lesson.schema.json")
schema = strict_load(schema_path)
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
passed = failed = 0


def check(cond, message):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + message)


def errors(doc):
    return sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))


def where(e):
    return "/".join(str(p) for p in e.absolute_path) or "(top)"


# Every shipped lesson is valid.
lessons = sorted(p for p in glob.glob(os.path.join(src, "lessons", "*.json")) if not p.endswith(".schema.json"))
check(len(lessons) >= 8, "expected the shipped lessons, found %d" % len(lessons))
for path in lessons:
    errs = errors(strict_load(path))
    check(not errs, "%s: %s" % (os.path.basename(path), "; ".join("%s: %s" % (where(e), e.message[:160]) for e in errs[:3])))

# The loader's good corpus (tests/good) is valid too: the schema must not reject what mha-tracer accepts.
for path in sorted(glob.glob(os.path.join(src, "tests", "good", "*.json"))):
    errs = errors(strict_load(path))
    check(not errs, "good/%s: %s" % (os.path.basename(path), "; ".join("%s: %s" % (where(e), e.message[:160]) for e in errs[:3])))

# The lessons of the format's page (docs/lesson-format.md) are valid: its minimal lesson, read from the page,
# is the one below (the hand-made bad lessons start from it), and every whole lesson of the page's json blocks.
minimal = {"title": "Two words, one head", "tokens": ["hello", "world"], "embeddings": [[1, 0], [0, 1]], "heads": 1,
           "weights": {"W_Q": [[[1, 0], [0, 1]]], "W_K": [[[1, 0], [0, 1]]], "W_V": [[[1, 0], [0, 1]]],
                       "W_O": [[1, 0], [0, 1]]}}
check(not errors(minimal), "the minimal lesson")
with open(os.path.join(src, "docs", "lesson-format.md"), encoding="utf-8") as f:
    page = f.read()
blocks = re.findall(r"^```json\n(.*?)^```", page, re.S | re.M)
whole = [json.loads(b) for b in blocks if b.lstrip().startswith("{")]
check(len(whole) >= 3, "docs/lesson-format.md: %d whole lessons in its json blocks, expected 3 or more" % len(whole))
check(minimal in whole, "docs/lesson-format.md: its minimal lesson is not the one this test checks")
for doc in whole:
    check(not errors(doc), "docs/lesson-format.md: %r is not valid: %s" % (doc.get("title"), "; ".join(
        "%s: %s" % (where(e), e.message[:160]) for e in errors(doc)[:3])))

# Hand-made bad lessons, so the test means something however tests/bad grows.
def variant(**changes):
    doc = json.loads(json.dumps(minimal))
    for key, value in changes.items():
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value
    return doc

seeded = {"random": {"seed": 1}}
inline_bad = {
    "unknown key": variant(colour="red"),
    "no title": variant(title=None),
    "tokens and sentence": variant(sentence="hello world"),
    "neither tokens nor sentence": variant(tokens=None),
    "empty token": variant(tokens=["hello", ""]),
    "blank sentence": variant(tokens=None, sentence="   "),
    "heads 0": variant(heads=0),
    "heads 65": variant(heads=65),
    "heads 1.5": variant(heads=1.5),
    "mask other": variant(mask="future"),
    "random embeddings without d_model": variant(embeddings=seeded),
    "seed too large": variant(d_model=2, embeddings={"random": {"seed": 9007199254740992}}),
    "seed negative": variant(weights={"random": {"seed": -1}}),
    "std negative": variant(weights={"random": {"seed": 1, "qkv_std": -0.5}}),
    "two weight forms": variant(weights={"random": {"seed": 1}, "W_Q": [[[1]]]}),
    "empty weights": variant(weights={}),
    "explicit without W_O": variant(weights={"W_Q": [[[1]]], "W_K": [[[1]]], "W_V": [[[1]]]}),
    "pytorch without out_proj_weight": variant(weights={"pytorch": {"in_proj_weight": [[1]]}}),
    "string number": variant(embeddings=[[1, "0"], [0, 1]]),
    "causal cross-attention": variant(mask="causal", source={"tokens": ["a"], "embeddings": [[1, 0]]}),
    "source without embeddings": variant(source={"tokens": ["a"]}),
    "source unknown key": variant(source={"tokens": ["a"], "embeddings": [[1, 0]], "mask": "none"}),
    "a number that overflows": variant(embeddings=[[1e999, 0], [0, 1]]),
    "positions other": variant(positions="learned"),
    "scale 0": variant(scale=0),
    "scale string": variant(scale="0.5"),
    "source positions alone": variant(source={"tokens": ["a"], "embeddings": [[1, 0]], "positions": [[0, 1]]}),
}
for name, doc in inline_bad.items():
    check(bool(errors(doc)), "inline bad lesson '%s' passes the schema" % name)
check(not errors(variant(d_model=2, embeddings=seeded)), "random embeddings with d_model")
check(not errors(variant(source={"sentence": "le monde", "embeddings": [[1, 0], [0, 1]]})), "cross-attention")
check(not errors(variant(positions="sinusoidal", scale=1)), "sinusoidal positions and a scale")
check(not errors(variant(positions=[[0, 1], [1, 0]], source={"tokens": ["a"], "embeddings": [[1, 0]],
                                                             "positions": [[0, 1]]})), "explicit positions, both sides")
check(not errors(variant(weights={"pytorch": {"in_proj_weight": [[1, 0]] * 6, "out_proj_weight": [[1, 0], [0, 1]]}})),
      "pytorch form")

# Every fixture in tests/bad fails, unless listed above as beyond a schema.
bad = sorted(glob.glob(os.path.join(src, "tests", "bad", "*.json")))
seen = set()
for path in bad:
    name = os.path.basename(path)[:-len(".json")]
    seen.add(name)
    try:
        doc = strict_load(path)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        check(name not in SCHEMA_CANNOT_CATCH, "%s: not JSON (%s) but listed as beyond the schema" % (name, e))
        continue  # not JSON at all: nothing can validate it
    errs = errors(doc)
    if name in SCHEMA_CANNOT_CATCH:
        if errs:
            print("note: %s is now caught by the schema (%s); drop it from SCHEMA_CANNOT_CATCH" % (name, errs[0].message[:80]))
        passed += 1
    else:
        check(bool(errs), "%s passes the schema but mha-tracer rejects it (add it to SCHEMA_CANNOT_CATCH with a reason, "
                          "or make the schema catch it)" % name)
for name in sorted(set(SCHEMA_CANNOT_CATCH) - seen):
    print("note: %s is listed in SCHEMA_CANNOT_CATCH but tests/bad/%s.json does not exist" % (name, name))

print("%d bad fixtures, %d beyond the schema; %d passed, %d failed" % (len(bad), len(set(SCHEMA_CANNOT_CATCH) & seen), passed,
                                                                         failed))
sys.exit(1 if failed else 0)
EOF
