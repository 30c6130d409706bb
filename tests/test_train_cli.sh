#!/bin/sh
# --train and --grad on the command line (issue 15): the last line, the trained file (the shipped one, byte
# for byte), --steps, the refusals (no --out, --out the lesson itself or a link to it, no "train" section),
# only a regular file replaced at --out (its mode kept), the temporaries of a killed run cleaned, and --grad's
# errors (an overflow refused, never printed as inf or nan).
#   sh tests/test_train_cli.sh BIN SOURCE_DIR
bin=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/check.sh"

"$bin" --train "$src/lessons/learn-first-token.json" --out "$tmp/first.json" >"$tmp/out1" 2>"$tmp/err1"
[ $? -eq 0 ] && ok || bad "--train exits 0: $(cat "$tmp/err1")"
last=$(tail -n 1 "$tmp/out1")
echo "$last" | grep -Eq '^steps=400 loss_start=[0-9.e+-]+ loss_end=[0-9.e+-]+ seconds=[0-9]+\.[0-9]{3}$' && ok ||
    bad "last line: '$last'"
cmp -s "$tmp/first.json" "$src/lessons/learn-first-token-trained.json" && ok ||
    bad "the trained lesson differs from lessons/learn-first-token-trained.json"
"$bin" --check "$tmp/first.json" >/dev/null 2>&1 && ok || bad "the trained lesson does not load"
"$bin" --train "$src/lessons/learn-first-token.json" --out "$tmp/first2.json" >"$tmp/out2" 2>&1
sed '$d' "$tmp/out1" | sed "s|$tmp/first.json|X|" >"$tmp/a"
sed '$d' "$tmp/out2" | sed "s|$tmp/first2.json|X|" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/first.json" "$tmp/first2.json" && ok || bad "a second run differs"
[ "$(tail -n 1 "$tmp/out1" | sed 's/ seconds=.*//')" = "$(tail -n 1 "$tmp/out2" | sed 's/ seconds=.*//')" ] && ok ||
    bad "a second run's loss differs"

"$bin" --train "$src/lessons/learn-previous-token.json" --steps 10 --out "$tmp/ten.json" >"$tmp/out3" 2>&1
tail -n 1 "$tmp/out3" | grep -q '^steps=10 ' && ok || bad "--steps 10: $(tail -n 1 "$tmp/out3")"
grep -q '"steps": 10,' "$tmp/ten.json" && ok || bad "--steps 10 is not in the trained lesson's train section"

# Refusals, each exit 2 with a message.
expect() { # expect STATUS MESSAGE-PART ARGS...
    want=$1 part=$2
    shift 2
    "$bin" "$@" >"$tmp/o" 2>"$tmp/e"
    st=$?
    if [ $st -eq "$want" ] && grep -qF -- "$part" "$tmp/e"; then ok; else bad "$* -> exit $st: $(cat "$tmp/e")"; fi
}
cp "$src/lessons/learn-first-token.json" "$tmp/in.json"
before=$(cksum <"$tmp/in.json")
expect 2 "is the lesson itself" --train "$tmp/in.json" --out "$tmp/in.json"
ln -s "$tmp/in.json" "$tmp/link.json"
expect 2 "is the lesson itself" --train "$tmp/in.json" --out "$tmp/link.json"
[ "$(cksum <"$tmp/in.json")" = "$before" ] && ok || bad "the input lesson changed"
echo "not a lesson" >"$tmp/other.txt"
ln -s "$tmp/other.txt" "$tmp/to-other.json"
# Only a regular file is replaced at --out (issue 27, item 7), keeping its mode; anything else is refused
# before the training, exit 1, and left as it was.
"$bin" --train "$tmp/in.json" --steps 3 --out "$tmp/to-other.json" >/dev/null 2>"$tmp/e"
[ $? -eq 1 ] && grep -qF "is a link, not a regular file" "$tmp/e" && ok || bad "--out over a link: $(cat "$tmp/e")"
[ "$(cat "$tmp/other.txt")" = "not a lesson" ] && [ -L "$tmp/to-other.json" ] && ok ||
    bad "a link at --out was written through, or replaced"
ln -s /proc/self/fd/1 "$tmp/stdout.json"
mkfifo "$tmp/fifo.json"
expect 1 "is a link, not a regular file" --train "$tmp/in.json" --steps 3 --out "$tmp/stdout.json"
expect 1 "is a FIFO, not a regular file" --train "$tmp/in.json" --steps 3 --out "$tmp/fifo.json"
[ -L "$tmp/stdout.json" ] && [ -p "$tmp/fifo.json" ] && ok || bad "a link or a FIFO at --out was replaced"
grep -q "^steps=" "$tmp/o" && bad "a refused --out trained first" || ok
echo private >"$tmp/private.json"
chmod 600 "$tmp/private.json"
"$bin" --train "$tmp/in.json" --steps 3 --out "$tmp/private.json" >/dev/null 2>"$tmp/e" && ok || bad "--out over a file: $(cat "$tmp/e")"
[ "$(stat -c %a "$tmp/private.json")" = 600 ] && grep -q '"train"' "$tmp/private.json" && ok ||
    bad "--out over a private file: mode $(stat -c %a "$tmp/private.json")"
# A temporary that a killed run left (kill -9 during --train: ".NAME.PID.tmp") goes with the next run.
sh -c 'exit 0' & dead=$!
wait $dead
echo left >"$tmp/.private.json.$dead.tmp"
echo left >"$tmp/.private.json.$dead-1.tmp"
"$bin" --train "$tmp/in.json" --steps 3 --out "$tmp/private.json" >/dev/null 2>&1 && ok || bad "a second --out run fails"
[ ! -e "$tmp/.private.json.$dead.tmp" ] && [ ! -e "$tmp/.private.json.$dead-1.tmp" ] && ok ||
    bad "the temporaries of a killed run survive the next run: $(ls -a "$tmp" | grep tmp)"
expect 2 "needs --out FILE" --train "$tmp/in.json"
expect 2 'needs a lesson with a "train" section' --train "$src/lessons/the-cat-sat.json" --out "$tmp/x.json"
expect 2 "only works with --train" --trace --steps 5 "$src/lessons/the-cat-sat.json"
expect 2 "--steps expects a whole number" --train "$tmp/in.json" --steps 0 --out "$tmp/x.json"
expect 2 "--steps expects a whole number" --train "$tmp/in.json" --steps 2x --out "$tmp/x.json"
expect 2 '--grad needs "targets"' --grad "$src/lessons/the-cat-sat.json"
[ ! -e "$tmp/x.json" ] && ok || bad "a refused --train wrote its --out"

# --grad on a lesson with a train section: its task's targets; one JSON object with every gradient.
"$bin" --grad "$src/lessons/two-heads-two-jobs.json" >"$tmp/g" 2>&1 && ok || bad "--grad on a train lesson fails"
for k in '"loss"' '"embeddings"' '"W_Q"' '"W_K"' '"W_V"' '"b_Q"' '"b_K"' '"b_V"' '"W_O"' '"b_O"'; do
    grep -q "$k" "$tmp/g" && ok || bad "--grad prints no $k"
done
grep -q source_embeddings "$tmp/g" && bad "self-attention with source_embeddings" || ok

# --grad never prints a number JSON lacks (issue 27, item 5): targets whose loss overflows are refused,
# exit 2, naming the key; nothing on standard output.
for big in 1e155 1.79e308 -1.79e308; do
    printf '{"title": "big", "tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]], "heads": 1,
 "weights": {"random": {"seed": 1}}, "targets": [[%s, 0], [0, 1]]}\n' "$big" >"$tmp/big.json"
    "$bin" --check "$tmp/big.json" >/dev/null 2>&1 && ok || bad "targets $big: --check refuses it"
    expect 2 "--grad overflows: loss is infinite" --grad "$tmp/big.json"
    [ ! -s "$tmp/o" ] && ok || bad "targets $big: --grad printed $(head -c 80 "$tmp/o")"
    grep -qF "targets[0][0] = $(printf '%.6g' "$big")" "$tmp/e" && ok || bad "targets $big: $(cat "$tmp/e")"
done
# A finite loss whose gradient overflows (W_O of 1e300 through V of 1e-300): nan in the gradient, refused.
printf '{"title": "big", "tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]], "heads": 1,
 "weights": {"W_Q": [[[1, 0], [0, 1]]], "W_K": [[[1, 0], [0, 1]]], "W_V": [[[1e-300, 0], [0, 1e-300]]],
             "W_O": [[1e300, 1e300], [1e300, 1e300]]}, "targets": [[1e10, 0], [0, 1]]}\n' >"$tmp/nan.json"
"$bin" --check "$tmp/nan.json" >/dev/null 2>&1 && ok || bad "the gradient-overflow lesson: --check refuses it"
expect 2 "--grad overflows: grad.embeddings[0][0] is not a number" --grad "$tmp/nan.json"
[ ! -s "$tmp/o" ] && ok || bad "--grad printed $(head -c 80 "$tmp/o")"
grep -qF "a gradient exceeds a double, the loss being 2.5e+19" "$tmp/e" && ok || bad "$(cat "$tmp/e")"

# Whatever --train writes it reads back (issue 27 item 4): 2.1 M weights written out (more than the 2,000,000
# values a file once held) load again; a lesson whose weights written out exceed the file's 3,000,000 values
# is refused before it trains; a trained lesson keeps its questions, their stated answers updated, and says so.
printf '{"title": "wide", "tokens": ["a", "b"], "embeddings": {"random": {"seed": 3, "std": 0.5}}, "d_model": 512,
 "heads": 8, "d_k": 128, "weights": {"random": {"seed": 4, "qkv_std": 0.05, "out_std": 0.05}},
 "train": {"task": "previous-token", "sequences": 1, "steps": 1}}\n' >"$tmp/wide.json"
"$bin" --train "$tmp/wide.json" --out "$tmp/wide-out.json" >"$tmp/o" 2>"$tmp/e" && ok || bad "--train wide: $(cat "$tmp/e")"
"$bin" --check "$tmp/wide-out.json" >"$tmp/o" 2>&1 && ok || bad "the trained wide lesson does not load: $(cat "$tmp/o")"
printf '{"title": "huge", "tokens": ["a", "b"], "embeddings": {"random": {"seed": 3, "std": 0.5}}, "d_model": 1024,
 "heads": 16, "d_k": 128, "weights": {"random": {"seed": 4, "qkv_std": 0.05, "out_std": 0.05}},
 "train": {"task": "previous-token", "sequences": 1, "steps": 1}}\n' >"$tmp/huge.json"
expect 2 "4 * 16 * 1024 * 128 = 8388608 numbers, more than the 3000000 values a lesson file may hold" \
    --train "$tmp/huge.json" --out "$tmp/huge-out.json"
grep -q "step 0" "$tmp/o" && bad "the huge lesson was trained before it was refused" || ok
[ ! -e "$tmp/huge-out.json" ] && ok || bad "the huge lesson's refusal wrote a file"
python3 - "$src/lessons/the-cat-sat.json" "$tmp/cat-train.json" <<'PY' && ok || bad "a cat lesson with a train section"
import json, sys
l = json.load(open(sys.argv[1])); l["train"] = {"task": "previous-token", "sequences": 4, "steps": 30}
json.dump(l, open(sys.argv[2], "w"))
PY
"$bin" --train "$tmp/cat-train.json" --out "$tmp/cat-out.json" >"$tmp/o" 2>"$tmp/e" && ok || bad "--train cat: $(cat "$tmp/e")"
grep -qF "the trained lesson keeps its 3 questions; 2 stated answers were changed" "$tmp/e" && ok || bad "cat: $(cat "$tmp/e")"
"$bin" --check "$tmp/cat-out.json" >"$tmp/o" 2>&1 && ok || bad "the trained cat lesson fails --check: $(cat "$tmp/o")"
grep -c '"text":' "$tmp/cat-out.json" | grep -qx 3 && ok || bad "the trained cat lesson lost its questions"

# A loss that is infinite before the first step (targets, the embeddings, of 1e160): refused naming the cause,
# not trained into an error about a weight the file does not have (issue 27).
printf '{"title": "t", "tokens": ["a", "b", "c"], "embeddings": [[1e160, 0], [0, 1], [1, 1]], "heads": 1,
 "weights": {"random": {"seed": 3, "qkv_std": 1e-200, "out_std": 1e-200}}, "train": {"task": "previous-token", "steps": 20}}\n' >"$tmp/linf.json"
"$bin" --check "$tmp/linf.json" >/dev/null 2>&1 && ok || bad "the infinite-loss lesson: --check refuses it"
expect 2 "is infinite before the first step: the task's targets are the lesson's embeddings, and embeddings[0][0] = 1e+160" \
    --train "$tmp/linf.json" --out "$tmp/linf-out.json"
grep -q "step 0" "$tmp/o" && bad "the infinite loss was printed as a step" || ok

# A step above its bound (issue 27, item 2: 100 tokens, d_model 128, 64 heads of 256, 8 sequences, 54 s with
# no frame before; that lesson's weights are now refused first, as a file too large to load again, so the bound
# is shown on 8 heads of 64 and 200 sequences) is refused before any training, saying its arithmetic and the
# bound; nothing written.
toks=$(awk 'BEGIN { for (i = 0; i < 100; i++) printf "%st%d", (i ? " " : ""), i }')
printf '{"title": "heavy", "sentence": "%s", "embeddings": {"random": {"seed": 1, "std": 0.05}}, "d_model": 128,
 "heads": 8, "d_k": 64, "weights": {"random": {"seed": 2}}, "train": {"task": "previous-token", "sequences": 200}}\n' \
    "$toks" >"$tmp/heavy.json"
expect 2 "one training step would take 2.19e+10 multiply-adds (3 x 200 sequences x (100 tokens x 262,144 projection weights + 2 x 5,120,000 score multiplications)); the bound is 1.6e+10" \
    --train "$tmp/heavy.json" --out "$tmp/heavy-out.json"
[ ! -e "$tmp/heavy-out.json" ] && ok || bad "a refused training wrote its output"

check_done test_train_cli
