// The one table of stages, a row each, in their order on the board: read by two layers. The core takes each
// row's Stage value, key and (for a display-only stage) the function computing its matrix (core/trace.h,
// trace.c); the model takes the rest of the row, which the core never expands (model/stages.c, matrices.h).
// Adding a stage is told in the README's "How to add a stage".
#ifndef MHA_STAGE_TABLE_H
#define MHA_STAGE_TABLE_H

// STAGE_TABLE(STAGE, SHOWN): two kinds of rows, in the order of the stages.
//   STAGE(id, key, (model row))                       a stage of the attention computation (trace_run)
//   SHOWN(id, key, compute, (model row), (matrix row)) a display-only stage: computed from a finished trace by
//     the core function `compute` (bool compute(Matrix *out, const Trace *t, const AttnParams *p), defined in
//     core/trace.c, kept in Trace.shown[id]), shown, never fed back; it keeps one layer-level matrix.
// id: the Stage value. key: ASCII and lower case, for file names, --stage, deep links and the messages of a
// failed trace.
// (model row): name (a message id), title (a message id, plain text, for exported page titles), short name
//   (a message id), heatmap, {results}, present, equations, formula, explanation — StageInfo's columns; the
//   functions are model/stages.c's.
// (matrix row) of a SHOWN stage: MatId, key, symbol, what (a message id), rows, cols, row axis, col axis,
//   colour range group, from, present, explain, --json key, --trace title — MatInfo's columns (see MAT_ROWS in
//   model/matrices.h); it is not per head, not editable and read from Trace.shown[id]. Its MatId follows the
//   rows of MAT_ROWS, in the order of this table. from and explain are extern functions (model/stages.c).
// STAGE_MASK exists only for causal lessons, STAGE_ROTATE only with RoPE (their `present`); STAGE_NORM_IN,
// STAGE_RESIDUAL and STAGE_NEXT only for a checkpoint's layer (--model in the window: AttnParams.stream).
#define STAGE_TABLE(STAGE, SHOWN)                                                                                  \
    STAGE(STAGE_NORM_IN, "input-norm", /* a checkpoint's layer: the stream h -> its norm -> X (--model only) */  \
          (N_("Norm"), N_("The norm that makes X"), N_("norm"), MAT_NONE, {MAT_X}, has_norm, eq_norm_in,           \
           f_norm_in, x_norm_in))                                                                                 \
    STAGE(STAGE_INPUT, "input", /* embeddings X (and source S) */                                                \
          (N_("Input"), N_("Input embeddings"), N_("X"), MAT_NONE, {MAT_NONE}, NULL, eq_input, f_input, x_input))  \
    STAGE(STAGE_POSITIONS, "positions", /* E + P = X (only for lessons with positions) */                        \
          (N_("Positions"), N_("Positions E + P"), N_("E + P"), MAT_NONE, {MAT_X}, has_positions, eq_positions,    \
           f_positions, x_positions))                                                                             \
    STAGE(STAGE_PROJECT, "projections", /* Q_i, K_i, V_i */                                                      \
          (N_("Projections Q, K, V"), N_("Projections Q, K, V"), N_("Q K V"), MAT_NONE, {MAT_Q, MAT_K, MAT_V},     \
           NULL, eq_project, f_project, x_project))                                                               \
    STAGE(STAGE_ROTATE, "rotate", /* RoPE: Q_i, K_i rows turned by their positions (rope only) */                \
          (N_("Rotation RoPE"), N_("Rotation RoPE"), N_("RoPE"), MAT_NONE, {MAT_QROT, MAT_KROT}, has_rope,         \
           eq_rotate, f_rotate, x_rotate))                                                                        \
    STAGE(STAGE_SCORES, "scores", /* Q_i K_i^T */                                                                \
          (N_("Scores QK^T"), N_("Scores Q" "K\xe1\xb5\x80"), N_("QK^T"), MAT_SCORES, {MAT_SCORES}, NULL,          \
           eq_scores, f_scores, x_scores))                                                                        \
    STAGE(STAGE_SCALE, "scaled", /* / sqrt(d_k) */                                                               \
          (N_("Scaling by " "\xe2\x88\x9a" "d_k"), N_("Scaling \xc3\xb7" "\xe2\x88\x9a" "d_k"),                   \
           N_("\xc3\xb7" "\xe2\x88\x9a" "d_k"), MAT_SCALED, {MAT_SCALED}, NULL, eq_scale, f_scale, x_scale))      \
    STAGE(STAGE_MASK, "mask", /* causal mask: -inf above the diagonal */                                         \
          (N_("Causal mask"), N_("Causal mask"), N_("mask"), MAT_MASKED, {MAT_MASKED}, is_causal, eq_mask, f_mask, \
           x_mask))                                                                                               \
    STAGE(STAGE_SOFTMAX, "softmax", /* row-wise softmax */                                                       \
          (N_("Softmax"), N_("Softmax"), N_("softmax"), MAT_WEIGHTS, {MAT_WEIGHTS}, NULL, eq_softmax, f_softmax,   \
           x_softmax))                                                                                            \
    STAGE(STAGE_WEIGHTED_SUM, "weighted-sum", /* Z_i = A_i V_i */                                                \
          (N_("Weighted sum"), N_("Weighted sum A" "\xc2\xb7" "V"), N_("AV"), MAT_WEIGHTS, {MAT_Z}, NULL,          \
           eq_weighted, f_weighted, x_weighted))                                                                  \
    STAGE(STAGE_CONCAT, "concat", /* [Z_0 ... Z_{h-1}] */                                                        \
          (N_("Concatenation"), N_("Concatenation"), N_("concat"), MAT_WEIGHTS, {MAT_CONCAT}, NULL, eq_concat,     \
           f_concat, x_concat))                                                                                   \
    STAGE(STAGE_OUTPUT, "output", /* concat W_O + b_O */                                                         \
          (N_("Output projection W^O"), N_("Output projection W\xe1\xb4\xbc"), N_("W^O"), MAT_WEIGHTS,             \
           {MAT_OUTPUT}, NULL, eq_output, f_output, x_output))                                               \
    STAGE(STAGE_RESIDUAL, "residual", /* a checkpoint's layer: h + Output (--model only) */                        \
          (N_("Residual add"), N_("Residual add h + Output"), N_("h + out"), MAT_NONE, {MAT_RESIDUAL}, has_stream,  \
           eq_residual, f_residual, x_residual))                                                                  \
    STAGE(STAGE_NEXT, "next-token", /* a checkpoint's next token at each position (--model only, not BERT) */     \
          (N_("Next token"), N_("Next-token prediction"), N_("next"), MAT_NONE, {MAT_NEXT}, has_next, eq_next,     \
           f_next, x_next))

// A row's columns, unwrapped from their parentheses: STAGE_TABLE_COLS (a, b) is a, b.
#define STAGE_TABLE_COLS(...) __VA_ARGS__
// A row with none of its own: for the kind of row a reader skips.
#define STAGE_TABLE_SKIP(...)

#endif
