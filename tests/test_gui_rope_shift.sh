#!/bin/sh
# RoPE's point in the real window under Xvfb (issue 22): on a RoPE lesson S shifts every position to the next
# stop (0, 1, 2, 3, 5, 10, 100, 1000, then 0 again) and Shift+S back, from any stage to the rotate stage; the
# frame line reports the shift (shift=K) and the board says it; at the scores stage S shows the shifted scores;
# Ctrl+S still saves; a lesson without RoPE ignores S. At 1280x720 and 1920x1080 (screenshots in SHOT_DIR).
# Every wait is for a frame the program reports (tests/gui_frames.sh), never for the clock.
# usage: test_gui_rope_shift.sh MHA_TRACER SOURCE_DIR [SHOT_DIR]      Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
SHOTS=${3:-${TMPDIR:-/tmp}/mha-rope-shift-shots}
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
for tool in xdotool import; do
    require_tool $tool "$tool (xdotool, xclip; import: imagemagick)"
done
mkdir -p "$SHOTS"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC SHOTS
run() { # W H SCRIPT: the script under a bare X server of W x H
    xvfb-run -a -s "-screen 0 $1x$2x24" sh -c ". \"\$SRC/tests/gui_frames.sh\"; W=$1; H=$2; $3"
}
SCRIPT='
fail() { echo "FAIL ($W x $H): $*"; tail -n 5 "$WORK/log" 2>/dev/null; kill $PID 2>/dev/null; exit 1; }
WORK=$(mktemp -d)
FRAMES=$WORK/frames
# The Llama lesson without its questions (a question on screen would take the class to its own part).
cat >"$WORK/rope.json" <<JSON
{"title": "RoPE", "tokens": ["<s>", "the", "cat", "sat", "on"], "embeddings": {"random": {"seed": 2026}},
 "d_model": 8, "heads": 2, "kv_heads": 1, "d_k": 4, "mask": "causal", "rope": {"base": 10000, "pairs": "halves"},
 "weights": {"random": {"seed": 7, "qkv_std": 0.6, "out_std": 0.5}}}
JSON
start() { # LESSON: the program, its first frame, its window
    rm -f "$FRAMES"
    xdotool mousemove $((W - 1)) $((H - 1))
    MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" "$@" 2>"$WORK/log" &
    PID=$!
    wait_frame 0 || fail "no first frame for $*"
    WID=$(xdotool search --onlyvisible --name "mha-tracer" 2>/dev/null | head -1)
    [ -n "$WID" ] || fail "no window"
    if [ "$(frame_field w)x$(frame_field h)" != "${W}x$H" ]; then # the whole screen (no window manager)
        before=$(frame_count)
        xdotool windowmove "$WID" 0 0 windowsize "$WID" "$W" "$H"
        wait_frame "$before" " w=$W h=$H " || fail "the window did not take $W x $H"
    fi
    xdotool mousemove $((W - 1)) $((H - 1))
}
key() { # KEY REGEX: the key, and the frame it causes, which must match REGEX
    before=$(frame_count)
    xdotool key --window "$WID" "$1"
    wait_frame "$before" "$2" || fail "after key $1: no frame matching \"$2\""
}
start "$WORK/rope.json"
[ "$(frame_field shift)" = 0 ] || fail "a shift before any key: $(frame_last)"
key s "stage=rotate .* shift=1 "
key s "stage=rotate .* shift=2 "
key s "stage=rotate .* shift=3 "
import -window root "$SHOTS/rotate-k3-$W.png"
key shift+s "stage=rotate .* shift=2 "
key shift+s "shift=1 "
key shift+s "shift=0 "
key shift+s "stage=rotate .* shift=1000 "
key s "stage=rotate .* shift=0 "
# The scores stage: S stays there and shows the shifted scores (their part is the last).
key Next "stage=(rotate|scores) "
while [ "$(frame_field stage)" != scores ]; do key Next "."; done
key s "stage=scores .* shift=1 "
subs=$(frame_field substeps); sub=$(frame_field substep)
[ "$sub" -eq $((subs - 1)) ] || fail "S at the scores did not show the shifted scores part: $(frame_last)"
import -window root "$SHOTS/scores-k1-$W.png"
# Ctrl+S still saves (nothing edited: the frame comes, the shift stays).
key ctrl+s "shift=1 "
kill $PID; wait $PID 2>/dev/null
# A lesson without RoPE: S does nothing; the next key shows the shift still 0.
start "$SRC/lessons/the-cat-sat.json"
xdotool key --window "$WID" s
key d "shift=0 "
kill $PID; wait $PID 2>/dev/null
echo "ok ($W x $H)"
'
export SCRIPT
run 1280 720 'eval "$SCRIPT"' || exit 1
run 1920 1080 'eval "$SCRIPT"' || exit 1
echo "PASS"
