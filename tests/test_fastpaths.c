// The fast paths of the core against their plain references, bit for bit, on many random inputs:
// the FMA instruction against the software emulation, exp by the instruction against the emulated
// exp, rows of exp (four lanes at a time with AVX2) against the scalar exp, and every blocked
// matmul kernel (portable, AVX2, AVX-512, WebAssembly SIMD) against the plain loop, and a whole
// trace split over the cores against the plain stages on one thread. Each prints how many inputs it
// compared, how many differed and whether the CPU ran the fast path.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/attn.h"
#include "core/block.h"
#include "core/exactmath.h"
#include "core/matrix.h"
#include "core/trace.h"
#include "platform/platform.h"

static uint64_t state = 0x9e3779b97f4a7c15u;

static uint64_t next_u64(void) // splitmix64
{
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * (double)(next_u64() >> 11) * 0x1p-53;
}

static uint64_t bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

// A random double of either sign with a random 52-bit fraction and a binary exponent in [-e, e].
static double random_double(int e)
{
    double m = 1.0 + (double)(next_u64() >> 12) * 0x1p-52;
    int x = (int)(next_u64() % (uint64_t)(2 * e + 1)) - e;
    return ldexp(next_u64() & 1 ? -m : m, x);
}

static void test_fma(void)
{
    long diffs = 0, count = 0;
    for (int i = 0; i < 1000000; i++) {
        double a = random_double(200), b = random_double(200), c;
        switch (i % 3) { // independent, cancelling all but the last bits, and a rounding tie's
                         // neighbourhood
        case 0: c = random_double(400); break;
        case 1: c = -(a * b) * (1.0 + uniform(-0x1p-50, 0x1p-50)); break;
        default: c = ldexp(random_double(0), ilogb(a * b) - 53); break;
        }
        double hw = core_fma_hw(a, b, c), sw = core_fma_portable(a, b, c);
        count++;
        if (bits(hw) != bits(sw)) {
            if (diffs++ < 5)
                fprintf(stderr, "fma(%a, %a, %a): instruction %a, emulated %a\n", a, b, c, hw, sw);
        }
#ifdef __GLIBC__ // glibc's fma() is correctly rounded everywhere; MinGW's is not (18 % of these
                 // differ under Wine)
        if (i < 100000)
            CHECK(bits(sw) == bits(fma(a, b, c)) || isnan(sw), "fma(%a, %a, %a) = %a", a, b, c, sw);
#endif
    }
    printf("fma: instruction %s, %ld inputs, %ld differ from the emulation\n",
           core_fma_hw_available() ? "used" : "absent (emulation against itself)", count, diffs);
    CHECK(diffs == 0, "%ld fma results differ", diffs);
}

// Inputs for exp across all its paths: the main range, tiny, subnormal results, overflow, specials.
static double exp_input(int i)
{
    switch (i % 8) {
    case 0: return uniform(-746.0, 710.0);
    case 1: return uniform(-40.0, 0.0); // the softmax's usual range
    case 2: return random_double(60) / 0x1p60; // tiny
    case 3: return uniform(-760.0, -700.0); // subnormal results and their edge
    case 4: return uniform(-1100.0, 1100.0);
    case 5: return uniform(-1.0, 1.0);
    case 6: return -uniform(0.0, 0x1p-50);
    default: {
        static const double special[] = {
            0.0,     -0.0,     INFINITY,         -INFINITY,          NAN,    512.0,  -512.0,
            0x1p-54, -0x1p-54, 709.782712893384, -745.1332191019411, -746.0, 1024.0, -1024.0};
        return special[(i / 8) % (int)(sizeof special / sizeof special[0])];
    }
    }
}

static void test_exp(void)
{
    long diffs = 0;
    const int count = 2000000;
    for (int i = 0; i < count; i++) {
        double x = exp_input(i), fast = core_exp(x), ref = core_exp_portable(x);
        if (bits(fast) != bits(ref) && !(isnan(fast) && isnan(ref)))
            if (diffs++ < 5) fprintf(stderr, "exp(%a): %a, emulated %a\n", x, fast, ref);
    }
    printf("exp: %d inputs, %ld differ from the emulated exp\n", count, diffs);
    CHECK(diffs == 0, "%ld exp results differ", diffs);
}

// Rows of every length from 0 to 41 (the vector body and every tail), shifted as the softmax shifts
// them.
static void test_exp_rows(void)
{
    enum { MAXN = 41 };
    long diffs = 0, values = 0;
    double x[MAXN], fast[MAXN], ref[MAXN], inplace[MAXN];
    for (int round = 0; round < 60000; round++) {
        int n = round % (MAXN + 1);
        for (int j = 0; j < n; j++) x[j] = exp_input((int)(next_u64() % 100000));
        double shift = round % 3 == 0 ? 0.0 : uniform(-20.0, 20.0);
        if (n > 0 && round % 5 == 0) shift = x[next_u64() % (uint64_t)n]; // a lane of exactly 0
        core_exp_row(fast, x, shift, (size_t)n);
        core_exp_row_portable(ref, x, shift, (size_t)n);
        memcpy(inplace, x, sizeof x);
        core_exp_row(inplace, inplace, shift, (size_t)n);
        for (int j = 0; j < n; j++) {
            values++;
            bool same =
                (bits(fast[j]) == bits(ref[j]) || (isnan(fast[j]) && isnan(ref[j])))
                && (bits(inplace[j]) == bits(ref[j]) || (isnan(inplace[j]) && isnan(ref[j])));
            double d = x[j] - shift, scalar = d < -746.0 ? 0.0 : core_exp_portable(d);
            same = same && (bits(scalar) == bits(ref[j]) || (isnan(scalar) && isnan(ref[j])));
            if (!same && diffs++ < 5)
                fprintf(stderr, "exp(%a - %a): row %a, in place %a, emulated %a\n", x[j], shift,
                        fast[j], inplace[j], ref[j]);
        }
    }
    printf("exp rows: %ld values, %ld differ from the scalar exp\n", values, diffs);
    CHECK(diffs == 0, "%ld exp row values differ", diffs);
}

// Same bits, NaN for NaN (inf - inf may make one; its payload is not part of the promise).
static bool same_bits(const double *x, const double *y, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (bits(x[i]) != bits(y[i]) && !(isnan(x[i]) && isnan(y[i]))) return false;
    return true;
}

// A matmul input value: mostly random doubles of every fraction, with some exact zeros of either
// sign (the sign of a zero sum depends on the order), and in a few shapes values that overflow to
// infinity.
static double matmul_input(int range)
{
    uint64_t r = next_u64() % 16;
    if (r == 0) return 0.0;
    if (r == 1) return -0.0;
    return random_double(range);
}

// Every matmul kernel this CPU runs (portable 4 x 8, AVX2 4 x 8, AVX-512 1 to 12 x 16) against the
// plain loop, on random shapes around the block sizes and past the 256-deep slices, and mat_matmul
// (the one the CPU gets) mat_matmul_bt and mat_matmul_cols too. A kernel the CPU lacks is reported
// as not run.
static void test_matmul(void)
{
    long diffs[MAT_KERNEL_COUNT] = {0}, shapes[MAT_KERNEL_COUNT] = {0}, other_diffs = 0, values = 0;
    for (int s = 0; s < 600; s++) {
        int n = 1 + (int)(next_u64() % (s % 5 == 0 ? 70 : 37)),
            k = 1 + (int)(next_u64() % (s % 4 == 0 ? 800 : 70)),
            p = 1
                + (int)(next_u64()
                        % (s % 10 == 9  ? 700
                           : s % 3 == 0 ? 90
                                        : 49)); // 700: past a slab's 256 columns
        int range =
            s % 16 == 7 ? 540 : 8; // 2^540 * 2^540 overflows: infinities (and NaN) in the sums
        Matrix a, b, bt, fast, ref;
        if (!mat_init(&a, n, k) || !mat_init(&b, k, p) || !mat_init(&bt, p, k)
            || !mat_init(&fast, n, p) || !mat_init(&ref, n, p)) {
            CHECK(false, "no memory");
            return;
        }
        for (int i = 0; i < n * k; i++) a.data[i] = matmul_input(range);
        for (int i = 0; i < k * p; i++) b.data[i] = matmul_input(range);
        for (int i = 0; i < k; i++)
            for (int j = 0; j < p; j++) mat_set(&bt, j, i, mat_get(&b, i, j));
        mat_matmul_ref(&ref, &a, &b);
        size_t count = (size_t)n * (size_t)p;
        values += (long)count;
        for (int kern = 0; kern < MAT_KERNEL_COUNT; kern++) {
            for (size_t i = 0; i < count; i++)
                fast.data[i] = 12345.0; // nothing left from the last kernel
            if (!mat_matmul_with(&fast, &a, &b, (MatKernel)kern)) continue;
            shapes[kern]++;
            if (!same_bits(fast.data, ref.data, count) && diffs[kern]++ < 5)
                fprintf(stderr, "matmul %s (%d, %d) @ (%d, %d) differs from the plain loop\n",
                        mat_kernel_name((MatKernel)kern), n, k, k, p);
        }
        mat_matmul(&fast, &a, &b);
        bool same = same_bits(fast.data, ref.data, count);
        mat_matmul_portable(&fast, &a, &b);
        same = same && same_bits(fast.data, ref.data, count);
        mat_matmul_bt(&fast, &a, &bt);
        same = same && same_bits(fast.data, ref.data, count);
        // Columns [c0, c1) alone (as the output's columns are split over threads): those columns
        // the same, the others untouched.
        int c0 = (int)(next_u64() % (uint64_t)p),
            c1 = c0 + 1 + (int)(next_u64() % (uint64_t)(p - c0));
        for (size_t i = 0; i < count; i++) fast.data[i] = 12345.0;
        mat_matmul_cols(&fast, &a, &b, c0, c1);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < p; j++) {
                double want = j >= c0 && j < c1 ? mat_get(&ref, i, j) : 12345.0,
                       got = mat_get(&fast, i, j);
                same = same && same_bits(&got, &want, 1);
            }
        if (!same && other_diffs++ < 5)
            fprintf(stderr, "matmul (%d, %d) @ (%d, %d) differs from the plain loop\n", n, k, k, p);
        mat_free(&a), mat_free(&b), mat_free(&bt), mat_free(&fast), mat_free(&ref);
    }
    for (int kern = 0; kern < MAT_KERNEL_COUNT; kern++) {
        if (shapes[kern] == 0)
            printf("matmul %s: not run (this CPU lacks it)\n", mat_kernel_name((MatKernel)kern));
        else
            printf("matmul %s: %ld shapes, %ld differ from the plain loop\n",
                   mat_kernel_name((MatKernel)kern), shapes[kern], diffs[kern]);
        CHECK(diffs[kern] == 0, "%ld matmul shapes differ with kernel %s", diffs[kern],
              mat_kernel_name((MatKernel)kern));
    }
    printf("matmul: %ld values; mat_matmul uses %s; %ld shapes of mat_matmul / _portable / _bt / "
           "_cols differ\n",
           values, mat_kernel_name(mat_kernel_best()), other_diffs);
    CHECK(shapes[MAT_KERNEL_PORTABLE] > 0, "the portable kernel ran on no shape");
    CHECK(other_diffs == 0, "%ld matmul shapes differ", other_diffs);
}

// One whole trace large enough to be split over the cores (heads and the output's rows on their
// threads, the fast kernels) against the same stages by the plain loops on this one thread, for
// every head's scores, weights and Z and the output, bit for bit; causal and not.
static bool same_matrix(const Matrix *x, const Matrix *y)
{
    return x->rows == y->rows && x->cols == y->cols
           && same_bits(x->data, y->data, (size_t)x->rows * (size_t)x->cols);
}

static void test_trace_split(void)
{
    for (int causal = 0; causal < 2; causal++) {
        enum { N = 72, D = 192, H = 6, DK = 32 };
        AttnParams p;
        if (!params_init(&p, N, N, D, H, DK)) {
            CHECK(false, "no memory");
            return;
        }
        p.mask = causal ? MASK_CAUSAL : MASK_NONE;
        for (int i = 0; i < N * D; i++) p.X.data[i] = p.S.data[i] = uniform(-2, 2);
        for (int h = 0; h < H; h++)
            for (int i = 0; i < D * DK; i++)
                p.W_Q[h].data[i] = uniform(-0.3, 0.3), p.W_K[h].data[i] = uniform(-0.3, 0.3),
                p.W_V[h].data[i] = uniform(-1, 1);
        for (int h = 0; h < H; h++)
            for (int j = 0; j < DK; j++) p.b_Q[h].data[j] = uniform(-1, 1);
        for (int i = 0; i < H * DK * D; i++) p.W_O.data[i] = uniform(-0.2, 0.2);
        Trace t;
        TraceError err;
        if (!trace_run(&t, &p, &err)) {
            CHECK(false, "trace failed: %s", err.message);
            params_free(&p);
            return;
        }
        Matrix q, k, v, sc, scaled, w, z, concat, out;
        bool ok = mat_init(&q, N, DK) && mat_init(&k, N, DK) && mat_init(&v, N, DK)
                  && mat_init(&sc, N, N) && mat_init(&scaled, N, N) && mat_init(&w, N, N)
                  && mat_init(&z, N, DK) && mat_init(&concat, N, H * DK) && mat_init(&out, N, D);
        CHECK(ok, "no memory");
        int bad = 0;
        for (int h = 0; ok && h < H; h++) {
            mat_matmul_ref(&q, &p.X, &p.W_Q[h]), mat_add_row(&q, &p.b_Q[h]);
            mat_matmul_ref(&k, &p.S, &p.W_K[h]), mat_add_row(&k, &p.b_K[h]);
            mat_matmul_ref(&v, &p.S, &p.W_V[h]), mat_add_row(&v, &p.b_V[h]);
            mat_matmul_bt_ref(&sc, &q, &k);
            attn_scale(&scaled, &sc, DK);
            if (causal) attn_mask_causal(&scaled);
            mat_softmax_rows(&w, &scaled);
            mat_matmul_ref(&z, &w, &v);
            for (int r = 0; r < N; r++)
                memcpy(mat_row(&concat, r) + h * DK, mat_row(&z, r), sizeof(double) * DK);
            if (!same_matrix(&sc, &t.head[h].scores) || !same_matrix(&w, &t.head[h].weights)
                || !same_matrix(&z, &t.head[h].Z))
                bad++;
        }
        if (ok) {
            mat_matmul_ref(&out, &concat, &p.W_O), mat_add_row(&out, &p.b_O);
            if (!same_matrix(&out, &t.output)) bad++;
        }
        printf("trace %d x %d, %d heads%s, split over the cores (%d): %d of %d matrices differ "
               "from the plain loops\n",
               N, D, H, causal ? " (causal)" : "", platform_cpu_count(), bad, H + 1);
        CHECK(bad == 0, "%d matrices of the split trace differ", bad);
        mat_free(&q), mat_free(&k), mat_free(&v), mat_free(&sc), mat_free(&scaled), mat_free(&w),
            mat_free(&z);
        mat_free(&concat), mat_free(&out);
        trace_free(&t);
        params_free(&p);
    }
}

// block_dot_many (the real-model linear layers' few-token path) against block_dot, lane by lane,
// bit for bit, on lengths 0 to 300 (every remainder mod 4) with products of every size, 8, 12 and
// 16 lanes; the largest difference printed.
static void test_dot_many(void)
{
    enum { MAXIN = 300 };
    static double x[BLOCK_DOT_LANES][MAXIN], w[MAXIN];
    long diffs = 0;
    double worst = 0;
    for (int in = 0; in <= MAXIN; in += in < 40 ? 1 : 37) {
        for (int k = 0; k < in; k++) {
            w[k] = random_double(k % 3 == 0 ? 40 : 4);
            for (int i = 0; i < BLOCK_DOT_LANES; i++) x[i][k] = random_double(8);
        }
        for (int lanes = 8; lanes <= BLOCK_DOT_LANES; lanes += 4) { // 8, 12 and 16: each kernel
            static double packed[MAXIN * BLOCK_DOT_LANES];
            for (int k = 0; k < in; k++)
                for (int i = 0; i < lanes; i++) packed[k * lanes + i] = x[i][k];
            double out[BLOCK_DOT_LANES];
            block_dot_many(out, packed, w, in, lanes);
            for (int i = 0; i < lanes; i++) {
                double ref = block_dot(x[i], w, in);
                if (bits(out[i]) != bits(ref)) diffs++;
                if (fabs(out[i] - ref) > worst) worst = fabs(out[i] - ref);
            }
        }
    }
    printf("block_dot_many against block_dot: largest difference %g\n", worst);
    CHECK(diffs == 0, "%ld block_dot_many lanes differ from block_dot", diffs);
}

// RoPE by the table made once per trace against the angles computed where they are used (the plain
// loop).
static void test_rope_table(void)
{
    long diffs = 0;
    for (int d_k = 2; d_k <= 130; d_k += 16)
        for (int first = 0; first < 40; first += 13) {
            Matrix x, a, b;
            if (!mat_init(&x, 9, d_k) || !mat_init(&a, 9, d_k) || !mat_init(&b, 9, d_k)) {
                CHECK(false, "no memory");
                return;
            }
            for (size_t k = 0; k < (size_t)9 * (size_t)d_k; k++) x.data[k] = uniform(-3, 3);
            for (int kind = ROPE_HALVES; kind <= ROPE_INTERLEAVED; kind++)
                for (int sign = -1; sign <= 1; sign += 2) {
                    RopeTable t;
                    if (!attn_rope_table_init(&t, 500000.0, d_k, first, 9)) continue;
                    attn_rope_apply(&a, &x, (RopeKind)kind, &t, sign);
                    attn_rope_table_free(&t);
                    for (int r = 0; r < 9; r++)
                        for (int j = 0; 2 * j + 1 < d_k; j++) {
                            int pa, pb;
                            attn_rope_pair((RopeKind)kind, d_k, j, &pa, &pb);
                            double angle = attn_rope_angle(500000.0, d_k, first + r, j);
                            double c = core_cos(angle),
                                   sn = sign > 0 ? core_sin(angle) : -core_sin(angle);
                            double xa = mat_get(&x, r, pa), xb = mat_get(&x, r, pb);
                            mat_set(&b, r, pa, xa * c - xb * sn);
                            mat_set(&b, r, pb, xa * sn + xb * c);
                        }
                    for (int r = 0; r < 9; r++)
                        for (int j = 0; j < d_k - (d_k & 1); j++)
                            diffs += bits(mat_get(&a, r, j)) != bits(mat_get(&b, r, j));
                }
            mat_free(&x), mat_free(&a), mat_free(&b);
        }
    CHECK(diffs == 0, "%ld RoPE values by the table differ", diffs);
}

int main(void)
{
    test_dot_many();
    test_rope_table();
    test_fma();
    test_exp();
    test_exp_rows();
    test_matmul();
    test_trace_split();
    return check_report("test_fastpaths");
}
