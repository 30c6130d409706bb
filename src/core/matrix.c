// Dense row-major matrices of doubles: the plain reference loops every attention stage uses.
#include "matrix.h"
#include "exactmath.h"

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
    if (src->data) memcpy(out->data, src->data, (size_t)src->rows * (size_t)src->cols * sizeof(double));
    return true;
}

// out (n, p) = a (n, k) @ b (k, p): the plain reference loop, i-k-j order so the inner loop walks rows.
// Each out[i][j] starts at 0.0 and adds a[i][t] * b[t][j] for t = 0, 1, ..., k-1: the order the fast
// kernel below keeps too, so both give the same bits.
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

// The fast kernel. out is cut into MR x NR blocks; each block is summed in registers over a slice of
// KC values of t, with the NR columns of b for that slice packed contiguously (so they stay in L1), then
// stored; the next slice reloads the stored partial sums and goes on adding. The MR rows of a are read
// where they are (a slice of KC values of MR rows stays in L1 while every panel of b goes by; packing
// them too cost a third of the time at BERT's sizes). Every out[i][j] still starts at 0.0 and adds
// a[i][t] * b[t][j] for t = 0, 1, ..., k-1 in that order, each product rounded then added (no fused
// multiply-add): the same bits as mat_matmul_ref.
#define MR 4
#define NR 8
#define KC 256

static const double ZEROS[KC] = {0}; // the rows below the bottom edge of a

// c (MR, NR; row stride ldc) = (first ? 0 : c) + ar (MR rows of kc values: ar[r][t])
//                                                @ bp (kc, NR; packed row by row: bp[t*NR + j]).
static void micro_plain(double *c, size_t ldc, const double *const ar[MR], const double *bp, int kc, bool first)
{
    double acc[MR][NR];
    for (int r = 0; r < MR; r++)
        for (int j = 0; j < NR; j++) acc[r][j] = first ? 0.0 : c[(size_t)r * ldc + (size_t)j];
    for (int t = 0; t < kc; t++) {
        const double *br = bp + (size_t)t * NR;
        for (int r = 0; r < MR; r++) {
            double av = ar[r][t];
            for (int j = 0; j < NR; j++) acc[r][j] += av * br[j];
        }
    }
    for (int r = 0; r < MR; r++)
        for (int j = 0; j < NR; j++) c[(size_t)r * ldc + (size_t)j] = acc[r][j];
}

// The same with AVX2 intrinsics: 8 accumulators of 4 doubles; separate multiply and add (no FMA).
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define MAT_HAVE_AVX2 1
#include <immintrin.h>
__attribute__((target("avx2"))) static void micro_avx2(double *c, size_t ldc, const double *const ar[MR],
                                                        const double *bp, int kc, bool first)
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
    for (int t = 0; t < kc; t++, bp += NR) {
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
#endif

typedef void (*MicroKernel)(double *c, size_t ldc, const double *const ar[MR], const double *bp, int kc, bool first);

static MicroKernel pick_kernel(void)
{
#ifdef MAT_HAVE_AVX2
    if (__builtin_cpu_supports("avx2")) return micro_avx2;
#endif
    return micro_plain;
}

static void matmul_packed(Matrix *out, const Matrix *a, const Matrix *b, MicroKernel micro)
{
    int n = a->rows, k = a->cols, p = b->cols;
    if (n == 0 || p == 0) return;
    int panels = (p + NR - 1) / NR, blocks = (n + MR - 1) / MR, kcmax = k < KC ? k : KC;
    // One slab of b: KC rows of every column, packed panel by panel (panel j holds columns j*NR ..
    // j*NR+NR-1 as KC rows of NR, zeros past the right edge), filled reading b row by row so the weights
    // stream from memory in order. The kernel then reads it in order.
    double *slab = NULL;
    if (k > 0 && (size_t)n * (size_t)p * (size_t)k >= 4096) slab = malloc(sizeof(double) * (size_t)kcmax * (size_t)panels * NR);
    if (!slab) { // tiny (the classroom lessons), or no memory: the plain loop
        mat_matmul_ref(out, a, b);
        return;
    }
    double edge[MR * NR] = {0}; // a partial block at the right edge, summed here then copied out
    size_t lda = (size_t)k, ldc = (size_t)p;
    for (int t0 = 0; t0 < k; t0 += KC) {
        int kc = k - t0 < KC ? k - t0 : KC;
        bool first = t0 == 0;
        for (int t = 0; t < kc; t++) {
            const double *br = b->data + (size_t)(t0 + t) * ldc;
            for (int jp = 0; jp < panels; jp++) {
                double *d = slab + ((size_t)jp * (size_t)kc + (size_t)t) * NR;
                int j0 = jp * NR, nr = p - j0 < NR ? p - j0 : NR;
                if (nr == NR) {
                    memcpy(d, br + j0, sizeof(double) * NR);
                    continue;
                }
                for (int j = 0; j < nr; j++) d[j] = br[j0 + j];
                for (int j = nr; j < NR; j++) d[j] = 0.0;
            }
        }
        for (int ib = 0; ib < blocks; ib++) {
            int i0 = ib * MR, mr = n - i0 < MR ? n - i0 : MR;
            const double *ar[MR];
            for (int r = 0; r < MR; r++) ar[r] = r < mr ? a->data + (size_t)(i0 + r) * lda + (size_t)t0 : ZEROS;
            for (int jp = 0; jp < panels; jp++) {
                const double *bp = slab + (size_t)jp * (size_t)kc * NR;
                int j0 = jp * NR, nr = p - j0 < NR ? p - j0 : NR;
                double *c = out->data + (size_t)i0 * ldc + (size_t)j0;
                if (mr == MR && nr == NR) {
                    micro(c, ldc, ar, bp, kc, first);
                    continue;
                }
                for (int r = 0; r < mr; r++)
                    for (int j = 0; j < nr; j++) edge[r * NR + j] = first ? 0.0 : c[(size_t)r * ldc + (size_t)j];
                micro(edge, NR, ar, bp, kc, first);
                for (int r = 0; r < mr; r++)
                    for (int j = 0; j < nr; j++) c[(size_t)r * ldc + (size_t)j] = edge[r * NR + j];
            }
        }
    }
    free(slab);
}

void mat_matmul(Matrix *out, const Matrix *a, const Matrix *b) { matmul_packed(out, a, b, pick_kernel()); }

void mat_matmul_portable(Matrix *out, const Matrix *a, const Matrix *b) { matmul_packed(out, a, b, micro_plain); }

// out (n, m) = a (n, k) @ b^T, b is (m, k): each entry is the dot product of two rows, summed in t order.
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

// Transposes b once, then uses the blocked kernel (the same t order, so the same bits as the reference).
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
        core_exp_row(y, x, mx, (size_t)in->cols); // e^(x - mx), 0 below -746 (past the smallest subnormal)
        double sum = 0.0;
        for (int j = 0; j < in->cols; j++) sum += y[j];
        for (int j = 0; j < in->cols; j++) y[j] /= sum;
    }
}

bool mat_all_finite(const Matrix *m, bool allow_masked)
{
    size_t count = (size_t)m->rows * (size_t)m->cols;
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
