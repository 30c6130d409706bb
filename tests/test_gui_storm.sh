#!/bin/sh
# The event storm (issue 6): the real window under Xvfb takes 10,000 seeded random events through its own
# event path (MHA_TRACER_STORM=COUNT:SEED): keys with modifiers, pointer moves, clicks, the wheel, sizes from
# 1x1 to 8000x5000, drops of good and bad files, and its lesson rewritten valid -> broken -> valid -> broken.
# Then it must still be alive and consistent: the summary line counts every event and every rewrite, the title
# shows the last good lesson, Home and End still change the stage, Q exits with status 0, and no sanitizer
# complained. Everything it writes (Ctrl+S, E) lands in a temporary directory, never in the source tree.
# usage: test_gui_storm.sh MHA_TRACER SOURCE_DIR [COUNT [SEED]]     Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
COUNT=${3:-10000}
SEED=${4:-20240611}
if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "SKIP: xvfb-run not installed"
    exit 77
fi
command -v xdotool >/dev/null 2>&1 || { echo "FAIL: xdotool not installed (needed with xvfb-run)"; exit 1; }
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
DROPS="$WORK/good-causal.json:$WORK/good-cross.json:$WORK/good-mat.json:$WORK/bad-json.json:$WORK/bad-heads.json"
DROPS="$DROPS:$WORK/bad-empty.json:$WORK/bad-bytes.json:$WORK/bad-dir.json:$WORK/missing.json"
before=$(ls -a "$SRC" "$SRC/lessons" | md5sum)
# Under AddressSanitizer, X11/dbus/GL drivers leak at exit; our own leaks are caught by the unit tests.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN WORK COUNT SEED DROPS
cd "$WORK" || exit 1
xvfb-run -a -s "-screen 0 1280x720x24" sh -c '
fail() { echo "FAIL: $*"; grep -v "^frame" "$WORK/log" | tail -20; kill $PID 2>/dev/null; exit 1; }
MHA_TRACER_STATS=1 MHA_TRACER_STORM="$COUNT:$SEED" MHA_TRACER_STORM_DROPS="$DROPS" \
    "$BIN" "$WORK/target.json" 2>"$WORK/log" &
PID=$!
for i in $(seq 3000); do
    grep -q "^storm:" "$WORK/log" && break
    kill -0 $PID 2>/dev/null || fail "the program died during the storm"
    sleep 0.2
done
summary=$(grep "^storm:" "$WORK/log")
[ -n "$summary" ] || fail "no storm summary after 600 s"
echo "$summary"
grep "^first_frame_ms=" "$WORK/log"
echo "$summary" | grep -q "events=$COUNT " || fail "not all $COUNT events were sent"
echo "$summary" | grep -q "rewrites=3 rewrites_seen=3 " || fail "the file watch missed a rewrite of the lesson"
echo "$summary" | grep -q "title=\"Storm target\"" || fail "the last good lesson is not the one shown"
for k in keys motion buttons wheel resizes drops-ok drops-bad; do
    n=$(echo "$summary" | sed -n "s/.* $k=\([0-9]*\).*/\1/p")
    [ "${n:-0}" -gt 0 ] || fail "no $k in the storm"
done
WID=
for i in $(seq 50); do
    WID=$(xdotool search --name "Storm target" 2>/dev/null | head -1)
    [ -n "$WID" ] && break
    sleep 0.1
done
[ -n "$WID" ] || fail "the window title does not show the last good lesson"
sleep 1
last_stage() { grep -o "stage=[a-z-]*" "$WORK/log" | tail -1 | cut -d= -f2; }
xdotool key --window "$WID" Home; sleep 0.5
[ "$(last_stage)" = input ] || fail "Home after the storm: stage $(last_stage)"
xdotool key --window "$WID" End; sleep 0.5
[ "$(last_stage)" = output ] || fail "End after the storm: stage $(last_stage)"
xdotool key --window "$WID" q
for i in $(seq 100); do kill -0 $PID 2>/dev/null || break; sleep 0.1; done
kill -0 $PID 2>/dev/null && fail "Q did not quit"
wait $PID; rc=$?
[ $rc -eq 0 ] || fail "exit status $rc"
if grep -q "ERROR: AddressSanitizer\|runtime error:" "$WORK/log"; then fail "sanitizer report"; fi
echo "after the storm: Home, End and Q answered; exit status 0"
' || exit 1
[ "$(ls -a "$SRC" "$SRC/lessons" | md5sum)" = "$before" ] || { echo "FAIL: the storm wrote into the source tree"; exit 1; }
ls "$WORK"/*-edited.json >/dev/null 2>&1 && echo "saved edits (in the temp dir): $(cd "$WORK" && ls *-edited.json | tr "\n" " ")"
echo "OK"
