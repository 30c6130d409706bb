// The stages of multi-head attention, computed once into a Trace that keeps every intermediate,
// so a viewer, the command line and the exporter all read the same numbers.
#ifndef MHA_TRACE_H
#define MHA_TRACE_H

#include <stdint.h>
#include "matrix.h"

typedef enum { MASK_NONE = 0, MASK_CAUSAL = 1 } MaskKind;

// Where the position vectors added to the embeddings come from (none: the embeddings are used as given).
typedef enum { POS_NONE = 0, POS_SINUSOIDAL, POS_EXPLICIT } PositionKind;

// The most heads an ablation mask can name (one bit each).
#define ATTN_MAX_ABLATED_HEADS 64

// The stages a viewer steps through, in order. STAGE_MASK exists only for causal lessons.
typedef enum {
    STAGE_INPUT = 0,    // embeddings X (and source S)
    STAGE_POSITIONS,    // E + P = X: token embeddings plus positions (only for lessons with positions)
    STAGE_PROJECT,      // Q_i, K_i, V_i
    STAGE_SCORES,       // Q_i K_i^T
    STAGE_SCALE,        // / sqrt(d_k)
    STAGE_MASK,         // causal mask: -inf above the diagonal
    STAGE_SOFTMAX,      // row-wise softmax
    STAGE_WEIGHTED_SUM, // Z_i = A_i V_i
    STAGE_CONCAT,       // [Z_0 ... Z_{h-1}]
    STAGE_OUTPUT,       // concat W_O + b_O
    STAGE_COUNT
} Stage;

const char *stage_name(Stage s);     // "Scores QKᵀ", for headers
const char *stage_key(Stage s);      // "scores", for file names and --stage (ASCII, lower case)

// Everything the computation reads. Owned by whoever filled it (usually a Lesson); free with params_free.
typedef struct {
    int n;          // query tokens
    int m;          // key/value tokens (== n for self-attention)
    int d_model, heads, d_k;
    MaskKind mask;
    bool cross;     // true when keys/values come from a separate source sequence
    Matrix X;       // (n, d_model) query-side embeddings
    Matrix S;       // (m, d_model) key/value-side embeddings; a copy of X for self-attention
    Matrix *W_Q, *W_K, *W_V; // [heads], each (d_model, d_k)
    Matrix *b_Q, *b_K, *b_V; // [heads], each (1, d_k); zeros when the lesson gives none
    Matrix W_O;     // (heads * d_k, d_model)
    Matrix b_O;     // (1, d_model); zeros when the lesson gives none
    // Positions (POS_NONE: E, P, E_S and P_S are empty and X, S are the embeddings as given). Otherwise
    // X = E + P is what the projections read, and for cross-attention S = E_S + P_S; params_apply_positions
    // recomputes them after E, P, E_S or P_S change.
    PositionKind positions;
    Matrix E, P;     // (n, d_model) the token embeddings and the position vectors
    Matrix E_S, P_S; // (m, d_model) the source's, for cross-attention (empty for self-attention)
    double scale;    // > 0: multiplies the scores instead of the default division by sqrt(d_k); 0: the default
    uint64_t ablated; // bit h: head h's Z enters the concatenation as zeros (its own stages are still computed)
} AttnParams;

// Allocates every matrix of p (zeroed) for the given sizes. Free with params_free.
bool params_init(AttnParams *p, int n, int m, int d_model, int heads, int d_k);
void params_free(AttnParams *p);
// out = a deep copy of src (free with params_free).
bool params_copy(AttnParams *out, const AttnParams *src);

// Gives p (already initialised, with X and S holding the token embeddings) positions of this kind: E and
// E_S become copies of X and S, P and P_S are the sinusoids (POS_SINUSOIDAL) or zeros to be filled
// (POS_EXPLICIT), then X = E + P and S = E_S + P_S. POS_NONE changes nothing. False when out of memory.
bool params_set_positions(AttnParams *p, PositionKind kind);
// X (n, d_model) = E + P; S = E_S + P_S for cross-attention, else a copy of X. Nothing without positions.
void params_apply_positions(AttnParams *p);
// P (rows, d_model) = the sinusoidal positions from position 0: P[pos][2i] = sin(pos / 10000^(2i/d_model)),
// P[pos][2i+1] = cos(pos / 10000^(2i/d_model)); an odd last column takes the sine.
void positions_sinusoidal(Matrix *P);
// out = src with its query tokens reordered: token i of out is token perm[i] of src (perm: a permutation
// of 0..n-1). The token embeddings move with their tokens and the positions stay where they are (X = E[perm] +
// P); for self-attention the keys and values move too. Free with params_free. False when out of memory.
bool params_shuffle(AttnParams *out, const AttnParams *src, const int *perm);
// The number that multiplies the scores: p->scale, or 1/sqrt(d_k) by default.
double params_scale(const AttnParams *p);
// true when head h is ablated (its Z zeros in the concatenation).
static inline bool params_ablated(const AttnParams *p, int h)
{
    return h >= 0 && h < ATTN_MAX_ABLATED_HEADS && ((p->ablated >> h) & 1u);
}
// One scaled score, exactly as the trace computes it: score * scale, or score / sqrt(d_k) by default.
static inline double attn_scale_one(const AttnParams *p, double score, double root_d_k)
{
    return p->scale > 0 ? score * p->scale : score / root_d_k;
}

typedef struct {
    Matrix Q;       // (n, d_k)  = X W_Q_i + b_Q_i
    Matrix K;       // (m, d_k)  = S W_K_i + b_K_i
    Matrix V;       // (m, d_k)  = S W_V_i + b_V_i
    Matrix scores;  // (n, m)    = Q K^T
    Matrix scaled;  // (n, m)    = scores / sqrt(d_k), -INFINITY where masked
    Matrix weights; // (n, m)    = softmax(scaled) row-wise
    Matrix Z;       // (n, d_k)  = weights V
    Matrix entropy; // (n, 1)    the entropy of each weights row, in bits: -sum w log2 w
} HeadTrace;

typedef struct {
    int heads;
    HeadTrace *head;  // [heads]
    Matrix concat;    // (n, heads * d_k); the ablated heads' columns are zeros
    Matrix output;    // (n, d_model) = concat W_O + b_O
    Matrix full_output; // (n, d_model) the output with no head ablated; empty when none is
} Trace;

typedef struct {
    Stage stage;      // where a non-finite number first appeared
    int head;         // -1 when not head-specific
    char message[480];  // what happened and, for an overflow, the input that made it (trace_overflow_detail)
} TraceError;

// Runs every stage. On failure (no memory, or a value overflowing to inf/NaN) returns false, fills err
// (naming the stage and the first head where it happened) and leaves t empty. Free a successful trace
// with trace_free. Large lessons run half the heads, then half the output rows, on a second thread
// (C11 threads); the numbers are the same bits as on one thread.
bool trace_run(Trace *t, const AttnParams *p, TraceError *err);
void trace_free(Trace *t);

// Largest |shuffled.output[i][j] - original.output[perm[i]][j]|: 0 when reordering the tokens (perm, as
// params_shuffle) only reorders the output rows, as without positions and mask it does.
double trace_shuffle_difference(const Trace *original, const Trace *shuffled, const int *perm);
// true when that difference is only rounding (the sums run over the keys in another order): at most 1e-12
// times the largest |output| of the original (and 1e-12 below 1).
bool trace_shuffle_same(const Trace *original, double difference);
// How many numbers (doubles) a trace of these sizes keeps: per head Q (n, d_k), K and V (m, d_k), the
// scores, scaled scores and weights (n, m) and Z (n, d_k); then the concat (n, heads·d_k) and the output
// (n, d_model). The lesson limits bound it (LESSON_MAX_TRACE_VALUES), so memory is known before a trace.
// Not counted, being small beside it: the entropies (n per head) and, with heads switched off, the output
// with every head (n, d_model).
double trace_values(int n, int m, int d_model, int heads, int d_k);

// The individual stages, each a plain function (used by trace_run and by the viewer's explanations).
// q (n, d_k) = x (n, d_model) @ w (d_model, d_k) + b (1, d_k)
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
// z (n, d_k) = weights (n, m) @ v (m, d_k)
void attn_weighted_sum(Matrix *z, const Matrix *weights, const Matrix *v);
// concat (n, h*d_k) = [z_0 ... z_{h-1}]
void attn_concat(Matrix *concat, const Matrix *z, int heads);

#endif
