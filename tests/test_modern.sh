#!/bin/sh
# Runs test_modern.py (issue 22: RoPE, kv_heads, windows) with the first python3 that has what MODE needs:
#   sh tests/test_modern.sh numpy|torch BIN SOURCE_DIR [COUNT]
# numpy: --json against NumPy; torch: --grad against PyTorch autograd. Exits 77 (skipped) when no python3
# has them, or fails when MHA_REQUIRE_TOOLS=1 (as .ci/run sets: there they must be installed).
mode=$1 bin=$2 src=$3 count=${4:-48}
modules=numpy
[ "$mode" = torch ] && modules="numpy, torch"
for py in python3 /usr/bin/python3 /usr/local/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c "import $modules" 2>/dev/null; then
        exec "$py" "$src/tests/test_modern.py" "$mode" "$bin" "$count"
    fi
done
echo "no python3 with $modules (Debian: python3-numpy, python3-torch)"
[ "$MHA_REQUIRE_TOOLS" = 1 ] && exit 1
echo "skipped"
exit 77
