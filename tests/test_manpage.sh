#!/bin/sh
# test_manpage.sh MHA_TRACER PAGE: the manual page made from the option table (mha-manpage) renders without a
# warning from man and groff, and names every option --help lists. Skipped (77) where man is not installed.
set -u
bin=$1 page=$2
. "$(dirname "$0")/require.sh"
require_tool man man-db
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
MANWIDTH=100 man --warnings -E UTF-8 -l "$page" >"$out/man.txt" 2>"$out/man.err" || { echo "FAIL: man exits $?"; exit 1; }
if [ -s "$out/man.err" ]; then echo "FAIL: man warns:"; cat "$out/man.err"; exit 1; fi
"$bin" --help | grep -o -- '--[a-z-]*' | sort -u >"$out/options" || exit 1
n=$(wc -l <"$out/options")
[ "$n" -ge 20 ] || { echo "FAIL: only $n options in --help"; exit 1; }
fails=0
while read -r o; do
  grep -q -- "$o" "$out/man.txt" || { echo "FAIL: $o is in --help, not in the manual page"; fails=$((fails + 1)); }
done <"$out/options"
[ "$fails" -eq 0 ] || exit 1
echo "PASS: the manual page renders cleanly and names the $n options of --help"
