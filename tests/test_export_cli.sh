#!/bin/sh
# mha-tracer --export end to end with no display: file names and printed paths, PNG sizes at scale 1 and 2,
# SVGs parsed as XML (python3's xml.etree when present), one board per stage and a file per head, same bytes
# twice, our files replaced and nobody else's, a missing directory made (one level), unwritable directories,
# bad usage, and the time of a full export.
# usage: test_export_cli.sh PATH/TO/mha-tracer SOURCE_DIR
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$src/tests/check.sh"
. "$src/tests/stage_table.sh"
# The stages of the cat lesson and of the causal one: the table's, but those they lack (no positions, no RoPE;
# the cat lesson no mask either). Each lesson's boards are one per stage, numbered in the table's order.
cat_stages=$(stage_count "$src" positions rotate mask)
causal_stages=$(stage_count "$src" positions rotate)
unset DISPLAY WAYLAND_DISPLAY

# run NAME EXPECTED_STATUS ARGS...: stdout/stderr in $tmp/NAME.{out,err}
run() {
    name=$1; want=$2; shift 2
    "$bin" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "$name: exit $got, expected $want ($(head -c 300 "$tmp/$name.err"))"; fi
}
has() { if grep -qF -- "$2" "$tmp/$1"; then ok; else bad "$1 lacks '$2'"; fi; }
empty() { if [ ! -s "$tmp/$1" ]; then ok; else bad "$1 should be empty: $(head -c 200 "$tmp/$1")"; fi; }
lines() { # lines FILE N
    n=$(wc -l <"$tmp/$1")
    if [ "$n" -eq "$2" ]; then ok; else bad "$1 has $n lines, expected $2"; fi
}
count() { ls "$1" 2>/dev/null | wc -l; }
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print ($1*16777216+$2*65536+$3*256+$4) "x" ($5*16777216+$6*65536+$7*256+$8)}'; }
png_type() { od -An -tu1 -j25 -N1 "$1" | tr -d ' '; }

# Default: the weights of each head and of all heads, PNG at scale 2; each path printed.
mkdir "$tmp/a"
run default 0 --export "$tmp/a"
lines default.out 3
has default.out "$tmp/a/the-cat-sat-stage05-weights-heatmap-head0.png"
has default.out "$tmp/a/the-cat-sat-stage05-weights-heatmap-head1.png"
has default.out "$tmp/a/the-cat-sat-stage05-weights-heatmap-heads.png"
empty default.err
for f in $(cat "$tmp/default.out"); do [ -s "$f" ] && ok || bad "$f missing"; done
[ "$(count "$tmp/a")" -eq 3 ] && ok || bad "$(count "$tmp/a") files in $tmp/a, expected 3 (temporaries left?)"
[ "$(png_type "$tmp/a/the-cat-sat-stage05-weights-heatmap-head0.png")" = 2 ] && ok || bad "white PNG is not RGB"
head -c 64 "$tmp/a/the-cat-sat-stage05-weights-heatmap-head0.png" | tr '\0' ' ' | grep -qa "tEXtSoftware mha-tracer" && ok ||
    bad "no tEXt Software chunk"

# Scale 1 and 2: exactly twice the pixels on each side; a file of the lesson is named after the file.
mkdir "$tmp/s1" "$tmp/s2"
run scale1 0 --export "$tmp/s1" --scale 1 "$src/lessons/the-cat-sat.json"
run scale2 0 --export="$tmp/s2" --scale=2 "$src/lessons/the-cat-sat.json"
s1=$(png_size "$tmp/s1/the-cat-sat-stage05-weights-heatmap-head0.png")
s2=$(png_size "$tmp/s2/the-cat-sat-stage05-weights-heatmap-head0.png")
w1=${s1%x*}; h1=${s1#*x}; w2=${s2%x*}; h2=${s2#*x}
echo "head 0 weights: $s1 at scale 1, $s2 at scale 2"
[ "$w2" -eq $((2 * w1)) ] && [ "$h2" -eq $((2 * h1)) ] && ok || bad "scale 2 is $s2, scale 1 is $s1"
[ "$w1" -ge 400 ] && [ "$w1" -le 800 ] && [ "$h1" -ge 180 ] && [ "$h1" -le 500 ] && ok || bad "scale 1 size $s1"
cmp -s "$tmp/a/the-cat-sat-stage05-weights-heatmap-head0.png" "$tmp/s2/the-cat-sat-stage05-weights-heatmap-head0.png" && ok ||
    bad "the built-in lesson and lessons/the-cat-sat.json give different images"

# SVG: valid XML, one cell per token pair per head, labels and numbers as text, no raster.
mkdir "$tmp/svg"
run svg 0 --export "$tmp/svg" --format svg --stage scores
lines svg.out 3
has svg.out "the-cat-sat-stage03-scores-heatmap-heads.svg"
head -2 "$tmp/svg/the-cat-sat-stage03-scores-heatmap-heads.svg" | grep -qF "<!-- mha-tracer export -->" && ok || bad "no mark in the SVG"
grep -q "<image" "$tmp/svg/"*.svg && bad "raster in an SVG" || ok
if command -v python3 >/dev/null 2>&1; then
    if python3 - "$tmp/svg" <<'EOF'
import sys, glob, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
bad = 0
for path in sorted(glob.glob(sys.argv[1] + "/*.svg")):
    root = ET.parse(path).getroot()
    cells = root.findall(".//s:rect[@class='cell']", ns)
    heads = sorted({c.get("data-head") for c in cells})
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    want_heads = ["0", "1"] if path.endswith("-heads.svg") else [path.split("-head")[-1][0]]
    if heads != want_heads: print("FAIL:", path, "heads", heads); bad += 1
    for h in heads:
        n = sum(1 for c in cells if c.get("data-head") == h)
        if n != 9: print("FAIL:", path, "head", h, "has", n, "cells"); bad += 1
    for c in cells:
        if not (c.get("fill", "").startswith("#") and len(c.get("fill")) == 7): print("FAIL: fill", c.get("fill")); bad += 1
    for tok in ("The", "cat", "sat"):
        if texts.count(tok) < 2: print("FAIL:", path, "label", tok, texts.count(tok)); bad += 1
    if "\u22122.7498" not in texts and path.endswith("-heads.svg"): print("FAIL: no -2.7498 in", path); bad += 1
sys.exit(1 if bad else 0)
EOF
    then ok; else bad "SVG checks (python3)"; fi
    # Tokens that need escaping still give valid XML with the tokens as text.
    printf '%s' '{"title": "Quotes & <tags>", "tokens": ["a&b", "<c>", "\"d'"'"'"], "embeddings": [[1, 0], [0, 1], [1, 1]], "heads": 1, "weights": {"random": {"seed": 3}}}' >"$tmp/escape.json"
    mkdir "$tmp/esc"
    run escape 0 --export "$tmp/esc" --format svg --what all --stage all "$tmp/escape.json"
    if python3 - "$tmp/esc" <<'EOF'
import sys, glob, xml.etree.ElementTree as ET
bad = 0
for path in sorted(glob.glob(sys.argv[1] + "/*.svg")):
    root = ET.parse(path).getroot()
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    title = root.find("{http://www.w3.org/2000/svg}title").text
    if not title.startswith("Quotes & <tags>"): print("FAIL: title", title); bad += 1
    if "-head0-" in path:
        for tok in ("a&b", "<c>", "\"d'"):
            if tok not in texts: print("FAIL:", path, "lacks", tok); bad += 1
sys.exit(1 if bad else 0)
EOF
    then ok; else bad "escaped SVGs (python3)"; fi
else
    skip "the SVGs parsed as XML by python3 (no python3; test_export checks them too)"
fi
if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$tmp/svg/"*.svg && ok || bad "xmllint"
else skip "xmllint on the SVGs (no xmllint)"; fi

# --what board --stage all: one image per stage, in lesson order (one more for the causal lesson: the mask);
# the file names the head (the lesson has two), so head 1's boards sit beside head 0's. Each of the lesson's
# questions adds two slides after its stage's board (the question, then the answer): the cat lesson has 3. The
# whole deck is every part: the projections come in 2 (Q and K, then V).
mkdir "$tmp/board" "$tmp/causal"
run board 0 --export "$tmp/board" --what board --stage all --scale 1
lines board.out $((cat_stages + 6 + 1))
for k in $(lesson_stage_keys "$src" positions rotate mask); do # each stage's board, named by its number and key
    grep -q "/the-cat-sat-$(stage_file "$src" "$k" positions rotate mask)[.-]" "$tmp/board.out" && ok ||
        bad "no board for stage $k ($(stage_file "$src" "$k" positions rotate mask)) in $(tr '\n' ' ' <"$tmp/board.out")"
done
# Numbered in the order asked (the scores question, third in the file, is the first).
has board.out "the-cat-sat-stage03-scores-question1-1-ask.png"
has board.out "the-cat-sat-stage03-scores-question1-2-answer.png"
has board.out "the-cat-sat-stage05-softmax-question2-1-ask.png"
has board.out "the-cat-sat-stage05-softmax-question3-2-answer.png"
has board.out "the-cat-sat-stage01-input.png"
has board.out "the-cat-sat-stage05-softmax-head0.png"
has board.out "the-cat-sat-stage08-output.png"
[ "$(png_size "$tmp/board/the-cat-sat-stage03-scores-head0.png")" = 1280x720 ] && ok || bad "board at scale 1 is not 1280x720"
sort -c "$tmp/board.out" 2>/dev/null && ok || bad "board files do not sort in lesson order"
run board_head1 0 --export "$tmp/board" --what board --head 1 --scale 1
lines board_head1.out 5
has board_head1.out "$tmp/board/the-cat-sat-stage05-softmax-head1.png"
[ "$(count "$tmp/board")" -eq $((cat_stages + 8)) ] && ok ||
    bad "$(count "$tmp/board") files after head 1's board, expected $((cat_stages + 8))"
cmp -s "$tmp/board/the-cat-sat-stage05-softmax-head0.png" "$tmp/board/the-cat-sat-stage05-softmax-head1.png" &&
    bad "head 0 and head 1 give the same board" || ok
# --cell ROW,COL pins that cell of the stage's result on a board, and the file name carries it: boards of
# two cells (or two heads) never overwrite each other; a cell the stage does not have is bad usage.
run cell 0 --export "$tmp/board" --what board --head 1 --cell 1,2 --scale 1
has cell.out "$tmp/board/the-cat-sat-stage05-softmax-head1-weights-row1-col2.png"
cmp -s "$tmp/board/the-cat-sat-stage05-softmax-head1.png" "$tmp/board/the-cat-sat-stage05-softmax-head1-weights-row1-col2.png" &&
    bad "--cell 1,2 gives the same board as the first cell" || ok
run cell_other 0 --export "$tmp/board" --what board --head 1 --cell 2,0 --scale 1
cmp -s "$tmp/board/the-cat-sat-stage05-softmax-head1-weights-row2-col0.png" "$tmp/board/the-cat-sat-stage05-softmax-head1-weights-row1-col2.png" &&
    bad "two cells give the same board" || ok
[ "$(count "$tmp/board")" -eq $((cat_stages + 10)) ] && ok ||
    bad "$(count "$tmp/board") files after two --cell boards, expected $((cat_stages + 10))"
run cell_missing 2 --export "$tmp/board" --what board --stage scores --cell 2,5
has cell_missing.err "has no cell 2,5"
run cell_bad 2 --export "$tmp/board" --what board --cell 1
has cell_bad.err "--cell expects ROW,COL"
run cell_negative 2 --export "$tmp/board" --what board --cell -1,2
# Read strictly (issue 27, item 12): nothing that wraps to another cell, no sign, no space, nothing more.
for c in 4294967297,0 99999999999,0 "1, +2" +1,2 1, ,1 1,2,3 "1,2 " 18446744073709551617,1; do
    run cell_strict 2 --export "$tmp/board" --what board --cell "$c"
    has cell_strict.err "--cell expects ROW,COL (numbers from 0, e.g. 1,2), got '$c'"
done
run cell_heatmaps 2 --export "$tmp/board" --cell 1,2
has cell_heatmaps.err "--what board"
run cell_alone 2 --cell 1,2
has cell_alone.err "--export"
# Heatmaps sort in lesson order too (scores, scaled, masked, weights), and beside their stage's board.
mkdir "$tmp/order"
run order 0 --export "$tmp/order" --what all --stage all "$src/lessons/causal-decoder.json"
sort -c "$tmp/order.out" 2>/dev/null && ok || bad "files do not sort in lesson order: $(tr '\n' ' ' <"$tmp/order.out")"
grep -n "heatmap-head0" "$tmp/order.out" | sed 's/.*stage0\([0-9]\)-\([a-z]*\)-.*/\1 \2/' | tr '\n' ' ' >"$tmp/order.keys"
[ "$(cat "$tmp/order.keys")" = "3 scores 4 scaled 5 masked 6 weights " ] && ok || bad "heatmap order: $(cat "$tmp/order.keys")"
# Cross-attention heatmaps say which sequence each axis is: queries from the target down, keys from the source across.
mkdir "$tmp/cross"
run cross 0 --export "$tmp/cross" --format svg "$src/lessons/cross-attention.json"
grep -q "queries: the target" "$tmp/cross/cross-attention-stage05-weights-heatmap-head0.svg" &&
    grep -q "keys: the source" "$tmp/cross/cross-attention-stage05-weights-heatmap-head0.svg" && ok ||
    bad "the cross-attention heatmap does not name its axes"
grep -q "queries" "$tmp/svg/the-cat-sat-stage03-scores-heatmap-head0.svg" && ok || bad "the self-attention heatmap does not name its axes"
run causal 0 --export "$tmp/causal" --what board --stage all --parts first --format svg "$src/lessons/causal-decoder.json"
lines causal.out $((causal_stages + 8)) # and its 4 questions' slides
has causal.out "causal-decoder-stage07-weighted-sum-question4-2-answer.svg"
has causal.out "causal-decoder-stage05-mask-head0.svg"
run causal_mask 0 --export "$tmp/causal" --stage mask "$src/lessons/causal-decoder.json"
has causal_mask.out "causal-decoder-stage05-masked-heatmap-head0.png"

# Same input, same bytes; a second run into the same directory replaces our own files (and is timed).
mkdir "$tmp/b1" "$tmp/b2"
run twice1 0 --export "$tmp/b1" --what all --stage all --format both
run twice2 0 --export "$tmp/b2" --what all --stage all --format both
t0=$(date +%s.%N)
run twice3 0 --export "$tmp/b1" --what all --stage all --format both
t1=$(date +%s.%N)
# Each in PNG and SVG: a board per part of each stage (the projections in 2), the 6 slides of the 3 questions,
# and 9 heatmaps (scores, scaled and weights, of head 0, head 1 and both).
all=$((2 * (cat_stages + 1 + 6 + 9)))
echo "full export of the cat lesson (--what all --stage all --format both, $all files): $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"
n=$(count "$tmp/b1")
[ "$n" -eq $all ] && ok || bad "$n files from --what all --stage all --format both, expected $all"
for f in "$tmp/b1"/*; do cmp -s "$f" "$tmp/b2/$(basename "$f")" || bad "$(basename "$f") differs between runs"; done
ok

# Question slides: the question with its result hidden (no number of head 1's weights), then the answer with
# the result filled up to it and its arithmetic; a lesson without questions has none; heatmaps alone have none.
q=$tmp/b1/the-cat-sat-stage05-softmax-question2
grep -q "Question 2 of 3: Which word does" "$q-1-ask.svg" && ok || bad "the question slide lacks its question"
grep -q "Question 1 of 3: Roughly what is the raw score" "$tmp/b1/the-cat-sat-stage03-scores-question1-1-ask.svg" && ok ||
    bad "the first question asked is not Question 1"
grep -q "Mark the cell of" "$q-1-ask.svg" && ok || bad "the question slide lacks how to answer"
grep -qF "0.5487" "$q-1-ask.svg" && bad "the question slide shows the answer" || ok
grep -q "Esc" "$q-1-ask.svg" && bad "a slide names a key" || ok
grep -qF "Answer: row 1 (“cat”), column 1 (“cat”): 0.5487" "$q-2-answer.svg" && ok || bad "the answer slide lacks the answer"
grep -q "exp(" "$q-2-answer.svg" && ok || bad "the answer slide lacks the arithmetic"
grep -q "Right" "$q-2-answer.svg" && bad "a slide has a verdict" || ok
[ "$(png_size "$q-1-ask.png")" = 2560x1440 ] && ok || bad "the question slide is not 2560x1440"
mkdir "$tmp/noq"
run noq 0 --export "$tmp/noq" --what board --stage all "$src/lessons/cross-attention.json"
grep -q question "$tmp/noq.out" && bad "a lesson without questions has question slides" || ok
grep -q question "$tmp/order.out" && ok || bad "--what all has no question slides"
run heat_noq 0 --export "$tmp/noq" --stage softmax
grep -q question "$tmp/heat_noq.out" && bad "heatmaps came with question slides" || ok

# Backgrounds: transparent PNGs have an alpha channel.
mkdir "$tmp/bg"
run transparent 0 --export "$tmp/bg" --background transparent --stage scaled
[ "$(png_type "$tmp/bg/the-cat-sat-stage04-scaled-heatmap-head0.png")" = 6 ] && ok || bad "transparent PNG is not RGBA"
run dark 0 --export "$tmp/bg" --background dark --what board --stage softmax

# Nobody else's file is replaced, and then nothing at all is written.
mkdir "$tmp/foreign"
printf 'my notes\n' >"$tmp/foreign/the-cat-sat-stage05-weights-heatmap-head1.png"
run foreign 1 --export "$tmp/foreign"
has foreign.err "the-cat-sat-stage05-weights-heatmap-head1.png"
has foreign.err "not an mha-tracer export"
empty foreign.out
[ "$(cat "$tmp/foreign/the-cat-sat-stage05-weights-heatmap-head1.png")" = "my notes" ] && ok || bad "a foreign file was replaced"
[ "$(count "$tmp/foreign")" -eq 1 ] && ok || bad "files were written beside a foreign file"

# A missing directory is made (one level, as mkdir); a missing parent or an unwritable directory: exit 1, the
# directory named, nothing written.
run missing 0 --export "$tmp/made"
lines missing.out 3
[ "$(count "$tmp/made")" -eq 3 ] && ok || bad "$(count "$tmp/made") files in the directory made, expected 3"
run missing_parent 1 --export "$tmp/nope/deeper"
has missing_parent.err "$tmp/nope/deeper"
empty missing_parent.out
[ -e "$tmp/nope" ] && bad "the missing parent was made" || ok
run notdir 1 --export "$tmp/escape.json"
has notdir.err "not a directory"
mkdir "$tmp/ro"
chmod 555 "$tmp/ro"
if [ "$(id -u)" -eq 0 ]; then ro=/sys; else ro="$tmp/ro"; fi # root may write in a 555 directory, not in /sys
run unwritable 1 --export "$ro"
has unwritable.err "nothing was written"
empty unwritable.out
[ "$(count "$tmp/ro")" -eq 0 ] && ok || bad "files in the unwritable directory"

# Bad usage: exit 2, what was expected on stderr, nothing on stdout.
run bad_format 2 --export "$tmp/a" --format gif
has bad_format.err "png, svg or both"
empty bad_format.out
run bad_scale 2 --export "$tmp/a" --scale 0
has bad_scale.err "--scale"
run bad_scale2 2 --export "$tmp/a" --scale 2x
run bad_what 2 --export "$tmp/a" --what slides
has bad_what.err "heatmaps, board, all, decode, tiles, cost, compare, shuffle, all-heads, cache-size, rotation, overview, handout or circuit"
run bad_rotation 2 --export "$tmp/a" --what rotation "$src/lessons/the-cat-sat.json" # no RoPE: nothing turns
has bad_rotation.err "--what rotation: the lesson has no"
run rotation 0 --export "$tmp/rot" --what rotation --head 3 "$src/lessons/llama-rope-gqa.json"
has rotation.out "llama-rope-gqa-rotation-head3-token7.png"
run bad_bg 2 --export "$tmp/a" --background pink
has bad_bg.err "white, transparent or dark"
run bad_stage 2 --export "$tmp/a" --stage nine
has bad_stage.err "--stage"
run input_heatmaps 2 --export "$tmp/a" --stage input
has input_heatmaps.err "no heatmaps"
empty input_heatmaps.out
run no_mask 2 --export "$tmp/a" --stage mask
has no_mask.err "not causal"
run bad_head 2 --export "$tmp/a" --what board --head 2
has bad_head.err "no head 2"
empty bad_head.out
run bad_head2 2 --export "$tmp/a" --head one
has bad_head2.err "--head"
run head_alone 2 --head 1
has head_alone.err "--export"
run no_export 2 --format svg
has no_export.err "--export"
run no_dir 2 --export
has no_dir.err "--export needs a value"
run two_modes 2 --export "$tmp/a" --trace
run bad_lesson 2 --export "$tmp/a" "$tmp/escape.json" "$tmp/escape.json"
printf '{"title": "x", "tokens": ["a"], "embeddings": [[1, 2]], "heads": 3, "weights": {"random": {"seed": 1}}}' >"$tmp/bad.json"
run invalid 2 --export "$tmp/a" "$tmp/bad.json"
has invalid.err "bad.json"
empty invalid.out

# The class's language: --lang, else the lesson's "language", else LANG. The board SVG says the stage's name
# and its explanation in that language; the numbers and tokens stay; --json and --trace never change.
mkdir "$tmp/lang"
for l in es fr zh; do
    run "lang_$l" 0 --lang "$l" --export "$tmp/lang/$l" --what board --stage softmax --format svg
done
has "lang/es/the-cat-sat-stage05-softmax-head0.svg" "fila a fila"
has "lang/es/the-cat-sat-stage05-softmax-head0.svg" "La softmax convierte cada fila en pesos positivos"
has "lang/fr/the-cat-sat-stage05-softmax-head0.svg" "ligne par ligne"
has "lang/fr/the-cat-sat-stage05-softmax-head0.svg" "La softmax transforme chaque ligne en poids positifs"
has "lang/zh/the-cat-sat-stage05-softmax-head0.svg" "逐行计算"
has "lang/zh/the-cat-sat-stage05-softmax-head0.svg" "表示每个查询对每个键的关注程度"
for l in es fr zh; do has "lang/$l/the-cat-sat-stage05-softmax-head0.svg" ">0.6111<"; done
LANG=fr_FR.UTF-8 run lang_env 0 --export "$tmp/lang/env" --what board --stage softmax --format svg
has "lang/env/the-cat-sat-stage05-softmax-head0.svg" "ligne par ligne"
LANG=fr_FR.UTF-8 run lang_opt 0 --lang en --export "$tmp/lang/en" --what board --stage softmax --format svg
has "lang/en/the-cat-sat-stage05-softmax-head0.svg" "row by row"
printf '{"title": "t", "language": "es", "tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]], "heads": 1,\n "weights": {"random": {"seed": 1}}}\n' >"$tmp/lang/es.json"
LANG=fr_FR.UTF-8 run lang_lesson 0 --export "$tmp/lang/lesson" --what board --stage input --format svg "$tmp/lang/es.json"
has "lang/lesson/es-stage01-input.svg" ">Entrada<"
run lang_bad 2 --lang de --export "$tmp/lang/de"
has lang_bad.err "--lang expects one of en, es, fr, zh, got 'de'"
for m in json trace; do
    LANG=C run "plain_$m" 0 "--$m" "$src/lessons/causal-decoder.json"
    LANG=zh_CN.UTF-8 run "zh_$m" 0 --lang zh "--$m" "$src/lessons/causal-decoder.json"
    if cmp -s "$tmp/plain_$m.out" "$tmp/zh_$m.out"; then ok; else bad "--$m changes with the language"; fi
done
# Issue 14: --ablate and --shuffle with --export: the slides are of the changed lesson (an SVG says so in
# its text), a board of the Positions stage exists for a lesson with positions, and a bad head is refused.
mkdir "$tmp/t"
run ablate_export 0 --export "$tmp/t" --what board --stage concat --format svg --ablate 1 "$src/lessons/the-cat-sat.json"
lines ablate_export.out 1
has ablate_export.out "$tmp/t/the-cat-sat-stage07-concat.svg"
has "t/the-cat-sat-stage07-concat.svg" "head 1 off"
run shuffle_export 0 --export "$tmp/t" --what board --stage positions --format svg --shuffle 0,4,2,3,1 \
    "$src/lessons/the-dog-bit-the-man.json"
has shuffle_export.out "$tmp/t/the-dog-bit-the-man-stage02-positions.svg"
# E's rows in the shuffled order: "man" (position 1) comes before "dog" (position 4).
first=$(grep -o ">man<\|>dog<" "$tmp/t/the-dog-bit-the-man-stage02-positions.svg" | head -1)
[ "$first" = ">man<" ] && ok || bad "the shuffled board does not list man before dog ($first)"
run ablate_export_bad 2 --export "$tmp/t" --ablate 5 "$src/lessons/the-cat-sat.json"
has ablate_export_bad.err "--ablate head 5 does not exist"

# --parts all: a stage shown in parts gives one slide per part. The cat lesson's projections at 1280x720 are
# Q and K together (Falk's scheme fits two of the three equations), then V (issue 36: the fewest parts, every
# operand on one of them); the Output stage with a head off is the output, then "Output (all heads) - Output = Δ".
# The default (first) keeps one file per stage.
mkdir "$tmp/p"
run parts_default 0 --export "$tmp/p" --what board --stage projections --format svg "$src/lessons/the-cat-sat.json"
lines parts_default.out 1
has parts_default.out "$tmp/p/the-cat-sat-stage02-projections-head0.svg"
run parts_all 0 --export "$tmp/p" --what board --stage projections --format svg --parts all "$src/lessons/the-cat-sat.json"
lines parts_all.out 2
for k in 1 2; do has parts_all.out "$tmp/p/the-cat-sat-stage02-projections-head0-part$k.svg"; done
# Each part shows its equations' results and operands, and says which part it is in the SVG's title.
for kv in "1 Q" "1 K" "2 V"; do
    set -- $kv
    has "p/the-cat-sat-stage02-projections-head0-part$1.svg" "part $1 of 2"
    has "p/the-cat-sat-stage02-projections-head0-part$1.svg" ">${2}₀  (3×2)<"
    has "p/the-cat-sat-stage02-projections-head0-part$1.svg" ">X  (3×4)<"
done
run parts_output 0 --export "$tmp/p" --what board --stage output --format svg --parts all --ablate 1 \
    "$src/lessons/the-cat-sat.json"
lines parts_output.out 2
has "p/the-cat-sat-stage08-output-part2.svg" "Output (all heads)"
has "p/the-cat-sat-stage08-output-part2.svg" ">Δ  (3×4)<"
run parts_deck 0 --export "$tmp/p" --what board --stage all --format png --parts all "$src/lessons/the-cat-sat.json"
run parts_deck_first 0 --export "$tmp/p" --what board --stage all --format png --parts first "$src/lessons/the-cat-sat.json"
run parts_deck_default 0 --export "$tmp/p" --what board --stage all --format png "$src/lessons/the-cat-sat.json"
cmp -s "$tmp/parts_deck.out" "$tmp/parts_deck_default.out" && ok ||
    bad "the whole deck (--stage all) is not every part: $(wc -l <"$tmp/parts_deck_default.out") files"
# Each stage shown in K parts gives K files for its one (the projections 3: Q, K, V; a later stage may have parts).
n_all=$(wc -l <"$tmp/parts_deck.out"); n_first=$(wc -l <"$tmp/parts_deck_first.out")
n_parts=$(grep -c -- '-part[0-9]*\.png$' "$tmp/parts_deck.out"); n_split=$(grep -c -- '-part1\.png$' "$tmp/parts_deck.out")
[ "$n_all" -eq $((n_first + n_parts - n_split)) ] && ok ||
    bad "--parts all deck: $n_all files, expected $n_first + $n_parts parts - $n_split stages in parts"
grep -q -- "-stage02-projections-head0-part2\.png$" "$tmp/parts_deck.out" &&
    ! grep -q -- "-stage02-projections-head0-part3\.png$" "$tmp/parts_deck.out" && ok ||
    bad "--parts all deck: the projections are not in 2 parts"
# Issue 38: the mask stage's one slide (--parts first) shows the mask M with its band, not S′₀ alone (the scaled
# stage's result again): the 8-token window lesson comes in 3 parts (S′₀, M, S′₀ + M), its slide is the second; the
# 5-token causal lesson shows S′₀ + M on its first part, and that stays its slide.
run mask_slide 0 --export "$tmp/p" --what board --stage mask --format svg "$src/lessons/mistral-sliding-window.json"
lines mask_slide.out 1
has "p/mistral-sliding-window-stage06-mask-head0.svg" ">M  (8×8)<"
if grep -qF ">S′₀  (8×8)<" "$tmp/p/mistral-sliding-window-stage06-mask-head0.svg"; then
    bad "the mask slide shows S′₀ alone"
else ok; fi
run mask_parts 0 --export "$tmp/p" --what board --stage mask --format svg --parts all "$src/lessons/mistral-sliding-window.json"
lines mask_parts.out 3
has "p/mistral-sliding-window-stage06-mask-head0-part1.svg" ">S′₀  (8×8)<"
run mask_small 0 --export "$tmp/p" --what board --stage mask --format svg "$src/lessons/causal-decoder.json"
has "p/causal-decoder-stage05-mask-head0.svg" ">M  (5×5)<"
has "p/causal-decoder-stage05-mask-head0.svg" ">S′₀  (5×5)<"
run parts_bad 2 --export "$tmp/p" --what board --parts some "$src/lessons/the-cat-sat.json"
has parts_bad.err "--parts expects first or all, got 'some'"
run parts_heatmaps 2 --export "$tmp/p" --parts all "$src/lessons/the-cat-sat.json"
has parts_heatmaps.err "add --what board"

# The window with no display: exit 1 at once with a sentence pointing to --export and --trace, never an
# invisible window (SDL falls back on its offscreen driver). A hang would be killed by timeout (124).
nodisplay() { # nodisplay NAME ENV...
    name=$1; shift
    env -u XDG_RUNTIME_DIR -u SDL_VIDEODRIVER "$@" timeout 30 "$bin" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    got=$?
    if [ "$got" -eq 1 ]; then ok; else bad "$name: exit $got, expected 1 ($(head -c 300 "$tmp/$name.err"))"; fi
    has "$name.err" "no display to open the window on"
    has "$name.err" "use --export DIR"
    has "$name.err" "--trace"
    empty "$name.out"
}
if command -v timeout >/dev/null 2>&1; then
    nodisplay nodisplay_unset -u DISPLAY
    nodisplay nodisplay_nowhere DISPLAY=:99
else
    skip "the window with no display (no timeout)"
fi

# Issue 25, items 7, 8 and 12: a heatmap carries the lesson's title and every head's image its heading, the axes'
# caption and its numbers; a slide in French is in French (its <title> too, and the ablation board's "Output
# (toutes les têtes)"); a board named for a cell shows the cell's matrix on the board, not only beside it, and
# the boards of no head (concat, output) are named for none.
mkdir "$tmp/i25"
run i25_heat 0 --export "$tmp/i25" --format svg --scale 1 "$src/lessons/the-cat-sat.json"
has "i25/the-cat-sat-stage05-weights-heatmap-head0.svg" ">The cat sat<"
has "i25/the-cat-sat-stage05-weights-heatmap-heads.svg" ">The cat sat<"
has "i25/the-cat-sat-stage05-weights-heatmap-heads.svg" ">All 2 heads · attention weights A<"
has "i25/the-cat-sat-stage05-weights-heatmap-heads.svg" "queries"
has "i25/the-cat-sat-stage05-weights-heatmap-heads.svg" ">0.6111<"
run i25_fr 0 --lang fr --export "$tmp/i25/fr" --what board --stage output --ablate 1 --parts all --format svg "$src/lessons/the-cat-sat.json"
has "i25/fr/the-cat-sat-stage08-output-part2.svg" "<title>The cat sat — étape 8 sur $cat_stages : Projection de sortie Wᴼ, partie 2 sur 2</title>"
has "i25/fr/the-cat-sat-stage08-output-part2.svg" "Output (toutes les têtes)"
if grep -q "all heads\|stage 8 of" "$tmp/i25/fr/the-cat-sat-stage08-output-part2.svg"; then bad "English on a French slide"; else ok; fi
run i25_cell 0 --export "$tmp/i25/c" --what board --stage softmax --head 1 --cell 4,2 --format svg \
    "$src/lessons/mao-zuo-zai-dianzi-shang.json"
has i25_cell.out "mao-zuo-zai-dianzi-shang-stage05-softmax-head1-weights-row4-col2.svg"
has "i25/c/mao-zuo-zai-dianzi-shang-stage05-softmax-head1-weights-row4-col2.svg" ">A₁  (6×6)<"
run i25_nohead 0 --export "$tmp/i25/n" --what board --stage all --head 1 --format svg "$src/lessons/the-cat-sat.json"
has i25_nohead.out "the-cat-sat-stage07-concat.svg"
has i25_nohead.out "the-cat-sat-stage08-output.svg"
has i25_nohead.out "the-cat-sat-stage05-softmax-head1.svg"

check_done test_export_cli
