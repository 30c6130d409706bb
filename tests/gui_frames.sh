# Shell helpers for the window tests (sourced): wait for the program, never for the clock.
# The program runs with MHA_TRACER_FRAME_FILE=$FRAMES and appends one line per frame it presents:
#   frame N stage=KEY substep=S substeps=C head=H reveal=R zoom=Z w=W h=H view=V panel=P quiz=Q help=H ... train=T
#   running=R layer=L layers=N edits=E banner=B ask=A panel_part=P/Q shift=K note=N
# (the fields are described in src/app/gui.c, report_frame)
# Every wait polls (every 0.05 s) for something the program does, with a generous deadline
# (GUI_DEADLINE seconds without progress, 60 by default) that only a hung program reaches. Needs FRAMES and PID set.

GUI_DEADLINE=${GUI_DEADLINE:-60}

# The last complete frame line ("" before the first). A line being written has no final digit yet.
frame_last() {
    [ -f "$FRAMES" ] || return 0
    awk '/^frame [0-9]+ .* note=[01]$/ { l = $0 } END { print l }' "$FRAMES"
}

# The number of the last complete frame (0 before the first).
frame_count() {
    n=$(frame_last | cut -d" " -f2)
    echo "${n:-0}"
}

# wait_frame AFTER [REGEX]: waits until a frame numbered above AFTER has been presented and the last frame
# line matches the extended regular expression REGEX. Fails when the program exits, or when GUI_DEADLINE seconds
# pass without a new frame: the deadline counts from the program's last progress (a frame drawn), not from the
# start of the wait, so a long run that keeps drawing (training to step 800 under AddressSanitizer on a busy
# machine) is waited for as long as it goes on.
wait_frame() {
    _after=$1
    _re=${2:-.}
    _end=$(($(date +%s) + GUI_DEADLINE))
    _seen=-1
    while :; do
        _line=$(frame_last)
        _n=$(echo "$_line" | cut -d" " -f2)
        if [ "${_n:-0}" -gt "$_after" ] && echo "$_line" | grep -Eq -- "$_re"; then
            return 0
        fi
        if [ "${_n:-0}" != "$_seen" ]; then # progress: a new frame
            _seen=${_n:-0}
            _end=$(($(date +%s) + GUI_DEADLINE))
        fi
        kill -0 "$PID" 2>/dev/null || { echo "(the program exited; last frame: $_line)"; return 1; }
        [ "$(date +%s)" -lt "$_end" ] || {
            echo "(no frame after $_after matching '$_re', and no new frame for ${GUI_DEADLINE} s; last frame: $_line)"
            return 1
        }
        sleep 0.05
    done
}

# wait_until COMMAND...: runs COMMAND until it succeeds (the program does something else than draw: a window
# title, an exit). Fails at the deadline.
wait_until() {
    _end=$(($(date +%s) + GUI_DEADLINE))
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$_end" ] || return 1
        sleep 0.05
    done
}

# The field KEY of the last frame line: frame_field stage -> "softmax".
frame_field() {
    frame_last | tr " " "\n" | sed -n "s/^$1=//p"
}

# exited: true once the program has exited.
exited() { ! kill -0 "$PID" 2>/dev/null; }
