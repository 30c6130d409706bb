#!/bin/sh
# The command line end to end: exit codes, what goes to stdout and stderr, and the seed's numbers.
# usage: test_cli.sh PATH/TO/mha-tracer SOURCE_DIR JSON_CLOSE
bin=$1
src=$2
json_close=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/check.sh"
. "$src/tests/stage_table.sh"
# The table's keys joined as the messages list them: "a, b, c" (the stages a lesson lacks left out).
stage_list() { lesson_stage_keys "$src" "$@" | paste -s -d, - | sed 's/,/, /g'; }

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
lacks() { # lacks NAME.out|NAME.err TEXT
    if grep -qF -- "$2" "$tmp/$1"; then bad "$1 has '$2'"; else ok; fi
}
# The scores' titles: with RoPE they are the rotated rows' product, Q_rot_h K_rot_hᵀ (issue 36: "Q_0 K_0ᵀ" named
# the unrotated rows, which the scores never read; issue 38: the rotated matrices have one name, Q_rot and K_rot,
# in --trace and --json); without, Q_h K_hᵀ.
has trace.out "scores_0 = Q_0 K_0ᵀ (3×3)"
has trace.out "scores_1 = Q_1 K_1ᵀ (3×3)"
run trace_rope 0 --trace "$src/lessons/llama-rope-gqa.json"
for h in 0 1 2 3; do
    has trace_rope.out "scores_$h = Q_rot_$h K_rot_${h}ᵀ (7×7)"
    has trace_rope.out "Q_rot_$h = RoPE(Q_$h)"
    has trace_rope.out "K_rot_$h = RoPE(K_$h)"
    lacks trace_rope.out "scores_$h = Q_$h K_${h}ᵀ"
done
has trace_rope.out "scaled_2 = scores_2 / √4, causal mask (-inf above the diagonal) (7×7)"

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
# Issue 38: every stage of the table is named where the stages are listed: --help's --stage (the manual page is
# made from the same table), the schema's question stage, the docs' lists of --stage names; and the rotated
# matrices have one name, Q_rot and K_rot, in --help, the schema and the docs (not Q_rotated).
sed -n '/--stage NAME/,/--format/p' "$tmp/help.out" | tr -s ' \n' '  ' >"$tmp/help_stage.txt"
sed -n 's/.*"description": "The stage whose result the question is about\(.*\)/\1/p' "$src/lessons/lesson.schema.json" \
    >"$tmp/schema_stage.txt"
grep -F '| `stage` | required |' "$src/docs/lesson-format.md" >"$tmp/doc_stage.txt"
sed -n '/`--what board` writes/,/`--what all` writes/p' "$src/docs/slides.md" | tr -s ' \n' '  ' >"$tmp/slides_stage.txt"
for key in $(stage_keys "$src"); do
    for where in help_stage schema_stage doc_stage slides_stage; do
        [ "$key" = input ] && [ "$where" != help_stage ] && [ "$where" != slides_stage ] && continue # nothing to ask
        if grep -qE "(^|[^a-z-])$key([^a-z-]|\$)" "$tmp/$where.txt"; then ok; else bad "$where does not name the stage $key"; fi
    done
done
for where in help.out schema_stage.txt doc_stage.txt; do
    if grep -q "rotated_\|_rotated" "$tmp/$where"; then bad "$where spells the rotated matrices Q_rotated"; else ok; fi
done
if grep -q "Q_rot, K_rot" "$tmp/help_stage.txt"; then ok; else bad "--help's rotate does not name Q_rot, K_rot"; fi
run version 0 --version
has version.out "mha-tracer "
if [ -w /dev/full ]; then
    "$bin" --trace >/dev/full 2>"$tmp/full.err"
    if [ $? -eq 1 ]; then ok; else bad "writing to a full device should exit 1"; fi
else
    skip "writing to a full device (no /dev/full)"
fi

# Overflow in a later stage is named, not printed as NaN.
printf '{"title": "big", "tokens": ["a", "b"], "embeddings": [[1e200, 1e200], [1e200, 1e200]], "heads": 1,
 "weights": {"W_Q": [[[1, 1], [1, 1]]], "W_K": [[[1, 1], [1, 1]]], "W_V": [[[1, 1], [1, 1]]], "W_O": [[1, 1], [1, 1]]}}' >"$tmp/big.json"
run overflow 2 --trace "$tmp/big.json"
has overflow.err "scores"
has overflow.err "the score of row 0, column 0 is +inf, from Q[0][0] = 2e+200 times K[0][0] = 2e+200"
empty overflow.out
# Each stage's overflow names the input that made it, with the lesson's field paths (issue 16, item 7).
printf '{"title": "o", "tokens": ["a", "b"], "embeddings": [[1, 1], [0, 1]], "heads": 1,
 "weights": {"W_Q": [[[1, 0], [0, 1]]], "W_K": [[[1, 0], [0, 1]]], "W_V": [[[1e308, 0], [1e308, 1]]], "W_O": [[1, 0], [0, 1]]}}' >"$tmp/ov-v.json"
run overflow-v 2 --check "$tmp/ov-v.json"
has overflow-v.err "stage 'projections', head 0"
has overflow-v.err "V[0][0] is +inf, from embeddings[0][0] = 1 times weights.W_V[0][0][0] = 1e+308"
printf '{"title": "o", "tokens": ["a", "b"], "embeddings": [[1, 1], [0, 1]], "heads": 1,
 "weights": {"W_Q": [[[1, 0], [0, 1]]], "W_K": [[[1, 0], [0, 1]]], "W_V": [[[1e300, 0], [0, 1]]], "W_O": [[1e300, 0], [0, 1]]}}' >"$tmp/ov-o.json"
run overflow-o 2 --json "$tmp/ov-o.json"
has overflow-o.err "stage 'output'"
has overflow-o.err "weights.W_O[0][0] = 1e+300"
empty overflow-o.out

# --trace ends with the cost of one head against the lesson's heads, in the document's format.
has trace.out "==== Cost ===="
has trace.out "h = 1: d_k =   4, projection weights = 64, score multiplications = 36, attention matrices = 1 x (3, 3)"
has trace.out "h = 2: d_k =   2, projection weights = 64, score multiplications = 36, attention matrices = 2 x (3, 3)"

# --compare: the single head next to the heads, both outputs, the cost rows.
run compare_paper 0 --compare "$src/lessons/paper-base.json"
has compare_paper.out "h = 1: d_k = 512, projection weights = 1,048,576, score multiplications = 51,200, attention matrices = 1 x (10, 10)"
has compare_paper.out "h = 8: d_k =  64, projection weights = 1,048,576, score multiplications = 51,200, attention matrices = 8 x (10, 10)"
has compare_paper.out "one head (d_k = 512)"
has compare_paper.out "head 7 (d_k = 64)"
empty compare_paper.err
run compare_builtin 0 --compare
has compare_builtin.out "one head (d_k = 4)"
has compare_builtin.out "0.6111  0.2431  0.1458"
has compare_builtin.out "0.3020  0.3639  0.3342"
has compare_builtin.out "output, one head = Z W_O + b_O"
has compare_builtin.out "0.5163   0.6253   0.2151   1.2935"
has compare_builtin.out "attention matrices = 2 x (3, 3)"
run compare_file 0 --compare "$src/lessons/the-cat-sat.json"
if cmp -s "$tmp/compare_file.out" "$tmp/compare_builtin.out"; then ok; else bad "--compare of the built-in lesson differs from the file"; fi
run compare_bad 2 --compare "$tmp/bad.json"
empty compare_bad.out
has compare_bad.err "heads"
run compare_missing 1 --compare "$tmp/no-such-lesson.json"
run compare_mixed 2 --compare --trace
run compare_two 2 --compare a.json b.json
has help.out "--compare"
# Each head's scores are finite, their sum is not: only the single head overflows, and says so.
printf '{"title": "sum", "tokens": ["a"], "embeddings": [[1, 1]], "heads": 2,
 "weights": {"W_Q": [[[1.2e154], [0]], [[0], [1.2e154]]], "W_K": [[[1.2e154], [0]], [[0], [1.2e154]]],
             "W_V": [[[1], [0]], [[0], [1]]], "W_O": [[1, 0], [0, 1]]}}' >"$tmp/sum.json"
run sum_trace 0 --trace "$tmp/sum.json"
run sum_compare 2 --compare "$tmp/sum.json"
has sum_compare.err "single head"
has sum_compare.err "sum.json"
empty sum_compare.out

# Cross-attention: the source is Y in --trace as on the board (S_i are the scores).
run cross_trace 0 --trace "$src/lessons/cross-attention.json"
has cross_trace.out "== Source embeddings Y"
has cross_trace.out "K_0 = Y W_K_0"

# The title and the notes, for proof-reading without the window: --trace prints them under the title
# (each line of the notes indented), --json carries "title" and "notes" (null when the lesson has none).
printf '{"title": "Noted", "notes": "First line.\\nSecond \\"line\\".", "tokens": ["a"], "embeddings": [[1, 0]],
 "heads": 1, "weights": {"random": {"seed": 3}}}' >"$tmp/notes.json"
run notes_trace 0 --trace "$tmp/notes.json"
if [ "$(head -4 "$tmp/notes_trace.out")" = "$(printf 'Noted\nnotes:\n  First line.\n  Second "line".')" ]; then ok
else bad "--trace should start with the title and the indented notes: $(head -4 "$tmp/notes_trace.out")"; fi
run notes_json 0 --json "$tmp/notes.json"
has notes_json.out '"title": "Noted",'
has notes_json.out '"notes": "First line.\nSecond \"line\".",'
if ! command -v python3 >/dev/null 2>&1; then skip "--json's notes read back by python3 (no python3)"
elif python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["notes"] == "First line.\nSecond \"line\"." else 1)' "$tmp/notes_json.out" 2>/dev/null; then ok
else bad "--json notes do not read back"; fi
has json.out '"notes": null,'
if grep -q '^notes:' "$tmp/trace.out"; then bad "a lesson without notes printed a notes line"; else ok; fi

# --check names every independent mistake of a file with its line:column and field, then the count; warnings
# (the same seed for embeddings and weights, a saturated softmax, PyTorch heads unconfirmed) leave it valid.
cat >"$tmp/three.json" <<'EOF'
{"title": "Three",
 "tokens": ["a", "b", "c"],
 "embeddings": [[1, 0, 0, 0], [0, 1, 0], [0, 0, 1, 0]],
 "heads": 2,
 "mask": "casual",
 "weights": {"W_Q": [[[1, 0], [0, 1], [0, 0], [0, 0]], [[1, 0], [0, 1], [0, 0], [0, 0]]],
  "W_K": [[[1, 0], [0, 1], [0, 0], [0, 0]], [[1, 0], [0, 1], [0, 0], [0, 0]]],
  "W_V": [[[1, 0], [0, 1], [0, 0], [0, 0]], [[1, 0], [0, 1], [0, 0]]],
  "W_O": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]}}
EOF
run check_three 2 --check "$tmp/three.json" "$src/lessons/the-cat-sat.json"
has check_three.err 'three.json:5:10: error: mask: expected "none" or "causal", got "casual"'
has check_three.err "three.json:3:31: error: embeddings[1]: expected 4 numbers (d_model), got 3"
has check_three.err "three.json:8:45: error: weights.W_V[1]: expected 4 rows (d_model), got 3"
has check_three.err "three.json: 3 errors"
has check_three.out "the-cat-sat.json: ok"
if grep -q "three.json" "$tmp/check_three.out"; then bad "a bad file on stdout"; else ok; fi
run trace_three 2 --trace "$tmp/three.json"
if [ "$(wc -l <"$tmp/trace_three.err")" -eq 1 ]; then ok; else bad "--trace should give the first error only"; fi
has trace_three.err "three.json:5:10: error: mask"
printf '{"title": "Seeded causal", "sentence": "a b c d e", "d_model": 8,\n "embeddings": {"random": {"seed": 7}},
 "heads": 2, "mask": "causal",\n "weights": {"random": {"seed": 7}}}' >"$tmp/seed.json"
run check_seed 0 --check "$tmp/seed.json"
has check_seed.out "seed.json: ok, 2 warnings"
has check_seed.err "seed.json:4:33: warning: weights.random.seed: the same seed as the embeddings (7)"
has check_seed.err "warning: weights: 1 of 8 softmax rows (in 1 of 2 heads) saturate to one-hot"
if grep -q 'smaller "scale"' "$tmp/check_seed.err"; then bad "a lesson without a scale told to shrink it"; else ok; fi
# The saturation's advice names the cause: the lesson's "scale" when no row saturates at the default.
sed 's/"heads": 2,/"heads": 2, "scale": 40,/' "$src/lessons/the-cat-sat.json" >"$tmp/cat-scale.json"
run check_scale 2 --check "$tmp/cat-scale.json"
has check_scale.err 'the lesson'"'"'s "scale" (40) is the cause: at the default 1/√d_k = 0.7071 no row saturates, so a smaller "scale" (or none) gives attention the class can compare'
if grep -q "smaller embeddings" "$tmp/check_scale.err"; then bad "the scale is the cause, not the embeddings"; else ok; fi
sed 's/"mask": "causal",/"mask": "causal", "scale": 1,/' "$tmp/seed.json" >"$tmp/seed-scale.json"
run check_seed_scale 0 --check "$tmp/seed-scale.json"
has check_seed_scale.err 'smaller embeddings or weights (std or qkv_std below 1, or smaller numbers) or a smaller "scale" give attention'
run check_pytorch 0 --check "$src/lessons/pytorch-layer.json"
empty check_pytorch.err
sed 's/"heads": 2/"heads": 4/' "$src/lessons/pytorch-layer.json" >"$tmp/pt4.json"
run check_pt4 2 --check "$tmp/pt4.json"
has check_pt4.err "the layer has num_heads 2 but the lesson's \"heads\" is 4"
sed '/"num_heads": 2,/d' "$src/lessons/pytorch-layer.json" >"$tmp/pt.json"
run check_pt 0 --check "$tmp/pt.json"
has check_pt.err "warning: heads: PyTorch weights cannot confirm these 2 heads"
# The hint asks for the layer's num_heads, not the lesson's heads as if they were the layer's.
has check_pt.err 'Add "num_heads": the layer'"'"'s own (layer.num_heads, which need not be 2) to "pytorch" to confirm it'
if grep -q 'Add "num_heads": 2' "$tmp/check_pt.err"; then bad "the hint proposes the lesson's heads"; else ok; fi
has check_pt.out "pt.json: ok, 1 warning"

# --new: a starter lesson that --check accepts without a warning and --trace shows with its notes; never
# over an existing file, never through a symbolic link; "$schema" points at the schema from the file's folder.
run new 0 --new "$tmp/starter.json"
has new.out "starter.json: a starter lesson: 3 tokens, d_model 4, 2 heads"
run new_check 0 --check "$tmp/starter.json"
has new_check.out "starter.json: ok"
empty new_check.err
run new_trace 0 --trace "$tmp/starter.json"
has new_trace.out "notes:"
has new_trace.out "A starter lesson from mha-tracer --new"
schema=$(sed -n 's/^  "\$schema": "\(.*\)",$/\1/p' "$tmp/starter.json")
if [ -n "$schema" ] && [ -f "$tmp/$schema" ] && grep -q '"\$id"\|"\$schema"' "$tmp/$schema"; then ok; else bad "\$schema '$schema' is not the schema seen from $tmp"; fi
cp "$tmp/starter.json" "$tmp/starter.copy"
run new_again 1 --new "$tmp/starter.json"
has new_again.err "already exists"
if cmp -s "$tmp/starter.json" "$tmp/starter.copy"; then ok; else bad "--new changed an existing file"; fi
ln -s "$tmp/target.json" "$tmp/dangling.json"
run new_dangling 1 --new "$tmp/dangling.json"
if [ ! -e "$tmp/target.json" ]; then ok; else bad "--new wrote through a dangling symbolic link"; fi
ln -s "$tmp/starter.copy" "$tmp/link.json"
run new_link 1 --new "$tmp/link.json"
if cmp -s "$tmp/starter.json" "$tmp/starter.copy"; then ok; else bad "--new wrote through a symbolic link"; fi
run new_nodir 1 --new "$tmp/no-such-dir/x.json"
run new_sized 0 --new "$tmp/sized.json" --tokens "one two three four five" --heads 4 --d-model 8
run new_sized_json 0 --json "$tmp/sized.json"
has new_sized_json.out '"heads": 4,'
has new_sized_json.out '"d_model": 8,'
has new_sized_json.out '"tokens": ["one", "two", "three", "four", "five"],'
run new_sized_check 0 --check "$tmp/sized.json"
empty new_sized_check.err
run new_heads3 0 --new "$tmp/three-heads.json" --heads 3
has new_heads3.out "d_model 6, 3 heads"
run new_bad_div 2 --new "$tmp/bad-div.json" --heads 3 --d-model 4
has new_bad_div.err "does not divide"
if [ ! -e "$tmp/bad-div.json" ]; then ok; else bad "a refused --new left a file"; fi
run new_bad_heads 2 --new "$tmp/bad-heads.json" --heads 0
run new_no_tokens 2 --new "$tmp/no-tokens.json" --tokens " "
# Tokens that are not UTF-8: the option is named, no "internal error" about a file never written (issue 27).
run new_tokens_utf8 2 --new "$tmp/latin1.json" --tokens "$(printf 'le chat \351t\351')"
has new_tokens_utf8.err "--tokens is not UTF-8 text (byte 0xE9 at byte 9 of it)"
if grep -q "internal error" "$tmp/new_tokens_utf8.err" || [ -e "$tmp/latin1.json" ]; then bad "--tokens not UTF-8: $(cat "$tmp/new_tokens_utf8.err")"; else ok; fi
run new_opt_alone 2 --heads 2
has new_opt_alone.err "--new"
run new_two_modes 2 --new "$tmp/m.json" --trace
run new_extra_file 2 --new "$tmp/m2.json" "$src/lessons/the-cat-sat.json"

# Large magnitudes keep their magnitude (%.4e from 1e9 on; %.4f of 1e99 would be a cut 100-digit number), and
# long tokens are cut to 16 columns with "…" in row and column labels, so cells are not padded to them.
printf '{"title": "huge", "tokens": ["a", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "caf\303\251 au lait tr\303\250s tr\303\250s long"],
 "embeddings": [[1e99, 0], [0, -2.5e12], [1, 1]], "heads": 1, "weights": {"random": {"seed": 1}}}' >"$tmp/huge.json"
run huge 0 --trace "$tmp/huge.json"
has huge.out "  a                  1.0000e+99       0.0000"
has huge.out "  bbbbbbbbbbbbbbb…       0.0000  -2.5000e+12"
has huge.out "  café au lait tr…       1.0000       1.0000"
has huge.out "tokens: a bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb café"
run huge_compare 0 --compare "$tmp/huge.json"
has huge_compare.out "                                   a  bbbbbbbbbbbbbbb…  café au lait tr…"
# 40 tokens of 2000 characters: every matrix stays narrow (was 40·40 cells of 2000 columns per pattern).
awk 'BEGIN { t = ""; for (i = 0; i < 2000; i++) t = t "x"; printf "{\"title\": \"long\", \"tokens\": [";
  for (i = 0; i < 40; i++) printf "%s\"%s%d\"", (i ? ", " : ""), t, i; printf "], \"d_model\": 4, \"heads\": 2,";
  printf " \"embeddings\": {\"random\": {\"seed\": 3}}, \"weights\": {\"random\": {\"seed\": 1}}}\n" }' >"$tmp/long.json"
run long 0 --trace "$tmp/long.json"
size=$(wc -c <"$tmp/long.json"); out=$(wc -c <"$tmp/long.out")
[ "$out" -lt 300000 ] && ok || bad "--trace of $size bytes of long tokens printed $out bytes"
run long_compare 0 --compare "$tmp/long.json"
out=$(wc -c <"$tmp/long_compare.out")
[ "$out" -lt 300000 ] && ok || bad "--compare of long tokens printed $out bytes"

# Control characters from the lesson (ESC[2J in the title, C1 CSI U+009B in a token, BEL in the notes) and
# from a file name are shown escaped, never sent to the terminal: --trace, --compare, --json and errors.
printf '{"title": "Clear\\u001b[2J", "notes": "bell\\u0007 and\\ttab", "tokens": ["a\\u009b2J", "b"],
 "embeddings": [[1, 0], [0, 1]], "heads": 1, "weights": {"random": {"seed": 1}}}' >"$tmp/ctl.json"
raw_ctl() { # raw_ctl FILE: true when FILE holds ESC, BEL or the UTF-8 of U+009B
    LC_ALL=C grep -q "$(printf '\033')\|$(printf '\007')\|$(printf '\302\233')" "$1"
}
for mode in trace compare json; do
    run "ctl_$mode" 0 "--$mode" "$tmp/ctl.json"
    raw_ctl "$tmp/ctl_$mode.out" && bad "--$mode prints control characters raw" || ok
done
has ctl_trace.out 'Clear\x1b[2J'
has ctl_trace.out 'tokens: a\u009b2J b'
has ctl_trace.out 'bell\x07 and	tab'
has ctl_trace.out '  a\u009b2J  '
has ctl_json.out '"a\u009b2J"'
has ctl_json.out '"Clear\u001b[2J"'
printf '{"title": "x", "tokens": ["a"], "embeddings": [[1, 2]], "heads": 1, "\302\233bad": 1}' >"$tmp/ctl_key.json"
run ctl_key 2 --check "$tmp/ctl_key.json"
raw_ctl "$tmp/ctl_key.err" && bad "an error message prints control characters raw: $(cat -v "$tmp/ctl_key.err")" || ok
has ctl_key.err 'error: unknown key "\u009bbad"'
ctl_name="$tmp/name$(printf '\033')[2J$(printf '\302\233').json"
run ctl_name 1 --check "$ctl_name"
raw_ctl "$tmp/ctl_name.err" && bad "a file name's control characters reach the terminal" || ok
has ctl_name.err 'name\x1b[2J\u009b.json: error: cannot open the lesson'
# Bidi controls and line separators (issue 27, item 11: "Trojan Source" lines) are escaped the same way:
# U+202E in the title, U+2066..U+2069 in tokens, U+2028/U+2029 in a question, U+202E in a key and a file's
# name; --json keeps them as JSON escapes of the same code points (and stays valid JSON).
printf '{"title": "Total \u202e0001\u202c \u200fR\u200e \u061c", "tokens": ["\u2066a\u2069", "\u2067b\u2068"],
 "embeddings": [[1, 0], [0, 1]], "heads": 1, "weights": {"random": {"seed": 1}},
 "questions": [{"stage": "softmax", "head": 0, "text": "Which\u2028one\u2029?",
   "answer": {"kind": "cell", "cell": [0, 0]}}]}' >"$tmp/bidi.json"
raw_bidi() { # raw_bidi FILE: true when FILE holds the UTF-8 of U+2028..U+202E, U+2066..U+2069, LRM, RLM or ALM
    LC_ALL=C grep -q "$(printf '\342\200')[$(printf '\216\217\250-\256')]\|$(printf '\342\201')[$(printf '\246-\251')]\|$(printf '\330\234')" "$1"
}
for mode in trace compare json questions check; do
    run "bidi_$mode" 0 "--$mode" "$tmp/bidi.json"
    raw_bidi "$tmp/bidi_$mode.out" && bad "--$mode prints bidi controls raw: $(od -c "$tmp/bidi_$mode.out" | head -3)" || ok
done
# --trace --stage (the board's stage as tab-separated text) too: its tokens, and C0/C1 in a token.
run bidi_stage 0 --trace "$tmp/bidi.json" --stage all
raw_bidi "$tmp/bidi_stage.out" && bad "--trace --stage prints bidi controls raw: $(od -c "$tmp/bidi_stage.out" | head -3)" || ok
has bidi_stage.out '\u2066a\u2069	'
run ctl_stage 0 --trace "$tmp/ctl.json" --stage input
raw_ctl "$tmp/ctl_stage.out" && bad "--trace --stage prints control characters raw: $(cat -v "$tmp/ctl_stage.out" | head -3)" || ok
has ctl_stage.out 'a\u009b2J	'
has bidi_trace.out 'Total \u202e0001\u202c \u200fR\u200e \u061c'
has bidi_trace.out 'tokens: \u2066a\u2069 \u2067b\u2068'
has bidi_compare.out '\u2066a\u2069'
has bidi_questions.out '  Which\u2028one\u2029?'
has bidi_json.out '"title": "Total \u202e0001\u202c \u200fR\u200e \u061c",'
has bidi_json.out '"tokens": ["\u2066a\u2069", "\u2067b\u2068"],'
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["title"] != "Total \u202e0001\u202c \u200fR\u200e \u061c")' \
    "$tmp/bidi_json.out" && ok || bad "--json of bidi controls is not the same text as JSON"
bidi_name="$tmp/evil$(printf '\342\200\256')nosj.json"
cp "$tmp/bidi.json" "$bidi_name"
printf '{"title": "x", "tokens": ["a"], "embeddings": [[1, 2]], "heads": 1, "\342\200\256bad": 1}' >"$tmp/bidi_key.json"
run bidi_name 0 --check "$bidi_name"
raw_bidi "$tmp/bidi_name.out" && bad "a file name's bidi control reaches the terminal" || ok
has bidi_name.out 'evil\u202enosj.json: ok'
run bidi_key 2 --check "$tmp/bidi_key.json"
raw_bidi "$tmp/bidi_key.err" && bad "an error message prints a bidi control raw" || ok
has bidi_key.err 'error: unknown key "\u202ebad"'

# A file named *.schema.json is skipped by --check only when it is a JSON Schema (issue 27, item 12): the
# shipped one is; invalid JSON under that name is a syntax error, a lesson under it is checked as a lesson.
run schema_shipped 0 --check "$src/lessons/lesson.schema.json"
has schema_shipped.out "lesson.schema.json: skipped (a JSON Schema, not a lesson)"
mkdir "$tmp/schemas"
printf 'garbage{' >"$tmp/schemas/lesson.schema.json"
run schema_garbage 2 --check "$tmp/schemas/lesson.schema.json"
has schema_garbage.err "lesson.schema.json:1:1: error: invalid JSON"
printf '{"$schema": "./lesson.schema.json", "title": "x", "tokens": ["a"], "embeddings": [[1, 2]], "heads": 1}' \
    >"$tmp/schemas/my.schema.json"
run schema_lesson 2 --check "$tmp/schemas/my.schema.json"
has schema_lesson.err 'my.schema.json:1:1: error: missing required key "weights"'
sed 's/"heads": 1}/"heads": 1, "weights": {"random": {"seed": 1}}}/' "$tmp/schemas/my.schema.json" >"$tmp/schemas/ok.schema.json"
run schema_good_lesson 0 --check "$tmp/schemas/ok.schema.json"
has schema_good_lesson.out "ok.schema.json: ok"

# A path longer than the error's 511 bytes keeps its end (the file's name), behind "…"; a newline in a file's
# name is shown as \x0a, so the error stays one line.
long_dir="$tmp"
for i in 1 2 3 4 5 6 7 8 9 10; do long_dir="$long_dir/directory-number-$i-with-a-rather-long-name-to-pass-the-limit"; done
mkdir -p "$long_dir" && cp "$src/tests/bad/$(ls "$src/tests/bad" | grep '\.json$' | head -1)" "$long_dir/the-bad-lesson.json"
run long_path 2 --trace "$long_dir/the-bad-lesson.json"
has long_path.err "-limit/the-bad-lesson.json:"
has long_path.err "…"
run long_missing 1 --trace "$long_dir/the-missing-lesson.json"
has long_missing.err "-limit/the-missing-lesson.json: error: cannot open the lesson"
nl_name="$tmp/two
lines.json"
run nl_name 1 --trace "$nl_name"
[ "$(wc -l <"$tmp/nl_name.err")" -eq 1 ] && ok || bad "a newline in a file name splits the error: $(cat "$tmp/nl_name.err")"
has nl_name.err 'two\x0alines.json: error: cannot open the lesson'
run nl_check 1 --check "$nl_name"
[ "$(wc -l <"$tmp/nl_check.err")" -eq 2 ] && ok || bad "--check: the error and the count, two lines"

# Not a regular file: a FIFO with no writer is refused at once (timeout: a regression fails instead of hanging),
# exit 1 like a folder or an unreadable file, one line naming the file; also a folder and a device.
if command -v timeout >/dev/null 2>&1 && mkfifo "$tmp/fifo.json" 2>/dev/null; then
    timeout 10 "$bin" --check "$tmp/fifo.json" >"$tmp/fifo.out" 2>"$tmp/fifo.err" </dev/null
    st=$?
    [ "$st" -eq 1 ] && ok || bad "fifo: exit $st, expected 1 (124: it blocked)"
    has fifo.err "fifo.json: error: cannot read the lesson: not a regular file (a FIFO)"
    [ "$(grep -c 'error:' "$tmp/fifo.err")" -eq 1 ] && ok || bad "fifo: one error line"
    empty fifo.out
    timeout 10 "$bin" --trace "$tmp/fifo.json" >/dev/null 2>&1
    [ $? -eq 1 ] && ok || bad "fifo: --trace does not refuse it"
else
    skip "a FIFO as the lesson (no timeout, or mkfifo failed)"
fi
run dir_lesson 1 --check "$tmp"
has dir_lesson.err "Is a directory"
if [ -c /dev/null ]; then
    run dev_lesson 1 --check /dev/null
    has dev_lesson.err "not a regular file (a device)"
else
    skip "a device as the lesson (no /dev/null device)"
fi

# Questions: --check computes every answer from the trace; a lesson whose stated answer is changed to a wrong one
# fails with the file, the question's place and the right answer; --questions prints each with its answer.
for f in the-cat-sat the-cat-sat-on-the-mat causal-decoder; do
    run "q_check_$f" 0 --check "$src/lessons/$f.json"
    has "q_check_$f.out" "$f.json: ok"
    empty "q_check_$f.err"
done
sed 's/"cell": \[1, 5\]/"cell": [1, 2]/' "$src/lessons/the-cat-sat-on-the-mat.json" >"$tmp/mat-wrong.json"
if cmp -s "$tmp/mat-wrong.json" "$src/lessons/the-cat-sat-on-the-mat.json"; then bad "the sed did not change the answer"; else ok; fi
run q_wrong 2 --check "$tmp/mat-wrong.json"
has q_wrong.err "mat-wrong.json:39:16: error: questions[1].answer: wrong answer: the largest value of its row in A₁ is at [1, 5]"
has q_wrong.err 'column 5 (“mat”): 0.8611; the lesson says [1, 2]'
has q_wrong.err "mat-wrong.json: 1 error"
empty q_wrong.out
sed 's/"value": 0.6,/"value": 0.5,/; s/"correct": 2}}/"correct": 0}}/' "$src/lessons/the-cat-sat.json" >"$tmp/cat-wrong.json"
run q_wrong2 2 --check "$tmp/cat-wrong.json"
has q_wrong2.err "questions[1].answer: wrong answer: A₀[0, 0] is 0.6111 (0.61106340127283476), not within 0.5 ± 0.05"
has q_wrong2.err 'questions[2].answer: wrong answer: S₀[1, 2] is 1.3465, nearest to choices[2] = 1.3 ("correct": 2); the lesson says "correct": 0 (-1)'
has q_wrong2.err "cat-wrong.json: 2 errors"
sed 's/"stage": "scores"/"stage": "mask"/' "$src/lessons/the-cat-sat.json" >"$tmp/cat-mask.json"
run q_stage 2 --check "$tmp/cat-mask.json"
# (the cat lesson's stages with a result: the table's, but the input (no result), positions, rotate and the mask)
has q_stage.err 'cat-mask.json:8:13: error: questions[2].stage: expected one of this lesson'"'"'s stages with a result ('"$(stage_list input positions rotate mask)"'; or weights = softmax), got "mask"'
# Every independent mistake of the questions in one run: a head out of range hides neither the cell outside
# its matrix nor another question's stage name nor a cell outside the output.
sed 's/"head": 1,/"head": 7,/; s/"cell": \[1, 1\]/"cell": [1, 5]/; s/"stage": "softmax", "head": 0/"stage": "sofmax", "head": 0/; s/"stage": "scores"/"stage": "output"/; s/"cell": \[1, 2\]/"cell": [7, 2]/' "$src/lessons/the-cat-sat.json" >"$tmp/cat-four.json"
run q_four 2 --check "$tmp/cat-four.json"
has q_four.err "cat-four.json:4:32: error: questions[0].head: the lesson has 2 heads (0 to 1), got 7"
has q_four.err "cat-four.json:5:39: error: questions[0].answer.cell: [1, 5] is outside weights, which has 3 rows and 3 columns"
has q_four.err 'cat-four.json:6:13: error: questions[1].stage: expected one of this lesson'"'"'s stages with a result'
has q_four.err "cat-four.json:9:41: error: questions[2].answer.cell: [7, 2] is outside output, which has 3 rows and 4 columns"
has q_four.err "cat-four.json: 4 errors"
if [ "$(head -n1 "$tmp/q_four.err")" = "$tmp/cat-four.json:4:32: error: questions[0].head: the lesson has 2 heads (0 to 1), got 7" ]; then ok
else bad "the first error is not lesson_parse's: $(head -n1 "$tmp/q_four.err")"; fi
# One set of stage names everywhere: a question names a stage by its heatmap ("weights") as --stage does.
sed 's/"stage": "softmax"/"stage": "weights"/' "$src/lessons/the-cat-sat.json" >"$tmp/cat-weights.json"
if cmp -s "$tmp/cat-weights.json" "$src/lessons/the-cat-sat.json"; then bad "the sed did not change the stage"; else ok; fi
run q_alias 0 --check "$tmp/cat-weights.json"
has q_alias.out "cat-weights.json: ok"
empty q_alias.err
run q_alias_questions 0 --questions "$tmp/cat-weights.json"
has q_alias_questions.out "Question 2 of 3  (stage weights, head 1, cell)"
run stage_names 2 --export "$tmp/stage-names" --stage sofmax
# (every stage of the table, in its order)
has stage_names.err "mha-tracer: error: --stage expects all or a stage ($(stage_list); or weights = softmax, masked = mask), got 'sofmax'"
run questions 0 --questions "$src/lessons/causal-decoder.json"
has questions.out "Question 2 of 4  (stage softmax, head 0, cell)"
has questions.out "  Which earlier word does “sat” attend to most in head 0?"
has questions.out "  Answer: row 3 (“sat”), column 2 (“cat”): 0.8494"
has questions.out "  Answer: key 3: 0.85 (row 3 (“sat”), column 1 is 0.8494)"
has questions.out "  How: Type a number, then Enter (right within ± 0.001)."
empty questions.err
run questions_builtin 0 --questions
# Numbered in the order asked (the stages' order): the scores question, third in the file, is asked first.
has questions_builtin.out "Question 1 of 3  (stage scores, head 0, choice)"
if [ "$(grep -m1 '^Question' "$tmp/questions_builtin.out")" = "Question 1 of 3  (stage scores, head 0, choice)" ]; then ok
else bad "the first question printed is not the first asked: $(grep -m1 '^Question' "$tmp/questions_builtin.out")"; fi
has questions_builtin.out "  How: Press  1: -1,  2: 0,  3: 1.3"
run questions_none 0 --questions "$src/lessons/cross-attention.json"
has questions_none.out "cross-attention.json: no questions"
run questions_wrong 2 --questions "$tmp/mat-wrong.json"
has questions_wrong.out "  Answer: row 1 (“cat”), column 5 (“mat”): 0.8611"
has questions_wrong.out "  The lesson's stated answer is WRONG (see the error)"
has questions_wrong.err "questions[1].answer: wrong answer"
# Control characters in a question are shown escaped, never sent to the terminal.
sed 's/"Which word does/"\\u001b[31mWhich word does/' "$src/lessons/the-cat-sat.json" >"$tmp/cat-ctl.json"
run questions_ctl 0 --questions "$tmp/cat-ctl.json"
has questions_ctl.out '  \x1b[31mWhich word does'
if grep -q "$(printf '\033')" "$tmp/questions_ctl.out"; then bad "an escape byte reached stdout"; else ok; fi
run questions_two 2 --questions "$src/lessons/the-cat-sat.json" "$src/lessons/causal-decoder.json"
run questions_mode 2 --questions --trace
has questions_mode.err "--trace cannot be combined with another mode"
# The built-in lesson carries questions, yet --trace and --json print what they did: the questions are no
# part of the trace.
run q_json 0 --json
if "$json_close" "$src/tests/data/the-cat-sat.trace.json" "$tmp/q_json.out" 1e-12; then ok; else bad "--json changed"; fi
if grep -q "questions" "$tmp/q_json.out" "$tmp/trace.out"; then bad "questions leaked into --json/--trace"; else ok; fi

# Issue 14: --ablate and --shuffle. Their errors, and what they add (nothing without them: the bytes above).
cat_l="$src/lessons/the-cat-sat.json"
run ablate_range 2 --json --ablate 2 "$cat_l"
has ablate_range.err "mha-tracer: error: --ablate head 2 does not exist: the lesson has 2 heads (0 to 1)"
run ablate_word 2 --trace --ablate one "$cat_l"
has ablate_word.err "--ablate expects head numbers such as 0 or 0,2, got 'one'"
run ablate_window 2 --ablate 0 "$cat_l"
has ablate_window.err "--ablate only works with --trace, --json or --export"
run ablate_check 2 --check --ablate 0 "$cat_l"
has ablate_check.err "--ablate only works with --trace, --json or --export"
run shuffle_twice 2 --json --shuffle 0,0,1 "$cat_l"
has shuffle_twice.err "--shuffle position 0 is given twice in '0,0,1'"
run shuffle_short 2 --json --shuffle 1,0 "$cat_l"
has shuffle_short.err "--shuffle expects all 3 token positions (0 to 2) once each, got 2 in '1,0'"
run shuffle_range 2 --json --shuffle 0,1,3 "$cat_l"
has shuffle_range.err "--shuffle position 3 does not exist: the lesson has 3 tokens (0 to 2)"
run shuffle_empty 2 --json --shuffle= "$cat_l"
has shuffle_empty.err "--shuffle needs a value"
run ablate_json 0 --json --ablate=1 "$cat_l"
has ablate_json.out '"ablated": [1],'
has ablate_json.out '"output_all_heads": ['
run ablate_trace 0 --trace --ablate 0,1 "$cat_l"
has ablate_trace.out "ablated heads: 0 1 (their Z enter the concat as zeros)"
has ablate_trace.out "Z_1 = weights_1 V_1 (head ablated: zeros in the concat)"
has ablate_trace.out "largest difference the ablation makes:"
# --trace --shuffle prints the original output beside the shuffled one (as --ablate does), in the new order.
run shuffle_trace 0 --trace --shuffle 2,0,1 "$cat_l"
has shuffle_trace.out "original output, row i = its row perm[i] (3×4)"
if grep -A4 "^original output" "$tmp/shuffle_trace.out" | sed -n 3p | grep -q "^  sat "; then ok; else bad "the original output's first row is not sat's"; fi
run shuffle_json 0 --json --shuffle 2,0,1 "$cat_l"
has shuffle_json.out '"tokens": ["sat", "The", "cat"],'
has shuffle_json.out '"shuffle": [2, 0, 1],'
has shuffle_json.out '"shuffle_only_reorders": true,'
printf '{"title": "t", "tokens": ["a", "b"], "embeddings": [[1, 0], [0, 3]], "heads": 1, "scale": 1e308,\n "weights": {"W_Q": [[[1, 0], [0, 1]]], "W_K": [[[1, 0], [0, 1]]], "W_V": [[[1, 0], [0, 1]]], "W_O": [[1, 0], [0, 1]]}}\n' >"$tmp/huge_scale.json"
run huge_scale 2 --trace "$tmp/huge_scale.json"
has huge_scale.err "stage 'scaled', head 0: a value overflowed"
has huge_scale.err 'a score times "scale" = 1e+308 is beyond the largest double'
# The issue's test: the shuffle of the mat lesson only moves the rows; with positions they change.
run shuffle_mat 0 --json --shuffle 1,0,2,3,4,5 "$src/lessons/the-cat-sat-on-the-mat.json"
has shuffle_mat.out '"shuffle_only_reorders": true,'
run shuffle_mat_pos 0 --json --shuffle 1,0,2,3,4,5 "$src/lessons/the-cat-sat-on-the-mat-positions.json"
has shuffle_mat_pos.out '"shuffle_only_reorders": false,'
dog="$src/lessons/the-dog-bit-the-man.json"
run shuffle_dog 0 --trace --shuffle 0,4,2,3,1 "$dog"
has shuffle_dog.out "tokens: the man bit the dog"
has shuffle_dog.out "the rows changed: the positions (or the causal mask) make the order matter"
run dog_json 0 --json "$dog"
has dog_json.out '"token_embeddings": ['
has dog_json.out '"positions": ['
for f in "$src"/lessons/*.json; do
    case $f in *.schema.json) continue ;; esac
    "$bin" --json "$f" >"$tmp/plain.out" 2>/dev/null
    case $(basename "$f") in the-dog-bit-the-man.json | *-positions.json) continue ;; esac
    grep -q '"positions"' "$f" && continue # issue 15's training lessons have positions too
    if grep -qE '"(scale|ablated|token_embeddings|positions|shuffle|output_all_heads)"' "$tmp/plain.out"; then
        bad "$(basename "$f"): --json has a key of issue 14 without the feature"
    else ok; fi
done

# Every bad lesson through the real program: exit 2, exactly its expected message on stderr, nothing on stdout.
bad_total=0
bad_right=0
for f in "$src"/tests/bad/*.json; do
    name=$(basename "$f" .json)
    bad_total=$((bad_total + 1))
    (cd "$src/tests" && "$bin" --trace "bad/$name.json" >"$tmp/bad.out" 2>"$tmp/bad.err" </dev/null)
    status=$?
    if [ "$status" -eq 2 ] && [ ! -s "$tmp/bad.out" ] && cmp -s "$tmp/bad.err" "$src/tests/bad/$name.expected"; then
        bad_right=$((bad_right + 1))
    else
        bad "bad/$name.json: exit $status; stderr: $(head -c 300 "$tmp/bad.err")"
    fi
done
echo "bad lessons through the CLI: $bad_right of $bad_total give exit 2 and their expected message"
[ "$bad_total" -ge 40 ] && ok || bad "the bad corpus has only $bad_total lessons"

check_done test_cli
