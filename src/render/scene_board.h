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
    char caption[48], next[48]; // one sub-step shown: what it computes, and what the next one does
} Arrangement;

int op_width(const Ctx *c, const GridStyle *g, const char *op);
int row_width(const Ctx *c, const GridStyle *g, const BoardRow *r);
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
