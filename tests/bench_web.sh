#!/bin/sh
# The page's speed beside the native build's: bert-base (128 tokens, d_model 768, 12 heads), one full trace,
# by the same mha-bench compiled twice: for WebAssembly (build-web-cli/mha-bench.js under Node: V8, the engine
# of Chromium's page, single-threaded like the page) and natively (build/mha-bench, its heads on two threads).
# The two alternate, ROUNDS times, in one run; the fastest of each is compared. A benchmark that prints, never
# a timed test: it fails only when a program fails or is missing.
#   sh tests/bench_web.sh NATIVE_MHA_BENCH WEB_MHA_BENCH_JS [ROUNDS (3)] [REPS (10)] [CASE (bert-base)]
# Prints per round `round=R native_seconds=X web_seconds=Y load=L`, then
# `case=bert-base web_over_native=RATIO native_seconds=X web_seconds=Y kernel_native=K kernel_web=K`.
set -eu
[ $# -ge 2 ] || { echo "usage: sh tests/bench_web.sh NATIVE_MHA_BENCH WEB_MHA_BENCH_JS [ROUNDS] [REPS] [CASE]" >&2; exit 2; }
NATIVE=$1 WEB=$2 ROUNDS=${3:-3} REPS=${4:-10} CASE=${5:-bert-base}
[ -x "$NATIVE" ] || { echo "bench_web: no native mha-bench at $NATIVE" >&2; exit 1; }
[ -f "$WEB" ] || { echo "bench_web: no WebAssembly mha-bench at $WEB" >&2; exit 1; }
seconds() { sed -n "s/^case=$CASE .*seconds_per_trace=\([0-9.]*\).*/\1/p"; }
kernel() { sed -n 's/^# matmul kernel: //p'; }
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
best_native= best_web= k_native= k_web=
r=1
while [ "$r" -le "$ROUNDS" ]; do
    out_n=$("$NATIVE" --case "$CASE" --reps "$REPS")
    out_w=$(node "$WEB" --case "$CASE" --reps "$REPS")
    n=$(printf '%s\n' "$out_n" | seconds) w=$(printf '%s\n' "$out_w" | seconds)
    k_native=$(printf '%s\n' "$out_n" | kernel) k_web=$(printf '%s\n' "$out_w" | kernel)
    [ -n "$n" ] && [ -n "$w" ] || { echo "bench_web: no seconds_per_trace for case $CASE" >&2; exit 1; }
    echo "round=$r case=$CASE native_seconds=$n web_seconds=$w load=$(load)"
    best_native=$(awk -v a="$n" -v b="${best_native:-1e30}" 'BEGIN { print (a < b) ? a : b }')
    best_web=$(awk -v a="$w" -v b="${best_web:-1e30}" 'BEGIN { print (a < b) ? a : b }')
    r=$((r + 1))
done
awk -v n="$best_native" -v w="$best_web" -v c="$CASE" -v kn="$k_native" -v kw="$k_web" 'BEGIN {
    printf "case=%s web_over_native=%.2f native_seconds=%s web_seconds=%s kernel_native=%s kernel_web=%s\n", c, w / n, n, w, kn, kw }'
