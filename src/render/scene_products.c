// A product's presentations on the board: Falk's scheme ("A · B = C" with B above C and A left of
// C), and a transposed operand shown by rows ("Q · Kᵀ" as Q beside K: row i of Q · row j of K).
#include "render/scene_board.h"
#include "render/scene_text.h"

// ---------------------------------------------------------------------------------------------------
// Falk's scheme for a product "A · B = C", as textbooks draw it: B above C, A left of C, so each
// cell of C sits in the row of A and the column of B it is made from. Narrower than a row, shorter
// than a stack.

static bool is_product(const BoardRow *r)
{
    return r->count == 5 && !r->t[0].is_op && r->t[1].is_op && !strcmp(r->t[1].op, "\xc2\xb7")
           && !r->t[2].is_op && r->t[3].is_op && !strcmp(r->t[3].op, "=") && !r->t[4].is_op
           && r->t[0].box.nr == r->t[4].box.nr && r->t[2].box.nc == r->t[4].box.nc;
}

// Aligns the cells of a's product (B's columns over C's, A's rows beside C's); false when a is no
// product.
bool falk_align(Arrangement *a)
{
    if (a->count != 1 || !is_product(&a->rows[0])) return false;
    MatBox *A = &a->rows[0].t[0].box, *B = &a->rows[0].t[2].box, *C = &a->rows[0].t[4].box;
    int cw = B->cell_w > C->cell_w ? B->cell_w : C->cell_w,
        ch = A->cell_h > C->cell_h ? A->cell_h : C->cell_h;
    B->cell_w = C->cell_w = cw;
    A->cell_h = C->cell_h = ch;
    a->falk = true;
    return true;
}

FalkPlace falk_place(const GridStyle *g, const Arrangement *a)
{
    const MatBox *A = &a->rows[0].t[0].box, *B = &a->rows[0].t[2].box, *C = &a->rows[0].t[4].box;
    int wa = box_width(g, A), cgrid = wa + g->gap * 2 + C->label_w; // C's cells start here
    int left = cgrid - B->label_w < 0 ? -(cgrid - B->label_w)
                                      : 0; // B's labels wider than A and C's: all move right
    FalkPlace f;
    f.ax = left;
    f.cx = left + wa + g->gap * 2;
    f.bx = left + cgrid - B->label_w;
    f.by = 0;
    f.ay = f.cy = box_height(g, B) + g->gap; // A and C (and their titles) under B
    int right = f.cx + box_width(g, C), rb = f.bx + box_width(g, B);
    f.w = right > rb ? right : rb;
    int ha = box_height(g, A), hc = box_height(g, C);
    f.h = f.cy + (ha > hc ? ha : hc);
    return f;
}

void falk_size(const GridStyle *g, const Arrangement *a, int *w, int *h)
{
    FalkPlace f = falk_place(g, a);
    *w = f.w, *h = f.h;
}

void draw_falk(Ctx *c, const GridStyle *g, const Arrangement *a, int x, int y, int w, int h)
{
    FalkPlace f = falk_place(g, a);
    int ax = f.ax, ay = f.ay, bx = f.bx, by = f.by, cx = f.cx, cy = f.cy, fw = f.w, fh = f.h;
    int x0 = x + (w - fw) / 2, y0 = y + (h - fh) / 2;
    if (x0 < x) x0 = x;
    if (y0 < y) y0 = y;
    const BoardRow *r = &a->rows[0];
    draw_matrix(c, g, &r->t[0].box, x0 + ax, y0 + ay);
    draw_matrix(c, g, &r->t[2].box, x0 + bx, y0 + by);
    draw_matrix(c, g, &r->t[4].box, x0 + cx, y0 + cy);
    // The product's sign in the empty corner: A · B, read from the left and from above.
    int ow = math_w(c, FONT_BOLD, g->op_font, r->t[1].op), oh = line_h(c, FONT_BOLD, g->op_font);
    int cx_ = x0 + ax + box_width(g, &r->t[0].box) - ow, cy_ = y0 + ay - oh;
    if (cy_ > y0 && cx_ > x0)
        math_at(c, FONT_BOLD, g->op_font, c->th->muted, cx_, cy_ - g->gap / 2, r->t[1].op);
}

// ---------------------------------------------------------------------------------------------------
// A transposed operand by rows: K^T (d_k x n) is as wide as n numbers, K (n x d_k) as d_k of them.
// Beside Q, K's rows are what the product reads (S[i, j] = row i of Q · row j of K); the "^T"
// after it says that the product takes it transposed.

bool row_has_transposed(const BoardRow *r)
{
    for (int k = 0; k < r->count; k++)
        if (!r->t[k].is_op && model_mat_untransposed(r->t[k].box.mat) != MAT_NONE) return true;
    return false;
}

void row_by_rows(const Ctx *c, const GridStyle *g, BoardRow *r)
{
    for (int k = 0; k < r->count && r->count < TERM_MAX; k++) {
        BoardTerm *t = &r->t[k];
        MatId m = t->is_op ? MAT_NONE : model_mat_untransposed(t->box.mat);
        if (m == MAT_NONE) continue;
        box_init(c, g, &t->box, m, t->box.head, t->box.result);
        memmove(&r->t[k + 2], &r->t[k + 1], (size_t)(r->count - k - 1) * sizeof r->t[0]);
        memset(&r->t[k + 1], 0, sizeof r->t[0]);
        r->t[k + 1].is_op = true;
        snprintf(r->t[k + 1].op, sizeof r->t[k + 1].op, "^T");
        r->count++;
        k++;
    }
}

// ---------------------------------------------------------------------------------------------------
// "A · B" with B turned under A, where B's rows are A's columns (V's rows are the keys of A's
// columns): B^T's columns stand under A's, cell under cell, and row i of A meets row d of B^T
// column by column. B^T has no title row and no column labels of its own (A's are its columns);
// dense: rows as high as the numbers' size (two matrices in the height of one); shape: where B's
// shape is written beside its name. False where its name does not fit beside its rows.

bool arrangement_turn_under(const Ctx *c, const GridStyle *g, const BoardRow *r, bool dense,
                            BareShape shape, Arrangement *a)
{
    if (r->count != 3 || r->t[0].is_op || !r->t[1].is_op || r->t[2].is_op) return false;
    const MatInfo *ia = mat_info(r->t[0].box.mat), *ib = mat_info(r->t[2].box.mat);
    if (!ia || !ib || ia->col_axis != ib->row_axis || r->t[0].box.cols != r->t[2].box.rows
        || box_windowed(&r->t[0].box) || box_windowed(&r->t[2].box))
        return false;
    memset(a, 0, sizeof *a);
    a->count = 2;
    a->rows[0].count = a->rows[1].count = 1;
    a->rows[0].t[0] = r->t[0];
    a->rows[1].t[0] = r->t[2];
    MatBox *top = &a->rows[0].t[0].box, *low = &a->rows[1].t[0].box;
    box_turn(c, g, low);
    low->bare = true;
    low->bare_shape = shape;
    low->label_w = box_bare_label_w(c, g, low);
    int cw = top->cell_w > low->cell_w ? top->cell_w : low->cell_w;
    int lw = top->label_w > low->label_w ? top->label_w : low->label_w;
    top->cell_w = low->cell_w = cw;
    top->label_w = low->label_w = lw;
    if (dense) top->cell_h = low->cell_h = g->num_font;
    return box_bare_name_fits(c, g, low);
}
