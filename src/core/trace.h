// The stages of multi-head attention, computed once into a Trace that keeps every intermediate,
// so a viewer, the command line and the exporter all read the same numbers.
#ifndef MHA_TRACE_H
#define MHA_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/matrix.h"
#include "core/params.h"
#include "core/attn.h"

#include "core/stage_table.h"

// The stages a viewer steps through, in order: the rows of STAGE_TABLE (core/stage_table.h), which
// give each its Stage value and key; what a stage shows is the model's part of its row
// (model/stages.c).
#define TRACE_STAGE_ENUM(id, ...) id,
typedef enum { STAGE_TABLE(TRACE_STAGE_ENUM, TRACE_STAGE_ENUM) STAGE_COUNT } Stage;
#undef TRACE_STAGE_ENUM

const char *stage_key(Stage s); // "scores" ("?" out of range)

typedef struct {
    Matrix Q; // (n, d_k)  = X W_Q_i + b_Q_i
    Matrix K; // (m, d_k)  = S W_K_i + b_K_i
    Matrix V; // (m, d_k)  = S W_V_i + b_V_i
    Matrix Q_rot; // (n, d_k)  Q with row p turned by RoPE at position p (empty without RoPE)
    Matrix K_rot; // (m, d_k)  K likewise, the source's rows from position 0 (empty without RoPE)
    Matrix Q_shift; // (n, d_k)  Q with row p turned at position p + k, k = AttnRequest.rope_shift
                    // (empty when 0)
    Matrix K_shift; // (m, d_k)  K likewise
    Matrix
        scores_shift; // (n, m) = Q_shift K_shift^T: the scores again, every position shifted by k
    Matrix scores; // (n, m)    = Q K^T (with RoPE Q_rot K_rot^T)
    Matrix
        scaled; // (n, m)    = scores / sqrt(d_k), -INFINITY where masked (outside the window too)
    Matrix weights; // (n, m)    = softmax(scaled) row-wise
    Matrix Z; // (n, d_k)  = weights V
    Matrix entropy; // (n, 1)    the entropy of each weights row, in bits: -sum w log2 w
} HeadTrace;

typedef struct {
    int heads;
    HeadTrace *head; // [heads]
    Matrix concat; // (n, heads * d_k); the ablated heads' columns are zeros
    Matrix output; // (n, d_model) = concat W_O + b_O
    Matrix full_output; // (n, d_model) the output with no head ablated; empty when none is
    Matrix shown[STAGE_COUNT]; // the matrix of each display-only stage (SHOWN rows), computed last;
                               // else empty
} Trace;

typedef struct {
    Stage stage; // where a non-finite number first appeared
    int head; // -1 when not head-specific
    char message[480]; // what happened and, for an overflow, the input that made it
                       // (trace_overflow_detail)
} TraceError;

// err (may be NULL) says "out of memory" at the input, for no head (what the trainers say when an
// allocation fails). Returns false.
bool trace_error_oom(TraceError *err);

// Runs every stage. On failure (no memory, or a value overflowing to inf/NaN) returns false, fills
// err (naming the stage and the first head where it happened) and leaves t empty. Free a successful
// trace with trace_free. Large lessons run half the heads, then half the output rows, on a second
// thread (C11 threads); the numbers are the same bits as on one thread.
bool trace_run(Trace *t, const AttnParams *p, TraceError *err);
// The same for one layer of a stack: p's settings and inputs (X, S) through the weights w, as req
// asks (trace_run is this with p's own w and req).
bool trace_run_layer(Trace *t, const AttnParams *p, const LayerWeights *w, const AttnRequest *req,
                     TraceError *err);
void trace_free(Trace *t);

// Largest |shuffled.output[i][j] - original.output[perm[i]][j]|: 0 when reordering the tokens
// (perm, as params_shuffle) only reorders the output rows, as without positions and mask it does.
double trace_shuffle_difference(const Trace *original, const Trace *shuffled, const int *perm);
// true when that difference is only rounding (the sums run over the keys in another order): at most
// 1e-12 times the largest |output| of the original (and 1e-12 below 1).
bool trace_shuffle_same(const Trace *original, double difference);
// How many numbers (doubles) a trace of these sizes keeps: per head Q (n, d_k), K and V (m, d_k),
// the scores, scaled scores and weights (n, m) and Z (n, d_k); then the concat (n, heads·d_k) and
// the output (n, d_model). With RoPE (rope true) also per head Q_rot (n, d_k), K_rot (m, d_k) and,
// for the board's shift (rope_shift > 0), Q_shift, K_shift and scores_shift: 2·(n + m)·d_k + n·m
// more, counted whether the shift is on or not. The lesson limits bound it
// (LESSON_MAX_TRACE_VALUES), so memory is known before a trace. Not counted, being small beside it:
// the entropies (n per head) and, with heads switched off, the output with every head (n, d_model).
double trace_values(int n, int m, int d_model, int heads, int d_k, bool rope);

#endif
