// Cells and matrix boxes (scene_grid.c): a cell's value and colour, one matrix on the board with
// its window, labels and sizes, drawn with its title, labels and cells.
#ifndef MHA_SCENE_GRID_H
#define MHA_SCENE_GRID_H

#include "render/scene_ctx.h"

// Where a bare box (below) writes its shape: nowhere, after its name ("V₀ᵀ  (4×5)"), or under it.
typedef enum { BARE_SHAPE_NONE, BARE_SHAPE_BESIDE, BARE_SHAPE_UNDER } BareShape;

// One matrix on the board: which, the window of it shown and its cell sizes.
typedef struct {
    MatId mat;
    int head;
    bool result; // this step's result: framed and tagged
    int rows, cols; // the whole matrix
    int r0, nr, c0, nc; // the window shown
    int cell_w, cell_h;
    int label_w; // the row-label column
    double range; // the colour scale: |value| that reaches the ends (shared by its range group)
    bool probabilities; // 0..1 on the sequential map
    const char *title; // instead of the matrix's name (NULL: its name)
    int side_w; // a column right of the cells: each softmax row's entropy in bits (0: none)
    bool labels_cut; // a label of it is cut to fit (cells as wide as their numbers, or a row label
                     // over its column's cap)
    bool turned; // drawn transposed: its rows are the matrix's columns (V^T under A: box_turn)
    bool bare; // no title row, no column labels: the box above's columns are its own; its name in
               // the row-label column
    BareShape bare_shape; // ... and its shape, as a title says it
    bool positions; // every row label with its position ("mat₅"), not only a repeated token's (a
                    // rolling buffer's rows: the decode panel)
} MatBox;

// The board's sizes at its number font.
typedef struct {
    int num_font, label_font, title_font, op_font;
    int title_h, col_label_h, foot_h;
    int gap; // between a matrix and its neighbour
    bool narrow; // cells as wide as their numbers: long token labels are abbreviated instead
    bool tight; // less air in the cells and a narrower label column: a matrix whole rather than
                // windowed
    bool whole_labels; // with tight: the label column stays as wide as its labels (only the cells
                       // lose air)
    bool compact; // ... and less air above and below the numbers (split_level 5)
    bool dense; // ... rows as high as the numbers' size (two outputs on a part of their own)
    bool share_rows; // a matrix right of another across an operator, with the same rows, gives its
                     // row labels to the left one's (the board's last style: an equation together
                     // rather than split)
    bool no_col_labels; // the column labels are the box's above (the decode panel): col_label_h
                        // only clears a result's frame
} GridStyle;

double cell_value(const Ctx *c, CellRef r);
// The colour range of m's range group (computed once a frame).
double group_range(const Ctx *c, MatId m);
// The fill of a cell of m holding v, on a scale whose ends are +-range.
Rgba cell_color(const Ctx *c, MatId m, double v, double range);
// Whether m's values are probabilities, 0..1 on the sequential map (the matrix table's range
// group).
bool prob_matrix(MatId m);
void grid_style(const Ctx *c, GridStyle *g);
// The whole of matrix m (of a head) in a box, cells wide enough for its numbers and labels.
void box_init(const Ctx *c, const GridStyle *g, MatBox *b, MatId m, int head, bool result);
bool box_windowed(const MatBox *b);
// Whether b's title is too wide for it with its shape (then it writes its name alone).
bool box_title_cut(const Ctx *c, const GridStyle *g, const MatBox *b);
// The row-label column a bare box needs: its name beside its rows' labels.
int box_bare_label_w(const Ctx *c, const GridStyle *g, const MatBox *b);
// Whether its name (and the shape under it) fits in the height of its rows.
bool box_bare_name_fits(const Ctx *c, const GridStyle *g, const MatBox *b);
// b drawn transposed (rows and columns swapped: a cell (i, j) of the box is the matrix's (j, i)).
void box_turn(const Ctx *c, const GridStyle *g, MatBox *b);
// The label of row `row` of b as draw_matrix writes it (with its position when b->positions).
void box_row_label(const Ctx *c, const MatBox *b, int row, char *buf, size_t cap);
int box_width(const GridStyle *g, const MatBox *b);
// The thickness of the frame around a result (and around the tile read, the slot written).
int result_rule(const GridStyle *g);
int box_height(const GridStyle *g, const MatBox *b);
// Where the window of a matrix starts: around the focused cell, or the row/column the focus reads.
void box_follow(const Ctx *c, MatBox *b);
// Draws one matrix with its title, labels and cells; (x, y) is the top-left of the box.
void draw_matrix(Ctx *c, const GridStyle *g, const MatBox *b, int x, int y);

#endif
