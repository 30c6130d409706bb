// The panels beside or instead of the board: the cost table (key K), single head vs multi-head (M),
// the shuffle test (X), and the strips under the header, the softmax scale's slider and the
// training curve.
#include "render/scene_panels.h"
#include "render/scene_board.h"
#include "render/scene_heatmap.h"
#include "render/scene_text.h"
#include "core/cost.h"
#include "model/panel_text.h"
#include "model/view.h"

// The cost panel's table and sentences, and how they are laid out.
typedef struct {
    CostText t; // the figures and the sentences (the text view's too)
    char cell[4][5][96]; // a row per figure: h, d_k, weights, multiplications, matrices
    char heads[5][2][64]; // the columns' heads, on one line or two
    int colw[5], table_w, head_lines;
    int f, tf, lh, th, gap, pad; // the fonts, line heights and spacing
    int pw, iw, title_h, body_h, lines_h[4]; // the sheet's width, its inner width, the heights
} CostSheet;

// The table's cells: a row for each of the figures (panel_text_cost's).
static void cost_cells(CostSheet *cs)
{
    for (int i = 0; i < cs->t.nfig; i++) {
        const CostFigures *f = &cs->t.fig[i];
        char(*cell)[96] = cs->cell[i];
        snprintf(cell[0], 96, "h = %lld", (long long)f->heads);
        if (f->kv_heads != f->heads)
            snprintf(cell[0] + strlen(cell[0]), 40, ", G = %lld", (long long)f->kv_heads);
        snprintf(cell[1], 96, "%lld", (long long)f->d_k);
        cost_format_int(cell[2], 96, f->projection_weights);
        cost_format_int(cell[3], 96, f->score_multiplications);
        snprintf(cell[4], 96, "%lld %s (%lld%s%lld)", (long long)f->attention_matrices, SCENE_TIMES,
                 (long long)f->matrix_rows, SCENE_TIMES, (long long)f->matrix_cols);
    }
}

// The columns' widths: a column's head on two lines (at its first space) when the table is wider
// than the sheet can be (w).
static void cost_columns(Ctx *c, CostSheet *cs, int w)
{
    static const char *const head[5] = {"", N_("d_k"), N_("projection weights"),
                                        N_("score multiplications"), N_("attention matrices")};
    int f = cs->f;
    for (int pass = 0; pass < 2; pass++) {
        cs->table_w = 4 * cs->gap;
        for (int k = 0; k < 5; k++) {
            const char *t = TR(head[k]), *sp = pass ? strchr(t, ' ') : NULL;
            snprintf(cs->heads[k][0], sizeof cs->heads[k][0], "%.*s",
                     sp ? (int)(sp - t) : (int)strlen(t), t);
            snprintf(cs->heads[k][1], sizeof cs->heads[k][1], "%s", sp ? sp + 1 : "");
            cs->colw[k] = 0;
            for (int l = 0; l < 2; l++) {
                int tw = text_w(c, FONT_BOLD, f, cs->heads[k][l]);
                if (tw > cs->colw[k]) cs->colw[k] = tw;
            }
            for (int i = 0; i < cs->t.nfig; i++) {
                int tw = text_w(c, FONT_REGULAR, f, cs->cell[i][k]);
                if (tw > cs->colw[k]) cs->colw[k] = tw;
            }
            cs->table_w += cs->colw[k];
        }
        cs->head_lines = pass + 1;
        if (cs->table_w + 2 * cs->pad <= w - 20) break;
    }
}

// The sheet: as wide as the table or the longest sentence, within the window (w, h); the sentences
// wrapped in it. Taller than the window (French at 720p): less air, then without the paper's table
// (a reference, not the lesson).
static void cost_fit(Ctx *c, CostSheet *cs, int w, int h)
{
    int f = cs->f, tf = cs->tf;
    const char *lines[4] = {cs->t.line1, cs->t.line2, cs->t.kv, cs->t.concl};
    for (int air = 0; air < 3; air++) {
        if (air > 0) cs->lh = line_h(c, FONT_REGULAR, f) + f / 5, cs->pad = f / 2;
        if (air > 1) cs->t.nfig = 2;
        cs->pw = cs->table_w;
        int longest[5] = {text_w(c, FONT_BOLD, tf, cs->t.title),
                          math_w(c, FONT_REGULAR, f, cs->t.line1),
                          text_w(c, FONT_REGULAR, f, cs->t.line2),
                          text_w(c, FONT_REGULAR, f, cs->t.kv), text_w(c, FONT_BOLD, f, cs->t.sub)};
        for (int k = 0; k < 5; k++)
            if (longest[k] > cs->pw) cs->pw = longest[k];
        cs->pw += 2 * cs->pad;
        if (cs->pw > w - 20) cs->pw = w - 20;
        cs->iw = cs->pw - 2 * cs->pad;
        int iw = cs->iw, lh = cs->lh;
        int tables_h =
            cs->t.nfig / 2 * (cs->head_lines * cs->th + 2 * lh)
            + (cs->t.nfig == 4
                   ? lh / 2 + wrap_text(c, FONT_BOLD, f, c->th->ink, 0, 0, iw, 2, cs->t.sub, false)
                   : 0);
        cs->title_h =
            wrap_text(c, FONT_BOLD, tf, c->th->result, 0, 0, iw, 2, cs->t.title, false) + f / 3;
        cs->body_h = cs->title_h + tables_h + lh / 2;
        for (int k = 0; k < 4; k++)
            cs->body_h += cs->lines_h[k] = wrap_text(c, k == 3 ? FONT_BOLD : FONT_REGULAR, f,
                                                     c->th->ink, 0, 0, iw, 4, lines[k], false)
                                           + f / 6;
        if (cs->body_h + 2 * cs->pad <= h - 20) break;
    }
}

// One of the tables (part 0 the lesson's, 1 the paper's) from tx, yy: its heads, a rule, its two
// rows. Returns the y under it.
static int cost_draw_table(Ctx *c, const CostSheet *cs, int part, int tx, int yy)
{
    int f = cs->f, lh = cs->lh;
    for (int l = 0; l < cs->head_lines; l++) {
        int xx = tx;
        for (int k = 0; k < 5; k++) {
            text_in(c, FONT_BOLD, f, c->th->muted, (Box){xx, yy, cs->colw[k], cs->th},
                    k == 0 ? LEFT : RIGHT, cs->heads[k][l]);
            xx += cs->colw[k] + cs->gap;
        }
        yy += cs->th;
    }
    rect(c, tx, yy + f / 8, cs->table_w, 1, c->th->empty);
    for (int i = part * 2; i < part * 2 + 2; i++) {
        int xx = tx;
        for (int k = 0; k < 5; k++) {
            text_in(c, k == 0 ? FONT_BOLD : FONT_REGULAR, f,
                    k == 2 || k == 3 ? c->th->result : c->th->ink, (Box){xx, yy, cs->colw[k], lh},
                    k == 0 ? LEFT : RIGHT, cs->cell[i][k]);
            xx += cs->colw[k] + cs->gap;
        }
        yy += lh;
    }
    return yy;
}

// The sheet over the board: the title, the tables, the sentences.
static void cost_draw(Ctx *c, CostSheet *cs, int w, int h)
{
    int f = cs->f, lh = cs->lh, pad = cs->pad, iw = cs->iw;
    const char *lines[4] = {cs->t.line1, cs->t.line2, cs->t.kv, cs->t.concl};
    int ph = cs->body_h + 2 * pad, x, y;
    draw_overlay(c, w, h, &cs->pw, &ph, &x, &y);
    int yy = y + pad, tx = x + (cs->pw - cs->table_w) / 2;
    wrap_text(c, FONT_BOLD, cs->tf, c->th->result, x + pad, yy, iw, 2, cs->t.title, true);
    yy += cs->title_h;
    for (int part = 0; part < cs->t.nfig / 2; part++) {
        if (part == 1) {
            yy += lh / 2;
            yy += wrap_text(c, FONT_BOLD, f, c->th->ink, x + pad, yy, iw, 2, cs->t.sub, true);
        }
        yy = cost_draw_table(c, cs, part, tx, yy);
    }
    yy += lh / 2;
    // In the board's notation (W^O with a raised O), like the matrices' titles; wrapped, never cut.
    for (int k = 0; k < 4; k++) {
        wrap_text(c, k == 3 ? FONT_BOLD : FONT_REGULAR, f, k == 3 ? c->th->ink : c->th->muted,
                  x + pad, yy, iw, 4, lines[k], true);
        yy += cs->lines_h[k];
    }
}

// The cost panel (key K): the document's figures for the lesson's d_model and n with h = 1 and its
// h, and the paper's (512, 10, h = 1 and 8) when the lesson is not the paper's.
void draw_cost(Ctx *c, int w, int h)
{
    const AttnParams *p = &c->L->params;
    CostSheet cs;
    memset(&cs, 0, sizeof cs);
    panel_text_cost(p, &cs.t); // the figures and the sentences, the text view's too
    cost_cells(&cs);
    // every number at the board's floor (digits of 2.6 % of the height; 15 px at 720p
    // before), and the sentences wrapped, never cut ("kept while genera…").
    int floor_font = scene_number_floor(c->s->height);
    cs.f = px(c, 20) > floor_font ? px(c, 20) : floor_font;
    cs.lh = line_h(c, FONT_REGULAR, cs.f) + cs.f / 2, cs.gap = cs.f, cs.pad = cs.f;
    cost_columns(c, &cs, w);
    cs.tf = px(c, 22) > cs.f ? px(c, 22) : cs.f;
    cs.th = line_h(c, FONT_REGULAR, cs.f) + cs.f / 4;
    cost_fit(c, &cs, w, h);
    cost_draw(c, &cs, w, h);
}

// Two outputs on one screen, "left vs right", on one colour scale with one cell and label width:
// side by side, or stacked (the second under the first) when side by side is too wide. The first
// plan that shows both whole is taken: at the panel's number size from roomy cells to cells as
// wide as their numbers with compact rows, side by side then stacked, then the same at the floor;
// where no plan shows both whole but each fits whole alone, each output on a part of its own (the
// same scale and widths, so its colours and columns read as the other's); none, side by side at
// the panel's size, windowed like the board.
typedef struct {
    GridStyle g;
    Arrangement arr; // one row (a vs b), two (a, then b), or one output alone
    bool stacked, bare;
    int only; // -1: both; 0 or 1: that output alone (its part of its own)
} PairPlan;

static const struct {
    bool narrow, tight, compact, dense, bare; // bare: side by side without "vs" between them
} PAIR_STYLES[] = {{false, false, false, false, false},
                   {false, false, true, false, false},
                   {true, true, true, false, false},
                   {true, true, true, true, false},
                   {true, true, true, true, true}};
#define PAIR_STYLE_COUNT ((int)(sizeof PAIR_STYLES / sizeof PAIR_STYLES[0]))

// Output k's box in the plan (NULL: not on it).
static MatBox *pair_box(PairPlan *pp, int k)
{
    if (pp->only >= 0) return k == pp->only ? &pp->arr.rows[0].t[0].box : NULL;
    return pp->stacked ? &pp->arr.rows[k].t[0].box : &pp->arr.rows[0].t[2 * k].box;
}

// The pair at number size f in PAIR_STYLES[style], windowed to the room; only >= 0: that output
// alone (with the pair's scale and widths).
static void pair_plan(Ctx *c, Ctx *const ctx[2], const char *const titles[2], int f, int style,
                      bool stacked, int only, Box room, PairPlan *pp)
{
    int keep[3] = {c->num_font, ctx[0]->num_font, ctx[1]->num_font};
    c->num_font = ctx[0]->num_font = ctx[1]->num_font = f;
    memset(pp, 0, sizeof *pp);
    grid_style(c, &pp->g);
    pp->g.narrow = PAIR_STYLES[style].narrow;
    pp->g.tight = PAIR_STYLES[style].tight;
    pp->g.compact = PAIR_STYLES[style].compact;
    pp->g.dense = PAIR_STYLES[style].dense;
    pp->stacked = stacked;
    pp->bare = PAIR_STYLES[style].bare && !stacked && only < 0;
    pp->only = only;
    if (only >= 0) {
        pp->arr.count = 1;
        pp->arr.rows[0].count = 1;
    } else if (stacked) {
        pp->arr.count = 2;
        pp->arr.rows[0].count = pp->arr.rows[1].count = 1;
    } else {
        pp->arr.count = 1;
        pp->arr.rows[0].count = 3;
        pp->arr.rows[0].t[1].is_op = true;
        snprintf(pp->arr.rows[0].t[1].op, sizeof pp->arr.rows[0].t[1].op, "%s",
                 pp->bare ? "" : TR("vs"));
    }
    MatBox ab[2];
    box_init(ctx[0], &pp->g, &ab[0], MAT_OUTPUT, 0, false);
    box_init(ctx[1], &pp->g, &ab[1], MAT_OUTPUT, 0, true);
    ab[0].range = ab[1].range = ab[0].range > ab[1].range ? ab[0].range : ab[1].range;
    ab[0].cell_w = ab[1].cell_w = ab[0].cell_w > ab[1].cell_w ? ab[0].cell_w : ab[1].cell_w;
    ab[0].label_w = ab[1].label_w = ab[0].label_w > ab[1].label_w ? ab[0].label_w : ab[1].label_w;
    for (int k = 0; k < 2; k++) {
        ab[k].title = titles[k];
        if (pair_box(pp, k)) *pair_box(pp, k) = ab[k];
    }
    window_to_fit(c, &pp->g, &pp->arr, room.w, room.h);
    c->num_font = keep[0], ctx[0]->num_font = keep[1], ctx[1]->num_font = keep[2];
}

static bool pair_whole(PairPlan *pp)
{
    for (int k = 0; k < 2; k++)
        if (pair_box(pp, k) && box_windowed(pair_box(pp, k))) return false;
    return true;
}

// The plan's height.
static int pair_height(PairPlan *pp)
{
    if (pp->only >= 0) return box_height(&pp->g, pair_box(pp, pp->only));
    int ha = box_height(&pp->g, pair_box(pp, 0)), hb = box_height(&pp->g, pair_box(pp, 1));
    return pp->stacked ? ha + 2 * pp->g.gap + hb : ha > hb ? ha : hb;
}

// The cells the plan shows of the fewer-shown output.
static int pair_cells(PairPlan *pp)
{
    MatBox *a = pair_box(pp, 0), *b = pair_box(pp, 1);
    int ca = a->nr * a->nc, cb = b->nr * b->nc;
    return ca < cb ? ca : cb;
}

// The first plan that shows both whole in room (see above), or with `low` the lowest of those at
// the first size that has one (the patterns above the compare panel's outputs keep the rest); false
// when none does, with the plan side by side at the panel's size (the screen's numbers at one size)
// that shows the most cells of both: every token's row where it can, the rows the class compares.
static bool pair_choose(Ctx *c, Ctx *const ctx[2], const char *const titles[2], Box room, bool low,
                        PairPlan *pp)
{
    int floor = scene_number_floor(c->s->height);
    int fonts[2] = {c->num_font, floor < c->num_font ? floor : c->num_font};
    PairPlan best;
    int most = -1, lowest = -1;
    for (int k = 0; k < 2 && lowest < 0; k++) {
        if (k == 1 && fonts[1] == fonts[0]) break;
        for (int stacked = 0; stacked < 2; stacked++)
            for (int style = 0; style < PAIR_STYLE_COUNT; style++) {
                pair_plan(c, ctx, titles, fonts[k], style, stacked, -1, room, pp);
                if (pair_whole(pp) && !low) return true;
                if (pair_whole(pp) && (lowest < 0 || pair_height(pp) < lowest))
                    lowest = pair_height(pp), best = *pp;
                if (lowest < 0 && !stacked && k == 0 && pair_cells(pp) > most)
                    most = pair_cells(pp), best = *pp;
            }
    }
    *pp = best;
    return lowest >= 0;
}

// Output `only` alone in room: the first style, at the panel's size then at the floor, that shows
// it whole. False (with the last plan tried) when none does.
static bool pair_choose_one(Ctx *c, Ctx *const ctx[2], const char *const titles[2], Box room,
                            int only, PairPlan *pp)
{
    int floor = scene_number_floor(c->s->height);
    int fonts[2] = {c->num_font, floor < c->num_font ? floor : c->num_font};
    for (int k = 0; k < 2; k++)
        for (int style = 0; style < PAIR_STYLE_COUNT; style++) {
            pair_plan(c, ctx, titles, fonts[k], style, false, only, room, pp);
            if (pair_whole(pp)) return true;
        }
    return false;
}

// Whether the pair fits whole at the floor in room in the tightest style (together: side by side
// or stacked; else each output alone), what the layout audit holds the panel to: 2 together, 1
// each alone, 0 not even alone.
static int pair_fits_floor(Ctx *c, Ctx *const ctx[2], Box room)
{
    int floor = scene_number_floor(c->s->height);
    if (floor > c->num_font) floor = c->num_font; // zoomed out: the numbers' size
    const char *const none[2] = {"", ""};
    PairPlan pp;
    for (int stacked = 0; stacked < 2; stacked++) {
        pair_plan(c, ctx, none, floor, PAIR_STYLE_COUNT - 1, stacked, -1, room, &pp);
        if (pair_whole(&pp)) return 2;
    }
    for (int k = 0; k < 2; k++) {
        pair_plan(c, ctx, none, floor, PAIR_STYLE_COUNT - 1, false, k, room, &pp);
        if (!pair_whole(&pp)) return 0;
    }
    return 1;
}

// The plan's matrices drawn in r, each output from its own context; the left one's cells answer
// no hover (they are not the lesson's), the right one's do when right_hits.
static void pair_draw(Ctx *c, Ctx *const ctx[2], PairPlan *pp, Box r, bool right_hits)
{
    GridStyle *g = &pp->g;
    int keep[3] = {c->num_font, ctx[0]->num_font, ctx[1]->num_font};
    c->num_font = ctx[0]->num_font = ctx[1]->num_font = g->num_font;
    size_t hits = c->s->hit_count;
    MatBox *a = pair_box(pp, 0), *b = pair_box(pp, 1);
    if (pp->only >= 0) {
        MatBox *m = pair_box(pp, pp->only);
        draw_matrix(ctx[pp->only], g, m, r.x + (r.w - box_width(g, m)) / 2, r.y);
        if (pp->only == 0) c->s->hit_count = hits;
    } else if (pp->stacked) {
        int wa = box_width(g, a), wb = box_width(g, b), wide = wa > wb ? wa : wb;
        int xx = r.x + (r.w - wide) / 2;
        draw_matrix(ctx[0], g, a, xx, r.y);
        c->s->hit_count = hits;
        draw_matrix(ctx[1], g, b, xx, r.y + box_height(g, a) + 2 * g->gap);
    } else {
        int xx = r.x + (r.w - row_width(c, g, &pp->arr.rows[0])) / 2;
        draw_matrix(ctx[0], g, a, xx, r.y);
        c->s->hit_count = hits;
        xx += box_width(g, a) + g->gap;
        const char *vs = pp->arr.rows[0].t[1].op;
        int cells_top = r.y + g->title_h + g->col_label_h, cells_h = a->nr * a->cell_h;
        if (vs[0])
            text_in(c, FONT_BOLD, g->op_font, c->th->muted,
                    (Box){xx + g->gap, cells_top, op_width(c, g, vs) - 2 * g->gap, cells_h}, CENTER,
                    vs);
        xx += op_width(c, g, vs);
        draw_matrix(ctx[1], g, b, xx, r.y);
    }
    if (!right_hits) c->s->hit_count = hits;
    c->num_font = keep[0], ctx[0]->num_font = keep[1], ctx[1]->num_font = keep[2];
}

// The pair drawn in r under its titles (titles[0], titles[1]): both together where a plan shows
// them whole; else, with `only` >= 0, that output alone (the panel's part for it). fit_room: the
// room the audit's fit is measured in (r, or more where the panel would give the outputs more).
static void draw_output_pair(Ctx *c, Ctx *left, Ctx *right, const char *const titles[2], Box r,
                             Box fit_room, bool right_hits, int only)
{
    Ctx *const ctx[2] = {left, right};
    PairPlan pp;
    if (only < 0 || !pair_choose_one(c, ctx, titles, r, only, &pp))
        pair_choose(c, ctx, titles, r, false, &pp);
    c->s->panel_fits = pair_fits_floor(c, ctx, fit_room) > 0 ? 1 : 0;
    pair_draw(c, ctx, &pp, r, right_hits);
}

// The comparison's two contexts: the lesson's heads (multi) and the one head that holds their
// weights (single), with what they point at.
typedef struct {
    ViewState st; // the whole patterns, whatever is being revealed, no head singled out
    Lesson one; // the lesson with the single head's parameters
    SceneExtras none; // the single head has no edits, status or question
    Ctx multi, single;
} CompareCtx;

// The comparison's layout in (x, y, w, h): the patterns on top (top_h high, the one head left_w
// wide), then the cost line (lh high, in font f), then the outputs; or in parts, the patterns with
// the cost line (part 1) and the cost line with the outputs alone (part 2), or with each output
// alone (parts 2 and 3).
typedef struct {
    int x, y, w, h, f, lh, top_h, left_w, gap;
    int out_most; // the most the outputs' row may take
    int parts; // 1; 2: the outputs fit whole only on a part of their own; 3: each only alone
} CompareLayout;

// The outputs' room on a part of their own: under the cost line, down to the window's foot (that
// part leaves out the footer's sentence, which is the patterns': draw_footer).
static Box compare_alone(Ctx *c, const CompareLayout *l)
{
    int top = l->y + l->lh + px(c, 8), bottom = c->s->height - c->num_font / 4;
    if (bottom < l->y + l->h) bottom = l->y + l->h;
    return (Box){l->x, top, l->w, bottom - top};
}

// Both contexts drawn from c: the lesson's, and the single head's lesson and trace.
static void compare_contexts(const Ctx *c, const Comparison *cmp, CompareCtx *cc)
{
    cc->st = *c->st;
    cc->st.reveal = -1;
    cc->st.head = -1;
    cc->one = *c->L;
    cc->one.params = cmp->single;
    memset(&cc->none, 0, sizeof cc->none);
    cc->multi = *c;
    cc->single = *c;
    cc->multi.st = &cc->st;
    cc->single.st = &cc->st;
    cc->single.L = &cc->one;
    cc->single.T = &cmp->trace;
    cc->single.ex = &cc->none;
    cc->single.focus.mat = MAT_NONE;
    cc->single.lit_count = 0;
    cc->single.memo.label_w_count = 0; // its own lesson's labels
    cc->multi.heat_floor = cc->single.heat_floor = true; // token labels at the floor, or none
}

// Top: the one head's pattern at the left, the h heads' at the right, a rule between them.
static void compare_patterns(Ctx *c, CompareCtx *cc, const Comparison *cmp, const CompareLayout *l)
{
    const AttnParams *p = &c->L->params;
    char buf[300], fitted[300];
    int x = l->x, y = l->y, w = l->w, top_h = l->top_h, left_w = l->left_w, gap = l->gap;
    int gy, gh;
    size_t hits = c->s->hit_count;
    snprintf(buf, sizeof buf, TR("One head \xc2\xb7 d_k = %d"), cmp->single.d_k);
    HeatRequest rq = {MAT_WEIGHTS, 0, 1.0, {x, y, left_w, top_h}, false, false, buf};
    draw_heatmap(&cc->single, &rq, &gy, &gh);
    c->s->hit_count = hits; // its cells are not the lesson's: no hover explanation for them
    // Top right: the h heads.
    int rx = x + left_w + gap, rw = w - left_w - gap;
    snprintf(
        buf, sizeof buf,
        TR("%d heads \xc2\xb7 d_k = %d each: each head is a full scaled dot-product attention"),
        p->heads, p->d_k);
    fit_text(c, FONT_BOLD, px(c, 18), buf, rw, fitted, sizeof fitted);
    int hth = line_h(c, FONT_BOLD, px(c, 18)) + px(c, 6);
    text_in(c, FONT_BOLD, px(c, 18), c->th->ink, (Box){rx, y, rw, hth}, LEFT, fitted);
    draw_heads_grid(&cc->multi, MAT_WEIGHTS, rx, y + hth, rw, top_h - hth);
    rect(c, x + left_w + gap / 2, y, 1, top_h, c->th->empty);
}

// The rows of the comparison in (x, y, w, h): the outputs' row whole where a plan shows both whole
// in up to 62 % of the height (stacked, or at the floor); else, where they fit whole at the floor
// on a part of their own, together or each alone, none (the patterns take the height, the outputs
// come on the next parts); else windowed in 45 % of it.
// The patterns above the cost line keep the room for their token labels at the floor.
static void compare_layout(Ctx *c, CompareCtx *cc, const char *const titles[2], CompareLayout *l)
{
    int h = l->h;
    l->f = px(c, 18);
    l->lh = line_h(c, FONT_BOLD, l->f) + px(c, 6);
    l->out_most = (int)(h * 0.62);
    Ctx *const ctx[2] = {&cc->single, &cc->multi};
    PairPlan pp;
    int out_h = (int)(h * 0.45), need;
    if (pair_choose(c, ctx, titles, (Box){l->x, l->y, l->w, l->out_most}, true, &pp)) {
        need = pair_height(&pp) + px(c, 8);
        if (need > out_h) out_h = need;
    } else if ((need = pair_fits_floor(c, ctx, compare_alone(c, l))) > 0)
        l->parts = need == 2 ? 2 : 3, out_h = 0;
    l->top_h = h - out_h - l->lh - px(c, 8);
    int bar = colorbar_width(c, MAT_WEIGHTS);
    l->gap = px(c, 28);
    l->left_w = (l->w - bar - l->gap) / 3;
}

// ---------------------------------------------------------------------------------------------------
// Single head vs multi-head (key M): the one head that holds the h heads' weights side by side, its
// one attention pattern beside the h patterns, and both outputs, with the cost of each.
void draw_compare(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    const Comparison *cmp = c->ex->compare;
    if (!cmp) {
        text_in(c, FONT_REGULAR, px(c, 20), c->th->muted, (Box){x, y, w, h}, CENTER,
                TR("The single-head version could not be computed (see the banner)."));
        return;
    }
    CompareCtx cc;
    compare_contexts(c, cmp, &cc);
    char t1[64], t2[64];
    snprintf(t1, sizeof t1, "%s", TR("Output, one head"));
    snprintf(t2, sizeof t2, TR("Output, %d heads"), p->heads);
    const char *const titles[2] = {t1, t2};
    CompareLayout l = {x, y, w, h, 0, 0, 0, 0, 0, 0, 1};
    compare_layout(c, &cc, titles, &l);
    c->s->pair_parts = l.parts;
    int part = c->st->pair_part < l.parts ? c->st->pair_part : l.parts - 1;
    bool alone = part > 0; // the outputs' own part
    if (!alone) compare_patterns(c, &cc, cmp, &l);
    // The cost line (the header's strip says which part is shown).
    char buf[300], fitted[300];
    int cy = alone ? y : y + l.top_h + px(c, 4);
    panel_text_compare_cost(cmp, p->heads, buf, sizeof buf);
    fit_text(c, FONT_BOLD, l.f, buf, w, fitted, sizeof fitted);
    text_in(c, FONT_BOLD, l.f, c->th->result, (Box){x, cy, w, l.lh}, CENTER, fitted);
    if (l.parts > 1 && !alone) {
        c->s->panel_fits = 1; // whole on the next parts
        return;
    }
    // Both outputs: the single head's, and the lesson's (whose cells explain themselves); or the
    // one of this part.
    Box room = alone ? compare_alone(c, &l) : (Box){x, cy + l.lh + px(c, 4), w, 0};
    if (!alone) room.h = y + h - room.y;
    draw_output_pair(c, &cc.single, &cc.multi, titles, room, compare_alone(c, &l), true,
                     l.parts == 3 ? part - 1 : -1);
}

// ---------------------------------------------------------------------------------------------------
// The softmax scale's slider

#define SQRT_SIGN "\xe2\x88\x9a"

// The softmax scale's slider, on the stages it acts on (scaling, mask; softmax when moved): where
// the scale is between 1/(4 d_k) and 4 on a log axis, its stops 1/d_k, 1/√d_k and 1 marked, moved
// with [ and ].
bool slider_shown(const Ctx *c)
{
    Stage s = view_stage(c->st);
    // On the softmax once the scale is moved: at the default the board keeps its room for the
    // heatmap.
    return c->st->panel == PANEL_NONE
           && (s == STAGE_SCALE || s == STAGE_MASK
               || (s == STAGE_SOFTMAX && c->L->params.scale > 0));
}
int slider_height(const Ctx *c)
{
    int lf = scene_number_floor(c->s->height) < c->num_font ? scene_number_floor(c->s->height)
                                                            : c->num_font;
    return line_h(c, FONT_REGULAR, lf)
           + c->num_font * 2 / 3; // the labels under a track of 2/3 of a number
}

// The slider in its one line: the scale on the left; the track in the upper part of the line with
// its ticks and the thumb, clear of the labels under it (each stop's name and the two ends' values,
// pushed apart so none covers another, a stop's left out before two touch); the keys that move it,
// explained, on the right (not on a slide).
typedef struct {
    char text[32];
    int at, w; // the tick it names, its width
    int x; // where it is drawn
    bool shown;
} SliderLabel;

// Spreads the labels (in the order of their ticks) so that none overlaps its neighbour inside [x0,
// x1]; the ends' labels (first and last) stay at the ends; a stop's label that cannot be placed is
// left out.
static void slider_spread(SliderLabel *l, int n, int x0, int x1, int gap)
{
    for (int i = 0; i < n; i++) l[i].x = l[i].at - l[i].w / 2;
    l[0].x = x0;
    l[n - 1].x = x1 - l[n - 1].w;
    for (int i = 0; i < n; i++) l[i].shown = true;
    for (int i = 1; i < n - 1; i++) {
        int prev = i - 1;
        while (prev > 0 && !l[prev].shown) prev--;
        if (l[i].x < l[prev].x + l[prev].w + gap) l[i].x = l[prev].x + l[prev].w + gap;
        int room = l[n - 1].x - gap;
        for (int j = i + 1; j < n - 1; j++)
            room -= l[j].w + gap; // the stops still to come need theirs
        if (l[i].x + l[i].w > room) l[i].x = room - l[i].w;
        if (l[i].x < l[prev].x + l[prev].w + gap || l[i].x + l[i].w > l[n - 1].x - gap)
            l[i].shown = false;
    }
}

void draw_scale_slider(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    double now = params_scale(p), lo = view_scale_min(p->d_k), hi = VIEW_SCALE_MAX;
    // The stops' names and the ends' values are numbers the class reads: at the board's floor (2.6
    // % digits).
    int f = c->num_font,
        lf = scene_number_floor(c->s->height) < f ? scene_number_floor(c->s->height) : f;
    int llh = line_h(c, FONT_REGULAR, lf);
    char val[64], label[96];
    model_format_value(now, val, sizeof val);
    snprintf(label, sizeof label, TR("scale %s%s"), val,
             p->scale > 0 ? "" : " = 1/" SQRT_SIGN "d_k");
    int lw =
        text_at(c, FONT_BOLD, f, c->th->result, x, y + (h - line_h(c, FONT_BOLD, f)) / 2, label);
    // TRANSLATORS: beside the softmax scale's slider: what the [ and ] keys do.
    const char *keys = c->ex->slide ? "" : TR("[ smaller   ] larger");
    int kw = keys[0] ? text_w(c, FONT_REGULAR, lf, keys) : 0;
    int tx = x + lw + f, tw = w - lw - f - (kw ? kw + f : 0) - f / 2;
    if (tw < 4 * f) return;
    int track_h = h - llh > 8 ? h - llh : 8,
        my = y + track_h / 2; // the track's band, the labels under it
    rect(c, tx, my - 1, tw, 3, c->th->muted);
    double span = log(hi) - log(lo);
    double stops[VIEW_SCALE_STOPS];
    view_scale_stops(p->d_k, stops);
    static const char *const names[VIEW_SCALE_STOPS] = {"1/d_k", "1/" SQRT_SIGN "d_k", "1"};
    SliderLabel l[VIEW_SCALE_STOPS + 2];
    int n = 0;
    model_format_value(lo, l[n].text, sizeof l[n].text); // the left end's value
    l[n++].at = tx;
    for (int i = 0; i < VIEW_SCALE_STOPS; i++) {
        if (i > 0 && stops[i] == stops[i - 1]) continue; // d_k = 1: one stop
        int sx = tx + (int)lround((log(stops[i]) - log(lo)) / span * tw);
        rect(c, sx - 1, my - track_h / 2 + 1, 3, track_h - 2, c->th->ink);
        snprintf(l[n].text, sizeof l[n].text, "%s", names[i]);
        l[n++].at = sx;
    }
    model_format_value(hi, l[n].text, sizeof l[n].text); // the right end's value
    l[n++].at = tx + tw;
    for (int i = 0; i < n; i++) l[i].w = math_w(c, FONT_REGULAR, lf, l[i].text);
    rect(c, tx - 1, my - track_h / 2 + 1, 2, track_h - 2, c->th->muted); // the ends
    rect(c, tx + tw - 1, my - track_h / 2 + 1, 2, track_h - 2, c->th->muted);
    slider_spread(l, n, tx - l[0].w / 2 > x + lw + f / 2 ? tx - l[0].w / 2 : x + lw + f / 2,
                  tx + tw + l[n - 1].w / 2, f / 2);
    for (int i = 0; i < n; i++)
        if (l[i].shown)
            math_at(c, FONT_REGULAR, lf, i == 0 || i == n - 1 ? c->th->muted : c->th->ink, l[i].x,
                    y + track_h, l[i].text);
    Scene *s = c->s; // where a press or a drag moves the scale (scene_slider_at)
    s->slider_x = tx;
    s->slider_y = y;
    s->slider_w = tw;
    s->slider_h = h;
    s->slider_d_k = p->d_k;
    int kx = tx + (int)lround((log(now < lo ? lo : now > hi ? hi : now) - log(lo)) / span * tw);
    int kwid = f / 3 < 6 ? 6 : f / 3;
    rect(c, kx - kwid / 2, y, kwid, track_h, c->th->result); // the thumb: in the track's band only
    if (kw) text_at(c, FONT_REGULAR, lf, c->th->muted, x + w - kw, y + (h - llh) / 2, keys);
}

// ---------------------------------------------------------------------------------------------------
// The shuffle test (key X): the outputs of the lesson and of its tokens reversed, side by side, and
// whether the rows only moved. The session computed both traces (core: params_shuffle); the scene
// shows them.

void draw_shuffle(Ctx *c, int x, int y, int w, int h)
{
    const SessionShuffle *sh = c->ex->shuffle;
    if (!sh) {
        text_in(c, FONT_REGULAR, c->text_font, c->th->muted, (Box){x, y, w, h}, CENTER,
                TR("The shuffled lesson could not be computed (see the banner)."));
        return;
    }
    ViewState st = *c->st;
    st.reveal = -1;
    SceneExtras none = {0};
    Ctx orig = *c, shuf = *c;
    orig.st = shuf.st = &st;
    orig.ex = shuf.ex = &none;
    orig.focus.mat = shuf.focus.mat = MAT_NONE;
    orig.lit_count = shuf.lit_count = 0;
    shuf.L = &sh->lesson;
    shuf.T = &sh->trace;
    shuf.memo.label_w_count = 0; // its own lesson's labels
    int f = c->text_font, lh = line_h(c, FONT_BOLD, f) + c->num_font / 4;
    // Line 1: the two orders (Shift+X: the next reordering, view_shuffle_perm); line 2: the
    // verdict, with the largest difference between a token's two output rows.
    char order[600], buf[600], fitted[600];
    // The two outputs, together where they fit whole, else each whole on a part of its own (→);
    // neither answers the pointer (the shuffled one is not the lesson's).
    int oy = y + 2 * lh + c->num_font / 3;
    Box room = {x, oy, w, y + h - oy};
    Ctx *const ctx[2] = {&orig, &shuf};
    const char *const titles[2] = {TR("Output"), TR("Output, tokens reordered")};
    PairPlan pp;
    bool together = pair_choose(c, ctx, titles, room, false, &pp);
    c->s->pair_parts = !together && pair_fits_floor(c, ctx, room) == 1 ? 2 : 1;
    int part = c->st->pair_part < c->s->pair_parts ? c->st->pair_part : c->s->pair_parts - 1;
    panel_text_shuffle_lines(c->L, sh, order, sizeof order, buf, sizeof buf);
    fit_text(c, FONT_BOLD, f, order, w, fitted, sizeof fitted);
    text_in(c, FONT_BOLD, f, c->th->ink, (Box){x, y, w, lh}, LEFT, fitted);
    fit_text(c, FONT_BOLD, f, buf, w, fitted, sizeof fitted);
    text_in(c, FONT_BOLD, f, c->th->result, (Box){x, y + lh, w, lh}, LEFT, fitted);
    draw_output_pair(c, &orig, &shuf, titles, room, room, false, c->s->pair_parts > 1 ? part : -1);
}

// ---------------------------------------------------------------------------------------------------
// Training: under the header, the step and the loss, the loss curve (log axis, its ends
// labelled) with the step shown marked, the saved checkpoints as ticks along its foot, the one
// shown as a knob (J / L move it), and what the keys do. It reads the session's copy of the trainer
// (the trainer may be busy on the worker thread).

bool training_shown(const Ctx *c)
{
    return c->ex->train && c->ex->train->active && c->ex->train->loss_count > 0
           && c->st->panel == PANEL_NONE;
}
int training_height(const Ctx *c)
{
    return 3 * line_h(c, FONT_REGULAR, c->num_font) + c->num_font / 3;
}

// A loss as the strip writes it: the board's format, small ones with an exponent.
static const char *loss_text(double v, char *buf, size_t cap)
{
    model_format_value(v, buf, cap);
    if (v < 0.001) snprintf(buf, cap, "%.2e", v);
    return buf;
}

const char *training_status(const Ctx *c, char *buf, size_t cap)
{
    const SessionTrain *t = c->ex->train;
    if (!t || !t->active || c->ex->slide) return NULL;
    int step = t->shown >= 0 ? t->checkpoint_steps[t->shown] : t->step;
    if (step == 0)
        return NULL; // the weights training started from: the edits, if any, are the teacher's
    snprintf(buf, cap,
             TRN("\xe2\x9c\x8e trained %d step  \xc2\xb7  R reverts  \xc2\xb7  Ctrl+S saves",
                 "\xe2\x9c\x8e trained %d steps  \xc2\xb7  R reverts  \xc2\xb7  Ctrl+S saves",
                 step),
             step);
    return buf;
}

// The training strip's values: the font, the step shown, the losses known, and the plot's place
// and range (log10 of the loss).
typedef struct {
    int f, lh; // the font and its line height
    int shown, known; // the step shown; loss[0 .. known) are known
    int px0, py0, pw, ph, steps;
    double lo, hi;
} TrainPlot;

static const char *const TRAIN_HEADS[] = {
    N_("Training: step %d / %d"), N_("Checkpoint: step %d / %d"), N_("Paused: step %d / %d")};

// The left column: the step, the loss and the axis's scale. Returns its width: that of its widest
// state, so the curve keeps its width from Training to Checkpoint.
static int training_left(Ctx *c, const SessionTrain *t, const TrainPlot *tp, int x, int y)
{
    int f = tp->f, lh = tp->lh, shown = tp->shown, known = tp->known;
    double loss_shown = shown < known ? t->loss[shown] : t->loss[known - 1];
    int which = t->running ? 0 : shown < t->step ? 1 : 2;
    char line1[160], line2[160], num[64], start[64], wide[160];
    snprintf(line1, sizeof line1, TR(TRAIN_HEADS[which]), shown, t->steps);
    loss_text(loss_shown, num, sizeof num);
    loss_text(t->loss[0], start, sizeof start);
    snprintf(line2, sizeof line2, TR("loss %s (from %s)"), num, start);
    const char *axis = TR("(a log scale)");
    int left = text_w(c, FONT_REGULAR, f, line2);
    if (text_w(c, FONT_REGULAR, f, axis) > left) left = text_w(c, FONT_REGULAR, f, axis);
    snprintf(wide, sizeof wide, TR("loss %s (from %s)"), "8.88e-08", start);
    if (text_w(c, FONT_REGULAR, f, wide) > left) left = text_w(c, FONT_REGULAR, f, wide);
    for (int i = 0; i < 3; i++) {
        snprintf(wide, sizeof wide, TR(TRAIN_HEADS[i]), t->steps, t->steps);
        if (text_w(c, FONT_BOLD, f, wide) > left) left = text_w(c, FONT_BOLD, f, wide);
    }
    left += f;
    text_at(c, FONT_BOLD, f, c->th->result, x, y, line1);
    text_at(c, FONT_REGULAR, f, c->th->ink, x, y + lh, line2);
    text_at(c, FONT_REGULAR, f, c->th->muted, x, y + 2 * lh, axis);
    return left;
}

// log10 of the loss from the smallest to the largest known (at least one decade).
static void training_range(const SessionTrain *t, TrainPlot *tp)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < tp->known; i++)
        if (t->loss[i] > 0) {
            double v = log10(t->loss[i]);
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    if (!(hi >= lo)) lo = hi = 0;
    if (hi - lo < 1) lo = hi - 1;
    tp->lo = lo;
    tp->hi = hi;
}

// The curve: one point per pixel column, the loss at that step.
static void training_curve(Ctx *c, const SessionTrain *t, const TrainPlot *tp)
{
    int prev_x = -1, prev_y = 0, pw = tp->pw, ph = tp->ph;
    double lo = tp->lo, hi = tp->hi;
    for (int col = 0; col < pw - 2; col++) {
        int k = (int)((double)col / (pw - 3 > 0 ? pw - 3 : 1) * tp->steps);
        if (k >= tp->known) break;
        double v = t->loss[k] > 0 ? log10(t->loss[k]) : lo;
        int yy = tp->py0 + 1 + (int)lround((hi - v) / (hi - lo) * (ph - 3));
        int xx = tp->px0 + 1 + col;
        if (prev_x >= 0) {
            DrawCmd *d =
                scene_push(c->s, CMD_LINE, prev_x, prev_y, xx - prev_x, yy - prev_y, c->th->result);
            if (d) d->thickness = 2;
        }
        prev_x = xx;
        prev_y = yy;
    }
}

// The step shown, a line across the plot; the checkpoints under it, a tick each, the one shown (or
// the newest weights) a knob. The plot's place is kept for the pointer.
static void training_marks(Ctx *c, const SessionTrain *t, const TrainPlot *tp, int y, int h)
{
    int px0 = tp->px0, py0 = tp->py0, pw = tp->pw, ph = tp->ph, steps = tp->steps;
    c->s->train_x = px0 + 1;
    c->s->train_w = pw - 3;
    c->s->train_y = py0;
    c->s->train_h = h - (py0 - y);
    c->s->train_steps = steps;
    int sx = px0 + 1 + (int)lround((double)tp->shown / steps * (pw - 3));
    rect(c, sx - 1, py0, 2, ph, c->th->ink);
    int ty = py0 + ph + 2, thh = h - (ty - y);
    for (int i = 0; i < t->checkpoint_count; i++) {
        int cx = px0 + 1 + (int)lround((double)t->checkpoint_steps[i] / steps * (pw - 3));
        rect(c, cx, ty, 1, thh > 2 ? thh - 2 : 1, c->th->muted);
    }
    int kwid = tp->f / 3 < 6 ? 6 : tp->f / 3;
    rect(c, sx - kwid / 2, ty, kwid, thh, c->th->result);
}

// The training strip: the step and the loss at the left, the loss curve on a log scale with its
// checkpoints, the keys at the right.
void draw_training(Ctx *c, int x, int y, int w, int h)
{
    const SessionTrain *t = c->ex->train;
    TrainPlot tp;
    tp.f = c->num_font;
    tp.lh = line_h(c, FONT_REGULAR, tp.f);
    tp.shown = t->shown >= 0 ? t->checkpoint_steps[t->shown] : t->step;
    tp.known = t->loss_count;
    int f = tp.f, lh = tp.lh;
    int left = training_left(c, t, &tp, x, y);
    // What the keys do, a line each at the right (not on a slide)
    const char *keys[3] = {TR("T trains / pauses"), TR("J L checkpoints"),
                           TR("Z step 0  \xc2\xb7  V exports")};
    int kw = 0;
    for (int i = 0; i < 3 && !c->ex->slide; i++)
        if (text_w(c, FONT_REGULAR, f, keys[i]) > kw) kw = text_w(c, FONT_REGULAR, f, keys[i]);
    training_range(t, &tp);
    // The axis: the loss at the top and at the foot of the plot, at its left
    char top[64], foot[64];
    loss_text(pow(10, tp.hi), top, sizeof top);
    loss_text(pow(10, tp.lo), foot, sizeof foot);
    int aw = text_w(c, FONT_REGULAR, f, top) > text_w(c, FONT_REGULAR, f, foot)
                 ? text_w(c, FONT_REGULAR, f, top)
                 : text_w(c, FONT_REGULAR, f, foot);
    tp.px0 = x + left + aw + f / 3;
    tp.pw = w - left - aw - f / 3 - (kw ? kw + f : 0);
    if (tp.pw < 6 * f) return;
    tp.py0 = y + 2;
    tp.ph = h - f / 2 - 4; // the plot; the checkpoint ticks below it
    text_in(c, FONT_REGULAR, f, c->th->muted, (Box){x + left, tp.py0, aw, lh}, RIGHT, top);
    text_in(c, FONT_REGULAR, f, c->th->muted, (Box){x + left, tp.py0 + tp.ph - lh, aw, lh}, RIGHT,
            foot);
    frame(c, tp.px0, tp.py0, tp.pw, tp.ph, 1, c->th->grid);
    tp.steps = t->steps > 0 ? t->steps : 1;
    training_curve(c, t, &tp);
    training_marks(c, t, &tp, y, h);
    for (int i = 0; i < 3 && kw; i++)
        text_at(c, FONT_REGULAR, f, c->th->muted, x + w - kw, y + i * lh, keys[i]);
}
