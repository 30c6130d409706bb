// The two panels of today's attention that compute the trace's numbers another way: generation with a KV
// cache (key G: token t's query over the cached keys and values, the cache growing, the work with and
// without it) and FlashAttention's tiles (key B: one tile of scores at a time, the running m, l and O).
// Their numbers are the trace's rows (core/decode.c gives the same bits, tests/test_decode_tiles.py checks).
#include "scene_ctx.h"
#include "../core/cost.h"
#include "../core/decode.h"
#include "../core/exactmath.h"
#include "../model/view.h"

// The largest lesson the tiles panel steps through (beyond it: --json --tiles).
#define TILES_VIEW_MAX_TOKENS 64
#define TILES_VIEW_MAX_DK 16

// A matrix of the trace shown in part: rows r0 .. r0+nr-1 and columns c0 .. c0+nc-1, under its own title.
static void part_box(const Ctx *c, const GridStyle *g, MatBox *b, MatId m, int head, bool result, int r0, int nr, int c0,
                     int nc, const char *title)
{
    box_init(c, g, b, m, head, result);
    b->r0 = r0, b->nr = nr, b->c0 = c0, b->nc = nc;
    b->rows = nr, b->cols = nc; // the part is the whole of what this panel means: no "rows a–b of N" caption
    b->title = title;
}

// A sentence of the panel, with its numbers at the board's number size (the class reads them), wrapped in w;
// returns its height.
static int say(Ctx *c, FontRole f, Rgba color, int x, int y, int w, const char *text)
{
    return wrap_text(c, f, c->num_font, color, x, y, w, 3, text, true);
}

// A sentence under the board at the sentence size (the footer's), wrapped in w; returns its height.
static int tell(Ctx *c, FontRole f, Rgba color, int x, int y, int w, const char *text, bool draw)
{
    return wrap_text(c, f, c->text_font, color, x, y, w, 3, text, draw);
}

// The smallest number size of these panels: the board's floor (digits of 2.6 % of the window's height),
// never above the size the board uses now.
static int number_floor(const Ctx *c)
{
    int f = scene_number_floor(c->s->height);
    return f < c->num_font ? f : c->num_font;
}

// The frame around the tile read: as thick as a result's.
static int tile_rule(const GridStyle *g) { return g->num_font / 7 < 3 ? 3 : g->num_font / 7; }

// ---------------------------------------------------------------------------------------------------
// What each panel is for (the footer under it)

static const struct {
    ViewPanel panel;
    const char *text;
} FOOTERS[] = {
    {PANEL_DECODE, N_("Generating, a model adds one token at a time; the keys and values before it never change, so they "
                      "are kept (the KV cache): each token costs work in proportion to its position, not its square.")},
    {PANEL_TILES, N_("FlashAttention computes exactly this softmax without storing the n\xc3\x97n scores: keys in blocks, and "
                     "per query the largest score m, the sum l and the output O, rescaled when m grows: memory n, not n\xc2\xb2.")},
};

const char *panel_footer_text(ViewPanel panel)
{
    for (size_t i = 0; i < sizeof FOOTERS / sizeof FOOTERS[0]; i++)
        if (FOOTERS[i].panel == panel) return FOOTERS[i].text;
    return NULL;
}

// ---------------------------------------------------------------------------------------------------
// KV-cache decoding (key G)

// The decode board: the query above the K cache, the cache rows' scores and weights as columns beside it
// (one row per cached token), the V cache, and z under it. Every cell is the trace's, tagged for its hover.
// Where it does not fit at the floor the cache shows its newest rows (a window "rows a–b of t+1"), the
// scores column is left out (the weights stay), then the d_k columns are windowed.
typedef struct {
    int first;          // the first cached row shown (0: the whole cache)
    int cols;           // the d_k columns shown of q, K, V and z
    bool scores;        // the scaled scores' column beside the weights
    bool q_beside;      // the query left of the K cache (where the width allows), else above it
    MatBox q, k, v, z;
    int col_w;          // the score and weight columns' cell width
    int op_w[3];        // "← q·", "softmax", "×" between them
    int width, height;
} DecodeBoard;

static const char *const DECODE_OPS[3] = {"\xe2\x86\x90 q\xc2\xb7", "softmax", "\xc3\x97"};

// The matrices the decoder reads: with RoPE the rotated query and keys (the cache holds the turned k_t).
static MatId decode_mat(const Ctx *c, int i)
{
    bool rope = c->L->params.rope != ROPE_NONE;
    static const MatId plain[4] = {MAT_Q, MAT_K, MAT_V, MAT_Z}, rotated[4] = {MAT_QROT, MAT_KROT, MAT_V, MAT_Z};
    return rope ? rotated[i] : plain[i];
}

static void decode_names(const Ctx *c, int t, int head, char names[4][64])
{
    for (int i = 0; i < 4; i++) {
        model_mat_name(&c->L->params, decode_mat(c, i), head, names[i], 64);
        size_t n = strlen(names[i]);
        if (i == 1 || i == 2) snprintf(names[i] + n, 64 - n, " %s", TR("cache"));
        else snprintf(names[i] + n, 64 - n, "[%s]", c->L->tokens[t]);
    }
}

// A cache box: rows first .. t of K or V, the caption saying which of the t + 1 cached when not all.
static void cache_box(const Ctx *c, const GridStyle *g, MatBox *b, MatId m, int head, int t, int first, int cols,
                      const char *title)
{
    part_box(c, g, b, m, head, false, first, t + 1 - first, 0, cols, title);
    b->rows = t + 1;
    b->cols = c->L->params.d_k;
}

static void decode_board(const Ctx *c, const GridStyle *g, int t, int head, char names[4][64], DecodeBoard *d)
{
    const AttnParams *p = &c->L->params;
    int first = d->first, cols = d->cols;
    bool scores = d->scores, beside = d->q_beside;
    memset(d, 0, sizeof *d);
    d->first = first, d->cols = cols, d->scores = scores, d->q_beside = beside;
    part_box(c, g, &d->q, decode_mat(c, 0), head, false, t, 1, 0, cols, names[0]);
    cache_box(c, g, &d->k, decode_mat(c, 1), head, t, first, cols, names[1]);
    cache_box(c, g, &d->v, MAT_V, head, t, first, cols, names[2]);
    part_box(c, g, &d->z, MAT_Z, head, true, t, 1, 0, cols, names[3]);
    d->q.cols = d->z.cols = p->d_k;
    // One cell width for the query and the K cache (the query sits on the cache's columns), and for V and z.
    d->q.cell_w = d->k.cell_w = d->q.cell_w > d->k.cell_w ? d->q.cell_w : d->k.cell_w;
    d->q.label_w = d->k.label_w = d->q.label_w > d->k.label_w ? d->q.label_w : d->k.label_w;
    d->v.cell_w = d->z.cell_w = d->v.cell_w > d->z.cell_w ? d->v.cell_w : d->z.cell_w;
    d->v.label_w = d->z.label_w = d->v.label_w > d->z.label_w ? d->v.label_w : d->z.label_w;
    char buf[48];
    d->col_w = text_w(c, FONT_BOLD, g->title_font, "S\xe2\x80\xb2");
    for (int j = first; j <= t; j++) {
        static const MatId kinds[2] = {MAT_MASKED, MAT_WEIGHTS};
        for (int k = 0; k < 2; k++) {
            if (k == 0 && !d->scores) continue; // no scores column: only the weights' width
            model_format_value(cell_value(c, (CellRef){kinds[k], head, t, j}), buf, sizeof buf);
            int tw = text_w(c, FONT_REGULAR, g->num_font, buf);
            if (tw > d->col_w) d->col_w = tw;
        }
    }
    d->col_w += g->num_font / 2;
    d->width = box_width(g, &d->k) + (scores ? 2 : 1) * d->col_w + box_width(g, &d->v);
    for (int k = 0; k < 3; k++) d->width += d->op_w[k] = k == 1 && !scores ? 0 : op_width(c, g, DECODE_OPS[k]);
    int qh = box_height(g, &d->q), kh = box_height(g, &d->k);
    if (beside) d->width += box_width(g, &d->q) + g->gap;
    d->height = (beside ? (qh > kh ? qh : kh) : qh + kh) + box_height(g, &d->z) + g->gap;
}

// A column of cells m[t][first..t] beside the cache rows: token j's score or weight in row j.
static void draw_row_as_column(Ctx *c, const GridStyle *g, MatId m, int head, int t, int first, int x, int y, int cw,
                               int ch, const char *title)
{
    text_in(c, FONT_REGULAR, g->title_font, c->th->ink, x, y, cw, g->title_h, CENTER, title);
    int gy = y + g->title_h + g->col_label_h;
    double range = group_range(c, m);
    char buf[48];
    for (int j = first; j <= t; j++) {
        CellRef ref = {m, head, t, j};
        double v = cell_value(c, ref);
        Rgba bg = cell_color(c, m, v, range);
        int y0 = gy + (j - first) * ch;
        cell_rect(c, x, y0, cw - 1, ch - 1, bg, ref);
        if (isinf(v)) scene_push(c->s, CMD_HATCH, x, y0, cw - 1, ch - 1, c->th->hatch); // outside the window
        model_format_value(v, buf, sizeof buf);
        if (text_in(c, FONT_REGULAR, g->num_font, isinf(v) ? c->th->ink : colormap_text_on(bg), x, y0, cw - 1, ch - 1, CENTER,
                    buf) > 0)
            tag_last(c, ROLE_NUMBER, ref);
        scene_push_hit(c->s, x, y0, cw, ch, ref, -1);
    }
    frame(c, x - 2, gy - 2, cw + 3, (t + 1 - first) * ch + 3, 1, c->th->muted);
}

static void draw_decode_board(Ctx *c, const GridStyle *g, const DecodeBoard *d, int t, int head, int x, int y)
{
    int qh = box_height(g, &d->q) + g->gap / 2, ky = y + (d->q_beside ? 0 : qh), xx = x;
    if (d->q_beside) { // on the K cache's last row: the new token's query beside the keys it reads
        draw_matrix(c, g, &d->q, x, ky + (d->k.nr - 1) * d->k.cell_h);
        xx += box_width(g, &d->q) + g->gap;
    } else
        draw_matrix(c, g, &d->q, x, y);
    draw_matrix(c, g, &d->k, xx, ky);
    xx += box_width(g, &d->k);
    int cells_y = ky + g->title_h + g->col_label_h, cells_h = d->k.nr * d->k.cell_h;
    for (int k = 0; k < 3; k++) {
        if (d->op_w[k] > 0)
            text_in(c, FONT_BOLD, g->op_font, c->th->muted, xx, cells_y, d->op_w[k], cells_h, CENTER, DECODE_OPS[k]);
        xx += d->op_w[k];
        if (k == 2) break;
        if (k == 0 && !d->scores) continue;
        MatId m = k == 0 ? MAT_MASKED : MAT_WEIGHTS;
        char name[48];
        model_mat_name(&c->L->params, m, head, name, sizeof name);
        draw_row_as_column(c, g, m, head, t, d->first, xx, ky, d->col_w, d->k.cell_h, name);
        xx += d->col_w;
    }
    draw_matrix(c, g, &d->v, xx, ky);
    int zy = ky + box_height(g, &d->v) + g->gap / 2;
    text_in(c, FONT_BOLD, g->op_font, c->th->muted, xx, zy, d->v.label_w, g->title_h + g->col_label_h + d->z.cell_h, RIGHT,
            "\xce\xa3 =");
    draw_matrix(c, g, &d->z, xx, zy);
}

// Bars of the multiply-adds of every step so far, with (filled) and without (outlined) the cache.
static void draw_work_bars(Ctx *c, const AttnParams *p, int t, int x, int y, int w, int h)
{
    int64_t most = decode_work(p, p->n - 1).without_cache;
    if (most <= 0 || h < 4) return;
    int slot = w / (p->n > 0 ? p->n : 1), bw = slot * 2 / 5 > 1 ? slot * 2 / 5 : 1;
    for (int i = 0; i < p->n; i++) {
        DecodeWork dw = decode_work(p, i);
        int hw = (int)((double)dw.without_cache / (double)most * h), hc = (int)((double)dw.with_cache / (double)most * h);
        hw = hw > 1 ? hw : 1, hc = hc > 1 ? hc : 1;
        int bx = x + i * slot + (slot - 2 * bw) / 2;
        frame(c, bx, y + h - hw, bw, hw, 1, i <= t ? c->th->muted : c->th->empty);
        rect(c, bx + bw, y + h - hc, bw, hc, i <= t ? c->th->result : c->th->empty);
    }
}

void draw_decode(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    if (decode_refusal(p) || !c->T) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s %s", TR("This lesson cannot be generated one token at a time:"),
                 p->cross ? TR("its keys and values come from another sequence.")
                          : TR("it has no causal mask, so each token sees the tokens after it."));
        say(c, FONT_BOLD, c->th->ink, x, y, w, msg);
        return;
    }
    int t = c->st->decode_t < p->n ? c->st->decode_t : p->n - 1, head = c->st->head;
    char names[4][64], intro[400], cache[400], work[400], a[32], b[32], c1[32], d1[32], e1[32];
    decode_names(c, t, head, names);
    snprintf(intro, sizeof intro,
             TR("Token %d of %d: \xe2\x80\x9c%s\xe2\x80\x9d \xe2\x80\x94 its k and v join the cache, its q reads the %d cached keys "
                "(\xe2\x86\x92 \xe2\x86\x90 step)."),
             t + 1, p->n, c->L->tokens[t], t + 1);
    cost_format_int(e1, sizeof e1, (int64_t)2 * p->kv_heads * (t + 1) * p->d_k);
    snprintf(cache, sizeof cache, TR("The cache: K and V of %d tokens for %d K/V heads = 2\xc2\xb7%d\xc2\xb7%d\xc2\xb7%d = %s numbers, "
                                     "kept, never computed again."),
             t + 1, p->kv_heads, p->kv_heads, t + 1, p->d_k, e1);
    if (p->kv_heads < p->heads) { // grouped-query attention: what sharing saves
        size_t used = strlen(cache);
        cost_format_int(e1, sizeof e1, (int64_t)2 * p->heads * (t + 1) * p->d_k);
        snprintf(cache + used, sizeof cache - used, TR(" %d query heads share them; one K/V per head would hold %s."),
                 p->heads, e1);
    }
    int64_t with = 0, without = 0;
    for (int i = 0; i <= t; i++) {
        DecodeWork dw = decode_work(p, i);
        with += dw.with_cache, without += dw.without_cache;
    }
    DecodeWork now = decode_work(p, t);
    cost_format_int(a, sizeof a, now.with_cache), cost_format_int(b, sizeof b, now.without_cache);
    cost_format_int(c1, sizeof c1, with), cost_format_int(d1, sizeof d1, without);
    snprintf(work, sizeof work,
             TR("This token: %s multiply-adds with the cache, %s without (the layer again over %d tokens). So far: %s with, "
                "%s without."),
             a, b, t + 1, c1, d1);
    // The largest number size at which the sentences and the board fit, down to the floor (digits of 2.6 % of
    // the window); then the newest cache rows, no scores column, fewer d_k columns, as the board windows.
    int preferred = c->num_font, floor_font = number_floor(c), bars = 0;
    GridStyle g;
    DecodeBoard d;
    memset(&d, 0, sizeof d);
    // Whole matrices first: the query beside the cache with the scores, without them, the query above with and
    // without them, each from the preferred size down to the floor; then at the floor the cache's newest rows
    // and fewer d_k columns (windows, as the board's).
    static const bool TRIES[4][2] = {{true, true}, {true, false}, {false, true}, {false, false}};
    int tried = 0;
    bool tight = false; // the four again with tight cells (less air, narrower token labels) before any window
    d.cols = p->d_k, d.q_beside = TRIES[0][0], d.scores = TRIES[0][1];
    for (;;) {
        grid_style(c, &g);
        g.tight = g.compact = tight;
        decode_board(c, &g, t, head, names, &d);
        int text_h = tell(c, FONT_REGULAR, c->th->ink, x, y, w, intro, false) + tell(c, FONT_REGULAR, c->th->ink, x, y, w, cache, false)
                     + tell(c, FONT_BOLD, c->th->ink, x, y, w, work, false) + c->num_font / 4;
        bars = h - text_h - d.height - g.gap;
        if (d.width <= w && bars >= 0) break;
        if (c->num_font > floor_font) c->num_font--;
        else if (tried < 3) tried++, d.q_beside = TRIES[tried][0], d.scores = TRIES[tried][1], c->num_font = preferred;
        else if (!tight) // issue 25: d_k = 4 beside its cache of long tokens, cut to 2 columns at 720p
            tight = true, tried = 0, d.q_beside = TRIES[0][0], d.scores = TRIES[0][1], c->num_font = preferred;
        else if (bars < 0 && d.first < t) d.first++;
        else if (d.width > w && d.cols > 1) d.cols--;
        else break;
    }
    bool cache_line = bars >= 0 || d.width > w; // no room at all: the cache's sentence gives way to the work's
    if (!cache_line) bars += tell(c, FONT_REGULAR, c->th->ink, x, y, w, cache, false);
    y += tell(c, FONT_REGULAR, c->th->ink, x, y, w, intro, true) + c->num_font / 4;
    draw_decode_board(c, &g, &d, t, head, x + (w - d.width) / 2, y);
    y += d.height + g.gap;
    if (cache_line) y += tell(c, FONT_REGULAR, c->th->ink, x, y, w, cache, true);
    y += tell(c, FONT_BOLD, c->th->result, x, y, w, work, true);
    int room = bars < c->num_font * 3 ? bars : c->num_font * 3;
    if (room >= c->num_font * 3 / 2) draw_work_bars(c, p, t, x + w / 4, y, w / 2, room); // n² against n, when there is room
    c->num_font = preferred;
}

// ---------------------------------------------------------------------------------------------------
// FlashAttention's tiles (key B)

// What the panel shows of the run: tile k's place, the rows' m before and after it, l and O after it.
typedef struct {
    int want, seen;
    int r0, r1, c0, c1;
    double m_before[TILES_VIEW_MAX_TOKENS], m[TILES_VIEW_MAX_TOKENS], l[TILES_VIEW_MAX_TOKENS];
    double O[TILES_VIEW_MAX_TOKENS][TILES_VIEW_MAX_DK];
    double last_m[TILES_VIEW_MAX_TOKENS]; // the running m after the tile before (the same block's), for the rescale
    int last_r0;
    bool block_done;                      // this was the block's last tile: O / l is its Z
} TileCatch;

static void catch_tile(void *ctx, const TileStep *s)
{
    TileCatch *k = ctx;
    k->seen++;
    int rb = s->r1 - s->r0;
    if (k->seen < k->want) {
        if (k->last_r0 != s->r0) k->last_r0 = s->r0;
        for (int i = 0; i < rb && i < TILES_VIEW_MAX_TOKENS; i++) k->last_m[i] = s->m->data[i];
        return;
    }
    if (k->seen == k->want) {
        k->r0 = s->r0, k->r1 = s->r1, k->c0 = s->c0, k->c1 = s->c1;
        for (int i = 0; i < rb && i < TILES_VIEW_MAX_TOKENS; i++) {
            k->m_before[i] = k->last_r0 == s->r0 && k->seen > 1 ? k->last_m[i] : -INFINITY;
            k->m[i] = s->m->data[i], k->l[i] = s->l->data[i];
            for (int j = 0; j < s->O->cols && j < TILES_VIEW_MAX_DK; j++) k->O[i][j] = mat_row(s->O, i)[j];
        }
        k->block_done = true;
        return;
    }
    if (s->r0 == k->r0) k->block_done = false; // another tile of the same block follows
}

// The block's rows after the tile, a table at the board's number size: the token, the running maximum m, the
// rescale e^(m_before - m) this tile applied, the running sum l, and O (or, after the block's last tile, Z = O / l).
// draw false: only measures (*width, when not NULL, gets the table's width). Returns its height.
static int draw_tile_table(Ctx *c, const TileCatch *k, int d_k, int x, int y, int w, bool draw, int *width)
{
    enum { FIXED = 4 };
    int f = c->num_font, lh = line_h(c, FONT_REGULAR, f) + f / 4, cols = FIXED + d_k, rows = k->r1 - k->r0;
    char text[1 + TILES_VIEW_MAX_TOKENS][FIXED + TILES_VIEW_MAX_DK][48];
    snprintf(text[0][0], 48, "%s", "");
    snprintf(text[0][1], 48, "m");
    snprintf(text[0][2], 48, "%s", TR("rescale"));
    snprintf(text[0][3], 48, "l");
    for (int j = 0; j < d_k; j++) snprintf(text[0][FIXED + j], 48, k->block_done ? "Z[%d]" : "O[%d]", j);
    for (int i = 0; i < rows; i++) {
        char (*v)[48] = text[1 + i];
        snprintf(v[0], 48, "%s", c->L->tokens[k->r0 + i]);
        model_format_value(k->m[i], v[1], 48);
        if (k->m_before[i] == -INFINITY) snprintf(v[2], 48, "\xe2\x80\x94"); // the row's first tile: nothing to rescale
        else model_format_value(core_exp(k->m_before[i] - k->m[i]), v[2], 48);
        model_format_value(k->l[i], v[3], 48);
        for (int j = 0; j < d_k; j++)
            model_format_value(k->block_done && k->l[i] > 0 ? k->O[i][j] / k->l[i] : k->O[i][j], v[FIXED + j], 48);
    }
    int colw[FIXED + TILES_VIEW_MAX_DK], total = 0;
    for (int j = 0; j < cols; j++) {
        colw[j] = 0;
        for (int i = 0; i <= rows; i++) {
            int tw = text_w(c, i == 0 || j == 0 ? FONT_BOLD : FONT_REGULAR, f, text[i][j]);
            if (tw > colw[j]) colw[j] = tw;
        }
        colw[j] += f / 2;
        total += colw[j];
    }
    if (width) *width = total;
    int x0 = x + (w - total) / 2;
    for (int i = 0; i <= rows && draw; i++) {
        int cx = x0;
        for (int j = 0; j < cols; j++) {
            Rgba ink = i == 0 ? c->th->muted : j == 1 || j == 3 ? c->th->result : c->th->ink;
            text_in(c, i == 0 || j == 0 ? FONT_BOLD : FONT_REGULAR, f, ink, cx, y + i * lh, colw[j], lh, RIGHT, text[i][j]);
            cx += colw[j];
        }
    }
    return lh * (1 + rows);
}

void draw_tiles(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    if (!c->T || p->n > TILES_VIEW_MAX_TOKENS || p->m > TILES_VIEW_MAX_TOKENS || p->d_k > TILES_VIEW_MAX_DK) {
        char msg[300];
        snprintf(msg, sizeof msg, TR("The tiles panel steps through lessons of up to %d tokens and d_k up to %d; "
                                     "mha-tracer --json --tiles B prints every tile of this one."),
                 TILES_VIEW_MAX_TOKENS, TILES_VIEW_MAX_DK);
        say(c, FONT_BOLD, c->th->ink, x, y, w, msg);
        return;
    }
    int head = c->st->head, block = c->st->tiles_block;
    int64_t computed = 0, skipped = 0;
    tiles_count(p, block, &computed, &skipped);
    c->s->tile_count = (int)computed;
    TileCatch k;
    memset(&k, 0, sizeof k);
    k.want = c->st->tile < 1 ? 1 : c->st->tile > computed ? (int)computed : c->st->tile;
    k.last_r0 = -1;
    Matrix z = {0}, m = {0}, l = {0};
    const HeadTrace *ht = &c->T->head[head];
    if (mat_init(&z, p->n, p->d_k) && mat_init(&m, p->n, 1) && mat_init(&l, p->n, 1))
        tiles_run(p, p->rope != ROPE_NONE ? &ht->Q_rot : &ht->Q, p->rope != ROPE_NONE ? &ht->K_rot : &ht->K, &ht->V, block,
                  catch_tile, &k, &z, &m, &l);
    double diff = 0.0;
    for (int i = 0; z.data && i < p->n; i++)
        for (int j = 0; j < p->d_k; j++) diff = fmax(diff, fabs(mat_row(&z, i)[j] - mat_row(&ht->Z, i)[j]));
    mat_free(&z), mat_free(&m), mat_free(&l);
    char line[400], last[400];
    snprintf(line, sizeof line,
             TR("Tile %d of %d (%dx%d blocks; %lld skipped: the mask hides them): queries %d\xe2\x80\x93%d, keys %d\xe2\x80\x93%d. "
                "Only this tile's scores exist (\xe2\x86\x92 next, \xe2\x86\x91 \xe2\x86\x93 block size)."),
             k.want, (int)computed, block, block, (long long)skipped, k.r0, k.r1 - 1, k.c0, k.c1 - 1);
    if (k.want == computed)
        snprintf(last, sizeof last, TR("Same Z as the softmax stage: the largest difference is %.3g (rounding; the sums run in another order)."),
                 diff);
    else
        snprintf(last, sizeof last, "%s",
                 TR("m: the largest score so far; l: the sum of e^(s \xe2\x88\x92 m); when m grows, l and O are multiplied by the "
                    "rescale e^(m before \xe2\x88\x92 m) so that every term stays relative to the new maximum."));
    // The largest number size at which it all fits, down to two thirds of it (2.6 % of the window).
    int preferred = c->num_font, floor_font = number_floor(c);
    GridStyle g;
    MatBox b;
    int nr = p->n, nc = p->m; // the rows and columns of S' shown: all, or at the floor the block's and the tile's
    // When S' would not fit whole with the table of m, l and O and the note under it: the table to the right of
    // S' (beside), or the note to the right of the table (note_beside). Issue 25: the cat lesson's 6 x 6 S' was
    // cut to 5 rows at 720p with room beside the table.
    bool beside = false, note_beside = false, tight = false; // tight: cells with less air, before any window
    int table_w = 0;
    for (;;) {
        grid_style(c, &g);
        g.tight = g.compact = tight;
        box_init(c, &g, &b, MAT_MASKED, head, false);
        if (nr < p->n || nc < p->m) { // a window around the tile read, as large as fits
            b.r0 = k.r1 - nr > 0 ? (k.r1 - nr < k.r0 ? k.r1 - nr : k.r0) : 0, b.nr = nr;
            b.c0 = k.c1 - nc > 0 ? (k.c1 - nc < k.c0 ? k.c1 - nc : k.c0) : 0, b.nc = nc;
        }
        int lh = line_h(c, FONT_REGULAR, c->num_font) + c->num_font / 4;
        int need = wrap_text(c, FONT_REGULAR, c->num_font, c->th->ink, x, y, w, 3, line, false) + c->num_font / 3 +
                   box_height(&g, &b) + g.gap + lh * (1 + k.r1 - k.r0) + c->num_font / 4 +
                   wrap_text(c, FONT_REGULAR, c->num_font, c->th->ink, x, y, w, 3, last, false);
        bool tall = need > h, wide = box_width(&g, &b) > w;
        if (!tall && !wide) break;
        int table_h = draw_tile_table(c, &k, p->d_k, 0, 0, 0, false, &table_w);
        int box_h = box_height(&g, &b), side = box_h > table_h + g.title_h + g.col_label_h - lh
                                                 ? box_h : table_h + g.title_h + g.col_label_h - lh;
        int stacked = box_h + g.gap + lh * (1 + k.r1 - k.r0) + c->num_font / 4; // S' over the table
        if (box_width(&g, &b) + 2 * g.gap + table_w <= w && need - stacked + side <= h) {
            beside = true;
            break;
        }
        int note_w = w - table_w - 2 * g.gap, last_h = wrap_text(c, FONT_REGULAR, c->num_font, c->th->ink, x, y, w, 3, last, false);
        int note_h = note_w > 8 * c->num_font ? wrap_text(c, FONT_REGULAR, c->num_font, c->th->ink, x, y, note_w, 6, last, false) : h;
        if (!wide && need - lh * (1 + k.r1 - k.r0) - last_h + (note_h > lh * (1 + k.r1 - k.r0) ? note_h : lh * (1 + k.r1 - k.r0)) <= h) {
            note_beside = true;
            break;
        }
        if (c->num_font > floor_font) c->num_font--;
        else if (!tight) tight = true, c->num_font = preferred;
        else if (tall && nr > k.r1 - k.r0) nr--;
        else if (wide && nc > k.c1 - k.c0) nc--;
        else break;
    }
    y += say(c, FONT_REGULAR, c->th->ink, x, y, w, line) + c->num_font / 3;
    // The scaled, masked scores with the tile read framed: the matrix FlashAttention never stores whole.
    int bx = x + (w - box_width(&g, &b) - (beside ? 2 * g.gap + table_w : 0)) / 2;
    draw_matrix(c, &g, &b, bx, y);
    int cx = bx + b.label_w + (k.c0 - b.c0) * b.cell_w, cy = y + g.title_h + g.col_label_h + (k.r0 - b.r0) * b.cell_h;
    frame(c, cx, cy, (k.c1 - k.c0) * b.cell_w, (k.r1 - k.r0) * b.cell_h, tile_rule(&g), c->th->result);
    if (beside) { // its header on the line of S''s column labels, its rows from S''s first
        int lh = line_h(c, FONT_REGULAR, c->num_font) + c->num_font / 4, ty = y + g.title_h + g.col_label_h - lh;
        int th = draw_tile_table(c, &k, p->d_k, bx + box_width(&g, &b) + 2 * g.gap, ty, table_w, true, NULL);
        y += (box_height(&g, &b) > ty - y + th ? box_height(&g, &b) : ty - y + th) + c->num_font / 4;
    } else if (note_beside) { // the table on the left, the note to its right
        y += box_height(&g, &b) + g.gap;
        int th = draw_tile_table(c, &k, p->d_k, x, y, table_w, true, NULL);
        int nx = x + table_w + 2 * g.gap, nh = wrap_text(c, k.want == computed ? FONT_BOLD : FONT_REGULAR, c->num_font,
                                                        k.want == computed ? c->th->result : c->th->muted, nx, y,
                                                        w - table_w - 2 * g.gap, 6, last, true);
        c->num_font = preferred;
        (void)th, (void)nh;
        return;
    } else {
        y += box_height(&g, &b) + g.gap;
        y += draw_tile_table(c, &k, p->d_k, x, y, w, true, NULL) + c->num_font / 4;
    }
    say(c, k.want == computed ? FONT_BOLD : FONT_REGULAR, k.want == computed ? c->th->result : c->th->muted, x, y, w, last);
    c->num_font = preferred;
}
