// Gradients of the squared-error loss L = mean((output - targets)^2) through every stage of a
// trace, with respect to the embeddings and every weight in the explicit per-head form (C11 + libm
// only).
#ifndef MHA_GRAD_H
#define MHA_GRAD_H

#include "core/trace.h"

// Gradients are kept in an AttnParams of the lesson's sizes: W_Q..b_O hold dL/dW_Q..dL/db_O, X
// holds dL/dE (the token embeddings; positions are fixed, so dL/dE = dL/dX) and S, for
// cross-attention, dL/dE_S. grads_init allocates them zeroed (free with params_free); grads_zero
// clears them again.
bool grads_init(AttnParams *g, const AttnParams *p);
void grads_zero(AttnParams *g);

// loss = mean over the n * d_model entries of (output - targets)^2, for a trace t of p.
// targets (n, d_model).
double attn_loss(const Trace *t, const Matrix *targets);

// g += weight * dL/d(each parameter and embedding) for L = attn_loss(t, targets), where t =
// trace_run(p): back through the output projection, the concatenation (an ablated head's Z gets no
// gradient), the weighted sum, the softmax, the mask (masked scores get none), the scale, the
// scores and the projections. targets (n, d_model). Returns false when out of memory (g then
// unchanged in part: zero it before reuse).
bool attn_backward(AttnParams *g, const AttnParams *p, const Trace *t, const Matrix *targets,
                   double weight);

// The backward of one layer of a stack, given dOut (n, d_model) = dL/d(its output), for t =
// trace_run_layer(t, p, w, req): gw (w's shape) += dL/d(each weight), dX (n, d_model) += dL/dX and
// dS (m, d_model) += dL/dS (NULL or dX for self-attention). The heads req switches off get none.
// False when out of memory. attn_backward is this with p's own weights and request.
bool attn_backward_layer(LayerWeights *gw, Matrix *dX, Matrix *dS, const AttnParams *p,
                         const LayerWeights *w, const AttnRequest *req, const Trace *t,
                         const Matrix *dOut);

#endif
