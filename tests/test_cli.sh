#!/bin/sh
# The command line end to end: exit codes, what goes to stdout and stderr, and the seed's numbers.
# usage: test_cli.sh PATH/TO/mha-tracer SOURCE_DIR JSON_CLOSE
bin=$1
src=$2
json_close=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run NAME EXPECTED_STATUS ARGS...: runs the binary, keeps stdout/stderr in $tmp/NAME.{out,err}
run() {
    name=$1; want=$2; shift 2
    "$bin" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "$name: exit $got, expected $want ($(head -c 300 "$tmp/$name.err"))"; fi
}
has() { # has NAME.out|NAME.err TEXT
    if grep -qF -- "$2" "$tmp/$1"; then ok; else bad "$1 lacks '$2'"; fi
}
empty() {
    if [ ! -s "$tmp/$1" ]; then ok; else bad "$1 should be empty: $(head -c 200 "$tmp/$1")"; fi
}

# The seed's numbers, from --trace, for the file and for the built-in lesson.
run trace 0 --trace "$src/lessons/the-cat-sat.json"
has trace.out "0.6111   0.2431   0.1458"
has trace.out "0.1945   0.3723   0.4332"
has trace.out "0.4362   0.3321   0.2317"
has trace.out "0.3020   0.3639   0.3342"
has trace.out "0.2432   0.5844   0.1723"
has trace.out "0.5163   0.6253   0.2151   1.2935"
has trace.out "0.8424   0.5407   0.3644   1.4098"
has trace.out "0.6986   0.5105   0.3054   1.2417"
empty trace.err
run trace_builtin 0 --trace
if cmp -s "$tmp/trace.out" "$tmp/trace_builtin.out"; then ok; else bad "built-in trace differs from lessons/the-cat-sat.json"; fi

# --json equals NumPy's reference trace within 1e-12 at every stage.
run json 0 --json "$src/lessons/the-cat-sat.json"
if "$json_close" "$src/tests/data/the-cat-sat.trace.json" "$tmp/json.out" 1e-12; then ok; else bad "--json differs from the NumPy reference"; fi
has json.out '"mask": "none"'

# --check: ok lines on stdout; bad lessons exit 2 with the error on stderr and nothing on stdout.
run check 0 --check "$src/lessons/the-cat-sat.json"
has check.out "the-cat-sat.json: ok"
printf '{"title": "x", "tokens": ["a"], "embeddings": [[1, 2]], "heads": 3, "weights": {"random": {"seed": 1}}}' >"$tmp/bad.json"
run check_bad 2 --check "$tmp/bad.json"
has check_bad.err "bad.json"
has check_bad.err "heads"
empty check_bad.out
run trace_bad 2 --trace "$tmp/bad.json"
empty trace_bad.out
printf '{"title": "x",\n  "tokens": ["a" "b"]}' >"$tmp/syntax.json"
run syntax 2 --json "$tmp/syntax.json"
has syntax.err "syntax.json:2:"
empty syntax.out

# I/O failures exit 1; usage errors exit 2.
run missing 1 --trace "$tmp/no-such-lesson.json"
has missing.err "no-such-lesson.json"
run directory 1 --trace "$tmp"
run unknown_option 2 --frobnicate
has unknown_option.err "--frobnicate"
run two_files 2 --trace a.json b.json
run check_none 2 --check
run mixed_modes 2 --trace --json
run help 0 --help
has help.out "--trace"
run version 0 --version
has version.out "mha-tracer "
if [ -w /dev/full ]; then
    "$bin" --trace >/dev/full 2>"$tmp/full.err"
    if [ $? -eq 1 ]; then ok; else bad "writing to a full device should exit 1"; fi
fi

# Overflow in a later stage is named, not printed as NaN.
printf '{"title": "big", "tokens": ["a", "b"], "embeddings": [[1e200, 1e200], [1e200, 1e200]], "heads": 1,
 "weights": {"W_Q": [[[1, 1], [1, 1]]], "W_K": [[[1, 1], [1, 1]]], "W_V": [[[1, 1], [1, 1]]], "W_O": [[1, 1], [1, 1]]}}' >"$tmp/big.json"
run overflow 2 --trace "$tmp/big.json"
has overflow.err "scores"
empty overflow.out

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
