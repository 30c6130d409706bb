#!/bin/sh
# Training in the real window under Xvfb (issue 15): T starts training the two-heads lesson on the softmax
# stage with every head shown, frames come while it runs (steps between frames, the step in each frame line
# rising), T pauses, J / L move between checkpoints, the run ends at its steps, Z goes back to step 0, V exports
# every checkpoint's heatmap and a strip of eight; at 1280x720 and 1920x1080, with screenshots at step 0, paused midway and the end.
# Prints the redraw rate while training (a measurement, not a check). Waits for frames, never for the clock.
# usage: test_gui_train.sh MHA_TRACER SOURCE_DIR [SHOT_DIR]      Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
SHOTS=${3:-${TMPDIR:-/tmp}/mha-train-shots}
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
for tool in xdotool import convert; do
    require_tool $tool "$tool (xdotool, xclip; import: imagemagick)"
done
mkdir -p "$SHOTS"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC SHOTS
xvfb-run -a -s "-screen 0 1920x1080x24" sh -c '
. "$SRC/tests/gui_frames.sh"
fail() { echo "FAIL: $*"; kill $PID 2>/dev/null; exit 1; }
WORK=$(mktemp -d)
cp "$SRC/lessons/two-heads-two-jobs.json" "$WORK/lesson.json"
xdotool mousemove 1919 1079
for size in 1280x720 1920x1080; do
    W=${size%x*} H=${size#*x}
    FRAMES=$WORK/frames-$size
    MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" "$WORK/lesson.json" 2>"$WORK/log-$size" &
    PID=$!
    wait_frame 0 "stage=input " || fail "no first frame"
    WID=
    find_window() { WID=$(xdotool search --onlyvisible --name "mha-tracer" 2>/dev/null | head -1); [ -n "$WID" ]; }
    wait_until find_window || fail "no window appeared"
    key() {
        before=$(frame_count)
        xdotool key --window "$WID" "$1"
        wait_frame "$before" "$2" || fail "$size: after key $1: no frame matching \"$2\""
    }
    shot() { import -window "$WID" "$SHOTS/$size-$1.png" || fail "import failed"; convert "$SHOTS/$size-$1.png" -format "%k" info:; }
    if ! frame_last | grep -q "w=$W h=$H "; then
        before=$(frame_count)
        xdotool windowmove "$WID" 0 0 windowsize "$WID" "$W" "$H"
        wait_frame "$before" "w=$W h=$H " || fail "the window did not become $size"
    fi
    while [ "$(frame_field stage)" != softmax ]; do key Right .; done
    key a "view=all "
    key t "running=1 "
    key z "train=0 running=0 "
    [ "$(shot step0)" -gt 20 ] || fail "$size: step 0 looks blank"
    start=$(date +%s.%N) f0=$(frame_count)
    key t "running=1 "
    wait_frame "$f0" "train=([2-9][0-9][0-9]) running=1 " || fail "$size: training does not reach step 200"
    key t "running=0 "
    mid=$(frame_field train)
    shot mid >/dev/null
    key t "running=1 "
    wait_frame "$f0" "train=800 running=0 " || fail "$size: the run does not end at step 800"
    end=$(date +%s.%N) f1=$(frame_count)
    running=$(grep -c "running=1 " "$FRAMES")
    steps_seen=$(grep "running=1 " "$FRAMES" | sed "s/.* train=\([0-9]*\) .*/\1/" | sort -un | wc -l)
    echo "$size: $running frames while training, $steps_seen different steps shown, paused at $mid;" \
        "$(awk -v a="$start" -v b="$end" -v n=$((f1 - f0)) "BEGIN { printf \"%d frames in %.1f s (including the pause): %.0f redraws a second\", n, b - a, n / (b - a) }")"
    [ "$running" -ge 20 ] || fail "$size: only $running frames while training: the heatmaps do not update live"
    [ "$steps_seen" -ge 20 ] || fail "$size: only $steps_seen different steps shown while training"
    [ "$(shot end)" -gt 20 ] || fail "$size: the end looks blank"
    cmp -s "$SHOTS/$size-step0.png" "$SHOTS/$size-end.png" && fail "$size: step 0 and the end look the same"
    key j "train=784 running=0 "
    key l "train=800 running=0 "
    key t "banner=1 "
    rm -rf "$WORK/exports"
    # V writes 51 images without a frame between them: each file it writes (a temporary, then renamed) is its
    # progress, so a busy machine is waited for as long as files keep coming.
    before=$(frame_count) seen=-1 end=0
    xdotool key --window "$WID" v
    until [ "$(frame_count)" -gt "$before" ] && frame_last | grep -q "note=1$"; do
        n=$(ls -a "$WORK/exports" 2>/dev/null | wc -l)
        [ "$n" != "$seen" ] && seen=$n end=$(($(date +%s) + GUI_DEADLINE))
        kill -0 $PID 2>/dev/null || fail "$size: the program exited during V"
        [ "$(date +%s)" -lt "$end" ] || fail "$size: V: no frame and no new file for $GUI_DEADLINE s"
        sleep 0.05
    done
    n=$(ls "$WORK/exports" 2>/dev/null | grep -c "train-[0-9][0-9]-step-[0-9]*-.*\.png$")
    [ "$n" -eq 51 ] || fail "$size: V wrote $n checkpoint images, not 51 (steps 0, 16, ..., 800)"
    strip="$WORK/exports/lesson-train-strip-head0.png"
    [ -f "$strip" ] || fail "$size: V wrote no strip ($(ls "$WORK/exports" | grep -v step | head -3))"
    dims=$(identify -format "%w %h" "$strip")
    [ "${dims% *}" -gt $((4 * ${dims#* })) ] || fail "$size: the strip is $dims, not a strip"
    key z "train=0 running=0 "
    xdotool key --window "$WID" q # back at step 0: nothing would be lost, so Q does not ask
    wait_until exited || fail "Q did not quit"
done
echo "PASS: training in the window at 1280x720 and 1920x1080 (screenshots in $SHOTS)"
'
