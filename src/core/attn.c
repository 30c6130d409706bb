// The stages of attention, each a plain loop over its matrices (see attn.h for the shapes).
#include "attn.h"
#include "params.h"

#include <math.h>
#include <string.h>

// q (n, d_k) = x (n, d_model) @ w (d_model, d_k) + b (1, d_k)
void attn_project(Matrix *q, const Matrix *x, const Matrix *w, const Matrix *b)
{
    mat_matmul(q, x, w);
    mat_add_row(q, b);
}

// scores (n, m) = q (n, d_k) @ k^T (d_k, m)
void attn_scores(Matrix *scores, const Matrix *q, const Matrix *k) { mat_matmul_bt(scores, q, k); }

// scaled (n, m) = scores / sqrt(d_k). Divides (not multiplies by 1/sqrt) to match NumPy's `/ np.sqrt(d_k)`.
void attn_scale(Matrix *scaled, const Matrix *scores, int d_k)
{
    double root = sqrt((double)d_k);
    size_t count = (size_t)scores->rows * (size_t)scores->cols;
    for (size_t i = 0; i < count; i++) scaled->data[i] = scores->data[i] / root;
}

// scaled (n, m) = scores * s
void attn_scale_by(Matrix *scaled, const Matrix *scores, double s)
{
    size_t count = (size_t)scores->rows * (size_t)scores->cols;
    for (size_t i = 0; i < count; i++) scaled->data[i] = scores->data[i] * s;
}

// entropy (n, 1) = -sum_j w log2 w over each row of weights (n, m)
void attn_entropy(Matrix *entropy, const Matrix *weights)
{
    for (int r = 0; r < weights->rows; r++) {
        double h = 0.0;
        const double *w = mat_row(weights, r);
        for (int c = 0; c < weights->cols; c++)
            if (w[c] > 0.0) h -= w[c] * log2(w[c]);
        entropy->data[r] = h == 0.0 ? 0.0 : h; // never -0
    }
}

// The ablated heads' columns of concat (n, h * d_k) become zeros.
void attn_ablate(Matrix *concat, uint64_t ablated, int heads, int d_k)
{
    for (int h = 0; h < heads && h < ATTN_MAX_ABLATED_HEADS; h++) {
        if (!((ablated >> h) & 1u)) continue;
        for (int r = 0; r < concat->rows; r++) memset(mat_row(concat, r) + (size_t)h * (size_t)d_k, 0, (size_t)d_k * sizeof(double));
    }
}

// A query may look only at itself and earlier tokens: -inf above the diagonal.
void attn_mask_causal(Matrix *scaled)
{
    for (int r = 0; r < scaled->rows; r++)
        for (int c = r + 1; c < scaled->cols; c++) mat_set(scaled, r, c, -INFINITY);
}

// z (n, d_k) = weights (n, m) @ v (m, d_k)
void attn_weighted_sum(Matrix *z, const Matrix *weights, const Matrix *v) { mat_matmul(z, weights, v); }

// concat (n, h * d_k) = [z_0 ... z_{h-1}] side by side
void attn_concat(Matrix *concat, const Matrix *z, int heads)
{
    for (int h = 0; h < heads; h++) {
        int d_k = z[h].cols;
        for (int r = 0; r < z[h].rows; r++)
            memcpy(mat_row(concat, r) + (size_t)h * (size_t)d_k, mat_row(&z[h], r), (size_t)d_k * sizeof(double));
    }
}

