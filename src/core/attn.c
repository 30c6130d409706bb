// The stages of attention, each a plain loop over its matrices (see attn.h for the shapes).
#include "core/attn.h"
#include "core/exactmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// q (n, d_k) = x (n, d_model) @ w (d_model, d_k) + b (1, d_k)
void attn_project(Matrix *q, const Matrix *x, const Matrix *w, const Matrix *b)
{
    mat_matmul(q, x, w);
    mat_add_row(q, b);
}

// scores (n, m) = q (n, d_k) @ k^T (d_k, m)
void attn_scores(Matrix *scores, const Matrix *q, const Matrix *k) { mat_matmul_bt(scores, q, k); }

// scaled (n, m) = scores / sqrt(d_k). Divides (not multiplies by 1/sqrt) to match NumPy's `/
// np.sqrt(d_k)`.
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
        for (int r = 0; r < concat->rows; r++)
            memset(mat_row(concat, r) + (size_t)h * (size_t)d_k, 0, (size_t)d_k * sizeof(double));
    }
}

// A query may look only at itself and earlier tokens: -inf above the diagonal.
void attn_mask_causal(Matrix *scaled) { attn_mask_window(scaled, 0); }

// The causal mask with a sliding window: -inf outside the band r - window < c <= r.
void attn_mask_window(Matrix *scaled, int window)
{
    for (int r = 0; r < scaled->rows; r++)
        for (int c = 0; c < scaled->cols; c++)
            if (attn_masked(r, c, window)) mat_set(scaled, r, c, -INFINITY);
}

// The same expressions as NumPy's pos * (1.0 / base ** (2 * j / d_k)).
double attn_rope_angle(double base, int d_k, int pos, int j)
{
    double theta = 1.0 / core_pow(base, (double)(2 * j) / (double)d_k);
    return (double)pos * theta;
}

// Hugging Face's _compute_linear_scaling_rope_parameters (inv_freq /= factor) and
// _compute_llama3_parameters (modeling_rope_utils.py, transformers 4.4x), step by step in float64:
// wavelen = 2 pi / inv_freq; above original_max / low_freq_factor inv_freq / factor, below
// original_max / high_freq_factor inv_freq, between (1 - smooth) * inv_freq / factor + smooth *
// inv_freq with smooth = (original_max / wavelen - low_freq_factor) / (high_freq_factor -
// low_freq_factor).
double attn_rope_theta(double base, const RopeScale *scale, int d_k, int j)
{
    double inv = 1.0 / core_pow(base, (double)(2 * j) / (double)d_k);
    if (!scale || scale->kind == ROPE_SCALE_NONE) return inv;
    if (scale->kind == ROPE_SCALE_LINEAR) return inv / scale->factor;
    double wavelen = 2.0 * 3.14159265358979323846 / inv;
    double low_wavelen = scale->original_max / scale->low_freq_factor;
    double high_wavelen = scale->original_max / scale->high_freq_factor;
    if (wavelen < high_wavelen) return inv;
    if (wavelen > low_wavelen) return inv / scale->factor;
    double smooth = (scale->original_max / wavelen - scale->low_freq_factor)
                    / (scale->high_freq_factor - scale->low_freq_factor);
    return (1.0 - smooth) * inv / scale->factor + smooth * inv;
}

// pos * theta_j as attn_rope_angle writes it: the same bits when there is no scaling.
static double scaled_angle(double base, const RopeScale *scale, int d_k, int pos, int j)
{
    return (double)pos * attn_rope_theta(base, scale, d_k, j);
}

void attn_rope_pair(RopeKind kind, int d_k, int j, int *a, int *b)
{
    *a = kind == ROPE_INTERLEAVED ? 2 * j : j;
    *b = kind == ROPE_INTERLEAVED ? 2 * j + 1 : j + d_k / 2;
}

// out (rows, d_k) = x turned by +-angle(row, j) in each pair j
void attn_rope_blocks(Matrix *out, const Matrix *x, RopeKind kind, double base,
                      const RopeScale *scale, int sign, int first, int block)
{
    int d_k = block > 0 && block < x->cols ? block : x->cols;
    RopeTable t;
    if (attn_rope_table_init_scaled(&t, base, scale, d_k, first, x->rows)) {
        attn_rope_apply(out, x, kind, &t, sign);
        attn_rope_table_free(&t);
        return;
    }
    // No memory for the table: the same numbers, each angle computed where it is used.
    for (int at = 0; at + d_k <= x->cols; at += d_k)
        for (int j = 0; 2 * j + 1 < d_k; j++) {
            int a, b;
            attn_rope_pair(kind, d_k, j, &a, &b);
            a += at, b += at;
            for (int r = 0; r < x->rows; r++) {
                double angle = scaled_angle(base, scale, d_k, first + r, j);
                double c = core_cos(angle), s = sign > 0 ? core_sin(angle) : -core_sin(angle);
                double xa = mat_get(x, r, a), xb = mat_get(x, r, b);
                mat_set(out, r, a, xa * c - xb * s);
                mat_set(out, r, b, xa * s + xb * c);
            }
        }
}

bool attn_rope_table_init(RopeTable *t, double base, int d_k, int first, int rows)
{
    return attn_rope_table_init_scaled(t, base, NULL, d_k, first, rows);
}

bool attn_rope_table_init_scaled(RopeTable *t, double base, const RopeScale *scale, int d_k,
                                 int first, int rows)
{
    int pairs = d_k / 2;
    size_t count = (size_t)(rows > 0 ? rows : 1) * (size_t)(pairs > 0 ? pairs : 1);
    t->rows = rows, t->pairs = pairs, t->d_k = d_k;
    t->cos = malloc(sizeof *t->cos * count);
    t->sin = malloc(sizeof *t->sin * count);
    if (!t->cos || !t->sin) {
        attn_rope_table_free(t);
        return false;
    }
    for (int j = 0; j < pairs; j++)
        for (int r = 0; r < rows; r++) {
            double angle = scaled_angle(base, scale, d_k, first + r, j);
            t->cos[(size_t)r * (size_t)pairs + (size_t)j] = core_cos(angle);
            t->sin[(size_t)r * (size_t)pairs + (size_t)j] = core_sin(angle);
        }
    return true;
}

void attn_rope_table_free(RopeTable *t)
{
    free(t->cos);
    free(t->sin);
    t->cos = t->sin = NULL;
}

void attn_rope_apply(Matrix *out, const Matrix *x, RopeKind kind, const RopeTable *t, int sign)
{
    int d_k = t->d_k;
    for (int at = 0; at + d_k <= x->cols; at += d_k)
        for (int j = 0; j < t->pairs; j++) {
            int a, b;
            attn_rope_pair(kind, d_k, j, &a, &b);
            a += at, b += at;
            for (int r = 0; r < x->rows; r++) {
                size_t k = (size_t)r * (size_t)t->pairs + (size_t)j;
                double c = t->cos[k], s = sign > 0 ? t->sin[k] : -t->sin[k];
                double xa = mat_get(x, r, a), xb = mat_get(x, r, b);
                mat_set(out, r, a, xa * c - xb * s);
                mat_set(out, r, b, xa * s + xb * c);
            }
        }
}

void attn_rope_from(Matrix *out, const Matrix *x, RopeKind kind, double base, int sign, int first)
{
    attn_rope_blocks(out, x, kind, base, NULL, sign, first, 0);
}

void attn_rope_scaled(Matrix *out, const Matrix *x, RopeKind kind, double base,
                      const RopeScale *scale, int sign, int first)
{
    attn_rope_blocks(out, x, kind, base, scale, sign, first, 0);
}

void attn_rope(Matrix *out, const Matrix *x, RopeKind kind, double base, int sign)
{
    attn_rope_from(out, x, kind, base, sign, 0);
}

// z (n, d_k) = weights (n, m) @ v (m, d_k)
void attn_weighted_sum(Matrix *z, const Matrix *weights, const Matrix *v)
{
    mat_matmul(z, weights, v);
}

// concat (n, h * d_k) = [z_0 ... z_{h-1}] side by side
void attn_concat(Matrix *concat, const Matrix *z, int heads)
{
    for (int h = 0; h < heads; h++) {
        int d_k = z[h].cols;
        for (int r = 0; r < z[h].rows; r++)
            memcpy(mat_row(concat, r) + (size_t)h * (size_t)d_k, mat_row(&z[h], r),
                   (size_t)d_k * sizeof(double));
    }
}
