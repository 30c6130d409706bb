#!/bin/sh
# Runs the real window under Xvfb: steps through the stages with xdotool, takes screenshots with ImageMagick,
# and checks that the window is not blank, that each key changes the stage, that K and M show the cost panel
# and the comparison, that Ctrl+S saves a loadable NAME-edited.json, that a broken save of the watched
# lesson shows the error banner (the last good lesson stays) and that a fixed save reloads, and that Esc quits.
# usage: test_gui_xvfb.sh MHA_TRACER SOURCE_DIR [SHOT_DIR]      Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
SHOTS=${3:-${TMPDIR:-/tmp}/mha-gui-shots}
if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "SKIP: xvfb-run not installed"
    exit 77
fi
for tool in xdotool import convert; do
    command -v $tool >/dev/null 2>&1 || { echo "FAIL: $tool not installed (needed with xvfb-run)"; exit 1; }
done
mkdir -p "$SHOTS"
# Under AddressSanitizer, X11/dbus/GL drivers leak at exit; our own leaks are caught by test_scene and test_app.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC SHOTS
xvfb-run -a -s "-screen 0 1280x720x24" sh -c '
fail() { echo "FAIL: $*"; kill $PID 2>/dev/null; exit 1; }
WORK=$(mktemp -d)
cp "$SRC/lessons/the-cat-sat.json" "$WORK/lesson.json"
MHA_TRACER_STATS=1 "$BIN" "$WORK/lesson.json" 2>"$WORK/log" &
PID=$!
WID=
for i in $(seq 100); do
    WID=$(xdotool search --name "mha-tracer" 2>/dev/null | head -1)
    [ -n "$WID" ] && break
    sleep 0.1
done
[ -n "$WID" ] || fail "no window appeared"
sleep 1
shot() { # name: screenshot of the window; prints its number of distinct colours
    import -window "$WID" "$SHOTS/$1.png" || fail "import failed"
    convert "$SHOTS/$1.png" -format "%k" info:
}
key() { xdotool key --window "$WID" "$1"; sleep 0.4; }
last_stage() { grep -o "stage=[a-z-]*" "$WORK/log" | tail -1 | cut -d= -f2; }

colours=$(shot 01-input)
echo "input: $colours colours, stage $(last_stage)"
[ "$colours" -gt 20 ] || fail "the window looks blank ($colours colours)"
[ "$(last_stage)" = input ] || fail "first stage is $(last_stage), not input"
prev=$(md5sum < "$SHOTS/01-input.png")
n=2
for want in projections scores scaled softmax weighted-sum concat output; do
    key Right
    name=$(printf "%02d-%s" $n $want)
    colours=$(shot $name)
    got=$(last_stage)
    echo "$want: $colours colours, stage $got"
    [ "$got" = "$want" ] || fail "after Right expected stage $want, got $got"
    [ "$colours" -gt 20 ] || fail "stage $want looks blank"
    sum=$(md5sum < "$SHOTS/$name.png")
    [ "$sum" != "$prev" ] || fail "the picture did not change for stage $want"
    prev=$sum
    n=$((n + 1))
done
key Home; [ "$(last_stage)" = input ] || fail "Home did not go to the input stage"
key Next; [ "$(last_stage)" = projections ] || fail "PageDown did not advance"
key Prior; [ "$(last_stage)" = input ] || fail "PageUp did not go back"
key End; key a; shot 10-all-heads >/dev/null
grep -q "view=all" "$WORK/log" || fail "A did not show all heads"
key a; key 2; shot 11-head-2 >/dev/null
key h; shot 12-help >/dev/null
key Escape
# K: the cost panel; M: the single head beside the heads; E and Shift+E write slides into exports/ beside the
# lesson; Ctrl+S saves NAME-edited.json beside the lesson.
before=$(md5sum < "$SHOTS/11-head-2.png")
key k; shot 12a-cost >/dev/null
[ "$(md5sum < "$SHOTS/12a-cost.png")" != "$before" ] || fail "K did not show the cost panel"
key Escape; key m; shot 12b-compare >/dev/null
[ "$(md5sum < "$SHOTS/12b-compare.png")" != "$before" ] || fail "M did not show the comparison"
key m
# E: the heatmap on screen (head 1 of the output stage: its weights); Shift+E: the board of the stage. The note
# in the header goes away by itself (a timer, with no event arriving).
shot 12d-before-export >/dev/null
key e
for i in $(seq 50); do [ -f "$WORK/exports/lesson-head1-weights.svg" ] && break; sleep 0.1; done
shot 12e-exported >/dev/null
for f in lesson-head1-weights.png lesson-head1-weights.svg; do
    [ -f "$WORK/exports/$f" ] || fail "E did not write exports/$f (found: $(ls "$WORK/exports" 2>&1))"
done
[ "$(md5sum < "$SHOTS/12e-exported.png")" != "$(md5sum < "$SHOTS/12d-before-export.png")" ] ||
    fail "E showed no note on screen"
key shift+e
for i in $(seq 50); do [ -f "$WORK/exports/lesson-stage08-output.svg" ] && break; sleep 0.1; done
for f in lesson-stage08-output.png lesson-stage08-output.svg; do
    [ -f "$WORK/exports/$f" ] || fail "Shift+E did not write exports/$f (found: $(ls "$WORK/exports" 2>&1))"
done
size=$(identify -format "%wx%h" "$WORK/exports/lesson-stage08-output.png") || fail "the board PNG is not valid"
[ "$size" = 2560x1440 ] || fail "the board PNG is $size, not 2560x1440"
identify "$WORK/exports/lesson-head1-weights.png" >/dev/null || fail "the heatmap PNG is not valid"
grep -q "<svg" "$WORK/exports/lesson-stage08-output.svg" || fail "the board SVG is not SVG"
echo "E, Shift+E: $(ls "$WORK/exports" | tr "\n" " ")"
sleep 4.5
shot 12f-note-gone >/dev/null
[ "$(md5sum < "$SHOTS/12f-note-gone.png")" = "$(md5sum < "$SHOTS/12d-before-export.png")" ] ||
    fail "the export note did not go away by itself"
key ctrl+s
[ -f "$WORK/lesson-edited.json" ] || fail "Ctrl+S did not write lesson-edited.json beside the lesson"
"$BIN" --check "$WORK/lesson-edited.json" >/dev/null || fail "the saved lesson does not load"
grep -q "(edited)" "$WORK/lesson-edited.json" || fail "the saved title is not marked (edited)"
shot 12c-saved >/dev/null

# A broken save shows the error banner and keeps the lesson; a good save reloads it.
printf "{\"title\": \"Broken\", \"tokens\": [\"a\"],\n  \"heads\": oops}\n" > "$WORK/lesson.json"
sleep 1.5
shot 13-banner >/dev/null
kill -0 $PID 2>/dev/null || fail "the program died on a broken lesson"
red=$(convert "$SHOTS/13-banner.png" -crop 1280x6+0+0 +repage -format "%[fx:int(255*mean.r)] %[fx:int(255*mean.g)]" info:)
echo "banner top colour (r g): $red"
r=${red% *}; g=${red#* }
[ "$r" -gt 150 ] && [ "$g" -lt 80 ] || fail "no red error banner after a broken save ($red)"
sed "s/The cat sat/The cat sat again/" "$SRC/lessons/the-cat-sat.json" > "$WORK/lesson.json"
sleep 1.5
xdotool search --name "The cat sat again" >/dev/null || fail "the fixed lesson was not reloaded"
shot 14-reloaded >/dev/null

key Escape
for i in $(seq 30); do kill -0 $PID 2>/dev/null || break; sleep 0.1; done
kill -0 $PID 2>/dev/null && fail "Esc did not quit"
wait $PID; rc=$?
[ $rc -eq 0 ] || fail "exit status $rc"
rm -rf "$WORK"
echo "OK: screenshots in $SHOTS"
'
