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
// x^y for x > 0 (results in the normal range), sin x and cos x for |x| < 2^20: computed with about 100 bits
// and rounded once, so correctly rounded in practice, the same on every platform. (Outside those ranges,
// libm's.) NOT YET USED by the trace: on the sinusoidal positions' inputs glibc's pow, sin and cos are not
// correctly rounded for 0.2 %, 0.3 % and 0.1 % of them (test_exactmath counts), so the positions still come
// from libm, and these wait for exact emulations of glibc's algorithms, as core_exp is.
double core_pow(double x, double y);
double core_sin(double x);
double core_cos(double x);

#endif
