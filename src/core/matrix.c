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

// out (n, p) = a (n, k) @ b (k, p); i-k-j order so the inner loop walks rows of b and out.
void mat_matmul(Matrix *out, const Matrix *a, const Matrix *b)
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

// out (n, m) = a (n, k) @ b^T, b is (m, k): each entry is the dot product of two rows.
void mat_matmul_bt(Matrix *out, const Matrix *a, const Matrix *b)
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
