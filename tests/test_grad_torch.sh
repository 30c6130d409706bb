#!/bin/sh
# Runs test_grad_torch.py with the first python3 that has PyTorch and NumPy (PATH, then the system's):
#   sh tests/test_grad_torch.sh BIN SOURCE_DIR [COUNT]     exits 77 (skipped) when none has them.
# The finite-difference test (test_grad) checks the same gradients without Python and always runs.
bin=$1 src=$2 count=${3:-36}
for py in python3 /usr/bin/python3 /usr/local/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import numpy, torch' 2>/dev/null; then
        exec "$py" "$src/tests/test_grad_torch.py" "$bin" "$count"
    fi
done
echo "no python3 with PyTorch and NumPy (Debian: python3-torch): skipped"
exit 77
