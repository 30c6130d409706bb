#!/bin/sh
# The house's rooms and floors (STYLE.md), checked by tools/call_graph.py over the .c files of src/: no files
# that use each other's functions (a pair, or a longer ring), and no use from a lower layer of a higher one
# (core and platform, then lesson, hf, model, render, app). First the checker itself, on a small house it must
# fault: a pair that calls each other, a ring of three, a call from core up to app.
# usage: test_layers.sh SOURCE_DIR
# Exit 77 (skipped) without python3, failed instead where MHA_REQUIRE_TOOLS is set (CI).
src=$1
. "$src/tests/check.sh"
. "$src/tests/require.sh"
require_tool python3 python3

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/core" "$tmp/app"
cat >"$tmp/core/a.c" <<'EOF'
// a (core): calls b, and up to app
static int own(void) { return 1; }
int a_one(void) { return b_one() + own() + app_top(); }
EOF
cat >"$tmp/core/b.c" <<'EOF'
/* b (core): calls a, and c's function through a table */
int b_one(void) { return a_one(); } // "c_one(" in a string or comment is no call
static int (*const TABLE[])(void) = {c_one};
EOF
cat >"$tmp/core/c.c" <<'EOF'
int c_one(void) { return a_one(); }
EOF
cat >"$tmp/app/top.c" <<'EOF'
int app_top(void) { return 0; }
EOF
out=$(python3 "$src/tools/call_graph.py" "$tmp")
[ $? = 1 ] && ok || bad "the checker passed a house with a ring and an upward call:
$out"
printf '%s\n' "$out" | grep -q '^  3 files: core/a.c, core/b.c, core/c.c$' && ok \
    || bad "the checker did not find the ring a -> b -> c -> a:
$out"
printf '%s\n' "$out" | grep -q '^  core/a.c -> app/top.c: app_top$' && ok \
    || bad "the checker did not find core's call of app:
$out"

out=$(python3 "$src/tools/call_graph.py" "$src/src")
rc=$?
files=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) files, [0-9]* file-to-file uses$/\1/p')
[ "${files:-0}" -gt 100 ] && ok || bad "tools/call_graph.py read only ${files:-no} files of src/"
[ $rc = 0 ] && ok || bad "circles or upward uses in src/ (tools/call_graph.py src):
$out"
check_done test_layers
