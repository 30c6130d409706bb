// The table of stages: one row per stage (key, name, equation as data, matrices shown, heatmap,
// reveal order, explanation), iterated by the view, the scene, the exporter, the command line and
// the tests. Each row is the model's part of its stage's row of STAGE_TABLE (core/stage_table.h);
// adding a stage is told in the README's "How to add a stage". No SDL.
#ifndef MHA_STAGES_H
#define MHA_STAGES_H

#include <stdbool.h>
#include <stddef.h>
#include "model/matrices.h"

#define TERM_MAX 24
#define EQ_MAX 4

// One term of an equation on the board: a matrix, or an operator between matrices.
typedef struct {
    MatId mat; // MAT_NONE: the operator `op`
    int head; // the matrix's head (per-head matrices)
    bool result; // this stage's result: framed and revealed cell by cell
    char op[24]; // "·", "=", "+", "softmax", "÷ √2", "|"
} Term;

// One row of the board: "A op B = R". A stage has one or more; when they do not fit the screen
// together the board shows them one at a time (sub-steps).
typedef struct {
    Term t[TERM_MAX];
    int count;
    char caption[48]; // what the row computes, for its sub-step: "the queries Q"
} Equation;

typedef struct {
    Stage stage;
    const char *key; // STAGE_TABLE's: ASCII, for file names, --stage and deep links: "scores"
    const char
        *name; // for the board's header and the progress strip, in its notation: "Scores QK^T"
    const char *title; // plain UTF-8, for the titles of exported pages: "Scores QKᵀ" (a message id)
    const char *short_name; // for the progress strip when room is short: "QKᵀ"
    MatId
        heatmap; // the attention-pattern matrix this stage shows beside the board (MAT_NONE: none)
    MatId
        results[3]; // the matrices whose cells the reveal fills, in order (MAT_NONE ends the list)
    bool (*present)(const AttnParams *p); // NULL: every lesson has this stage
    // The board's rows for one head (at most max); returns how many.
    int (*equations)(const AttnParams *p, int head, Equation *out, int max);
    // The stage's formula for the header, in the board's notation ('^' raises what follows).
    void (*formula)(const AttnParams *p, int head, char *buf, size_t cap);
    // One or two plain sentences with the lesson's own sizes.
    void (*explain)(const AttnParams *p, char *buf, size_t cap);
} StageInfo;

const StageInfo *stage_info(Stage s);
// The stages of a lesson in order (the mask only for causal lessons). Returns how many (<=
// STAGE_COUNT).
int model_stages(const AttnParams *p, Stage *out);
// The matrix a stage's one slide (--export --what board, --parts first) shows when the stage comes
// in parts: what the stage brings (the mask M with its band: the first part showed S′
// alone, the scaled stage's result again); MAT_NONE: the first part, as the window opens it.
MatId model_stage_slide_mat(Stage s);
// The first row of the cell a stage's slide works out (it pins the first result cell in that row or
// below): 1 for the rotation (at position 0 nothing turns, so the slide showed Q_rot =
// Q), else 0.
int model_stage_slide_row(Stage s);
// Whether s is one of the stages only a checkpoint's layer has (--model in the window: the norm,
// the residual add, the next token), which no lesson, --stage or export names.
bool model_stage_checkpoint_only(Stage s);
// The heatmap matrix of a stage for this lesson (the table's column). MAT_NONE before the scores.
MatId model_stage_heatmap(const AttnParams *p, Stage s);
// The stage whose key is `key` ("softmax"), or whose heatmap's name it is ("weights": the softmax,
// "masked": the mask): the one look-up of --stage, the page's deep links and the lessons'
// questions; false when there is none (or key is NULL).
bool model_stage_from_key(const char *key, Stage *out);
// What model_stage_from_key accepts among `stages` (with_results: only those with a result), for an
// error: "scores, scaled, softmax, output; or weights = softmax". Returns the length written.
size_t model_stage_names(const Stage *stages, int count, bool with_results, char *buf, size_t cap);

// Cells the stage fills, in reveal order, and the k-th of them (for the current head).
int model_reveal_total(const AttnParams *p, Stage s);
CellRef model_reveal_cell(const AttnParams *p, Stage s, int head, int k);
// The position of c in the reveal order of stage s (-1 when c is not one of its result cells).
int model_reveal_index(const AttnParams *p, Stage s, int head, CellRef c);

#endif
