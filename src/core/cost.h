// What multi-head attention costs: projection weights, score multiplications and attention
// matrices, so the single-head and the h-head versions of one layer can be set side by side (C11,
// no SDL).
#ifndef MHA_COST_H
#define MHA_COST_H

#include <stddef.h>
#include <stdint.h>

// The figures of one attention layer. All counts are int64: d_model 4096 with 512 tokens overflows
// int.
typedef struct {
    int64_t d_model, n, m; // model width, query tokens, key/value tokens
    int64_t heads, d_k; // h heads of d_k numbers each
    int64_t kv_heads; // G K/V heads (grouped-query attention; == h for plain multi-head)
    int64_t projection_weights; // h·d_model·d_k (W_Q) + 2·G·d_model·d_k (W_K, W_V) + h·d_k·d_model
                                // (W_O)
    int64_t score_multiplications; // h·n·m·d_k: the multiplications of all the Q_i K_iᵀ
    int64_t attention_matrices; // h weight matrices ...
    int64_t matrix_rows, matrix_cols; // ... each (n, m)
} CostFigures;

// Self-attention over n tokens with h heads of d_k numbers each (the document's script: d_k =
// d_model / h).
CostFigures cost_compute(int d_model, int n, int heads, int d_k);
// The same with m key/value tokens (cross-attention); cost_compute is this with m = n.
CostFigures cost_compute_cross(int d_model, int n, int m, int heads, int d_k);
// The same with kv_heads K/V heads (grouped-query attention: W_K and W_V are kv_heads matrices, not
// heads); cost_compute_cross is this with kv_heads = heads. The scores still take h·n·m·d_k
// multiplications.
CostFigures cost_compute_grouped(int d_model, int n, int m, int heads, int kv_heads, int d_k);

// ---- The KV cache's size (grouped-query attention, sliding windows) ------------------------------------
// What generating keeps per layer and token: K and V of each K/V head, d_k numbers each.
// Bytes of the KV cache of a model: 2 (K and V) · layers · kv_heads · d_k · bytes per number · the
// tokens kept, min(tokens, window) with a sliding window (window > 0), else tokens.
int64_t cost_kv_cache_bytes(int64_t layers, int64_t kv_heads, int64_t d_k, int64_t bytes,
                            int64_t tokens, int64_t window);

// A model's shape as far as its KV cache goes: a published one or the lesson's.
typedef struct {
    const char *name; // "Llama-3-8B"
    int64_t layers, heads, kv_heads, d_k, bytes, window; // window 0: none
} CacheShape;
// The published shapes the chart compares with (their config.json): Llama-3-8B (32 layers, 32 query
// heads, 8 K/V heads, head_dim 128, bfloat16) and Mistral-7B-v0.1 (the same, sliding_window 4096).
// count gets how many.
const CacheShape *cost_cache_shapes(int *count);
// "1 GiB", "128 KiB", "640 B": v bytes in the largest binary unit it reaches, with up to 3
// significant digits
// ("1.5 GiB"). Returns buf.
const char *cost_format_bytes(char *buf, size_t cap, int64_t v);

// v with thousands separators: 1048576 -> "1,048,576". Returns buf (always NUL-terminated).
const char *cost_format_int(char *buf, size_t cap, int64_t v);
// The document's line for c, e.g.
// "h = 8: d_k =  64, projection weights = 1,048,576, score multiplications = 51,200, attention
// matrices = 8 x (10, 10)" (d_k right-aligned in 3 characters, like the script's {d_k:>3}); with
// grouped K/V heads "h = 4, G = 2: ...". Returns buf (always NUL-terminated).
const char *cost_format(char *buf, size_t cap, const CostFigures *c);

#endif
