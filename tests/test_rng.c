// Tests rng.c against NumPy's own output (tests/data/numpy-normal-vectors.csv, NumPy 1.24.2):
// PCG64 state after seeding, and every standard normal value, compared bit for bit.
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

#ifndef MHA_TEST_DATA
#error "MHA_TEST_DATA must be the absolute path of the tests folder"
#endif

#define VECTORS_PATH MHA_TEST_DATA "/data/numpy-normal-vectors.csv"
#define MAX_SEEDS 8

// One seed's block of the CSV: the state after seeding and the expected values' bit patterns.
typedef struct {
    uint64_t seed;
    RngU128 state, inc;
    uint64_t *bits; // bits[i] = value i, as IEEE-754 binary64
    size_t count, cap;
} SeedBlock;

typedef struct {
    SeedBlock seeds[MAX_SEEDS];
    int nseeds;
} Vectors;

static int failures = 0;

static uint64_t dbl_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static double bits_dbl(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static bool parse_u128_hex(const char *s, RngU128 *out)
{
    if (strncmp(s, "0x", 2) != 0) return false;
    s += 2;
    RngU128 v = {0, 0};
    int n = 0;
    for (; *s && *s != ' ' && *s != '\n' && *s != '\r'; s++, n++) {
        int d;
        if (*s >= '0' && *s <= '9') d = *s - '0';
        else if (*s >= 'a' && *s <= 'f') d = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F') d = *s - 'A' + 10;
        else return false;
        v.hi = (v.hi << 4) | (v.lo >> 60);
        v.lo = (v.lo << 4) | (unsigned)d;
    }
    *out = v;
    return n > 0 && n <= 32;
}

static void print_u128(const char *label, RngU128 v)
{
    printf("%s0x%016" PRIx64 "%016" PRIx64, label, v.hi, v.lo);
}

static SeedBlock *find_seed(Vectors *v, uint64_t seed)
{
    for (int i = 0; i < v->nseeds; i++)
        if (v->seeds[i].seed == seed) return &v->seeds[i];
    return NULL;
}

// Reads the CSV: "# seed S state 0x.. inc 0x.." comment lines and "seed,index,bits,value" lines.
static bool vectors_load(Vectors *v, const char *path)
{
    memset(v, 0, sizeof *v);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL cannot open %s\n", path);
        return false;
    }
    char line[512];
    int lineno = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#') {
            char state_hex[64], inc_hex[64];
            uint64_t seed;
            if (sscanf(line, "# seed %" SCNu64 " state %63s inc %63s", &seed, state_hex, inc_hex)
                == 3) {
                if (v->nseeds == MAX_SEEDS || find_seed(v, seed)) {
                    printf("FAIL %s:%d: too many or repeated seed blocks\n", path, lineno);
                    ok = false;
                    break;
                }
                SeedBlock *b = &v->seeds[v->nseeds++];
                b->seed = seed;
                if (!parse_u128_hex(state_hex, &b->state) || !parse_u128_hex(inc_hex, &b->inc)) {
                    printf("FAIL %s:%d: bad state/inc\n", path, lineno);
                    ok = false;
                }
            }
            continue;
        }
        if (line[0] == '\n' || line[0] == '\r' || line[0] == '\0') continue;
        uint64_t seed, bits;
        size_t index;
        if (sscanf(line, "%" SCNu64 ",%zu,%" SCNx64 ",", &seed, &index, &bits) != 3) {
            printf("FAIL %s:%d: cannot parse value line\n", path, lineno);
            ok = false;
            break;
        }
        SeedBlock *b = find_seed(v, seed);
        // Values must come after their seed's header and in index order, so draw i is line i.
        if (!b || index != b->count) {
            printf("FAIL %s:%d: value for seed %" PRIu64 " index %zu out of order\n", path, lineno,
                   seed, index);
            ok = false;
            break;
        }
        if (b->count == b->cap) {
            size_t cap = b->cap ? 2 * b->cap : 256;
            uint64_t *grown = realloc(b->bits, cap * sizeof *grown);
            if (!grown) {
                ok = false;
                break;
            }
            b->bits = grown;
            b->cap = cap;
        }
        b->bits[b->count++] = bits;
    }
    fclose(f);
    return ok;
}

static void vectors_free(Vectors *v)
{
    for (int i = 0; i < v->nseeds; i++) free(v->seeds[i].bits);
    memset(v, 0, sizeof *v);
}

// Compares got against expected bits; prints only the group's first mismatch. Returns true if
// equal.
static bool check_value(const char *group, uint64_t seed, size_t index, uint64_t expected,
                        double got, int *group_fail)
{
    if (dbl_bits(got) == expected) return true;
    if (*group_fail == 0)
        printf("  first mismatch in %s: seed %" PRIu64 " index %zu expected 0x%016" PRIx64
               " (%.17g) got 0x%016" PRIx64 " (%.17g)\n",
               group, seed, index, expected, bits_dbl(expected), dbl_bits(got), got);
    (*group_fail)++;
    return false;
}

static void report(const char *group, size_t checked, int group_fail)
{
    printf("%s %s: %zu checked, %d mismatched\n", group_fail ? "FAIL" : "ok  ", group, checked,
           group_fail);
    if (group_fail) failures++;
}

// PCG64 state and increment right after rng_seed, for every seed in the CSV.
static void test_seeding(const Vectors *v)
{
    int fail = 0;
    for (int i = 0; i < v->nseeds; i++) {
        const SeedBlock *b = &v->seeds[i];
        Rng r;
        rng_seed(&r, b->seed);
        if (r.state.hi != b->state.hi || r.state.lo != b->state.lo || r.inc.hi != b->inc.hi
            || r.inc.lo != b->inc.lo) {
            if (fail == 0) {
                printf("  first mismatch in seeding: seed %" PRIu64 "\n", b->seed);
                print_u128("    expected state ", b->state);
                print_u128(" inc ", b->inc);
                print_u128("\n    got      state ", r.state);
                print_u128(" inc ", r.inc);
                printf("\n");
            }
            fail++;
        }
    }
    report("seeding (PCG64 state and inc)", (size_t)v->nseeds, fail);
}

// Every value line, drawn one by one with rng_standard_normal.
static size_t test_standard_normal(const Vectors *v)
{
    int fail = 0;
    size_t checked = 0;
    for (int i = 0; i < v->nseeds; i++) {
        const SeedBlock *b = &v->seeds[i];
        Rng r;
        rng_seed(&r, b->seed);
        for (size_t k = 0; k < b->count; k++, checked++)
            check_value("rng_standard_normal", b->seed, k, b->bits[k], rng_standard_normal(&r),
                        &fail);
    }
    report("rng_standard_normal, every value of every seed", checked, fail);
    return checked - (size_t)fail;
}

// rng_normal_fill(loc 0, scale 1) must give the same bits as the standard normal, including when
// one stream is split over several calls (the project fills W_Q, W_K, W_V of one head one after
// another).
static void test_fill_unit(const Vectors *v)
{
    int fail = 0;
    size_t checked = 0;
    for (int i = 0; i < v->nseeds; i++) {
        const SeedBlock *b = &v->seeds[i];
        // A subset: the first 100 values, as chunks of 7, 1, 24 and the rest (uneven on purpose).
        size_t n = b->count < 100 ? b->count : 100;
        size_t chunks[] = {7, 1, 24, n - 32};
        double out[100];
        Rng r;
        rng_seed(&r, b->seed);
        size_t at = 0;
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            rng_normal_fill(&r, 0.0, 1.0, out + at, chunks[c]);
            at += chunks[c];
        }
        for (size_t k = 0; k < n; k++, checked++)
            check_value("rng_normal_fill(0, 1)", b->seed, k, b->bits[k], out[k], &fail);
    }
    report("rng_normal_fill(loc 0, scale 1), first 100 of each seed in 4 calls", checked, fail);
}

// The project's seed 42 stream: head 0's W_Q is the first normal(0, 1, (4, 2)) draw, row-major.
static void test_seed42_head0(void)
{
    const double w_q_top[2][2] = {{0.30471707975443135, -1.0399841062404955},
                                  {0.7504511958064572, 0.9405647163912139}};
    double w[3][4][2]; // W_Q, W_K, W_V of head 0, each (4, 2)
    Rng r;
    rng_seed(&r, 42);
    for (int m = 0; m < 3; m++) rng_normal_fill(&r, 0.0, 1.0, &w[m][0][0], 8);
    int fail = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            check_value("seed 42 W_Q", 42, (size_t)(i * 2 + j), dbl_bits(w_q_top[i][j]), w[0][i][j],
                        &fail);
    report("seed 42 head 0 W_Q[0..1][0..1] row-major", 4, fail);
}

// loc + scale * z for other scales and locs, expected computed from the CSV's z. volatile keeps the
// compiler from fusing the expected value into an FMA whatever the flags.
static void test_fill_scaled(const Vectors *v, double loc, double scale, const char *name)
{
    const SeedBlock *b = find_seed((Vectors *)v, 42);
    int fail = 0;
    if (!b) {
        report(name, 0, 1);
        return;
    }
    double *out = malloc(b->count * sizeof *out);
    if (!out) {
        report(name, 0, 1);
        return;
    }
    Rng r;
    rng_seed(&r, 42);
    rng_normal_fill(&r, loc, scale, out, b->count);
    size_t fma_differs = 0;
    for (size_t k = 0; k < b->count; k++) {
        double z = bits_dbl(b->bits[k]);
        volatile double prod = scale * z;
        volatile double expected = loc + prod;
        // How many values an FMA would change: shows whether this group can tell the two apart.
        if (dbl_bits(fma(scale, z, loc)) != dbl_bits(expected)) fma_differs++;
        check_value(name, 42, k, dbl_bits(expected), out[k], &fail);
    }
    free(out);
    report(name, b->count, fail);
    printf("     (an FMA would have changed %zu of these %zu values)\n", fma_differs, b->count);
}

// Anchors produced by NumPy itself (1.24.2, Debian's python3-numpy, the CSV's version), written
// here because the CSV's 5,800 values never reach the ziggurat's tail branch (|z| > r, about 1 draw
// in 3,900). These seed 42 draws past the CSV's 5,000 all come from the tail, both signs.
static void test_tail_anchors(void)
{
    static const struct {
        size_t index;
        uint64_t bits;
    } tail[] = {
        {5627, UINT64_C(0xc0118e740dc1907a)}, // -4.389114584864837
        {8091, UINT64_C(0x40101a719e2bdb3f)}, //  4.0258240427272645
        {11589, UINT64_C(0x40109adf06585883)}, //  4.151241397039601
        {13755, UINT64_C(0xc00f1a3929a406b2)}, // -3.887804341619664
        {19173, UINT64_C(0xc00d99c99a73ffea)}, // -3.700091559090642
        {27130, UINT64_C(0x400d75c78b3b38c0)}, //  3.6825095059822104
    };
    const size_t n = sizeof tail / sizeof tail[0];
    Rng r;
    rng_seed(&r, 42);
    int fail = 0;
    size_t drawn = 0;
    for (size_t t = 0; t < n; t++) {
        double z = 0.0;
        while (drawn <= tail[t].index) {
            z = rng_standard_normal(&r);
            drawn++;
        }
        check_value("tail anchors", 42, tail[t].index, tail[t].bits, z, &fail);
    }
    report("tail anchors from NumPy, seed 42, indices 5627..27130", n, fail);
}

// numpy.random.default_rng(42).normal(0.1, 2.5, 20) as NumPy itself printed it (1.24.2): with a
// non-zero loc an FMA changes some of these (index 9 among them), so this pins down "no FMA".
static void test_loc_scale_anchors(void)
{
    static const uint64_t expected[20] = {
        UINT64_C(0x3feb93ce48796eb9), UINT64_C(0xc003ffeb2af07451), UINT64_C(0x3fff9e3861fae9be),
        UINT64_C(0x40039c7dc8fa3c4f), UINT64_C(0xc0131c40056fbbf3), UINT64_C(0xc0093e5bec5919ed),
        UINT64_C(0x3fdadabe2f9826ba), UINT64_C(0xbfe61972c3363c53), UINT64_C(0x3fadb1cbf51ee472),
        UINT64_C(0xc00042c8efcecc62), UINT64_C(0x400263515048e3bb), UINT64_C(0x40005b183edfff5e),
        UINT64_C(0x3fd0f704727f9930), UINT64_C(0x4007584665116ce5), UINT64_C(0x3ff44ce54a477af4),
        UINT64_C(0xc00062c70456db25), UINT64_C(0x3ff0599ba7c9f296), UINT64_C(0xc00260adcd747abd),
        UINT64_C(0x40025e772dce5257), UINT64_C(0xbf99690b86b08bc8),
    };
    double out[20];
    Rng r;
    rng_seed(&r, 42);
    rng_normal_fill(&r, 0.1, 2.5, out, 20);
    int fail = 0;
    for (size_t k = 0; k < 20; k++)
        check_value("NumPy normal(0.1, 2.5)", 42, k, expected[k], out[k], &fail);
    report("NumPy's own normal(0.1, 2.5, 20), seed 42", 20, fail);
}

// The comparison must be able to fail: seed 0's values must not match seed 42's stream.
static void test_negative_control(const Vectors *v)
{
    const SeedBlock *b = find_seed((Vectors *)v, 0);
    Rng r;
    rng_seed(&r, 42);
    size_t equal = 0, n = b ? b->count : 0;
    for (size_t k = 0; k < n; k++)
        if (dbl_bits(rng_standard_normal(&r)) == b->bits[k]) equal++;
    int fail = (n == 0 || equal == n) ? 1 : 0;
    printf(
        "%s negative control (seed 42 stream vs seed 0 values): %zu of %zu equal, expected few\n",
        fail ? "FAIL" : "ok  ", equal, n);
    if (fail) failures++;
}

int main(void)
{
    Vectors v;
    if (!vectors_load(&v, VECTORS_PATH)) {
        vectors_free(&v);
        return 1;
    }
    size_t total = 0;
    for (int i = 0; i < v.nseeds; i++) total += v.seeds[i].count;
    printf("loaded %s: %d seeds, %zu values\n", VECTORS_PATH, v.nseeds, total);
    if (v.nseeds != 5 || total != 5800) {
        printf("FAIL expected 5 seeds and 5800 values\n");
        failures++;
    }

    test_seeding(&v);
    size_t matched = test_standard_normal(&v);
    test_fill_unit(&v);
    test_seed42_head0();
    test_fill_scaled(&v, 0.0, 0.5, "rng_normal_fill(loc 0, scale 0.5), seed 42");
    test_fill_scaled(&v, 0.0, 2.5, "rng_normal_fill(loc 0, scale 2.5), seed 42, no FMA");
    test_fill_scaled(&v, 0.1, 2.5, "rng_normal_fill(loc 0.1, scale 2.5), seed 42, no FMA");
    test_tail_anchors();
    test_loc_scale_anchors();
    test_negative_control(&v);

    printf("%s: %zu of %zu NumPy values matched bit for bit, %d check group(s) failed\n",
           failures ? "FAILED" : "PASSED", matched, total, failures);
    vectors_free(&v);
    return failures ? 1 : 0;
}
