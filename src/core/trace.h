// The stages of multi-head attention, computed once into a Trace that keeps every intermediate,
// so a viewer, the command line and the exporter all read the same numbers.
#ifndef MHA_TRACE_H
#define MHA_TRACE_H

#include "matrix.h"

typedef enum { MASK_NONE = 0, MASK_CAUSAL = 1 } MaskKind;

// The stages a viewer steps through, in order. STAGE_MASK exists only for causal lessons.
typedef enum {
    STAGE_INPUT = 0,    // embeddings X (and source S)
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
} AttnParams;

// Allocates every matrix of p (zeroed) for the given sizes. Free with params_free.
bool params_init(AttnParams *p, int n, int m, int d_model, int heads, int d_k);
void params_free(AttnParams *p);
// out = a deep copy of src (free with params_free).
bool params_copy(AttnParams *out, const AttnParams *src);

typedef struct {
    Matrix Q;       // (n, d_k)  = X W_Q_i + b_Q_i
    Matrix K;       // (m, d_k)  = S W_K_i + b_K_i
    Matrix V;       // (m, d_k)  = S W_V_i + b_V_i
    Matrix scores;  // (n, m)    = Q K^T
    Matrix scaled;  // (n, m)    = scores / sqrt(d_k), -INFINITY where masked
    Matrix weights; // (n, m)    = softmax(scaled) row-wise
    Matrix Z;       // (n, d_k)  = weights V
} HeadTrace;

typedef struct {
    int heads;
    HeadTrace *head;  // [heads]
    Matrix concat;    // (n, heads * d_k)
    Matrix output;    // (n, d_model) = concat W_O + b_O
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

// How many numbers (doubles) a trace of these sizes keeps: per head Q (n, d_k), K and V (m, d_k), the
// scores, scaled scores and weights (n, m) and Z (n, d_k); then the concat (n, heads·d_k) and the output
// (n, d_model). The lesson limits bound it (LESSON_MAX_TRACE_VALUES), so memory is known before a trace.
double trace_values(int n, int m, int d_model, int heads, int d_k);

// The individual stages, each a plain function (used by trace_run and by the viewer's explanations).
// q (n, d_k) = x (n, d_model) @ w (d_model, d_k) + b (1, d_k)
void attn_project(Matrix *q, const Matrix *x, const Matrix *w, const Matrix *b);
// scores (n, m) = q (n, d_k) @ k^T (d_k, m)
void attn_scores(Matrix *scores, const Matrix *q, const Matrix *k);
// scaled (n, m) = scores / sqrt(d_k)
void attn_scale(Matrix *scaled, const Matrix *scores, int d_k);
// scaled[r][c] = -INFINITY for c > r
void attn_mask_causal(Matrix *scaled);
// z (n, d_k) = weights (n, m) @ v (m, d_k)
void attn_weighted_sum(Matrix *z, const Matrix *weights, const Matrix *v);
// concat (n, h*d_k) = [z_0 ... z_{h-1}]
void attn_concat(Matrix *concat, const Matrix *z, int heads);

#endif
