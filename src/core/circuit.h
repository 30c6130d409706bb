// A stack of attention layers over a vocabulary: token embeddings and positions in, an
// attention-only residual stream through L layers (x_{l+1} = x_l + MHA_l(x_l)), logits out through
// the unembedding, the next-token cross-entropy and its gradient (C11 + libm only).
#ifndef MHA_CIRCUIT_H
#define MHA_CIRCUIT_H

#include <stdbool.h>
#include <stdint.h>
#include "core/trace.h"

#define CIRCUIT_MAX_LAYERS 16

// The weights of a circuit: a layer's weights per layer (each of shape `shape`), the token
// embeddings E (vocab, d_model), the learned positions P (n_ctx, d_model) and the unembedding U
// (d_model, vocab). A gradient has the same shape (circuit_init, then filled).
typedef struct {
    int layers, vocab, n_ctx;
    LayerShape shape;
    LayerWeights *w; // [layers]
    Matrix E, P, U;
} Circuit;

// Allocates every matrix (zeroed). False when out of memory (c left empty). Free with
// circuit_free.
bool circuit_init(Circuit *c, int layers, LayerShape shape, int vocab, int n_ctx);
void circuit_free(Circuit *c);
// out = a deep copy of src (free with circuit_free).
bool circuit_copy(Circuit *out, const Circuit *src);
void circuit_copy_values(Circuit *dst, const Circuit *src);
void circuit_zero(Circuit *c);
// The trainable matrices in a fixed order: per layer its weights (layer_weights_trainable's
// order), then E, P (when with_positions) and U. out holds circuit_matrix_cap(c) pointers.
int circuit_matrices(Matrix **out, Circuit *c, bool with_positions);
int circuit_matrix_cap(const Circuit *c);

// One forward pass over n token ids (n <= n_ctx): the residual stream x[0..layers] (each (n,
// d_model); x[0] = E[ids] + P[0..n)), each layer's trace (its input x[l]), the logits (n, vocab) =
// x[layers] U, and the loss: the mean over i = 0 .. n-2 of the cross-entropy of logits[i] against
// ids[i+1] (0 when n < 2).
typedef struct {
    int n, layers;
    Matrix *x; // [layers + 1]
    Trace *trace; // [layers]
    Matrix logits;
    double loss;
} CircuitRun;

// settings: the lesson's settings (mask, window, scale; heads and d_k as c's shape) read by every
// layer; ablated: NULL, or per layer the heads switched off (bit h). False with err filled when out
// of memory or a number overflowed (err's message names the layer). Free with circuit_run_free.
bool circuit_run(CircuitRun *r, const Circuit *c, const AttnConfig *settings, const int *ids, int n,
                 const uint64_t *ablated, TraceError *err);
void circuit_run_free(CircuitRun *r);
// The cross-entropy of logits row i against token `target`: logsumexp(row) - row[target].
double circuit_cross_entropy(const Matrix *logits, int i, int target);

// g += weight * dL/d(every weight of c) for L = r->loss, r = circuit_run(c, settings, ids, n,
// ablated): through the unembedding, the residual stream and each layer (ablated heads get none),
// to E (the rows of the tokens) and P (rows 0..n-1). False when out of memory.
bool circuit_backward(Circuit *g, const Circuit *c, const AttnConfig *settings, const CircuitRun *r,
                      const int *ids, const uint64_t *ablated, double weight);

// Composition of head h2 of layer l2 with head h1 of an earlier layer l1 (Elhage et al. 2021),
// with W_QK = W_Q W_K^T and W_OV = W_V W_O^h (each d_model x d_model, W_O^h the rows of head h's
// output) in the row-vector convention the trace uses: K: |W_QK2 W_OV1^T| / (|W_QK2| |W_OV1|),
// Q: |W_OV1 W_QK2|, V: |W_OV1 W_OV2|, each over the product of the two norms (Frobenius).
typedef enum { COMPOSE_Q = 0, COMPOSE_K, COMPOSE_V } CompositionKind;
double circuit_composition(const Circuit *c, CompositionKind kind, int l2, int h2, int l1, int h1);

#endif
