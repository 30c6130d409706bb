#!/bin/sh
# --model DIR --export OUTDIR --what overview (issue 40): a tiny generated Llama checkpoint (3 layers, 4 heads,
# causal) exported as SVG and PNG. The SVG holds one heatmap group per layer x head, each of n x n cells (n: the
# text's tokens from --json), every cell above the diagonal the one colour of weight 0 and cell (0, 0), weight 1,
# another; the layer labels L0..L2 and the framed layer (--layer 1). Refused with exit 2 and nothing written:
# --what overview without --model, --head with --model; the layer's board and heatmaps written directly.
# usage: test_export_model.sh MHA_TRACER SOURCE_DIR    Exit 77 (skip) without a python3 with numpy
# (unless MHA_REQUIRE_TOOLS=1).
BIN=$1
SRC=$2
. "$(dirname "$0")/require.sh"
PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c "import numpy" 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || missing_tool "a python3 with numpy (Debian: python3-numpy)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$PY" - "$SRC/tests" "$T/ck" <<'PYEOF' || fail "the checkpoint was not made"
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import test_hf_models as T
rng = np.random.default_rng(40)
T.make_model(sys.argv[2], "llama", rng, tok=T.make_byte_level(T.LLAMA3, bos=True, merges_as_lists=True))
PYEOF
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
"$BIN" --model "$T/ck/llama/" --layer 1 --export "$T/out" --what overview --format both >"$T/paths" 2>"$T/err" \
    || fail "the export exited $? ($(cat "$T/err"))"
[ "$(cat "$T/paths")" = "$(printf '%s\n%s' "$T/out/llama-overview.png" "$T/out/llama-overview.svg")" ] \
    || fail "printed paths: $(cat "$T/paths")"
[ -s "$T/out/llama-overview.png" ] && [ -s "$T/out/llama-overview.svg" ] || fail "the files are missing or empty"
[ "$(head -c 8 "$T/out/llama-overview.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "not a PNG"
"$BIN" --model "$T/ck/llama" --layer 1 --json >"$T/json" || fail "--json exited $?"
"$PY" - "$T/out/llama-overview.svg" "$T/json" <<'PYEOF' || fail "the SVG"
import json, re, sys
svg = open(sys.argv[1], encoding="utf-8").read()
n = len(json.load(open(sys.argv[2]))["token_ids"])
layers, heads = 3, 4
groups = re.findall(r'<g class="overview-heatmap" data-layer="(\d+)" data-head="(\d+)">\n(.*?)</g>', svg, re.S)
pairs = sorted((int(l), int(h)) for l, h, _ in groups)
assert pairs == [(l, h) for l in range(layers) for h in range(heads)], ("one group per layer x head", pairs)
assert svg.count('class="overview-heatmap"') == layers * heads
for l, h, body in groups:
    fills = re.findall(r'<rect x="\d+" y="\d+" width="\d+" height="\d+" fill="(#[0-9a-f]{6})"/>', body)
    assert len(fills) == n * n, (l, h, len(fills), n)
    above = {fills[i * n + j] for i in range(n) for j in range(i + 1, n)}
    assert len(above) == 1 and fills[0] not in above, ("causal: weight 0 above the diagonal, 1 at (0, 0)", l, h)
texts = re.findall(r'<text[^>]*>([^<]*)</text>', svg)
for l in range(layers):
    assert "L%d" % l in texts, ("layer label", l)
assert any("%d layers" % layers in t and "layer 1 framed" in t for t in texts), "the heading names layer 1"
print("ok: %d groups of %d x %d cells" % (len(groups), n, n))
PYEOF
refused() { # expected message part, then the arguments
    want=$1
    shift
    "$BIN" "$@" >"$T/o" 2>"$T/e"
    rc=$?
    [ $rc -eq 2 ] || fail "$* exited $rc, not 2"
    grep -q -- "$want" "$T/e" || fail "$*: the message lacks '$want': $(cat "$T/e")"
    [ ! -e "$T/bad" ] || fail "$*: wrote $T/bad"
}
refused "add --model DIR" --export "$T/bad" --what overview
# The layer's own slides directly, without saving a lesson first.
for what in board heatmaps; do
    "$BIN" --model "$T/ck/llama" --layer 1 --export "$T/$what" --what $what --format svg >"$T/o" 2>"$T/e" \
        || fail "--what $what with --model: $(cat "$T/e")"
    ls "$T/$what"/*.svg >/dev/null 2>&1 || fail "--what $what with --model wrote no SVG: $(cat "$T/o")"
done
refused "--head with --model" --model "$T/ck/llama" --export "$T/bad" --what overview --head 1
echo "ok: the overview exported, bad requests refused"
