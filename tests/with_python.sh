#!/bin/sh
# Runs a Python test with the first python3 that has its modules (PATH, then the system's):
#   sh tests/with_python.sh "numpy torch" SCRIPT ARGS...     exits 77 (skipped) when none has them
# (Debian: python3-numpy, python3-torch), or 1 when MHA_REQUIRE_TOOLS is set: CI installs them.
modules=$1 script=$2
shift 2
imports=$(echo "$modules" | sed 's/ /, /g')
for py in python3 /usr/bin/python3 /usr/local/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c "import $imports" 2>/dev/null; then
        exec "$py" "$script" "$@"
    fi
done
. "$(dirname "$0")/require.sh"
missing_tool "a python3 with $imports (Debian: $(for m in $modules; do printf 'python3-%s ' "$m"; done))"
