// The cost figures of multi-head attention and the document's one-line summary of them.
#include "cost.h"

#include <inttypes.h>
#include <stdio.h>

CostFigures cost_compute_grouped(int d_model, int n, int m, int heads, int kv_heads, int d_k)
{
    CostFigures c;
    c.d_model = d_model;
    c.n = n;
    c.m = m;
    c.heads = heads;
    c.kv_heads = kv_heads;
    c.d_k = d_k;
    // Per query head a (d_model, d_k) W_Q in and its (d_k, d_model) rows of W_O out; per K/V head W_K and W_V.
    c.projection_weights = c.heads * c.d_model * c.d_k + c.kv_heads * 2 * c.d_model * c.d_k + c.heads * c.d_k * c.d_model;
    // scores_i (n, m) = Q_i (n, d_k) @ K_i^T (d_k, m): d_k multiplications per entry.
    c.score_multiplications = c.heads * c.n * c.m * c.d_k;
    c.attention_matrices = c.heads;
    c.matrix_rows = c.n;
    c.matrix_cols = c.m;
    return c;
}

CostFigures cost_compute_cross(int d_model, int n, int m, int heads, int d_k)
{
    return cost_compute_grouped(d_model, n, m, heads, heads, d_k);
}

CostFigures cost_compute(int d_model, int n, int heads, int d_k)
{
    return cost_compute_cross(d_model, n, n, heads, d_k);
}

const char *cost_format_int(char *buf, size_t cap, int64_t v)
{
    if (cap == 0) return buf;
    char digits[32];
    // Negative counts never occur; print them plainly rather than guess at grouping.
    int len = snprintf(digits, sizeof digits, "%" PRId64, v);
    if (v < 0 || len <= 3) {
        snprintf(buf, cap, "%s", digits);
        return buf;
    }
    size_t o = 0;
    for (int i = 0; i < len && o + 1 < cap; i++) {
        if (i > 0 && (len - i) % 3 == 0) {
            buf[o++] = ',';
            if (o + 1 >= cap) break;
        }
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

const char *cost_format(char *buf, size_t cap, const CostFigures *c)
{
    char weights[32], mults[32];
    cost_format_int(weights, sizeof weights, c->projection_weights);
    cost_format_int(mults, sizeof mults, c->score_multiplications);
    char groups[40] = ""; // grouped-query attention: how many K/V heads the weights count
    if (c->kv_heads != c->heads) snprintf(groups, sizeof groups, ", G = %" PRId64, c->kv_heads);
    snprintf(buf, cap,
             "h = %" PRId64 "%s: d_k = %3" PRId64 ", projection weights = %s, score multiplications = %s, "
             "attention matrices = %" PRId64 " x (%" PRId64 ", %" PRId64 ")",
             c->heads, groups, c->d_k, weights, mults, c->attention_matrices, c->matrix_rows, c->matrix_cols);
    return buf;
}
