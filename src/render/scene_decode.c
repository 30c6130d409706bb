// The two panels of today's attention that compute the trace's numbers another way: generation with
// a KV cache (key G: token t's query over the cached keys and values, the cache growing, the work
// with and without it) and FlashAttention's tiles (key B: one tile of scores at a time, the running
// m, l and O). Their numbers are the trace's rows (core/decode.c gives the same bits,
// tests/test_decode_tiles.py checks).
#include "render/scene_panels.h"
#include "render/scene_board.h"
#include "render/scene_text.h"
#include "core/cost.h"
#include "core/decode.h"
#include "model/panel_text.h"
#include "model/view.h"

// A matrix of the trace shown in part: rows r0 .. r0+nr-1 and columns c0 .. c0+nc-1, under its own
// title.
// *part says which (mat, head, result), the part (r0, nr, c0, nc) and the title.
static void part_box(const Ctx *c, const GridStyle *g, MatBox *b, const MatBox *part)
{
    box_init(c, g, b, part->mat, part->head, part->result);
    b->r0 = part->r0, b->nr = part->nr, b->c0 = part->c0, b->nc = part->nc;
    b->rows = part->nr,
    b->cols =
        part->nc; // the part is the whole of what this panel means: no "rows a–b of N" caption
    b->title = part->title;
}

// A sentence around the decode board, with its numbers (the token, the cache's size, the work) at
// the board's floor (digits of 2.6 % of the window), at least the sentence size; wrapped in w;
// returns its height.
static int tell(Ctx *c, FontRole f, Rgba color, int x, int y, int w, const char *text, bool draw)
{
    int size = scene_number_floor(c->s->height) > c->text_font ? scene_number_floor(c->s->height)
                                                               : c->text_font;
    return wrap_text(c, f, size, color, x, y, w, 3, text, draw);
}

// ---------------------------------------------------------------------------------------------------
// KV-cache decoding (key G)

// The decode board: the query above the K cache, the cache rows' scores and weights as columns
// beside it (one row per cached token), the V cache, and z under it. Every cell is the trace's,
// tagged for its hover. the caches are shown whole. Before any window the board gives up
// what repeats: the scores column (the weights stay), air in the cells, the column labels that the
// box above already gives (K under q, z under V), V's row labels (its rows are K's and the weights'
// beside it), the cache's sentence. Only a cache too tall for that at the floor shows its newest
// rows, as many as fit (a window "rows a–b of t+1"), and only then are the d_k columns windowed.
typedef struct {
    int first; // the first cached row shown (0: the whole cache)
    int cols; // the d_k columns shown of q, K, V and z
    bool scores; // the scaled scores' column beside the weights
    bool q_beside; // the query left of the K cache (where the width allows), else above it
    bool shared; // labels given once: K's columns by q above it, z's by V, V's rows by K and the
                 // weights
    int half; // 0: the whole step; 1: q over the K cache, the scores and the weights; 2: the
              // weights, the V cache and z (two parts, each whole, where the step does not fit
              // whole at once)
    DecodeBuffer buf; // the step's rolling buffer (a sliding window): its rows, the slot written,
                      // the key let go
    int slot_w; // with a window, the column of slots left of the caches' row labels (0: none)
    MatBox q, k, v, z;
    int col_w; // the score and weight columns' cell width
    int op_w[3]; // "← q·", "softmax", "×" between them
    int sigma_w; // "Σ =" left of z when V has no row labels
    int width, height;
} DecodeBoard;

static const char *const DECODE_OPS[3] = {"\xe2\x86\x90 q\xc2\xb7", "softmax", "\xc3\x97"};
// "← q·" on two lines, "q·" over "←", where the width is short (shared labels).
static const char *const DECODE_OP0_LINES[2] = {"q\xc2\xb7", "\xe2\x86\x90"};
#define DECODE_SIGMA "\xce\xa3 ="

// The matrices the decoder reads: with RoPE the rotated query and keys (the cache holds the turned
// k_t).
static MatId decode_mat(const Ctx *c, int i)
{
    bool rope = c->L->params.rope != ROPE_NONE;
    static const MatId plain[4] = {MAT_Q, MAT_K, MAT_V, MAT_Z},
                       rotated[4] = {MAT_QROT, MAT_KROT, MAT_V, MAT_Z};
    return rope ? rotated[i] : plain[i];
}

// The step shown: the token generated, the head, and the names of its four matrices.
typedef struct {
    int t, head;
    char names[4][64];
} DecodeStep;

static void decode_names(const Ctx *c, DecodeStep *ds)
{
    int t = ds->t, head = ds->head;
    char(*names)[64] = ds->names;
    for (int i = 0; i < 4; i++) {
        model_mat_name(&c->L->params, decode_mat(c, i), head, names[i], 64);
        size_t n = strlen(names[i]);
        if (i == 1 || i == 2) snprintf(names[i] + n, 64 - n, " %s", TR("cache"));
        else snprintf(names[i] + n, 64 - n, "[%s]", c->L->tokens[t]);
    }
}

// A cache box: rows first .. t of K or V (*part), of the `cached` rows the cache holds (t + 1, or
// the window's with a rolling buffer, whose rows carry their positions).
static void cache_box(const Ctx *c, const GridStyle *g, MatBox *b, const MatBox *part,
                      const DecodeBuffer *buf)
{
    part_box(c, g, b, part);
    b->rows = buf->cached;
    b->cols = c->L->params.d_k;
    b->positions = buf->rows < c->L->params.n;
}

// The air between the slots' column and the row labels right of it.
static int slot_air(const GridStyle *g) { return g->num_font / 5; }

// With a sliding window: the slots' column left of a cache's row labels, as wide as its numbers
// (the word "slot" stands over it on the cache's title line, left of the title).
static int slot_width(const Ctx *c, const GridStyle *g, const DecodeBuffer *buf)
{
    if (buf->rows >= c->L->params.n) return 0;
    char last[16];
    snprintf(last, sizeof last, "%d", buf->rows - 1);
    return text_w(c, FONT_BOLD, g->label_font, last) + g->num_font / 3 + slot_air(g);
}

// A row-label column as wide as the labels of the rows shown (a rolling buffer's with their
// positions, "mat₅": the buffer holds W rows, not every token's), padded as box_init pads it.
static int shown_label_w(const Ctx *c, const GridStyle *g, const MatBox *b)
{
    char buf[160];
    int w = 0, cap = (g->tight ? 3 : 5) * g->num_font;
    for (int i = 0; i < b->nr; i++) {
        box_row_label(c, b, b->r0 + i, buf, sizeof buf);
        int tw = text_w(c, FONT_REGULAR, g->label_font, buf);
        if (tw > w) w = tw;
    }
    return (w > cap ? cap : w) + g->num_font / 3 + 3 * result_rule(g);
}

// The style of a box whose column labels the box above gives (shared labels): room only for a
// result's frame (result) or for the cells' own thin frame.
static GridStyle no_col_labels(const GridStyle *g, bool result)
{
    GridStyle s = *g;
    s.no_col_labels = true;
    s.col_label_h = result ? 3 * result_rule(g) : 3;
    return s;
}

// The K box's style (its columns are q's when q is above it) and z's (V's above it).
static GridStyle k_style(const GridStyle *g, const DecodeBoard *d)
{
    return d->shared && !d->q_beside ? no_col_labels(g, false) : *g;
}
static GridStyle z_style(const GridStyle *g, const DecodeBoard *d)
{
    if (!d->shared) return *g;
    GridStyle s = no_col_labels(g, true);
    s.title_h = 0; // its name stands left of "Σ =", under the K cache
    return s;
}
// z's in the second of two parts: V's column labels above it serve, its name stands left of its
// row.
static GridStyle z_values_style(const GridStyle *g)
{
    GridStyle s = no_col_labels(g, true);
    s.title_h = 0;
    return s;
}

// A box's title as draw_matrix writes it ("Z₀[mat]  (1×4)"), for the names written beside their
// row.
static const char *names_title(const MatBox *b, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s  (%d%s%d)", b->title ? b->title : "", b->rows, SCENE_TIMES, b->cols);
    return buf;
}

// q's: with shared labels its name stands right of its row, over the weights and V (no line of its
// own).
static GridStyle q_style(const GridStyle *g, const DecodeBoard *d)
{
    GridStyle s = *g;
    if (d->shared && !d->q_beside && d->half != 1)
        s.title_h = 0; // (the first of two parts has room above it)
    return s;
}

// The air between q and the K cache, and between V and z (less with shared labels, and in the
// second of two parts, where z sits under V's columns).
static int decode_air(const GridStyle *g, const DecodeBoard *d)
{
    return d->shared || d->half == 2 ? g->gap / 8 : g->gap / 2;
}

// The width of the score and weight columns beside the cache: their widest number (or "S′"),
// with air.
static int decode_col_w(const Ctx *c, const GridStyle *g, const DecodeBoard *d, int t, int head)
{
    char buf[48];
    int col_w = text_w(c, FONT_BOLD, g->title_font, "S\xe2\x80\xb2");
    for (int j = d->first; j <= t; j++) {
        static const MatId kinds[2] = {MAT_MASKED, MAT_WEIGHTS};
        for (int k = 0; k < 2; k++) {
            if (k == 0 && !d->scores) continue; // no scores column: only the weights' width
            model_format_value(cell_value(c, (CellRef){kinds[k], head, t, j}), buf, sizeof buf);
            int tw = text_w(c, FONT_REGULAR, g->num_font, buf);
            if (tw > col_w) col_w = tw;
        }
    }
    return col_w + (d->shared ? g->num_font / 3 : g->num_font / 2);
}

// The widths of the operators between the board's columns (d->op_w; "← q·" on two lines with
// shared labels); returns their sum.
static int decode_op_widths(const Ctx *c, const GridStyle *g, DecodeBoard *d)
{
    int sum = 0;
    for (int k = 0; k < 3; k++) {
        d->op_w[k] = k == 1 && !d->scores ? 0 : op_width(c, g, DECODE_OPS[k]);
        if (d->shared && d->op_w[k] > 0)
            d->op_w[k] += g->gap / 4 - 2 * g->gap; // little air around the operators
        if (d->shared && k == 0) {
            int a = math_w(c, FONT_BOLD, g->op_font, DECODE_OP0_LINES[0]),
                b = math_w(c, FONT_BOLD, g->op_font, DECODE_OP0_LINES[1]);
            d->op_w[0] = (a > b ? a : b) + g->gap / 2;
        }
        sum += d->op_w[k];
    }
    return sum;
}

static void decode_board(const Ctx *c, const GridStyle *g, const DecodeStep *ds, DecodeBoard *d)
{
    int t = ds->t, head = ds->head;
    const char(*names)[64] = ds->names;
    const AttnParams *p = &c->L->params;
    int first = d->first, cols = d->cols, half = d->half;
    // The second of two parts has V alone: its own row and column labels, z's name over it.
    bool scores = d->scores, beside = d->q_beside, shared = d->shared && half != 2;
    memset(d, 0, sizeof *d);
    d->first = first, d->cols = cols, d->scores = scores, d->q_beside = beside, d->shared = shared,
    d->half = half;
    d->buf = decode_buffer(p, t);
    // q and z: row t; the caches: rows first .. t.
    MatBox q = {.mat = decode_mat(c, 0), .head = head, .r0 = t, .nr = 1, .nc = cols},
           k = {
               .mat = decode_mat(c, 1), .head = head, .r0 = first, .nr = t + 1 - first, .nc = cols};
    MatBox v = k, z = q;
    q.title = names[0], k.title = names[1], v.title = names[2], z.title = names[3];
    v.mat = MAT_V, z.mat = MAT_Z, z.result = true;
    part_box(c, g, &d->q, &q);
    cache_box(c, g, &d->k, &k, &d->buf);
    cache_box(c, g, &d->v, &v, &d->buf);
    part_box(c, g, &d->z, &z);
    d->q.cols = d->z.cols = p->d_k;
    // One cell width for the query and the K cache (the query sits on the cache's columns), and for
    // V and z.
    d->q.cell_w = d->k.cell_w = d->q.cell_w > d->k.cell_w ? d->q.cell_w : d->k.cell_w;
    d->q.label_w = d->k.label_w = d->q.label_w > d->k.label_w ? d->q.label_w : d->k.label_w;
    d->v.cell_w = d->z.cell_w = d->v.cell_w > d->z.cell_w ? d->v.cell_w : d->z.cell_w;
    d->v.label_w = d->z.label_w = shared                        ? 0
                                  : d->v.label_w > d->z.label_w ? d->v.label_w
                                                                : d->z.label_w;
    // A rolling buffer: its rows' labels with their positions, the slots left of K's (and of V's in
    // the values' part); q keeps K's columns, z V's.
    d->slot_w = slot_width(c, g, &d->buf);
    if (d->slot_w > 0) {
        int lw = shown_label_w(c, g, &d->k), ql = shown_label_w(c, g, &d->q);
        d->k.label_w = d->slot_w + (lw > ql || beside ? lw : ql);
        if (!beside) d->q.label_w = d->k.label_w;
        if (!shared) d->v.label_w = d->z.label_w = (half == 2 ? d->slot_w : 0) + lw;
    }
    d->col_w = decode_col_w(c, g, d, t, head);
    d->width = box_width(g, &d->k) + (scores ? 2 : 1) * d->col_w + box_width(g, &d->v);
    d->width += decode_op_widths(c, g, d);
    // Without V's row labels "Σ =" stands left of z, under the weights: wider than them, the board
    // widens.
    d->sigma_w = shared ? text_w(c, FONT_BOLD, g->op_font, DECODE_SIGMA) + g->gap / 2
                        : 0; // (and z's frame's room)
    int under = d->op_w[2] + d->col_w;
    if (d->sigma_w + 2 * result_rule(g) > under)
        d->width += d->sigma_w + 2 * result_rule(g) - under;
    GridStyle gk = k_style(g, d), gz = z_style(g, d), gq = q_style(g, d);
    int qh = box_height(&gq, &d->q), kh = box_height(&gk, &d->k);
    if (beside) d->width += box_width(g, &d->q) + g->gap;
    int air = decode_air(g, d);
    d->height = (beside ? (qh > kh ? qh : kh) : qh + air + kh) + air + box_height(&gz, &d->z);
    if (half == 1) { // q and the K cache, then the scores and the weights: no × V, no z
        d->width = (beside ? box_width(g, &d->q) + g->gap : 0) + box_width(g, &d->k) + d->op_w[0]
                   + d->op_w[1] + (scores ? 2 : 1) * d->col_w;
        d->height = beside ? (qh > kh ? qh : kh) : qh + air + kh;
    } else if (half == 2) { // the weights again, × the V cache, z under it: z's name and "Σ =" left
                            // of its row
        GridStyle gzv = z_values_style(g);
        // z's row label is its name's token: "Σ =" in V's label column, the name (without its
        // shape: V's width) left of it, under the weights and ×.
        d->z.label_w = 0;
        int left = d->col_w + d->op_w[2] + d->v.label_w;
        int need = math_w(c, FONT_BOLD, g->title_font, d->z.title) + g->gap / 2
                   + text_w(c, FONT_BOLD, g->op_font, DECODE_SIGMA) + g->gap / 2;
        d->sigma_w = need > left ? need - left : 0; // how far the name reaches left of the weights
        d->width = d->sigma_w + d->col_w + d->op_w[2] + box_width(g, &d->v);
        d->height = box_height(g, &d->v) + air + box_height(&gzv, &d->z);
    }
}

// A column of cells m[t][first..t] beside the cache rows: token j's score or weight in row j.
// from: the matrix, head and row (t), and the first column shown; r: the column's place and one
// cell's size (r.w x r.h).
static void draw_row_as_column(Ctx *c, const GridStyle *g, CellRef from, Box r, const char *title)
{
    MatId m = from.mat;
    int head = from.head, t = from.row, first = from.col, x = r.x, y = r.y, cw = r.w, ch = r.h;
    text_in(c, FONT_REGULAR, g->title_font, c->th->ink, (Box){x, y, cw, g->title_h}, CENTER, title);
    int gy = y + g->title_h + g->col_label_h;
    double range = group_range(c, m);
    char buf[48];
    for (int j = first; j <= t; j++) {
        CellRef ref = {m, head, t, j};
        double v = cell_value(c, ref);
        Rgba bg = cell_color(c, m, v, range);
        int y0 = gy + (j - first) * ch;
        cell_rect(c, x, y0, cw - 1, ch - 1, bg, ref);
        if (isinf(v))
            scene_push(c->s, CMD_HATCH, x, y0, cw - 1, ch - 1, c->th->hatch); // outside the window
        model_format_value(v, buf, sizeof buf);
        if (text_in(c, FONT_REGULAR, g->num_font, isinf(v) ? c->th->ink : colormap_text_on(bg),
                    (Box){x, y0, cw - 1, ch - 1}, CENTER, buf)
            > 0)
            tag_last(c, ROLE_NUMBER, ref);
        scene_push_hit(c->s, x, y0, cw, ch, ref, -1);
    }
    frame(c, x - 2, gy - 2, cw + 3, (t + 1 - first) * ch + 3, 1, c->th->muted);
}

// A rolling buffer's slots left of a cache drawn at (x, y) with style gb: each row's slot, the slot
// this step wrote framed in the result's colour, the word "slot" over them on the cache's title
// line (left of the title, which stands over the cells).
static void draw_slots(Ctx *c, const GridStyle *g, const GridStyle *gb, const DecodeBoard *d,
                       const MatBox *b, int x, int y)
{
    if (d->slot_w <= 0) return;
    const AttnParams *p = &c->L->params;
    // TRANSLATORS: the decode panel (G): the header of the rolling buffer's column of slot numbers;
    // keep it short.
    const char *word = TR("slot");
    text_in(c, FONT_BOLD, g->label_font, c->th->muted,
            (Box){x, y, text_w(c, FONT_BOLD, g->label_font, word), gb->title_h}, LEFT, word);
    int cells_y = y + gb->title_h + gb->col_label_h,
        rule = result_rule(g) / 2 > 1 ? result_rule(g) / 2 : 1;
    for (int i = 0; i < b->nr; i++) {
        int j = b->r0 + i, slot = decode_buffer(p, j).slot, y0 = cells_y + i * b->cell_h;
        bool written = slot == d->buf.slot;
        char num[16];
        snprintf(num, sizeof num, "%d", slot);
        int w = d->slot_w - slot_air(g);
        text_in(c, written ? FONT_BOLD : FONT_REGULAR, g->label_font,
                written ? c->th->result : c->th->muted, (Box){x, y0, w, b->cell_h}, CENTER, num);
        if (written) frame(c, x, y0 + rule, w, b->cell_h - 2 * rule, rule, c->th->result);
    }
}

// The second part of a step shown in two: the weights (as in the first part), × the V cache, z
// under it.
static void draw_decode_values(Ctx *c, const GridStyle *g, const DecodeBoard *d, int t, int head,
                               int x, int y)
{
    char name[48];
    model_mat_name(&c->L->params, MAT_WEIGHTS, head, name, sizeof name);
    x += d->sigma_w;
    draw_row_as_column(c, g, (CellRef){MAT_WEIGHTS, head, t, d->first},
                       (Box){x, y, d->col_w, d->v.cell_h}, name);
    int xx = x + d->col_w, cells_y = y + g->title_h + g->col_label_h;
    text_in(c, FONT_BOLD, g->op_font, c->th->muted,
            (Box){xx, cells_y, d->op_w[2], d->v.nr * d->v.cell_h}, CENTER, DECODE_OPS[2]);
    xx += d->op_w[2];
    draw_matrix(c, g, &d->v, xx, y);
    draw_slots(c, g, g, d, &d->v, xx, y);
    GridStyle gzv = z_values_style(g);
    int zy = y + box_height(g, &d->v) + decode_air(g, d), zc = zy + gzv.col_label_h;
    int sw = text_w(c, FONT_BOLD, g->op_font, DECODE_SIGMA) + g->gap / 2;
    xx += d->v.label_w; // V's cells: z's under them
    text_in(c, FONT_BOLD, g->op_font, c->th->muted, (Box){xx - sw, zc, sw, d->z.cell_h}, CENTER,
            DECODE_SIGMA);
    const char *title = d->z.title;
    math_at(c, FONT_BOLD, g->title_font, c->th->result,
            xx - sw - math_w(c, FONT_BOLD, g->title_font, title) - g->gap / 2,
            zc + (d->z.cell_h - line_h(c, FONT_BOLD, g->title_font)) / 2, title);
    draw_matrix(c, &gzv, &d->z, xx, zy);
}

static void draw_decode_board(Ctx *c, const GridStyle *g, const DecodeBoard *d, int t, int head,
                              int x, int y)
{
    if (d->half == 2) {
        draw_decode_values(c, g, d, t, head, x, y);
        return;
    }
    GridStyle gk = k_style(g, d), gz = z_style(g, d), gq = q_style(g, d);
    char title[160];
    int qh = box_height(&gq, &d->q) + decode_air(g, d), ky = y + (d->q_beside ? 0 : qh), xx = x;
    int cells_y = ky + gk.title_h + gk.col_label_h, cells_h = d->k.nr * d->k.cell_h;
    if (d->q_beside) { // on the K cache's last row: the new token's query beside the keys it reads
        draw_matrix(c, g, &d->q, x,
                    cells_y + (d->k.nr - 1) * d->k.cell_h - g->title_h - g->col_label_h);
        xx += box_width(g, &d->q) + g->gap;
    } else {
        draw_matrix(c, &gq, &d->q, x, y);
        if (gq.title_h == 0) // its name right of its row
            math_at(c, FONT_REGULAR, g->title_font, c->th->ink, x + box_width(g, &d->q) + g->gap,
                    y + gq.col_label_h + (d->q.cell_h - line_h(c, FONT_REGULAR, g->title_font)) / 2,
                    names_title(&d->q, title, sizeof title));
    }
    draw_matrix(c, &gk, &d->k, xx, ky);
    draw_slots(c, g, &gk, d, &d->k, xx, ky);
    xx += box_width(g, &d->k);
    for (int k = 0; k < 3; k++) {
        if (d->shared && k == 0) { // two lines about the middle of the cache
            int lh = line_h(c, FONT_BOLD, g->op_font);
            for (int l = 0; l < 2; l++)
                text_in(c, FONT_BOLD, g->op_font, c->th->muted,
                        (Box){xx, cells_y + cells_h / 2 - lh + l * lh, d->op_w[k], lh}, CENTER,
                        DECODE_OP0_LINES[l]);
        } else if (d->op_w[k] > 0)
            text_in(c, FONT_BOLD, g->op_font, c->th->muted, (Box){xx, cells_y, d->op_w[k], cells_h},
                    CENTER, DECODE_OPS[k]);
        xx += d->op_w[k];
        if (k == 2) break;
        if (k == 0 && !d->scores) continue;
        MatId m = k == 0 ? MAT_MASKED : MAT_WEIGHTS;
        char name[48];
        model_mat_name(&c->L->params, m, head, name, sizeof name);
        draw_row_as_column(c, &gk, (CellRef){m, head, t, d->first},
                           (Box){xx, ky, d->col_w, d->k.cell_h}, name);
        xx += d->col_w;
        if (k == 1 && d->half == 1) return; // the first of two parts ends with the weights
    }
    draw_matrix(c, &gk, &d->v, xx, ky);
    int zy = ky + box_height(&gk, &d->v) + decode_air(g, d);
    if (d->shared) { // left of z's one row, under the weights, its name left of that
        int zc = zy + gz.col_label_h;
        text_in(c, FONT_BOLD, g->op_font, c->th->muted,
                (Box){xx - d->sigma_w - 2 * result_rule(g), zc, d->sigma_w, d->z.cell_h}, CENTER,
                DECODE_SIGMA); // clear of z's frame
        const char *zt = names_title(&d->z, title, sizeof title);
        int tw = math_w(c, FONT_BOLD, g->title_font, zt);
        math_at(c, FONT_BOLD, g->title_font, c->th->result,
                xx - d->sigma_w - 2 * result_rule(g) - tw - g->gap / 2,
                zc + (d->z.cell_h - line_h(c, FONT_BOLD, g->title_font)) / 2, zt);
    } else
        text_in(c, FONT_BOLD, g->op_font, c->th->muted,
                (Box){xx, zy, d->v.label_w, g->title_h + g->col_label_h + d->z.cell_h}, RIGHT,
                DECODE_SIGMA);
    draw_matrix(c, &gz, &d->z, xx, zy);
}

// Bars of the multiply-adds of every step so far, with (filled) and without (outlined) the cache,
// each pair over its token's number, the legend at their left; their texts at the floor.
static void draw_work_bars(Ctx *c, const AttnParams *p, int t, Box r)
{
    int64_t most = decode_work(p, p->n - 1).without_cache;
    int lf = ctx_number_floor(c), lh = line_h(c, FONT_REGULAR, lf);
    int x = r.x + r.w / 4, y = r.y, w = r.w / 2, h = r.h - lh;
    if (most <= 0 || h < 4) return;
    int slot = w / (p->n > 0 ? p->n : 1), bw = slot * 2 / 5 > 1 ? slot * 2 / 5 : 1;
    char num[16];
    for (int i = 0; i < p->n; i++) {
        DecodeWork dw = decode_work(p, i);
        int hw = (int)((double)dw.without_cache / (double)most * h),
            hc = (int)((double)dw.with_cache / (double)most * h);
        hw = hw > 1 ? hw : 1, hc = hc > 1 ? hc : 1;
        int bx = x + i * slot + (slot - 2 * bw) / 2;
        frame(c, bx, y + h - hw, bw, hw, 1, i <= t ? c->th->muted : c->th->empty);
        rect(c, bx + bw, y + h - hc, bw, hc, i <= t ? c->th->result : c->th->empty);
        snprintf(num, sizeof num, "%d", i + 1);
        text_in(c, FONT_REGULAR, lf, i <= t ? c->th->ink : c->th->muted,
                (Box){x + i * slot, y + h, slot, lh}, CENTER, num);
    }
    // TRANSLATORS: the legend of the decode panel's bars (key G): each token's multiply-adds with
    // the KV cache (filled bar) and without it (outlined bar).
    const char *legend[2] = {TR("with the cache"), TR("without it")};
    int sq = lf / 2, lw = r.w / 4 - lf;
    for (int k = 0; k < 2 && h + lh >= 2 * lh; k++) {
        char fitted[96];
        fit_text(c, FONT_REGULAR, lf, legend[k], lw - sq - lf / 3, fitted, sizeof fitted);
        int tw = text_w(c, FONT_REGULAR, lf, fitted), ly = y + h + lh - (2 - k) * lh;
        text_at(c, FONT_REGULAR, lf, k ? c->th->muted : c->th->result, x - lf / 2 - tw, ly, fitted);
        int sx = x - lf / 2 - tw - lf / 3 - sq, sy = ly + (lh - sq) / 2;
        if (k) frame(c, sx, sy, sq, sq, 1, c->th->muted);
        else rect(c, sx, sy, sq, sq, c->th->result);
    }
}

// The sentences under the board: the cache's (with the keys: the whole step, or its first part) and
// the work's (with the sum: the whole step, or its second part).
static int said_h(int half, bool cache_line, bool work_line, int cache_h, int work_h)
{
    return (cache_line && half != 2 ? cache_h : 0) + (work_line && half != 1 ? work_h : 0);
}

// The ways to try the decode board, in order. Whole matrices first, each way from the preferred
// size down to the floor: the query beside the cache or above it, with the scores column or
// without; the same with tight cells (d_k = 4 beside a cache of long tokens was cut to 2
// columns at 720p); then with the labels given once; then without the cache's sentence. Then the
// step in two parts, each whole: q·K with the scores and weights, then the weights × V and z
// (a d_k of 8 beside its V cache does not fit 720p, nor 1080p, at the floor). Only then,
// at the floor, the cache's newest rows (as many as fit) and fewer d_k columns. The last try gives
// up the work's sentence and bars too (no_work), before any window: French's longer sentences left
// 8 px short for an 8-row cache of d_k = 8 at 720p (the audit found its cache windowed).
typedef struct {
    bool beside, scores, tight, shared, cache_line, split, no_work;
} DecodeTry;
static const DecodeTry DECODE_TRIES[] = {
    {true, true, false, false, true, false, false},
    {true, false, false, false, true, false, false},
    {false, true, false, false, true, false, false},
    {false, false, false, false, true, false, false},
    {true, true, true, false, true, false, false},
    {true, false, true, false, true, false, false},
    {false, true, true, false, true, false, false},
    {false, false, true, false, true, false, false},
    {true, true, true, true, true, false, false},
    {true, false, true, true, true, false, false},
    {false, true, true, true, true, false, false},
    {false, false, true, true, true, false, false},
    {false, true, true, true, false, false, false},
    {false, false, true, true, false, false, false},
    {true, true, false, false, true, true, false},
    {false, true, false, false, true, true, false},
    {true, true, true, false, true, true, false},
    {false, true, true, false, true, true, false},
    {false, false, true, false, true, true, false},
    {false, true, true, true, true, true, false},
    {false, false, true, true, true, true, false},
    {false, false, true, true, false, true, false},
    {false, false, true, true, false, true, true},
};
enum { DECODE_NTRIES = sizeof DECODE_TRIES / sizeof DECODE_TRIES[0] };

// The sentences around the decode board and their heights: the model's (the page's text view says
// them too: the intro over the whole step, the cache's and the work's under it), and said[0] and
// said[1] over the step's two parts.
typedef struct {
    DecodeSentences text;
    char said[2][700];
    int intro_h[3]; // the intro's, said[0]'s, said[1]'s
    int cache_h, work_h;
} DecodeTexts;

// Token t's sentences, measured in width w.
static void decode_texts(Ctx *c, int t, int x, int y, int w, DecodeTexts *s)
{
    const AttnParams *p = &c->L->params;
    int cached = decode_buffer(p, t).cached;
    panel_text_decode_sentences(c->L, t, &s->text);
    if (!c->ex->slide) // the keys in the window, not on paper
        snprintf(s->text.intro + strlen(s->text.intro),
                 sizeof s->text.intro - strlen(s->text.intro), "  %s", s->text.keys);
    snprintf(s->said[0], sizeof s->said[0],
             // TRANSLATORS: the decode panel (key G) shows a token's step in two parts where it
             // does not fit at once.
             TRN("Token %d of %d: \xe2\x80\x9c%s\xe2\x80\x9d \xe2\x80\x94 part 1 of 2: its q "
                 "against the %d cached key "
                 "(\xe2\x86\x92 the values).",
                 "Token %d of %d: \xe2\x80\x9c%s\xe2\x80\x9d \xe2\x80\x94 part 1 of 2: its q "
                 "against the %d cached keys "
                 "(\xe2\x86\x92 the values).",
                 cached),
             t + 1, p->n, c->L->tokens[t], cached);
    snprintf(s->said[1], sizeof s->said[1],
             // TRANSLATORS: the second part of the decode panel's step (key G).
             TRN("Token %d of %d: \xe2\x80\x9c%s\xe2\x80\x9d \xe2\x80\x94 part 2 of 2: the "
                 "weights sum the %d cached value "
                 "(\xe2\x86\x90 the keys).",
                 "Token %d of %d: \xe2\x80\x9c%s\xe2\x80\x9d \xe2\x80\x94 part 2 of 2: the "
                 "weights sum the %d cached values "
                 "(\xe2\x86\x90 the keys).",
                 cached),
             t + 1, p->n, c->L->tokens[t], cached);
    for (int k = 0; k < 2; k++)
        snprintf(s->said[k] + strlen(s->said[k]), sizeof s->said[k] - strlen(s->said[k]), "%s",
                 s->text.slot);
    s->intro_h[0] = tell(c, FONT_REGULAR, c->th->ink, x, y, w, s->text.intro, false);
    s->intro_h[1] = tell(c, FONT_REGULAR, c->th->ink, x, y, w, s->said[0], false);
    s->intro_h[2] = tell(c, FONT_REGULAR, c->th->ink, x, y, w, s->said[1], false);
    s->cache_h = tell(c, FONT_REGULAR, c->th->ink, x, y, w, s->text.cache, false);
    s->work_h = tell(c, FONT_BOLD, c->th->ink, x, y, w, s->text.work, false);
}

// The room left for the work's bars in height h under the board d (part `half`) and its sentences.
static int decode_bars(const GridStyle *g, const DecodeBoard *d, const DecodeTexts *s, int half,
                       bool cache_line, bool work_line, int h)
{
    return h
           - (s->intro_h[half] + said_h(half, cache_line, work_line, s->cache_h, s->work_h)
              + decode_air(g, d))
           - d->height - 2 * decode_air(g, d);
}

// The first of DECODE_TRIES (and the number size, in c->num_font, down to the floor) at which the
// board and its sentences fit w x h; past the last, a window of the cache's newest rows, then fewer
// d_k columns. Sets g and d's first and cols; returns the try's index.
static int decode_fit(Ctx *c, GridStyle *g, DecodeBoard *d, const DecodeStep *ds,
                      const DecodeTexts *s, int w, int h)
{
    int t = ds->t;
    int preferred = c->num_font, floor_font = ctx_number_floor(c), tried = 0;
    d->cols = c->L->params.d_k;
    for (;;) {
        const DecodeTry *try = &DECODE_TRIES[tried];
        d->q_beside = try->beside, d->scores = try->scores, d->shared = try->shared;
        grid_style(c, g);
        g->tight = g->compact = try->tight;
        // Two parts fit when each does: the wider and the taller of the two decide.
        int width = 0, bars = h;
        for (int half = try->split ? 1 : 0; half <= (try->split ? 2 : 0); half++) {
            d->half = half,
            d->shared = try->shared; // (the second part's board has its own labels)
            decode_board(c, g, ds, d);
            int b = decode_bars(g, d, s, half, try->cache_line, !try->no_work, h);
            if (d->width > width) width = d->width;
            if (b < bars) bars = b;
        }
        if (width <= w && bars >= 0) break;
        if (c->num_font > floor_font) c->num_font--;
        else if (tried < DECODE_NTRIES - 1) tried++, c->num_font = preferred;
        else if (bars < 0 && d->first < t)
            d->first++; // a window of the newest rows: never while the whole fits
        else if (width > w && d->cols > 1) d->cols--;
        else break;
    }
    return tried;
}

// The refusal of a lesson that cannot be generated one token at a time.
static void decode_refuse(Ctx *c, int x, int y, int w)
{
    const AttnParams *p = &c->L->params;
    char msg[400];
    snprintf(msg, sizeof msg, "%s %s", TR("This lesson cannot be generated one token at a time:"),
             p->cross ? TR("its keys and values come from another sequence.")
                      : TR("it has no causal mask, so each token sees the tokens after it."));
    panel_say(c, FONT_BOLD, c->th->ink, x, y, w, msg);
}

void draw_decode(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    if (decode_refusal(p) || !c->T) {
        decode_refuse(c, x, y, w);
        return;
    }
    int t = c->st->decode_t < p->n ? c->st->decode_t : p->n - 1, head = c->st->head;
    DecodeStep ds = {.t = t, .head = head};
    decode_names(c, &ds);
    // With a sliding window the caches are rolling buffers (Mistral's): the step's query reads the
    // keys the window keeps, min(t + 1, W), its k and v take slot t mod W from the key the window
    // has just let go.
    DecodeTexts s;
    decode_texts(c, t, x, y, w, &s);
    // The largest number size at which the sentences and the board fit, down to the floor (digits
    // of 2.6 % of the window).
    int preferred = c->num_font;
    GridStyle g;
    DecodeBoard d;
    memset(&d, 0, sizeof d);
    d.first = decode_buffer(p, t).first; // the buffer's oldest row
    const DecodeTry *try = &DECODE_TRIES[decode_fit(c, &g, &d, &ds, &s, w, h)];
    int half = try->split ? (c->st->decode_part > 0 ? 2 : 1) : 0;
    c->s->decode_parts = try->split ? 2 : 1;
    d.half = half, d.shared = try->shared;
    decode_board(c, &g, &ds, &d);
    bool cache_line = try->cache_line, work_line = !try->no_work;
    int bars = decode_bars(&g, &d, &s, half, cache_line, work_line, h);
    y += tell(c, FONT_REGULAR, c->th->ink, x, y, w, half ? s.said[half - 1] : s.text.intro, true)
         + decode_air(&g, &d);
    draw_decode_board(c, &g, &d, t, head, x + (w - d.width) / 2, y);
    y += d.height + 2 * decode_air(&g, &d);
    if (cache_line && half != 2)
        y += tell(c, FONT_REGULAR, c->th->ink, x, y, w, s.text.cache, true);
    if (half != 1 && work_line) y += tell(c, FONT_BOLD, c->th->result, x, y, w, s.text.work, true);
    int room = bars < c->num_font * 3 ? bars : c->num_font * 3;
    if (half != 1 && work_line && room >= c->num_font * 3 / 2)
        draw_work_bars(c, p, t, (Box){x, y, w, room}); // n² against n, when there is room
    c->num_font = preferred;
}
