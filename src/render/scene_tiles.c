// FlashAttention's tiles (key B): one tile of scores at a time over S', the running m, l and O of
// the block's rows, drawn from the model's sheet (model/tiles_sheet.h; tests/test_decode_tiles.py
// checks the numbers against the trace's).
#include "render/scene_panels.h"
#include "render/scene_grid.h"
#include "render/scene_text.h"
#include "model/view.h"

#define TILES_VIEW_MAX_TOKENS SCENE_TILES_MAX_TOKENS
#define TILES_VIEW_MAX_DK SCENE_TILES_MAX_DK

// The block's rows after the tile, a table at the board's number size: the token, the running
// maximum m, the rescale e^(m_before - m) this tile applied, the running sum l, and O (or, after
// the block's last tile, Z = O / l). draw false: only measures (*width, when not NULL, gets the
// table's width). Returns its height.
typedef struct {
    int lh; // the height of its lines
    int rows; // the block's first rows shown (0: all), the others counted in the header
    int *least; // when not NULL, gets the least width: the first column of O and "+N more"
    int o_w; // the columns of O at least this wide (V's cells under them: v_bare)
} TableLines;
static int draw_tile_table(Ctx *c, const TilesSheet *k, TableLines t, int x, int y, int w,
                           bool draw, int *width)
{
    enum { FIXED = 4 };
    int f = c->num_font, d_k = c->L->params.d_k, cols = FIXED + d_k, rows = k->r1 - k->r0,
        lh = t.lh;
    if (t.rows > 0 && t.rows < rows) rows = t.rows;
    char text[1 + TILES_VIEW_MAX_TOKENS][FIXED + TILES_VIEW_MAX_DK][48];
    if (rows < k->r1 - k->r0) snprintf(text[0][0], 48, TR("+%d more"), k->r1 - k->r0 - rows);
    else snprintf(text[0][0], 48, "%s", "");
    snprintf(text[0][1], 48, "m");
    snprintf(text[0][2], 48, "%s", TR("rescale"));
    snprintf(text[0][3], 48, "l");
    for (int j = 0; j < d_k; j++)
        snprintf(text[0][FIXED + j], 48, k->block_done ? "Z[%d]" : "O[%d]", j);
    for (int i = 0; i < rows; i++) {
        char(*v)[48] = text[1 + i];
        model_axis_label(c->L, mat_info(MAT_MASKED)->row_axis, k->r0 + i, v[0],
                         48); // "the₅": as S''s rows
        model_format_value(k->m[i], v[1], 48);
        if (k->fresh[i]) snprintf(v[2], 48, "\xe2\x80\x94"); // nothing to rescale
        else model_format_value(k->rescale[i], v[2], 48);
        model_format_value(k->l[i], v[3], 48);
        for (int j = 0; j < d_k; j++) model_format_value(k->out[i][j], v[FIXED + j], 48);
    }
    int colw[FIXED + TILES_VIEW_MAX_DK], total = 0;
    for (int j = 0; j < cols; j++) {
        colw[j] = 0;
        for (int i = 0; i <= rows; i++) {
            int tw = text_w(c, i == 0 || j == 0 ? FONT_BOLD : FONT_REGULAR, f, text[i][j]);
            if (tw > colw[j]) colw[j] = tw;
        }
        colw[j] += f / 2;
        if (j >= FIXED && colw[j] < t.o_w) colw[j] = t.o_w;
        total += colw[j];
    }
    if (width) *width = total;
    char more[48] = "";
    if (t.least) {
        snprintf(more, sizeof more, TR("+%d more"), cols - FIXED - 1);
        *t.least = text_w(c, FONT_BOLD, f, more) + f / 2;
        for (int j = 0; j <= FIXED && j < cols; j++) *t.least += colw[j];
        more[0] = '\0';
    }
    // Wider than the room (d_k 8 at 720p): the columns of O that fit, and how many more there are,
    // said in the header's last cell; never a number past the screen's edge.
    int shown = cols;
    if (draw && w > 0 && total > w) {
        while (shown > FIXED + 1) {
            snprintf(more, sizeof more, TR("+%d more"), cols - shown + 1);
            int mw = text_w(c, FONT_BOLD, f, more) + f / 2, sum = mw;
            for (int j = 0; j < shown - 1; j++) sum += colw[j];
            shown--;
            if (sum <= w) break;
        }
        total = text_w(c, FONT_BOLD, f, more) + f / 2;
        for (int j = 0; j < shown; j++) total += colw[j];
    }
    int x0 = x + (w - total) / 2;
    if (x0 < x && w > 0) x0 = x;
    for (int i = 0; i <= rows && draw; i++) {
        int cx = x0;
        if (more[0] && i == 0)
            text_in(c, FONT_BOLD, f, c->th->muted,
                    (Box){x0 + total - text_w(c, FONT_BOLD, f, more) - f / 4, y,
                          text_w(c, FONT_BOLD, f, more), lh},
                    LEFT, more);
        for (int j = 0; j < shown; j++) {
            Rgba ink = i == 0 ? c->th->muted : j == 1 || j == 3 ? c->th->result : c->th->ink;
            text_in(c, i == 0 || j == 0 ? FONT_BOLD : FONT_REGULAR, f, ink,
                    (Box){cx, y + i * lh, colw[j], lh}, RIGHT, text[i][j]);
            cx += colw[j];
        }
    }
    return lh * (1 + rows);
}

// The note under the tiles' table: words about m, l and the rescale at the sentence size (the
// footer's), but with its number (the last tile's largest difference) at the board's size.
static int note_font(const Ctx *c, const char *note)
{
    return strpbrk(note, "0123456789") || c->text_font > c->num_font ? c->num_font : c->text_font;
}

// The panel's state while it is laid out and drawn: the tile caught, its sentences, and the layout
// found (S' as large as fits, the table and the note placed around it).
typedef struct {
    int x, y, w, h; // the panel's room
    int head;
    const TilesSheet *k; // the step shown
    const char *last; // the note under the table ("" once dropped for room)
    char said[700]; // the sentence over S', with the keys that step it in the window
    int preferred, floor_font; // the number size wanted and the smallest allowed
    GridStyle g;
    MatBox b;
    MatBox v; // V beside S': its rows are S''s columns (the keys), the tile's block rows framed
    int v_w; // V's width with the gap before it
    bool v_block; // V's rows only the tile's keys (when V whole would window S')
    bool no_v; // no V (nor the update that names it): beside S' even its block rows would window S'
    bool v_under; // V under S', right of the table (too wide beside S', 7 or 8 tokens at 720p)
    bool v_bare; // V's block rows under the table, its name beside them, without a title row or
                 // column labels (an 8 x 8 S' at 720p: no room for V's box beside S' or the table)
    bool v_turn; // with v_bare: V turned, whole, right under S', its columns S''s (the keys), the
                 // tile's framed (a block of 6 or more under an 8 x 8 S' at 720p)
    bool table_cut; // with v_bare: the table may show its first rows only
    bool brief; // the short sentence (which tile, which queries and keys) on one line
    bool one_line; // ... and the update right of it, without the keys (v_bare, a block of 4 x 4
                   // under an 8 x 8 S' at 720p)
    int nr, nc; // the rows and columns of S' shown: all, or at the floor the block's and the tile's
    bool tight; // less air, before any window
    bool dense; // ... and rows as high as the numbers' size (an 8 x 8 S' whole at 720p)
    bool beside, note_beside,
        note_right; // the table right of S', the note right of the table or S'
    int table_w;
    int table_rows; // the block's rows the table shows (0: all; a 7 x 7 block's eight lines under
                    // an 8 x 8 S' at 720p: the first, not a window of S')
} TilesPanel;

// The room between S' and V: two gaps, one once the cells are tight (V beside an S' of 6 x 6
// at 720p missed the width by 8 px).
static int v_gap(const TilesPanel *P) { return (P->tight ? 1 : 2) * P->g.gap; }

// The grid style and S''s box at the size tried: the whole matrix, or a window around the tile read
// as large as P->nr x P->nc.
static void tiles_box(Ctx *c, TilesPanel *P)
{
    const AttnParams *p = &c->L->params;
    const TilesSheet *k = P->k;
    MatBox *b = &P->b;
    grid_style(c, &P->g);
    P->g.tight = P->g.compact = P->tight;
    P->g.dense = P->dense;
    P->g.whole_labels = true; // a token's label whole in S' as in the table under it
    box_init(c, &P->g, b, MAT_MASKED, P->head, false);
    if (P->nr < p->n || P->nc < p->m) { // a window around the tile read, as large as fits
        b->r0 = k->r1 - P->nr > 0 ? (k->r1 - P->nr < k->r0 ? k->r1 - P->nr : k->r0) : 0,
        b->nr = P->nr;
        b->c0 = k->c1 - P->nc > 0 ? (k->c1 - P->nc < k->c0 ? k->c1 - P->nc : k->c0) : 0,
        b->nc = P->nc;
    }
    // V: the values the tile's weights sum (O += P V_block), its rows the keys S' shows.
    if (P->no_v) {
        memset(&P->v, 0, sizeof P->v);
        P->v_w = 0;
        return;
    }
    box_init(c, &P->g, &P->v, MAT_V, P->head, false);
    P->v.r0 = P->v_block ? k->c0 : b->c0, P->v.nr = P->v_block ? k->c1 - k->c0 : b->nc;
    P->v_w = v_gap(P) + box_width(&P->g, &P->v);
    if (P->v_bare) { // the tile's rows, named beside them: "V₀  sat  …"
        P->v.r0 = k->c0, P->v.nr = k->c1 - k->c0;
        if (P->v_turn) P->v.r0 = 0, P->v.nr = P->v.rows, box_turn(c, &P->g, &P->v);
        P->v.bare = true, P->v.bare_shape = BARE_SHAPE_NONE;
        P->v.label_w = box_bare_label_w(c, &P->g, &P->v);
        P->v_w = 0;
    }
    if (P->v_turn) { // V^T's columns under S''s: the same widths
        int lw = b->label_w > P->v.label_w ? b->label_w : P->v.label_w;
        int cw = b->cell_w > P->v.cell_w ? b->cell_w : P->v.cell_w;
        b->label_w = P->v.label_w = lw, b->cell_w = P->v.cell_w = cw;
    }
}

// S' and V beside it (S' alone when V is under it): their width and height.
static int sv_width(const TilesPanel *P)
{
    return box_width(&P->g, &P->b) + (P->v_under || P->v_bare ? 0 : P->v_w);
}
static int sv_height(const TilesPanel *P)
{
    if (P->v_turn) return box_height(&P->g, &P->b) + P->g.gap / 2 + box_height(&P->g, &P->v);
    int hb = box_height(&P->g, &P->b),
        hv = P->no_v || P->v_under || P->v_bare ? 0 : box_height(&P->g, &P->v);
    return hb > hv ? hb : hv;
}

// The air under a line of text at the number size: less once the cells are tight (a 4 x 4 block's
// table of five lines with V beside S' missed a 720p panel by 11 px).
static int tiles_air(const Ctx *c, const TilesPanel *P) { return c->num_font / (P->tight ? 8 : 4); }
static int said_gap(const Ctx *c, const TilesPanel *P) { return c->num_font / (P->tight ? 6 : 3); }
static int update_h(const Ctx *c, const TilesPanel *P)
{
    return P->no_v ? 0 : line_h(c, FONT_REGULAR, c->num_font) + tiles_air(c, P);
}

// The height of a line of the tiles' table: with dense cells, as high as the numbers' size and a
// little air, as S''s rows beside it (a 5 x 5 block's six lines missed a 720p panel by 20 px).
static int table_line_h(const Ctx *c, const TilesPanel *P)
{
    if (P->dense) return c->num_font + tiles_air(c, P);
    return line_h(c, FONT_REGULAR, c->num_font) + tiles_air(c, P);
}
static TableLines table_lines(const Ctx *c, const TilesPanel *P)
{
    return (TableLines){table_line_h(c, P), P->table_rows, NULL,
                        P->v_bare && !P->v_turn ? P->v.cell_w : 0};
}
// The lines of the table: its header and the block's rows it shows.
static int table_count(const TilesPanel *P)
{
    int rows = P->k->r1 - P->k->r0;
    return 1 + (P->table_rows > 0 && P->table_rows < rows ? P->table_rows : rows);
}

// The sentence and the update over S': their lines, or one line (one_line).
static int head_h(Ctx *c, const TilesPanel *P)
{
    if (P->one_line) return line_h(c, FONT_REGULAR, c->num_font) + tiles_air(c, P) + said_gap(c, P);
    return wrap_text(c, FONT_REGULAR, c->num_font, c->th->ink, P->x, P->y, P->w, 3, P->said, false)
           + said_gap(c, P) + update_h(c, P);
}

// When S' over the table over the note does not fit (need: their height): the other arrangements,
// the table right of S', the note right of the table, the note right of S'. Returns whether one
// fits (and sets it in P).
static bool tiles_arrange(Ctx *c, TilesPanel *P, int need, bool wide)
{
    const GridStyle *g = &P->g;
    int x = P->x, y = P->y, w = P->w, h = P->h, lh = table_line_h(c, P);
    int rows_h = lh * table_count(P);
    int table_h = draw_tile_table(c, P->k, table_lines(c, P), 0, 0, 0, false, &P->table_w);
    int box_h = sv_height(P), side = box_h > table_h + g->title_h + g->col_label_h - lh
                                         ? box_h
                                         : table_h + g->title_h + g->col_label_h - lh;
    int stacked = box_h + g->gap + rows_h + tiles_air(c, P); // S' over the table
    if (sv_width(P) + 2 * g->gap + P->table_w <= w && need - stacked + side <= h)
        return P->beside = true;
    // A table wider than the room shows the columns of O that fit anyway: three fifths of the
    // width, the note beside it (an 8 x 8 S' with d_k 8 kept its 4 x 4 block's verdict only in a
    // window).
    if (P->table_w > w) P->table_w = w * 3 / 5;
    int nf = note_font(c, P->last), note_w = w - P->table_w - 2 * g->gap;
    int last_h = wrap_text(c, FONT_REGULAR, nf, c->th->ink, x, y, w, 3, P->last, false);
    int note_h = note_w > 8 * nf
                     ? wrap_text(c, FONT_REGULAR, nf, c->th->ink, x, y, note_w, 8, P->last, false)
                     : h;
    if (!wide && need - rows_h - last_h + (note_h > rows_h ? note_h : rows_h) <= h)
        return P->note_beside = true;
    // the note right of S' (a 7 x 7 S' was cut to 5 rows at 1080p with a third of the
    // width empty).
    int right_w = w - sv_width(P) - 2 * g->gap;
    if (!wide && right_w >= 8 * nf && need - last_h <= h
        && wrap_text(c, FONT_REGULAR, nf, c->th->ink, x, y, right_w, 12, P->last, false)
               <= box_h - g->title_h)
        return P->note_right = true;
    return false;
}

// The next, smaller try: a smaller number size down to the floor, then tight cells, then rows as
// high as the numbers, then without the legend, then a window of S' (rows, then columns).
// Returns false when nothing is left to give.
static bool tiles_shrink(Ctx *c, TilesPanel *P, bool tall, bool wide)
{
    const TilesSheet *k = P->k;
    if (c->num_font > P->floor_font) c->num_font--;
    else if (!P->tight) P->tight = true, c->num_font = P->preferred;
    else if (tall && !P->dense) P->dense = true, c->num_font = P->preferred;
    else if (tall && P->last[0] && k->want != k->computed)
        P->last = "", c->num_font = P->preferred; // the legend, not S'
    else if (tall && table_count(P) > 2) // the table's last rows, not S'
        P->table_rows = table_count(P) - 2;
    else if (tall && P->nr > k->r1 - k->r0) P->nr--;
    else if (wide && P->nc > k->c1 - k->c0) P->nc--;
    else if (tall && P->nr > 1) P->nr--; // a tile larger than the room: part of it
    else if (wide && P->nc > 1) P->nc--;
    else return false;
    return true;
}

// The largest number size at which it all fits, down to two thirds of it (2.6 % of the window).
// When S' would not fit whole with the table of m, l and O and the note under it: the table to the
// right of S' (beside), or the note to the right of the table (note_beside). the cat
// lesson's 6 x 6 S' was cut to 5 rows at 720p with room beside the table. then without
// the legend of m and l (the last tile's sentence stays), before any window (an 8 x 8 S' showed 5
// rows at 720p).
static bool tiles_fit(Ctx *c, TilesPanel *P)
{
    int x = P->x, y = P->y, w = P->w, h = P->h;
    for (;;) {
        tiles_box(c, P);
        int need = wrap_text(c, FONT_REGULAR, c->num_font, c->th->ink, x, y, w, 3, P->said, false)
                   + said_gap(c, P) + update_h(c, P) + sv_height(P) + P->g.gap
                   + table_line_h(c, P) * table_count(P) + tiles_air(c, P)
                   + wrap_text(c, FONT_REGULAR, note_font(c, P->last), c->th->ink, x, y, w, 3,
                               P->last, false);
        bool tall = need > h, wide = sv_width(P) > w;
        if (!tall && !wide) return true;
        if (tiles_arrange(c, P, need, wide)) return true;
        if (!tiles_shrink(c, P, tall, wide)) return false; // (a block of every token: no window)
    }
}

// V under S', the table left of it, its header on the line of V's column labels: the row's height
// (V's or the table's, the table's lines level with V's rows) and its width.
static int under_h(Ctx *c, TilesPanel *P, int *width)
{
    const GridStyle *g = &P->g;
    int lh = table_line_h(c, P), hv = box_height(g, &P->v), least = 0;
    TableLines t = table_lines(c, P);
    t.least = &least;
    int th =
        g->title_h + g->col_label_h - lh + draw_tile_table(c, P->k, t, 0, 0, 0, false, &P->table_w);
    // Too wide with V: the columns of O that fit beside it, and how many more (V's rows, not the
    // slide without them: llama-rope-gqa's 7 x 4 V at 720p).
    int room = P->w - 2 * g->gap - box_width(g, &P->v);
    if (P->table_w > room && least <= room) P->table_w = room;
    if (width) *width = P->table_w + 2 * g->gap + box_width(g, &P->v);
    return hv > th ? hv : th;
}

// When V does not fit beside S': the sentence, S', then the table with V right of it (whole, or
// the block's rows), the note under them; the largest number size at which it all fits, down to
// the floor, with tight and dense cells, without the legend. Returns whether it fits, S' whole and
// the table's every column shown.
static bool tiles_fit_under(Ctx *c, TilesPanel *P)
{
    int x = P->x, y = P->y, w = P->w, h = P->h;
    for (;;) {
        tiles_box(c, P);
        int row_w,
            need = wrap_text(c, FONT_REGULAR, c->num_font, c->th->ink, x, y, w, 3, P->said, false)
                   + said_gap(c, P) + update_h(c, P) + sv_height(P) + P->g.gap
                   + under_h(c, P, &row_w) + tiles_air(c, P)
                   + wrap_text(c, FONT_REGULAR, note_font(c, P->last), c->th->ink, x, y, w, 3,
                               P->last, false);
        if (need <= h && row_w <= w && sv_width(P) <= w) return true;
        const TilesSheet *k = P->k;
        if (c->num_font > P->floor_font) c->num_font--;
        else if (!P->tight) P->tight = true, c->num_font = P->preferred;
        else if (!P->dense) P->dense = true, c->num_font = P->preferred;
        else if (P->last[0] && k->want != k->computed) P->last = "", c->num_font = P->preferred;
        else return false;
    }
}

// V's block rows under the table (v_bare): the table over V, their right edges level (V's columns
// under the table's columns of O, both d_k wide), and the note under them or right of them. Sets
// *stack_w to the width of the table and V, and *note_w to the note's width right of them (0:
// under them). Returns the height of all three.
static int bare_stack(Ctx *c, TilesPanel *P, int *stack_w, int *note_w)
{
    const GridStyle *g = &P->g;
    int th = draw_tile_table(c, P->k, table_lines(c, P), 0, 0, 0, false, &P->table_w);
    int air = tiles_air(c, P), tw = P->table_w < P->w ? P->table_w : P->w;
    int vw = P->v_turn ? 0 : box_width(g, &P->v), vh = P->v_turn ? -air : box_height(g, &P->v);
    int sw = tw > vw ? tw : vw, nf = note_font(c, P->last), room = P->w - sw - 2 * g->gap;
    *stack_w = sw, *note_w = 0;
    int under = wrap_text(c, FONT_REGULAR, nf, c->th->ink, P->x, P->y, P->w, 3, P->last, false);
    if (P->last[0] && room >= 8 * nf) {
        int beside =
            wrap_text(c, FONT_REGULAR, nf, c->th->ink, P->x, P->y, room, 8, P->last, false);
        if (beside <= th + air + vh) {
            *note_w = room;
            return th + air + vh;
        }
    }
    return th + air + vh + air + under;
}

// The room between S' (and V^T under it) and the table under them: half a gap under V^T, whose
// rows already part it from S' (an 8 x 8 S' with V^T and the verdict missed a 720p panel by 4 px).
static int stack_gap(const TilesPanel *P) { return P->v_turn ? P->g.gap / 2 : P->g.gap; }

// The sentence over S' as the screen has room for it: the whole one, or the short one; with the
// keys that step it in the window.
static void tiles_said(const Ctx *c, TilesPanel *P)
{
    const TilesSheet *k = P->k;
    bool keys = !c->ex->slide && k->keys[0] && !P->one_line; // in the window, not on paper
    snprintf(P->said, sizeof P->said, "%s%s%s", P->brief ? k->brief : k->line, keys ? "  " : "",
             keys ? k->keys : "");
}

// V's block rows under the table (no room for V's box beside S' or beside the table): the largest
// number size at which it fits, down to the floor, then tight and dense cells, the short sentence,
// without the legend (the verdict short), the update on the sentence's line, the table's first
// rows. Returns whether it fits, S' whole.
static bool tiles_fit_bare(Ctx *c, TilesPanel *P)
{
    const TilesSheet *k = P->k;
    for (;;) {
        tiles_box(c, P);
        int sw, nw, need = head_h(c, P) + sv_height(P) + stack_gap(P) + bare_stack(c, P, &sw, &nw);
        char update[160];
        int line_w =
            math_w(c, FONT_REGULAR, c->num_font, P->said) + 2 * P->g.gap
            + math_w(c, FONT_REGULAR, c->num_font, tiles_sheet_update(k, update, sizeof update));
        if (need <= P->h && sv_width(P) <= P->w && box_width(&P->g, &P->v) <= P->w
            && (!P->one_line || line_w <= P->w))
            return true;
        if (c->num_font > P->floor_font) c->num_font--;
        else if (!P->tight) P->tight = true, c->num_font = P->preferred;
        else if (!P->dense) P->dense = true, c->num_font = P->preferred;
        else if (!P->brief) P->brief = true, tiles_said(c, P), c->num_font = P->preferred;
        else if (P->last[0] && k->want != k->computed) P->last = "", c->num_font = P->preferred;
        else if (k->want == k->computed && P->last != k->verdict)
            P->last = k->verdict, c->num_font = P->preferred; // the verdict short
        else if (!P->one_line) P->one_line = true, tiles_said(c, P);
        else if (P->table_cut && table_count(P) > 2) // its first rows
            P->table_rows = table_count(P) - 2;
        else return false;
    }
}

// The note at (x, y) in width w, over at most `lines` lines: bold in the result's colour after the
// last tile, muted before.
static void tiles_note(Ctx *c, const TilesPanel *P, int x, int y, int w, int lines)
{
    bool done = P->k->want == P->k->computed;
    wrap_text(c, done ? FONT_BOLD : FONT_REGULAR, note_font(c, P->last),
              done ? c->th->result : c->th->muted, x, y, w, lines, P->last, true);
}

// The table and V's block rows under it, the note right of them or under them (v_bare), from y.
static void bare_draw(Ctx *c, TilesPanel *P, int y)
{
    const GridStyle *g = &P->g;
    int sw, nw, air = tiles_air(c, P);
    bare_stack(c, P, &sw, &nw);
    int x = nw ? P->x : P->x + (P->w - sw) / 2;
    int tw = P->table_w < P->w ? P->table_w : P->w, vw = box_width(g, &P->v);
    int th = draw_tile_table(c, P->k, table_lines(c, P), x + sw - tw, y, tw, true, NULL);
    int vx = x + sw - vw, vy = y + th + air, vh = P->v_turn ? -air : box_height(g, &P->v);
    if (!P->v_turn) {
        draw_matrix(c, g, &P->v, vx, vy);
        frame(c, vx + P->v.label_w, vy, P->v.nc * P->v.cell_w, P->v.nr * P->v.cell_h,
              result_rule(g), c->th->result);
    }
    if (nw) tiles_note(c, P, x + sw + 2 * g->gap, y, nw, 8);
    else tiles_note(c, P, P->x, vy + vh + air, P->w, 3);
}

// The sentence, S' with the tile read framed, then the table and the note as tiles_fit placed them.
static void tiles_draw(Ctx *c, TilesPanel *P)
{
    const GridStyle *g = &P->g;
    const MatBox *b = &P->b;
    const TilesSheet *k = P->k;
    int x = P->x, y = P->y, w = P->w, lh = table_line_h(c, P);
    char update[160];
    int ux = x, uy = y + panel_say(c, FONT_REGULAR, c->th->ink, x, y, w, P->said) + said_gap(c, P);
    if (P->one_line) ux += math_w(c, FONT_REGULAR, c->num_font, P->said) + 2 * g->gap, uy = y;
    if (!P->no_v)
        math_at(c, FONT_REGULAR, c->num_font, c->th->result, ux, uy,
                tiles_sheet_update(k, update, sizeof update));
    y += head_h(c, P);
    // The scaled, masked scores with the tile read framed: the matrix FlashAttention never stores
    // whole.
    int bx =
        P->note_right ? x : x + (w - sv_width(P) - (P->beside ? 2 * g->gap + P->table_w : 0)) / 2;
    draw_matrix(c, g, b, bx, y);
    const MatBox *v = &P->v;
    int vx = bx + box_width(g, b) + v_gap(P);
    int vy = y;
    if (P->v_under) { // the table and V right of it, centred under S'
        int row_w, row_h = under_h(c, P, &row_w), tx = x + (w - row_w) / 2;
        vy = y + sv_height(P) + g->gap, vx = tx + P->table_w + 2 * g->gap;
        draw_tile_table(c, k, table_lines(c, P), tx, vy + g->title_h + g->col_label_h - lh,
                        P->table_w, true, NULL);
        tiles_note(c, P, x, vy + row_h + tiles_air(c, P), w, 3);
    }
    if (P->v_turn) { // V^T right under S', the tile's keys framed as S''s columns above them
        vx = bx, vy = y + box_height(g, b) + g->gap / 2;
        draw_matrix(c, g, v, vx, vy);
        frame(c, bx + b->label_w + (k->c0 - b->c0) * b->cell_w, vy, (k->c1 - k->c0) * v->cell_w,
              v->nr * v->cell_h, result_rule(g), c->th->result);
    } else if (P->v_bare) vx = vy = 0; // drawn under the table (bare_draw)
    else if (!P->no_v) draw_matrix(c, g, v, vx, vy);
    // The tile's frames, within the windows shown (a tile of 12 x 12 wider than the screen).
    int c0 = k->c0 > b->c0 ? k->c0 : b->c0, c1 = k->c1 < b->c0 + b->nc ? k->c1 : b->c0 + b->nc,
        r0 = k->r0 > b->r0 ? k->r0 : b->r0, r1 = k->r1 < b->r0 + b->nr ? k->r1 : b->r0 + b->nr;
    int v0 = k->c0 > v->r0 ? k->c0 : v->r0, v1 = k->c1 < v->r0 + v->nr ? k->c1 : v->r0 + v->nr;
    if (!P->no_v && !P->v_bare && v1 > v0)
        frame(c, vx + v->label_w, vy + g->title_h + g->col_label_h + (v0 - v->r0) * v->cell_h,
              v->nc * v->cell_w, (v1 - v0) * v->cell_h, result_rule(g), c->th->result);
    int cx = bx + b->label_w + (c0 - b->c0) * b->cell_w,
        cy = y + g->title_h + g->col_label_h + (r0 - b->r0) * b->cell_h;
    if (c1 > c0 && r1 > r0)
        frame(c, cx, cy, (c1 - c0) * b->cell_w, (r1 - r0) * b->cell_h, result_rule(g),
              c->th->result);
    if (P->v_under) return;
    if (P->v_bare) {
        bare_draw(c, P, y + sv_height(P) + stack_gap(P));
        return;
    }
    if (P->beside) { // its header on the line of S''s column labels, its rows from S''s first
        int ty = y + g->title_h + g->col_label_h - lh;
        int th = draw_tile_table(c, k, table_lines(c, P), bx + sv_width(P) + 2 * g->gap, ty,
                                 P->table_w, true, NULL);
        y += (sv_height(P) > ty - y + th ? sv_height(P) : ty - y + th) + tiles_air(c, P);
    } else if (P->note_beside) { // the table on the left, the note to its right
        y += sv_height(P) + g->gap;
        draw_tile_table(c, k, table_lines(c, P), x, y, P->table_w, true, NULL);
        int nx = x + P->table_w + 2 * g->gap;
        tiles_note(c, P, nx, y, w - P->table_w - 2 * g->gap, 8);
        return;
    } else if (P->note_right) { // the note right of S', the table under it
        int nx = x + sv_width(P) + 2 * g->gap;
        tiles_note(c, P, nx, y + g->title_h, x + w - nx, 12);
        y += sv_height(P) + g->gap;
        draw_tile_table(c, k, table_lines(c, P), x, y, w, true, NULL);
        return;
    } else {
        y += sv_height(P) + g->gap;
        y += draw_tile_table(c, k, table_lines(c, P), x, y, w, true, NULL) + tiles_air(c, P);
    }
    tiles_note(c, P, x, y, w, 3);
}

void draw_tiles(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    const ViewState *st = c->st;
    const TilesSheet *k = c->ex->tiles;
    TilesSheet own;
    if (!tiles_sheet_is_for(k, c->T, st->head, st->tiles_block, st->tile)) {
        if (!tiles_sheet_make(&own, c->L, c->T, st->head, st->tiles_block, st->tile)) {
            c->s->oom = true;
            return;
        }
        k = &own;
    }
    if (!k->fits) {
        panel_say(c, FONT_BOLD, c->th->ink, x, y, w, k->line);
        return;
    }
    c->s->tile_count = (int)k->computed;
    TilesPanel P;
    memset(&P, 0, sizeof P);
    P.x = x, P.y = y, P.w = w, P.h = h;
    P.head = st->head, P.k = k, P.last = k->last;
    tiles_said(c, &P);
    P.preferred = c->num_font, P.floor_font = ctx_number_floor(c);
    P.nr = p->n, P.nc = p->m;
    // Where V goes, the first that fits, never at the cost of a window of S': V whole before its
    // tile's rows alone, and the table's every row before its first ones.
    static const struct {
        bool block, under, bare, turn, table_cut, none;
    } PLACES[] = {
        {.block = false}, // V whole beside S'
        {.under = true}, // V whole under S', right of the table
        {.bare = true, .turn = true}, // V turned right under S', the table whole under it
        {.block = true}, // the tile's rows of V beside S'
        {.block = true, .under = true}, // ... under S', right of the table
        {.bare = true, .turn = true, .table_cut = true}, // V turned, the table's first rows
        {.bare = true, .table_cut = true}, // the tile's rows of V under the table (d_k 8)
        {.none = true}, // no V
    };
    TilesPanel first = P;
    for (size_t i = 0; i < sizeof PLACES / sizeof PLACES[0]; i++) {
        P = first;
        P.v_block = PLACES[i].block, P.v_under = PLACES[i].under, P.v_bare = PLACES[i].bare;
        P.v_turn = PLACES[i].turn, P.table_cut = PLACES[i].table_cut, P.no_v = PLACES[i].none;
        c->num_font = P.preferred;
        if (P.v_under || P.v_bare) {
            if (P.v_under ? tiles_fit_under(c, &P) : tiles_fit_bare(c, &P)) break;
            continue;
        }
        if (tiles_fit(c, &P) && P.nr == p->n && P.nc == p->m) break;
    }
    tiles_draw(c, &P);
    c->num_font = P.preferred;
}
