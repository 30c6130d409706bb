#!/bin/sh
# Issue 27: the window's exports (E, Shift+E, V) are written on a worker thread, so a large lesson's export never
# freezes the window. Under Xvfb, on the BERT-base-shaped lesson (12 heads of 64): while an export is held
# (MHA_TRACER_EXPORT_GATE: the worker waits until that file exists) frames keep coming with export=1 and keys
# still work (→ moves the stage); a second E says it must wait and starts nothing; when it is let go, the
# header says what was written and the PNG and SVG are whole. Q while exporting quits only once the files are
# written; a second Q stops the export and nothing of it is written. Without the gate, the all-heads export of
# the lesson draws frames until it ends. Every wait is for a frame the program reports (tests/gui_frames.sh).
# usage: test_gui_export_worker.sh MHA_TRACER SOURCE_DIR      Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
require_tool xdotool xdotool
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC
xvfb-run -a -s "-screen 0 1280x720x24" sh -c '
. "$SRC/tests/gui_frames.sh"
WORK=$(mktemp -d)
trap "rm -rf \"$WORK\"" EXIT
FRAMES=$WORK/frames
GATE=$WORK/gate
fail() { echo "FAIL: $*"; tail -n 5 "$WORK/log" 2>/dev/null; kill $PID 2>/dev/null; exit 1; }
cp "$SRC/lessons/bert-base-shape.json" "$WORK/bert.json"
OUT=$WORK/exports
start() { # the program on the lesson, its first frame, its window
    rm -f "$FRAMES"
    MHA_TRACER_EXPORT_GATE="$GATE" MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" "$WORK/bert.json" 2>"$WORK/log" &
    PID=$!
    wait_frame 0 || fail "no first frame"
    WID=$(xdotool search --onlyvisible --name "mha-tracer" 2>/dev/null | head -1)
    [ -n "$WID" ] || fail "no window"
}
key() { # KEY REGEX: the key, and a frame after it that matches REGEX
    before=$(frame_count)
    xdotool key --window "$WID" "$1"
    wait_frame "$before" "$2" || fail "after key $1: no frame matching \"$2\""
}
whole_png() { python3 -c "import sys; d=open(sys.argv[1],\"rb\").read(); sys.exit(0 if d[:8]==b\"\\x89PNG\\r\\n\\x1a\\n\" and d[-8:-4]==b\"IEND\" else 1)" "$1"; }
checks=0

# 1. E held by the gate: frames and keys go on; a second E waits; let go, the files are written whole.
start
key e "export=1"
stage=$(frame_field stage)
# A frame with export=1 may come before the key is handled (the header'"'"'s progress): the key'"'"'s own frame is
# the one with another stage, so the frames are followed until it comes (wait_frame fails when none does).
# The stage and the number are read from one frame line: read apart, the frame of the key could come between the two
# reads, and the wait then looked for a frame after it that never came (a CI failure).
key Right "export=1"
n=0
while :; do
    line=$(frame_last)
    [ "$(echo "$line" | tr " " "\n" | sed -n "s/^stage=//p")" = "$stage" ] || break
    n=$((n + 1))
    [ $n -le 50 ] && wait_frame "$(echo "$line" | cut -d" " -f2)" "export=1" || fail "→ did not move the stage while exporting: $(frame_last)"
done
key e "export=1 note=1"
[ ! -d "$OUT" ] || [ -z "$(ls -A "$OUT")" ] || fail "files were written before the gate opened: $(ls "$OUT")"
touch "$GATE"
n=$(frame_count)
wait_frame "$n" "export=0 note=1" || fail "the export did not end"
ls "$OUT"/*.png "$OUT"/*.svg >/dev/null 2>&1 || fail "no PNG and SVG in $OUT: $(ls -A "$OUT" 2>&1)"
[ "$(ls "$OUT" | wc -l)" -eq 2 ] || fail "the second E exported too: $(ls "$OUT")"
for f in "$OUT"/*.png; do whole_png "$f" || fail "$f is not a whole PNG"; done
grep -q "</svg>" "$OUT"/*.svg || fail "the SVG is not whole"
checks=$((checks + 1))
echo "ok: E on the worker, keys and frames while held, a second E waits, files whole: $(ls "$OUT" | tr "\n" " ")"

# 2. Q while exporting quits once the files are written (exit 0).
rm -f "$GATE"
key a "view=all"
key e "export=1"
key q "export=1 note=1"
exited && fail "Q quit before the export had ended"
touch "$GATE"
wait_until exited || fail "Q did not quit after the export ended ($(frame_last))"
wait $PID || fail "exit status $?"
ls "$OUT"/*heatmap-heads.png >/dev/null 2>&1 || fail "the all-heads heatmap quit unwritten: $(ls "$OUT")"
for f in "$OUT"/*heatmap-heads.png; do whole_png "$f" || fail "$f is not a whole PNG"; done
checks=$((checks + 1))
echo "ok: Q while exporting waited for the files, then quit"

# 3. Q twice while exporting: stopped, nothing of it written.
rm -f "$GATE"
start
kept=$(ls "$OUT" | wc -l) # (not "before": key() sets that to the frame count)
key E "export=1"
key q "export=1 note=1"
xdotool key --window "$WID" q 2>/dev/null
wait_until exited || fail "a second Q did not stop the export and quit ($(frame_last))"
wait $PID || fail "exit status $?"
[ "$(ls "$OUT" | wc -l)" -eq "$kept" ] || fail "a stopped export wrote files: $(ls "$OUT" | tr "\n" " ") $(tail -3 "$FRAMES")"
[ -z "$(ls -A "$OUT" | grep "^\.")" ] || fail "temporaries left: $(ls -A "$OUT")"
checks=$((checks + 1))
echo "ok: a second Q stopped the export before it wrote anything"

# 4. No gate: the all-heads export of the lesson draws frames until its result line.
touch "$GATE"
rm -rf "$OUT"
start
key a "view=all"
key e "export=1"
n=$(frame_count)
wait_frame "$n" "export=0 note=1" || fail "the all-heads export did not end"
busy=$(grep -c " export=1 " "$FRAMES")
ls "$OUT"/*heatmap-heads.png >/dev/null 2>&1 || fail "no all-heads PNG"
xdotool key --window "$WID" q 2>/dev/null
wait_until exited || fail "Q did not quit"
checks=$((checks + 1))
echo "ok: the all-heads export drew $busy frames while it ran, then said what it wrote"
[ $checks -eq 4 ] || fail "only $checks checks ran"
echo "PASS: exports on the worker ($checks checks)"
'
