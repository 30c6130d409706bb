// The stages of attention as plain functions, one per operation: output first, then the inputs, the
// shape of every buffer in its comment. C11 + libm only.
#ifndef MHA_ATTN_H
#define MHA_ATTN_H

#include <stdbool.h>
#include <stdint.h>
#include "core/matrix.h"
#include "core/params.h"

// The individual stages, each a plain function (used by trace_run, its overflow detail and the
// viewer's explanations). q (n, d_k) = x (n, d_model) @ w (d_model, d_k) + b (1, d_k)
void attn_project(Matrix *q, const Matrix *x, const Matrix *w, const Matrix *b);
// scores (n, m) = q (n, d_k) @ k^T (d_k, m)
void attn_scores(Matrix *scores, const Matrix *q, const Matrix *k);
// scaled (n, m) = scores / sqrt(d_k)
void attn_scale(Matrix *scaled, const Matrix *scores, int d_k);
// scaled (n, m) = scores * s (a lesson's own "scale")
void attn_scale_by(Matrix *scaled, const Matrix *scores, double s);
// entropy (n, 1) = -sum_j w[i][j] log2 w[i][j] of each row of weights (n, m); 0 log 0 counts as 0
void attn_entropy(Matrix *entropy, const Matrix *weights);
// The columns of the heads set in ablated (bits) of concat (n, h*d_k) become zeros.
void attn_ablate(Matrix *concat, uint64_t ablated, int heads, int d_k);
// scaled[r][c] = -INFINITY for c > r
void attn_mask_causal(Matrix *scaled);
// Whether the causal mask hides key c from query r: c > r, or with a sliding window (window > 0) c
// <= r - window.
static inline bool attn_masked(int r, int c, int window)
{
    return c > r || (window > 0 && c <= r - window);
}
// scaled[r][c] = -INFINITY where attn_masked(r, c, window) (window 0: the plain causal mask)
void attn_mask_window(Matrix *scaled, int window);
// RoPE. theta_j = 1 / base^(2j/d_k); the angle of pair j at position pos is pos * theta_j
// (core_pow, the same bits everywhere).
double attn_rope_angle(double base, int d_k, int pos, int j);
// theta_j under RoPE scaling (scale NULL or ROPE_SCALE_NONE: 1 / base^(2j/d_k), attn_rope_angle's);
// the angle of pair j at pos is then pos * theta_j.
double attn_rope_theta(double base, const RopeScale *scale, int d_k, int j);
// The two coordinates of pair j (0 <= j < d_k/2): (j, j + d_k/2) for ROPE_HALVES, (2j, 2j+1)
// interleaved.
void attn_rope_pair(RopeKind kind, int d_k, int j, int *a, int *b);
// out (rows, d_k) = x (rows, d_k) with row r (position r) turned pair by pair by its angle (sign
// +1), or back (sign -1: the transpose, which is the inverse and the backward of the rotation):
// out_a = x_a cos - x_b sin, out_b = x_a sin + x_b cos. out and x may not be the same matrix.
void attn_rope(Matrix *out, const Matrix *x, RopeKind kind, double base, int sign);
// The same with row r at position first + r (a decoder's one new row: first = its position).
void attn_rope_from(Matrix *out, const Matrix *x, RopeKind kind, double base, int sign, int first);
// attn_rope_from with RoPE scaling (scale: NULL or none gives attn_rope_from's bits).
void attn_rope_scaled(Matrix *out, const Matrix *x, RopeKind kind, double base,
                      const RopeScale *scale, int sign, int first);
// attn_rope_scaled over each block of `block` columns (0: all of them) as a d_k of its own: the
// columns [b·block, (b+1)·block) turned as a head of d_k = block turns its own.
void attn_rope_blocks(Matrix *out, const Matrix *x, RopeKind kind, double base,
                      const RopeScale *scale, int sign, int first, int block);
// The cos and sin of every angle a RoPE turn of `rows` positions (from `first`) takes, computed
// once and read by every head (each angle is attn_rope_angle's, so a turn by the table has the bits
// of one without it).
typedef struct {
    int rows, pairs, d_k; // pairs = d_k / 2
    double *cos, *sin; // (rows, pairs): [r * pairs + j] = cos, sin of attn_rope_angle(base, d_k,
                       // first + r, j)
} RopeTable;
// false: no memory (t holds nothing). Free with attn_rope_table_free.
bool attn_rope_table_init(RopeTable *t, double base, int d_k, int first, int rows);
// The same under RoPE scaling (scale NULL: attn_rope_table_init).
bool attn_rope_table_init_scaled(RopeTable *t, double base, const RopeScale *scale, int d_k,
                                 int first, int rows);
void attn_rope_table_free(RopeTable *t);
// attn_rope_blocks(out, x, kind, base, sign, first, t->d_k) by the table (x has at most t->rows
// rows).
void attn_rope_apply(Matrix *out, const Matrix *x, RopeKind kind, const RopeTable *t, int sign);
// z (n, d_k) = weights (n, m) @ v (m, d_k)
void attn_weighted_sum(Matrix *z, const Matrix *weights, const Matrix *v);
// concat (n, h*d_k) = [z_0 ... z_{h-1}]
void attn_concat(Matrix *concat, const Matrix *z, int heads);

#endif
