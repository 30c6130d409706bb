#!/bin/sh
# The shipped lessons: every one passes --check and says what it teaches (the heads' patterns below).
# usage: test_lessons.sh PATH/TO/mha-tracer SOURCE_DIR
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/check.sh"

# The whole library at once, as a teacher would run it (the schema beside the lessons is skipped).
"$bin" --check "$src"/lessons/*.json >"$tmp/check.out" 2>"$tmp/check.err"
st=$?
if [ "$st" -eq 0 ]; then ok; else bad "--check lessons/*.json: exit $st: $(head -c 400 "$tmp/check.err")"; fi
for f in "$src"/lessons/*.json; do
    name=$(basename "$f")
    case $name in
    *.schema.json)
        if grep -qF "$name: skipped" "$tmp/check.out"; then ok; else bad "$name not skipped by --check"; fi
        continue ;;
    esac
    if grep -qF "$name: ok" "$tmp/check.out"; then ok; else bad "$name: no 'ok' from --check"; fi
    [ "$name" = the-cat-sat.json ] && continue # the seed's lesson, kept byte for byte
    case $name in *-trained.json) continue ;; esac # --train's output verbatim (test_train_lessons checks the bytes)
    if grep -qF '"$schema": "./lesson.schema.json"' "$f"; then ok; else bad "$name lacks \"\$schema\": \"./lesson.schema.json\""; fi
    if grep -q '"notes": "..*"' "$f"; then ok; else bad "$name has no notes"; fi
    if grep -q '"title": "..*"' "$f"; then ok; else bad "$name has no title"; fi
done

# trace NAME LESSON: --trace into $tmp/NAME.txt
trace() {
    "$bin" --trace "$src/lessons/$2" >"$tmp/$1.txt" 2>"$tmp/$1.err"
    st=$?
    if [ "$st" -eq 0 ]; then ok; else bad "--trace $2: exit $st: $(head -c 300 "$tmp/$1.err")"; fi
}
# row NAME TITLE LABEL: the numbers of row LABEL (its first occurrence) in the matrix whose title starts
# with TITLE, joined by single spaces.
row() {
    awk -v title="$2" -v label="$3" '
        index($0, title) == 1 { inb = 1; getline; next }
        inb && NF == 0 { exit }
        inb && $1 == label { $1 = ""; sub(/^ +/, ""); print; exit }' "$tmp/$1.txt"
}
# top NAME HEAD LABEL: the column label of the largest weight in row LABEL of head HEAD's weights.
top() {
    awk -v title="weights_$2 = " -v label="$3" '
        index($0, title) == 1 { inb = 1; getline; for (i = 1; i <= NF; i++) col[i] = $i; next }
        inb && NF == 0 { exit }
        inb && $1 == label {
            best = 2
            for (i = 3; i <= NF; i++) if ($i + 0 > $best + 0) best = i
            print col[best - 1]; exit
        }' "$tmp/$1.txt"
}
# expect_top NAME HEAD LABEL WANT: head HEAD makes LABEL attend mostly to WANT
expect_top() {
    got=$(top "$1" "$2" "$3")
    if [ "$got" = "$4" ]; then ok; else bad "$1: head $2: '$3' attends mostly to '$got', expected '$4'"; fi
}
# expect_row NAME TITLE LABEL NUMBERS
expect_row() {
    got=$(row "$1" "$2" "$3")
    if [ "$got" = "$4" ]; then ok; else bad "$1: '$2' row '$3' is '$got', expected '$4'"; fi
}
has() { # has NAME TEXT
    if grep -qF -- "$2" "$tmp/$1.txt"; then ok; else bad "$1 lacks '$2'"; fi
}

# The document's example: head 0 makes "cat" attend to "sat", head 1 to "mat".
trace mat the-cat-sat-on-the-mat.json
has mat "d_model = 4, heads = 2, d_k = 2, mask = none"
expect_top mat 0 cat sat
expect_top mat 1 cat mat
expect_row mat "weights_0 = " cat "0.0124 0.0509 0.8611 0.0124 0.0124 0.0509"
expect_row mat "weights_1 = " cat "0.0124 0.0509 0.0509 0.0124 0.0124 0.8611"
has mat "h = 2: d_k =   2, projection weights = 64, score multiplications = 144, attention matrices = 2 x (6, 6)"

# Jay Alammar's two words with eight heads of 2.
trace thinking thinking-machines.json
has thinking "tokens: Thinking Machines"
has thinking "d_model = 16, heads = 8, d_k = 2, mask = none"
has thinking "==== Head 7 ===="

# The paper's base sizes and BERT-base's.
trace paper paper-base.json
has paper "d_model = 512, heads = 8, d_k = 64, mask = none"
has paper "tokens: the cat sat on the mat because it was tired"
has paper "h = 8: d_k =  64, projection weights = 1,048,576, score multiplications = 51,200, attention matrices = 8 x (10, 10)"
trace bert bert-base-shape.json
has bert "d_model = 768, heads = 12, d_k = 64, mask = none"
has bert "h = 12: d_k =  64, projection weights = 2,359,296"

# The causal decoder: nothing above the diagonal, and the heads' readable patterns.
trace causal causal-decoder.json
has causal "mask = causal"
expect_row causal "weights_0 = " "<s>" "1.0000 0.0000 0.0000 0.0000 0.0000"
expect_row causal "weights_1 = " the "0.8044 0.1956 0.0000 0.0000 0.0000"
expect_top causal 0 sat cat
expect_top causal 0 down sat
expect_top causal 1 cat the
expect_top causal 1 down "<s>"

# Cross-attention: English queries over French keys and values.
trace cross cross-attention.json
has cross "source tokens: le chat dort"
has cross "cross-attention"
expect_top cross 0 the le
expect_top cross 0 cat chat
expect_top cross 0 sleeps dort
expect_top cross 1 the chat
expect_top cross 1 sleeps chat
has cross "attention matrices = 2 x (3, 3)"

# The PyTorch form, against NumPy's emulation of nn.MultiheadAttention on the same state_dict
# (q = x in_proj_weight[0:4]ᵀ + in_proj_bias[0:4], head i = columns 2i, 2i+1; out = concat out_proj_weightᵀ + bias).
trace torch pytorch-layer.json
expect_row torch "weights_0 = " attention "0.1510 0.0842 0.1430 0.2260 0.3959"
expect_row torch "weights_1 = " need "0.1028 0.1379 0.1034 0.3290 0.3269"
expect_row torch "output = " attention "0.1594 -0.0984 -0.1937 0.1668"
expect_row torch "output = " need "0.1820 -0.0416 -0.1686 0.1349"
has torch "b_Q_0"

# A Chinese sentence split into characters, and an Arabic one split on white space (right to left on screen).
trace zh mao-zuo-zai-dianzi-shang.json
has zh "tokens: 猫 坐 在 垫 子 上"
has zh "d_model = 8, heads = 2, d_k = 4, mask = none"
trace ar jalasat-al-qitta.json
has ar "tokens: جلست القطة على الحصيرة"
has ar "attention matrices = 2 x (4, 4)"

check_done test_lessons
