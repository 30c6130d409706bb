// The board's measures (scene_board.c plans with them): a row's and an arrangement's width and
// height, whether it shows a window, and the windows shrunk until it fits.
#include "render/scene_board.h"
#include "render/scene_text.h"

int op_width(const Ctx *c, const GridStyle *g, const char *op)
{
    // A raised transpose (row_by_rows) hugs the matrix before it: no gap of its own.
    return math_w(c, FONT_BOLD, g->op_font, op) + (op[0] == '^' ? 0 : 2 * g->gap);
}

// A row's width is its operators' (measured text) and its matrices' (their windows): apart, so that
// shrinking windows does not measure the operators again.
static int row_ops_width(const Ctx *c, const GridStyle *g, const BoardRow *r)
{
    int w = 0;
    for (int k = 0; k < r->count; k++)
        if (r->t[k].is_op) w += op_width(c, g, r->t[k].op);
    return w;
}
static int row_boxes_width(const GridStyle *g, const BoardRow *r)
{
    int w = 0;
    for (int k = 0; k < r->count; k++)
        if (!r->t[k].is_op) w += box_width(g, &r->t[k].box) + g->gap;
    return w;
}
int row_width(const Ctx *c, const GridStyle *g, const BoardRow *r)
{
    return row_ops_width(c, g, r) + row_boxes_width(g, r);
}

int row_height(const GridStyle *g, const BoardRow *r)
{
    int h = 0;
    for (int k = 0; k < r->count; k++)
        if (!r->t[k].is_op && box_height(g, &r->t[k].box) > h) h = box_height(g, &r->t[k].box);
    return h;
}

// The arrangement's height; each row's own in heights when it is not NULL (a->count of them).
int arrangement_rows_height(const GridStyle *g, const Arrangement *a, int *heights)
{
    int h = 0;
    for (int r = 0; r < a->count; r++) {
        int rh = row_height(g, &a->rows[r]);
        if (heights) heights[r] = rh;
        h += rh + (r ? g->gap * 2 : 0);
    }
    return h;
}
int arrangement_height(const GridStyle *g, const Arrangement *a)
{
    return arrangement_rows_height(g, a, NULL);
}

// Whether some matrix of the arrangement shows a window of itself.
bool arrangement_windowed(const Arrangement *a)
{
    for (int r = 0; r < a->count; r++)
        for (int k = 0; k < a->rows[r].count; k++)
            if (!a->rows[r].t[k].is_op && box_windowed(&a->rows[r].t[k].box)) return true;
    return false;
}

// The smallest share of its cells that a matrix of the arrangement shows (1: every one whole).
double arrangement_least_share(const Arrangement *a)
{
    double least = 1.0;
    for (int r = 0; r < a->count; r++)
        for (int k = 0; k < a->rows[r].count; k++) {
            const MatBox *b = &a->rows[r].t[k].box;
            if (a->rows[r].t[k].is_op || b->rows * b->cols <= 0) continue;
            double share = (double)b->nr * b->nc / ((double)b->rows * b->cols);
            if (share < least) least = share;
        }
    return least;
}

// Shrinks the windows of the widest and tallest matrices until the arrangement fits (down to 1 x
// 1).
void window_to_fit(const Ctx *c, const GridStyle *g, Arrangement *a, int w, int h)
{
    for (int r = 0; r < a->count; r++) {
        BoardRow *row = &a->rows[r];
        int ops = row_ops_width(c, g, row); // the same at every step: only the windows shrink
        for (int guard = 0; guard < 100000; guard++) {
            int excess = ops + row_boxes_width(g, row) - w;
            if (excess <= 0) break;
            MatBox *widest = NULL;
            for (int k = 0; k < row->count; k++) {
                MatBox *b = &row->t[k].box;
                if (row->t[k].is_op || b->nc <= 1) continue;
                if (!widest || b->nc * b->cell_w > widest->nc * widest->cell_w) widest = b;
            }
            if (!widest) break;
            int cut = excess / widest->cell_w + (excess % widest->cell_w ? 1 : 0);
            // Share the cut with the others when they are as wide: shrink one step at a time then.
            if (cut > widest->nc - 1) cut = widest->nc - 1;
            if (cut < 1) cut = 1;
            int others = 0;
            for (int k = 0; k < row->count; k++)
                if (!row->t[k].is_op && &row->t[k].box != widest
                    && row->t[k].box.nc * row->t[k].box.cell_w
                           > (widest->nc - cut) * widest->cell_w)
                    others++;
            if (others) cut = 1;
            widest->nc -= cut;
        }
    }
    // The rows' heights kept: a step re-measures only the row of the matrix it shrank.
    int heights[BOARD_ROWS], total = arrangement_rows_height(g, a, heights);
    for (int guard = 0; guard < 100000; guard++) {
        int excess = total - h;
        if (excess <= 0) break;
        MatBox *tallest = NULL;
        int in_row = 0;
        for (int r = 0; r < a->count; r++)
            for (int k = 0; k < a->rows[r].count; k++) {
                MatBox *b = &a->rows[r].t[k].box;
                if (a->rows[r].t[k].is_op || b->nr <= 1) continue;
                if (!tallest || b->nr * b->cell_h > tallest->nr * tallest->cell_h)
                    tallest = b, in_row = r;
            }
        if (!tallest) break;
        bool was = box_windowed(tallest);
        tallest->nr -= 1;
        if (!was) tallest->nr -= g->foot_h / tallest->cell_h; // the caption line takes room too
        if (tallest->nr < 1) tallest->nr = 1;
        total -= heights[in_row];
        heights[in_row] = row_height(g, &a->rows[in_row]);
        total += heights[in_row];
    }
    for (int r = 0; r < a->count; r++)
        for (int k = 0; k < a->rows[r].count; k++)
            if (!a->rows[r].t[k].is_op) box_follow(c, &a->rows[r].t[k].box);
}
