// Matrix grids: one matrix of the board in a box (title, row and column labels, coloured cells with
// their numbers, edit marks, lit input bands, a window that follows the focus), and the colours of
// its cells.
#include "render/scene_grid.h"
#include "render/scene_text.h"
#include "model/view.h"

// Every number on the board is drawn at one legible size (Ctx.num_font, 3.9 % of the
// window height times the zoom); a matrix too big for the room shows a window of its rows and
// columns, with where it is ("columns 0–7 of 768"), that follows the focused cell. Numbers never
// shrink away.

static bool per_head_mat(MatId m)
{
    const MatInfo *mi = mat_info(m);
    return mi && mi->per_head;
}

double cell_value(const Ctx *c, CellRef r) { return model_cell_value(&c->L->params, c->T, r); }

double group_range(const Ctx *c, MatId m)
{
    const MatInfo *mi = mat_info(m);
    if (!mi) return 1.0;
    if (c->memo.ranges[mi->range] <= 0.0)
        ((Ctx *)c)->memo.ranges[mi->range] = model_range(&c->L->params, c->T, mi->range);
    return c->memo.ranges[mi->range];
}

bool prob_matrix(MatId m)
{
    const MatInfo *mi = mat_info(m);
    return mi && mi->range == RANGE_PROB;
}

// A matrix whose columns are the heads' parts side by side (the table's AXIS_HEAD_DIM: Concat).
static bool head_columns(MatId m)
{
    const MatInfo *mi = mat_info(m);
    return mi && mi->col_axis == AXIS_HEAD_DIM;
}

Rgba cell_color(const Ctx *c, MatId m, double v, double range)
{
    const MatInfo *mi = mat_info(m);
    if (isinf(v)) return c->th->masked_bg;
    if (prob_matrix(m)) return colormap_rgb(c->st->colormap, v);
    if (mi && mi->range == RANGE_MASK)
        return c->th->page_cell; // the mask's zeros: the page (its -inf hatched)
    return colormap_diverging(c->st->colormap, v / range);
}

void grid_style(const Ctx *c, GridStyle *g)
{
    int f = c->num_font;
    g->num_font = f;
    // Labels and titles the class reads too: 0.8 of the numbers, never under the back row's floor.
    int floor = c->s ? scene_number_floor(c->s->height) : 0;
    if (floor > f) floor = f; // a board zoomed out (key -) shrinks them all alike
    g->label_font = (int)lround(f * 0.8) > floor ? (int)lround(f * 0.8) : floor;
    g->title_font = g->label_font;
    g->op_font = (int)lround(f * 1.1);
    g->title_h = line_h(c, FONT_BOLD, g->title_font) + f / 5;
    g->col_label_h = line_h(c, FONT_REGULAR, g->label_font) + f / 8
                     + 3 * (f / 7 < 3 ? 3 : f / 7); // + result_pad
    g->foot_h = line_h(c, FONT_REGULAR, g->label_font) + f / 3;
    g->gap = (int)lround(f * 0.45);
    g->narrow = false;
    g->no_col_labels = false;
    g->tight = c->split_level >= 4;
    g->whole_labels = false;
    g->compact = c->split_level >= 5;
    g->dense = false;
}

// The widest number of a matrix at the number font: from its largest magnitude, sign and
// integer-ness.
static int widest_number(const Ctx *c, const GridStyle *g, MatId m, int head, int rows, int cols)
{
    double big = 0.0;
    bool neg = false, ints = true, inf = false, found = false;
    Ctx *cc = (Ctx *)c; // the cache only
    for (int i = 0; i < c->memo.num_count && !found; i++)
        if (c->memo.nums[i].m == m && c->memo.nums[i].head == head) {
            big = c->memo.nums[i].big;
            neg = c->memo.nums[i].neg;
            ints = c->memo.nums[i].ints;
            inf = c->memo.nums[i].inf;
            found = true;
        }
    size_t count = found ? 0 : (size_t)rows * (size_t)cols,
           step = count > 200000 ? count / 200000 : 1;
    const Matrix *whole =
        count ? model_mat_whole(&c->L->params, c->T, m, head) : NULL; // its cells, read directly
    for (size_t k = 0; k < count; k += step) {
        double v = whole ? whole->data[k]
                         : cell_value(c, (CellRef){m, head, (int)(k / (size_t)cols),
                                                   (int)(k % (size_t)cols)});
        if (isinf(v)) {
            inf = true;
            continue;
        }
        if (!isfinite(v)) continue;
        if (fabs(v) > big) big = fabs(v);
        if (v < 0) neg = true;
        if (v != floor(v)) ints = false;
    }
    if (!found && cc->memo.num_count < (int)(sizeof cc->memo.nums / sizeof cc->memo.nums[0]))
        cc->memo.nums[cc->memo.num_count++] = (struct NumStats){m, head, big, neg, ints, inf};
    char buf[64];
    // A number as wide as the widest: big + 0.5 (one more digit when rounding carries), never an
    // exact integer when the values are not (1.5 + 0.5 would print "2", as narrow as an integer,
    // and cut "1.5000").
    double wide = big + 0.5;
    if (wide == floor(wide)) wide += 0.0001;
    model_format_value(ints ? (neg ? -big : big) : (neg ? -wide : wide), buf, sizeof buf);
    if (!ints && big < 1.0) model_format_value(neg ? -0.5555 : 0.5555, buf, sizeof buf);
    int w = text_w(c, FONT_REGULAR, g->num_font, buf);
    if (inf) {
        int wi = text_w(c, FONT_REGULAR, g->num_font, "\xe2\x88\x92\xe2\x88\x9e");
        if (wi > w) w = wi;
    }
    return w;
}

// The widest of labels 0 .. count-1 of an axis at a label size (kept in the context: the same for
// every layout).
static int widest_label(const Ctx *c, Axis axis, int size, int count)
{
    Ctx *cc = (Ctx *)c; // the cache only
    for (int k = 0; k < c->memo.label_w_count; k++) {
        const struct LabelWidth *e = &c->memo.label_ws[k];
        if (e->axis == (int)axis && e->size == size && e->count == count) return e->w;
    }
    int w = 0;
    char buf[160];
    for (int i = 0; i < count; i++) {
        model_axis_label(c->L, axis, i, buf, sizeof buf);
        int tw = text_w(c, FONT_REGULAR, size, buf);
        if (tw > w) w = tw;
    }
    if (cc->memo.label_w_count < (int)(sizeof cc->memo.label_ws / sizeof cc->memo.label_ws[0]))
        cc->memo.label_ws[cc->memo.label_w_count++] =
            (struct LabelWidth){(int)axis, size, count, w};
    return w;
}

// The result's frame: its thickness, and the room it takes outside the cells.
int result_rule(const GridStyle *g) { return g->num_font / 7 < 3 ? 3 : g->num_font / 7; }
static int result_pad(const GridStyle *g) { return 3 * result_rule(g); }

void box_init(const Ctx *c, const GridStyle *g, MatBox *b, MatId m, int head, bool result)
{
    memset(b, 0, sizeof *b);
    b->mat = m;
    b->head = head;
    b->result = result;
    model_mat_shape(&c->L->params, m, &b->rows, &b->cols);
    b->nr = b->rows;
    b->nc = b->cols;
    b->range = group_range(c, m);
    b->probabilities = prob_matrix(m);
    // Compact rows: a little less air above and below the numbers, their size kept (8
    // rows of a RoPE lesson under the scale slider, or under a question, missed the board's height
    // by a few pixels at the floor).
    b->cell_h = line_h(c, FONT_REGULAR, g->num_font) + g->num_font / (g->compact ? 8 : 3);
    if (g->dense) b->cell_h = g->num_font; // digits of 0.72 of it: a sixth of a row between two
    int w = widest_number(c, g, m, head, b->rows, b->cols)
            + (int)lround(g->num_font * (g->tight ? 0.25 : 0.5));
    // Every column label must fit too: token labels are cut only beyond 4 row heights, and in
    // dense rows (as low as the numbers) never narrower than the numbers.
    const MatInfo *mi = mat_info(m);
    if (mi->col_axis != AXIS_DIM) {
        int cols = b->cols < 64 ? b->cols : 64, nw = w;
        int lw =
            cols > 0 ? widest_label(c, mi->col_axis, g->label_font, cols) + g->num_font / 4 : 0;
        b->labels_cut = g->narrow && lw > w + 2; // narrow cells cut the labels wider than them
        if (lw > w && !g->narrow) w = lw;
        int cap = g->dense && 4 * b->cell_h < nw ? nw : 4 * b->cell_h;
        if (w > cap) w = cap > b->cell_h ? cap : b->cell_h;
    }
    b->cell_w = w > b->cell_h ? w : b->cell_h;
    // Row labels.
    int lw = widest_label(c, mi->row_axis, g->label_font, b->rows < 600 ? b->rows : 600);
    int cap = (g->tight && !g->whole_labels ? 3 : 5) * g->num_font;
    if (lw > cap) b->labels_cut = true;
    // Clear of the frame a result has, and of the focus frame any matrix's lit row can get: a label
    // never touches a border (Arabic and Hebrew labels end at their first letter, whose ink reaches
    // its edge).
    b->label_w = (lw > cap ? cap : lw) + g->num_font / 3 + result_pad(g);
    // The softmax's result: each row's entropy beside it, so the class sees rows go one-hot as the
    // scale grows.
    if (b->probabilities && result && view_stage(c->st) == STAGE_SOFTMAX && c->T
        && head < c->T->heads && c->T->head[head].entropy.data) {
        int ew = text_w(c, FONT_REGULAR, g->num_font, "0.0000"),
            hw = text_w(c, FONT_REGULAR, g->label_font, TR("bits"));
        b->side_w = result_pad(g) + g->num_font / 2 + (ew > hw ? ew : hw);
    }
}

void box_turn(const Ctx *c, const GridStyle *g, MatBox *b)
{
    int t = b->rows;
    b->rows = b->cols, b->cols = t;
    t = b->nr, b->nr = b->nc, b->nc = t;
    t = b->r0, b->r0 = b->c0, b->c0 = t;
    b->turned = true;
    const MatInfo *mi = mat_info(b->mat);
    b->label_w = widest_label(c, mi->col_axis, g->label_font, b->rows < 600 ? b->rows : 600)
                 + g->num_font / 3 + result_pad(g);
}

void box_row_label(const Ctx *c, const MatBox *b, int row, char *buf, size_t cap)
{
    Axis a = b->turned ? mat_info(b->mat)->col_axis : mat_info(b->mat)->row_axis;
    model_axis_label(c->L, a, row, buf, cap);
    char *const *tokens = a == AXIS_QUERY ? c->L->tokens
                          : a == AXIS_KEY ? c->L->source_tokens
                                          : NULL;
    if (b->positions && tokens && tokens[row] && strcmp(buf, tokens[row]) == 0)
        model_subscript(buf, cap, row);
}

bool box_windowed(const MatBox *b) { return b->nr < b->rows || b->nc < b->cols; }
int box_width(const GridStyle *g, const MatBox *b)
{
    (void)g;
    return b->label_w + b->nc * b->cell_w + b->side_w;
}
// A window's caption: one line per windowed axis ("rows 0–8 of 512", "cols 0–1 of 64"); none
// under a bare box, whose rows its caller names (a tile's rows of V: "P·V[2–3]").
static int caption_lines(const MatBox *b)
{
    return b->bare ? 0 : (b->nr < b->rows) + (b->nc < b->cols);
}
int box_height(const GridStyle *g, const MatBox *b)
{
    int lines = caption_lines(b);
    return (b->bare ? 0 : g->title_h + g->col_label_h) + b->nr * b->cell_h
           + (lines ? g->foot_h + (lines - 1) * (g->foot_h * 2 / 3) : 0);
}

// The lit band l as b's own cells (row, col; -1 for a whole axis): a band of K^T lights K's row on
// a board that shows K by rows. False when l is not on b.
static bool lit_on(const MatBox *b, const CellRef *l, int *row, int *col)
{
    bool turned = l->mat != b->mat && model_mat_untransposed(l->mat) == b->mat;
    if ((l->mat != b->mat && !turned) || (per_head_mat(b->mat) && l->head != b->head)) return false;
    turned = turned != b->turned;
    *row = turned ? l->col : l->row;
    *col = turned ? l->row : l->col;
    return true;
}

// Where the window of a matrix starts: around the focused cell, or the row/column the focus reads.
void box_follow(const Ctx *c, MatBox *b)
{
    int want_r = -1, want_c = -1;
    for (int k = 0; k < c->lit_count; k++) {
        int row, col;
        if (!lit_on(b, &c->lit[k], &row, &col)) continue;
        if (row >= 0) want_r = row;
        if (col >= 0) want_c = col;
    }
    if (head_columns(b->mat) && c->focus.mat == MAT_Z && want_c < 0)
        want_c = c->focus.head * c->L->params.d_k;
    b->r0 = want_r < 0 ? 0 : want_r - b->nr / 2;
    b->c0 = want_c < 0 ? 0 : want_c - b->nc / 2;
    if (b->r0 + b->nr > b->rows) b->r0 = b->rows - b->nr;
    if (b->c0 + b->nc > b->cols) b->c0 = b->cols - b->nc;
    if (b->r0 < 0) b->r0 = 0;
    if (b->c0 < 0) b->c0 = 0;
}

// Where a matrix is drawn: its box's top-left (x, y) and its grid of cells (gx, gy, gw, gh).
typedef struct {
    int x, y, gx, gy, gw, gh;
} MatrixAt;

// The title over the cells: the name and shape (the name alone where both do not fit), and the
// box's record for the layout audit and the screen reader.
// b's name as its title writes it, and the title with its shape.
static void box_names(const Ctx *c, const MatBox *b, char *title, char *name)
{
    // Turned: K^T's rows are K's (its own name), V's are V^T's.
    MatId plain = b->turned ? model_mat_untransposed(b->mat) : MAT_NONE;
    model_mat_name(&c->L->params, plain != MAT_NONE ? plain : b->mat, b->head, name, 96);
    if (b->title) snprintf(name, 96, "%s", b->title);
    // A head switched off (key O): its own matrices say so; its columns of Concat are hatched
    // below.
    if (per_head_mat(b->mat) && params_ablated(&c->L->params, b->head))
        snprintf(name + strlen(name), 96 - strlen(name), "%s", TRC("a matrix", " off"));
    if (b->turned && plain == MAT_NONE) snprintf(name + strlen(name), 96 - strlen(name), "^T");
    snprintf(title, 160, "%s  (%d%s%d)", name, b->rows, SCENE_TIMES, b->cols);
}

// What a bare box writes left of its rows: its name, or its name and shape (shape: the shape
// alone, under the name, or "").
static const char *bare_name(const MatBox *b, const char *title, const char *name,
                             const char **shape)
{
    *shape = b->bare_shape == BARE_SHAPE_UNDER ? title + strlen(name) + 2 : "";
    return b->bare_shape == BARE_SHAPE_BESIDE ? title : name;
}

bool box_title_cut(const Ctx *c, const GridStyle *g, const MatBox *b)
{
    char title[160], name[96];
    box_names(c, b, title, name);
    FontRole tf = b->result ? FONT_BOLD : FONT_REGULAR;
    return !b->bare && math_w(c, tf, g->title_font, title) > b->nc * b->cell_w + b->label_w;
}

int box_bare_label_w(const Ctx *c, const GridStyle *g, const MatBox *b)
{
    char title[160], name[96];
    box_names(c, b, title, name);
    FontRole tf = b->result ? FONT_BOLD : FONT_REGULAR;
    const char *shape, *first = bare_name(b, title, name, &shape);
    int w = math_w(c, tf, g->title_font, first), ws = math_w(c, tf, g->title_font, shape);
    return (w > ws ? w : ws) + g->num_font / 4 + b->label_w;
}

// Whether a bare box's name (and its shape under it) fits beside its rows.
bool box_bare_name_fits(const Ctx *c, const GridStyle *g, const MatBox *b)
{
    FontRole tf = b->result ? FONT_BOLD : FONT_REGULAR;
    int lines = b->bare_shape == BARE_SHAPE_UNDER ? 2 : 1;
    return lines * line_h(c, tf, g->title_font) <= b->nr * b->cell_h;
}

static void matrix_title(Ctx *c, const GridStyle *g, const MatBox *b, const MatrixAt *at)
{
    char title[160], name[96];
    int x = at->x, y = at->y, gx = at->gx, gw = at->gw;
    box_names(c, b, title, name);
    FontRole tf = b->result ? FONT_BOLD : FONT_REGULAR;
    Rgba tcol = b->result ? c->th->result : c->th->ink;
    const char *pick = math_w(c, tf, g->title_font, title) <= gw + b->label_w ? title : name;
    int tw = math_w(c, tf, g->title_font, pick);
    int tx = tw <= gw ? gx + (gw - tw) / 2 : gx + gw - tw;
    if (tx < x) tx = x;
    if (b->bare) // in the row-label column, left of the rows' labels
    {
        const char *shape, *first = bare_name(b, title, name, &shape);
        math_at(c, tf, g->title_font, tcol, x, at->gy, first);
        if (*shape)
            math_at(c, tf, g->title_font, tcol, x, at->gy + line_h(c, tf, g->title_font), shape);
    } else if (g->title_h > 0) // 0: the caller writes the name beside the box (the decode panel)
        math_at(c, tf, g->title_font, tcol, tx, y + (g->title_h - line_h(c, tf, g->title_font)) / 2,
                pick);
    bool t = b->turned; // the record is the matrix's own rows and columns
    SceneBox rec = {b->mat,
                    b->head,
                    t ? b->cols : b->rows,
                    t ? b->rows : b->cols,
                    t ? b->c0 : b->r0,
                    t ? b->nc : b->nr,
                    t ? b->r0 : b->c0,
                    t ? b->nr : b->nc,
                    x,
                    y,
                    box_width(g, b),
                    box_height(g, b),
                    g->num_font,
                    b->result,
                    ""};
    snprintf(rec.title, sizeof rec.title, "%s", name);
    scene_push_box(c->s, &rec);
}

// Every column label and row label, cut to its cell when it must be.
static void matrix_labels(Ctx *c, const GridStyle *g, const MatBox *b, const MatrixAt *at)
{
    char buf[160], fitted[160];
    int gx = at->gx, gy = at->gy;
    const MatInfo *mi = mat_info(b->mat);
    for (int j = 0; j < b->nc && !g->no_col_labels && !b->bare; j++) {
        model_axis_label(c->L, b->turned ? mi->row_axis : mi->col_axis, b->c0 + j, buf, sizeof buf);
        fit_label(c, FONT_REGULAR, g->label_font, buf, b->cell_w - 2, fitted, sizeof fitted);
        if (text_in(c, FONT_REGULAR, g->label_font, c->th->muted,
                    (Box){gx + j * b->cell_w, gy - g->col_label_h, b->cell_w,
                          g->col_label_h - result_pad(g)},
                    CENTER, fitted)
            > 0) // clear of a result's frame
            tag_last(c, ROLE_LABEL, (CellRef){b->mat, b->head, -1, b->c0 + j});
    }
    for (int i = 0; i < b->nr && b->label_w > 0;
         i++) { // label_w 0: the rows are labelled by the box beside
        box_row_label(c, b, b->r0 + i, buf, sizeof buf);
        int pad = g->num_font / 4 + result_pad(g);
        fit_label(c, FONT_REGULAR, g->label_font, buf, b->label_w - pad - g->num_font / 12, fitted,
                  sizeof fitted);
        if (text_in(c, FONT_REGULAR, g->label_font, c->th->muted,
                    (Box){at->x, gy + i * b->cell_h, b->label_w - pad, b->cell_h}, RIGHT, fitted)
            > 0)
            tag_last(c, ROLE_LABEL, (CellRef){b->mat, b->head, b->r0 + i, -1});
    }
}

// One cell at (x0, y0): hidden until revealed (then it answers a question's click), else its colour
// and number, hatched for -∞ and a switched-off head, framed where the teacher edited it.
static void matrix_cell(Ctx *c, const GridStyle *g, const MatBox *b, CellRef ref, int x0, int y0,
                        bool editable)
{
    char buf[160];
    int cw = b->cell_w - 1, ch = b->cell_h - 1;
    if (b->result && !view_cell_revealed(c->st, ref)) {
        rect(c, x0, y0, cw, ch, c->th->empty);
        // A question waiting for a click: the hidden cell answers it (and explains nothing).
        scene_push_hit(c->s, x0, y0, b->cell_w, b->cell_h,
                       c->st->quiz_phase == QUIZ_ASKING ? ref : (CellRef){MAT_NONE, 0, 0, 0}, -1);
        return;
    }
    double v = cell_value(c, ref);
    Rgba bgc = cell_color(c, b->mat, v, b->range);
    cell_rect(c, x0, y0, cw, ch, bgc, ref);
    if (isinf(v)
        || (head_columns(b->mat) && c->L->params.d_k > 0
            && params_ablated(&c->L->params, ref.col / c->L->params.d_k)))
        scene_push(c->s, CMD_HATCH, x0, y0, cw, ch, c->th->hatch);
    else if (c->st->colormap == COLORMAP_GREY && v < 0 && !b->probabilities)
        frame(c, x0 + 2, y0 + 2, cw - 4, ch - 4, 1, c->th->ink); // the sign, without colour
    model_format_value(v, buf, sizeof buf);
    if (text_in(c, FONT_REGULAR, g->num_font, isinf(v) ? c->th->ink : colormap_text_on(bgc),
                (Box){x0, y0, cw, ch}, CENTER, buf)
        > 0)
        tag_last(c, ROLE_NUMBER, ref);
    if (editable && view_param_edited(c->ex->original, &c->L->params, ref)) {
        int t = px(c, 3) < 3 ? 3 : px(c, 3);
        frame(c, x0, y0, cw, ch, t, c->th->edited);
        int k = ch / 3;
        rect(c, x0 + cw - k, y0, k, k, c->th->edited);
    }
    scene_push_hit(c->s, x0, y0, b->cell_w, b->cell_h, ref, -1);
}

// Cells on a grid of white lines inside a thin frame; the page is darker than a zero cell.
static void matrix_cells(Ctx *c, const GridStyle *g, const MatBox *b, const MatrixAt *at)
{
    int gx = at->gx, gy = at->gy, gw = at->gw, gh = at->gh;
    rect(c, gx - 1, gy - 1, gw + 1, gh + 1, c->th->grid);
    if (!b->result) frame(c, gx - 2, gy - 2, gw + 3, gh + 3, 1, c->th->muted);
    bool editable = c->ex->original && view_mat_editable(b->mat);
    for (int i = 0; i < b->nr; i++)
        for (int j = 0; j < b->nc; j++)
            matrix_cell(c, g, b,
                        b->turned ? (CellRef){b->mat, b->head, b->c0 + j, b->r0 + i}
                                  : (CellRef){b->mat, b->head, b->r0 + i, b->c0 + j},
                        gx + j * b->cell_w, gy + i * b->cell_h, editable);
}

// Lit input bands and the focused cell (after the cells so they sit on top).
static void matrix_lit(Ctx *c, const MatBox *b, const MatrixAt *at)
{
    int gx = at->gx, gy = at->gy;
    int t = c->num_font / 8 < 3 ? 3 : c->num_font / 8;
    for (int k = 0; k < c->lit_count; k++) {
        int row, col;
        if (!lit_on(b, &c->lit[k], &row, &col)) continue;
        int r0 = row < 0 ? b->r0 : row, r1 = row < 0 ? b->r0 + b->nr : row + 1;
        int c0 = col < 0 ? b->c0 : col, c1 = col < 0 ? b->c0 + b->nc : col + 1;
        if (r0 < b->r0 || c0 < b->c0 || r1 > b->r0 + b->nr || c1 > b->c0 + b->nc) continue;
        int x0 = gx + (c0 - b->c0) * b->cell_w, x1 = gx + (c1 - b->c0) * b->cell_w;
        int y0 = gy + (r0 - b->r0) * b->cell_h, y1 = gy + (r1 - b->r0) * b->cell_h;
        frame(c, x0 - t, y0 - t, x1 - x0 + 2 * t, y1 - y0 + 2 * t, t, c->th->focus);
    }
}

// Entropy in bits of each row shown, beside it: -sum A log2 A, from the trace; a row once it is
// revealed whole.
static void matrix_entropy(Ctx *c, const GridStyle *g, const MatBox *b, const MatrixAt *at)
{
    char buf[160];
    int gy = at->gy;
    int ex = at->gx + at->gw + result_pad(g) + g->num_font / 2,
        ew = b->side_w - result_pad(g) - g->num_font / 2;
    text_in(c, FONT_REGULAR, g->label_font, c->th->muted,
            (Box){ex, gy - g->col_label_h, ew, g->col_label_h - result_pad(g)}, CENTER, TR("bits"));
    const Matrix *ent = &c->T->head[b->head].entropy;
    for (int i = 0; i < b->nr; i++) {
        CellRef ref = {b->mat, b->head, b->r0 + i, 0};
        if (b->r0 + i >= ent->rows || !view_cell_revealed(c->st, ref))
            continue; // a row still being revealed
        bool whole = true;
        for (int j = 0; j < b->cols && whole; j++)
            whole = view_cell_revealed(c->st, (CellRef){b->mat, b->head, b->r0 + i, j});
        if (!whole) continue;
        model_format_value(mat_get(ent, b->r0 + i, 0), buf, sizeof buf);
        text_in(c, FONT_REGULAR, g->num_font, c->th->ink,
                (Box){ex, gy + i * b->cell_h, ew, b->cell_h}, RIGHT, buf);
    }
}

// A window's caption under it, from cy: which rows and columns it shows, smaller rather than cut
// (it says where the window is).
static void matrix_caption(Ctx *c, const GridStyle *g, const MatBox *b, const MatrixAt *at, int cy)
{
    char where[2][96];
    int lines = 0, room = at->gw + b->label_w;
    if (b->nr < b->rows)
        snprintf(where[lines++], sizeof where[0], TR("rows %d\xe2\x80\x93%d of %d"), b->r0,
                 b->r0 + b->nr - 1, b->rows);
    if (b->nc < b->cols)
        snprintf(where[lines++], sizeof where[0], TR("cols %d\xe2\x80\x93%d of %d"), b->c0,
                 b->c0 + b->nc - 1, b->cols);
    int lh2 = line_h(c, FONT_REGULAR, g->label_font);
    for (int k = 0; k < lines; k++) {
        int size = g->label_font;
        while (size > 8 && text_w(c, FONT_REGULAR, size, where[k]) > room) size--;
        text_in(c, FONT_REGULAR, size, c->th->result, (Box){at->x, cy, room, lh2}, RIGHT, where[k]);
        cy += g->foot_h * 2 / 3;
    }
}

// Draws one matrix with its title, labels and cells; (x, y) is the top-left of the box.
void draw_matrix(Ctx *c, const GridStyle *g, const MatBox *b, int x, int y)
{
    MatrixAt at = {x,
                   y,
                   x + b->label_w,
                   y + (b->bare ? 0 : g->title_h + g->col_label_h),
                   b->nc * b->cell_w,
                   b->nr * b->cell_h};
    matrix_title(c, g, b, &at);
    matrix_labels(c, g, b, &at);
    matrix_cells(c, g, b, &at);
    matrix_lit(c, b, &at);
    int rt = result_rule(g);
    if (b->result)
        frame(c, at.gx - 2 * rt, at.gy - 2 * rt, at.gw + 4 * rt, at.gh + 4 * rt, rt, c->th->result);
    if (b->side_w > 0) matrix_entropy(c, g, b, &at);
    if (caption_lines(b)) matrix_caption(c, g, b, &at, at.gy + at.gh + rt * 3);
}

// ---------------------------------------------------------------------------------------------------
// The board: the stage's equations (stage table) laid out at the legible size. Arrangements are
// tried in order: every equation in one row each; each "A op B" stacked above "= R"; one equation
// at a time (sub-steps, the keys step through them); and only then windows of the matrices that do
// not fit.
