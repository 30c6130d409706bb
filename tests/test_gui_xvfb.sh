#!/bin/sh
# Runs the real window under Xvfb: steps through the stages with xdotool, takes screenshots with ImageMagick,
# and checks that the window is not blank, that each key changes the stage, that K and M show the cost panel
# (and O, [, ], X: a head off, the softmax scale, the shuffle test)
# and the comparison, that Ctrl+S saves a loadable NAME-edited.json, that a broken save of the watched
# lesson shows the error banner (the last good lesson stays) and that a fixed save reloads, and that Q quits.
# Every wait is for the program: the frame it reports drawing (MHA_TRACER_FRAME_FILE, see gui_frames.sh),
# a window title or its exit; none is for the clock, so the test passes on a busy machine.
# usage: test_gui_xvfb.sh MHA_TRACER SOURCE_DIR [SHOT_DIR]      Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
SHOTS=${3:-${TMPDIR:-/tmp}/mha-gui-shots}
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
for tool in xdotool import convert; do
    require_tool $tool "$tool (xdotool, xclip; import: imagemagick)"
done
mkdir -p "$SHOTS"
# Under AddressSanitizer, X11/dbus/GL drivers leak at exit; our own leaks are caught by test_scene and test_app.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC SHOTS
xvfb-run -a -s "-screen 0 1600x900x24" sh -c '
. "$SRC/tests/gui_frames.sh"
. "$SRC/tests/stage_table.sh"
# The lesson is the cat lesson: every stage of the table but positions, rotate and the mask.
LAST=$(last_stage_key "$SRC" positions rotate mask)
BOARD=lesson-$(stage_file "$SRC" "$LAST" positions rotate mask)
fail() { echo "FAIL: $*"; kill $PID 2>/dev/null; exit 1; }
WORK=$(mktemp -d)
FRAMES=$WORK/frames
# The walk below checks every key on every stage: its lesson has no questions (they would be asked on the way;
# the questions have their run at the end). The cat lesson ends with its "questions" (line 3 on): cut there.
head -n 2 "$SRC/lessons/the-cat-sat.json" | sed "2s/,\$/}/" > "$WORK/lesson.json"
"$BIN" --questions "$WORK/lesson.json" | grep -q "no questions" || fail "the lesson without questions: $("$BIN" --check "$WORK/lesson.json" 2>&1)"
# The pointer waits outside the (centred, 1280x720) window, so no hover changes a picture.
xdotool mousemove 1599 899
MHA_TRACER_STATS=1 MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" "$WORK/lesson.json" 2>"$WORK/log" &
PID=$!
wait_frame 0 "stage=input " || fail "no first frame (or not the input stage)"
WID=
find_window() { WID=$(xdotool search --onlyvisible --name "mha-tracer" 2>/dev/null | head -1); [ -n "$WID" ]; }
wait_until find_window || fail "no window appeared"
shot() { # name: screenshot of the window; prints its number of distinct colours
    import -window "$WID" "$SHOTS/$1.png" || fail "import failed"
    convert "$SHOTS/$1.png" -format "%k" info:
}
# key KEYS REGEX: sends the keys and waits for the frame they cause, which must match REGEX.
key() {
    before=$(frame_count)
    xdotool key --window "$WID" "$1"
    wait_frame "$before" "$2" || fail "after key $1: no frame matching \"$2\""
}
last_stage() { frame_field stage; }

colours=$(shot 01-input)
echo "input: $colours colours, stage $(last_stage), frame $(frame_count)"
[ "$colours" -gt 20 ] || fail "the window looks blank ($colours colours)"
prev=$(md5sum < "$SHOTS/01-input.png")
# Right steps through the sub-steps of a stage (each one a frame), then on to the next stage.
n=2
for want in $(lesson_stage_keys "$SRC" input positions rotate mask); do
    from=$(last_stage)
    presses=0
    while [ "$(last_stage)" = "$from" ]; do
        presses=$((presses + 1))
        [ $presses -le 40 ] || fail "40 presses of Right did not leave stage $from"
        key Right "."
    done
    got=$(last_stage)
    [ "$got" = "$want" ] || fail "after $from, Right went to stage $got, not $want"
    name=$(printf "%02d-%s" $n $want)
    colours=$(shot $name)
    echo "$want: $colours colours after $presses x Right, sub-step 1 of $(frame_field substeps), frame $(frame_count)"
    [ "$colours" -gt 20 ] || fail "stage $want looks blank"
    sum=$(md5sum < "$SHOTS/$name.png")
    [ "$sum" != "$prev" ] || fail "the picture did not change for stage $want"
    prev=$sum
    n=$((n + 1))
done
key Home "stage=input "
key Next "stage=projections "
key Prior "stage=input "
key End "stage=$LAST "
key a "view=all "; shot 10-all-heads >/dev/null
key a "view=one "; key 2 "head=1 .*view=one "; shot 11-head-2 >/dev/null
key h "help=1 "; shot 12-help >/dev/null
key Escape "help=0 "
# K: the cost panel; M: the single head beside the heads; E and Shift+E write slides into exports/ beside the
# lesson; Ctrl+S saves NAME-edited.json beside the lesson.
before=$(md5sum < "$SHOTS/11-head-2.png")
key k "panel=cost "; shot 12a-cost >/dev/null
[ "$(md5sum < "$SHOTS/12a-cost.png")" != "$before" ] || fail "K did not show the cost panel"
key Escape "panel=none "; key m "panel=compare "; shot 12b-compare >/dev/null
[ "$(md5sum < "$SHOTS/12b-compare.png")" != "$before" ] || fail "M did not show the comparison"
key m "panel=none "
# E: the heatmap on screen (head 1 of the last stage: the weights); Shift+E: the board of the stage. The
# files are written before the frame with the note is drawn. The note in the header goes away by itself (a
# timer, with no event arriving): the frame without it is waited for.
shot 12d-before-export >/dev/null
key e "note=1$"
shot 12e-exported >/dev/null
for f in lesson-stage05-weights-heatmap-head1.png lesson-stage05-weights-heatmap-head1.svg; do
    [ -f "$WORK/exports/$f" ] || fail "E did not write exports/$f (found: $(ls "$WORK/exports" 2>&1))"
done
[ "$(md5sum < "$SHOTS/12e-exported.png")" != "$(md5sum < "$SHOTS/12d-before-export.png")" ] ||
    fail "E showed no note on screen"
key shift+e "note=1$"
shot 12e1-board-note >/dev/null
for f in $BOARD.png $BOARD.svg; do
    [ -f "$WORK/exports/$f" ] || fail "Shift+E did not write exports/$f (found: $(ls "$WORK/exports" 2>&1))"
done
size=$(identify -format "%wx%h" "$WORK/exports/$BOARD.png") || fail "the board PNG is not valid"
[ "$size" = 2560x1440 ] || fail "the board PNG is $size, not 2560x1440"
identify "$WORK/exports/lesson-stage05-weights-heatmap-head1.png" >/dev/null || fail "the heatmap PNG is not valid"
grep -q "<svg" "$WORK/exports/$BOARD.svg" || fail "the board SVG is not SVG"
# Shift+E writes the handout of the head on screen beside the board (a build with the PDF writer: cairo), in the
# same write; Ctrl+E the handout alone (written again once removed, and no slide with it).
HANDOUT=lesson-handout-head1.pdf
if ldd "$BIN" 2>/dev/null | grep -q libcairo; then
    [ "$(head -c 5 "$WORK/exports/$HANDOUT" 2>/dev/null)" = "%PDF-" ] ||
        fail "Shift+E did not write the handout exports/$HANDOUT (found: $(ls "$WORK/exports" 2>&1))"
    if command -v pdfinfo >/dev/null 2>&1; then
        pages=$(pdfinfo "$WORK/exports/$HANDOUT" | sed -n "s/^Pages: *//p")
        rm -rf "$WORK/cli-handout"
        "$BIN" --export "$WORK/cli-handout" --what handout --head 1 "$WORK/lesson.json" >/dev/null
        cli_pages=$(pdfinfo "$WORK/cli-handout/$HANDOUT" | sed -n "s/^Pages: *//p")
        [ -n "$pages" ] && [ "$pages" = "$cli_pages" ] ||
            fail "the handout of Shift+E has $pages pages, --what handout --head 1 $cli_pages"
    fi
fi
echo "E, Shift+E: $(ls "$WORK/exports" | tr "\n" " ")"
wait_frame "$(frame_count)" "note=0$" || fail "the export note did not go away by itself"
if ldd "$BIN" 2>/dev/null | grep -q libcairo; then
    rm -f "$WORK/exports/$HANDOUT"
    n_before=$(ls "$WORK/exports" | wc -l)
    key ctrl+e "note=1$"
    [ "$(head -c 5 "$WORK/exports/$HANDOUT" 2>/dev/null)" = "%PDF-" ] || fail "Ctrl+E did not write exports/$HANDOUT"
    [ "$(ls "$WORK/exports" | wc -l)" = $((n_before + 1)) ] || fail "Ctrl+E wrote more than the handout: $(ls "$WORK/exports" | tr "\n" " ")"
    shot 12e2-handout-note >/dev/null
    wait_frame "$(frame_count)" "note=0$" || fail "the note of the handout did not go away by itself"
fi
shot 12f-note-gone >/dev/null
[ "$(md5sum < "$SHOTS/12f-note-gone.png")" = "$(md5sum < "$SHOTS/12d-before-export.png")" ] ||
    fail "the picture without the export note is not the one before the export"
# A press on the strip of stages in the header goes to that stage (touch screens have no PageDown): the softmax
# segment (the 5th stage of the cat lesson), then back to the projections at their first part, from where the
# frame log puts the strip.
[ "$(last_stage)" = input ] || key Home "stage=input "
strip=$(frame_field strip)
sx=${strip%%,*}; rest=${strip#*,}; sy=${rest%%,*}; rest=${rest#*,}; seg=${rest%%,*}; gap=${rest#*,}
before=$(frame_count)
xdotool mousemove --window "$WID" $((sx + 4 * (seg + gap) + seg / 2)) "$sy" click 1
wait_frame "$before" "stage=softmax " || fail "a press on the softmax segment of the strip ($strip) did not go there"
before=$(frame_count)
xdotool mousemove --window "$WID" $((sx + seg + gap + seg / 2)) "$sy" click 1
wait_frame "$before" "stage=projections substep=0 " || fail "a press on the projections segment did not go back there"
echo "strip ($strip): pressed softmax, then projections"
xdotool mousemove --window "$WID" 5 700
# Ctrl+S with nothing edited writes nothing (it says so); after an edit it saves.
key ctrl+s "edits=0 banner=0 "
[ ! -e "$WORK/lesson-edited.json" ] || fail "Ctrl+S wrote lesson-edited.json with no value edited"
key Home "stage=input "
before=$(frame_count)
xdotool mousemove --window "$WID" 645 393 click 1 # X[cat][1] (the window is 1280x720)
wait_frame "$before" "stage=input " || fail "no frame after the click on X[cat][1]"
key Up "edits=1 "
key ctrl+s "edits=1 banner=0 "
[ -f "$WORK/lesson-edited.json" ] || fail "Ctrl+S did not write lesson-edited.json beside the lesson"
grep -qF "1.1" "$WORK/lesson-edited.json" || fail "the saved lesson lacks the edited value 1.1"
"$BIN" --check "$WORK/lesson-edited.json" >/dev/null || fail "the saved lesson does not load"
grep -q "(edited)" "$WORK/lesson-edited.json" || fail "the saved title is not marked (edited)"
shot 12c-saved >/dev/null

# A broken save shows the error banner and keeps the lesson; a good save reloads it. The file watch polls
# the file; the frame it causes is waited for.
before=$(frame_count)
printf "{\"title\": \"Broken\", \"tokens\": [\"a\"],\n  \"heads\": oops}\n" > "$WORK/lesson.json"
wait_frame "$before" "banner=1 " || fail "no frame with the error banner after a broken save"
shot 13-banner >/dev/null
red=$(convert "$SHOTS/13-banner.png" -crop 1280x6+0+0 +repage -format "%[fx:int(255*mean.r)] %[fx:int(255*mean.g)]" info:)
echo "banner top colour (r g): $red"
r=${red% *}; g=${red#* }
[ "$r" -gt 150 ] && [ "$g" -lt 80 ] || fail "no red error banner after a broken save ($red)"
before=$(frame_count)
sed "s/The cat sat/The cat sat again/" "$SRC/lessons/the-cat-sat.json" > "$WORK/lesson.json"
wait_frame "$before" "banner=0 " || fail "no frame without the banner after the lesson was fixed"
wait_until xdotool search --name "The cat sat again" || fail "the fixed lesson was not reloaded"
shot 14-reloaded >/dev/null

# Issue 14: O switches the current head off and on, [ and ] move the softmax scale to its stop at 1 and back to
# 1/sqrt(d_k), X shows the shuffle test; the frame log says what the session holds.
key o "ablated=[1-9a-f][0-9a-f]* "; shot 15-head-off >/dev/null
key o "ablated=0 "
key bracketright "scale=0.840896 "
key bracketright "scale=1 "
key bracketleft "scale=0.840896 "
key bracketleft "scale=0.707107 "
key x "panel=shuffle "; shot 16-shuffle >/dev/null
key x "panel=none "

# Questions: the reloaded lesson has them. The scores stage asks its question with the result hidden; key 3
# answers it, and the reveal fills the scores up to the answer, then P asks an automatic question on the softmax.
[ "$(last_stage)" = input ] || key Home "stage=input "
while [ "$(last_stage)" != scores ]; do key Right "."; done
[ "$(frame_field quiz)" = asking ] && [ "$(frame_field reveal)" = 0 ] || fail "the scores stage did not ask: $(frame_last)"
shot 18-question >/dev/null
key 3 "quiz=revealed "
[ "$(frame_field reveal)" = 6 ] || fail "the reveal did not run to the answer: $(frame_last)"
shot 19-question-revealed >/dev/null
[ "$(md5sum < "$SHOTS/18-question.png")" != "$(md5sum < "$SHOTS/19-question-revealed.png")" ] || fail "no reveal on screen"
# Shift+E: the board as on screen, the question and its answer with it (no verdict and no keys on a slide).
key shift+e "note=1$"
# (the pinned answer cell names the file: lesson-stage03-scores-head0-scores-row1-col2)
qsvg=$(ls "$WORK"/exports/lesson-stage03-scores-head0*.svg 2>/dev/null | head -1)
[ -n "$qsvg" ] || fail "Shift+E wrote no board of the scores (found: $(ls "$WORK/exports"))"
grep -qF "Answer: key 3: 1.3" "$qsvg" || fail "the board slide lacks the answer"
grep -q "Not quite\|Right\|Esc" "$qsvg" && fail "the board slide has a verdict or a key"
key p "stage=softmax .*quiz=asking "
shot 20-automatic-question >/dev/null
key Escape "quiz=none "
echo "questions: asked, answered, revealed; P asked on head $(frame_field head)"

# Esc never quits (it says how: Q); Q quits (nothing edited since the reload, so it does not ask).
key Escape "note=1$"
xdotool key --window "$WID" q
wait_until exited || fail "Q did not quit"
wait $PID; rc=$?
[ $rc -eq 0 ] || fail "exit status $rc"
echo "frames drawn: $(frame_count)"
rm -rf "$WORK"
echo "OK: screenshots in $SHOTS"
'
