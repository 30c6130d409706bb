// Dense row-major matrices of doubles: the plain reference loops every attention stage uses.
#include "core/matrix.h"
#include "core/exactmath.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool mat_init(Matrix *m, int rows, int cols)
{
    m->rows = 0;
    m->cols = 0;
    m->data = NULL;
    if (rows < 0 || cols < 0) return false;
    size_t count = (size_t)rows * (size_t)cols;
    if (cols != 0 && count / (size_t)cols != (size_t)rows) return false;
    if (count > MAT_MAX_ELEMENTS) return false;
    if (count > 0) {
        m->data = calloc(count, sizeof(double));
        if (!m->data) return false;
    }
    m->rows = rows;
    m->cols = cols;
    return true;
}

void mat_free(Matrix *m)
{
    free(m->data);
    m->data = NULL;
    m->rows = 0;
    m->cols = 0;
}

bool mat_copy(Matrix *out, const Matrix *src)
{
    if (!mat_init(out, src->rows, src->cols)) return false;
    if (src->data)
        memcpy(out->data, src->data, (size_t)src->rows * (size_t)src->cols * sizeof(double));
    return true;
}

// out (n, p) = a (n, k) @ b (k, p): the plain reference loop, i-k-j order so the inner loop walks
// rows. Each out[i][j] starts at 0.0 and adds a[i][t] * b[t][j] for t = 0, 1, ..., k-1: the order
// the fast kernel below keeps too, so both give the same bits.
void mat_matmul_ref(Matrix *out, const Matrix *a, const Matrix *b)
{
    int n = a->rows, k = a->cols, p = b->cols;
    for (int i = 0; i < n; i++) {
        double *o = mat_row(out, i);
        const double *ar = mat_row(a, i);
        for (int j = 0; j < p; j++) o[j] = 0.0;
        for (int t = 0; t < k; t++) {
            double av = ar[t];
            const double *br = mat_row(b, t);
            for (int j = 0; j < p; j++) o[j] += av * br[j];
        }
    }
}

// The fast kernels. out is cut into mr x nr blocks; each block is summed in registers over a slice
// of KC values of t, with the nr columns of b for that slice packed contiguously (so they stay
// near), then stored; the next slice reloads the stored partial sums and goes on adding. The mr
// rows of a are read where they are (a slice of KC values of mr rows stays in L1 while every panel
// of b goes by; packing them too cost a third of the time at BERT's sizes). Every out[i][j] still
// starts at 0.0 and adds a[i][t] * b[t][j] for t = 0, 1, ..., k-1 in that order, each product
// rounded then added (no fused multiply-add): the same bits as mat_matmul_ref, whichever kernel
// runs.
#ifndef KC
#define KC 256
#endif
#define AVX512_MR 12 // the AVX-512 blocks: 1 to 12 rows (one function each, below)
#define MR_MAX AVX512_MR
#define NR_MAX 16

static const double ZEROS[KC] = {0}; // the rows below the bottom edge of a

#if defined(__GNUC__) || defined(__clang__)
#define MAT_PREFETCH(p) __builtin_prefetch(p) // a hint only: never faults, changes no value
#else
#define MAT_PREFETCH(p) ((void)0)
#endif

// c (mr, nr; row stride ldc) = (first ? 0 : c) + ar (mr rows of kc values: ar[r][t])
//                                                @ bp (kc, nr; row stride ldb: bp[t*ldb + j]).
typedef void (*MicroKernel)(double *c, size_t ldc, const double *const *ar, const double *bp,
                            size_t ldb, int kc, bool first);

typedef struct {
    const char *name;
    MicroKernel micro; // mr x nr
    int mr, nr;
    // by_rows[r - 1] computes exactly r rows (r = 1 .. mr_max): a block may then have up to mr_max
    // rows and the last one only what is left. NULL: every block is mr rows, zeros below the bottom
    // of a.
    const MicroKernel *by_rows;
    int mr_max;
} Kernel;

// The portable block: 4 x 8 in plain C.
static void micro_plain(double *c, size_t ldc, const double *const *ar, const double *bp,
                        size_t ldb, int kc, bool first)
{
    enum { R = 4, J = 8 };
    double acc[R][J];
    for (int r = 0; r < R; r++)
        for (int j = 0; j < J; j++) acc[r][j] = first ? 0.0 : c[(size_t)r * ldc + (size_t)j];
    for (int t = 0; t < kc; t++) {
        const double *br = bp + (size_t)t * ldb;
        for (int r = 0; r < R; r++) {
            double av = ar[r][t];
            for (int j = 0; j < J; j++) acc[r][j] += av * br[j];
        }
    }
    for (int r = 0; r < R; r++)
        for (int j = 0; j < J; j++) c[(size_t)r * ldc + (size_t)j] = acc[r][j];
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define MAT_HAVE_X86 1
#include <immintrin.h>
// The same with AVX2 intrinsics: 4 x 8, 8 accumulators of 4 doubles; separate multiply and add (no
// FMA).
__attribute__((target("avx2"))) static void micro_avx2(double *c, size_t ldc,
                                                       const double *const *ar, const double *bp,
                                                       size_t ldb, int kc, bool first)
{
    __m256d c00, c01, c10, c11, c20, c21, c30, c31;
    if (first) {
        c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = _mm256_setzero_pd();
    } else {
        c00 = _mm256_loadu_pd(c), c01 = _mm256_loadu_pd(c + 4);
        c10 = _mm256_loadu_pd(c + ldc), c11 = _mm256_loadu_pd(c + ldc + 4);
        c20 = _mm256_loadu_pd(c + 2 * ldc), c21 = _mm256_loadu_pd(c + 2 * ldc + 4);
        c30 = _mm256_loadu_pd(c + 3 * ldc), c31 = _mm256_loadu_pd(c + 3 * ldc + 4);
    }
    const double *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3];
    for (int t = 0; t < kc; t++, bp += ldb) {
        _mm_prefetch((const char *)(bp + 8 * ldb),
                     _MM_HINT_T0); // b's rows ahead (read in place: from memory)
        __m256d b0 = _mm256_loadu_pd(bp), b1 = _mm256_loadu_pd(bp + 4);
        __m256d av = _mm256_broadcast_sd(a0 + t);
        c00 = _mm256_add_pd(c00, _mm256_mul_pd(av, b0));
        c01 = _mm256_add_pd(c01, _mm256_mul_pd(av, b1));
        av = _mm256_broadcast_sd(a1 + t);
        c10 = _mm256_add_pd(c10, _mm256_mul_pd(av, b0));
        c11 = _mm256_add_pd(c11, _mm256_mul_pd(av, b1));
        av = _mm256_broadcast_sd(a2 + t);
        c20 = _mm256_add_pd(c20, _mm256_mul_pd(av, b0));
        c21 = _mm256_add_pd(c21, _mm256_mul_pd(av, b1));
        av = _mm256_broadcast_sd(a3 + t);
        c30 = _mm256_add_pd(c30, _mm256_mul_pd(av, b0));
        c31 = _mm256_add_pd(c31, _mm256_mul_pd(av, b1));
    }
    _mm256_storeu_pd(c, c00), _mm256_storeu_pd(c + 4, c01);
    _mm256_storeu_pd(c + ldc, c10), _mm256_storeu_pd(c + ldc + 4, c11);
    _mm256_storeu_pd(c + 2 * ldc, c20), _mm256_storeu_pd(c + 2 * ldc + 4, c21);
    _mm256_storeu_pd(c + 3 * ldc, c30), _mm256_storeu_pd(c + 3 * ldc + 4, c31);
}

// AVX-512: mr x 16 for every mr from 1 to AVX512_MR (2 accumulators of 8 doubles a row, at most 24
// of the 32 registers), one function per mr, so a block at the bottom edge computes only its own
// rows (the paper's 10 tokens are one block of 10, not two of 8 with 6 rows of zeros). Still a
// multiply rounded, then an add rounded. Each a[r][t] is broadcast inside the multiply ({1to8},
// from memory): a separate broadcast instruction takes the same pipes as the arithmetic on AMD's
// Zen 4 and cost a third of the speed there (19 against 26 GMAC/s for an 8 x 16 block in L1), and
// GCC will not fold one used twice.
#define AVX512_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define AVX512_DECL(r)                                                                             \
    __m512d c##r##_0 = _mm512_setzero_pd(), c##r##_1 = _mm512_setzero_pd();                        \
    const double *a##r = mr > (r) ? ar[r] : NULL;                                                  \
    if (mr > (r) && !first)                                                                        \
        c##r##_0 = _mm512_loadu_pd(c + (r)*ldc), c##r##_1 = _mm512_loadu_pd(c + (r)*ldc + 8);
#define AVX512_MULADD(r, v)                                                                        \
    {                                                                                              \
        __m512d prod;                                                                              \
        __asm__("vmulpd %1%{1to8%}, %2, %0" : "=v"(prod) : "m"(a##r[t]), "v"(b##v));               \
        c##r##_##v = _mm512_add_pd(c##r##_##v, prod);                                              \
    }
#define AVX512_STEP(r)                                                                             \
    if (mr > (r)) {                                                                                \
        AVX512_MULADD(r, 0)                                                                        \
        AVX512_MULADD(r, 1)                                                                        \
    }
#define AVX512_STORE(r)                                                                            \
    if (mr > (r))                                                                                  \
        _mm512_storeu_pd(c + (r)*ldc, c##r##_0), _mm512_storeu_pd(c + (r)*ldc + 8, c##r##_1);
__attribute__((target("avx512f"), always_inline)) static inline void avx512_rows(
    const int mr, double *c, size_t ldc, const double *const *ar, const double *bp, size_t ldb,
    int kc, bool first)
{
    AVX512_ROWS(AVX512_DECL)
    for (int t = 0; t < kc; t++, bp += ldb) {
        _mm_prefetch((const char *)(bp + 16 * ldb),
                     _MM_HINT_T0); // 16 rows of b ahead (in place, a row may be a page)
        _mm_prefetch((const char *)(bp + 16 * ldb + 8), _MM_HINT_T0);
        __m512d b0 = _mm512_loadu_pd(bp), b1 = _mm512_loadu_pd(bp + 8);
        AVX512_ROWS(AVX512_STEP)
    }
    AVX512_ROWS(AVX512_STORE)
}
#define AVX512_FN(r)                                                                               \
    __attribute__((target("avx512f"))) static void micro_avx512_##r(                               \
        double *c, size_t ldc, const double *const *ar, const double *bp, size_t ldb, int kc,      \
        bool first)                                                                                \
    {                                                                                              \
        avx512_rows((r) + 1, c, ldc, ar, bp, ldb, kc, first);                                      \
    }
AVX512_ROWS(AVX512_FN)
#define AVX512_ENTRY(r) micro_avx512_##r,
static const MicroKernel AVX512_BY_ROWS[AVX512_MR] = {AVX512_ROWS(AVX512_ENTRY)}; // [mr - 1]
#undef AVX512_ENTRY
#undef AVX512_FN
#undef AVX512_STORE
#undef AVX512_STEP
#undef AVX512_MULADD
#undef AVX512_DECL
#undef AVX512_ROWS
#endif

#if defined(__wasm_simd128__)
#define MAT_HAVE_WASM_SIMD 1
#include <wasm_simd128.h>
// WebAssembly SIMD (the page, built with -msimd128): 4 x 4, 8 accumulators of 2 doubles (the
// engines give 16 registers of 128 bits); a multiply rounded, then an add rounded, as everywhere.
#define WASM_ROW_LOAD(r)                                                                           \
    c##r##0 = first ? wasm_f64x2_splat(0.0) : wasm_v128_load(c + (r)*ldc);                         \
    c##r##1 = first ? wasm_f64x2_splat(0.0) : wasm_v128_load(c + (r)*ldc + 2)
#define WASM_ROW_STEP(r)                                                                           \
    av = wasm_f64x2_splat(ar[r][t]);                                                               \
    c##r##0 = wasm_f64x2_add(c##r##0, wasm_f64x2_mul(av, b0));                                     \
    c##r##1 = wasm_f64x2_add(c##r##1, wasm_f64x2_mul(av, b1))
#define WASM_ROW_STORE(r)                                                                          \
    wasm_v128_store(c + (r)*ldc, c##r##0), wasm_v128_store(c + (r)*ldc + 2, c##r##1)
static void micro_wasm(double *c, size_t ldc, const double *const *ar, const double *bp, size_t ldb,
                       int kc, bool first)
{
    v128_t c00, c01, c10, c11, c20, c21, c30, c31, av;
    WASM_ROW_LOAD(0);
    WASM_ROW_LOAD(1);
    WASM_ROW_LOAD(2);
    WASM_ROW_LOAD(3);
    for (int t = 0; t < kc; t++, bp += ldb) {
        v128_t b0 = wasm_v128_load(bp), b1 = wasm_v128_load(bp + 2);
        WASM_ROW_STEP(0);
        WASM_ROW_STEP(1);
        WASM_ROW_STEP(2);
        WASM_ROW_STEP(3);
    }
    WASM_ROW_STORE(0);
    WASM_ROW_STORE(1);
    WASM_ROW_STORE(2);
    WASM_ROW_STORE(3);
}
#undef WASM_ROW_LOAD
#undef WASM_ROW_STEP
#undef WASM_ROW_STORE
#endif

// The kernels by MatKernel (named even where not compiled in), and whether this CPU can run each.
#ifdef MAT_HAVE_X86
#define MICRO_AVX2 micro_avx2
#define MICRO_AVX512 micro_avx512_7 // 8 rows
#define AVX512_ROW_KERNELS AVX512_BY_ROWS
#else
#define MICRO_AVX2 NULL
#define MICRO_AVX512 NULL
#define AVX512_ROW_KERNELS NULL
#endif
#ifdef MAT_HAVE_WASM_SIMD
#define MICRO_WASM micro_wasm
#else
#define MICRO_WASM NULL
#endif
static const Kernel KERNELS[MAT_KERNEL_COUNT] = {
    [MAT_KERNEL_PORTABLE] = {"portable", micro_plain, 4, 8, NULL, 4},
    [MAT_KERNEL_AVX2] = {"avx2", MICRO_AVX2, 4, 8, NULL, 4},
    [MAT_KERNEL_AVX512] = {"avx512", MICRO_AVX512, 8, 16, AVX512_ROW_KERNELS, AVX512_MR},
    [MAT_KERNEL_WASM_SIMD] = {"wasm-simd128", MICRO_WASM, 4, 4, NULL, 4},
};

bool mat_kernel_available(MatKernel k)
{
    if (k < 0 || k >= MAT_KERNEL_COUNT || !KERNELS[k].micro) return false;
#ifdef MAT_HAVE_X86
    if (k == MAT_KERNEL_AVX2) return __builtin_cpu_supports("avx2");
    if (k == MAT_KERNEL_AVX512) return __builtin_cpu_supports("avx512f");
#endif
    return true;
}

MatKernel mat_kernel_best(void)
{
    for (int k = MAT_KERNEL_COUNT - 1; k > 0; k--)
        if (mat_kernel_available((MatKernel)k)) return (MatKernel)k;
    return MAT_KERNEL_PORTABLE;
}

const char *mat_kernel_name(MatKernel k)
{
    return k >= 0 && k < MAT_KERNEL_COUNT && KERNELS[k].name ? KERNELS[k].name : "?";
}

// Up to this many blocks of rows of a, b is read where it is (each value of b is used by so few
// blocks that copying it costs more than it saves: 40 % of the paper case's 10-token trace went to
// packing the weights).
#ifndef IN_PLACE_BLOCKS
#define IN_PLACE_BLOCKS 3
#endif
#ifndef IN_PLACE_COLS
#define IN_PLACE_COLS 128
#endif

// At most this many panels of b are packed at a time (NC_PANELS * nr columns of KC rows: 512 KiB
// with the AVX-512 kernel, so the slab stays in L2 while every block of a goes by; a whole slab of
// BERT's 768-wide W_O was 1.5 MiB and the blocks went to L3 for it).
#ifndef NC_PANELS
#define NC_PANELS 16
#endif

// The rows of the next block of a, left rows from the bottom: kern->mr, or all that are left when
// they fit one of the kernel's blocks (n = 10: one block of 10).
static int block_rows(const Kernel *kern, int left)
{
    if (kern->by_rows && left <= kern->mr_max) return left;
    return left < kern->mr ? left : kern->mr;
}

// Columns [c0, c1) of out (n, p) = a (n, k) @ b (k, p) (the other columns untouched).
static void matmul_packed_cols(Matrix *out, const Matrix *a, const Matrix *b, const Kernel *kern,
                               int c0, int c1)
{
    int n = a->rows, k = a->cols, p = c1 - c0, mr_full = kern->mr, nr_full = kern->nr;
    if (n == 0 || p <= 0) return;
    int panels = (p + nr_full - 1) / nr_full, blocks = 0, kcmax = k < KC ? k : KC;
    for (int i0 = 0; i0 < n; i0 += block_rows(kern, n - i0)) blocks++;
    // One slab of b: KC rows of up to NC_PANELS panels, packed panel by panel (panel j holds
    // columns j*nr .. j*nr+nr-1 as KC rows of nr, zeros past the right edge). Filled panel by panel
    // so the slab is written in order (each line of b is read once; writing row by row into every
    // panel at once scattered the stores over pages). The kernel then reads it in order. With few
    // blocks of a, only the last, partial panel is copied (into the slab's first panel) and the
    // full ones are read in b, row stride ldc. Narrow b (at most IN_PLACE_COLS columns: a head's
    // W_Q, W_K, W_V; K^T; V) is read in place too: a slice of KC rows of it (128 KiB) stays in L2
    // for every block, and copying a head's weights from memory was the larger part of the packing
    // in a BERT-sized trace.
    bool in_place = blocks <= IN_PLACE_BLOCKS || b->cols <= IN_PLACE_COLS;
    int first_packed = in_place ? panels - 1 : 0, chunk = in_place ? panels : NC_PANELS;
    int slab_panels = in_place ? 1 : panels < NC_PANELS ? panels : NC_PANELS;
    double *slab = NULL;
    if (k > 0 && (size_t)n * (size_t)p * (size_t)k >= 4096)
        slab = malloc(sizeof(double) * (size_t)kcmax * (size_t)slab_panels * (size_t)nr_full);
    if (!slab) { // tiny (the classroom lessons), or no memory: the plain loop
        if (c0 == 0 && c1 == b->cols) {
            mat_matmul_ref(out, a, b);
            return;
        }
        for (int i = 0; i < n; i++) { // the same loop over columns [c0, c1) only
            double *o = mat_row(out, i) + c0;
            const double *ar = mat_row(a, i);
            for (int j = 0; j < p; j++) o[j] = 0.0;
            for (int t = 0; t < k; t++) {
                double av = ar[t];
                const double *br = mat_row(b, t) + c0;
                for (int j = 0; j < p; j++) o[j] += av * br[j];
            }
        }
        return;
    }
    double edge[MR_MAX * NR_MAX]; // a partial block at an edge, summed here then copied out
    size_t lda = (size_t)k, ldc = (size_t)out->cols, ldbs = (size_t)b->cols, nrs = (size_t)nr_full;
    const double *b0 = b->data + c0;
    double *out0 = out->data + c0;
    for (int jc0 = 0; jc0 < panels; jc0 += chunk) {
        int jc1 = jc0 + chunk < panels ? jc0 + chunk : panels;
        for (int t0 = 0; t0 < k; t0 += KC) {
            int kc = k - t0 < KC ? k - t0 : KC;
            bool first = t0 == 0;
            for (int jp = jc0 > first_packed ? jc0 : first_packed; jp < jc1; jp++) {
                int j0 = jp * nr_full, nr = p - j0 < nr_full ? p - j0 : nr_full;
                if (in_place && nr == nr_full) break; // no partial panel
                double *d = slab + (size_t)(in_place ? 0 : jp - jc0) * (size_t)kc * nrs;
                const double *br = b0 + (size_t)t0 * ldbs + (size_t)j0;
                for (int t = 0; t < kc;
                     t++, d += nrs, br += ldbs) { // a loop, not memcpy: 32 to 128 bytes a call
                    MAT_PREFETCH(br + 8 * ldbs); // 8 rows ahead: a new page each row of a
                    MAT_PREFETCH(br + 8 * ldbs + nrs
                                 - 1); // wide b, where the hardware does not look
                    for (int j = 0; j < nr; j++) d[j] = br[j];
                    for (int j = nr; j < nr_full; j++) d[j] = 0.0;
                }
            }
            for (int i0 = 0, mr; i0 < n; i0 += mr) {
                mr = block_rows(kern, n - i0);
                const double *ar[MR_MAX];
                for (int r = 0; r < MR_MAX; r++)
                    ar[r] = r < mr ? a->data + (size_t)(i0 + r) * lda + (size_t)t0 : ZEROS;
                MicroKernel micro = kern->by_rows ? kern->by_rows[mr - 1] : kern->micro;
                int rows = kern->by_rows ? mr : mr_full; // the rows micro computes
                for (int jp = jc0; jp < jc1; jp++) {
                    int j0 = jp * nr_full, nr = p - j0 < nr_full ? p - j0 : nr_full;
                    bool from_b = in_place && nr == nr_full;
                    const double *bp =
                        from_b ? b0 + (size_t)t0 * ldbs + (size_t)j0
                               : slab + (size_t)(in_place ? 0 : jp - jc0) * (size_t)kc * nrs;
                    size_t ldb = from_b ? ldbs : nrs;
                    double *c = out0 + (size_t)i0 * ldc + (size_t)j0;
                    if (mr == rows && nr == nr_full) {
                        micro(c, ldc, ar, bp, ldb, kc, first);
                        continue;
                    }
                    for (int r = 0; r < mr; r++)
                        for (int j = 0; j < nr; j++)
                            edge[r * nr_full + j] = first ? 0.0 : c[(size_t)r * ldc + (size_t)j];
                    micro(edge, nrs, ar, bp, ldb, kc, first);
                    for (int r = 0; r < mr; r++)
                        for (int j = 0; j < nr; j++)
                            c[(size_t)r * ldc + (size_t)j] = edge[r * nr_full + j];
                }
            }
        }
    }
    free(slab);
}

static void matmul_packed(Matrix *out, const Matrix *a, const Matrix *b, const Kernel *kern)
{
    matmul_packed_cols(out, a, b, kern, 0, b->cols);
}

bool mat_matmul_with(Matrix *out, const Matrix *a, const Matrix *b, MatKernel k)
{
    if (!mat_kernel_available(k)) return false;
    matmul_packed(out, a, b, &KERNELS[k]);
    return true;
}

void mat_matmul(Matrix *out, const Matrix *a, const Matrix *b)
{
    matmul_packed(out, a, b, &KERNELS[mat_kernel_best()]);
}

void mat_matmul_cols(Matrix *out, const Matrix *a, const Matrix *b, int c0, int c1)
{
    matmul_packed_cols(out, a, b, &KERNELS[mat_kernel_best()], c0, c1);
}

void mat_matmul_portable(Matrix *out, const Matrix *a, const Matrix *b)
{
    matmul_packed(out, a, b, &KERNELS[MAT_KERNEL_PORTABLE]);
}

// out (n, m) = a (n, k) @ b^T, b is (m, k): each entry is the dot product of two rows, summed in t
// order.
void mat_matmul_bt_ref(Matrix *out, const Matrix *a, const Matrix *b)
{
    int n = a->rows, k = a->cols, m = b->rows;
    for (int i = 0; i < n; i++) {
        const double *ar = mat_row(a, i);
        for (int j = 0; j < m; j++) {
            const double *br = mat_row(b, j);
            double s = 0.0;
            for (int t = 0; t < k; t++) s += ar[t] * br[t];
            mat_set(out, i, j, s);
        }
    }
}

// Transposes b once, then uses the blocked kernel (the same t order, so the same bits as the
// reference).
void mat_matmul_bt(Matrix *out, const Matrix *a, const Matrix *b)
{
    Matrix bt;
    if ((size_t)b->rows * (size_t)b->cols < 64 || !mat_init(&bt, b->cols, b->rows)) {
        mat_matmul_bt_ref(out, a, b); // tiny, or no memory for the transpose: the plain loop
        return;
    }
    for (int r = 0; r < b->rows; r++)
        for (int c = 0; c < b->cols; c++) mat_set(&bt, c, r, mat_get(b, r, c));
    mat_matmul(out, a, &bt);
    mat_free(&bt);
}

// m (n, c) += bias (1, c) on every row.
void mat_add_row(Matrix *m, const Matrix *bias)
{
    for (int i = 0; i < m->rows; i++) {
        double *r = mat_row(m, i);
        for (int j = 0; j < m->cols; j++) r[j] += bias->data[j];
    }
}

// out (n, c) = in (n, c) * s.
void mat_scale(Matrix *out, const Matrix *in, double s)
{
    size_t count = (size_t)in->rows * (size_t)in->cols;
    for (size_t i = 0; i < count; i++) out->data[i] = in->data[i] * s;
}

// out (n, c) = row-wise softmax of in (n, c). Subtracting the row maximum keeps exp() from
// overflowing for large scores; -INFINITY (masked) entries become exactly 0.
void mat_softmax_rows(Matrix *out, const Matrix *in)
{
    for (int i = 0; i < in->rows; i++) {
        const double *x = mat_row(in, i);
        double *y = mat_row(out, i);
        double mx = -INFINITY;
        for (int j = 0; j < in->cols; j++)
            if (x[j] > mx) mx = x[j];
        if (mx == -INFINITY) { // nothing to attend to: a row of zeros rather than NaN
            for (int j = 0; j < in->cols; j++) y[j] = 0.0;
            continue;
        }
        core_exp_row(y, x, mx,
                     (size_t)in->cols); // e^(x - mx), 0 below -746 (past the smallest subnormal)
        double sum = 0.0;
        for (int j = 0; j < in->cols; j++) sum += y[j];
        for (int j = 0; j < in->cols; j++) y[j] /= sum;
    }
}

void mat_top_k(int *id, double *prob, const double *p, int n, int k)
{
    for (int q = 0; q < k; q++) {
        int best = -1;
        for (int v = 0; v < n; v++) {
            bool after = q == 0 || p[v] < prob[q - 1] || (p[v] == prob[q - 1] && v > id[q - 1]);
            if (after && (best < 0 || p[v] > p[best])) best = v;
        }
        id[q] = best;
        prob[q] = p[best];
    }
}

bool mat_all_finite(const Matrix *m, bool allow_masked)
{
    size_t count = (size_t)m->rows * (size_t)m->cols;
    if (!allow_masked) { // the exponent bits all ones (inf or NaN) anywhere: integer ops the
                         // compiler vectorizes
        uint64_t bad = 0;
        for (size_t i = 0; i < count; i++) {
            uint64_t u;
            memcpy(&u, &m->data[i], sizeof u);
            bad |= (u & UINT64_C(0x7ff0000000000000))
                   + UINT64_C(0x0010000000000000); // carries into bit 63
        }
        return (bad >> 63) == 0;
    }
    for (size_t i = 0; i < count; i++) {
        double v = m->data[i];
        if (isfinite(v)) continue;
        if (allow_masked && v == -INFINITY) continue;
        return false;
    }
    return true;
}

double mat_max_abs_diff(const Matrix *a, const Matrix *b)
{
    double worst = 0.0;
    size_t count = (size_t)a->rows * (size_t)a->cols;
    for (size_t i = 0; i < count; i++) {
        double d = fabs(a->data[i] - b->data[i]);
        if (d > worst || isnan(d)) worst = d;
    }
    return worst;
}
