#!/bin/sh
# Commit messages (issue 37, "from now on"): every commit after 42a294b (the last one before the rule was
# checked) has a subject of at most 72 characters, and a commit that is not a merge says why in a body.
# usage: test_commits.sh SOURCE_DIR
# Outside a git clone (a source tarball) there is no history to check: skipped (77), failed under
# MHA_REQUIRE_TOOLS (CI runs on a clone). A shallow clone checks the commits it has.
src=$1
. "$src/tests/check.sh"
. "$src/tests/require.sh"
require_tool git git
cd "$src" || exit 1
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || missing_tool "a git clone of the sources"
base=42a294b
if git cat-file -e "$base^{commit}" 2>/dev/null; then range="$base..HEAD"; else range="HEAD"; fi
n=0
for c in $(git rev-list --no-merges "$range"); do
    n=$((n + 1))
    subject=$(git log -1 --format=%s "$c")
    len=$(printf "%s" "$subject" | LC_ALL=C.UTF-8 wc -m)
    [ "$len" -le 72 ] && ok || bad "$(git log -1 --format=%h "$c"): a subject of $len characters (at most 72): $subject"
    body=$(git log -1 --format=%b "$c" | tr -d '[:space:]')
    [ -n "$body" ] && ok || bad "$(git log -1 --format=%h "$c"): no body saying why: $subject"
done
for c in $(git rev-list --merges "$range"); do
    n=$((n + 1))
    subject=$(git log -1 --format=%s "$c")
    len=$(printf "%s" "$subject" | LC_ALL=C.UTF-8 wc -m)
    [ "$len" -le 72 ] && ok || bad "$(git log -1 --format=%h "$c"): a merge subject of $len characters"
done
[ "$n" -gt 0 ] || ok # no commit after the base yet: nothing to check, and that is not a failure
check_done test_commits "($n commits after $base)"
