// numpy.random.default_rng(seed).normal(...) reproduced bit for bit:
// SeedSequence -> PCG64 (XSL-RR) -> NumPy's 256-layer ziggurat. See docs/numpy-rng.md.
#include "core/rng.h"

#include <math.h>

#include "core/exactmath.h"
#include "core/ziggurat_tables.h"

// --- SeedSequence (NumPy's bit_generator.pyx), pool of four 32-bit words ---

#define SS_INIT_A 0x43b0d7e5u
#define SS_MULT_A 0x931e8875u
#define SS_INIT_B 0x8b51f9ddu
#define SS_MULT_B 0x58f38dedu
#define SS_MIX_MULT_L 0xca01f9ddu
#define SS_MIX_MULT_R 0x4973f715u
#define SS_XSHIFT 16

// hc is the hash constant that carries over between all hashmix calls while mixing entropy.
static uint32_t ss_hashmix(uint32_t value, uint32_t *hc)
{
    value ^= *hc;
    *hc *= SS_MULT_A;
    value *= *hc;
    value ^= value >> SS_XSHIFT;
    return value;
}

static uint32_t ss_mix(uint32_t x, uint32_t y)
{
    uint32_t r = SS_MIX_MULT_L * x - SS_MIX_MULT_R * y;
    return r ^ (r >> SS_XSHIFT);
}

// out (4 words of 64 bits) = SeedSequence(seed).generate_state(4, uint64)
static void ss_generate(uint64_t out[4], uint64_t seed)
{
    // The seed as 32-bit words, least significant first; 0 is one word, 2^32 and up are two.
    uint32_t words[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    int nwords = (seed >> 32) ? 2 : 1;

    uint32_t hc = SS_INIT_A;
    uint32_t pool[4];
    for (int i = 0; i < 4; i++) pool[i] = ss_hashmix(i < nwords ? words[i] : 0u, &hc);
    for (int src = 0; src < 4; src++)
        for (int dst = 0; dst < 4; dst++)
            if (src != dst) pool[dst] = ss_mix(pool[dst], ss_hashmix(pool[src], &hc));
    // A 64-bit seed never has more than 4 words, so the extra-words step never runs.

    uint32_t w[8];
    uint32_t hb = SS_INIT_B;
    for (int i = 0; i < 8; i++) {
        uint32_t v = pool[i % 4] ^ hb;
        hb *= SS_MULT_B;
        v *= hb;
        v ^= v >> SS_XSHIFT;
        w[i] = v;
    }
    // Little-endian pairing: the first 32-bit word is the low half.
    for (int k = 0; k < 4; k++) out[k] = (uint64_t)w[2 * k] | ((uint64_t)w[2 * k + 1] << 32);
}

// --- PCG64: 128-bit LCG with XSL-RR output ---

#define PCG_MULT_HI UINT64_C(0x2360ed051fc65da4)
#define PCG_MULT_LO UINT64_C(0x4385df649fccf645)

// hi:lo = a * b, the full 128-bit product, from 32-bit halves.
static RngU128 mul_64x64(uint64_t a, uint64_t b)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    RngU128 p = {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & 0xffffffffu)};
    return p;
}

// a * b + c modulo 2^128.
static RngU128 muladd_128(RngU128 a, RngU128 b, RngU128 c)
{
    RngU128 p = mul_64x64(a.lo, b.lo);
    p.hi += a.hi * b.lo + a.lo * b.hi;
    uint64_t lo = p.lo + c.lo;
    p.hi += c.hi + (lo < p.lo);
    p.lo = lo;
    return p;
}

static void pcg_step(Rng *r)
{
    const RngU128 mult = {PCG_MULT_HI, PCG_MULT_LO};
    r->state = muladd_128(r->state, mult, r->inc);
}

void rng_seed(Rng *r, uint64_t seed)
{
    uint64_t u[4];
    ss_generate(u, seed);
    // In each pair the first word is the HIGH half (NumPy's pcg64 _legacy_seeding order).
    RngU128 initstate = {u[0], u[1]};
    RngU128 initseq = {u[2], u[3]};
    r->state = (RngU128){0, 0};
    r->inc = (RngU128){(initseq.hi << 1) | (initseq.lo >> 63), (initseq.lo << 1) | 1u};
    pcg_step(r);
    uint64_t lo = r->state.lo + initstate.lo;
    r->state.hi += initstate.hi + (lo < r->state.lo);
    r->state.lo = lo;
    pcg_step(r);
}

uint64_t rng_next64(Rng *r)
{
    pcg_step(r);
    uint64_t hi = r->state.hi;
    uint64_t lo = r->state.lo;
    uint64_t x = hi ^ lo;
    unsigned rot = (unsigned)(hi >> 58);
    // (-rot) & 63 keeps the shift in range when rot is 0.
    return (x >> rot) | (x << ((-rot) & 63u));
}

double rng_next_double(Rng *r)
{
    return (double)(rng_next64(r) >> 11) * (1.0 / 9007199254740992.0);
}

// --- NumPy's random_standard_normal (distributions.c) ---

double rng_standard_normal(Rng *r)
{
    for (;;) {
        uint64_t bits = rng_next64(r);
        int idx = (int)(bits & 0xff);
        bits >>= 8;
        int sign = (int)(bits & 1);
        uint64_t rabs = (bits >> 1) & UINT64_C(0x000fffffffffffff);
        double x = (double)rabs * zig_wi[idx];
        if (sign) x = -x;
        if (rabs < zig_ki[idx]) return x; // inside the rectangle: about 99% of draws
        if (idx == 0) {
            // The tail beyond r, by Marsaglia's exponential method.
            for (;;) {
                double xx = -zig_inv_r * core_log1p(-rng_next_double(r));
                double yy = -core_log1p(-rng_next_double(r));
                if (yy + yy > xx * xx) return ((rabs >> 8) & 1) ? -(zig_r + xx) : zig_r + xx;
            }
        } else {
            // The wedge between the rectangle and the curve.
            if (((zig_fi[idx - 1] - zig_fi[idx]) * rng_next_double(r) + zig_fi[idx])
                < core_exp(-0.5 * x * x))
                return x;
        }
    }
}

void rng_normal_fill(Rng *r, double loc, double scale, double *out, size_t count)
{
    // Literally loc + scale * z, as NumPy does (no FMA: the build uses -ffp-contract=off).
    for (size_t i = 0; i < count; i++) out[i] = loc + scale * rng_standard_normal(r);
}
