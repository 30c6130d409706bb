#!/bin/sh
# Idle CPU and peak memory of the real window: starts mha-tracer on each lesson under the current X display
# (run it inside `xvfb-run -a sh bench/idle_and_memory.sh BUILD/mha-tracer [LESSON...]` on a machine without one),
# lets it settle for 2 s, then counts the CPU ticks it uses over 10 s of doing nothing and reads its peak
# resident set (VmHWM). Prints `case=idle lesson=L cpu_percent=X` and `case=peak-memory lesson=L peak_rss_mb=X`.
set -eu
tracer=$1
shift
[ $# -gt 0 ] || set -- ""
hz=$(getconf CLK_TCK)
for lesson in "$@"; do
    if [ -n "$lesson" ]; then "$tracer" "$lesson" 2>/dev/null & else "$tracer" 2>/dev/null & fi
    pid=$!
    sleep 2
    t0=$(awk '{print $14 + $15}' /proc/$pid/stat)
    sleep 10
    t1=$(awk '{print $14 + $15}' /proc/$pid/stat)
    hwm=$(awk '/^VmHWM:/ {print $2}' /proc/$pid/status)
    kill $pid
    wait $pid 2>/dev/null || true
    name=${lesson:-built-in}
    awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$name" 'BEGIN { printf "case=idle lesson=%s cpu_percent=%.2f\n", n, (b - a) * 100 / hz / 10 }'
    awk -v k="$hwm" -v n="$name" 'BEGIN { printf "case=peak-memory lesson=%s peak_rss_mb=%.1f\n", n, k / 1024 }'
done
