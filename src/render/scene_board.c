// The board: the stage's equations (the stage table's rows) as matrices and operators, arranged to fit at the
// legible size; and the stage's main area, the board with the heatmap beside it where there is room.
#include "scene_ctx.h"
#include "../model/view.h"

// The board: the stage's equations (stage table) laid out at the legible size. Arrangements are tried in
// order: every equation in one row each; each "A op B" stacked above "= R"; one equation at a time
// (sub-steps, the keys step through them); and only then windows of the matrices that do not fit.

static void row_from_equation(const Ctx *c, const GridStyle *g, const Equation *e, int from, int to, BoardRow *r)
{
    memset(r, 0, sizeof *r);
    for (int k = from; k < to && r->count < TERM_MAX; k++) {
        BoardTerm *t = &r->t[r->count++];
        if (e->t[k].mat == MAT_NONE) {
            t->is_op = true;
            snprintf(t->op, sizeof t->op, "%s", e->t[k].op);
        } else {
            box_init(c, g, &t->box, e->t[k].mat, e->t[k].head, e->t[k].result);
        }
    }
}

int op_width(const Ctx *c, const GridStyle *g, const char *op)
{
    return math_w(c, FONT_BOLD, g->op_font, op) + 2 * g->gap;
}

// A row's width is its operators' (measured text) and its matrices' (their windows): apart, so that shrinking
// windows does not measure the operators again.
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
int row_width(const Ctx *c, const GridStyle *g, const BoardRow *r) { return row_ops_width(c, g, r) + row_boxes_width(g, r); }

static int row_height(const GridStyle *g, const BoardRow *r)
{
    int h = 0;
    for (int k = 0; k < r->count; k++)
        if (!r->t[k].is_op && box_height(g, &r->t[k].box) > h) h = box_height(g, &r->t[k].box);
    return h;
}

// The arrangement's height; each row's own in heights when it is not NULL (a->count of them).
static int arrangement_rows_height(const GridStyle *g, const Arrangement *a, int *heights)
{
    int h = 0;
    for (int r = 0; r < a->count; r++) {
        int rh = row_height(g, &a->rows[r]);
        if (heights) heights[r] = rh;
        h += rh + (r ? g->gap * 2 : 0);
    }
    return h;
}
static int arrangement_height(const GridStyle *g, const Arrangement *a) { return arrangement_rows_height(g, a, NULL); }

static bool arrangement_fits(const Ctx *c, const GridStyle *g, const Arrangement *a, int w, int h)
{
    for (int r = 0; r < a->count; r++)
        if (row_width(c, g, &a->rows[r]) > w) return false;
    return arrangement_height(g, a) <= h;
}

// Whether some matrix of the arrangement shows a window of itself.
static bool arrangement_windowed(const Arrangement *a)
{
    for (int r = 0; r < a->count; r++)
        for (int k = 0; k < a->rows[r].count; k++)
            if (!a->rows[r].t[k].is_op && box_windowed(&a->rows[r].t[k].box)) return true;
    return false;
}

// How many cells the arrangement's matrices show.
static long arrangement_cells(const Arrangement *a)
{
    long cells = 0;
    for (int r = 0; r < a->count; r++)
        for (int k = 0; k < a->rows[r].count; k++)
            if (!a->rows[r].t[k].is_op) cells += (long)a->rows[r].t[k].box.nr * a->rows[r].t[k].box.nc;
    return cells;
}

// The smallest share of its cells that a matrix of the arrangement shows (1: every one whole).
static double arrangement_least_share(const Arrangement *a)
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

// Shrinks the windows of the widest and tallest matrices until the arrangement fits (down to 1 x 1).
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
                if (!row->t[k].is_op && &row->t[k].box != widest && row->t[k].box.nc * row->t[k].box.cell_w >
                                                                          (widest->nc - cut) * widest->cell_w)
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
                if (!tallest || b->nr * b->cell_h > tallest->nr * tallest->cell_h) tallest = b, in_row = r;
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

// The arrangements of the stage's equations, in order of preference.
typedef enum { ARR_ROWS = 0, ARR_STACKED, ARR_SUBSTEPS, ARR_COUNT } ArrKind;

static void build_arrangement(const Ctx *c, const GridStyle *g, const Equation *eq, int neq, ArrKind kind, int sub,
                              Arrangement *a)
{
    memset(a, 0, sizeof *a);
    for (int e = 0; e < neq; e++) {
        if (kind == ARR_SUBSTEPS && e != sub) continue;
        int eqpos = -1;
        for (int k = 0; k < eq[e].count; k++)
            if (eq[e].t[k].mat == MAT_NONE && strstr(eq[e].t[k].op, "=")) eqpos = k;
        if (kind == ARR_STACKED && eqpos > 0 && a->count + 2 <= BOARD_ROWS) {
            row_from_equation(c, g, &eq[e], 0, eqpos, &a->rows[a->count++]);
            // "÷ √2 =" keeps "÷ √2" above; the "=" starts the row below.
            Equation tail = eq[e];
            const char *op = eq[e].t[eqpos].op;
            if (strcmp(op, "=") != 0) {
                BoardRow *up = &a->rows[a->count - 1];
                BoardTerm *t = &up->t[up->count++];
                memset(t, 0, sizeof *t);
                t->is_op = true;
                snprintf(t->op, sizeof t->op, "%.*s", (int)(strlen(op) - 2), op);
            }
            snprintf(tail.t[eqpos].op, sizeof tail.t[eqpos].op, "=");
            row_from_equation(c, g, &tail, eqpos, eq[e].count, &a->rows[a->count++]);
        } else if (a->count < BOARD_ROWS) {
            row_from_equation(c, g, &eq[e], 0, eq[e].count, &a->rows[a->count++]);
        }
    }
}

// Lays the stage out in (w x h): the arrangement, and the sub-step shown (clamped; reported in the scene).
static void plan_board_style(Ctx *c, const GridStyle *g, int w, int h, Arrangement *out, int *substeps, int *sub);

// ---------------------------------------------------------------------------------------------------
// Parts before windows (Ctx.split_level): every equation of the stage shown at the same level of splitting, the
// fewest parts that show every matrix whole. Level 1: one equation a part (rows or stacked); level 2: its
// inputs, then "= result"; level 3: its inputs in runs of consecutive matrices that fit, then "= result".
// A stage of several equations splits each into as many parts (Q, K and V alike), so that the view finds
// the part of a result from the count alone (view.c's reveal_span).

// Whether a's one row fits in w x h without the operators at its ends (they are taken off a's row then).
static bool fits_bare(const Ctx *c, const GridStyle *g, Arrangement *a, int w, int h)
{
    BoardRow *r = &a->rows[0];
    int from = 0, to = r->count;
    while (from < to && r->t[from].is_op) from++;
    while (to > from && r->t[to - 1].is_op) to--;
    if (from == to || (from == 0 && to == r->count)) return false;
    memmove(r->t, r->t + from, (size_t)(to - from) * sizeof r->t[0]);
    r->count = to - from;
    return arrangement_fits(c, g, a, w, h);
}

// Part `piece` of equation e at `level` into a (left empty when there is no such part); returns how many
// parts the equation has at that level (0: some part does not fit in w x h).
static int equation_part(const Ctx *c, const GridStyle *g, const Equation *e, int level, int piece, int w, int h,
                         Arrangement *a)
{
    Arrangement st, row;
    build_arrangement(c, g, e, 1, ARR_STACKED, 0, &st);
    build_arrangement(c, g, e, 1, ARR_ROWS, 0, &row);
    memset(a, 0, sizeof *a);
    if (level <= 1 || st.count < 2) {
        const Arrangement *whole = arrangement_fits(c, g, &row, w, h) ? &row : &st;
        if (!arrangement_fits(c, g, whole, w, h)) return 0;
        if (piece == 0) *a = *whole;
        return 1;
    }
    // The inputs' row in runs: each matrix with the operators after it (those before the first go with it).
    const BoardRow *in = &st.rows[0];
    Arrangement one;
    memset(&one, 0, sizeof one);
    one.count = 1;
    int parts = 0, k = 0;
    while (k < in->count) {
        BoardRow run;
        memset(&run, 0, sizeof run);
        while (k < in->count) {
            int j = k;
            while (j < in->count && in->t[j].is_op) j++;
            if (j < in->count) j++;
            while (j < in->count && in->t[j].is_op) j++;
            one.rows[0] = run;
            for (int t = k; t < j && one.rows[0].count < TERM_MAX; t++) one.rows[0].t[one.rows[0].count++] = in->t[t];
            if (!arrangement_fits(c, g, &one, w, h)) {
                if (level == 2 || (run.count == 0 && !fits_bare(c, g, &one, w, h))) return 0;
                if (run.count == 0) { // a matrix alone, its operators left to the header's formula
                    run = one.rows[0];
                    k = j;
                }
                break;
            }
            run = one.rows[0];
            k = j;
        }
        if (parts++ == piece) {
            a->count = 1;
            a->rows[0] = run;
        }
    }
    one.rows[0] = st.rows[1];
    if (!arrangement_fits(c, g, &one, w, h) && (level == 2 || !fits_bare(c, g, &one, w, h))) {
        if (!c->window_result) return 0;
        one.rows[0] = st.rows[1];
        window_to_fit(c, g, &one, w, h);
    }
    if (parts == piece) *a = one;
    return parts + 1;
}

// What part k of an equation of `per` parts shows: its inputs, or the whole equation and its result.
static const char *part_caption(const Equation *e, int per, int k) { return k < per - 1 ? TR("what goes in") : e->caption; }

// The stage in parts at level Ctx.split_level (one level a call: draw_stage_whole tries each at every size
// before the next), when every matrix is whole in them (false: then windows).
// *sub: the part asked for, or VIEW_SUBSTEP_RESULT + i for the part that shows result i.
static bool plan_parts(const Ctx *c, const GridStyle *g, const Equation *eq, int neq, int w, int h, Arrangement *out,
                       int *substeps, int *sub)
{
    Arrangement tmp;
    int level = c->split_level < 3 ? c->split_level : 3, per = 0;
    if (level < (neq > 1 ? 1 : 2)) return false; // one equation is one part at level 1: tried before
    for (int e = 0; e < neq; e++) {
        int n = equation_part(c, g, &eq[e], level, -1, w, h, &tmp);
        if (n == 0 || (per && n != per)) return false; // each equation in as many parts
        per = n;
    }
    int total = per * neq;
    if (total < 2) return false;
    if (*sub >= VIEW_SUBSTEP_RESULT) {
        int r = *sub - VIEW_SUBSTEP_RESULT;
        *sub = (r < neq ? r : neq - 1) * per + per - 1;
    }
    if (*sub >= total) *sub = total - 1;
    if (*sub < 0) *sub = 0;
    int e = *sub / per, k = *sub % per;
    equation_part(c, g, &eq[e], level, k, w, h, out);
    snprintf(out->caption, sizeof out->caption, "%s", part_caption(&eq[e], per, k));
    snprintf(out->next, sizeof out->next, "%s",
             *sub + 1 < total ? part_caption(&eq[(*sub + 1) / per], per, (*sub + 1) % per) : "");
    *substeps = total;
    return true;
}

// Cells wide enough for their labels first; when that needs windows, cells as wide as their numbers.
static void plan_board(Ctx *c, const GridStyle *g, int w, int h, Arrangement *out, int *substeps, int *sub)
{
    int sub0 = *sub;
    plan_board_style(c, g, w, h, out, substeps, sub);
    bool windowed = arrangement_windowed(out);
    if (!windowed && *substeps == 1) return;
    GridStyle narrow = *g;
    narrow.narrow = true;
    Arrangement alt;
    int subs = 1, s2 = sub0;
    plan_board_style(c, &narrow, w, h, &alt, &subs, &s2);
    bool alt_windowed = arrangement_windowed(&alt);
    if ((windowed && !alt_windowed) || (!alt_windowed && subs < *substeps)) {
        *out = alt;
        out->narrow = true;
        *substeps = subs;
        *sub = s2;
    }
}

static void plan_board_style(Ctx *c, const GridStyle *g, int w, int h, Arrangement *out, int *substeps, int *sub)
{
    Equation eq[EQ_MAX];
    const StageInfo *si = stage_info(view_stage(c->st));
    int neq = si ? si->equations(&c->L->params, c->st->head, eq, EQ_MAX) : 0;
    *substeps = 1;
    if (neq == 0) {
        memset(out, 0, sizeof *out);
        return;
    }
    for (int kind = ARR_ROWS; kind <= ARR_STACKED; kind++) {
        build_arrangement(c, g, eq, neq, (ArrKind)kind, 0, out);
        if (arrangement_fits(c, g, out, w, h)) {
            *sub = 0;
            return;
        }
    }
    if (c->split_level > 0 && plan_parts(c, g, eq, neq, w, h, out, substeps, sub)) return;
    if (*sub >= VIEW_SUBSTEP_RESULT) *sub -= VIEW_SUBSTEP_RESULT; // the equation of that result, or the last
    if (neq > 1) {
        *substeps = neq;
        if (*sub >= neq) *sub = neq - 1;
        if (*sub < 0) *sub = 0;
        build_arrangement(c, g, eq, neq, ARR_SUBSTEPS, *sub, out);
        Arrangement st;
        // Stacked within the sub-step, when only that fits without windows.
        Equation one = eq[*sub];
        if (!arrangement_fits(c, g, out, w, h)) {
            build_arrangement(c, g, &one, 1, ARR_STACKED, 0, &st);
            if (arrangement_fits(c, g, &st, w, h)) *out = st;
            else window_to_fit(c, g, out, w, h);
        }
        snprintf(out->caption, sizeof out->caption, "%s", eq[*sub].caption);
        snprintf(out->next, sizeof out->next, "%s", *sub + 1 < neq ? eq[*sub + 1].caption : "");
        return;
    }
    // One equation too wide and too tall: its inputs first, then "= result", each whole (two sub-steps).
    if (neq == 1) {
        Arrangement halves[2];
        build_arrangement(c, g, eq, 1, ARR_STACKED, 0, &halves[0]);
        if (halves[0].count == 2) {
            halves[1] = halves[0];
            halves[0].count = 1;
            halves[1].rows[0] = halves[1].rows[1];
            halves[1].count = 1;
            if (arrangement_fits(c, g, &halves[0], w, h) && arrangement_fits(c, g, &halves[1], w, h)) {
                *substeps = 2;
                if (*sub > 1) *sub = 1;
                if (*sub < 0) *sub = 0;
                *out = halves[*sub];
                snprintf(out->caption, sizeof out->caption, "%s", *sub ? eq[0].caption : TR("what goes in"));
                snprintf(out->next, sizeof out->next, "%s", *sub ? "" : eq[0].caption);
                return;
            }
        }
    }
    int asked = *sub;
    *sub = 0;
    // One equation that does not fit: the arrangement that keeps the most cells after windowing.
    Arrangement best, alt;
    build_arrangement(c, g, eq, neq, ARR_ROWS, 0, &best);
    window_to_fit(c, g, &best, w, h);
    build_arrangement(c, g, eq, neq, ARR_STACKED, 0, &alt);
    window_to_fit(c, g, &alt, w, h);
    *out = arrangement_cells(&alt) > arrangement_cells(&best) ? alt : best;
    // Or its inputs whole in runs, then "= result" windowed, when the result shows more of itself so than the
    // window does (issue 25: llama-rope-gqa's Concat of 4 heads x d_k 4 showed each Z in one column, "0–0 of 4").
    if (neq == 1 && c->last_resort) {
        Arrangement piece;
        c->window_result = true;
        int level = c->split_level;
        c->split_level = 3;
        int n = equation_part(c, g, eq, 3, -1, w, h, &piece);
        if (n >= 2 && n <= 6) {
            equation_part(c, g, eq, 3, n - 1, w, h, &piece);
            if (arrangement_least_share(&piece) > arrangement_least_share(out)) {
                *substeps = n;
                *sub = asked >= VIEW_SUBSTEP_RESULT ? n - 1 : asked >= n ? n - 1 : asked < 0 ? 0 : asked;
                equation_part(c, g, eq, 3, *sub, w, h, out);
                snprintf(out->caption, sizeof out->caption, "%s", part_caption(&eq[0], n, *sub));
                snprintf(out->next, sizeof out->next, "%s", *sub + 1 < n ? part_caption(&eq[0], n, *sub + 1) : "");
                c->window_result = false;
                c->split_level = level;
                return;
            }
        }
        c->window_result = false;
        c->split_level = level;
    }
    // Or its inputs, then "= result", each windowed on its own, when each matrix shows more
    // of itself so (issue 25: paper-base's softmax showed 2 and 3 of its 10 columns, no row's sum to check).
    if (neq == 1) {
        Arrangement halves[2];
        build_arrangement(c, g, eq, 1, ARR_STACKED, 0, &halves[0]);
        if (halves[0].count != 2) return;
        halves[1] = halves[0];
        halves[0].count = 1;
        halves[1].rows[0] = halves[1].rows[1];
        halves[1].count = 1;
        double least = 1.0;
        for (int k = 0; k < 2; k++) {
            window_to_fit(c, g, &halves[k], w, h);
            double share = arrangement_least_share(&halves[k]);
            if (share < least) least = share;
        }
        if (least <= arrangement_least_share(out)) return;
        *substeps = 2;
        *sub = asked >= VIEW_SUBSTEP_RESULT ? 1 : asked > 1 ? 1 : asked < 0 ? 0 : asked;
        *out = halves[*sub];
        snprintf(out->caption, sizeof out->caption, "%s", *sub ? eq[0].caption : TR("what goes in"));
        snprintf(out->next, sizeof out->next, "%s", *sub ? "" : eq[0].caption);
    }
}

static void draw_arrangement(Ctx *c, const GridStyle *g, const Arrangement *a, int x, int y, int w, int h)
{
    snprintf(c->caption, sizeof c->caption, "%s", a->caption);
    snprintf(c->next, sizeof c->next, "%s", a->next);
    if (arrangement_windowed(a)) c->windowed = true;
    double share = arrangement_least_share(a);
    if (share < c->least_share) c->least_share = share;
    int total = arrangement_height(g, a);
    int yy = y + (h - total) / 2;
    if (yy < y) yy = y;
    for (int r = 0; r < a->count; r++) {
        const BoardRow *row = &a->rows[r];
        int rh = row_height(g, row), rw = row_width(c, g, row);
        int xx = x + (w - rw) / 2;
        if (xx < x) xx = x;
        for (int k = 0; k < row->count; k++) {
            const BoardTerm *t = &row->t[k];
            if (t->is_op) {
                int ow = op_width(c, g, t->op);
                int cells_top = yy + g->title_h + g->col_label_h;
                int tallest = 0;
                for (int j = 0; j < row->count; j++)
                    if (!row->t[j].is_op && row->t[j].box.nr * row->t[j].box.cell_h > tallest)
                        tallest = row->t[j].box.nr * row->t[j].box.cell_h;
                int oh = line_h(c, FONT_BOLD, g->op_font);
                math_at(c, FONT_BOLD, g->op_font, c->th->ink, xx + g->gap, cells_top + (tallest - oh) / 2, t->op);
                xx += ow;
            } else {
                draw_matrix(c, g, &t->box, xx, yy);
                xx += box_width(g, &t->box) + g->gap;
            }
        }
        yy += rh + g->gap * 2;
    }
}

void draw_board(Ctx *c, int x, int y, int w, int h)
{
    GridStyle g;
    grid_style(c, &g);
    Arrangement a;
    int substeps = 1, sub = c->st->substep;
    plan_board(c, &g, w, h, &a, &substeps, &sub);
    c->s->substeps = substeps;
    c->s->substep = sub;
    draw_arrangement(c, &g, &a, x, y, w, h);
}

// ---------------------------------------------------------------------------------------------------
// The main area of one head's stage: the board and, when the stage has one and there is room, the
// heatmap beside it (on a per-head stage, this head's; on Concat and Output, every head's). The board
// always has the room it needs first: the heatmap goes when it would push the board into sub-steps or
// windows it would not need alone.
static void draw_stage_at(Ctx *c, int x, int y, int w, int h);

// The smallest number size the back row reads: digits (0.729 of the size in the fonts shipped) of 2.6 % of
// the height, where the preferred size (c->num_font, the zoom in it) is 3.9 %.
static int floor_font(int base) { return (int)ceil(base * (0.026 / 0.039) / 0.729); }
int scene_number_floor(int h) { return floor_font(scene_number_font(h)); }

// A stage that shows a window at the preferred size: the fewest parts, then the largest size down to the
// floor, that show every matrix whole. False (the scene rewound) when none does.
static bool draw_stage_whole(Ctx *c, SceneMark mark, int x, int y, int w, int h)
{
    Scene *s = c->s;
    int base = c->num_font;
    for (int level = 1; level <= 5; level++) // 4: level 3 with tight cells (grid_style); 5: and compact rows
        for (int f = base; f >= floor_font(base); f--) {
            scene_rewind(s, mark);
            c->num_font = f;
            c->split_level = level;
            c->windowed = c->heat_shown = false;
            draw_stage_at(c, x, y, w, h);
            c->split_level = 0;
            c->num_font = base;
            if (!c->windowed && !s->oom) {
                s->num_font = f;
                return true;
            }
        }
    scene_rewind(s, mark);
    return false;
}

// The stage drawn again from `mark` at number size `font`, what the last try drew taken back.
static void redraw_at(Ctx *c, SceneMark mark, int font, int x, int y, int w, int h)
{
    scene_rewind(c->s, mark);
    c->num_font = font;
    c->windowed = c->heat_shown = false;
    draw_stage_at(c, x, y, w, h);
}

// The stage at the legible size, or larger when the screen has room: the largest number size (up to
// 1.6 times) that shows the same thing (no new windows or sub-steps, the heatmap kept). A matrix is
// windowed only when it does not fit at the floor in any number of parts.
void draw_stage(Ctx *c, int x, int y, int w, int h)
{
    Scene *s = c->s;
    SceneMark mark = scene_mark(s);
    int base = c->num_font;
    c->windowed = c->heat_shown = false;
    draw_stage_at(c, x, y, w, h);
    bool windowed = c->windowed, heat = c->heat_shown;
    int subs = s->substeps, sub = s->substep;
    if (windowed && !s->oom && draw_stage_whole(c, mark, x, y, w, h)) return;
    if (windowed && !s->oom) { // nothing whole: the windows at the preferred size, or at the floor when each
        // matrix shows more of itself there (paper-base's softmax: all 10 columns of S' then of A, issue 25)
        c->last_resort = true; // a result may now be windowed beside its inputs whole in runs (plan_board_style)
        c->windowed = c->heat_shown = false;
        c->least_share = 1.0;
        draw_stage_at(c, x, y, w, h);
        double preferred = c->least_share;
        int parts = s->substeps; // the floor's layout only in as many parts (the part asked for stays the same)
        c->least_share = 1.0;
        redraw_at(c, mark, floor_font(base), x, y, w, h);
        if (!s->oom && c->least_share > preferred + 1e-9 && s->substeps == parts) {
            s->num_font = c->num_font;
            c->num_font = base;
            c->last_resort = false;
            return;
        }
        redraw_at(c, mark, base, x, y, w, h);
        c->last_resort = false;
        return;
    }
    if (windowed || s->oom) return;
    static const double GROW[] = {1.6, 1.45, 1.3, 1.15};
    for (size_t i = 0; i < sizeof GROW / sizeof GROW[0]; i++) {
        redraw_at(c, mark, (int)lround(base * GROW[i]), x, y, w, h);
        if (!c->windowed && c->heat_shown == heat && s->substeps == subs && s->substep == sub) {
            s->num_font = c->num_font;
            c->num_font = base;
            return;
        }
    }
    redraw_at(c, mark, base, x, y, w, h);
}

static void draw_stage_at(Ctx *c, int x, int y, int w, int h)
{
    const ViewState *st = c->st;
    MatId m = model_stage_heatmap(&c->L->params, view_stage(st));
    const MatInfo *result = stage_result_info(view_stage(st));
    bool per_head = result && result->per_head;
    if (m == MAT_NONE) {
        draw_board(c, x, y, w, h);
        return;
    }
    const AttnParams *p = &c->L->params;
    int bar = colorbar_width(c, m);
    // The heatmap's natural width: cells of about two number heights, every label, the colour bar.
    int want = (p->m + 2) * c->num_font * 2 + bar;
    if (!per_head) want = w * 3 / 10;
    if (want > w * 2 / 5) want = w * 2 / 5;
    int min_w = bar + c->num_font * 6;
    int gap = c->num_font;
    GridStyle g;
    grid_style(c, &g);
    Arrangement full, part;
    int subs_full = 1, sub_full = st->substep, subs_part = 1, sub_part = st->substep;
    plan_board(c, &g, w, h, &full, &subs_full, &sub_full);
    int heat_w = 0;
    for (int tryw = want; tryw >= min_w && heat_w == 0; tryw -= c->num_font) {
        sub_part = st->substep; // each try starts from the sub-step asked for
        plan_board(c, &g, w - tryw - gap, h, &part, &subs_part, &sub_part);
        bool same = subs_part == subs_full && sub_part == sub_full && part.narrow == full.narrow; // labels too
        if (same && !arrangement_windowed(&part)) heat_w = tryw;
    }
    // The board: given the width it needs, the rest to the heatmap.
    if (heat_w == 0) {
        c->s->substeps = subs_full;
        c->s->substep = sub_full;
        draw_arrangement(c, &g, &full, x, y, w, h);
        return;
    }
    int need = 0;
    for (int r = 0; r < part.count; r++)
        if (row_width(c, &g, &part.rows[r]) > need) need = row_width(c, &g, &part.rows[r]);
    int board_w = need + c->num_font;
    if (board_w > w - gap - heat_w) board_w = w - gap - heat_w;
    int spare = w - board_w - gap - heat_w;
    if (spare > 0) heat_w += spare * 2 / 3, board_w += spare - spare * 2 / 3;
    c->s->substeps = subs_part;
    c->s->substep = sub_part;
    c->heat_shown = true;
    draw_arrangement(c, &g, &part, x, y, board_w, h);
    int hx = x + board_w + gap;
    rect(c, hx - gap / 2, y, 1, h, c->th->empty);
    if (!per_head) {
        draw_heads_grid(c, m, hx, y, heat_w, h);
        return;
    }
    int gy, gh;
    double range = group_range(c, m);
    for (int r = 0; r < part.count; r++)
        for (int k = 0; k < part.rows[r].count; k++)
            if (!part.rows[r].t[k].is_op && part.rows[r].t[k].box.result) {
                c->heat_cell_w = part.rows[r].t[k].box.cell_w;
                c->heat_cell_h = part.rows[r].t[k].box.cell_h;
            }
    draw_heatmap(c, m, st->head, range, hx, y, heat_w - bar - c->num_font / 3, h, false, true, &gy, &gh, NULL);
    c->heat_cell_w = c->heat_cell_h = 0;
    draw_colorbar(c, m, range, c->heat_grid_x + c->heat_grid_w + c->num_font / 3, gy, bar, gh);
}
