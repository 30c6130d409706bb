#!/bin/sh
# --model DIR in the real window under Xvfb (issue 40): a tiny generated Llama checkpoint opens on layer 1 and
# head 2 (--head), with the model's own stages around the attention — the norm that makes X first, the residual
# add and the next token after W^O — and the overview of every layer's heads (Shift+A); screenshots of them at 1280x720 and 1920x1080 into SHOT_DIR.
# Every wait is for a frame the program reports (tests/gui_frames.sh), never for the clock.
# usage: test_gui_model.sh MHA_TRACER SOURCE_DIR [SHOT_DIR]    Exit 77 (skip) without xvfb-run, xdotool,
# import or a python3 with numpy (unless MHA_REQUIRE_TOOLS=1).
BIN=$1
SRC=$2
SHOTS=${3:-${TMPDIR:-/tmp}/mha-model-shots}
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
for tool in xdotool import; do require_tool $tool "$tool (xdotool; import: imagemagick)"; done
PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c "import numpy" 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || missing_tool "a python3 with numpy (Debian: python3-numpy)"
mkdir -p "$SHOTS"
CK=$(mktemp -d)
trap 'rm -rf "$CK"' EXIT
"$PY" - "$SRC/tests" "$CK" <<'PYEOF' || { echo "FAIL: the checkpoint was not made"; exit 1; }
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import test_hf_models as T
rng = np.random.default_rng(40)
T.make_model(sys.argv[2], "llama", rng, tok=T.make_byte_level(T.LLAMA3, bos=True, merges_as_lists=True))
PYEOF
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC SHOTS CK
checks=0
for size in 1280x720 1920x1080; do
    W=${size%x*} H=${size#*x}
    xvfb-run -a -s "-screen 0 ${W}x${H}x24" sh -c '
. "$SRC/tests/gui_frames.sh"
fail() { echo "FAIL ('"$size"'): $*"; kill $PID 2>/dev/null; exit 1; }
FRAMES=$(mktemp)
MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" --model "$CK/llama" --layer 1 --head 2 &
PID=$!
wait_frame 0 || fail "no first frame"
WID=$(xdotool search --onlyvisible --name "mha-tracer" 2>/dev/null | head -1)
[ -n "$WID" ] || fail "no window"
xdotool windowsize "$WID" '"$W $H"'; xdotool windowmove "$WID" 0 0
wait_frame 0 "w='"$W"' h='"$H"'" || fail "the window is not '"$size"'"
frame_last | grep -q "stage=input-norm .*head=2 " || fail "opened on $(frame_last), not the norm stage of head 2"
import -window root "$SHOTS/model-norm-'"$size"'.png"
key() { n=$(frame_count); xdotool key --window "$WID" "$1"; wait_frame "$n" "$2" || fail "after $1: $(frame_last)"; }
for part in 1 2; do key Right "stage=input-norm substep=$part "; done # the norm in its parts: h, g, then X
key Right "stage=input "
key End "stage=next-token "
import -window root "$SHOTS/model-next-'"$size"'.png"
key Left "stage=residual "
key Left "stage=residual substep=1 "
import -window root "$SHOTS/model-residual-'"$size"'.png"
key shift+a "panel=overview "
import -window root "$SHOTS/model-overview-'"$size"'.png"
key shift+a "panel=none "
key Home "stage=input-norm "
kill $PID; wait $PID 2>/dev/null
echo "ok '"$size"': norm, input, next-token, residual, overview"
' || exit 1
    checks=$((checks + 1))
done
[ "$checks" -eq 2 ] || { echo "FAIL: $checks sizes checked"; exit 1; }
echo "test_gui_model: $checks sizes, screenshots in $SHOTS"
