#!/bin/sh
# The event storm (issue 6): the real window under Xvfb takes 10,000 seeded random events through its own
# event path (the test program mha-tracer-storm: the window's code driven by tests/gui_storm.c): keys with
# modifiers, pointer moves, clicks, the wheel, sizes from 1x1 to 8000x5000, drops of good and bad files, and
# its lesson rewritten valid -> broken -> valid -> broken.
# Then it must still be alive and consistent: the summary line counts every event and every rewrite, the title
# shows the last good lesson, Home and End still change the stage, Q exits with status 0, and no sanitizer
# complained. Everything it writes (Ctrl+S, E) lands in a temporary directory, never in the source tree.
# Every wait is for the program (its summary line, the frames it reports drawing through
# MHA_TRACER_FRAME_FILE, its title, its exit), never for the clock.
# It also checks that the storm does not ship: mha-tracer holds none of its code.
# usage: test_gui_storm.sh MHA_TRACER_STORM SOURCE_DIR [MHA_TRACER [COUNT [SEED]]]
# Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
TRACER=$3
COUNT=${4:-10000}
SEED=${5:-20240611}
if [ -n "$TRACER" ]; then
    if nm "$TRACER" 2>/dev/null | grep -q "storm_\|driver_step" || grep -q "storm: events=" "$TRACER"; then
        echo "FAIL: $TRACER contains the event storm"
        exit 1
    fi
    echo "mha-tracer holds no storm code (nm, grep)"
fi
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
require_tool xdotool xdotool
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The lesson the storm rewrites, with a title of its own; good drops are other lessons; bad drops are broken
# JSON, an empty file, random bytes, a directory, a missing file and a lesson that fails validation.
sed 's/"title": "[^"]*"/"title": "Storm target"/' "$SRC/lessons/the-cat-sat.json" > "$WORK/target.json"
cp "$SRC/lessons/causal-decoder.json" "$WORK/good-causal.json"
cp "$SRC/lessons/cross-attention.json" "$WORK/good-cross.json"
cp "$SRC/lessons/the-cat-sat-on-the-mat.json" "$WORK/good-mat.json"
printf '{"title": "Broken", "tokens": ["a"],\n  "heads": oops}\n' > "$WORK/bad-json.json"
printf '{"title": "No heads", "tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]], "heads": 0, "weights": {"random": {"seed": 1}}}\n' > "$WORK/bad-heads.json"
: > "$WORK/bad-empty.json"
head -c 4096 /dev/urandom > "$WORK/bad-bytes.json"
mkdir "$WORK/bad-dir.json"
# What the storm could write (a saved lesson, a slide, a handout) is a file in the folder it was started from or
# beside a lesson: the source tree's top-level files and its lessons/ are compared. Its top-level folders are
# not: CI builds the Windows zip and the page (build-windows/, build-web/, dist/) beside this test.
tree_files() { find "$SRC" "$SRC/lessons" -maxdepth 1 ! -type d | LC_ALL=C sort | md5sum; }
before=$(tree_files)
# Under AddressSanitizer, X11/dbus/GL drivers leak at exit; our own leaks are caught by the unit tests.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC WORK COUNT SEED
cd "$WORK" || exit 1
xvfb-run -a -s "-screen 0 1280x720x24" sh -c '
. "$SRC/tests/gui_frames.sh"
. "$SRC/tests/stage_table.sh"
LAST=$(last_stage_key "$SRC" positions rotate mask) # where End goes in the cat lesson: the table'"'"'s last stage it has
FRAMES=$WORK/frames
fail() { echo "FAIL: $*"; grep -v "^frame" "$WORK/log" | tail -20; kill $PID 2>/dev/null; exit 1; }
W=$WORK
MHA_TRACER_STATS=1 MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" "$COUNT:$SEED" "$W/target.json" \
    "$W/good-causal.json" "$W/good-cross.json" "$W/good-mat.json" "$W/bad-json.json" "$W/bad-heads.json" \
    "$W/bad-empty.json" "$W/bad-bytes.json" "$W/bad-dir.json" "$W/missing.json" 2>"$WORK/log" &
PID=$!
# The storm runs inside the program at its own pace; its summary line is the signal that it ended (the
# deadline is for a hung program only).
storm_over() { grep -q "^storm:" "$WORK/log" || exited; }
GUI_DEADLINE=600 wait_until storm_over || fail "no storm summary after 600 s"
summary=$(grep "^storm:" "$WORK/log")
[ -n "$summary" ] || fail "the program died during the storm"
echo "$summary"
grep "^first_frame_ms=" "$WORK/log"
echo "$summary" | grep -q "events=$COUNT " || fail "not all $COUNT events were sent"
echo "$summary" | grep -q "rewrites=3 rewrites_seen=3 " || fail "the file watch missed a rewrite of the lesson"
echo "$summary" | grep -q "title=\"Storm target\"" || fail "the last good lesson is not the one shown"
for k in keys motion buttons wheel resizes drops-ok drops-bad; do
    n=$(echo "$summary" | sed -n "s/.* $k=\([0-9]*\).*/\1/p")
    [ "${n:-0}" -gt 0 ] || fail "no $k in the storm"
done
# After the summary the window is set back to 1280x720 and redrawn: that frame is the first after the storm.
storm_frames=$(echo "$summary" | sed -n "s/.* frames=\([0-9]*\).*/\1/p")
wait_frame "${storm_frames:-0}" || fail "no frame after the storm"
WID=
find_window() { WID=$(xdotool search --name "Storm target" 2>/dev/null | head -1); [ -n "$WID" ]; }
wait_until find_window || fail "the window title does not show the last good lesson"
# key KEYS REGEX: sends the keys and waits for the frame they cause, which must match REGEX.
key() {
    before=$(frame_count)
    xdotool key --window "$WID" "$1"
    wait_frame "$before" "$2" || fail "$1 after the storm: stage $(frame_field stage)"
}
# The storm may have left the help or the decode/tiles panel open, where Home turns to the first page, token or
# tile (where the class is in that panel) and not to the first stage: Esc closes one of them per press.
for _ in 1 2 3; do
    [ "$(frame_field help)" = 1 ] || [ "$(frame_field panel)" = decode ] || [ "$(frame_field panel)" = tiles ] || break
    key Escape .
done
# (Home first, unless the storm left the input stage shown: then a Home would change nothing and draw no frame.)
if [ "$(frame_field stage)" = input ]; then
    key End "stage=$LAST "
    key Home "stage=input "
else
    key Home "stage=input "
    key End "stage=$LAST "
fi
# Q quits; with the edits of the storm unsaved it asks first, and Q again quits without saving.
before=$(frame_count)
xdotool key --window "$WID" q
asked_or_gone() { exited || frame_last | grep -q " ask=1 "; }
wait_until asked_or_gone || fail "Q neither quit nor asked"
exited || xdotool key --window "$WID" q 2>/dev/null
wait_until exited || fail "Q did not quit"
wait $PID; rc=$?
[ $rc -eq 0 ] || fail "exit status $rc"
if grep -q "ERROR: AddressSanitizer\|runtime error:" "$WORK/log"; then fail "sanitizer report"; fi
echo "after the storm: Home, End and Q answered; exit status 0; $(frame_count) frames"
' || exit 1
[ "$(tree_files)" = "$before" ] || { echo "FAIL: the storm wrote into the source tree"; exit 1; }
ls "$WORK"/*-edited.json >/dev/null 2>&1 && echo "saved edits (in the temp dir): $(cd "$WORK" && ls *-edited.json | tr "\n" " ")"
echo "OK"
