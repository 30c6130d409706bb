#!/bin/sh
# The command line on every shipped lesson and on the bad corpus, under valgrind: no leaks, no errors.
# ("still reachable" blocks are the shared libraries' own start-up allocations, not leaks of ours.)
# usage: test_valgrind_cli.sh PATH/TO/mha-tracer SOURCE_DIR   (skipped without valgrind: tests/require.sh)
bin=$1
src=$2
. "$(dirname "$0")/require.sh"
require_tool valgrind valgrind
pass=0
fail=0
vg() { # vg EXPECTED_STATUS ARGS...
    want=$1; shift
    valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
        "$bin" "$@" >/dev/null 2>"$tmp"
    got=$?
    if [ "$got" -eq "$want" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL ($got, expected $want): $*"; head -30 "$tmp"; fi
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for f in "$src"/lessons/*.json; do
    case "$f" in *.schema.json) continue ;; esac
    vg 0 --trace "$f"
    vg 0 --compare "$f"
done
vg 0 --json
# Questions: checked against the trace, printed, and a wrong stated answer reported.
vg 0 --check "$src/lessons/the-cat-sat.json" "$src/lessons/the-cat-sat-on-the-mat.json" "$src/lessons/causal-decoder.json"
vg 0 --questions "$src/lessons/causal-decoder.json"
sed 's/"correct": 2}}/"correct": 0}}/' "$src/lessons/the-cat-sat.json" >"$tmp.wrong.json"
vg 2 --questions "$tmp.wrong.json"
vg 2 --check "$tmp.wrong.json"
rm -f "$tmp.wrong.json"
# Issue 15: gradients and a short training run (the trained lesson into a temporary directory).
out=$(mktemp -d)
vg 0 --grad "$src/lessons/two-heads-two-jobs.json"
vg 2 --grad "$src/lessons/cross-attention.json" # no targets, no train section
vg 0 --train "$src/lessons/two-heads-two-jobs.json" --steps 20 --out "$out/trained.json"
vg 2 --train "$src/lessons/the-cat-sat.json" --out "$out/no.json"
rm -rf "$out"
# One run over the whole bad corpus (every file is loaded, reported and freed in turn).
vg 2 --check "$src"/tests/bad/*.json
vg 1 --check "$src/tests/bad/no-such-file.json"
vg 1 --check "$src/tests"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
