#!/bin/sh
# Issue 36 in the real window under Xvfb: Shift+E with a panel open exports that panel, named after it (G at the
# last token: NAME-decode-head0-token7, not the stage under it, "…-stage07-softmax…"; B, M, X), and the frame
# line names the panel (panel=decode, panel=tiles). Every wait is for a frame the program reports.
# usage: test_gui_panel_export.sh MHA_TRACER SOURCE_DIR      Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
require_tool xdotool xdotool
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC
xvfb-run -a -s "-screen 0 1280x720x24" sh -c '
. "$SRC/tests/gui_frames.sh"
fail() { echo "FAIL: $*"; tail -n 5 "$WORK/log" 2>/dev/null; kill $PID 2>/dev/null; exit 1; }
WORK=$(mktemp -d)
FRAMES=$WORK/frames
cp "$SRC/lessons/llama-rope-gqa.json" "$WORK/lesson.json"
xdotool mousemove 1279 719
MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" "$WORK/lesson.json" 2>"$WORK/log" &
PID=$!
wait_frame 0 || fail "no first frame"
WID=$(xdotool search --onlyvisible --name "mha-tracer" 2>/dev/null | head -1)
[ -n "$WID" ] || fail "no window"
key() { before=$(frame_count); xdotool key --window "$WID" "$1"; wait_frame "$before" "$2" || fail "after key $1: no frame matching \"$2\""; }
exported() { # KEY-FREE: Shift+E, then the files FILES... exist
    key shift+e "export=0 .*note=1$"
    for f in "$@"; do [ -f "$WORK/exports/$f" ] || fail "Shift+E did not write exports/$f (found: $(ls "$WORK/exports" 2>&1))"; done
}
key g "panel=decode "
key End "panel=decode "
exported lesson-decode-head0-token7.png lesson-decode-head0-token7.svg
grep -q "<text" "$WORK/exports/lesson-decode-head0-token7.svg" || fail "the decode SVG has no text"
key b "panel=tiles "
key Right "panel=tiles "
exported lesson-tiles-block2-head0-tile02.png lesson-tiles-block2-head0-tile02.svg
# M and X in parts (the 7x8 outputs of llama-rope-gqa at 1280x720): a slide per part, as a step of G in parts.
key m "panel=compare "
exported lesson-compare-part1.png lesson-compare-part1.svg lesson-compare-part2.png lesson-compare-part2.svg
key x "panel=shuffle "
exported lesson-shuffle-reversed-part1.png lesson-shuffle-reversed-part2.svg
grep -q "tokens reordered" "$WORK/exports/lesson-shuffle-reversed-part2.svg" || fail "the shuffle slide does not show the shuffle test"
ls "$WORK/exports" | grep -q stage && fail "a panel exported under a stage name: $(ls "$WORK/exports")"
echo "Shift+E in G, B, M and X: $(ls "$WORK/exports" | tr "\n" " ")"
kill $PID
rm -rf "$WORK"
'
