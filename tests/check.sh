# The shell twin of check.h, sourced by the script tests: ok and bad count the checks, skip names a part
# left out because a tool is missing, check_done ends the script: 1 when a check failed or none ran, else 77
# when a part was skipped (the test's SKIP_RETURN_CODE: ctest reports it as skipped, not passed), else 0.
pass=0
fail=0
skipped=
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# Where MHA_REQUIRE_TOOLS is set (CI installs every tool), a part skipped is a failure.
skip() {
    if [ -n "${MHA_REQUIRE_TOOLS:-}" ]; then bad "$* (a part skipped, and MHA_REQUIRE_TOOLS is set)"; return; fi
    skipped="$skipped${skipped:+; }$*"
    echo "SKIP: $*"
}
# check_done NAME [MORE]: the summary line (MORE after the counts), then the exit.
check_done() {
    echo "$1: $pass passed, $fail failed${2:+ $2}"
    [ "$fail" -eq 0 ] || exit 1
    [ "$pass" -gt 0 ] || { echo "FAIL: $1: no check ran"; exit 1; }
    [ -z "$skipped" ] || { echo "$1: skipped (exit 77): $skipped"; exit 77; }
    exit 0
}
