// The table of logical matrices: one row per matrix the board, the heatmaps, the exports and the tests can
// show (name and symbol, shape, value, axes, per head or not, editable, colour range). No SDL.
// Adding a matrix is a row in matrices.c (and its MatId here).
#ifndef MHA_MATRICES_H
#define MHA_MATRICES_H

#include <stdbool.h>
#include <stddef.h>
#include "../core/trace.h"
#include "../lesson/lesson.h"

// The logical matrices a cell can belong to (what a hover or a reveal points at).
typedef enum {
    MAT_NONE = 0,
    MAT_X, MAT_S,                 // embeddings (queries, keys/values side)
    MAT_WQ, MAT_WK, MAT_WV,       // head weights
    MAT_Q, MAT_K, MAT_V, MAT_KT,  // projections (K^T: K shown transposed)
    MAT_SCORES,                   // Q K^T
    MAT_SCALED,                   // scores / sqrt(d_k), before the mask
    MAT_MASK,                     // 0 or -inf
    MAT_MASKED,                   // scaled + mask
    MAT_WEIGHTS,                  // softmax
    MAT_Z,                        // weights V
    MAT_CONCAT, MAT_WO, MAT_OUTPUT,
    MAT_E, MAT_P,                 // token embeddings and positions, X = E + P (lessons with positions)
    MAT_ES, MAT_PS,               // the source's, Y = E^Y + P^Y (cross-attention with positions)
    MAT_OUTPUT_ALL,               // the output with every head (when heads are switched off)
    MAT_OUTPUT_DIFF,              // what the switched-off heads contribute: output with all - output without
    MAT_COUNT
} MatId;

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
typedef enum { DIM_N = 0, DIM_M, DIM_D_MODEL, DIM_D_K, DIM_H_D_K, DIM_ONE } Dim;

// Matrices of one range group share one colour scale (over every head too), so that the same value has the
// same colour in each: Z_i and Concat; the scores before and after the scaling (the shrink by √d_k shows).
typedef enum {
    RANGE_EMBED = 0, RANGE_WEIGHT, RANGE_QKV, RANGE_SCORES, RANGE_PROB, RANGE_MASK, RANGE_Z, RANGE_OUTPUT,
    RANGE_COUNT
} RangeGroup;

typedef struct {
    MatId id;
    const char *key;       // ASCII, for file names and tests: "scores"
    const char *symbol;    // the symbol in the board's notation: "W^Q" (raised Q), "K^T", "S'"
    const char *what;      // plain words: "raw scores"
    bool per_head;
    bool editable;         // a parameter of the lesson the class may change
    Dim rows, cols;
    Axis row_axis, col_axis;
    RangeGroup range;
    double (*value)(const AttnParams *p, const Trace *t, CellRef c); // c is in range
    Matrix *(*param)(AttnParams *p, int head); // editable matrices: where the value lives; else NULL
    // Computed from what: the input bands cell c was made from (row or col -1: the whole row or column),
    // at most max of them; returns how many. NULL: given by the lesson.
    int (*from)(const AttnParams *p, CellRef c, CellRef *out, int max);
    // NULL: every lesson has it; else whether this lesson does (positions, ablated heads).
    bool (*present)(const AttnParams *p);
} MatInfo;

// The row of a matrix (NULL for MAT_NONE or out of range).
const MatInfo *mat_info(MatId m);
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

// The matrix's name in the board's notation for a head: "Q₀", "K₀^T", "W₀^Q", "S′₀", "A₀", "Concat".
// A '^' raises what follows it (one letter, or up to the next space); everything else is plain UTF-8.
void model_mat_name(MatId m, int head, char *buf, size_t cap);
// The label of index i along an axis: the token ("cat"), with its position as a subscript when the same
// token occurs twice ("the₀", "the₄"); the index for dimensions ("3").
void model_axis_label(const Lesson *L, Axis a, int i, char *buf, size_t cap);

// "0.6111", "−1.2000", "−∞", "1" for exact integers (below 10^5): the 4-decimal form the seed prints.
void model_format_value(double v, char *buf, size_t cap);
// Appends the subscript digits of n to buf.
void model_subscript(char *buf, size_t cap, int n);

#endif
