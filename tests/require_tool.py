"""require_tool for the Python tests: what a test cannot run without.

require_tool(name, package): `name` on PATH, else the test stops: skipped (exit 77, ctest's SKIP_RETURN_CODE), or
failed (exit 1) where MHA_REQUIRE_TOOLS is set, as in CI (which installs every tool: tools/install-deps.sh --tests).
missing_tool(what): the same for what is not a command.
"""
import os
import shutil
import sys


def missing_tool(what):
    if os.environ.get("MHA_REQUIRE_TOOLS"):
        print("FAIL: %s missing, and MHA_REQUIRE_TOOLS is set (CI installs every tool the tests use)" % what)
        sys.exit(1)
    print("SKIP: %s missing" % what)
    sys.exit(77)


def require_tool(name, package):
    if not shutil.which(name):
        missing_tool("%s (Debian: %s)" % (name, package))
