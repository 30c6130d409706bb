#!/bin/sh
# While the worker runs a training step the window's loop sleeps (issue 27): it wakes for events, the poll of
# the worker and the file watch, never spins. Before the fix the step's due time, long past while the worker ran,
# woke the loop at once on every turn: the window's thread took as much CPU as the worker (2.5 s against 1.6 s
# in 6 s on two cores), slowing the step it waited for. Measured as CPU time from /proc (the window's thread
# against all the others), over the first step of a lesson whose step takes seconds; a ratio, not a clock, so
# it holds on a busy machine. Waits for frames, never for the clock.
# usage: test_gui_train_idle.sh MHA_TRACER SOURCE_DIR      Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
require_tool xdotool xdotool
[ -r /proc/self/task/$$/stat ] || missing_tool "/proc"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# 64 tokens, d_model 256, 8 heads of 32, 48 sequences: a step of 1-3 s here.
python3 -c '
import sys
n = 64
s = " ".join("t%d" % i for i in range(n))
sys.stdout.write("{\"title\": \"A slow step\", \"sentence\": \"%s\",\n \"embeddings\": {\"random\": {\"seed\": 1, \"std\": 0.05}}, \"d_model\": 256, \"heads\": 8, \"d_k\": 32,\n \"train\": {\"task\": \"previous-token\", \"sequences\": 48, \"steps\": 3},\n \"weights\": {\"random\": {\"seed\": 2, \"qkv_std\": 0.05, \"out_std\": 0.05}}}\n" % s)
' >"$WORK/slow.json" || { echo "FAIL: python3 could not write the lesson"; exit 1; }
export BIN SRC WORK
xvfb-run -a -s "-screen 0 1280x720x24" sh -c '
. "$SRC/tests/gui_frames.sh"
fail() { echo "FAIL: $*"; kill $PID 2>/dev/null; exit 1; }
FRAMES=$WORK/frames
MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" "$WORK/slow.json" 2>"$WORK/log" &
PID=$!
wait_frame 0 "stage=input " || fail "no first frame"
WID=
find_window() { WID=$(xdotool search --onlyvisible --name "mha-tracer" 2>/dev/null | head -1); [ -n "$WID" ]; }
wait_until find_window || fail "no window appeared"
# CPU ticks (user + system) of the window thread (the process'"'"'s first) and of the whole process.
ticks() { awk "{ print \$14 + \$15 }" "$1"; }
before=$(frame_count)
xdotool key --window "$WID" t
wait_frame "$before" "running=1 " || fail "T did not start training"
main0=$(ticks /proc/$PID/task/$PID/stat) all0=$(ticks /proc/$PID/stat)
wait_frame "$before" "train=[1-9][0-9]* running=1 " || fail "the first step was never shown"
main1=$(ticks /proc/$PID/task/$PID/stat) all1=$(ticks /proc/$PID/stat)
main=$((main1 - main0)) others=$(((all1 - all0) - (main1 - main0)))
echo "during the first step: window thread $main ticks, the other threads (the worker) $others ticks"
[ "$others" -ge 20 ] || fail "the step took only $others ticks of the worker: too short to judge"
[ $((main * 4)) -le "$others" ] || fail "the window thread took $main ticks while the worker took $others: the loop spins"
# Q quits (it asks first when the trained weights are unsaved: Q again).
xdotool key --window "$WID" q
kill -0 $PID 2>/dev/null && xdotool key --window "$WID" q 2>/dev/null
wait_until sh -c "! kill -0 $PID" || fail "Q, Q did not quit"
echo "PASS"
'
