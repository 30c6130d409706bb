#!/bin/sh
# The house's shape (docs/style.md), checked:
#  - every hand-written C file (.c, .h, .inc; src/, tests/, bench/; not src/**/generated/, which tools/gen_*.py write) is as
#    clang-format 14 leaves it with the repository's .clang-format (4 spaces, 100 columns);
#  - at most 5 functions of src/ over 80 lines and none over 120; no hand-written file of src/ over 900 lines
#    (tools/long_functions.py measures them);
#  - at most 5 functions of src/ with more than 8 parameters (tools/wide_signatures.py counts them).
# usage: test_format.sh SOURCE_DIR
# Exit 77 (skipped) without clang-format 14 or python3, failed instead where MHA_REQUIRE_TOOLS is set (CI).
src=$1
. "$src/tests/check.sh"
. "$src/tests/require.sh"
cd "$src" || exit 1

# Only clang-format 14 (Debian 12's): another version formats a few constructs differently.
fmt=
for f in clang-format-14 clang-format; do
    if command -v "$f" >/dev/null 2>&1 && "$f" --version | grep -q 'version 14\.'; then fmt=$f; break; fi
done
[ -n "$fmt" ] || missing_tool "clang-format 14 (Debian: clang-format-14)"
require_tool python3 python3

files=$(find src tests bench \( -name '*.[ch]' -o -name '*.inc' \) -not -path '*/generated/*' | sort)
n=0
for f in $files; do
    n=$((n + 1))
    # A .inc is C included by a .c (the page's part of the window): formatted as C.
    as=$f
    case $f in *.inc) as=${f%.inc}.c ;; esac
    if "$fmt" --style=file --assume-filename="$as" --dry-run --Werror <"$f" >/dev/null 2>&1; then ok
    else bad "$f is not as clang-format leaves it: run  $fmt -i $f  (a .inc: --assume-filename=x.c)"; fi
done
[ "$n" -gt 150 ] && ok || bad "only $n C files found under src/, tests/ and bench/"

report=$(python3 tools/long_functions.py src) || bad "tools/long_functions.py failed"
over80=$(printf '%s\n' "$report" | sed -n 's/^\([0-9]*\) functions over 80 lines:$/\1/p')
[ -n "$over80" ] && ok || bad "tools/long_functions.py printed no count"
[ "${over80:-99}" -le 5 ] && ok || bad "$over80 functions over 80 lines (at most 5):
$report"
over120=$(printf '%s\n' "$report" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /:/ && $1 > 120' | wc -l)
[ "$over120" -eq 0 ] && ok || bad "$over120 functions over 120 lines:
$report"
bigfiles=$(printf '%s\n' "$report" | sed -n 's/^\([0-9]*\) files over 900 lines:$/\1/p')
[ "${bigfiles:-99}" -eq 0 ] && ok || bad "${bigfiles:-?} files over 900 lines:
$report"
wide=$(python3 tools/wide_signatures.py src) || bad "tools/wide_signatures.py failed"
over8=$(printf '%s\n' "$wide" | sed -n 's/^[0-9]* functions with more than 6 parameters, \([0-9]*\) with more than 8:$/\1/p')
[ -n "$over8" ] && ok || bad "tools/wide_signatures.py printed no count"
[ "${over8:-99}" -le 5 ] && ok || bad "$over8 functions with more than 8 parameters (at most 5; a Box or a request struct):
$(python3 tools/wide_signatures.py --over 8 src)"
check_done test_format "($n C files)"
