// The table of logical matrices: one row per matrix the board, the heatmaps, the exports and the tests can
// show (name and symbol, shape, where its numbers are, axes, per head or not, editable, colour range, its
// explanation, its --json key and --trace title). No SDL. Adding a matrix is a row of MAT_ROWS below.
#ifndef MHA_MATRICES_H
#define MHA_MATRICES_H

#include <stdbool.h>
#include <stddef.h>
#include "../core/trace.h"
#include "../lesson/lesson.h"
#include "i18n.h"

// The logical matrices a cell can belong to (what a hover or a reveal points at), one row each, written once:
// ROW(id, key, symbol, what, per_head, editable, rows, cols, row_axis, col_axis, range, at, value, param, from,
//   present, explain, json, trace) — see MatInfo for the columns. The rows make the MatId enum here and the
// table in matrices.c; the functions they name are matrices.c's (value, param, from, present: NULL for none)
// and explain.c's (explain). The order is the order of --json and --trace: the embeddings, then the
// per-head matrices, then the layer's. per_head: false (the layer's), true (each head's) or PER_KV (each K/V
// head's: the keys and values and their weights, which the heads of a group share with grouped K/V heads).
#define MAT_ROWS(ROW)                                                                                                  \
    ROW(MAT_E, "E", "E", N_("token embeddings"), false, true, DIM_N, DIM_D_MODEL, AXIS_QUERY, AXIS_DIM,                \
      RANGE_EMBED, AT_PARAMS(E), v_kept, p_e, NULL, has_positions, explain_token, "token_embeddings",                    \
      "== Token embeddings E")                                                                                         \
    ROW(MAT_P, "P", "P", N_("positions"), false, false, DIM_N, DIM_D_MODEL, AXIS_DIM, AXIS_DIM, RANGE_EMBED,           \
      AT_PARAMS(P), v_kept, NULL, NULL, has_positions, explain_position, "positions", "== Positions P")                  \
    ROW(MAT_X, "X", "X", N_("embeddings"), false, true, DIM_N, DIM_D_MODEL, AXIS_QUERY, AXIS_DIM, RANGE_EMBED,         \
      AT_PARAMS(X), v_kept, p_x, f_x, NULL, explain_embedding, "embeddings", "== Input embeddings X{pos? = E + P}")      \
    ROW(MAT_ES, "E_Y", "E^Y", N_("source token embeddings"), false, true, DIM_M, DIM_D_MODEL, AXIS_KEY, AXIS_DIM,      \
      RANGE_EMBED, AT_PARAMS(E_S), v_kept, p_es, NULL, has_source_positions, explain_token,                              \
      "source_token_embeddings", "== Source token embeddings")                                                         \
    ROW(MAT_PS, "P_Y", "P^Y", N_("source positions"), false, false, DIM_M, DIM_D_MODEL, AXIS_DIM, AXIS_DIM,            \
      RANGE_EMBED, AT_PARAMS(P_S), v_kept, NULL, NULL, has_source_positions, explain_position,                           \
      "source_positions", "== Source positions")                                                                       \
    ROW(MAT_S, "S", "Y", N_("source embeddings"), false, true, DIM_M, DIM_D_MODEL, AXIS_KEY, AXIS_DIM,                 \
      RANGE_EMBED, AT_PARAMS(S), v_kept, p_s, f_s, NULL, explain_embedding, "source_embeddings",                         \
      "{cross?== Source embeddings Y}{cross?{pos? = source tokens + source positions}}")                               \
    ROW(MAT_WQ, "W_Q", "W^Q", N_("query weights"), true, true, DIM_D_MODEL, DIM_D_K, AXIS_DIM, AXIS_DIM,               \
      RANGE_WEIGHT, AT_WEIGHTS(W_Q), v_kept, p_wq, NULL, NULL, explain_weight, "W_Q", "W_Q_{h}")                         \
    ROW(MAT_WK, "W_K", "W^K", N_("key weights"), PER_KV, true, DIM_D_MODEL, DIM_D_K, AXIS_DIM, AXIS_DIM,               \
      RANGE_WEIGHT, AT_WEIGHTS(W_K), v_kept, p_wk, NULL, NULL, explain_weight, "W_K", "W_K_{g}")                         \
    ROW(MAT_WV, "W_V", "W^V", N_("value weights"), PER_KV, true, DIM_D_MODEL, DIM_D_K, AXIS_DIM, AXIS_DIM,             \
      RANGE_WEIGHT, AT_WEIGHTS(W_V), v_kept, p_wv, NULL, NULL, explain_weight, "W_V", "W_V_{g}")                         \
    ROW(MAT_Q, "Q", "Q", N_("queries"), true, false, DIM_N, DIM_D_K, AXIS_QUERY, AXIS_DIM, RANGE_QKV,                  \
      AT_HEAD(Q), v_kept, NULL, f_q, NULL, explain_projection, "Q", "Q_{h} = X W_Q_{h} + b_Q_{h}")                       \
    ROW(MAT_K, "K", "K", N_("keys"), PER_KV, false, DIM_M, DIM_D_K, AXIS_KEY, AXIS_DIM, RANGE_QKV, AT_HEAD(K),         \
      v_kept, NULL, f_k, NULL, explain_projection, "K", "K_{h} = {kv} W_K_{g} + b_K_{g}")                                \
    ROW(MAT_V, "V", "V", N_("values"), PER_KV, false, DIM_M, DIM_D_K, AXIS_KEY, AXIS_DIM, RANGE_QKV, AT_HEAD(V),       \
      v_kept, NULL, f_v, NULL, explain_projection, "V", "V_{h} = {kv} W_V_{g} + b_V_{g}")                                \
    ROW(MAT_QROT, "Q_rot", "Q^R", N_("rotated queries"), true, false, DIM_N, DIM_D_K, AXIS_QUERY, AXIS_DIM,            \
      RANGE_QKV, AT_HEAD(Q_rot), v_kept, NULL, f_qrot, has_rope, explain_rotated, "Q_rot",                               \
      "Q_rot_{h} = RoPE(Q_{h}): row p turned by p theta_j in each pair j")                                             \
    ROW(MAT_KROT, "K_rot", "K^R", N_("rotated keys"), PER_KV, false, DIM_M, DIM_D_K, AXIS_KEY, AXIS_DIM, RANGE_QKV,    \
      AT_HEAD(K_rot), v_kept, NULL, f_krot, has_rope, explain_rotated, "K_rot",                                          \
      "K_rot_{h} = RoPE(K_{h}): row p turned by p theta_j in each pair j")                                             \
    ROW(MAT_KT, "K_T", "K^T", N_("keys, transposed"), PER_KV, false, DIM_D_K, DIM_M, AXIS_DIM, AXIS_KEY,               \
      RANGE_QKV, AT_NONE, v_kt, NULL, NULL, NULL, explain_projection, NULL, NULL)                                      \
    ROW(MAT_KROT_T, "K_rot_T", "K^R^T", N_("rotated keys, transposed"), PER_KV, false, DIM_D_K, DIM_M, AXIS_DIM,       \
      AXIS_KEY, RANGE_QKV, AT_NONE, v_krot_t, NULL, f_krot_t, has_rope, explain_rotated, NULL, NULL)                   \
    ROW(MAT_QSHIFT, "Q_shift", "Q^(R+k)", N_("rotated queries, every position shifted by k"), true, false, DIM_N,     \
      DIM_D_K, AXIS_QUERY, AXIS_DIM, RANGE_QKV, AT_HEAD(Q_shift), v_kept, NULL, f_qrot, has_shift, explain_rotated,     \
      "Q_rot_shifted", "Q_rot_shifted_{h} = RoPE(Q_{h}) with row p turned at position p + k")                          \
    ROW(MAT_KSHIFT, "K_shift", "K^(R+k)", N_("rotated keys, every position shifted by k"), PER_KV, false, DIM_M,       \
      DIM_D_K, AXIS_KEY, AXIS_DIM, RANGE_QKV, AT_HEAD(K_shift), v_kept, NULL, f_krot, has_shift, explain_rotated,       \
      "K_rot_shifted", "K_rot_shifted_{h} = RoPE(K_{h}) with row p turned at position p + k")                          \
    ROW(MAT_KSHIFT_T, "K_shift_T", "K^(R+k)^T", N_("rotated keys shifted by k, transposed"), PER_KV, false, DIM_D_K,   \
      DIM_M, AXIS_DIM, AXIS_KEY, RANGE_QKV, AT_NONE, v_kshift_t, NULL, f_krot_t, has_shift, explain_rotated, NULL,    \
      NULL)                                                                                                            \
    ROW(MAT_SCORES_SHIFT, "scores_shift", "S^(k)", N_("raw scores, every position shifted by k"), true, false, DIM_N,  \
      DIM_M, AXIS_QUERY, AXIS_KEY, RANGE_SCORES, AT_HEAD(scores_shift), v_kept, NULL, f_scores_shift, has_shift,        \
      explain_score_shift, "scores_shifted", "scores_shifted_{h} = Q_rot_shifted_{h} K_rot_shifted_{h}\xe1\xb5\x80")         \
    ROW(MAT_SCORES, "scores", "S", N_("raw scores"), true, false, DIM_N, DIM_M, AXIS_QUERY, AXIS_KEY,                  \
      RANGE_SCORES, AT_HEAD(scores), v_kept, NULL, f_scores, NULL, explain_score, "scores",                              \
      "scores_{h} = Q_{rope?rot_}{h} K_{rope?rot_}{h}\xe1\xb5\x80")                                                   \
    ROW(MAT_SCALED, "scaled", "S\xe2\x80\xb2", N_("scaled scores"), true, false, DIM_N, DIM_M, AXIS_QUERY,             \
      AXIS_KEY, RANGE_SCORES, AT_NONE, v_scaled, NULL, f_scaled, NULL, explain_scaled, NULL, NULL)                     \
    ROW(MAT_MASK, "mask", "M", N_("causal mask"), false, false, DIM_N, DIM_M, AXIS_QUERY, AXIS_KEY, RANGE_MASK,        \
      AT_NONE, v_mask, NULL, NULL, NULL, explain_mask, NULL, NULL)                                                     \
    ROW(MAT_MASKED, "masked", "S\xe2\x80\xb2 + M", N_("masked scores"), true, false, DIM_N, DIM_M, AXIS_QUERY,         \
      AXIS_KEY, RANGE_SCORES, AT_HEAD(scaled), v_kept, NULL, f_masked, NULL, explain_masked, "scaled",                   \
      "scaled_{h} = scores_{h} {scale}{mask?, causal mask (-inf above the diagonal)}{window?, and {window} or more below it}")                                 \
    ROW(MAT_WEIGHTS, "weights", "A", N_("attention weights"), true, false, DIM_N, DIM_M, AXIS_QUERY, AXIS_KEY,         \
      RANGE_PROB, AT_HEAD(weights), v_kept, NULL, f_weights, NULL, explain_softmax, "weights",                           \
      "weights_{h} = softmax(scaled_{h}), head {h} attention weights")                                                 \
    ROW(MAT_Z, "Z", "Z", N_("head output"), true, false, DIM_N, DIM_D_K, AXIS_QUERY, AXIS_DIM, RANGE_Z,                \
      AT_HEAD(Z), v_kept, NULL, f_z, NULL, explain_weighted, "Z",                                                        \
      "Z_{h} = weights_{h} V_{h}{ablated? (head ablated: zeros in the concat)}")                                       \
    ROW(MAT_CONCAT, "concat", "Concat", N_("the heads side by side"), false, false, DIM_N, DIM_H_D_K, AXIS_QUERY,      \
      AXIS_HEAD_DIM, RANGE_Z, AT_TRACE(concat), v_kept, NULL, f_concat, NULL, explain_concat, "concat",                  \
      "concat = [Z_0 ... Z_{last}]")                                                                                   \
    ROW(MAT_WO, "W_O", "W^O", N_("output weights"), false, true, DIM_H_D_K, DIM_D_MODEL, AXIS_HEAD_DIM, AXIS_DIM,      \
      RANGE_WEIGHT, AT_PARAMS(W_O), v_kept, p_wo, NULL, NULL, explain_weight, "W_O", "W_O")                              \
    ROW(MAT_OUTPUT_ALL, "output_all", N_("Output (all heads)"), N_("output with every head"), false, false, DIM_N,         \
      DIM_D_MODEL, AXIS_QUERY, AXIS_DIM, RANGE_OUTPUT, AT_TRACE(full_output), v_kept, NULL, NULL, has_ablated,           \
      explain_output_all, "output_all_heads", NULL)                                                                    \
    ROW(MAT_OUTPUT, "output", "Output", N_("attention output"), false, false, DIM_N, DIM_D_MODEL, AXIS_QUERY,          \
      AXIS_DIM, RANGE_OUTPUT, AT_TRACE(output), v_kept, NULL, f_output, NULL, explain_output, "output",                  \
      "output = concat W_O + b_O")                                                                                     \
    ROW(MAT_OUTPUT_DIFF, "output_diff", "\xce\x94", N_("what the heads switched off add"), false, false, DIM_N,        \
      DIM_D_MODEL, AXIS_QUERY, AXIS_DIM, RANGE_OUTPUT, AT_NONE, v_output_diff, NULL, f_output_diff,                    \
      has_ablated, explain_output_diff, NULL, NULL)                                                                 \
    ROW(MAT_STREAM, "stream", "h", N_("the residual stream"), false, false, DIM_N, DIM_D_MODEL, AXIS_QUERY, AXIS_DIM,   \
      RANGE_OUTPUT, AT_NONE, v_stream, NULL, NULL, has_stream, explain_stream, NULL, NULL)                             \
    ROW(MAT_GAIN, "norm_weight", "g", N_("the norm's weight"), false, false, DIM_ONE, DIM_D_MODEL, AXIS_DIM, AXIS_DIM,  \
      RANGE_WEIGHT, AT_NONE, v_gain, NULL, NULL, has_norm, explain_norm_weight, NULL, NULL)                            \
    ROW(MAT_SHIFT, "norm_bias", "b", N_("the norm's bias"), false, false, DIM_ONE, DIM_D_MODEL, AXIS_DIM, AXIS_DIM,     \
      RANGE_WEIGHT, AT_NONE, v_shift, NULL, NULL, has_norm_bias, explain_norm_weight, NULL, NULL)                      \
    ROW(MAT_RESIDUAL, "residual", "h\xe2\x80\xb2", N_("the stream after the attention"), false, false, DIM_N,            \
      DIM_D_MODEL, AXIS_QUERY, AXIS_DIM, RANGE_OUTPUT, AT_NONE, v_residual, NULL, f_residual, has_stream,              \
      explain_residual, NULL, NULL)                                                                                    \
    ROW(MAT_NEXT, "next", "p", N_("the next token's probabilities"), false, false, DIM_N, DIM_TOP, AXIS_QUERY,          \
      AXIS_DIM, RANGE_PROB, AT_NONE, v_next, NULL, NULL, has_next, explain_next, NULL, NULL)

// The matrix of each display-only stage (the matrix row of a SHOWN row of STAGE_TABLE, core/stage_table.h)
// follows, in that table's order.
#define MAT_ROW_ENUM(id, ...) id,
#define MAT_SHOWN_ENUM(stage, key, compute, row, mat) MAT_SHOWN_ENUM_ID mat
#define MAT_SHOWN_ENUM_ID(id, ...) id,
typedef enum { MAT_NONE = 0, MAT_ROWS(MAT_ROW_ENUM) STAGE_TABLE(STAGE_TABLE_SKIP, MAT_SHOWN_ENUM) MAT_COUNT } MatId;
#undef MAT_ROW_ENUM
#undef MAT_SHOWN_ENUM
#undef MAT_SHOWN_ENUM_ID

typedef struct {
    MatId mat;   // MAT_NONE: no cell
    int head;    // for per-head matrices
    int row, col;
} CellRef;

// What a row or column index of a matrix stands for.
typedef enum {
    AXIS_DIM = 0, AXIS_QUERY, AXIS_KEY,
    AXIS_HEAD_DIM, // h·d_k columns of Concat (rows of W^O): "Z₁ 0" — which head's part, and its dimension
} Axis;

// The sizes a matrix's shape is made of.
typedef enum { DIM_N = 0, DIM_M, DIM_D_MODEL, DIM_D_K, DIM_H_D_K, DIM_ONE, DIM_TOP } Dim; // TOP: a model's next tokens

// Matrices of one range group share one colour scale (over every head too), so that the same value has the
// same colour in each: Z_i and Concat; the scores before and after the scaling (the shrink by √d_k shows).
typedef enum {
    RANGE_EMBED = 0, RANGE_WEIGHT, RANGE_QKV, RANGE_SCORES, RANGE_PROB, RANGE_MASK, RANGE_Z, RANGE_OUTPUT,
    RANGE_COUNT
} RangeGroup;

// Where a matrix's numbers are kept: a field of AttnParams (a Matrix, or a Matrix * of one per head), of a
// head's HeadTrace, or of the Trace.
typedef enum { MAT_AT_NONE = 0, MAT_AT_PARAMS, MAT_AT_WEIGHTS, MAT_AT_HEAD, MAT_AT_TRACE } MatAtKind;
typedef struct {
    MatAtKind kind;
    size_t offset;
} MatAt;
#define AT_NONE {MAT_AT_NONE, 0}
#define AT_PARAMS(f) {MAT_AT_PARAMS, offsetof(AttnParams, f)}
#define AT_WEIGHTS(f) {MAT_AT_WEIGHTS, offsetof(AttnParams, f)}
#define AT_HEAD(f) {MAT_AT_HEAD, offsetof(HeadTrace, f)}
#define AT_TRACE(f) {MAT_AT_TRACE, offsetof(Trace, f)}
#define AT_SHOWN(stage) {MAT_AT_TRACE, offsetof(Trace, shown) + (size_t)(stage) * sizeof(Matrix)}

// Whose a matrix is (MatInfo.per_head): the layer's, each head's, or each K/V head's — with grouped K/V heads
// (kv_heads < heads) the query heads of a group read one W^K, W^V, K, V (and rotated K), named after the K/V
// head (model_mat_head). Nonzero: one per head, as the other columns and the trace count them.
typedef enum { PER_LAYER = 0, PER_HEAD = 1, PER_KV = 2 } MatPer;

struct CellText; // explain.h

typedef struct {
    MatId id;
    const char *key;       // ASCII, for file names and tests: "scores"
    const char *symbol;    // the symbol in the board's notation: "W^Q" (raised Q), "K^T", "S'"
    const char *what;      // plain words: "raw scores"
    MatPer per_head;       // nonzero: one per head (PER_KV: named after the head's K/V head)
    bool editable;         // a parameter of the lesson the class may change
    Dim rows, cols;
    Axis row_axis, col_axis;
    RangeGroup range;
    MatAt at;              // where its numbers are kept (AT_NONE: computed cell by cell by `value`)
    double (*value)(const AttnParams *p, const Trace *t, CellRef c); // c is in range; v_kept: read from `at`
    Matrix *(*param)(AttnParams *p, int head); // editable matrices: where the value lives; else NULL
    // Computed from what: the input bands cell c was made from (row or col -1: the whole row or column),
    // at most max of them; returns how many. NULL: given by the lesson.
    int (*from)(const AttnParams *p, CellRef c, CellRef *out, int max);
    // NULL: every lesson has it; else whether this lesson does (positions, ablated heads).
    bool (*present)(const AttnParams *p);
    // The lines explaining cell ct->c (explain.c's, at most 3; model_explain calls it): returns how many.
    int (*explain)(const struct CellText *ct, char lines[][256]);
    const char *json;      // its key in --json (NULL: not written)
    // Its title in --trace (NULL: not written; see cli.c for {h}, {g}, {kv}, {last}, {scale} and {pos?…}, {rope?…} parts).
    const char *trace;
} MatInfo;

// The row of a matrix (NULL for MAT_NONE or out of range).
const MatInfo *mat_info(MatId m);
// The matrix m (of head `head`) as kept in p or t: NULL when it is computed cell by cell (AT_NONE) or empty
// (not in this lesson, or no trace).
const Matrix *model_mat_stored(const AttnParams *p, const Trace *t, MatId m, int head);
// The cells of m (head `head`) in one array, row after row, when they are exactly the ones kept in p or t
// (its cells read from `at` and the kept matrix of the shape the board shows): NULL when the cells are
// computed one by one, the matrix is absent or the head cannot be read. What model_cell_value would give.
const Matrix *model_mat_whole(const AttnParams *p, const Trace *t, MatId m, int head);
// Whether m holds numbers of its own in this lesson: present, and Y only for cross-attention (else Y is X).
bool model_mat_own(const AttnParams *p, MatId m);
// The input bands cell c was computed from (the table's `from`): 0 for given values.
int model_mat_inputs(const AttnParams *p, CellRef c, CellRef *out, int max);

int model_dim(const AttnParams *p, Dim d);
void model_mat_shape(const AttnParams *p, MatId m, int *rows, int *cols);
// Whether the lesson has matrix m at all (E and P only with positions, ...).
bool model_mat_present(const AttnParams *p, MatId m);
// The value of one cell (NAN when out of range or not present, -INFINITY for masked cells). Reads the trace's own numbers.
double model_cell_value(const AttnParams *p, const Trace *t, CellRef c);
// Largest |value| over the matrices of the range group (every head); 1 for probabilities; 1 when all are 0.
double model_range(const AttnParams *p, const Trace *t, RangeGroup g);

// Whose matrix m of query head `head` is, as its name's subscript: the K/V head params_kv_head(p, head) =
// head / (heads / kv_heads) for a matrix of each K/V head (PER_KV: W^K, W^V, K, V, the rotated keys), else head.
// The one place a caption, a worked sum or a title finds its K/V head; the numbers are the same either way.
int model_mat_head(const AttnParams *p, MatId m, int head);
// The matrix's name in the board's notation for query head `head`: "Q₀", "K₀^T", "W₀^Q", "S′₀", "A₀", "Concat";
// with grouped K/V heads, head 2 of llama-rope-gqa has W₂^Q but W₁^K, K₁, V₁ (model_mat_head). p NULL: the
// subscript is head itself. A '^' raises what follows it (one letter, or up to the next space); else plain UTF-8.
void model_mat_name(const AttnParams *p, MatId m, int head, char *buf, size_t cap);
// The label of index i along an axis: the token ("cat"), with its position as a subscript when the same
// token occurs twice ("the₀", "the₄"); the index for dimensions ("3").
void model_axis_label(const Lesson *L, Axis a, int i, char *buf, size_t cap);

// "0.6111", "−1.2000", "−∞", "1" for exact integers (below 10^5): the 4-decimal form the seed prints.
void model_format_value(double v, char *buf, size_t cap);
// Appends the subscript digits of n to buf.
void model_subscript(char *buf, size_t cap, int n);

#endif
