#!/bin/sh
# "How to add a stage" (docs/architecture.md), checked: docs/add-a-stage.patch (a display-only stage, the layer
# norm of the output, LN(Output)) touches only the files the recipe names (the row, the computation, the text,
# --help's list, the template, one catalogue per language and the lists of stages of the docs; no test file),
# applies to a copy of the sources, and the copy builds without the window (-DMHA_GUI=OFF, the program only);
# --help names the stage, test_stage_lists passes on the copy; its --trace --stage norm runs and its --json
# gives every row of the norm mean 0 and variance 1, recomputed here from the output it prints.
# usage: test_add_stage.sh SOURCE_DIR [CMAKE [C_COMPILER]]
# Exit 77 (skipped) without python3, or without both git and patch.
src=$1
cmake=${2:-cmake}
cc=$3
. "$src/tests/check.sh"
patchfile=$src/docs/add-a-stage.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

py=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1; then py=$p; break; fi
done
. "$(dirname "$0")/require.sh"
[ -n "$py" ] || missing_tool "python3 (Debian: python3)"
# patch_check, patch_apply, patch_applied PATCH: in the current directory, with git apply (no repository needed)
# or patch.
if command -v git >/dev/null 2>&1; then
    GIT_CEILING_DIRECTORIES=$tmp # the copy is no repository's subdirectory, even under a TMPDIR in one
    export GIT_CEILING_DIRECTORIES
    patch_check() { git apply --check "$1"; }
    patch_apply() { git apply "$1"; }
    patch_applied() { git apply -R --check "$1"; }
elif command -v patch >/dev/null 2>&1; then
    patch_check() { patch -p1 -s -N --dry-run <"$1"; }
    patch_apply() { patch -p1 -s -N <"$1"; }
    patch_applied() { patch -p1 -s -R -f --dry-run <"$1"; }
else missing_tool "git or patch (Debian: git)"; fi
[ -f "$patchfile" ] || { echo "FAIL: no $patchfile"; exit 1; }

# The files it touches: the developer's four sources (the row, the computation, the text, --help's list of
# stages), the template and one catalogue per language, and the lists of stages in the docs, the schema and the
# page (test_stage_lists checks them against the table); nothing else, no test.
sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$patchfile" | sort >"$tmp/touched"
langs=$(sed 's/#.*//' "$src/po/LINGUAS")
dev_files="src/core/stage_table.h src/core/trace.c src/model/stages.c src/app/options.c po/mha-tracer.pot"
lists="docs/lesson-format.md docs/slides.md lessons/lesson.schema.json web/index.html"
{
    printf '%s\n' $dev_files $lists
    for l in $langs; do echo "po/$l.po"; done
} | sort >"$tmp/allowed"
if cmp -s "$tmp/touched" "$tmp/allowed"; then ok
else bad "the patch touches $(tr '\n' ' ' <"$tmp/touched"), not $(tr '\n' ' ' <"$tmp/allowed")"; fi
n=$(wc -l <"$tmp/touched" | tr -d ' ')
nl=$(echo $langs | wc -w | tr -d ' ')
nsrc=$(grep -c '^src/' "$tmp/touched")
[ "$nsrc" -le 4 ] && ok || bad "$nsrc source files, at most 4"
[ "$n" -eq $((9 + nl)) ] && ok || bad "$n files, expected 4 sources, the template, 4 lists and $nl catalogues"
grep -q '^diff --git a/tests/' "$patchfile" && bad "the patch changes a test" || ok
# Each of the developer's files is named in "How to add a stage" (docs/architecture.md).
sed -n '/^### How to add a stage/,/^##* [^H]/p' "$src/docs/architecture.md" >"$tmp/recipe"
[ -s "$tmp/recipe" ] && ok || bad "docs/architecture.md has no \"### How to add a stage\""
for f in $dev_files; do
    grep -qF "$f" "$tmp/recipe" && ok || bad "the recipe in docs/architecture.md does not name $f"
done
echo "the patch: $n files, $nsrc of them sources ($(tr '\n' ' ' <"$tmp/touched"))"

# A copy of the sources (no build directory, no .git), the patch applied.
mkdir "$tmp/tree"
for f in "$src"/*; do
    [ -f "$f/CMakeCache.txt" ] && continue # a build directory
    cp -R "$f" "$tmp/tree/" || bad "copying $f"
done
# (On the demo's own branch the sources have the stage already: the patch applies in reverse; built as they are.)
if (cd "$tmp/tree" && patch_check "$patchfile" && patch_apply "$patchfile") >"$tmp/apply.log" 2>&1; then ok
elif (cd "$tmp/tree" && patch_applied "$patchfile") >/dev/null 2>&1; then ok; echo "the sources have the stage already"
else bad "the patch does not apply: $(head -c 600 "$tmp/apply.log")"; check_done test_add_stage; fi
grep -q '"norm"' "$tmp/tree/src/core/stage_table.h" && ok || bad "the copy has no norm row after the patch"

# Built without the window: the program only.
"$cmake" -S "$tmp/tree" -B "$tmp/build" -DMHA_GUI=OFF -DCMAKE_BUILD_TYPE=Release ${cc:+-DCMAKE_C_COMPILER="$cc"} \
    >"$tmp/cmake.log" 2>&1 && ok || { bad "configure: $(tail -c 800 "$tmp/cmake.log")"; check_done test_add_stage; }
"$cmake" --build "$tmp/build" --target mha-tracer -j2 >"$tmp/build.log" 2>&1 && ok ||
    { bad "build: $(grep -m5 -i 'error' "$tmp/build.log")"; check_done test_add_stage; }
bin=$tmp/build/mha-tracer

# --help knows the stage, and every list of stages names it in the table's order.
"$bin" --help 2>&1 | sed -n '/^ *--stage /,/^ *--[a-z]/p' | grep -qw norm && ok || bad "--help's --stage does not name norm"
sh "$tmp/tree/tests/test_stage_lists.sh" "$tmp/tree" "$bin" >"$tmp/lists.log" 2>&1 && ok ||
    bad "test_stage_lists on the copy: $(grep FAIL "$tmp/lists.log")"

# The stage by its key, as text: the norm's matrix is printed.
"$bin" --trace --stage norm >"$tmp/stage.out" 2>"$tmp/stage.err" && ok || bad "--trace --stage norm: $(cat "$tmp/stage.err")"
grep -q "^LN: " "$tmp/stage.out" && ok || bad "--trace --stage norm prints no LN matrix: $(head -c 400 "$tmp/stage.out")"
# Its numbers, from --json: each row of LN from the row of the output, computed here.
"$bin" --json >"$tmp/trace.json" 2>"$tmp/json.err" && ok || bad "--json: $(cat "$tmp/json.err")"
"$py" - "$tmp/trace.json" <<'EOF' && ok || bad "the norm's numbers (above)"
import json, math, sys
d = json.load(open(sys.argv[1]))
out, ln = d["output"], d.get("norm")
if not ln or len(ln) != len(out) or any(len(a) != len(b) for a, b in zip(out, ln)):
    sys.exit("FAIL: --json has no norm of the output's shape")
worst = worst_mean = worst_var = 0.0
for x, y in zip(out, ln):
    n = len(x)
    mu = sum(x) / n
    var = sum((v - mu) ** 2 for v in x) / n
    worst = max(worst, max(abs((v - mu) / math.sqrt(var + 1e-5) - w) for v, w in zip(x, y)))
    m = sum(y) / n
    s2 = sum((w - m) ** 2 for w in y) / n
    worst_mean = max(worst_mean, abs(m))
    worst_var = max(worst_var, abs(s2 - 1.0))
print(f"norm: {len(ln)} rows of {len(ln[0])}; largest |mean| {worst_mean:.3g}, |variance - 1| {worst_var:.3g}, "
      f"difference from (x - mean) / sqrt(var + 1e-5) {worst:.3g}")
# The variance is var / (var + 1e-5): 1 within 1e-3 for rows whose variance is above 0.01 (the built-in lesson's).
if worst_mean > 1e-12 or worst_var > 1e-3 or worst > 1e-12:
    sys.exit("FAIL: the norm's rows are not mean 0 and variance 1")
EOF
check_done test_add_stage
