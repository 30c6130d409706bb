#!/bin/sh
# The window's text path (issue 24): Ctrl+C puts the stage on screen on the clipboard as tab-separated text, its
# matrices with token headers; read back with xclip under Xvfb, its table lines must be those of
# --trace --stage KEY --head H (the same numbers as the board rounds them), on the input stage and on the softmax
# stage, where the question on the way (head 1) hides nothing once skipped. Every wait is for a frame the program reports
# (gui_frames.sh). usage: test_gui_clipboard.sh MHA_TRACER SOURCE_DIR      Exit 77 (skip) only without xvfb-run.
BIN=$1
SRC=$2
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
for tool in xdotool xclip; do
    require_tool $tool "$tool (xdotool, xclip; import: imagemagick)"
done
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC
xvfb-run -a -s "-screen 0 1600x900x24" sh -c '
. "$SRC/tests/gui_frames.sh"
fail() { echo "FAIL: $*"; kill $PID 2>/dev/null; exit 1; }
WORK=$(mktemp -d)
FRAMES=$WORK/frames
xdotool mousemove 1599 899 # no hover: the focused cell is none
MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" 2>"$WORK/log" &
PID=$!
wait_frame 0 "stage=input " || fail "no first frame"
WID=
find_window() { WID=$(xdotool search --onlyvisible --name "mha-tracer" 2>/dev/null | head -1); [ -n "$WID" ]; }
wait_until find_window || fail "no window appeared"
key() {
    before=$(frame_count)
    xdotool key --window "$WID" "$1"
    wait_frame "$before" "$2" || fail "after key $1: no frame matching \"$2\""
}
checks=0
# copy STAGE: Ctrl+C, the header says so (note=1); the clipboard'"'"'s lines with a tab equal --trace --stage'"'"'s.
copy() {
    key ctrl+c "stage=$1 .* note=1"
    wait_until xclip -o -selection clipboard || fail "nothing on the clipboard"
    xclip -o -selection clipboard >"$WORK/clip-$1.txt"
    head=$(frame_field head)
    "$BIN" --trace --stage "$1" --head "$head" >"$WORK/trace-$1.txt" || fail "--trace --stage $1 failed"
    grep "	" "$WORK/clip-$1.txt" >"$WORK/clip-$1.tab"
    grep "	" "$WORK/trace-$1.txt" >"$WORK/trace-$1.tab"
    [ -s "$WORK/trace-$1.tab" ] || fail "--trace --stage $1 printed no table"
    cmp -s "$WORK/clip-$1.tab" "$WORK/trace-$1.tab" || { diff "$WORK/trace-$1.tab" "$WORK/clip-$1.tab"; fail "the clipboard on $1 is not the stage'"'"'s tables"; }
    echo "ok   Ctrl+C on $1, head $head: $(wc -l <"$WORK/clip-$1.tab") table lines on the clipboard, as --trace --stage $1 --head $head"
    checks=$((checks + 1))
}
copy input
grep -q "^X	0	1	2	3$" "$WORK/clip-input.tab" || fail "no header line of X with its dimensions: $(head -3 "$WORK/clip-input.tab")"
grep -q "^The	" "$WORK/clip-input.tab" || fail "no row of the token The"
# On to the softmax stage; the questions on the way (scores, softmax) skipped with Escape.
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
    [ "$(frame_field stage)" = softmax ] && [ "$(frame_field quiz)" = none ] && break
    if [ "$(frame_field quiz)" != none ]; then key Escape .; else key Next .; fi
done
[ "$(frame_field stage)" = softmax ] || fail "did not reach the softmax stage ($(frame_last))"
copy softmax
A=$("$BIN" --trace | awk "/^weights_$head /{f=1;next} f" | sed -n 2p | awk "{print \$2}")
grep -q "^The	$A	" "$WORK/clip-softmax.tab" || fail "A[The, The] = $A of head $head in --trace is not on the clipboard"
echo "ok   the clipboard holds A[The, The] = $A of head $head, as --trace prints it"
kill $PID
[ "$checks" -eq 2 ] || fail "ran $checks of 2 copy checks"
echo "PASS: the clipboard key"
'
