// The board: the stage's equations (the stage table's rows) as matrices and operators, arranged to
// fit at the legible size; and the stage's main area, the board with the heatmap beside it where
// there is room.
#include "render/scene_board.h"
#include "render/scene_heatmap.h"
#include "render/scene_model.h"
#include "render/scene_text.h"
#include "model/view.h"

#include <stdlib.h>

// The board: the stage's equations (stage table) laid out at the legible size. Arrangements are
// tried in order: every equation in one row each; each "A op B" stacked above "= R"; one equation
// at a time (sub-steps, the keys step through them); and only then windows of the matrices that do
// not fit.

static void row_from_equation(const Ctx *c, const GridStyle *g, const Equation *e, int from, int to,
                              BoardRow *r)
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
    // "S₀ / √d_k = S′₀" of a 4-token lesson with two-digit scores was split at 720p for
    // want of one label column. With share_rows, a matrix whose rows are its left neighbour's
    // (across one operator) is drawn without its own row labels.
    for (int k = 2; g->share_rows && k < r->count; k++) {
        BoardTerm *a = &r->t[k - 2], *b = &r->t[k];
        if (a->is_op || b->is_op || !r->t[k - 1].is_op || a->box.label_w == 0) continue;
        const MatInfo *ia = mat_info(a->box.mat), *ib = mat_info(b->box.mat);
        if (ia && ib && ia->row_axis == ib->row_axis && a->box.rows == b->box.rows)
            b->box.label_w = 0;
    }
}

// The arrangements of a run of equations: each in one row, or each "A op B" stacked above "= R".
typedef enum { ARR_ROWS = 0, ARR_STACKED } ArrKind;

static void build_arrangement(const Ctx *c, const GridStyle *g, const Equation *eq, int neq,
                              ArrKind kind, Arrangement *a)
{
    memset(a, 0, sizeof *a);
    for (int e = 0; e < neq; e++) {
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

// ---------------------------------------------------------------------------------------------------
// The plan of a stage: its equations cut into parts (screens), at one number size and grid style.
// Every operand and result of every equation is on some part, in order, inputs first. The fewest
// parts: the whole stage on one screen; else equations together as many as fit; an equation alone
// in a row, in Falk's scheme or stacked; else in runs of consecutive matrices that fit, the result
// with the inputs just before it; a matrix too large for the screen alone is the only thing
// windowed, on a part of its own.

typedef enum { LAY_ROWS, LAY_STACKED, LAY_FALK, LAY_RUN } LayKind;

typedef struct {
    int eq_from, eq_to; // the equations shown (LAY_RUN: eq_from only)
    LayKind kind;
    int from, to; // LAY_RUN: the terms [from, to) of equation eq_from
    bool windowed; // a run of one matrix too large to show whole
    bool by_rows; // LAY_RUN: its transposed operand shown by rows (K beside Q for Q · K^T)
    int under; // LAY_RUN "A · B": B turned under A, its shape beside its name (1), under it (2) or
               // not written (3); the same with rows as high as the numbers (4, 5, 6)
} PartDesc;

#define PLAN_PARTS_MAX SCENE_PARTS_MAX

typedef struct {
    Equation eq[EQ_MAX];
    int neq;
    PartDesc part[PLAN_PARTS_MAX];
    int count;
    bool windowed;
    int split; // equations cut into runs (not on one screen)
    int nwin; // parts that show a window
    int apart; // products whose operands share no part
    bool cut; // a label cut on some part
    GridStyle g;
} Plan;

static int arrangement_width(const Ctx *c, const GridStyle *g, const Arrangement *a)
{
    if (a->falk) {
        int w, h;
        falk_size(g, a, &w, &h);
        return w;
    }
    int w = 0;
    for (int r = 0; r < a->count; r++)
        if (row_width(c, g, &a->rows[r]) > w) w = row_width(c, g, &a->rows[r]);
    return w;
}

static int arrangement_total_height(const GridStyle *g, const Arrangement *a)
{
    if (a->falk) {
        int w, h;
        falk_size(g, a, &w, &h);
        return h;
    }
    return arrangement_height(g, a);
}

static bool arr_fits(const Ctx *c, const GridStyle *g, const Arrangement *a, int w, int h)
{
    return a->count > 0 && arrangement_width(c, g, a) <= w && arrangement_total_height(g, a) <= h;
}

// A run of terms [from, to) of e in one row: its operators at the end dropped (one at the start
// says it goes on).
static void run_row(const Ctx *c, const GridStyle *g, const Equation *e, int from, int to,
                    Arrangement *a)
{
    memset(a, 0, sizeof *a);
    while (to > from && e->t[to - 1].mat == MAT_NONE) to--;
    row_from_equation(c, g, e, from, to, &a->rows[0]);
    a->count = 1;
}

// Equations [e0, e1) of p in layout `kind` into a (LAY_RUN: p->part's terms).
static void lay_out(const Ctx *c, const Plan *p, const PartDesc *d, Arrangement *a)
{
    const GridStyle *g = &p->g;
    if (d->kind == LAY_RUN) {
        run_row(c, g, &p->eq[d->eq_from], d->from, d->to, a);
        if (d->by_rows) row_by_rows(c, g, &a->rows[0]);
        BoardRow row = a->rows[0];
        static const BareShape SHAPE[] = {BARE_SHAPE_BESIDE, BARE_SHAPE_UNDER, BARE_SHAPE_NONE};
        if (d->under
            && !arrangement_turn_under(c, g, &row, d->under > 3, SHAPE[(d->under - 1) % 3], a))
            a->count = 0;
        return;
    }
    build_arrangement(c, g, p->eq + d->eq_from, d->eq_to - d->eq_from,
                      d->kind == LAY_STACKED ? ARR_STACKED : ARR_ROWS, a);
    if (d->kind == LAY_FALK) falk_align(a);
}

static bool part_fits(const Ctx *c, const Plan *p, const PartDesc *d, int w, int h)
{
    Arrangement a;
    lay_out(c, p, d, &a);
    if (d->kind == LAY_FALK && !a.falk) return false;
    return arr_fits(c, &p->g, &a, w, h);
}

static bool plan_add(Plan *p, PartDesc d)
{
    if (p->count >= PLAN_PARTS_MAX) return false;
    p->part[p->count++] = d;
    if (d.windowed) p->windowed = true, p->nwin++;
    return true;
}

// Equations [e0, e1) on one screen: the first layout that fits (Falk's scheme for one product), or
// false.
static bool whole_fits(const Ctx *c, const Plan *p, int e0, int e1, int w, int h, PartDesc *out)
{
    static const LayKind ORDER[] = {LAY_ROWS, LAY_FALK, LAY_STACKED};
    for (size_t i = 0; i < sizeof ORDER / sizeof ORDER[0]; i++) {
        if (ORDER[i] == LAY_FALK && e1 - e0 != 1) continue;
        PartDesc d = {e0, e1, ORDER[i], 0, 0, false, false, 0};
        if (part_fits(c, p, &d, w, h)) {
            *out = d;
            return true;
        }
    }
    return false;
}

// Where a run that starts at matrix i of eq begins: at the operators before it (" · W", "= Q"), the
// first at 0.
static int run_lead(const Equation *eq, const int *starts, int i)
{
    if (i == 0) return 0;
    int lead = starts[i];
    while (lead > 0 && eq->t[lead - 1].mat == MAT_NONE) lead--;
    return lead;
}

// A product's operands on one part, then its result: "A · B", then "= C" (a transposed B by rows
// where it is too wide: Q beside K for Q · K^T). False when the operands do not fit together or the
// result would need a window.
static bool operands_part(const Ctx *c, const Plan *p, int e, int w, int h, PartDesc *in,
                          PartDesc *out)
{
    const Equation *eq = &p->eq[e];
    int eqpos = -1;
    bool dot = false;
    for (int k = 0; k < eq->count && eqpos < 0; k++)
        if (eq->t[k].mat == MAT_NONE) {
            if (strstr(eq->t[k].op, "=")) eqpos = k;
            else if (!strcmp(eq->t[k].op, "\xc2\xb7")) dot = true;
        }
    if (eqpos < 1 || !dot) return false; // (the operands-first cut is a product's)
    *in = (PartDesc){e, e + 1, LAY_RUN, 0, eqpos, false, false, 0};
    *out = (PartDesc){e, e + 1, LAY_RUN, eqpos, eq->count, false, false, 0};
    if (part_fits(c, p, in, w, h)) return true;
    Arrangement a;
    lay_out(c, p, in, &a);
    in->by_rows = row_has_transposed(&a.rows[0]);
    if (in->by_rows && part_fits(c, p, in, w, h)) return true;
    in->by_rows = false; // else B turned under A, column under column
    for (in->under = 1; in->under <= 6; in->under++)
        if (part_fits(c, p, in, w, h)) return true;
    return false;
}

static bool plan_operands_first(const Ctx *c, Plan *p, int e, int w, int h)
{
    PartDesc in, out;
    if (!operands_part(c, p, e, w, h, &in, &out) || !part_fits(c, p, &out, w, h)) return false;
    return plan_add(p, in) && plan_add(p, out);
}

// Whether equation e's operands share a part of p (an equation of one operand always).
static bool operands_together(const Plan *p, int e)
{
    int n = 0;
    for (int k = 0; k < p->eq[e].count; k++)
        n += p->eq[e].t[k].mat != MAT_NONE && !p->eq[e].t[k].result;
    for (int i = 0; i < p->count; i++) {
        const PartDesc *d = &p->part[i];
        if (d->kind != LAY_RUN && d->eq_from <= e && e < d->eq_to) return true;
        int shown = 0;
        for (int k = d->from; d->kind == LAY_RUN && d->eq_from == e && k < d->to; k++)
            shown += p->eq[e].t[k].mat != MAT_NONE && !p->eq[e].t[k].result;
        if (shown == n) return true;
    }
    return n < 2;
}

// Equation e in runs: from the result back, each run the most matrices that fit in one row, so the
// result has the inputs just before it beside it; a matrix that fits nowhere whole is windowed
// alone.
static bool plan_runs(const Ctx *c, Plan *p, int e, int w, int h)
{
    const Equation *eq = &p->eq[e];
    int starts[TERM_MAX], nm = 0; // each matrix term's index
    for (int k = 0; k < eq->count; k++)
        if (eq->t[k].mat != MAT_NONE) starts[nm++] = k;
    PartDesc runs[TERM_MAX];
    int nr = 0;
    for (int last = nm - 1; last >= 0;) {
        int to = starts[last] + 1, first = last;
        while (first > 0) {
            PartDesc d = {e, e + 1, LAY_RUN, run_lead(eq, starts, first - 1), to, false, false, 0};
            if (!part_fits(c, p, &d, w, h)) break;
            first--;
        }
        PartDesc d = {e, e + 1, LAY_RUN, run_lead(eq, starts, first), to, false, false, 0};
        if (first == last && !part_fits(c, p, &d, w, h)) {
            d.from = starts[first]; // the matrix alone, its operators left to the header's formula
            d.windowed = !part_fits(c, p, &d, w, h);
        }
        runs[nr++] = d;
        last = first - 1;
    }
    for (int i = nr - 1; i >= 0; i--)
        if (!plan_add(p, runs[i])) return false;
    return true;
}

// The plan at p->g's number size in w x h.
static void plan_stage(const Ctx *c, Plan *p, int w, int h)
{
    p->count = 0;
    p->windowed = false;
    p->split = 0;
    p->nwin = 0;
    p->apart = 0;
    if (p->neq == 0) return;
    PartDesc d;
    if (whole_fits(c, p, 0, p->neq, w, h, &d)) {
        plan_add(p, d);
        return;
    }
    for (int e = 0; e < p->neq;) {
        int e1 = e + 1;
        if (whole_fits(c, p, e, e1, w, h, &d)) {
            PartDesc more; // the next equations on the same screen while they fit
            while (e1 < p->neq && whole_fits(c, p, e, e1 + 1, w, h, &more)
                   && more.kind != LAY_FALK) {
                d = more;
                e1++;
            }
            plan_add(p, d);
        } else {
            p->split++;
            if (!plan_operands_first(c, p, e, w, h) && !plan_runs(c, p, e, w, h)) return;
            if (!operands_together(p, e)) p->apart++;
        }
        e = e1;
    }
}

// The result a part shows (MAT_NONE: inputs only): the result term of its last equation, when it is
// on it.
static MatId part_result(const Plan *p, const PartDesc *d)
{
    int e = d->kind == LAY_RUN ? d->eq_from : d->eq_to - 1;
    const Equation *eq = &p->eq[e];
    int to = d->kind == LAY_RUN ? d->to : eq->count;
    for (int k = d->kind == LAY_RUN ? d->from : 0; k < to; k++)
        if (eq->t[k].mat != MAT_NONE && eq->t[k].result) return eq->t[k].mat;
    return MAT_NONE;
}

// What part k computes: its equation's caption, or each of its equations' ("the queries Q, the keys
// K" where Q and K share a part).
static void part_caption_of(const Plan *p, int k, char *out, size_t cap)
{
    out[0] = '\0';
    if (k < 0 || k >= p->count) return;
    const PartDesc *d = &p->part[k];
    if (d->by_rows) { // the transpose said in words: K is shown as it is
        snprintf(out, cap, "%s",
                 TR("row i of Q \xc2\xb7 row j of K gives S[i, j]: K by rows, its transpose"));
        return;
    }
    if (d->under) { // the second operand turned: its columns under the first's
        snprintf(out, cap, "%s",
                 TR("what goes in: the second matrix turned under the first, column under "
                    "column"));
        return;
    }
    if (part_result(p, d) == MAT_NONE && d->kind == LAY_RUN) {
        snprintf(out, cap, "%s", TR("what goes in"));
        return;
    }
    if (d->kind == LAY_RUN) {
        snprintf(out, cap, "%s", p->eq[d->eq_from].caption);
        return;
    }
    for (int e = d->eq_from; e < d->eq_to; e++) {
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%s%s", e > d->eq_from ? ", " : "", p->eq[e].caption);
    }
}

// The part k of the plan as an arrangement to draw in w x h (a windowed one shrunk to fit).
static void plan_part(const Ctx *c, const Plan *p, int k, int w, int h, Arrangement *a)
{
    memset(a, 0, sizeof *a);
    if (k < 0 || k >= p->count) return;
    lay_out(c, p, &p->part[k], a);
    if (p->part[k].windowed) window_to_fit(c, &p->g, a, w, h);
    if (p->count > 1) part_caption_of(p, k, a->caption, sizeof a->caption);
    else a->caption[0] = '\0';
    part_caption_of(p, k + 1, a->next, sizeof a->next);
}

// Whether part d shows an input of its equation (a run of the result alone shows none).
static bool part_has_input(const Plan *p, const PartDesc *d)
{
    if (d->kind != LAY_RUN) return true;
    const Equation *eq = &p->eq[d->eq_from];
    for (int k = d->from; k < d->to; k++)
        if (eq->t[k].mat != MAT_NONE && !eq->t[k].result) return true;
    return false;
}

// Whether m is the stage's result i or one after it: a part that shows several equations names the
// last one's result, and shows result i too.
static bool result_at_or_after(const StageInfo *si, MatId m, int i)
{
    for (int k = 0; si && m != MAT_NONE && k < 3 && si->results[k] != MAT_NONE; k++)
        if (si->results[k] == m) return k >= i;
    return false;
}

// The part asked for: an index, or VIEW_SUBSTEP_RESULT + i for the part that shows the stage's
// result i. A question goes where the class sees what it predicts from: the result's part when an
// input is beside it, else the inputs' part just before (a click needs the hidden cells: there only
// when the heatmap beside shows them).
static int plan_pick(const Plan *p, const ViewState *st)
{
    int asked = st->substep;
    if (asked >= VIEW_SUBSTEP_RESULT) {
        const StageInfo *si = stage_info(view_stage(st));
        int i = asked - VIEW_SUBSTEP_RESULT;
        MatId want = si && i >= 0 && i < 3 ? si->results[i] : MAT_NONE;
        for (int k = 0; k < p->count; k++)
            if (want != MAT_NONE && result_at_or_after(si, part_result(p, &p->part[k]), i)) {
                // A click answers on the heatmap beside the board too when it shows the matrix
                // asked about.
                bool typed = st->quiz_phase == QUIZ_ASKING
                             && (st->quiz_q.input != QUIZ_CLICK || st->quiz_q.mat == si->heatmap);
                if (typed && k > 0 && !part_has_input(p, &p->part[k])
                    && p->part[k - 1].kind == LAY_RUN
                    && p->part[k - 1].eq_from == p->part[k].eq_from)
                    return k - 1;
                return k;
            }
        return p->count - 1;
    }
    return asked < 0 ? 0 : asked >= p->count ? p->count - 1 : asked;
}

// ---------------------------------------------------------------------------------------------------
// The stage's number size: the fewest parts (no window where the floor shows a matrix whole), then
// the largest size up to 1.6 times the preferred one that keeps them. The plan never depends on the
// part shown, on a banner, the notes or a question: every part of a stage is cut from the same
// plan.

// The grid styles a plan tries, in order: cells as wide as their labels (nothing cut), with compact
// rows; then cells as wide as their numbers (long labels cut), with less air, with compact rows
// too. Last, the rows' labels given once across an operator (share_rows), with compact rows and
// every label whole: taken only where it keeps an equation together that the others cut, and never
// with a window (the two matrices' rows must be the same).
static const struct {
    bool narrow, tight, compact, share, whole;
} STYLES[] = {{false, false, false, false, false}, {false, false, true, false, false},
              {true, false, false, false, false},  {true, true, false, false, false},
              {true, true, true, false, false},    {false, false, true, true, false},
              {false, true, true, true, true}};
// The last style, shared labels over cells with less air, is the last resort: taken only where it
// keeps more equations together than every other style (RoPE's Q = Q^R side by side at
// 1280x720).
#define PLAN_STYLES ((int)(sizeof STYLES / sizeof STYLES[0]) - 1)
#define PLAN_STYLE_LAST PLAN_STYLES

// A plan at number size f in style `style` (STYLES).
static void plan_at(Ctx *c, Plan *p, int f, int style, int w, int h)
{
    int keep_font = c->num_font;
    c->num_font = f;
    grid_style(c, &p->g);
    p->g.narrow = STYLES[style].narrow;
    p->g.tight = STYLES[style].tight;
    p->g.compact = STYLES[style].compact;
    p->g.share_rows = STYLES[style].share;
    p->g.whole_labels = STYLES[style].whole;
    plan_stage(c, p, w, h);
    if (p->g.share_rows && p->windowed)
        p->nwin = 1 << 20; // shared labels over two windows could disagree
    p->cut = false;
    for (int k = 0; k < p->count && !p->cut; k++) {
        Arrangement a;
        lay_out(c, p, &p->part[k], &a);
        for (int r = 0; r < a.count; r++)
            for (int t = 0; t < a.rows[r].count; t++)
                if (!a.rows[r].t[t].is_op
                    && (a.rows[r].t[t].box.labels_cut
                        || box_title_cut(c, &p->g, &a.rows[r].t[t].box)))
                    p->cut = true;
    }
    c->num_font = keep_font;
}

// Better: no window over a window, then fewer equations cut apart (each on one screen whenever it
// fits), then fewer products with their operands apart, then every label whole (cut only to keep
// an equation or a product's operands together), then fewer parts.
static bool plan_better(const Plan *a, const Plan *b)
{
    if (a->nwin != b->nwin) return a->nwin < b->nwin;
    if (a->split != b->split) return a->split < b->split;
    if (a->apart != b->apart) return a->apart < b->apart;
    if (a->cut != b->cut) return !a->cut;
    return a->count < b->count;
}

// How much a windowed plan shows: its windows' least share of rows (each token's), then of cells.
static double plan_window_share(Ctx *c, const Plan *p, int w, int h)
{
    Arrangement *a = malloc(sizeof *a);
    int keep = c->num_font;
    double rows = 1.0, cells = 1.0;
    c->num_font = p->g.num_font;
    for (int k = 0; a && k < p->count; k++) {
        if (!p->part[k].windowed) continue;
        plan_part(c, p, k, w, h, a);
        for (int r = 0; r < a->count; r++)
            for (int t = 0; t < a->rows[r].count; t++) {
                const MatBox *m = &a->rows[r].t[t].box;
                if (!a->rows[r].t[t].is_op && m->rows > 0 && (double)m->nr / m->rows < rows)
                    rows = (double)m->nr / m->rows;
            }
        if (arrangement_least_share(a) < cells) cells = arrangement_least_share(a);
    }
    c->num_font = keep;
    free(a);
    return rows + cells / 1000;
}

// The best plan for a board of w x h at the frame's preferred size c->num_font (and its floor).
static void plan_board(Ctx *c, int w, int h, Plan *out)
{
    Plan *best = out, *p = malloc(sizeof *p);
    if (!p) {
        plan_at(c, out, font_floor(c->num_font), PLAN_STYLES - 1, w, h);
        return;
    }
    const StageInfo *si = stage_info(view_stage(c->st));
    p->neq = si ? si->equations(&c->L->params, c->st->head, p->eq, EQ_MAX) : 0;
    out->neq = p->neq;
    memcpy(out->eq, p->eq, sizeof p->eq);
    int base = c->num_font, lo = font_floor(base) < base ? font_floor(base) : base;
    // The target: the best the floor can do in any style (windowed: the one showing the most).
    bool have = false;
    for (int style = 0; style < PLAN_STYLES; style++) {
        plan_at(c, p, lo, style, w, h);
        bool tie =
            have && p->windowed && best->windowed && !plan_better(p, best) && !plan_better(best, p);
        if (!have || plan_better(p, best)
            || (tie && plan_window_share(c, p, w, h) > plan_window_share(c, best, w, h))) {
            *best = *p;
            have = true;
        }
        if (!best->windowed && best->count == 1) break;
    }
    int styles = PLAN_STYLES;
    if (best->split > 0) {
        plan_at(c, p, lo, PLAN_STYLE_LAST, w, h);
        if (p->nwin <= best->nwin
            && (p->split < best->split || (p->split == best->split && p->apart < best->apart)))
            *best = *p, styles = PLAN_STYLE_LAST + 1;
    }
    // A matrix too large for the screen: windowed at the floor, where its window shows the most of
    // it.
    if (best->windowed) {
        free(p);
        return;
    }
    // The largest size that plans as well (the first style that does at each size).
    int sizes[24], ns = 0;
    static const double GROW[] = {1.6, 1.45, 1.3, 1.15};
    for (size_t i = 0; i < sizeof GROW / sizeof GROW[0]; i++)
        sizes[ns++] = (int)lround(base * GROW[i]);
    for (int f = base; f > lo && ns < 24; f--) sizes[ns++] = f;
    bool done = false;
    for (int i = 0; i < ns && !done; i++)
        for (int style = 0; style < styles && !done; style++) {
            plan_at(c, p, sizes[i], style, w, h);
            if (p->count == best->count && p->windowed == best->windowed && p->split == best->split
                && p->apart <= best->apart && p->cut == best->cut) {
                *best = *p;
                done = true;
            }
        }
    free(p);
}

// The fits the layout audit checks the plan against, at the floor in w x h: whether each equation's
// matrices fit on one screen together, and each matrix alone.
void scene_board_fits(Ctx *c, int w, int h, SceneFits *fits)
{
    memset(fits, 0, sizeof *fits);
    if (view_stage(c->st) == STAGE_NEXT && model_mat_present(&c->L->params, MAT_NEXT))
        return; // a chart of one position's bars (draw_next_chart), no equation on a board
    Plan *p = malloc(sizeof *p);
    if (!p) return;
    const StageInfo *si = stage_info(view_stage(c->st));
    p->neq = si ? si->equations(&c->L->params, c->st->head, p->eq, EQ_MAX) : 0;
    fits->neq = p->neq;
    for (int e = 0; e < p->neq; e++)
        for (int k = 0; k < p->eq[e].count; k++)
            if (p->eq[e].t[k].mat == MAT_NONE && !strcmp(p->eq[e].t[k].op, "\xc2\xb7"))
                fits->eq[e].product = true;
    int lo = font_floor(c->num_font);
    for (int e = 0; e < p->neq; e++) {
        const Equation *eq = &p->eq[e];
        for (int k = 0; k < eq->count && fits->eq[e].terms < TERM_MAX; k++)
            if (eq->t[k].mat != MAT_NONE) {
                int n = fits->eq[e].terms++;
                fits->eq[e].mat[n] = eq->t[k].mat;
                fits->eq[e].head[n] = eq->t[k].head;
                fits->eq[e].result[n] = eq->t[k].result;
            }
        for (int style = 0; style <= PLAN_STYLE_LAST; style++) {
            plan_at(c, p, lo, style, w, h); // sets p->g
            PartDesc d, in;
            if (whole_fits(c, p, e, e + 1, w, h, &d)) fits->eq[e].together = true;
            if (operands_part(c, p, e, w, h, &in, &d)) fits->eq[e].operands_together = true;
            for (int k = 0, n = 0; k < eq->count; k++)
                if (eq->t[k].mat != MAT_NONE) {
                    PartDesc one = {e, e + 1, LAY_RUN, k, k + 1, false, false, 0};
                    if (part_fits(c, p, &one, w, h)) fits->eq[e].alone[n] = true;
                    n++;
                }
        }
    }
    free(p);
}

static void draw_op(Ctx *c, const GridStyle *g, const BoardRow *row, const char *op, int x, int y)
{
    int cells_top = y + g->title_h + g->col_label_h, tallest = 0;
    for (int j = 0; j < row->count; j++)
        if (!row->t[j].is_op && row->t[j].box.nr * row->t[j].box.cell_h > tallest)
            tallest = row->t[j].box.nr * row->t[j].box.cell_h;
    int oh = line_h(c, FONT_BOLD, g->op_font);
    if (op[0] == '^') { // a transpose (row_by_rows): raised beside the matrix's top corner
        math_at(c, FONT_BOLD, g->op_font, c->th->ink, x - g->gap, cells_top - oh * 3 / 4, op);
        return;
    }
    math_at(c, FONT_BOLD, g->op_font, c->th->ink, x + g->gap, cells_top + (tallest - oh) / 2, op);
}

static void draw_arrangement(Ctx *c, const GridStyle *g, const Arrangement *a, int x, int y, int w,
                             int h)
{
    snprintf(c->caption, sizeof c->caption, "%s", a->caption);
    snprintf(c->next, sizeof c->next, "%s", a->next);
    if (arrangement_windowed(a)) c->windowed = true;
    double share = arrangement_least_share(a);
    if (share < c->least_share) c->least_share = share;
    if (a->falk) {
        draw_falk(c, g, a, x, y, w, h);
        return;
    }
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
                draw_op(c, g, row, t->op, xx, yy);
                xx += op_width(c, g, t->op);
            } else {
                draw_matrix(c, g, &t->box, xx, yy);
                xx += box_width(g, &t->box) + g->gap;
            }
        }
        yy += rh + g->gap * 2;
    }
}

// Tells the scene the parts of the plan and the one shown (the view reads them back:
// view_set_parts).
static void report_parts(Ctx *c, const Plan *p, int sub)
{
    c->s->substeps = p->count > 0 ? p->count : 1;
    c->s->substep = sub;
    for (int k = 0; k < p->count && k < SCENE_PARTS_MAX; k++)
        c->s->part_result[k] = part_result(p, &p->part[k]);
    if (p->count <= 1) c->s->part_result[0] = MAT_NONE;
}

// The board in (x, y, w, h) as planned: part `sub` of p at p's sizes.
static void draw_plan(Ctx *c, const Plan *p, int sub, int x, int y, int w, int h)
{
    Arrangement *a = malloc(sizeof *a);
    if (!a) {
        c->s->oom = true;
        return;
    }
    plan_part(c, p, sub, w, h, a);
    int keep = c->num_font;
    c->num_font = p->g.num_font;
    c->s->num_font = p->g.num_font;
    report_parts(c, p, sub);
    draw_arrangement(c, &p->g, a, x, y, w, h);
    c->num_font = keep;
    free(a);
}

void draw_board(Ctx *c, int x, int y, int w, int h)
{
    Plan *p = malloc(sizeof *p);
    if (!p) {
        c->s->oom = true;
        return;
    }
    plan_board(c, w, h, p);
    draw_plan(c, p, plan_pick(p, c->st), x, y, w, h);
    free(p);
}

// ---------------------------------------------------------------------------------------------------
// The main area of one head's stage: the board and, when the stage has one and there is room, the
// heatmap beside it (on a per-head stage, this head's; on Concat and Output, every head's). The
// board always has the room it needs first: the heatmap goes only where the board keeps its parts,
// windows and number size.

// The heatmap of m (per_head: this head's, else every head's) in r, beside the board of plan p
// whose arrangement a has the result whose cells it matches.
static void draw_side_heatmap(Ctx *c, const Plan *p, const Arrangement *a, MatId m, bool per_head,
                              Box r)
{
    int hx = r.x, y = r.y, heat_w = r.w, h = r.h;
    const ViewState *st = c->st;
    int keep = c->num_font;
    c->num_font = p->g.num_font;
    int bar = colorbar_width(c, m);
    if (!per_head) {
        draw_heads_grid(c, m, hx, y, heat_w, h);
        c->num_font = keep;
        return;
    }
    int gy, gh;
    double range = group_range(c, m);
    for (int r = 0; r < a->count; r++)
        for (int k = 0; k < a->rows[r].count; k++)
            if (!a->rows[r].t[k].is_op && a->rows[r].t[k].box.result) {
                c->heat_cell_w = a->rows[r].t[k].box.cell_w;
                c->heat_cell_h = a->rows[r].t[k].box.cell_h;
            }
    HeatRequest rq = {m,     st->head, range, {hx, y, heat_w - bar - c->num_font / 3, h},
                      false, true,     NULL};
    draw_heatmap(c, &rq, &gy, &gh);
    c->heat_cell_w = c->heat_cell_h = 0;
    draw_colorbar(c, m, range, c->heat_grid_x + c->heat_grid_w + c->num_font / 3, gy, bar, gh);
    c->num_font = keep;
}

void draw_stage(Ctx *c, int x, int y, int w, int h)
{
    const ViewState *st = c->st;
    if (view_stage(st) == STAGE_NEXT && model_mat_present(&c->L->params, MAT_NEXT)) {
        draw_next_chart(c, x, y, w,
                        h); // a chart of the position's bars, not the table of every position's
        return;
    }
    MatId m = model_stage_heatmap(&c->L->params, view_stage(st));
    Plan *full = malloc(sizeof *full), *part = malloc(sizeof *part);
    Arrangement *a = malloc(sizeof *a);
    if (!full || !part || !a) {
        free(full), free(part), free(a);
        c->s->oom = true;
        return;
    }
    plan_board(c, w, h, full);
    int heat_w = 0;
    if (m != MAT_NONE) {
        const MatInfo *result = stage_result_info(view_stage(st));
        bool per_head = result && result->per_head;
        const AttnParams *p = &c->L->params;
        int f = full->g.num_font, bar = colorbar_width(c, m), gap = f;
        // The heatmap's natural width: cells of about two number heights, every label, the colour
        // bar.
        int want = per_head ? (p->m + 2) * f * 2 + bar : w * 3 / 10;
        if (want > w * 2 / 5) want = w * 2 / 5;
        int min_w = bar + f * 6;
        // The board in the room beside it: planned again for that width, kept when it needs no more
        // parts, no new windows, cuts no label and keeps the preferred number size (or the size the
        // whole width has).
        int least = full->g.num_font < c->num_font ? full->g.num_font : c->num_font;
        for (int tryw = want; tryw >= min_w && heat_w == 0; tryw -= (want - min_w) / 2 + 1) {
            plan_board(c, w - tryw - gap, h, part);
            if (part->count == full->count && part->windowed == full->windowed && !full->windowed
                && part->g.narrow == full->g.narrow && part->g.num_font >= least)
                heat_w = tryw;
        }
        if (heat_w > 0) {
            int sub = plan_pick(part, st);
            plan_part(c, part, sub, w - heat_w - gap, h, a);
            int need = arrangement_width(c, &part->g, a) + f;
            int board_w = need < w - gap - heat_w ? need : w - gap - heat_w;
            int spare = w - board_w - gap - heat_w;
            if (spare > 0) heat_w += spare * 2 / 3, board_w += spare - spare * 2 / 3;
            draw_plan(c, part, sub, x, y, board_w, h);
            c->heat_shown = true;
            int hx = x + board_w + gap;
            rect(c, hx - gap / 2, y, 1, h, c->th->empty);
            draw_side_heatmap(c, part, a, m, per_head, (Box){hx, y, heat_w, h});
        }
    }
    if (heat_w == 0) draw_plan(c, full, plan_pick(full, st), x, y, w, h);
    free(full), free(part), free(a);
}
