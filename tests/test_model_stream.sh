#!/bin/sh
# test_model_stream (issue 40, the window's stages): a tiny random Llama checkpoint and its float64 reference
# (tests/model_stream_ref.py, NumPy), then the C check of what the window keeps of layer 1 (tests/test_model_stream.c).
# usage: test_model_stream.sh TEST_PROGRAM SOURCE_DIR      Exit 77 (skipped) without a python3 with numpy.
prog=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$src/tests/with_python.sh" numpy "$src/tests/model_stream_ref.py" "$src" "$tmp" 1 || exit $?
"$prog" "$tmp/llama" "$tmp/expected.txt" 1
