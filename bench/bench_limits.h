// mha-bench --limits: the real program on lessons at the size limits, as separate processes (POSIX).
#ifndef MHA_BENCH_LIMITS_H
#define MHA_BENCH_LIMITS_H

// Prints, for each lesson at a limit and each mode (--check, --json, --trace, --compare, --export, the window
// when there is a display), the wall time and the peak resident memory. Returns 0 when every run ended as
// expected (a valid lesson: exit 0, the window: a first frame; the 64 MiB file of zeros: exit 2).
int bench_limits(const char *tracer);

#endif
