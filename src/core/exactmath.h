// exp, log1p, pow, sin and cos with the same bits on every platform. Linux' numbers (glibc on an
// x86-64 with FMA) are the reference the tests hold, so these compute exactly what glibc computes
// there: the same algorithms and constants, with the fused multiply-adds glibc's FMA build uses
// done exactly in software. MinGW's exp and log1p differ from glibc's in the last digit on some
// inputs; the core never calls them.
#ifndef MHA_EXACTMATH_H
#define MHA_EXACTMATH_H

#include <stdbool.h>
#include <stddef.h>

// e^x, within 0.51 ulp (glibc's exp, as built for x86-64 with FMA). By the FMA instruction where
// the CPU has it, else emulated (core_exp_portable): the same bits.
double core_exp(double x);
double core_exp_portable(double x);
// y[j] = e^(x[j] - shift) for j < n, exactly core_exp's bits (0 from x[j] - shift < -746 on, as
// core_exp gives there too); four at a time with AVX2 and FMA where the CPU has them. y may alias
// x.
void core_exp_row(double *y, const double *x, double shift, size_t n);
void core_exp_row_portable(double *y, const double *x, double shift, size_t n);
// a * b + c rounded once: emulated in plain C (exact where exp uses it: no overflow, no underflow),
// and by the instruction (core_fma_hw; the emulation again where core_fma_hw_available() is false).
// For the tests.
double core_fma_portable(double a, double b, double c);
double core_fma_hw(double a, double b, double c);
bool core_fma_hw_available(void);
// ln(1 + x), within 1 ulp (glibc's log1p, Sun's fdlibm algorithm).
double core_log1p(double x);
// sin x and cos x as glibc computes them on x86-64 (IBM's algorithm, its FMA build), within 0.52
// ulp; for |x| >= 105414350, inf and NaN, libm's. x^y as glibc's pow (ARM's algorithm, its FMA
// build) for x positive and normal, 2^-65 <= |y| < 2^63 and 2^-54 <= |y ln x| < 512; libm's outside
// (the core never goes there).
double core_sin(double x);
double core_cos(double x);
double core_pow(double x, double y);

#endif
