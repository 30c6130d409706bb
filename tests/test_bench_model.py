#!/usr/bin/env python3
"""mha-bench --model on a tiny checkpoint from bench/make_checkpoint.py: it runs, prints every case (the --json
process, the open, the open to the next token, the forward pass, the memory beyond the mapping) and exits 0.
No timing is checked. Usage: test_bench_model.py MHA_BENCH SOURCE_DIR"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    bench, src = sys.argv[1], sys.argv[2]
    root = tempfile.mkdtemp(prefix="mha-bench-model-")
    d = os.path.join(root, "tiny")
    subprocess.run([sys.executable, os.path.join(src, "bench", "make_checkpoint.py"), "tiny", d], check=True)
    env = dict(os.environ, MHA_PYTHON=sys.executable)
    r = subprocess.run([bench, "--model", d, "--reps", "1"], capture_output=True, text=True, env=env)
    shutil.rmtree(root)
    failures = []
    if r.returncode != 0:
        failures.append("exit %d: %s" % (r.returncode, r.stderr.strip()))
    for case in ("model_json", "model_open", "model_open_to_output", "model_forward", "model_memory"):
        if not re.search(r"^case=%s " % case, r.stdout, re.M):
            failures.append("no case=%s line" % case)
    m = re.search(r"beyond_mapping_mb=([0-9.]+)", r.stdout)
    if not m or not 0 <= float(m.group(1)) < 1000:
        failures.append("beyond_mapping_mb missing or unlikely: %r" % (m and m.group(1)))
    if "ratio=" not in r.stdout:
        failures.append("no NumPy ratio")
    print(r.stdout)
    for f in failures:
        print("FAIL:", f)
    print("7 checks, %d failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
