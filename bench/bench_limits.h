// mha-bench --limits: the real program on lessons at the size limits, as separate processes
// (POSIX).
#ifndef MHA_BENCH_LIMITS_H
#define MHA_BENCH_LIMITS_H

#include <stdbool.h>

// Prints, for each lesson at a limit and each mode (--check, --json, --trace, --compare, --export,
// the window when there is a display), the wall time and the peak resident memory; then --train and
// the window's T on the training lessons at the limits (the window's longest turn of its loop after
// T). Returns 0 when every run ended as expected (a valid lesson: exit 0, the window: a first
// frame; the 64 MiB file of zeros: exit 2). training_only: only the training cases.
int bench_limits(const char *tracer, bool training_only);

#endif
