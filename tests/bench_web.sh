#!/bin/sh
# The page's speed beside the native build's: bert-base (128 tokens, d_model 768, 12 heads), one full trace,
# by the same mha-bench compiled for WebAssembly and run under Node (V8, the engine of Chromium's page) and
# natively (build/mha-bench, its heads over the cores). The WebAssembly one is the one-thread page's build
# (build-web-cli/mha-bench.js) and, when given, the threaded page's (build-web-cli-mt/mha-bench.js: WebAssembly
# threads, the heads over the cores as natively). They take turns, ROUNDS times, in one run; the fastest of each
# is compared. A benchmark that prints, never a timed test: it fails only when a program fails or is missing.
#   sh tests/bench_web.sh NATIVE_MHA_BENCH WEB_MHA_BENCH_JS [WEB_MT_MHA_BENCH_JS] [ROUNDS (3)] [REPS (10)] [CASE (bert-base)]
# (the threaded build is the third argument when it names a .js file). Prints per round
# `round=R case=C native_seconds=X web_seconds=Y [web_mt_seconds=Z] load=L`, then
# `case=C web_over_native=RATIO [web_mt_over_native=RATIO] native_seconds=X web_seconds=Y [web_mt_seconds=Z]
# kernel_native=K kernel_web=K [threads_native=N threads_web_mt=N]`.
set -eu
usage="usage: sh tests/bench_web.sh NATIVE_MHA_BENCH WEB_MHA_BENCH_JS [WEB_MT_MHA_BENCH_JS] [ROUNDS] [REPS] [CASE]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
NATIVE=$1 WEB=$2 WEB_MT=
shift 2
case "${1:-}" in *.js) WEB_MT=$1; shift ;; esac
ROUNDS=${1:-3} REPS=${2:-10} CASE=${3:-bert-base}
[ -x "$NATIVE" ] || { echo "bench_web: no native mha-bench at $NATIVE" >&2; exit 1; }
[ -f "$WEB" ] || { echo "bench_web: no WebAssembly mha-bench at $WEB" >&2; exit 1; }
[ -z "$WEB_MT" ] || [ -f "$WEB_MT" ] || { echo "bench_web: no threaded WebAssembly mha-bench at $WEB_MT" >&2; exit 1; }
seconds() { sed -n "s/^case=$CASE .*seconds_per_trace=\([0-9.]*\).*/\1/p"; }
kernel() { sed -n 's/^# matmul kernel: //p'; }
threads() { sed -n 's/^# threads: //p'; }
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
least() { awk -v a="$1" -v b="${2:-1e30}" 'BEGIN { print (a < b) ? a : b }'; }
best_native= best_web= best_mt= k_native= k_web= t_native= t_mt=
r=1
while [ "$r" -le "$ROUNDS" ]; do
    out_n=$("$NATIVE" --case "$CASE" --reps "$REPS")
    out_w=$(node "$WEB" --case "$CASE" --reps "$REPS")
    n=$(printf '%s\n' "$out_n" | seconds) w=$(printf '%s\n' "$out_w" | seconds)
    k_native=$(printf '%s\n' "$out_n" | kernel) k_web=$(printf '%s\n' "$out_w" | kernel)
    t_native=$(printf '%s\n' "$out_n" | threads)
    [ -n "$n" ] && [ -n "$w" ] || { echo "bench_web: no seconds_per_trace for case $CASE" >&2; exit 1; }
    line="round=$r case=$CASE native_seconds=$n web_seconds=$w"
    if [ -n "$WEB_MT" ]; then
        out_m=$(node "$WEB_MT" --case "$CASE" --reps "$REPS")
        m=$(printf '%s\n' "$out_m" | seconds) t_mt=$(printf '%s\n' "$out_m" | threads)
        [ -n "$m" ] || { echo "bench_web: no seconds_per_trace for case $CASE (threaded)" >&2; exit 1; }
        line="$line web_mt_seconds=$m"
        best_mt=$(least "$m" "$best_mt")
    fi
    echo "$line load=$(load)"
    best_native=$(least "$n" "$best_native")
    best_web=$(least "$w" "$best_web")
    r=$((r + 1))
done
awk -v n="$best_native" -v w="$best_web" -v m="$best_mt" -v c="$CASE" -v kn="$k_native" -v kw="$k_web" \
    -v tn="$t_native" -v tm="$t_mt" 'BEGIN {
    printf "case=%s web_over_native=%.2f", c, w / n
    if (m != "") printf " web_mt_over_native=%.2f", m / n
    printf " native_seconds=%s web_seconds=%s", n, w
    if (m != "") printf " web_mt_seconds=%s", m
    printf " kernel_native=%s kernel_web=%s", kn, kw
    if (m != "") printf " threads_native=%s threads_web_mt=%s", tn, tm
    printf "\n" }'
