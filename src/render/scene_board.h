// The board (scene_board.c): the stage's equations as rows of matrix boxes and operators, fitted
// to the room at the legible size; the stage's main area, the board with its heatmap beside it.
#ifndef MHA_SCENE_BOARD_H
#define MHA_SCENE_BOARD_H

#include "render/scene_grid.h"

// A term of a board row: a matrix, or an operator between matrices.
typedef struct {
    bool is_op;
    MatBox box;
    char op[24];
} BoardTerm;

// One row of the board: its terms from left to right ("A · B = R").
typedef struct {
    BoardTerm t[TERM_MAX];
    int count;
} BoardRow;

#define BOARD_ROWS (EQ_MAX * 2)

// The board as drawn: its rows, and the sub-step shown.
typedef struct {
    BoardRow rows[BOARD_ROWS];
    int count;
    bool narrow; // cells as wide as their numbers: long column labels cut
    bool
        falk; // one product "A · B = C" in Falk's scheme: B above C, A left of C (rows[0] holds it)
    char caption[96], next[96]; // one sub-step shown: what it computes, and what the next one does
} Arrangement;

// Where Falk's scheme puts A, B and C from the arrangement's top-left, and its size.
typedef struct {
    int ax, ay, bx, by, cx, cy, w, h;
} FalkPlace;

// Falk's scheme (scene_products.c): aligns the cells of a's one product "A · B = C" (B's columns
// over C's, A's rows beside C's); false when a is no product.
bool falk_align(Arrangement *a);
FalkPlace falk_place(const GridStyle *g, const Arrangement *a);
void falk_size(const GridStyle *g, const Arrangement *a, int *w, int *h);
void draw_falk(Ctx *c, const GridStyle *g, const Arrangement *a, int x, int y, int w, int h);
// Whether r has a transposed operand (K^T) it could show by rows; and r with each such operand
// shown by rows (K, then a raised "T" after it).
bool row_has_transposed(const BoardRow *r);
void row_by_rows(const Ctx *c, const GridStyle *g, BoardRow *r);
// The row "A · B" as two rows, A above B turned (its columns under A's, the same width); dense:
// rows as high as the numbers' size. False when B's rows are not A's columns.
bool arrangement_turn_under(const Ctx *c, const GridStyle *g, const BoardRow *r, bool dense,
                            BareShape shape, Arrangement *a);

// The measures (scene_arrange.c): an operator's width, a row's width and height, an
// arrangement's height (each row's in heights when not NULL), whether a matrix of it is windowed,
// and the smallest share of its cells a matrix of it shows (1: every one whole).
int op_width(const Ctx *c, const GridStyle *g, const char *op);
int row_width(const Ctx *c, const GridStyle *g, const BoardRow *r);
int row_height(const GridStyle *g, const BoardRow *r);
int arrangement_rows_height(const GridStyle *g, const Arrangement *a, int *heights);
int arrangement_height(const GridStyle *g, const Arrangement *a);
bool arrangement_windowed(const Arrangement *a);
double arrangement_least_share(const Arrangement *a);
// Shrinks the windows of the widest and tallest matrices until the arrangement fits (down to 1 x
// 1).
void window_to_fit(const Ctx *c, const GridStyle *g, Arrangement *a, int w, int h);
// The stage's equations in (x, y, w, h), in sub-steps or windows when they do not fit.
void draw_board(Ctx *c, int x, int y, int w, int h);
// What the floor allows on a board of w x h (the layout audit checks the plan against it).
void scene_board_fits(Ctx *c, int w, int h, SceneFits *fits);
// The board and, where there is room, the stage's heatmap beside it, at the largest legible size.
void draw_stage(Ctx *c, int x, int y, int w, int h);

#endif
