#!/bin/sh
# A lesson of layers in the real window under Xvfb: the board walks layer 0's stages, → past its
# residual add goes on to layer 1 (the frame line's layer=), Y / Shift+Y move between layers, the next
# token after the last layer; U opens the circuit panel; T trains the induction lesson until it is done
# (the cliff, the scores) with the one-layer lesson trained beside it (--beside: both losses, Shift+E writes
# the slide), O switches a layer-0 head off; Ctrl+S saves every layer (the saved lesson has
# a list of 2 layers and loads). At 1280x720 and 1920x1080, with screenshots. Waits for frames, never
# for the clock.
# usage: test_gui_circuit.sh MHA_TRACER SOURCE_DIR [SHOT_DIR]      Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
SHOTS=${3:-${TMPDIR:-/tmp}/mha-circuit-shots}
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
xdotool mousemove 1919 1079
for size in 1280x720 1920x1080; do
    W=${size%x*} H=${size#*x}
    cp "$SRC/lessons/induction-heads.json" "$WORK/lesson.json"
    rm -f "$WORK/lesson-edited.json"
    FRAMES=$WORK/frames-$size
    MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" --beside "$SRC/lessons/induction-one-layer.json" "$WORK/lesson.json" 2>"$WORK/log-$size" &
    PID=$!
    wait_frame 0 "stage=input .* layer=0 layers=2 " || fail "no first frame of layer 0 of 2"
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
    # The walk: layer 0 to its residual add, then on into layer 1 and to its next token.
    n=0
    while [ "$(frame_field stage)" != residual ]; do key Right "layer=0 "; n=$((n + 1)); [ $n -lt 80 ] || fail "no residual stage in layer 0"; done
    [ "$(shot layer0-residual)" -gt 20 ] || fail "$size: layer 0 residual looks blank"
    while frame_last | grep -q "layer=0 "; do key Right .; n=$((n + 1)); [ $n -lt 120 ] || fail "→ never reached layer 1"; done
    frame_last | grep -q "stage=input .*layer=1 " || fail "$size: layer 1 did not start at its input: $(frame_last)"
    key Left "layer=0 .*" ; frame_last | grep -q "stage=residual " || fail "$size: ← from layer 1 did not come back to layer 0 residual"
    key y "layer=1 "
    frame_last | grep -q "stage=residual " || fail "$size: Y did not keep the residual stage: $(frame_last)"
    [ "$(shot layer1-residual)" -gt 20 ] || fail "$size: layer 1 residual looks blank"
    key End "stage=next-token .*layer=1 "
    [ "$(shot layer1-next)" -gt 20 ] || fail "$size: next token looks blank"
    key Home "stage=input .*layer=1 "
    key shift+y "layer=0 "
    key u "panel=circuit "
    [ "$(shot circuit-untrained)" -gt 20 ] || fail "$size: circuit panel looks blank"
    key t "running=1 "
    wait_frame "$(frame_count)" "train=1000 running=0 " || fail "$size: training did not end at step 1000"
    [ "$(shot circuit-trained)" -gt 20 ] || fail "$size: trained panel looks blank"
    # Shift+E: the panel as a slide, the one-layer lesson trained beside in its loss plot (--beside).
    rm -rf "$WORK/exports"
    key shift+e "export=1 "
    wait_frame "$(frame_count)" "export=0 note=1" || fail "$size: the circuit slide was not written"
    grep -q "1 layer × 4 heads" "$WORK/exports/lesson-circuit.svg" && grep -q "2 layers × 2 heads" "$WORK/exports/lesson-circuit.svg" \
        || fail "$size: lesson-circuit.svg has no legend of the two lessons"
    # V (export the training) on a lesson of layers: the same slide, after Esc closed the panel.
    rm -rf "$WORK/exports"
    key Escape "panel=none "
    key v "export=1 "
    wait_frame "$(frame_count)" "export=0 note=1" || fail "$size: V wrote no training slide"
    [ -f "$WORK/exports/lesson-circuit.png" ] || fail "$size: V did not write lesson-circuit.png"
    key u "panel=circuit "
    key o "ablated=1 "
    [ "$(shot circuit-head0-off)" -gt 20 ] || fail "$size: ablated panel looks blank"
    key o "ablated=0 "
    key Escape "panel=none "
    key ctrl+s "edits=1 "
    wait_until test -f "$WORK/lesson-edited.json" || fail "$size: Ctrl+S wrote no lesson-edited.json"
    [ -f "$WORK/lesson-edited.json" ] || fail "$size: Ctrl+S wrote no lesson-edited.json"
    /usr/bin/python3 -c "import json,sys; L=json.load(open(sys.argv[1])); assert isinstance(L[\"weights\"], list) and len(L[\"weights\"]) == 2, L.keys()" "$WORK/lesson-edited.json" \
        || fail "$size: the saved lesson lost its layers"
    "$BIN" --check "$WORK/lesson-edited.json" >/dev/null 2>&1 || fail "$size: the saved lesson does not check"
    kill $PID; wait $PID 2>/dev/null
    echo "$size: layers walked, trained to step 1000 beside one layer, slide written, head off, saved with 2 layers"
done
echo "PASS"
'
