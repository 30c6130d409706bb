// exp, log1p, pow, sin and cos as glibc computes them on x86-64, in plain C11 arithmetic, so every
// platform gets Linux' bits (the build uses -ffp-contract=off; the fused multiply-adds are emulated
// exactly, below).
//
// exp: the table-driven algorithm of ARM's optimized-routines (Szabolcs Nagy), glibc's exp
// since 2.28: e^x = 2^(k/128) e^r, |r| <= ln2/256, e^r by a degree-5 polynomial; the constants
// below are that algorithm's (optimized-routines is MIT-licensed). glibc picks its FMA build on a
// CPU with FMA and AVX2; its contractions are written out here as fma_exact() calls. Where the CPU
// has the FMA instruction (it rounds a * b + c once, exactly what fma_exact emulates) exp uses it
// instead: the same bits, faster. log1p: Sun's fdlibm algorithm (freely granted: "Permission to
// use, copy, modify, and distribute this software is freely granted, provided that this notice is
// preserved"), with glibc's order of evaluation and, again, the products its x86-64 FMA build fuses
// (GCC's contraction of that code, read from GCC's widening_mul dump) as fma_exact() calls.
#include "core/exactmath.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/exp_table.h"

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

// s + e = a + b exactly (Knuth's TwoSum).
static void two_sum(double a, double b, double *s, double *e)
{
    double t = a + b, bb = t - a;
    *s = t;
    *e = (a - (t - bb)) + (b - bb);
}

// p + e = a * b exactly (Dekker's product with Veltkamp's split; |a|, |b| below 2^995).
static void two_prod(double a, double b, double *p, double *e)
{
    const double split = 134217729.0; // 2^27 + 1
    double t = a * b;
    double ca = split * a, ah = ca - (ca - a), al = a - ah;
    double cb = split * b, bh = cb - (cb - b), bl = b - bh;
    *p = t;
    *e = ((ah * bh - t) + ah * bl + al * bh) + al * bl;
}

// a + b rounded to odd: the sum truncated, its last bit set when anything was cut off.
static double sum_odd(double a, double b)
{
    double s, e;
    two_sum(a, b, &s, &e);
    uint64_t bs = bits_of(s);
    if (e != 0.0 && (bs & 1u) == 0) bs += ((e > 0) == (s > 0)) ? 1 : (uint64_t)-1;
    return from_bits(bs);
}

// a * b + c rounded once, as an FMA instruction gives it (Boldo and Melquiond's emulation through
// rounding to odd, IEEE Trans. Computers 57(4), 2008). Exact for the magnitudes exp uses (no
// overflow, no underflow).
static double fma_exact(double a, double b, double c)
{
    double uh, ul, th, tl;
    two_prod(a, b, &uh, &ul);
    two_sum(c, uh, &th, &tl);
    return th + sum_odd(tl, ul);
}

// a * b + c rounded once, by one of the two above.
typedef double (*Fma3)(double a, double b, double c);

// scale * tmp + scale for scale = H * 2^e (H in [1, 2)): the FMA done on H and scaled back exactly,
// so the split in two_prod never overflows. The result stays in the normal range.
static inline double scaled_fma(double scale, double tmp, double add, Fma3 fma3)
{
    uint64_t b = bits_of(scale);
    int e = (int)((b >> 52) & 0x7ff) - 1023;
    double h = from_bits((b & UINT64_C(0x800fffffffffffff)) | UINT64_C(0x3ff0000000000000));
    double down = from_bits((uint64_t)(1023 - e) << 52), up = from_bits((uint64_t)(1023 + e) << 52);
    return fma3(h, tmp, add * down) * up;
}

static const double INV_LN2_N = 0x1.71547652b82fep0 * 128, NEG_LN2_HI_N = -0x1.62e42fefa0000p-8,
                    NEG_LN2_LO_N = -0x1.cf79abc9e3b3ap-47, SHIFT = 0x1.8p52;
static const double C2 = 0x1.ffffffffffdbdp-2, C3 = 0x1.555555555543cp-3, C4 = 0x1.55555cf172b91p-5,
                    C5 = 0x1.1111167a4d017p-7;

static unsigned top12(double x) { return (unsigned)(bits_of(x) >> 52); }

// |x| from 512 on: the exponent of 2^(k/128) would leave the range; scaled in two steps.
static double exp_special(double tmp, uint64_t sbits, uint64_t ki)
{
    if ((ki & 0x80000000u) == 0) { // k > 0
        sbits -= UINT64_C(1009) << 52;
        double scale = from_bits(sbits);
        return 0x1p1009 * scaled_fma(scale, tmp, scale, fma_exact);
    }
    // k < 0: round once at the subnormal step, not twice. (glibc's FMA build fuses nothing here:
    // measured, 0 of 10^6 inputs differ this way, 188 with the two products fused.)
    sbits += UINT64_C(1022) << 52;
    double scale = from_bits(sbits);
    double y = scale + scale * tmp;
    if (y < 1.0) {
        double lo = scale - y + scale * tmp;
        double hi = 1.0 + y;
        lo = 1.0 - hi + y + lo;
        y = (hi + lo) - 1.0;
        if (y == 0.0) y = 0.0;
    }
    return 0x1p-1022 * y;
}

// e^x with fma3 for the fused multiply-adds (inlined into each caller below with its own fma3).
static inline double exp_with(double x, Fma3 fma3)
{
    unsigned abstop = top12(x) & 0x7ff;
    if (abstop - top12(0x1p-54) >= top12(512) - top12(0x1p-54)) {
        if ((int)abstop - (int)top12(0x1p-54) < 0) return 1.0 + x; // |x| < 2^-54
        if (abstop >= top12(1024)) {
            if (bits_of(x) == bits_of(-INFINITY)) return 0.0;
            if (abstop >= top12(INFINITY)) return 1.0 + x;
            return (bits_of(x) >> 63) ? 0.0 : HUGE_VAL;
        }
        abstop = 0; // 512 <= |x| < 1024: exp_special
    }
    // x = k ln2/128 + r, |r| <= ln2/256: kd = round(x 128/ln2) by adding 1.5 * 2^52.
    double kd = fma3(INV_LN2_N, x, SHIFT);
    uint64_t ki = bits_of(kd);
    kd -= SHIFT;
    double r = fma3(kd, NEG_LN2_LO_N, fma3(kd, NEG_LN2_HI_N, x));
    // 2^(k/128) = scale (1 + tail)
    size_t idx = 2 * (size_t)(ki % 128);
    uint64_t top = ki << 45;
    double tail = from_bits(exp_table[idx]);
    uint64_t sbits = exp_table[idx + 1] + top;
    // e^x = scale + scale (tail + e^r - 1)
    double r2 = r * r;
    double tmp = fma3(r2 * r2, fma3(r, C5, C4), fma3(r2, fma3(r, C3, C2), tail + r));
    if (abstop == 0) return exp_special(tmp, sbits, ki);
    double scale = from_bits(sbits);
    return scaled_fma(scale, tmp, scale, fma3);
}

double core_exp_portable(double x) { return exp_with(x, fma_exact); }

double core_fma_portable(double a, double b, double c) { return fma_exact(a, b, c); }

// e^d, 0 straight away from -746 down: past the smallest subnormal, the value exp_with gives there
// anyway, without its slow two-step scaling (common with large random weights).
static inline double core_exp_shifted_one(double d, double (*exp1)(double))
{
    return d < -746.0 ? 0.0 : exp1(d);
}

void core_exp_row_portable(double *y, const double *x, double shift, size_t n)
{
    for (size_t j = 0; j < n; j++) y[j] = core_exp_shifted_one(x[j] - shift, core_exp_portable);
}

// The FMA instruction, where the compiler can target it and the CPU has it (checked at run time, so
// the build runs everywhere). x86-64 with GCC or clang (MinGW included); elsewhere the portable
// code only.
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define EXACT_HAVE_FMA 1
#include <immintrin.h>

__attribute__((target("fma"))) static inline double fma_hw(double a, double b, double c)
{
    return _mm_cvtsd_f64(_mm_fmadd_sd(_mm_set_sd(a), _mm_set_sd(b), _mm_set_sd(c)));
}

__attribute__((target("fma"))) static double exp_hw(double x) { return exp_with(x, fma_hw); }

bool core_fma_hw_available(void) { return __builtin_cpu_supports("fma"); }

double core_fma_hw(double a, double b, double c) { return fma_hw(a, b, c); }

double core_exp(double x) { return core_fma_hw_available() ? exp_hw(x) : core_exp_portable(x); }

// Four lanes of exp_with's main path (0x1p-54 <= |x| < 512) with AVX2 and the FMA instruction: the
// same operations in the same order, the table read by gathers. scaled_fma's detour through H is
// not needed with the instruction (it never overflows; the result is normal, so scaling by 2^e is
// exact either way). Lanes outside that range, and the tail of the row, go through exp_hw one by
// one.
__attribute__((target("avx2,fma"))) static void exp_row_avx2(double *y, const double *x,
                                                             double shift, size_t n)
{
    const __m256d inv = _mm256_set1_pd(INV_LN2_N), sh = _mm256_set1_pd(SHIFT),
                  hi = _mm256_set1_pd(NEG_LN2_HI_N), lo = _mm256_set1_pd(NEG_LN2_LO_N),
                  c2 = _mm256_set1_pd(C2), c3 = _mm256_set1_pd(C3), c4 = _mm256_set1_pd(C4),
                  c5 = _mm256_set1_pd(C5), s = _mm256_set1_pd(shift);
    const __m256i lowest = _mm256_set1_epi64x(top12(0x1p-54) - 1),
                  highest = _mm256_set1_epi64x(top12(512)), m127 = _mm256_set1_epi64x(127),
                  m7ff = _mm256_set1_epi64x(0x7ff), one = _mm256_set1_epi64x(1);
    const long long *table = (const long long *)(const void *)exp_table;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        __m256d d = _mm256_sub_pd(_mm256_loadu_pd(x + j), s);
        __m256i abstop = _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(d), 52), m7ff);
        __m256i in = _mm256_and_si256(_mm256_cmpgt_epi64(abstop, lowest),
                                      _mm256_cmpgt_epi64(highest, abstop));
        __m256d kd = _mm256_fmadd_pd(inv, d, sh);
        __m256i ki = _mm256_castpd_si256(kd);
        kd = _mm256_sub_pd(kd, sh);
        __m256d r = _mm256_fmadd_pd(kd, lo, _mm256_fmadd_pd(kd, hi, d));
        __m256i idx = _mm256_slli_epi64(_mm256_and_si256(ki, m127), 1);
        __m256d tail = _mm256_castsi256_pd(_mm256_i64gather_epi64(table, idx, 8));
        __m256i sbits =
            _mm256_add_epi64(_mm256_i64gather_epi64(table, _mm256_add_epi64(idx, one), 8),
                             _mm256_slli_epi64(ki, 45));
        __m256d r2 = _mm256_mul_pd(r, r);
        __m256d tmp = _mm256_fmadd_pd(
            _mm256_mul_pd(r2, r2), _mm256_fmadd_pd(r, c5, c4),
            _mm256_fmadd_pd(r2, _mm256_fmadd_pd(r, c3, c2), _mm256_add_pd(tail, r)));
        __m256d scale = _mm256_castsi256_pd(sbits);
        int inside = _mm256_movemask_pd(_mm256_castsi256_pd(in));
        double dl[4];
        _mm256_storeu_pd(dl, d); // before y is written: y may alias x
        _mm256_storeu_pd(y + j, _mm256_fmadd_pd(scale, tmp, scale));
        for (int l = 0; l < 4; l++)
            if (!(inside >> l & 1)) y[j + (size_t)l] = core_exp_shifted_one(dl[l], exp_hw);
    }
    for (; j < n; j++) y[j] = core_exp_shifted_one(x[j] - shift, exp_hw);
}

void core_exp_row(double *y, const double *x, double shift, size_t n)
{
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        exp_row_avx2(y, x, shift, n);
        return;
    }
    core_exp_row_portable(y, x, shift, n);
}
#else
bool core_fma_hw_available(void) { return false; }

double core_fma_hw(double a, double b, double c) { return fma_exact(a, b, c); }

double core_exp(double x) { return core_exp_portable(x); }

void core_exp_row(double *y, const double *x, double shift, size_t n)
{
    core_exp_row_portable(y, x, shift, n);
}
#endif

// --- log1p: fdlibm's, in glibc's order of evaluation ---
static const double LN2_HI = 6.93147180369123816490e-01, LN2_LO = 1.90821492927058770002e-10,
                    TWO54 = 1.80143985094819840000e+16;
static const double LP[] = {0.0,
                            6.666666666666735130e-01,
                            3.999999999940941908e-01,
                            2.857142874366239149e-01,
                            2.222219843214978396e-01,
                            1.818357216161805012e-01,
                            1.531383769920937332e-01,
                            1.479819860511658591e-01};

static int32_t high_word(double x) { return (int32_t)(bits_of(x) >> 32); }

static double with_high_word(double x, int32_t hi)
{
    return from_bits((bits_of(x) & UINT64_C(0xffffffff)) | (uint64_t)(uint32_t)hi << 32);
}

double core_log1p(double x)
{
    double hfsq, f = 0, c = 0, s, z, R, u;
    int32_t k, hx, hu = 0, ax;
    hx = high_word(x);
    ax = hx & 0x7fffffff;
    k = 1;
    if (hx < 0x3fda827a) { // 1 + x < sqrt(2)+
        if (ax >= 0x3ff00000) { // x <= -1
            if (x == -1.0) return -HUGE_VAL;
            return NAN;
        }
        if (ax < 0x3e200000) { // |x| < 2^-29
            if (TWO54 + x > 0.0 && ax < 0x3c900000) return x; // |x| < 2^-54
            return x - x * x * 0.5;
        }
        if (hx > 0 || hx <= (int32_t)0xbfd2bec3) { // sqrt(2)/2- <= 1 + x < sqrt(2)+
            k = 0;
            f = x;
            hu = 1;
        }
    } else if (hx >= 0x7ff00000) return x + x;
    if (k != 0) {
        if (hx < 0x43400000) {
            u = 1.0 + x;
            hu = high_word(u);
            k = (hu >> 20) - 1023;
            c = (k > 0) ? 1.0 - (u - x) : x - (u - 1.0); // the rounding error of 1 + x
            c /= u;
        } else {
            u = x;
            hu = high_word(u);
            k = (hu >> 20) - 1023;
            c = 0;
        }
        hu &= 0x000fffff;
        if (hu < 0x6a09e) { // u ~< sqrt(2)
            u = with_high_word(u, hu | 0x3ff00000);
        } else {
            k += 1;
            u = with_high_word(u, hu | 0x3fe00000);
            hu = (0x00100000 - hu) >> 2;
        }
        f = u - 1.0;
    }
    hfsq = 0.5 * f * f;
    if (hu == 0) { // |f| < 2^-20
        if (f == 0.0) {
            if (k == 0) return 0.0;
            c = fma_exact(k, LN2_LO, c);
            return fma_exact(k, LN2_HI, c);
        }
        R = fma_exact(-f, 0.66666666666666666, 1.0) * hfsq;
        if (k == 0) return f - R;
        return fma_exact(k, LN2_HI, -((R - fma_exact(k, LN2_LO, c)) - f));
    }
    s = f / (2.0 + f);
    z = s * s;
    // R = z Lp1 + z^2 (Lp2 + z Lp3) + z^4 (Lp4 + z Lp5) + z^6 (Lp6 + z Lp7)
    double z2 = z * z, z4 = z2 * z2, z6 = z2 * z4;
    double R2 = fma_exact(z, LP[3], LP[2]), R3 = fma_exact(z, LP[5], LP[4]),
           R4 = fma_exact(z, LP[7], LP[6]);
    R = fma_exact(z6, R4, fma_exact(z4, R3, fma_exact(z, LP[1], z2 * R2)));
    double sr = s * (R + hfsq);
    if (k == 0) return f - (hfsq - sr);
    return fma_exact(k, LN2_HI, -((hfsq - (fma_exact(k, LN2_LO, c) + sr)) - f));
}

// --- pow: glibc's (ARM's optimized-routines): ln x to ~68 bits from a 128-entry table and a polynomial,
// times y, then the exp above with the low part of the product added to r. The contractions of
// glibc's x86-64 FMA build (and its two explicit fma calls) as fma_exact. The table from
// tools/gen_exp_table.py.
static const double PW_LN2_HI = 0x1.62e42fefa3800p-1, PW_LN2_LO = 0x1.ef35793c76730p-45;
static const double PW_A[7] = {-0x1p-1,
                               -0x1.5555555555560p-1,
                               0x1.0000000000006p-1,
                               0x1.999999959554ep-1,
                               -0x1.555555529a47ap-1,
                               -0x1.2495b9b4845e9p+0,
                               0x1.0002b8b263fc3p+0};

// ln x = y + *tail for a positive normal x
static double pow_log(uint64_t ix, double *tail)
{
    uint64_t tmp = ix - UINT64_C(0x3fe6955500000000);
    int i = (int)((tmp >> 45) % 128);
    int k = (int)((int64_t)tmp >> 52);
    double z = from_bits(ix - (tmp & (UINT64_C(0xfff) << 52))), kd = (double)k;
    const double *t = pow_log_table[i]; // invc, logc, logctail
    double r = fma_exact(z, t[0], -1.0);
    double t1 = fma_exact(kd, PW_LN2_HI, t[1]);
    double t2 = r + t1;
    double lo1 = fma_exact(kd, PW_LN2_LO, t[2]);
    double lo2 = r + (t1 - t2);
    double ar = r * PW_A[0], ar2 = r * ar, ar3 = r * ar2;
    double hi = t2 + ar2;
    double lo3 = fma_exact(r, ar, -ar2);
    double lo4 = ar2 + (t2 - hi);
    double q = fma_exact(
        ar2, fma_exact(ar2, fma_exact(r, PW_A[6], PW_A[5]), fma_exact(r, PW_A[4], PW_A[3])),
        fma_exact(r, PW_A[2], PW_A[1]));
    double lo = fma_exact(ar3, q, lo4 + (lo3 + (lo1 + lo2)));
    double y = hi + lo;
    *tail = lo + (hi - y);
    return y;
}

double core_pow(double x, double y)
{
    if (y == 0.0 || x == 1.0) return 1.0;
    uint32_t topy = (uint32_t)(bits_of(y) >> 52) & 0x7ff;
    if (!(x >= DBL_MIN) || !isfinite(x) || topy - 0x3be >= 0x43e - 0x3be)
        return pow(x, y); // not the core's
    double lo, hi = pow_log(bits_of(x), &lo);
    double ehi = y * hi;
    double elo = fma_exact(y, lo, fma_exact(y, hi, -ehi));
    unsigned abstop = (unsigned)(bits_of(ehi) >> 52) & 0x7ff;
    if (abstop - 0x3c9 >= 0x408 - 0x3c9)
        return pow(x, y); // |y ln x| < 2^-54 or >= 512: not the core's
    double kd = fma_exact(INV_LN2_N, ehi, SHIFT);
    uint64_t ki = bits_of(kd);
    kd -= SHIFT;
    double r = elo + fma_exact(kd, NEG_LN2_LO_N, fma_exact(kd, NEG_LN2_HI_N, ehi));
    size_t idx = 2 * (size_t)(ki % 128);
    double tail = from_bits(exp_table[idx]);
    double scale = from_bits(exp_table[idx + 1] + (ki << 45));
    double r2 = r * r;
    double tmp =
        fma_exact(r2 * r2, fma_exact(r, C5, C4), fma_exact(r2, fma_exact(r, C3, C2), r + tail));
    return scaled_fma(scale, tmp, scale, fma_exact);
}

// --- sin and cos: IBM's algorithm as in glibc (s_sin.c), its x86-64 FMA build's contractions as fma_exact:
// x = k pi/2 + (a + da), then sin/cos of the nearest j/128 from sincos_table and short polynomials
// for the rest. The constants are glibc's (LGPL); the table comes from tools/gen_exp_table.py.
static const double SC_BIG = 0x1.8p45, SC_HP0 = 0x1.921fb54442d18p0, SC_HP1 = 0x1.1a62633145c07p-54,
                    SC_HPINV = 0x1.45f306dc9c883p-1, SC_TOINT = 0x1.8p52, SC_MP1 = 0x1.921fb58p0,
                    SC_MP2 = -0x1.dde973cp-27, SC_PP3 = -0x1.cb3b398p-55,
                    SC_PP4 = -0x1.d747f23e32ed7p-83;
static const double SC_S1 = -0x1.5555555555555p-3, SC_S2 = 0x1.1111111110ecep-7,
                    SC_S3 = -0x1.a01a019db08b8p-13, SC_S4 = 0x1.71de27b9a7ed9p-19,
                    SC_S5 = -0x1.addffc2fcdf59p-26;
static const double SC_SN3 = -0x1.5555555555515p-3, SC_SN5 = 0x1.11110e829872fp-7, SC_CS2 = 0.5,
                    SC_CS4 = -0x1.5555555555535p-5, SC_CS6 = 0x1.6c16bedd9e239p-10;

// sin(a + da) for |a| < 0.126: a - a^3/3! + ... + (1 - a^2) da / 2
static double sc_taylor_sin(double a, double da)
{
    double xx = a * a;
    double p = fma_exact(
        xx, fma_exact(xx, fma_exact(xx, fma_exact(xx, SC_S5, SC_S4), SC_S3), SC_S2), SC_S1);
    double t = fma_exact(xx, fma_exact(a, p, -(da * 0.5)), da);
    return a + t;
}

// The table row of the nearest j/128 to |x| (u = SC_BIG + |x| holds j in its low bits).
static const double *sc_row(double u) { return &sincos_table[4 * (uint32_t)bits_of(u)]; }

// cos(x + dx)
static double sc_do_cos(double x, double dx)
{
    if (x < 0) dx = -dx;
    double u = SC_BIG + fabs(x);
    x = fabs(x) - (u - SC_BIG) + dx;
    double xx = x * x;
    double s = fma_exact(x * xx, fma_exact(xx, SC_SN5, SC_SN3), x);
    double c = xx * fma_exact(xx, fma_exact(xx, SC_CS6, SC_CS4), SC_CS2);
    const double *t = sc_row(u); // sn, ssn, cs, ccs
    double cor = fma_exact(-s, t[0], fma_exact(-c, t[2], fma_exact(-s, t[1], t[3])));
    return cor + t[2];
}

// sin(x + dx)
static double sc_do_sin(double x, double dx)
{
    double xold = x;
    if (fabs(x) < 0.126) return sc_taylor_sin(x, dx);
    if (x <= 0) dx = -dx;
    double u = SC_BIG + fabs(x);
    x = fabs(x) - (u - SC_BIG);
    double xx = x * x;
    double s = x + fma_exact(x * xx, fma_exact(xx, SC_SN5, SC_SN3), dx);
    double c = fma_exact(x, dx, xx * fma_exact(xx, fma_exact(xx, SC_CS6, SC_CS4), SC_CS2));
    const double *t = sc_row(u);
    double cor = fma_exact(s, t[2], fma_exact(-c, t[0], fma_exact(s, t[3], t[1])));
    return copysign(cor + t[0], xold);
}

// x = n pi/2 + (a + da); returns n mod 4.
static int sc_reduce(double x, double *a, double *da)
{
    double t = fma_exact(x, SC_HPINV, SC_TOINT);
    double xn = t - SC_TOINT;
    double y = fma_exact(xn, -SC_MP2, fma_exact(-xn, SC_MP1, x));
    int n = (int)(bits_of(t) & 3);
    double t2 = fma_exact(-xn, SC_PP3, y);
    double db = fma_exact(-xn, SC_PP3, y - t2);
    double b = fma_exact(-xn, SC_PP4, t2);
    db += fma_exact(-xn, SC_PP4, t2 - b);
    *a = b;
    *da = db;
    return n;
}

static double sc_quadrant(double a, double da, int n)
{
    double r = (n & 1) ? sc_do_cos(a, da) : sc_do_sin(a, da);
    return (n & 2) ? -r : r;
}

double core_sin(double x)
{
    uint32_t k = (uint32_t)(bits_of(x) >> 32) & 0x7fffffff;
    if (k < 0x3e500000) return x; // |x| < 2^-26
    if (k < 0x3feb6000) return sc_do_sin(x, 0); // |x| < 0.855469
    if (k < 0x400368fd) return copysign(sc_do_cos(SC_HP0 - fabs(x), SC_HP1), x); // |x| < 2.426265
    if (k < 0x419921fb) { // |x| < 105414350
        double a, da;
        int n = sc_reduce(x, &a, &da);
        return sc_quadrant(a, da, n);
    }
    return sin(x); // huge angles, inf, NaN: outside what the core asks
}

double core_cos(double x)
{
    uint32_t k = (uint32_t)(bits_of(x) >> 32) & 0x7fffffff;
    if (k < 0x3e400000) return 1.0; // |x| < 2^-27
    if (k < 0x3feb6000) return sc_do_cos(x, 0);
    if (k < 0x400368fd) {
        double y = SC_HP0 - fabs(x), a = y + SC_HP1, da = (y - a) + SC_HP1;
        return sc_do_sin(a, da);
    }
    if (k < 0x419921fb) {
        double a, da;
        int n = sc_reduce(x, &a, &da);
        return sc_quadrant(a, da, n + 1);
    }
    return cos(x);
}
