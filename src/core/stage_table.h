// The one table of stages, a row each, in their order on the board: read by two layers. The core
// takes each row's Stage value, key and (for a display-only stage) the function computing its
// matrix (core/trace.h, trace.c); the model takes the rest of the row, which the core never expands
// (model/stages.c, matrices.h). Adding a stage is told in the README's "How to add a stage".
#ifndef MHA_STAGE_TABLE_H
#define MHA_STAGE_TABLE_H

// STAGE_TABLE(STAGE, SHOWN): two kinds of rows, in the order of the stages.
//   STAGE(id, key, (model row))                       a stage of the attention computation
//   (trace_run) SHOWN(id, key, compute, (model row), (matrix row)) a display-only stage: computed
//   from a finished trace by
//     the core function `compute` (bool compute(Matrix *out, const Trace *t, const AttnParams *p),
//     defined in core/trace.c, kept in Trace.shown[id]), shown, never fed back; it keeps one
//     layer-level matrix.
// id: the Stage value. key: ASCII and lower case, for file names, --stage, deep links and the
// messages of a failed trace. (model row): StageInfo's columns by name (model/stages.h; one left
// out is 0 or NULL): .name (a message id),
//   .title (a message id, plain text, for exported page titles), .short_name (a message id),
//   .heatmap, .results, .present, .equations, .formula, .explain; the functions are
//   model/stages.c's.
// (matrix row) of a SHOWN stage: its MatId, from and explain (extern functions of model/stages.c,
// whose
//   prototypes the row gives), then MatInfo's columns by name (.key, .symbol, .what, .rows, .cols,
//   .row_axis, .col_axis, .range, .present, .json, .trace; see MAT_ROWS in model/matrices.h); it is
//   not per head, not editable and read from Trace.shown[id]. Its MatId follows the rows of
//   MAT_ROWS, in the order of this table.
// STAGE_MASK exists only for causal lessons, STAGE_ROTATE only with RoPE (their `present`);
// STAGE_NORM_IN, STAGE_RESIDUAL and STAGE_NEXT only for a checkpoint's layer (--model in the
// window: AttnParams.stream).
#define STAGE_TABLE(STAGE, SHOWN)                                                                  \
    STAGE(STAGE_NORM_IN,                                                                           \
          "input-norm", /* a checkpoint's layer: the stream h -> its norm -> X (--model only) */   \
          (.name = N_("Norm"), .title = N_("The norm that makes X"), .short_name = N_("norm"),     \
           .heatmap = MAT_NONE, .results = {MAT_X}, .present = has_norm, .equations = eq_norm_in,  \
           .formula = f_norm_in, .explain = x_norm_in))                                            \
    STAGE(STAGE_INPUT, "input", /* embeddings X (and source S) */                                  \
          (.name = N_("Input"), .title = N_("Input embeddings"), .short_name = N_("X"),            \
           .heatmap = MAT_NONE, .results = {MAT_NONE}, .equations = eq_input, .formula = f_input,  \
           .explain = x_input))                                                                    \
    STAGE(STAGE_POSITIONS, "positions", /* E + P = X (only for lessons with positions) */          \
          (.name = N_("Positions"), .title = N_("Positions E + P"), .short_name = N_("E + P"),     \
           .heatmap = MAT_NONE, .results = {MAT_X}, .present = has_positions,                      \
           .equations = eq_positions, .formula = f_positions, .explain = x_positions))             \
    STAGE(STAGE_PROJECT, "projections", /* Q_i, K_i, V_i */                                        \
          (.name = N_("Projections Q, K, V"), .title = N_("Projections Q, K, V"),                  \
           .short_name = N_("Q K V"), .heatmap = MAT_NONE, .results = {MAT_Q, MAT_K, MAT_V},       \
           .equations = eq_project, .formula = f_project, .explain = x_project))                   \
    STAGE(STAGE_ROTATE, "rotate", /* RoPE: Q_i, K_i rows turned by their positions (rope only) */  \
          (.name = N_("Rotation RoPE"), .title = N_("Rotation RoPE"), .short_name = N_("RoPE"),    \
           .heatmap = MAT_NONE, .results = {MAT_QROT, MAT_KROT}, .present = has_rope,              \
           .equations = eq_rotate, .formula = f_rotate, .explain = x_rotate))                      \
    STAGE(STAGE_SCORES, "scores", /* Q_i K_i^T */                                                  \
          (.name = N_("Scores QK^T"),                                                              \
           .title = N_("Scores Q"                                                                  \
                       "K\xe1\xb5\x80"),                                                           \
           .short_name = N_("QK^T"), .heatmap = MAT_SCORES, .results = {MAT_SCORES},               \
           .equations = eq_scores, .formula = f_scores, .explain = x_scores))                      \
    STAGE(STAGE_SCALE, "scaled", /* / sqrt(d_k) */                                                 \
          (.name = N_("Scaling by "                                                                \
                      "\xe2\x88\x9a"                                                               \
                      "d_k"),                                                                      \
           .title = N_("Scaling \xc3\xb7"                                                          \
                       "\xe2\x88\x9a"                                                              \
                       "d_k"),                                                                     \
           .short_name = N_("\xc3\xb7"                                                             \
                            "\xe2\x88\x9a"                                                         \
                            "d_k"),                                                                \
           .heatmap = MAT_SCALED, .results = {MAT_SCALED}, .equations = eq_scale,                  \
           .formula = f_scale, .explain = x_scale))                                                \
    STAGE(STAGE_MASK, "mask", /* causal mask: -inf above the diagonal */                           \
          (.name = N_("Causal mask"), .title = N_("Causal mask"), .short_name = N_("mask"),        \
           .heatmap = MAT_MASKED, .results = {MAT_MASKED}, .present = is_causal,                   \
           .equations = eq_mask, .formula = f_mask, .explain = x_mask))                            \
    STAGE(STAGE_SOFTMAX, "softmax", /* row-wise softmax */                                         \
          (.name = N_("Softmax"), .title = N_("Softmax"), .short_name = N_("softmax"),             \
           .heatmap = MAT_WEIGHTS, .results = {MAT_WEIGHTS}, .equations = eq_softmax,              \
           .formula = f_softmax, .explain = x_softmax))                                            \
    STAGE(STAGE_WEIGHTED_SUM, "weighted-sum", /* Z_i = A_i V_i */                                  \
          (.name = N_("Weighted sum"),                                                             \
           .title = N_("Weighted sum A"                                                            \
                       "\xc2\xb7"                                                                  \
                       "V"),                                                                       \
           .short_name = N_("AV"), .heatmap = MAT_WEIGHTS, .results = {MAT_Z},                     \
           .equations = eq_weighted, .formula = f_weighted, .explain = x_weighted))                \
    STAGE(STAGE_CONCAT, "concat", /* [Z_0 ... Z_{h-1}] */                                          \
          (.name = N_("Concatenation"), .title = N_("Concatenation"), .short_name = N_("concat"),  \
           .heatmap = MAT_WEIGHTS, .results = {MAT_CONCAT}, .equations = eq_concat,                \
           .formula = f_concat, .explain = x_concat))                                              \
    STAGE(STAGE_OUTPUT, "output", /* concat W_O + b_O */                                           \
          (.name = N_("Output projection W^O"), .title = N_("Output projection W\xe1\xb4\xbc"),    \
           .short_name = N_("W^O"), .heatmap = MAT_WEIGHTS, .results = {MAT_OUTPUT},               \
           .equations = eq_output, .formula = f_output, .explain = x_output))                      \
    STAGE(STAGE_RESIDUAL, "residual", /* a checkpoint's layer: h + Output (--model only) */        \
          (.name = N_("Residual add"), .title = N_("Residual add h + Output"),                     \
           .short_name = N_("h + out"), .heatmap = MAT_NONE, .results = {MAT_RESIDUAL},            \
           .present = has_stream, .equations = eq_residual, .formula = f_residual,                 \
           .explain = x_residual))                                                                 \
    STAGE(STAGE_NEXT,                                                                              \
          "next-token", /* a checkpoint's next token at each position (--model only, not BERT) */  \
          (.name = N_("Next token"), .title = N_("Next-token prediction"),                         \
           .short_name = N_("next"), .heatmap = MAT_NONE, .results = {MAT_NEXT},                   \
           .present = has_next, .equations = eq_next, .formula = f_next, .explain = x_next))

// A row's columns, unwrapped from their parentheses: STAGE_TABLE_COLS (a, b) is a, b.
#define STAGE_TABLE_COLS(...) __VA_ARGS__
// A row with none of its own: for the kind of row a reader skips.
#define STAGE_TABLE_SKIP(...)

#endif
