#!/bin/sh
# Runs test_numpy_features.py with the first python3 that has NumPy (PATH, then the system's):
#   sh tests/test_numpy_features.sh BIN SOURCE_DIR [COUNT]     exits 77 (skipped) when none has NumPy.
bin=$1 src=$2 count=${3:-40}
for py in python3 /usr/bin/python3 /usr/local/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import numpy' 2>/dev/null; then
        exec "$py" "$src/tests/test_numpy_features.py" "$bin" "$count"
    fi
done
echo "no python3 with NumPy (Debian: python3-numpy): skipped"
exit 77
