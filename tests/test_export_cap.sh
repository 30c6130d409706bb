#!/bin/sh
# Exports bounded (issue 27): a small valid lesson of 512 tokens and 2 heads of d_k 1 asks for SVG heatmaps
# of 262,144 cells each; the all-heads grid would pass the cap of one SVG, so the export is refused before a
# byte is written (exit 2, the estimate and the cap in the message, the folder left empty).
# usage: test_export_cap.sh MHA_TRACER
BIN=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 - "$WORK/big.json" <<'PY'
import sys
toks = " ".join("t%d" % i for i in range(512))
open(sys.argv[1], "w").write('{"title": "big", "sentence": "%s", "embeddings": {"random": {"seed": 1, "std": 0.5}}, '
    '"d_model": 2, "heads": 2, "d_k": 1, "mask": "causal", "weights": {"random": {"seed": 2, "qkv_std": 0.5, '
    '"out_std": 0.5}}}\n' % toks)
PY
size=$(wc -c <"$WORK/big.json")
[ "$size" -lt 4000 ] || fail "the lesson is $size bytes, not a small file"
"$BIN" --check "$WORK/big.json" >/dev/null || fail "the lesson is not valid"
mkdir "$WORK/out"
"$BIN" --export "$WORK/out" --what heatmaps --stage scores --format svg "$WORK/big.json" >"$WORK/log" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "exit $rc, not 2 ($(cat "$WORK/log"))"
grep -q "big-stage[0-9]*-scores-heatmap-heads.svg would be about [0-9]* MB of SVG" "$WORK/log" || fail "no estimate: $(cat "$WORK/log")"
grep -q "above the cap of 64 MB for one SVG" "$WORK/log" && grep -q "nothing was written" "$WORK/log" \
    || fail "no cap: $(cat "$WORK/log")"
[ -z "$(ls -A "$WORK/out")" ] || fail "files were written: $(ls -A "$WORK/out" | head -3)"
echo "refused: $(cat "$WORK/log")"
echo "PASS: an SVG export above its cap is refused before writing"
