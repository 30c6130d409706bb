#!/usr/bin/env python3
# The NumPy side of mha-bench: the same multi-head attention, the same sizes, timed the same way
# (minimum over repetitions), so `mha-bench` can be read beside the script a teacher would write.
#
#   /usr/bin/python3 bench/numpy_bench.py [--reps N] [--case NAME]   (`mha-bench --versus-numpy` runs it)
#
# Prints `case=NAME tokens=N d_model=D heads=H seconds_per_trace=X`, then the BLAS NumPy loaded
# (read from /proc/self/maps, so it says what really runs, not what NumPy was built against).
import argparse
import time

import numpy as np

CASES = [("classroom", 3, 4, 2), ("paper", 10, 512, 8), ("bert-base", 128, 768, 12), ("bert-long", 512, 768, 12)]


def trace(E, W_Q, W_K, W_V, W_O):
    # Every intermediate of every head is computed (as mha-tracer keeps them all).
    d_k = W_Q[0].shape[1]
    Z = []
    for i in range(len(W_Q)):
        Q, K, V = E @ W_Q[i], E @ W_K[i], E @ W_V[i]
        scores = Q @ K.T
        scaled = scores / np.sqrt(d_k)
        e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
        weights = e / e.sum(axis=1, keepdims=True)
        Z.append(weights @ V)
    concat = np.concatenate(Z, axis=1)
    return concat @ W_O


def blas_in_use():
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if any(k in path for k in ("blas", "lapack", "mkl", "blis")):
                libs.add(path)
    return sorted(libs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--case", help="one case only")
    args = ap.parse_args()
    reps = max(1, args.reps)
    for name, n, d_model, heads in CASES:
        if args.case and name != args.case:
            continue
        d_k = d_model // heads
        rng = np.random.default_rng(42)
        E = rng.normal(0, 1, (n, d_model))
        rng = np.random.default_rng(7)
        W_Q, W_K, W_V = [], [], []
        for _ in range(heads):
            W_Q.append(rng.normal(0, 1, (d_model, d_k)))
            W_K.append(rng.normal(0, 1, (d_model, d_k)))
            W_V.append(rng.normal(0, 1, (d_model, d_k)))
        W_O = rng.normal(0, 0.5, (heads * d_k, d_model))
        case_reps = (reps + 3) // 4 if n >= 512 else reps
        best = float("inf")
        for _ in range(case_reps):
            t0 = time.perf_counter()
            trace(E, W_Q, W_K, W_V, W_O)
            best = min(best, time.perf_counter() - t0)
        print(f"case={name} tokens={n} d_model={d_model} heads={heads} seconds_per_trace={best:.6f}", flush=True)
    print("numpy=%s blas=%s" % (np.__version__, ",".join(blas_in_use()) or "?"))


if __name__ == "__main__":
    main()
