#!/bin/sh
# --train and --grad on the command line (issue 15): the last line, the trained file (the shipped one, byte
# for byte), --steps, the refusals (no --out, --out the lesson itself or a link to it, no "train" section),
# a link at --out replaced and never written through, and --grad's errors.
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
"$bin" --train "$tmp/in.json" --steps 3 --out "$tmp/to-other.json" >/dev/null 2>&1 && ok || bad "--out over a link fails"
[ "$(cat "$tmp/other.txt")" = "not a lesson" ] && [ ! -L "$tmp/to-other.json" ] && ok ||
    bad "a link at --out was written through, or is still a link"
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

check_done test_train_cli
