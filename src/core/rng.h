// numpy.random.default_rng(seed).normal(...) reproduced bit for bit:
// SeedSequence -> PCG64 (XSL-RR) -> NumPy's 256-layer ziggurat. See docs/numpy-rng.md.
#ifndef MHA_RNG_H
#define MHA_RNG_H

#include <stddef.h>
#include <stdint.h>

// A 128-bit unsigned integer as two 64-bit halves (ISO C has no 128-bit type).
typedef struct {
    uint64_t hi, lo;
} RngU128;

typedef struct {
    RngU128 state, inc;
} Rng;

// Seeds like numpy.random.default_rng(seed) (any 64-bit seed; 2^32 and up take two words).
void rng_seed(Rng *r, uint64_t seed);
uint64_t rng_next64(Rng *r);
double rng_next_double(Rng *r); // [0, 1), 53 bits
double rng_standard_normal(Rng *r); // NumPy's random_standard_normal
// out[0..count) = loc + scale * z, row-major, one shared stream, like rng.normal(loc, scale,
// shape).
void rng_normal_fill(Rng *r, double loc, double scale, double *out, size_t count);

#endif
