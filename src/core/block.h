// The rest of a transformer block around the attention, one plain function per operation (the order
// of Hugging Face's modeling_llama.py and modeling_gpt2.py): RMSNorm, LayerNorm, the MLPs'
// activations (SwiGLU, GELU), the residual add. C11 + libm only.
#ifndef MHA_BLOCK_H
#define MHA_BLOCK_H

#include "core/matrix.h"

// out (n, d) = w (d) * (x (n, d) * 1/sqrt(mean_j x[i][j]^2 + eps)), row by row
// (LlamaRMSNorm.forward: variance = x.pow(2).mean(-1); x * rsqrt(variance + eps); weight * x). out
// may alias x.
void block_rms_norm(Matrix *out, const Matrix *x, const double *w, double eps);
// gate (n, I) = silu(gate) * up (n, I), silu(g) = g / (1 + e^-g) (LlamaMLP: act_fn(gate_proj(x)) *
// up_proj(x)).
void block_swiglu(Matrix *gate, const Matrix *up);
// out (n, d) = (x - mean) / sqrt(var + eps) * w + b, row by row, var the biased variance
// (torch.nn.LayerNorm). out may alias x.
void block_layer_norm(Matrix *out, const Matrix *x, const double *w, const double *b, double eps);
// x (n, d) = GELU's tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (transformers'
// NewGELUActivation).
void block_gelu_tanh(Matrix *x);
// x (n, d) = GELU's exact form, x * 0.5 * (1 + erf(x / sqrt(2))) (transformers' GELUActivation,
// BERT's "gelu").
void block_gelu_erf(Matrix *x);
// acc (n, d) += x (n, d): the residual stream.
void block_add(Matrix *acc, const Matrix *x);
// sum_k a[k] b[k] over n in four running sums (k mod 4) added at the end: the dot product
// block_linear takes.
double block_dot(const double *a, const double *b, int n);
// out[i] (lanes of them: 8, 12 or BLOCK_DOT_LANES) = block_dot(x_i, w, in) for the rows x_i of x,
// given transposed: xt (in, lanes) with xt[k * lanes + i] = x_i[k] (unused lanes zeros). The same
// bits as block_dot, many rows at a time.
#define BLOCK_DOT_LANES 16
void block_dot_many(double *out, const double *xt, const double *w, int in, int lanes);
// out (n, o) = x (n, i) @ w^T, w (o, i) stored as torch.nn.Linear keeps it, + b (o) when b is not
// NULL.
void block_linear(Matrix *out, const Matrix *x, const Matrix *w, const double *b);

#endif
