// The cost figures of multi-head attention and the document's one-line summary of them.
#include "core/cost.h"

#include <inttypes.h>
#include <math.h>
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
    // Per query head a (d_model, d_k) W_Q in and its (d_k, d_model) rows of W_O out; per K/V head
    // W_K and W_V.
    c.projection_weights = c.heads * c.d_model * c.d_k + c.kv_heads * 2 * c.d_model * c.d_k
                           + c.heads * c.d_k * c.d_model;
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

int64_t cost_kv_cache_bytes(int64_t layers, int64_t kv_heads, int64_t d_k, int64_t bytes,
                            int64_t tokens, int64_t window)
{
    int64_t kept = window > 0 && window < tokens ? window : tokens;
    return 2 * layers * kv_heads * d_k * bytes * kept;
}

// config.json of meta-llama/Meta-Llama-3-8B: num_hidden_layers 32, num_attention_heads 32,
// num_key_value_heads 8, hidden_size 4096 (head_dim 4096 / 32 = 128), torch_dtype bfloat16; of
// mistralai/Mistral-7B-v0.1: the same, and sliding_window 4096.
static const CacheShape SHAPES[] = {
    {"Llama-3-8B", 32, 32, 8, 128, 2, 0},
    {"Mistral-7B", 32, 32, 8, 128, 2, 4096},
};

const CacheShape *cost_cache_shapes(int *count)
{
    *count = (int)(sizeof SHAPES / sizeof SHAPES[0]);
    return SHAPES;
}

const char *cost_format_bytes(char *buf, size_t cap, int64_t v)
{
    static const char *const UNITS[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double x = (double)v;
    while (x >= 1024.0 && u < 4) x /= 1024.0, u++;
    if (u == 0 || x == floor(x)) snprintf(buf, cap, "%.0f %s", x, UNITS[u]);
    else snprintf(buf, cap, "%.3g %s", x, UNITS[u]);
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
             "h = %" PRId64 "%s: d_k = %3" PRId64
             ", projection weights = %s, score multiplications = %s, "
             "attention matrices = %" PRId64 " x (%" PRId64 ", %" PRId64 ")",
             c->heads, groups, c->d_k, weights, mults, c->attention_matrices, c->matrix_rows,
             c->matrix_cols);
    return buf;
}
