// The table of logical matrices: one row per matrix the board, the heatmaps, the exports and the
// tests can show (name and symbol, shape, where its numbers are, axes, per head or not, editable,
// colour range, its explanation, its --json key and --trace title). No SDL. Adding a matrix is a
// row of MAT_ROWS below.
#ifndef MHA_MATRICES_H
#define MHA_MATRICES_H

#include <stdbool.h>
#include <stddef.h>
#include "core/trace.h"
#include "lesson/lesson.h"
#include "model/i18n.h"

// The logical matrices a cell can belong to (what a hover or a reveal points at), one row each,
// written once: ROW(id, explain, .key = ..., .symbol = ..., ...): the MatId and the explanation
// (whose prototype the row gives) first, then MatInfo's other columns by name (a column left out is
// 0, false or NULL). The rows make the MatId enum here and the table in matrices.c; the functions
// they name are matrices.c's (value, param, from, present: NULL for none) and explain.c's
// (explain). The order is the order of --json and --trace: the embeddings, then the per-head
// matrices, then the layer's. per_head: false (the layer's), true (each head's) or PER_KV (each K/V
// head's: the keys and values and their weights, which the heads of a group share with grouped K/V
// heads).
#define MAT_ROWS(ROW)                                                                              \
    ROW(MAT_E, explain_token, .key = "E", .symbol = "E", .what = N_("token embeddings"),           \
        .per_head = false, .editable = true, .rows = DIM_N, .cols = DIM_D_MODEL,                   \
        .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM, .range = RANGE_EMBED, .at = AT_PARAMS(E),    \
        .value = v_kept, .param = p_e, .present = has_positions, .json = "token_embeddings",       \
        .trace = "== Token embeddings E")                                                          \
    ROW(MAT_P, explain_position, .key = "P", .symbol = "P", .what = N_("positions"),               \
        .per_head = false, .editable = false, .rows = DIM_N, .cols = DIM_D_MODEL,                  \
        .row_axis = AXIS_DIM, .col_axis = AXIS_DIM, .range = RANGE_EMBED, .at = AT_PARAMS(P),      \
        .value = v_kept, .present = has_positions, .json = "positions", .trace = "== Positions P") \
    ROW(MAT_X, explain_embedding, .key = "X", .symbol = "X", .what = N_("embeddings"),             \
        .per_head = false, .editable = true, .rows = DIM_N, .cols = DIM_D_MODEL,                   \
        .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM, .range = RANGE_EMBED, .at = AT_PARAMS(X),    \
        .value = v_kept, .param = p_x, .from = f_x, .json = "embeddings",                          \
        .trace = "== Input embeddings X{pos? = E + P}")                                            \
    ROW(MAT_ES, explain_token, .key = "E_Y", .symbol = "E^Y",                                      \
        .what = N_("source token embeddings"), .per_head = false, .editable = true, .rows = DIM_M, \
        .cols = DIM_D_MODEL, .row_axis = AXIS_KEY, .col_axis = AXIS_DIM, .range = RANGE_EMBED,     \
        .at = AT_PARAMS(E_S), .value = v_kept, .param = p_es, .present = has_source_positions,     \
        .json = "source_token_embeddings", .trace = "== Source token embeddings")                  \
    ROW(MAT_PS, explain_position, .key = "P_Y", .symbol = "P^Y", .what = N_("source positions"),   \
        .per_head = false, .editable = false, .rows = DIM_M, .cols = DIM_D_MODEL,                  \
        .row_axis = AXIS_DIM, .col_axis = AXIS_DIM, .range = RANGE_EMBED, .at = AT_PARAMS(P_S),    \
        .value = v_kept, .present = has_source_positions, .json = "source_positions",              \
        .trace = "== Source positions")                                                            \
    ROW(MAT_S, explain_embedding, .key = "S", .symbol = "Y", .what = N_("source embeddings"),      \
        .per_head = false, .editable = true, .rows = DIM_M, .cols = DIM_D_MODEL,                   \
        .row_axis = AXIS_KEY, .col_axis = AXIS_DIM, .range = RANGE_EMBED, .at = AT_PARAMS(S),      \
        .value = v_kept, .param = p_s, .from = f_s, .json = "source_embeddings",                   \
        .trace =                                                                                   \
            "{cross?== Source embeddings Y}{cross?{pos? = source tokens + source positions}}")     \
    ROW(MAT_WQ, explain_weight, .key = "W_Q", .symbol = "W^Q", .what = N_("query weights"),        \
        .per_head = true, .editable = true, .rows = DIM_D_MODEL, .cols = DIM_D_K,                  \
        .row_axis = AXIS_DIM, .col_axis = AXIS_DIM, .range = RANGE_WEIGHT, .at = AT_WEIGHTS(W_Q),  \
        .value = v_kept, .param = p_wq, .json = "W_Q", .trace = "W_Q_{h}")                         \
    ROW(MAT_WK, explain_weight, .key = "W_K", .symbol = "W^K", .what = N_("key weights"),          \
        .per_head = PER_KV, .editable = true, .rows = DIM_D_MODEL, .cols = DIM_D_K,                \
        .row_axis = AXIS_DIM, .col_axis = AXIS_DIM, .range = RANGE_WEIGHT, .at = AT_WEIGHTS(W_K),  \
        .value = v_kept, .param = p_wk, .json = "W_K", .trace = "W_K_{g}")                         \
    ROW(MAT_WV, explain_weight, .key = "W_V", .symbol = "W^V", .what = N_("value weights"),        \
        .per_head = PER_KV, .editable = true, .rows = DIM_D_MODEL, .cols = DIM_D_K,                \
        .row_axis = AXIS_DIM, .col_axis = AXIS_DIM, .range = RANGE_WEIGHT, .at = AT_WEIGHTS(W_V),  \
        .value = v_kept, .param = p_wv, .json = "W_V", .trace = "W_V_{g}")                         \
    ROW(MAT_Q, explain_projection, .key = "Q", .symbol = "Q", .what = N_("queries"),               \
        .per_head = true, .editable = false, .rows = DIM_N, .cols = DIM_D_K,                       \
        .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM, .range = RANGE_QKV, .at = AT_HEAD(Q),        \
        .value = v_kept, .from = f_q, .json = "Q", .trace = "Q_{h} = X W_Q_{h} + b_Q_{h}")         \
    ROW(MAT_K, explain_projection, .key = "K", .symbol = "K", .what = N_("keys"),                  \
        .per_head = PER_KV, .editable = false, .rows = DIM_M, .cols = DIM_D_K,                     \
        .row_axis = AXIS_KEY, .col_axis = AXIS_DIM, .range = RANGE_QKV, .at = AT_HEAD(K),          \
        .value = v_kept, .from = f_k, .json = "K", .trace = "K_{h} = {kv} W_K_{g} + b_K_{g}")      \
    ROW(MAT_V, explain_projection, .key = "V", .symbol = "V", .what = N_("values"),                \
        .per_head = PER_KV, .editable = false, .rows = DIM_M, .cols = DIM_D_K,                     \
        .row_axis = AXIS_KEY, .col_axis = AXIS_DIM, .range = RANGE_QKV, .at = AT_HEAD(V),          \
        .value = v_kept, .from = f_v, .json = "V", .trace = "V_{h} = {kv} W_V_{g} + b_V_{g}")      \
    ROW(MAT_QROT, explain_rotated, .key = "Q_rot", .symbol = "Q^R", .what = N_("rotated queries"), \
        .per_head = true, .editable = false, .rows = DIM_N, .cols = DIM_D_K,                       \
        .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM, .range = RANGE_QKV, .at = AT_HEAD(Q_rot),    \
        .value = v_kept, .from = f_qrot, .present = has_rope, .json = "Q_rot",                     \
        .trace = "Q_rot_{h} = RoPE(Q_{h}): row p turned by p theta_j in each pair j")              \
    ROW(MAT_KROT, explain_rotated, .key = "K_rot", .symbol = "K^R", .what = N_("rotated keys"),    \
        .per_head = PER_KV, .editable = false, .rows = DIM_M, .cols = DIM_D_K,                     \
        .row_axis = AXIS_KEY, .col_axis = AXIS_DIM, .range = RANGE_QKV, .at = AT_HEAD(K_rot),      \
        .value = v_kept, .from = f_krot, .present = has_rope, .json = "K_rot",                     \
        .trace = "K_rot_{h} = RoPE(K_{h}): row p turned by p theta_j in each pair j")              \
    ROW(MAT_KT, explain_projection, .key = "K_T", .symbol = "K^T", .what = N_("keys, transposed"), \
        .per_head = PER_KV, .editable = false, .rows = DIM_D_K, .cols = DIM_M,                     \
        .row_axis = AXIS_DIM, .col_axis = AXIS_KEY, .range = RANGE_QKV, .at = AT_NONE,             \
        .value = v_kt)                                                                             \
    ROW(MAT_KROT_T, explain_rotated, .key = "K_rot_T", .symbol = "K^R^T",                          \
        .what = N_("rotated keys, transposed"), .per_head = PER_KV, .editable = false,             \
        .rows = DIM_D_K, .cols = DIM_M, .row_axis = AXIS_DIM, .col_axis = AXIS_KEY,                \
        .range = RANGE_QKV, .at = AT_NONE, .value = v_krot_t, .from = f_krot_t,                    \
        .present = has_rope)                                                                       \
    ROW(MAT_QSHIFT, explain_rotated, .key = "Q_shift", .symbol = "Q^(R+k)",                        \
        .what = N_("rotated queries, every position shifted by k"), .per_head = true,              \
        .editable = false, .rows = DIM_N, .cols = DIM_D_K, .row_axis = AXIS_QUERY,                 \
        .col_axis = AXIS_DIM, .range = RANGE_QKV, .at = AT_HEAD(Q_shift), .value = v_kept,         \
        .from = f_qrot, .present = has_shift, .json = "Q_rot_shifted",                             \
        .trace = "Q_rot_shifted_{h} = RoPE(Q_{h}) with row p turned at position p + k")            \
    ROW(MAT_KSHIFT, explain_rotated, .key = "K_shift", .symbol = "K^(R+k)",                        \
        .what = N_("rotated keys, every position shifted by k"), .per_head = PER_KV,               \
        .editable = false, .rows = DIM_M, .cols = DIM_D_K, .row_axis = AXIS_KEY,                   \
        .col_axis = AXIS_DIM, .range = RANGE_QKV, .at = AT_HEAD(K_shift), .value = v_kept,         \
        .from = f_krot, .present = has_shift, .json = "K_rot_shifted",                             \
        .trace = "K_rot_shifted_{h} = RoPE(K_{h}) with row p turned at position p + k")            \
    ROW(MAT_KSHIFT_T, explain_rotated, .key = "K_shift_T", .symbol = "K^(R+k)^T",                  \
        .what = N_("rotated keys shifted by k, transposed"), .per_head = PER_KV,                   \
        .editable = false, .rows = DIM_D_K, .cols = DIM_M, .row_axis = AXIS_DIM,                   \
        .col_axis = AXIS_KEY, .range = RANGE_QKV, .at = AT_NONE, .value = v_kshift_t,              \
        .from = f_krot_t, .present = has_shift)                                                    \
    ROW(MAT_SCORES_SHIFT, explain_score_shift, .key = "scores_shift", .symbol = "S^(k)",           \
        .what = N_("raw scores, every position shifted by k"), .per_head = true,                   \
        .editable = false, .rows = DIM_N, .cols = DIM_M, .row_axis = AXIS_QUERY,                   \
        .col_axis = AXIS_KEY, .range = RANGE_SCORES, .at = AT_HEAD(scores_shift), .value = v_kept, \
        .from = f_scores_shift, .present = has_shift, .json = "scores_shifted",                    \
        .trace = "scores_shifted_{h} = Q_rot_shifted_{h} K_rot_shifted_{h}\xe1\xb5\x80")           \
    ROW(MAT_SCORES, explain_score, .key = "scores", .symbol = "S", .what = N_("raw scores"),       \
        .per_head = true, .editable = false, .rows = DIM_N, .cols = DIM_M, .row_axis = AXIS_QUERY, \
        .col_axis = AXIS_KEY, .range = RANGE_SCORES, .at = AT_HEAD(scores), .value = v_kept,       \
        .from = f_scores, .json = "scores",                                                        \
        .trace = "scores_{h} = Q_{rope?rot_}{h} K_{rope?rot_}{h}\xe1\xb5\x80")                     \
    ROW(MAT_SCALED, explain_scaled, .key = "scaled", .symbol = "S\xe2\x80\xb2",                    \
        .what = N_("scaled scores"), .per_head = true, .editable = false, .rows = DIM_N,           \
        .cols = DIM_M, .row_axis = AXIS_QUERY, .col_axis = AXIS_KEY, .range = RANGE_SCORES,        \
        .at = AT_NONE, .value = v_scaled, .from = f_scaled)                                        \
    ROW(MAT_MASK, explain_mask, .key = "mask", .symbol = "M", .what = N_("causal mask"),           \
        .per_head = false, .editable = false, .rows = DIM_N, .cols = DIM_M,                        \
        .row_axis = AXIS_QUERY, .col_axis = AXIS_KEY, .range = RANGE_MASK, .at = AT_NONE,          \
        .value = v_mask)                                                                           \
    ROW(MAT_MASKED, explain_masked, .key = "masked", .symbol = "S\xe2\x80\xb2 + M",                \
        .what = N_("masked scores"), .per_head = true, .editable = false, .rows = DIM_N,           \
        .cols = DIM_M, .row_axis = AXIS_QUERY, .col_axis = AXIS_KEY, .range = RANGE_SCORES,        \
        .at = AT_HEAD(scaled), .value = v_kept, .from = f_masked, .json = "scaled",                \
        .trace = "scaled_{h} = scores_{h} {scale}{mask?, causal mask (-inf above the "             \
                 "diagonal)}{window?, and {window} or more below it}")                             \
    ROW(MAT_WEIGHTS, explain_softmax, .key = "weights", .symbol = "A",                             \
        .what = N_("attention weights"), .per_head = true, .editable = false, .rows = DIM_N,       \
        .cols = DIM_M, .row_axis = AXIS_QUERY, .col_axis = AXIS_KEY, .range = RANGE_PROB,          \
        .at = AT_HEAD(weights), .value = v_kept, .from = f_weights, .json = "weights",             \
        .trace = "weights_{h} = softmax(scaled_{h}), head {h} attention weights")                  \
    ROW(MAT_Z, explain_weighted, .key = "Z", .symbol = "Z", .what = N_("head output"),             \
        .per_head = true, .editable = false, .rows = DIM_N, .cols = DIM_D_K,                       \
        .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM, .range = RANGE_Z, .at = AT_HEAD(Z),          \
        .value = v_kept, .from = f_z, .json = "Z",                                                 \
        .trace = "Z_{h} = weights_{h} V_{h}{ablated? (head ablated: zeros in the concat)}")        \
    ROW(MAT_CONCAT, explain_concat, .key = "concat", .symbol = "Concat",                           \
        .what = N_("the heads side by side"), .per_head = false, .editable = false, .rows = DIM_N, \
        .cols = DIM_H_D_K, .row_axis = AXIS_QUERY, .col_axis = AXIS_HEAD_DIM, .range = RANGE_Z,    \
        .at = AT_TRACE(concat), .value = v_kept, .from = f_concat, .json = "concat",               \
        .trace = "concat = [Z_0 ... Z_{last}]")                                                    \
    ROW(MAT_WO, explain_weight, .key = "W_O", .symbol = "W^O", .what = N_("output weights"),       \
        .per_head = false, .editable = true, .rows = DIM_H_D_K, .cols = DIM_D_MODEL,               \
        .row_axis = AXIS_HEAD_DIM, .col_axis = AXIS_DIM, .range = RANGE_WEIGHT,                    \
        .at = AT_PARAMS(W_O), .value = v_kept, .param = p_wo, .json = "W_O", .trace = "W_O")       \
    ROW(MAT_OUTPUT_ALL, explain_output_all, .key = "output_all",                                   \
        .symbol = N_("Output (all heads)"), .what = N_("output with every head"),                  \
        .per_head = false, .editable = false, .rows = DIM_N, .cols = DIM_D_MODEL,                  \
        .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM, .range = RANGE_OUTPUT,                       \
        .at = AT_TRACE(full_output), .value = v_kept, .present = has_ablated,                      \
        .json = "output_all_heads")                                                                \
    ROW(MAT_OUTPUT, explain_output, .key = "output", .symbol = "Output",                           \
        .what = N_("attention output"), .per_head = false, .editable = false, .rows = DIM_N,       \
        .cols = DIM_D_MODEL, .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM, .range = RANGE_OUTPUT,  \
        .at = AT_TRACE(output), .value = v_kept, .from = f_output, .json = "output",               \
        .trace = "output = concat W_O + b_O")                                                      \
    ROW(MAT_OUTPUT_DIFF, explain_output_diff, .key = "output_diff", .symbol = "\xce\x94",          \
        .what = N_("what the heads switched off add"), .per_head = false, .editable = false,       \
        .rows = DIM_N, .cols = DIM_D_MODEL, .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM,          \
        .range = RANGE_OUTPUT, .at = AT_NONE, .value = v_output_diff, .from = f_output_diff,       \
        .present = has_ablated)                                                                    \
    ROW(MAT_STREAM, explain_stream, .key = "stream", .symbol = "h",                                \
        .what = N_("the residual stream"), .per_head = false, .editable = false, .rows = DIM_N,    \
        .cols = DIM_D_MODEL, .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM, .range = RANGE_OUTPUT,  \
        .at = AT_NONE, .value = v_stream, .present = has_stream)                                   \
    ROW(MAT_GAIN, explain_norm_weight, .key = "norm_weight", .symbol = "g",                        \
        .what = N_("the norm's weight"), .per_head = false, .editable = false, .rows = DIM_ONE,    \
        .cols = DIM_D_MODEL, .row_axis = AXIS_DIM, .col_axis = AXIS_DIM, .range = RANGE_WEIGHT,    \
        .at = AT_NONE, .value = v_gain, .present = has_norm)                                       \
    ROW(MAT_SHIFT, explain_norm_weight, .key = "norm_bias", .symbol = "b",                         \
        .what = N_("the norm's bias"), .per_head = false, .editable = false, .rows = DIM_ONE,      \
        .cols = DIM_D_MODEL, .row_axis = AXIS_DIM, .col_axis = AXIS_DIM, .range = RANGE_WEIGHT,    \
        .at = AT_NONE, .value = v_shift, .present = has_norm_bias)                                 \
    ROW(MAT_RESIDUAL, explain_residual, .key = "residual", .symbol = "h\xe2\x80\xb2",              \
        .what = N_("the stream after the attention"), .per_head = false, .editable = false,        \
        .rows = DIM_N, .cols = DIM_D_MODEL, .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM,          \
        .range = RANGE_OUTPUT, .at = AT_NONE, .value = v_residual, .from = f_residual,             \
        .present = has_stream)                                                                     \
    ROW(MAT_NEXT, explain_next, .key = "next", .symbol = "p",                                      \
        .what = N_("the next token's probabilities"), .per_head = false, .editable = false,        \
        .rows = DIM_N, .cols = DIM_TOP, .row_axis = AXIS_QUERY, .col_axis = AXIS_DIM,              \
        .range = RANGE_PROB, .at = AT_NONE, .value = v_next, .present = has_next)

// The matrix of each display-only stage (the matrix row of a SHOWN row of STAGE_TABLE,
// core/stage_table.h) follows, in that table's order.
#define MAT_ROW_ENUM(id, ...) id,
#define MAT_SHOWN_ENUM(stage, key, compute, row, mat) MAT_SHOWN_ENUM_ID mat
#define MAT_SHOWN_ENUM_ID(id, ...) id,
typedef enum {
    MAT_NONE = 0,
    MAT_ROWS(MAT_ROW_ENUM) STAGE_TABLE(STAGE_TABLE_SKIP, MAT_SHOWN_ENUM) MAT_COUNT
} MatId;
#undef MAT_ROW_ENUM
#undef MAT_SHOWN_ENUM
#undef MAT_SHOWN_ENUM_ID

typedef struct {
    MatId mat; // MAT_NONE: no cell
    int head; // for per-head matrices
    int row, col;
} CellRef;

// What a row or column index of a matrix stands for.
typedef enum {
    AXIS_DIM = 0,
    AXIS_QUERY,
    AXIS_KEY,
    AXIS_HEAD_DIM, // h·d_k columns of Concat (rows of W^O): "Z₁ 0" — which head's part, and its
                   // dimension
} Axis;

// The sizes a matrix's shape is made of.
typedef enum {
    DIM_N = 0,
    DIM_M,
    DIM_D_MODEL,
    DIM_D_K,
    DIM_H_D_K,
    DIM_ONE,
    DIM_TOP
} Dim; // TOP: a model's next tokens

// Matrices of one range group share one colour scale (over every head too), so that the same value
// has the same colour in each: Z_i and Concat; the scores before and after the scaling (the shrink
// by √d_k shows).
typedef enum {
    RANGE_EMBED = 0,
    RANGE_WEIGHT,
    RANGE_QKV,
    RANGE_SCORES,
    RANGE_PROB,
    RANGE_MASK,
    RANGE_Z,
    RANGE_OUTPUT,
    RANGE_COUNT
} RangeGroup;

// Where a matrix's numbers are kept: a field of AttnParams (a Matrix, or a Matrix * of one per
// head), of a head's HeadTrace, or of the Trace.
typedef enum {
    MAT_AT_NONE = 0,
    MAT_AT_PARAMS,
    MAT_AT_WEIGHTS,
    MAT_AT_HEAD,
    MAT_AT_TRACE
} MatAtKind;
typedef struct {
    MatAtKind kind;
    size_t offset;
} MatAt;
#define AT_NONE                                                                                    \
    {                                                                                              \
        MAT_AT_NONE, 0                                                                             \
    }
#define AT_PARAMS(f)                                                                               \
    {                                                                                              \
        MAT_AT_PARAMS, offsetof(AttnParams, f)                                                     \
    }
#define AT_WEIGHTS(f)                                                                              \
    {                                                                                              \
        MAT_AT_WEIGHTS, offsetof(AttnParams, f)                                                    \
    }
#define AT_HEAD(f)                                                                                 \
    {                                                                                              \
        MAT_AT_HEAD, offsetof(HeadTrace, f)                                                        \
    }
#define AT_TRACE(f)                                                                                \
    {                                                                                              \
        MAT_AT_TRACE, offsetof(Trace, f)                                                           \
    }
#define AT_SHOWN(stage)                                                                            \
    {                                                                                              \
        MAT_AT_TRACE, offsetof(Trace, shown) + (size_t)(stage) * sizeof(Matrix)                    \
    }

// Whose a matrix is (MatInfo.per_head): the layer's, each head's, or each K/V head's — with grouped
// K/V heads (kv_heads < heads) the query heads of a group read one W^K, W^V, K, V (and rotated K),
// named after the K/V head (model_mat_head). Nonzero: one per head, as the other columns and the
// trace count them.
typedef enum { PER_LAYER = 0, PER_HEAD = 1, PER_KV = 2 } MatPer;

struct CellText; // explain.h

typedef struct {
    MatId id;
    const char *key; // ASCII, for file names and tests: "scores"
    const char *symbol; // the symbol in the board's notation: "W^Q" (raised Q), "K^T", "S'"
    const char *what; // plain words: "raw scores"
    MatPer per_head; // nonzero: one per head (PER_KV: named after the head's K/V head)
    bool editable; // a parameter of the lesson the class may change
    Dim rows, cols;
    Axis row_axis, col_axis;
    RangeGroup range;
    MatAt at; // where its numbers are kept (AT_NONE: computed cell by cell by `value`)
    double (*value)(const AttnParams *p, const Trace *t,
                    CellRef c); // c is in range; v_kept: read from `at`
    Matrix *(*param)(AttnParams *p,
                     int head); // editable matrices: where the value lives; else NULL
    // Computed from what: the input bands cell c was made from (row or col -1: the whole row or
    // column), at most max of them; returns how many. NULL: given by the lesson.
    int (*from)(const AttnParams *p, CellRef c, CellRef *out, int max);
    // NULL: every lesson has it; else whether this lesson does (positions, ablated heads).
    bool (*present)(const AttnParams *p);
    // The lines explaining cell ct->c (explain.c's, at most 3; model_explain calls it): returns how
    // many.
    int (*explain)(const struct CellText *ct, char lines[][256]);
    const char *json; // its key in --json (NULL: not written)
    // Its title in --trace (NULL: not written; see cli.c for {h}, {g}, {kv}, {last}, {scale} and
    // {pos?…}, {rope?…} parts).
    const char *trace;
} MatInfo;

// The row of a matrix (NULL for MAT_NONE or out of range).
const MatInfo *mat_info(MatId m);
// The matrix a transposed one is made from (K for K^T, K^R for K^R^T, ...), MAT_NONE for the
// others: the board can show a product's transposed operand by rows ("row i of Q · row j of K").
MatId model_mat_untransposed(MatId m);
// The matrix m (of head `head`) as kept in p or t: NULL when it is computed cell by cell (AT_NONE)
// or empty (not in this lesson, or no trace).
const Matrix *model_mat_stored(const AttnParams *p, const Trace *t, MatId m, int head);
// The cells of m (head `head`) in one array, row after row, when they are exactly the ones kept in
// p or t (its cells read from `at` and the kept matrix of the shape the board shows): NULL when the
// cells are computed one by one, the matrix is absent or the head cannot be read. What
// model_cell_value would give.
const Matrix *model_mat_whole(const AttnParams *p, const Trace *t, MatId m, int head);
// Whether m holds numbers of its own in this lesson: present, and Y only for cross-attention (else
// Y is X).
bool model_mat_own(const AttnParams *p, MatId m);
// The input bands cell c was computed from (the table's `from`): 0 for given values.
int model_mat_inputs(const AttnParams *p, CellRef c, CellRef *out, int max);

int model_dim(const AttnParams *p, Dim d);
void model_mat_shape(const AttnParams *p, MatId m, int *rows, int *cols);
// Whether the lesson has matrix m at all (E and P only with positions, ...).
bool model_mat_present(const AttnParams *p, MatId m);
// The value of one cell (NAN when out of range or not present, -INFINITY for masked cells). Reads
// the trace's own numbers.
double model_cell_value(const AttnParams *p, const Trace *t, CellRef c);
// Largest |value| over the matrices of the range group (every head); 1 for probabilities; 1 when
// all are 0.
double model_range(const AttnParams *p, const Trace *t, RangeGroup g);

// Whose matrix m of query head `head` is, as its name's subscript: the K/V head params_kv_head(p,
// head) = head / (heads / kv_heads) for a matrix of each K/V head (PER_KV: W^K, W^V, K, V, the
// rotated keys), else head. The one place a caption, a worked sum or a title finds its K/V head;
// the numbers are the same either way.
int model_mat_head(const AttnParams *p, MatId m, int head);
// The matrix's name in the board's notation for query head `head`: "Q₀", "K₀^T", "W₀^Q", "S′₀",
// "A₀", "Concat"; with grouped K/V heads, head 2 of llama-rope-gqa has W₂^Q but W₁^K, K₁, V₁
// (model_mat_head). p NULL: the subscript is head itself. A '^' raises what follows it (one letter,
// or up to the next space); else plain UTF-8.
void model_mat_name(const AttnParams *p, MatId m, int head, char *buf, size_t cap);
// The label of index i along an axis: the token ("cat"), with its position as a subscript when the
// same token occurs twice ("the₀", "the₄"); the index for dimensions ("3").
void model_axis_label(const Lesson *L, Axis a, int i, char *buf, size_t cap);

// "0.6111", "−1.2000", "−∞", "1" for exact integers (below 10^5): the 4-decimal form the seed
// prints.
void model_format_value(double v, char *buf, size_t cap);
// v in that form as an operand after a sign: in parentheses when negative ("a − (−0.4458)", not
// "a − −0.4458").
void model_format_operand(double v, char *buf, size_t cap);
// The two terms of a cell that is the sum or difference of two matrices' cells at its place (c's
// row and column, head 0): first's value formatted into a, second's as an operand into b (cap bytes
// each).
void model_format_terms(const AttnParams *p, const Trace *t, CellRef c, MatId first, MatId second,
                        char *a, char *b, size_t cap);
// Appends the subscript digits of n to buf.
void model_subscript(char *buf, size_t cap, int n);

#endif
