#!/bin/sh
# "How to add a field" (docs/architecture.md), checked: docs/add-a-field.patch (Gemma 2's "softcap" of the scaled
# scores) touches at most 3 source files (the field table's row, the setting's member, the code that uses it)
# and besides them only docs and the schema, no test; it applies to a copy of the sources, the copy builds
# without the window (-DMHA_GUI=OFF), and the new key is read (--json's scaled scores are softcap * tanh(s /
# softcap) of the scores times the scale, recomputed here), validated (a positioned error, exit 2), saved
# (--train --out writes it and reads it back) and printed by --json and --trace.
# usage: test_add_field.sh SOURCE_DIR [CMAKE [C_COMPILER]]
# Exit 77 (skipped) without python3, or without both git and patch.
src=$1
cmake=${2:-cmake}
cc=$3
. "$src/tests/check.sh"
patchfile=$src/docs/add-a-field.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

py=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1; then py=$p; break; fi
done
. "$(dirname "$0")/require.sh"
[ -n "$py" ] || missing_tool "python3 (Debian: python3)"
if command -v git >/dev/null 2>&1; then
    GIT_CEILING_DIRECTORIES=$tmp # the copy is no repository's subdirectory, even under a TMPDIR in one
    export GIT_CEILING_DIRECTORIES
    patch_check() { git apply --check "$1"; }
    patch_apply() { git apply "$1"; }
elif command -v patch >/dev/null 2>&1; then
    patch_check() { patch -p1 -s -N --dry-run <"$1"; }
    patch_apply() { patch -p1 -s -N <"$1"; }
else missing_tool "git or patch (Debian: git)"; fi
[ -f "$patchfile" ] || { echo "FAIL: no $patchfile"; exit 1; }

# The files it touches: at most 3 under src/ (the row, the member, the use), else only docs/ and the schema.
sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$patchfile" | sort >"$tmp/touched"
nsrc=$(grep -c '^src/' "$tmp/touched")
[ "$nsrc" -le 3 ] && ok || bad "the patch touches $nsrc source files (at most 3): $(tr '\n' ' ' <"$tmp/touched")"
grep -qx 'src/lesson/lesson_fields.c' "$tmp/touched" && ok || bad "the patch does not add a row to src/lesson/lesson_fields.c"
others=$(grep -v -e '^src/' -e '^docs/' -e '^lessons/lesson.schema.json$' "$tmp/touched")
[ -z "$others" ] && ok || bad "the patch touches $others (only sources, docs and the schema)"
echo "the patch: $(wc -l <"$tmp/touched" | tr -d ' ') files, $nsrc of them sources ($(tr '\n' ' ' <"$tmp/touched"))"
# The recipe in docs/architecture.md names the files.
sed -n '/^### How to add a field/,/^##* [^H]/p' "$src/docs/architecture.md" >"$tmp/recipe"
[ -s "$tmp/recipe" ] && ok || bad "docs/architecture.md has no \"### How to add a field\""
for f in $(grep '^src/' "$tmp/touched"); do
    grep -qF "$f" "$tmp/recipe" && ok || bad "the recipe in docs/architecture.md does not name $f"
done

# A copy of the sources (no build directory, no .git), the patch applied.
mkdir "$tmp/tree"
for f in "$src"/*; do
    [ -f "$f/CMakeCache.txt" ] && continue # a build directory
    cp -R "$f" "$tmp/tree/" || bad "copying $f"
done
if (cd "$tmp/tree" && patch_check "$patchfile" && patch_apply "$patchfile") >"$tmp/apply.log" 2>&1; then ok
else bad "the patch does not apply: $(head -c 600 "$tmp/apply.log")"; check_done test_add_field; fi

"$cmake" -S "$tmp/tree" -B "$tmp/build" -DMHA_GUI=OFF -DCMAKE_BUILD_TYPE=Release ${cc:+-DCMAKE_C_COMPILER="$cc"} \
    >"$tmp/cmake.log" 2>&1 && ok || { bad "configure: $(tail -c 800 "$tmp/cmake.log")"; check_done test_add_field; }
"$cmake" --build "$tmp/build" --target mha-tracer -j2 >"$tmp/build.log" 2>&1 && ok ||
    { bad "build: $(grep -m5 -i 'error' "$tmp/build.log")"; check_done test_add_field; }
bin=$tmp/build/mha-tracer

# A lesson with the field: a causal one of two heads, and a trainable one (for the save).
cat >"$tmp/cap.json" <<'EOF'
{"title": "Soft cap", "tokens": ["a", "b", "c", "d"], "heads": 2, "mask": "causal", "softcap": 0.5,
 "embeddings": [[1, 2, 3, 4], [2, -1, 0, 5], [3, 3, -2, 1], [0, 1, 4, -3]], "weights": {"random": {"seed": 3}}}
EOF
sed 's/, "softcap": 0.5,/,/' "$tmp/cap.json" >"$tmp/nocap.json"

# Read and printed: --json says "softcap": 0.5 and each head's scaled scores are 0.5 * tanh(scores / sqrt(d_k) / 0.5);
# without the key, --json has no "softcap" and the scaled scores are the plain ones.
"$bin" --json "$tmp/cap.json" >"$tmp/cap.out" 2>"$tmp/err" && ok || bad "--json with softcap: $(cat "$tmp/err")"
"$bin" --json "$tmp/nocap.json" >"$tmp/nocap.out" 2>"$tmp/err" && ok || bad "--json without softcap: $(cat "$tmp/err")"
"$py" - "$tmp/cap.out" "$tmp/nocap.out" <<'EOF' && ok || bad "the soft cap's numbers (above)"
import json, math, sys
cap, plain = (json.load(open(f)) for f in sys.argv[1:3])
if cap.get("softcap") != 0.5: sys.exit(f"FAIL: --json gives softcap {cap.get('softcap')!r}, not 0.5")
if "softcap" in plain: sys.exit("FAIL: --json names softcap for a lesson without it")
worst, cells = 0.0, 0
for head, other in zip(cap["head"], plain["head"]):
    for i, (srow, arow, brow) in enumerate(zip(head["scores"], head["scaled"], other["scaled"])):
        for j, (s, a, b) in enumerate(zip(srow, arow, brow)):
            if j > i:
                if a is not None or b is not None: sys.exit("FAIL: a masked score is not null")
                continue
            want = 0.5 * math.tanh(s / math.sqrt(cap["d_k"]) / 0.5)
            worst = max(worst, abs(a - want), abs(b - s / math.sqrt(cap["d_k"])))
            if abs(a) > 0.5: sys.exit(f"FAIL: a capped score {a} is beyond 0.5")
            cells += 1
print(f"softcap: {cells} scaled scores; largest difference from 0.5 * tanh(s / sqrt(d_k) / 0.5): {worst:.3g}")
if cells == 0 or worst > 1e-15: sys.exit("FAIL: the scaled scores are not capped")
EOF
"$bin" --trace "$tmp/cap.json" >"$tmp/trace.out" 2>"$tmp/err" && ok || bad "--trace: $(cat "$tmp/err")"
grep -qx "softcap = 0.5" "$tmp/trace.out" && ok || bad "--trace has no line \"softcap = 0.5\": $(head -c 300 "$tmp/trace.out")"

# Validated: at its line:column, with the limits, exit 2; an unknown key's message lists it.
for v in -1 '"high"' 0 2e6; do
    sed "s/\"softcap\": 0.5/\"softcap\": $v/" "$tmp/cap.json" >"$tmp/bad.json"
    "$bin" --json "$tmp/bad.json" >/dev/null 2>"$tmp/err"
    st=$?
    [ "$st" -eq 2 ] && ok || bad "softcap $v: exit $st, expected 2"
    grep -q "bad.json:1:[0-9]*: error: softcap: " "$tmp/err" && ok || bad "softcap $v: $(cat "$tmp/err")"
done
sed 's/"softcap"/"softcop"/' "$tmp/cap.json" >"$tmp/bad.json"
"$bin" --json "$tmp/bad.json" >/dev/null 2>"$tmp/err"
grep -q 'unknown key "softcop" (expected .*, softcap)' "$tmp/err" && ok || bad "unknown key: $(cat "$tmp/err")"

# Saved: --train --out writes the lesson with "softcap", which reads back with it.
"$py" - "$src/lessons/learn-first-token.json" "$tmp/train.json" <<'EOF' || bad "making the training lesson"
import json, sys
d = json.load(open(sys.argv[1]))
d["softcap"] = 0.75
d["train"]["steps"] = 2
json.dump(d, open(sys.argv[2], "w"))
EOF
"$bin" --train "$tmp/train.json" --out "$tmp/trained.json" >"$tmp/train.log" 2>&1 && ok ||
    bad "--train --out: $(tail -c 400 "$tmp/train.log")"
grep -q '^  "softcap": 0.75,$' "$tmp/trained.json" && ok || bad "the saved lesson has no \"softcap\": 0.75"
"$bin" --json "$tmp/trained.json" 2>"$tmp/err" | grep -q '^  "softcap": 0.75,$' && ok ||
    bad "the saved lesson does not read back with softcap 0.75: $(cat "$tmp/err")"
check_done test_add_field
