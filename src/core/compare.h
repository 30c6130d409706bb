// Single-head vs multi-head: the one head that holds the same weights as a lesson's h heads, so the
// split can be seen to change the attention patterns and not the cost (C11, no SDL).
#ifndef MHA_COMPARE_H
#define MHA_COMPARE_H

#include "core/cost.h"
#include "core/trace.h"

// out = the single-head version of p: heads = 1 and d_k = p->heads·p->d_k;
// W_Q (d_model, h·d_k) = [W_Q_0 ... W_Q_{h-1}] side by side, likewise W_K, W_V and the biases
// b_Q, b_K, b_V (1, h·d_k); the same X, S, mask, W_O (h·d_k, d_model) and b_O.
// With grouped K/V heads each query head's K/V head is repeated in its place; with RoPE each head's
// d_k columns turn as that head's do (rope_block = d_k). So its Q (rotated with RoPE) is the heads'
// side by side and its scores are the sum of the heads' scores (before scaling and the mask, which
// it shares). Returns false (out left empty) when out of memory. Free with params_free.
bool compare_single_head(AttnParams *out, const AttnParams *p);

// Everything a side-by-side view needs: the single-head parameters and trace, and both cost rows.
typedef struct {
    AttnParams single; // heads = 1, d_k = h·d_k (see compare_single_head)
    Trace trace; // the trace of single
    CostFigures cost_one; // h = 1, d_k = h·d_k
    CostFigures cost_multi; // h = p->heads, d_k = p->d_k
} Comparison;

// Builds the single head of p and runs its trace. On failure (no memory, or a value overflowing in
// the single head) fills err and leaves c empty. Free a successful comparison with compare_free.
bool compare_run(Comparison *c, const AttnParams *p, TraceError *err);
void compare_free(Comparison *c);

// The two cost rows of p (h = 1 and h = p->heads) without building anything.
void compare_costs(CostFigures *one, CostFigures *multi, const AttnParams *p);

#endif
