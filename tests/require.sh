# require_tool for the script tests (sourced): a tool a test cannot run without.
#   require_tool TOOL "DEBIAN-PACKAGE"   TOOL on PATH, else the test stops: skipped (exit 77, ctest's
#                                        SKIP_RETURN_CODE) — or failed (exit 1) where MHA_REQUIRE_TOOLS is set,
#                                        as in CI, which installs every tool (tools/install-deps.sh --tests).
#   missing_tool "WHAT"                  the same for what is not a command (a Python module, /proc, ...).
missing_tool() {
    if [ -n "${MHA_REQUIRE_TOOLS:-}" ]; then
        echo "FAIL: $1 missing, and MHA_REQUIRE_TOOLS is set (CI installs every tool the tests use)"
        exit 1
    fi
    echo "SKIP: $1 missing"
    exit 77
}
require_tool() {
    command -v "$1" >/dev/null 2>&1 || missing_tool "$1 (Debian: $2)"
}
