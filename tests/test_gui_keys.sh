#!/bin/sh
# Issue 25 in the real window under Xvfb (no window manager): Esc never quits (five presses on every stage, with
# help, panels, zoom and questions open), Q and the window's close (SDL_QUIT, as the close button sends it; here
# from SIGTERM) ask before unsaved edits are lost and quit at once without them; the lesson's notes show on the
# first stage and N says when a lesson has none; a softmax question of a 6-token lesson is asked on the part
# that shows S' (its inputs); a question on another head says so and the board goes back to the class's head
# after it; --fullscreen and F on a bare X server lay the board out on the pixels the window has.
# Every wait is for a frame the program reports (tests/gui_frames.sh), never for the clock.
# usage: test_gui_keys.sh MHA_TRACER SOURCE_DIR [SHOT_DIR]      Exit 77 (skip) only when xvfb-run is absent.
BIN=$1
SRC=$2
SHOTS=${3:-${TMPDIR:-/tmp}/mha-keys-shots}
. "$(dirname "$0")/require.sh"
require_tool xvfb-run xvfb
for tool in xdotool import convert; do
    require_tool $tool "$tool (xdotool, xclip; import: imagemagick)"
done
mkdir -p "$SHOTS"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export BIN SRC SHOTS
run() { # W H SCRIPT: the script under a bare X server of W x H
    xvfb-run -a -s "-screen 0 $1x$2x24" sh -c ". \"\$SRC/tests/gui_frames.sh\"; W=$1; H=$2; $3"
}
COMMON='
fail() { echo "FAIL: $*"; tail -n 5 "$WORK/log" 2>/dev/null; kill $PID 2>/dev/null; exit 1; }
WORK=$(mktemp -d)
FRAMES=$WORK/frames
start() { # LESSON [OPTIONS]: the program, its first frame, its window
    rm -f "$FRAMES"
    xdotool mousemove $((W - 1)) $((H - 1))
    MHA_TRACER_FRAME_FILE="$FRAMES" "$BIN" "$@" 2>"$WORK/log" &
    PID=$!
    wait_frame 0 || fail "no first frame for $*"
    WID=$(xdotool search --onlyvisible --name "mha-tracer" 2>/dev/null | head -1)
    [ -n "$WID" ] || fail "no window"
}
key() { # KEY REGEX: the key, and the frame it causes, which must match REGEX
    before=$(frame_count)
    xdotool key --window "$WID" "$1"
    wait_frame "$before" "$2" || fail "after key $1: no frame matching \"$2\""
}
quit_now() { # KEY: the key quits at once, with exit status 0
    xdotool key --window "$WID" "$1" 2>/dev/null # (its key release may find the window gone)
    wait_until exited || fail "$1 did not quit ($(frame_last))"
    wait $PID || fail "exit status $?"
}
'
export COMMON

# Esc, Q and the close button; the notes.
run 1280 720 '
eval "$COMMON"
start "$SRC/lessons/the-cat-sat-on-the-mat.json"
[ "$(frame_field notes)" = 1 ] || fail "the notes are not shown on the first stage: $(frame_last)"
import -window root "$SHOTS/notes-720.png"
stages=0
while :; do
    stage=$(frame_field stage)
    for i in 1 2 3 4 5; do key Escape "quiz=none .*help=0 "; done
    exited && fail "Esc quit on stage $stage"
    stages=$((stages + 1))
    [ "$stage" = output ] && break
    key Right "."
    while [ "$(frame_field stage)" = "$stage" ]; do key Right "."; done
    [ "$(frame_field notes)" = 0 ] || fail "the notes stay on stage $(frame_field stage)"
done
[ $stages -eq 8 ] || fail "Esc was pressed on $stages stages, not 8"
# Open everything, then Esc closes one thing per press and the last one says how to quit.
wait_frame "$(frame_count)" "note=0$" || fail "the note of Esc did not go away by itself"
key h "help=1 "; key Escape "help=0 "
key k "panel=cost "; key Escape "panel=none "
key plus "zoom=1.250 "; key Escape "zoom=1.000 .*note=0$"; key Escape "note=1$"
echo "Esc: five presses on each of $stages stages, help, cost panel and zoom closed one per press; still running"
key Home "stage=input .*notes=1 "
key n "notes=0 "
key n "notes=1 "
wait_frame "$(frame_count)" "note=0$" || fail "the note of Esc did not go away by itself"
# An edit, then Q asks; Esc stays; the close button (SDL_QUIT) asks; Q again quits.
before=$(frame_count)
xdotool mousemove --window "$WID" 645 254 click 1
wait_frame "$before" || fail "no frame after the click on X"
key Up "edits=1 "
key q "ask=1 "
import -window root "$SHOTS/confirm-720.png"
key Escape "ask=0 "
exited && fail "Esc on the question quit"
key Right "stage=projections "
before=$(frame_count); kill -TERM $PID
wait_frame "$before" "ask=1 " || fail "the close request with unsaved edits did not ask"
quit_now q
[ ! -e "$SRC/lessons/the-cat-sat-on-the-mat-edited.json" ] || fail "Q without saving wrote a file"
echo "Q and the close button with an unsaved edit: asked; Esc stayed; Q quit"
# Ctrl+S in the question saves and quits; Q without edits quits at once; N on a lesson without notes says so.
cp "$SRC/lessons/the-cat-sat-on-the-mat.json" "$WORK/lesson.json"
start "$WORK/lesson.json"
before=$(frame_count)
xdotool mousemove --window "$WID" 645 254 click 1
wait_frame "$before" || fail "no frame after the click on X"
key Up "edits=1 "
key ctrl+s "edits=1 "
quit_now q
echo "saved edits: Q quit at once"
start "$WORK/lesson.json"
before=$(frame_count)
xdotool mousemove --window "$WID" 645 254 click 1
wait_frame "$before" || fail "no frame after the click on X"
key Up "edits=1 "
key q "ask=1 "
quit_now ctrl+s
grep -q "0.1" "$WORK/lesson-edited.json" || fail "Ctrl+S in the question did not save the edit"
start
key n "notes=0 .*note=1$"
import -window root "$SHOTS/no-notes-720.png"
quit_now q
echo "Ctrl+S in the question saved and quit; N on a lesson without notes said so"
rm -rf "$WORK"
' || exit 1

# Esc five times on every stage of a lesson with every kind of stage (RoPE's rotation, the mask, a sliding
# window, grouped-query heads, questions), each time with something open: the question asked there, the
# help, zoom, a panel (decode G, tiles B, compare M, shuffle X, cost K in turn). The program keeps running,
# the first Esc closes what was open, and the last frame shows nothing open.
run 1280 720 '
eval "$COMMON"
start "$SRC/lessons/mistral-sliding-window.json"
esc5() { # WHAT: five Esc presses, each drawing a frame; still running; nothing open after
    for i in 1 2 3 4 5; do key Escape "."; done
    exited && fail "Esc quit on stage $stage ($1)"
    frame_last | grep -Eq "zoom=1.000 .*panel=none quiz=none help=0 " || fail "after five Esc on stage $stage ($1): $(frame_last)"
}
stages=0; questions=0; seen=" "
while :; do
    stage=$(frame_field stage)
    if [ "$(frame_field quiz)" = asking ]; then esc5 "a question asked"; questions=$((questions + 1)); fi
    esc5 "the board"
    key h "help=1 "; esc5 "help"
    key plus "zoom=1.250 "; esc5 "zoom"
    case " $seen " in *" $stage "*) ;; *) seen="$seen$stage "; esac
    case $((stages % 5)) in
    0) key g "."; esc5 "the decode panel" ;;
    1) key b "."; esc5 "the tiles panel" ;;
    2) key m "panel=compare "; esc5 "the compare panel" ;;
    3) key x "panel=shuffle "; esc5 "the shuffle panel" ;;
    4) key k "panel=cost "; esc5 "the cost panel" ;;
    esac
    stages=$((stages + 1))
    [ "$stage" = output ] && break
    key Right "."
    while [ "$(frame_field stage)" = "$stage" ] && [ "$(frame_field quiz)" != asking ]; do key Right "."; done
done
[ $(echo $seen | wc -w) -eq 10 ] || fail "Esc was pressed on the stages$seen, not on 10"
[ $questions -ge 2 ] || fail "only $questions questions were asked"
quit_now q
echo "Esc: five presses on each of the 10 stages, $stages screens (with $questions questions, help, zoom and a panel open): still running"
' || exit 1

# Questions: asked where their inputs show, on their head, and back to the class's head after.
run 1280 720 '
eval "$COMMON"
start "$SRC/lessons/the-cat-sat-on-the-mat.json"
while [ "$(frame_field stage)" != softmax ]; do key Right "."; done
# → shows the first part of the stage to the class first, then asks its question (before A shows).
[ "$(frame_field quiz)" = none ] && [ "$(frame_field substep)" = 0 ] ||
    fail "the first part of the softmax is not shown before its question: $(frame_last)"
key Right "quiz=asking " || fail "no question on the softmax: $(frame_last)"
[ "$(frame_field substeps)" = 1 ] || [ "$(frame_field substep)" = 0 ] ||
    fail "the softmax question hides S'"'"' (part $(frame_field substep) of $(frame_field substeps))"
import -window root "$SHOTS/question-softmax-720.png"
quit_now q
start "$SRC/lessons/causal-decoder.json"
key 2 "head=1 "
while [ "$(frame_field quiz)" != asking ]; do key Right "."; done
# At the softmax the question on another head (0) comes first, the header saying so; then those of head 1.
[ "$(frame_field head)" = 0 ] || fail "the first question (on head 0) is on head $(frame_field head)"
frame_last | grep -q "note=1$" || fail "no note that the board moved to head 0: $(frame_last)"
import -window root "$SHOTS/question-other-head-720.png"
key Escape "quiz=none "
key Right "head=1 .*quiz=asking "
while [ "$(frame_field stage)" != concat ]; do
    if [ "$(frame_field quiz)" = asking ]; then key Escape "quiz=none "; else key Right "."; fi
done
[ "$(frame_field head)" = 1 ] || fail "after the questions the board stayed on head $(frame_field head), not the class'"'"'s 1"
# The shuffle test (X) stands in for the board: the strip lights no stage (concat, the 8th, was left lit).
segment() { # N SHOT: the colour of the strip'"'"'s segment N (from 0) near its left edge
    strip=$(frame_field strip)
    sx=${strip%%,*}; rest=${strip#*,}; sy=${rest%%,*}; rest=${rest#*,}; seg=${rest%%,*}; gap=${rest#*,}
    convert "$2" -format "%[pixel:p{$((sx + $1 * (seg + gap) + 3)),$sy}]" info:
}
import -window root "$WORK/board.png"
key x "panel=shuffle "
import -window root "$WORK/shuffle.png"
lit=$(segment 7 "$WORK/board.png"); plain=$(segment 8 "$WORK/board.png"); now=$(segment 7 "$WORK/shuffle.png")
[ "$lit" != "$plain" ] || fail "the concat segment is not lit on the board ($lit)"
[ "$now" = "$plain" ] || fail "the shuffle test leaves the concat segment lit ($now; unlit: $plain)"
quit_now q
echo "questions: the softmax asked on the part with S'"'"'; the board went back to head 1 after the questions"
' || exit 1

# --fullscreen and F on a bare X server: the window covers the screen and the layout has its pixels.
run 1920 1080 '
eval "$COMMON"
size() { xdotool getwindowgeometry "$WID" | sed -n "s/.*Geometry: //p"; }
start --fullscreen
[ "$(size)" = 1920x1080 ] || fail "--fullscreen made a window of $(size) on a 1920x1080 screen"
frame_last | grep -q "w=1920 h=1080 " || fail "--fullscreen laid out $(frame_last)"
import -window root "$SHOTS/fullscreen-1080.png"
key f "w=1280 h=720 "
[ "$(size)" = 1280x720 ] || fail "F out of full screen left a window of $(size)"
key f "w=1920 h=1080 "
[ "$(size)" = 1920x1080 ] || fail "F made a window of $(size) for a 1920x1080 layout"
quit_now q
echo "fullscreen: 1920x1080 window and layout; F: 1280x720 and back"
' || exit 1
echo "OK: screenshots in $SHOTS"
