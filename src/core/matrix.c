// Dense row-major matrices of doubles: the plain reference loops every attention stage uses.
#include "matrix.h"

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

// The register-blocked kernel: a MR x NR block of out is summed in local accumulators (kept in
// vector registers) over the whole of k, then stored once. Same summation order as the reference.
#define MR 4
#define NR 8

// One full MR x NR block at out[i0][j0].
static inline void block_full(double *restrict out, const double *restrict a, const double *restrict b, int k,
                              int p, int i0, int j0)
{
    double acc[MR][NR] = {{0}};
    const double *a0 = a + (size_t)i0 * (size_t)k;
    for (int t = 0; t < k; t++) {
        const double *br = b + (size_t)t * (size_t)p + j0;
        for (int r = 0; r < MR; r++) {
            double av = a0[(size_t)r * (size_t)k + (size_t)t];
            for (int c = 0; c < NR; c++) acc[r][c] += av * br[c];
        }
    }
    for (int r = 0; r < MR; r++)
        for (int c = 0; c < NR; c++) out[(size_t)(i0 + r) * (size_t)p + (size_t)(j0 + c)] = acc[r][c];
}

// A partial block at the bottom or right edge (mr <= MR rows, nr <= NR columns).
static void block_edge(double *out, const double *a, const double *b, int k, int p, int i0, int j0, int mr, int nr)
{
    double acc[MR][NR] = {{0}};
    for (int t = 0; t < k; t++) {
        const double *br = b + (size_t)t * (size_t)p + j0;
        for (int r = 0; r < mr; r++) {
            double av = a[(size_t)(i0 + r) * (size_t)k + (size_t)t];
            for (int c = 0; c < nr; c++) acc[r][c] += av * br[c];
        }
    }
    for (int r = 0; r < mr; r++)
        for (int c = 0; c < nr; c++) out[(size_t)(i0 + r) * (size_t)p + (size_t)(j0 + c)] = acc[r][c];
}

// Built twice by GCC (AVX2 and baseline x86-64) and chosen at load time, so the same binary runs
// everywhere (clang 14 leaves the dispatcher out, so it gets the baseline build).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx2", "default")))
#endif
void mat_matmul(Matrix *out, const Matrix *a, const Matrix *b)
{
    int n = a->rows, k = a->cols, p = b->cols;
    for (int i0 = 0; i0 < n; i0 += MR) {
        int mr = n - i0 < MR ? n - i0 : MR;
        for (int j0 = 0; j0 < p; j0 += NR) {
            int nr = p - j0 < NR ? p - j0 : NR;
            if (mr == MR && nr == NR)
                block_full(out->data, a->data, b->data, k, p, i0, j0);
            else
                block_edge(out->data, a->data, b->data, k, p, i0, j0, mr, nr);
        }
    }
}

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
        double sum = 0.0;
        for (int j = 0; j < in->cols; j++) {
            y[j] = x[j] == -INFINITY ? 0.0 : exp(x[j] - mx);
            sum += y[j];
        }
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
