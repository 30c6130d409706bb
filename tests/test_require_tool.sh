#!/bin/sh
# require_tool (tests/require.sh, tests/require_tool.py): a missing tool skips the test (77) on a developer's
# machine and fails it (1) where MHA_REQUIRE_TOOLS is set (CI); check.sh's skip fails there too; and no script
# test skips another way (every exit 77 goes through them).
# usage: test_require_tool.sh SOURCE_DIR
src=$1
. "$src/tests/check.sh"
run_sh() { # run_sh REQUIRE_TOOLS TOOL: the exit status of a script that requires TOOL
    env -u MHA_REQUIRE_TOOLS ${1:+MHA_REQUIRE_TOOLS=1} sh -c '. "$1/tests/require.sh"; require_tool "$2" some-package; exit 0' _ "$src" "$2" \
        >/dev/null 2>&1
    echo $?
}
[ "$(run_sh "" no-such-tool-mha)" = 77 ] && ok || bad "a missing tool: not skipped (77)"
[ "$(run_sh 1 no-such-tool-mha)" = 1 ] && ok || bad "a missing tool under MHA_REQUIRE_TOOLS: not failed (1)"
[ "$(run_sh 1 sh)" = 0 ] && ok || bad "a tool that is there stopped the test"
if command -v python3 >/dev/null 2>&1; then
    run_py() {
        env -u MHA_REQUIRE_TOOLS ${1:+MHA_REQUIRE_TOOLS=1} python3 -c 'import sys; sys.path.insert(0, sys.argv[1] + "/tests")
from require_tool import require_tool
require_tool(sys.argv[2], "some-package")' "$src" "$2" >/dev/null 2>&1
        echo $?
    }
    [ "$(run_py "" no-such-tool-mha)" = 77 ] && ok || bad "python: a missing tool not skipped (77)"
    [ "$(run_py 1 no-such-tool-mha)" = 1 ] && ok || bad "python: a missing tool under MHA_REQUIRE_TOOLS not failed (1)"
    [ "$(run_py 1 sh)" = 0 ] && ok || bad "python: a tool that is there stopped the test"
fi
# check.sh's skip: a part left out is a failure under MHA_REQUIRE_TOOLS.
out=$(MHA_REQUIRE_TOOLS=1 sh -c '. "$1/tests/check.sh"; ok; skip "a part"; check_done t' _ "$src" 2>&1)
[ $? = 1 ] && ok || bad "check.sh: a skipped part under MHA_REQUIRE_TOOLS did not fail: $out"
out=$(env -u MHA_REQUIRE_TOOLS sh -c '. "$1/tests/check.sh"; ok; skip "a part"; check_done t' _ "$src" 2>&1)
[ $? = 77 ] && ok || bad "check.sh: a skipped part did not skip (77): $out"
# Every script test skips through require.sh / require_tool.py / check.sh (which honour MHA_REQUIRE_TOOLS).
others=$(grep -l -E 'exit 77|exit\(77\)' "$src"/tests/*.sh "$src"/tests/*.py 2>/dev/null |
    grep -v -E '/(require\.sh|require_tool\.py|check\.sh|test_require_tool\.sh)$')
[ -z "$others" ] && ok || bad "tests that skip on their own, not through require_tool: $others"
check_done test_require_tool
