// exp and log1p with the same bits on every platform. Linux' numbers (glibc on an x86-64 with FMA) are the
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
// x^y for x > 0 (results in the normal range): about 100 bits rounded once, so correctly rounded in
// practice and the same everywhere. NOT YET USED by the trace: glibc's pow is not correctly rounded on
// 3503 of the 4.2 million 10000^(2i/d), d <= 4096, of the sinusoidal positions (test_exactmath counts), so
// the positions' 10000^(2i/d) still comes from libm (MinGW's differs from glibc's on about 1 in 3500).
double core_sin(double x);
double core_cos(double x);
double core_pow(double x, double y);

#endif
