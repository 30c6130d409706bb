// exp, log1p, pow, sin and cos with the same bits on every platform. Linux' numbers (glibc on an x86-64 with FMA) are the
// reference the tests hold, so these compute exactly what glibc computes there: the same algorithms and
// constants, with the fused multiply-adds glibc's FMA build uses done exactly in software. MinGW's exp and
// log1p differ from glibc's in the last digit on some inputs; the core never calls them.
#ifndef MHA_EXACTMATH_H
#define MHA_EXACTMATH_H

// e^x, within 0.51 ulp (glibc's exp, as built for x86-64 with FMA).
double core_exp(double x);
// ln(1 + x), within 1 ulp (glibc's log1p, Sun's fdlibm algorithm).
double core_log1p(double x);
// sin x and cos x as glibc computes them on x86-64 (IBM's algorithm, its FMA build), within 0.52 ulp; for
// |x| >= 105414350, inf and NaN, libm's.
// x^y as glibc's pow (ARM's algorithm, its FMA build) for x positive and normal, 2^-65 <= |y| < 2^63 and
// 2^-54 <= |y ln x| < 512; libm's outside (the core never goes there).
double core_sin(double x);
double core_cos(double x);
double core_pow(double x, double y);

#endif
