// Heatmaps: one head's attention pattern (title, every token labelled, cells as large as fit,
// numbers when they fit), every head's in a grid, and the colour bar beside them.
#include "render/scene_heatmap.h"
#include "render/scene_grid.h"
#include "render/scene_text.h"
#include "model/view.h"

#include <stdlib.h>

// "Head 0 · attention weights A₀"; the part before " · " is the first line when it must wrap. name:
// the matrix's name alone ("A₀"), what a narrow heatmap's second line keeps (may be NULL).
static void heat_title(const Ctx *c, MatId m, int head, bool compact, char *buf, size_t cap,
                       char *name, size_t name_cap)
{
    char own[64];
    if (!name) name = own, name_cap = sizeof own;
    model_mat_name(&c->L->params, m, head, name, name_cap);
    const MatInfo *mi = mat_info(m);
    const char *off =
        params_ablated(&c->L->params, head) ? TRC("a head", " off") : ""; // switched off (key O)
    if (compact) snprintf(buf, cap, TR("head %d%s"), head, off);
    else
        snprintf(buf, cap, TR("Head %d%s \xc2\xb7 %s %s"), head, off, mi ? TR(mi->what) : "", name);
}

// Vertical colour bar with its range; (x, y, w, h) is the whole bar including its labels.
void draw_colorbar(Ctx *c, MatId m, double range, int x, int y, int w, int h)
{
    bool prob = prob_matrix(m); // 0 to 1, on the sequential map
    int font = c->num_font;
    int lh = line_h(c, FONT_REGULAR, font);
    int bar_w = c->num_font * 2 / 3;
    if (bar_w > w / 3) bar_w = w / 3 > 4 ? w / 3 : 4;
    int top = y, bh = h;
    if (bh < 3 * lh) {
        top = y + h / 2 - 3 * lh / 2;
        bh = 3 * lh;
    }
    int steps = bh < 256 ? bh : 256;
    for (int i = 0; i < steps; i++) {
        double t = 1.0 - (i + 0.5) / steps;
        Rgba col = prob ? colormap_rgb(c->st->colormap, t)
                        : colormap_diverging(c->st->colormap, 2.0 * t - 1.0);
        int y0 = top + (int)((long)i * bh / steps), y1 = top + (int)((long)(i + 1) * bh / steps);
        rect(c, x, y0, bar_w, y1 - y0, col);
    }
    frame(c, x, top, bar_w, bh, 1, c->th->muted);
    char buf[32];
    double hi = prob ? 1.0 : range, lo = prob ? 0.0 : -range;
    int lx = x + bar_w + c->num_font / 4, lw = w - bar_w - c->num_font / 4;
    if (prob) snprintf(buf, sizeof buf, "1");
    else model_format_value(hi, buf, sizeof buf);
    text_in(c, FONT_REGULAR, font, c->th->muted, (Box){lx, top, lw, lh}, LEFT, buf);
    if (prob) snprintf(buf, sizeof buf, "0");
    else model_format_value(lo, buf, sizeof buf);
    text_in(c, FONT_REGULAR, font, c->th->muted, (Box){lx, top + bh - lh, lw, lh}, LEFT, buf);
}

// The bar and its widest label (the range's ends, as draw_colorbar writes them).
int colorbar_width(const Ctx *c, MatId m)
{
    char buf[32];
    if (prob_matrix(m)) snprintf(buf, sizeof buf, "0");
    else model_format_value(-group_range(c, m), buf, sizeof buf);
    return c->num_font * 2 / 3 + c->num_font / 4 + text_w(c, FONT_REGULAR, c->num_font, buf) + 2;
}

const char *scene_heat_axes(const Lesson *L, bool brief)
{
    if (!L->params.cross) return TR("\xe2\x86\x93 queries    \xe2\x86\x92 keys");
    return brief ? TR("\xe2\x86\x93 target   \xe2\x86\x92 source")
                 : TR("\xe2\x86\x93 queries: the target    \xe2\x86\x92 keys: the source");
}

// One heatmap's layout, worked out step by step by the functions below and then drawn by them.
typedef struct {
    MatId m;
    int head;
    double range;
    int x, y, w, h; // the whole heatmap
    bool compact; // a panel of the all-heads grid: smaller labels, no axes' caption, numbers on
                  // slides only
    int title_font, label_font, row_font, col_font, num_font;
    int least; // beside the board: the smallest size of its texts (scene_number_floor, or the
               // numbers' size when zoomed out below it); 0 in the grid of heads
    bool keys_off; // no key labels: none fits at `least` even cut or staggered (the board beside
                   // has them)
    bool rows_off; // no query labels: their rows are lower than a line at `least`
    int title_h, title_w; // the title's lines, and the width of its text
    int label_w, label_h; // the query labels' column, and a label line's height
    int label_need; // the column the longest query label needs
    int top_h; // the key labels above the cells
    const char *axes; // the axes' caption under the cells (NULL: none)
    int axes_w, cap_h;
    int cell_w, cell_h;
    bool down; // key labels written downwards, one character a line (down_lines at most)
    bool stagger; // key labels whole on two lines, each over its column and half its neighbours'
    int stagger_h; // a staggered line's height
    int down_lines;
    int gx, gy, gw; // the cells' top-left and width
    bool numbers; // every number fits its cell
    int stride; // every stride-th query and key drawn, each over stride x stride cells (1: all)
} Heat;

// "Head 0 · attention weights A₀" (or title_text) on one line, or split at " · " onto two when it
// must wrap.
static void heat_draw_title(Ctx *c, Heat *hm, bool selected, const char *title_text)
{
    char title[160], fitted[160], name[64] = "";
    if (title_text) snprintf(title, sizeof title, "%s", title_text);
    else heat_title(c, hm->m, hm->head, hm->compact, title, sizeof title, name, sizeof name);
    int x = hm->x, y = hm->y, w = hm->w, title_font = hm->title_font;
    int tlh = line_h(c, FONT_BOLD, title_font);
    hm->title_h = tlh + c->num_font / 5;
    const char *dot = strstr(title, " \xc2\xb7 ");
    Rgba tcol = selected ? c->th->result : c->th->ink;
    if (math_w(c, FONT_BOLD, title_font, title) > w && dot && !hm->compact) {
        char first[160];
        snprintf(first, sizeof first, "%.*s", (int)(dot - title), title);
        fit_text(c, FONT_BOLD, title_font, first, w, fitted, sizeof fitted);
        text_in(c, FONT_BOLD, title_font, tcol, (Box){x, y, w, tlh}, LEFT, fitted);
        // The second line ("attention weights A₀") as large as fits down to the floor; narrower,
        // the name alone
        // ("A₀"); narrower still, cut.
        const char *second = dot + 4;
        int size = title_font, least = hm->least > 0 ? hm->least : 8;
        while (size > least && math_w(c, FONT_REGULAR, size, second) > w) size--;
        if (math_w(c, FONT_REGULAR, size, second) > w && name[0] && hm->least > 0) {
            second = name;
            size = title_font;
            while (size > least && math_w(c, FONT_REGULAR, size, second) > w) size--;
        }
        if (math_w(c, FONT_REGULAR, size, second) <= w)
            math_at(c, FONT_REGULAR, size, tcol, x, y + tlh, second);
        else if (hm->least > 0) {
            fit_text(c, FONT_REGULAR, size, second, w, fitted, sizeof fitted);
            if (fitted[0])
                text_in(c, FONT_REGULAR, size, tcol, (Box){x, y + tlh, w, tlh}, LEFT, fitted);
        }
        hm->title_h = 2 * tlh + c->num_font / 5;
        hm->title_w = w;
    } else {
        fit_text(c, FONT_BOLD, title_font, title, w, fitted, sizeof fitted);
        int tw = math_w(c, FONT_BOLD, title_font, fitted);
        math_at(c, FONT_BOLD, title_font, tcol, hm->compact ? x + (w - tw) / 2 : x,
                y + (hm->title_h - tlh) / 2, fitted);
        hm->title_w = tw;
    }
}

// The query labels' column (a quarter of the width at most), the key labels' line and the axes'
// caption under the cells (which sequence runs down, which across) when the width holds it.
static void heat_measure_labels(const Ctx *c, Heat *hm)
{
    const AttnParams *p = &c->L->params;
    char buf[160];
    int lw = 0;
    for (int i = 0; i < p->n; i++) {
        model_axis_label(c->L, AXIS_QUERY, i, buf, sizeof buf);
        int tw = text_w(c, FONT_REGULAR, hm->label_font, buf);
        if (tw > lw) lw = tw;
    }
    hm->label_need = lw + c->num_font / 4;
    if (lw > hm->w / 3) lw = hm->w / 3;
    hm->label_w = lw + c->num_font / 4;
    hm->label_h = line_h(c, FONT_REGULAR, hm->label_font);
    hm->top_h = hm->label_h + c->num_font / 6;
    const char *axes = hm->compact ? NULL : scene_heat_axes(c->L, false);
    int axes_w = axes ? text_w(c, FONT_REGULAR, hm->label_font, axes) : 0;
    if (axes && axes_w > hm->w) {
        axes = scene_heat_axes(c->L, true);
        axes_w = text_w(c, FONT_REGULAR, hm->label_font, axes);
    }
    if (axes_w > hm->w || hm->h - hm->title_h - hm->top_h < 4 * hm->label_h) axes = NULL;
    hm->axes = axes;
    hm->axes_w = axes_w;
    hm->cap_h = axes ? hm->label_h + c->num_font / 6 : 0;
}

// The cells' size in avail_w x avail_h: as large as fit, at most 3:1 wide and 2:1 tall (taller:
// square), beside the board no larger than the result's cells.
static void heat_cells(const Ctx *c, const Heat *hm, int avail_w, int avail_h, int *cw, int *ch)
{
    const AttnParams *p = &c->L->params;
    int cell_h = p->n > 0 ? avail_h / p->n : 0, cell_w = p->m > 0 ? avail_w / p->m : 0;
    if (cell_h > cell_w * 2 / 1) cell_h = cell_w;
    if (cell_w > cell_h * 3) cell_w = cell_h * 3;
    if (!hm->compact && c->heat_cell_w > 0 && cell_w > c->heat_cell_w) cell_w = c->heat_cell_w;
    if (!hm->compact && c->heat_cell_h > 0 && cell_h > c->heat_cell_h) cell_h = c->heat_cell_h;
    *cw = cell_w;
    *ch = cell_h;
}

// Cells as large as the rest of the room holds (at most 3:1, and beside the board no larger than
// the result's cells: the result stays first); the row labels' font, shrunk to the cells. False
// when no cell fits.
static bool heat_size_cells(const Ctx *c, Heat *hm)
{
    const AttnParams *p = &c->L->params;
    int avail_w = hm->w - hm->label_w, avail_h = hm->h - hm->title_h - hm->top_h - hm->cap_h,
        cell_w, cell_h;
    heat_cells(c, hm, avail_w, avail_h, &cell_w, &cell_h);
    // Beside the board a row holds a query's label at the floor: narrow cells stand up to twice as
    // tall as wide for it; narrower (or no room), the labels are left to the board beside, whose
    // rows name the same tokens, and the cells take their column.
    hm->rows_off = false;
    int row_need = hm->least > 0 ? line_h(c, FONT_REGULAR, hm->least) - 2 : 0;
    if (hm->least > 0
        && hm->label_need
               > hm->label_w) { // the tokens whole when the cells keep a row's height at 2:1
        int most = hm->w - p->m * ((row_need + 1) / 2),
            lw = hm->label_need < most ? hm->label_need : most, cw, ch;
        heat_cells(c, hm, hm->w - lw, avail_h, &cw, &ch);
        if (2 * cw >= row_need && p->n * row_need <= avail_h && cw >= 1) {
            hm->label_w = lw;
            cell_w = cw;
            cell_h = ch;
        }
    }
    if (cell_h < row_need && (row_need > 2 * cell_w || p->n * row_need > avail_h)) {
        hm->rows_off = true;
        hm->label_w = hm->label_need = c->num_font / 4;
        heat_cells(c, hm, hm->w - hm->label_w, avail_h, &cell_w, &cell_h);
    } else if (cell_h < row_need) cell_h = row_need;
    hm->cell_w = cell_w;
    hm->cell_h = cell_h;
    if (cell_h < 1 || cell_w < 1) return false;
    // Row labels shrink when the cells are lower than the text (every token keeps its label);
    // beside the board not below the floor (the rows are high enough for it, or have none).
    int least = hm->least > 0 ? hm->least : 6;
    hm->row_font = hm->label_font;
    while (hm->row_font > least && line_h(c, FONT_REGULAR, hm->row_font) > cell_h + 2)
        hm->row_font--;
    return true;
}

// Key labels: across when "the…" fits a cell at 8 px or more; else written downwards, one letter a
// line (at most 6), so that narrow columns keep a readable label each, the cells giving them their
// room. False when no cell row is left. Whether every label of axis (the keys or the queries) fits
// width at size f.
static bool labels_fit(const Ctx *c, Axis axis, int f, int width)
{
    char buf[160];
    int count = axis == AXIS_KEY ? c->L->params.m : c->L->params.n;
    for (int j = 0; j < count; j++) {
        model_axis_label(c->L, axis, j, buf, sizeof buf);
        if (text_w(c, FONT_REGULAR, f, buf) > width) return false;
    }
    return true;
}

// Lowers the cells so that the rows fit under key labels top_h high. False when no cell row is
// left.
static bool heat_fit_rows(Heat *hm, int n)
{
    int rows_h = hm->h - hm->title_h - hm->top_h - hm->cap_h;
    if (n > 0 && rows_h / n < hm->cell_h) hm->cell_h = rows_h / n;
    return hm->cell_h >= 1;
}

// Whether every label of an axis (the keys, the queries) cut to width at size f (fit_label:
// "extra…", its index kept) keeps two letters of its token at least, and no two read the same ("c…"
// for "cat" and "cut" would name neither).
static bool labels_cut_fit(const Ctx *c, Axis axis, int f, int width)
{
    int m = axis == AXIS_KEY ? c->L->params.m : c->L->params.n;
    char buf[160], (*fitted)[160] = calloc((size_t)(m > 0 ? m : 1), sizeof *fitted);
    bool ok = fitted != NULL;
    for (int j = 0; j < m && ok; j++) {
        model_axis_label(c->L, axis, j, buf, sizeof buf);
        fit_label(c, FONT_REGULAR, f, buf, width, fitted[j], sizeof fitted[j]);
        const char *dots = strstr(fitted[j], "\xe2\x80\xa6");
        int letters = 0;
        for (const char *q = fitted[j]; *q && (!dots || q < dots); q++)
            letters += ((unsigned char)*q & 0xC0) != 0x80;
        ok = fitted[j][0] && (letters >= 2 || !strcmp(fitted[j], buf))
             && text_w(c, FONT_REGULAR, f, fitted[j]) <= width;
        for (int i = 0; i < j && ok; i++) ok = strcmp(fitted[i], fitted[j]) != 0;
    }
    free(fitted);
    return ok;
}

// Staggered key labels at size f: two lines, each label over its column and half of each
// neighbour's.
static bool heat_stagger(const Ctx *c, Heat *hm, int f)
{
    hm->col_font = f;
    hm->down = false;
    hm->stagger = true;
    hm->stagger_h = line_h(c, FONT_REGULAR, f);
    int extra = 2 * hm->stagger_h + c->num_font / 6 - hm->top_h;
    if (extra > 0) hm->top_h += extra;
    return heat_fit_rows(hm, c->L->params.n);
}

// Beside the board the key labels are never below the floor (hm->least) nor one letter a line:
// whole across from the labels' size down to the floor, else whole on two staggered lines, else cut
// at the floor ("extra…₀", each keeping a letter), across or staggered; else none — the board
// beside has them. False when no row is left.
static bool heat_fit_key_labels_floor(const Ctx *c, Heat *hm)
{
    const AttnParams *p = &c->L->params;
    int cell_w = hm->cell_w, least = hm->least;
    hm->down = hm->stagger = hm->keys_off = false;
    hm->down_lines = 0;
    for (int f = hm->label_font; f >= least; f--) {
        if (labels_fit(c, AXIS_KEY, f, cell_w - 2)) {
            hm->col_font = f;
            return true;
        }
        if (p->m > 1 && labels_fit(c, AXIS_KEY, f, 2 * cell_w - f / 2))
            return heat_stagger(c, hm, f);
    }
    hm->col_font = least;
    if (labels_cut_fit(c, AXIS_KEY, least, cell_w - 2)) return true;
    if (p->m > 1 && labels_cut_fit(c, AXIS_KEY, least, 2 * cell_w - least / 2))
        return heat_stagger(c, hm, least);
    hm->keys_off = true;
    hm->top_h = c->num_font / 6;
    return true;
}

static bool heat_fit_key_labels(const Ctx *c, Heat *hm)
{
    if (hm->least > 0) return heat_fit_key_labels_floor(c, hm);
    const AttnParams *p = &c->L->params;
    int col_font = hm->label_font, cell_w = hm->cell_w;
    while (col_font > 8 && text_w(c, FONT_REGULAR, col_font, "the\xe2\x80\xa6") > cell_w - 2)
        col_font--;
    hm->down = text_w(c, FONT_REGULAR, col_font, "the\xe2\x80\xa6") > cell_w - 2;
    hm->down_lines = 0;
    hm->stagger = false;
    hm->col_font = col_font;
    // Every label whole before any is cut ("…جل"): across its cell, else on two staggered lines
    // (each label over its column and half of each neighbour's), at the largest size from the
    // labels' own down to the size a cut label would have.
    if (!hm->down && labels_fit(c, AXIS_KEY, col_font, cell_w - 2))
        return true; // every label whole already
    int least = col_font;
    if (hm->down) { // not below the size of the letters written downwards
        least = cell_w + cell_w / 3;
        if (least > hm->label_font) least = hm->label_font;
    }
    for (int f = hm->label_font; f >= least && f >= 8; f--) {
        if (labels_fit(c, AXIS_KEY, f, cell_w - 2)) {
            hm->col_font = f;
            hm->down = false;
            return true;
        }
        if (p->m > 1
            && labels_fit(c, AXIS_KEY, f,
                          2 * cell_w - f / 2)) // a space between two labels of a line
            return heat_stagger(c, hm, f);
    }
    if (!hm->down) return true;
    col_font = cell_w + cell_w / 3;
    if (col_font > hm->label_font) col_font = hm->label_font;
    if (col_font < 6) col_font = 6;
    hm->col_font = col_font;
    char buf[160];
    for (int j = 0; j < p->m; j++) {
        model_axis_label(c->L, AXIS_KEY, j, buf, sizeof buf);
        int chars = 0;
        for (const char *q = buf; *q; q++) chars += ((unsigned char)*q & 0xC0) != 0x80;
        if (chars > hm->down_lines) hm->down_lines = chars;
    }
    if (hm->down_lines > 6) hm->down_lines = 6;
    int extra = hm->down_lines * (line_h(c, FONT_REGULAR, col_font) * 4 / 5) + 2 - hm->top_h;
    if (extra > 0) {
        hm->top_h += extra;
        return heat_fit_rows(hm, p->n);
    }
    return true;
}

// Numbers only at the board's size, when every one fits its cell: the widest is the range's end, or
// one with its integer digits and four decimals (a range of exactly 4 prints as "−4", its cells as
// "−2.8284").
static bool heat_numbers_fit_at(const Ctx *c, const Heat *hm, int f)
{
    bool prob = prob_matrix(hm->m);
    char wide[32], wide4[32];
    model_format_value(prob ? 0.5555 : -hm->range, wide, sizeof wide);
    model_format_value(prob ? 0.5555 : -(floor(hm->range) + 0.5555), wide4, sizeof wide4);
    int ww = text_w(c, FONT_REGULAR, f, wide), ww4 = text_w(c, FONT_REGULAR, f, wide4);
    if (ww4 > ww) ww = ww4;
    return ww + f / 4 <= hm->cell_w && line_h(c, FONT_REGULAR, f) <= hm->cell_h;
}

// Numbers at the board's one size when they fit the cells (every number of a screen at one size);
// the window's grid of heads has none (at its label size they would be below the back row's limit);
// a slide of every head has them at its labels' size when they fit (the page is sized for them).
static bool heat_numbers_fit(const Ctx *c, Heat *hm)
{
    if (hm->compact && !c->ex->slide) return false;
    return heat_numbers_fit_at(c, hm, hm->num_font);
}

// While training, a heatmap in the window whose cells are too small for their numbers says so under
// its cells, lowering them when there is no room (the training's heatmaps had no numbers
// and said nothing). On a plain board the matrix beside it has the numbers, and a slide is the
// picture: no note. Returns the note's height (0: none).
static int heat_place_note(Ctx *c, Heat *hm, const char **note)
{
    *note = NULL;
    if (hm->numbers || hm->compact || c->ex->slide || !c->ex->train || !c->ex->train->active)
        return 0;
    const AttnParams *p = &c->L->params;
    const char *t = TR("(cells too small for their numbers here)");
    int f = hm->label_font,
        nh = wrap_text(c, FONT_REGULAR, f, c->th->muted, 0, 0, hm->w, 3, t, false);
    int bottom = hm->gy + hm->cell_h * p->n + hm->cap_h + c->num_font / 6;
    if (bottom + nh > hm->y + hm->h) {
        int ch = p->n > 0 ? (hm->y + hm->h - nh - hm->cap_h - c->num_font / 6 - hm->gy) / p->n : 0;
        if (ch < 4) return 0; // no room: the colours alone, as before
        hm->cell_h = ch;
    }
    *note = t;
    return nh;
}

// Every key's label above its column: across, cut to the cell, or downwards (a longer token ends in
// "…").
static void heat_draw_key_labels(Ctx *c, const Heat *hm)
{
    const AttnParams *p = &c->L->params;
    char buf[160], fitted[160];
    int cell_w = hm->cell_w, col_font = hm->col_font, top = hm->gy - hm->top_h;
    if (hm->keys_off) return;
    for (int j = 0; j < p->m; j++) {
        model_axis_label(c->L, AXIS_KEY, j, buf, sizeof buf);
        int cx = hm->gx + j * cell_w;
        if (hm->down) {
            int step = line_h(c, FONT_REGULAR, col_font) * 4 / 5, line = 0;
            const char *q = buf;
            while (*q && line < hm->down_lines) {
                size_t k = 1;
                while (q[k] && ((unsigned char)q[k] & 0xC0) == 0x80) k++;
                char ch[8];
                bool last = line == hm->down_lines - 1 && q[k];
                snprintf(ch, sizeof ch, "%.*s", last ? 3 : (int)k, last ? "\xe2\x80\xa6" : q);
                text_in(c, FONT_REGULAR, col_font, c->th->muted,
                        (Box){cx, top + line * step, cell_w, step}, CENTER, ch);
                q += k;
                line++;
            }
            continue;
        }
        if (hm->stagger) { // every other label a line lower, centred over its column, inside the
                           // heatmap
            int bx = cx - cell_w / 2, bw = 2 * cell_w;
            if (bx < hm->x) bx = hm->x;
            if (bx + bw > hm->x + hm->w) bx = hm->x + hm->w - bw;
            fit_label(c, FONT_REGULAR, col_font, buf, 2 * cell_w - col_font / 2, fitted,
                      sizeof fitted); // whole, or cut
            int tw = text_w(c, FONT_REGULAR, col_font, fitted), tx = cx + cell_w / 2 - tw / 2;
            if (tx < bx) tx = bx;
            if (tx + tw > bx + bw) tx = bx + bw - tw;
            text_at(c, FONT_REGULAR, col_font, c->th->muted, tx, top + (j % 2) * hm->stagger_h,
                    fitted);
            continue;
        }
        fit_label(c, FONT_REGULAR, col_font, buf, cell_w - 2, fitted, sizeof fitted);
        if (!fitted[0]) snprintf(fitted, sizeof fitted, "%d", j);
        text_in(c, FONT_REGULAR, col_font, c->th->muted, (Box){cx, top, cell_w, hm->top_h}, CENTER,
                fitted);
    }
}

// The axes' caption centred under the cells, inside the heatmap's width; then every query's label.
static void heat_draw_query_labels(Ctx *c, const Heat *hm)
{
    const AttnParams *p = &c->L->params;
    int lw = hm->label_w, cell_h = hm->cell_h;
    if (hm->axes) {
        int ax = hm->gx + hm->gw / 2 - hm->axes_w / 2;
        if (ax + hm->axes_w > hm->x + hm->w) ax = hm->x + hm->w - hm->axes_w;
        if (ax < hm->x) ax = hm->x;
        text_in(c, FONT_REGULAR, hm->label_font, c->th->muted,
                (Box){ax, hm->gy + cell_h * p->n + c->num_font / 6, hm->axes_w, hm->label_h}, LEFT,
                hm->axes);
    }
    char buf[160], fitted[160];
    for (int i = 0; i < p->n && !hm->rows_off; i++) {
        model_axis_label(c->L, AXIS_QUERY, i, buf, sizeof buf);
        fit_label(c, FONT_REGULAR, hm->row_font, buf, lw - c->num_font / 4, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, hm->row_font, c->th->muted,
                (Box){hm->gx - lw, hm->gy + i * cell_h, lw - c->num_font / 4, cell_h}, RIGHT,
                fitted);
    }
}

// The cells on a grid of lines: hidden until revealed (on the current head), hatched where the
// causal mask hides a key, numbered when the numbers fit; each answers the pointer.
static void heat_draw_cells(Ctx *c, const Heat *hm)
{
    const AttnParams *p = &c->L->params;
    int cell_w = hm->cell_w, cell_h = hm->cell_h;
    bool causal = p->mask == MASK_CAUSAL && view_stage(c->st) >= STAGE_MASK,
         prob = prob_matrix(hm->m);
    int inset = cell_w >= 8 && cell_h >= 8 ? 1 : 0;
    rect(c, hm->gx - inset, hm->gy - inset, hm->gw + inset, cell_h * p->n + inset, c->th->grid);
    char buf[64];
    int s = hm->stride > 1 ? hm->stride : 1;
    for (int i = 0; i < p->n; i += s) {
        for (int j = 0; j < p->m; j += s) {
            CellRef ref = {hm->m, hm->head, i, j};
            int cx = hm->gx + j * hm->cell_w, cy = hm->gy + i * hm->cell_h;
            if (s > 1) { // a sample: this cell's value over the block it stands for (cut at the
                         // grid's edges)
                cell_w = (j + s <= p->m ? s : p->m - j) * hm->cell_w;
                cell_h = (i + s <= p->n ? s : p->n - i) * hm->cell_h;
            }
            double v = cell_value(c, ref);
            bool masked = causal && j > i;
            Rgba bgc = masked && prob ? c->th->masked_bg : cell_color(c, hm->m, v, hm->range);
            bool shown = view_cell_revealed(c->st, ref) || hm->head != c->st->head;
            if (!shown) bgc = c->th->empty;
            if (shown) cell_rect(c, cx, cy, cell_w - inset, cell_h - inset, bgc, ref);
            else rect(c, cx, cy, cell_w - inset, cell_h - inset, bgc);
            if (masked && shown)
                scene_push(c->s, CMD_HATCH, cx, cy, cell_w - inset, cell_h - inset, c->th->hatch);
            if (hm->numbers && shown) {
                model_format_value(v, buf, sizeof buf);
                if (text_in(c, FONT_REGULAR, hm->num_font,
                            masked ? c->th->ink : colormap_text_on(bgc),
                            (Box){cx, cy, cell_w - inset, cell_h - inset}, CENTER, buf)
                    > 0)
                    tag_last(c, ROLE_NUMBER, ref);
            }
            if (shown || c->st->quiz_phase == QUIZ_ASKING)
                scene_push_hit(c->s, cx, cy, cell_w, cell_h, ref, hm->head);
        }
    }
}

// A per-head matrix of queries by keys: an attention pattern, before or after the softmax (the
// table's axes).
static bool attention_shaped(MatId m)
{
    const MatInfo *mi = mat_info(m);
    return mi && mi->per_head && mi->row_axis == AXIS_QUERY && mi->col_axis == AXIS_KEY;
}

// The focus on this head's pattern: its cell when the focus is a cell of a pattern, its row when
// the focused cell was computed from a whole row of one (the matrix table's `from`: a row of Z is
// A's row times V).
static void heat_draw_focus(Ctx *c, const Heat *hm)
{
    const AttnParams *p = &c->L->params;
    CellRef f = c->focus;
    if (f.mat == MAT_NONE || f.head != hm->head || f.row < 0 || f.row >= p->n) return;
    bool reads_row = false;
    for (int k = 1; k < c->lit_count; k++) // lit[0] is the focus, then what it was computed from
        if (c->lit[k].col < 0 && attention_shaped(c->lit[k].mat)) reads_row = true;
    int t = c->num_font / 8 < 3 ? 3 : c->num_font / 8, cell_w = hm->cell_w, cell_h = hm->cell_h;
    if (f.col < p->m && attention_shaped(f.mat))
        frame(c, hm->gx + f.col * cell_w - t, hm->gy + f.row * cell_h - t, cell_w + 2 * t,
              cell_h + 2 * t, t, c->th->focus);
    else if (reads_row && !attention_shaped(f.mat))
        frame(c, hm->gx - t, hm->gy + f.row * cell_h - t, hm->gw + 2 * t, cell_h + 2 * t, t,
              c->th->focus);
}

// The selected head's panel in the grid: a frame around its title and cells.
static void heat_draw_selection(Ctx *c, const Heat *hm)
{
    int x = hm->x, y = hm->y, w = hm->w, h = hm->h, cells_h = hm->cell_h * c->L->params.n;
    int tx = x + (w - hm->title_w) / 2;
    int l = hm->gx - hm->label_w < tx ? hm->gx - hm->label_w : tx;
    int r = hm->gx + hm->gw > tx + hm->title_w ? hm->gx + hm->gw : tx + hm->title_w;
    int pad = c->num_font / 4;
    int fx = l - pad < x ? x : l - pad, fr = r + pad > x + w ? x + w : r + pad;
    int fb = hm->gy + cells_h + pad > y + h ? y + h : hm->gy + cells_h + pad;
    frame(c, fx, y, fr - fx, fb - y, 3, c->th->result);
}

// One head's heatmap in (x, y, w, h): title, key labels on top, query labels left, cells as large
// as fit; numbers at the board's size when they fit the cells, else the colours alone (the board
// has the numbers). Every token is labelled: the labels turn or shrink to an abbreviation before
// any is left out. Beside the board (c->heat_shown) nothing is drawn below the floor
// (scene_number_floor) instead: a label whole, staggered or cut keeping two letters, else the axis
// is left to the board beside it.
void draw_heatmap(Ctx *c, const HeatRequest *rq, int *grid_y, int *grid_h)
{
    MatId m = rq->mat;
    int head = rq->head, x = rq->box.x, y = rq->box.y, w = rq->box.w, h = rq->box.h;
    double range = rq->range;
    bool compact = rq->compact, selected = rq->selected;
    *grid_y = y;
    *grid_h = h;
    Heat hm = {.m = m,
               .head = head,
               .range = range,
               .x = x,
               .y = y,
               .w = w,
               .h = h,
               .compact = compact,
               .stride = compact ? heat_grid_stride(&c->L->params) : 1};
    // Beside the board what the class reads is at the floor at least (digits of 2.6 % of the
    // height; when zoomed out, the numbers' size): the title, the tokens, the axes' caption.
    int floor = scene_number_floor(c->s->height);
    hm.least = c->heat_floor               ? floor
               : compact || !c->heat_shown ? 0
               : floor < c->num_font       ? floor
                                           : c->num_font;
    hm.title_font = compact ? c->num_font * 2 / 3 : c->num_font * 4 / 5;
    hm.label_font = compact ? c->num_font * 3 / 5 : c->num_font * 4 / 5;
    if (hm.title_font < hm.least) hm.title_font = hm.least;
    if (hm.label_font < hm.least) hm.label_font = hm.least;
    hm.num_font = compact ? hm.label_font : c->num_font;
    heat_draw_title(c, &hm, selected, rq->title);
    heat_measure_labels(c, &hm);
    if (!heat_size_cells(c, &hm)) return;
    const AttnParams *p = &c->L->params;
    // The query labels' column takes the room the cells leave, so that a label fits whole where it
    // can.
    int room = w - hm.cell_w * p->m;
    if (!hm.rows_off && hm.label_need > hm.label_w && room > hm.label_w)
        hm.label_w = hm.label_need < room ? hm.label_need : room;
    if (!heat_fit_key_labels(c, &hm)) return;
    // A query label whole at the key labels' size rather than cut at a larger one.
    while (hm.row_font > hm.col_font
           && !labels_fit(c, AXIS_QUERY, hm.row_font, hm.label_w - c->num_font / 4))
        hm.row_font--;
    // Beside the board a query label cut to its column keeps two letters, no two alike; else the
    // board names them.
    if (hm.least > 0 && !hm.rows_off
        && !labels_cut_fit(c, AXIS_QUERY, hm.row_font, hm.label_w - c->num_font / 4))
        hm.rows_off = true;
    hm.gw = hm.cell_w * p->m;
    hm.gx = x + hm.label_w + (w - hm.label_w - hm.gw) / 2;
    hm.gy = y + hm.title_h + hm.top_h;
    c->heat_grid_x = hm.gx;
    c->heat_grid_w = hm.gw;
    *grid_y = hm.gy;
    *grid_h = hm.cell_h * p->n;
    scene_push_hit(c->s, x, y, w, h, (CellRef){MAT_NONE, 0, 0, 0}, head);
    hm.numbers = heat_numbers_fit(c, &hm);
    const char *note;
    if (heat_place_note(c, &hm, &note)) {
        *grid_h = hm.cell_h * p->n;
        wrap_text(c, FONT_REGULAR, hm.label_font, c->th->muted, x,
                  hm.gy + hm.cell_h * p->n + hm.cap_h + c->num_font / 6, w, 3, note, true);
    }
    heat_draw_key_labels(c, &hm);
    heat_draw_query_labels(c, &hm);
    heat_draw_cells(c, &hm);
    heat_draw_focus(c, &hm);
    if (selected && compact) heat_draw_selection(c, &hm);
}

int heat_grid_stride(const AttnParams *p)
{
    double cells = (double)p->heads * p->n * p->m;
    int s = 1;
    while (cells / ((double)s * s) > SCENE_GRID_MAX_CELLS) s++;
    return s;
}

int heat_grid_cols(const AttnParams *p, double w, double h)
{
    int cols = 1;
    double best = -1.0;
    for (int k = 1; k <= p->heads; k++) {
        int rows = (p->heads + k - 1) / k;
        double cw = w / k / (p->m + 1), ch = h / rows / (p->n + 2), cell = cw < ch ? cw : ch;
        if (cell > best) {
            best = cell;
            cols = k;
        }
    }
    return cols;
}

int scene_page_title(Ctx *c, int x, int y, int w, bool draw)
{
    if (!c->ex->slide || !c->L->title || !c->L->title[0]) return 0;
    int f = c->num_font * 4 / 5, lh = line_h(c, FONT_BOLD, f);
    if (draw) {
        char fitted[512];
        fit_text(c, FONT_BOLD, f, c->L->title, w, fitted, sizeof fitted);
        text_at(c, FONT_BOLD, f, c->th->ink, x, y, fitted);
    }
    return lh + c->num_font / 5;
}

// With grouped K/V heads, over each grid row the heads of one K/V head share a band in its colour
// and its name
// ("K/V head 1"), so the class sees which patterns read the same keys and values. label_h: the line
// they take.
static void draw_group_bands(Ctx *c, int x, int y, int cols, int pw, int label_h, int font, int row)
{
    const AttnParams *p = &c->L->params;
    int first = row * cols, last = first + cols < p->heads ? first + cols : p->heads,
        pad = c->num_font / 4;
    int rule = c->num_font / 8 > 2 ? c->num_font / 8 : 2;
    for (int i = first; i < last;) {
        int g = params_kv_head(p, i), j = i;
        while (j + 1 < last && params_kv_head(p, j + 1) == g) j++;
        int bx = x + (i - first) * pw + pad, bw = (j - i + 1) * pw - 2 * pad;
        char name[64], fitted[64];
        // TRANSLATORS: over the heads that share one K/V head in the all-heads view (grouped-query
        // attention).
        snprintf(name, sizeof name, TR("K/V head %d"), g);
        fit_text(c, FONT_BOLD, font, name, bw, fitted, sizeof fitted);
        text_in(c, FONT_BOLD, font, c->th->ink, (Box){bx, y, bw, label_h - 2 * rule}, CENTER,
                fitted);
        rect(c, bx, y + label_h - 2 * rule, bw, rule, scene_series_color(c, g));
        i = j + 1;
    }
}

void draw_heads_grid(Ctx *c, MatId m, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    double range = group_range(c, m);
    int bar = colorbar_width(c, m);
    int gw = w - bar - c->num_font / 2;
    int stride = heat_grid_stride(p);
    int nf = c->num_font * 3 / 5,
        nh = stride > 1 ? line_h(c, FONT_REGULAR, nf) + c->num_font / 6 : 0;
    h -= nh; // (a line under the grid for the sample's note)
    size_t first_cmd = c->s->count;
    // Grouped K/V heads: a line over each grid row for the groups' bands, at the board's floor (it
    // names a head).
    bool grouped = p->kv_heads > 0 && p->kv_heads < p->heads && p->heads > 1;
    int gf = scene_number_floor(c->s->height), rule = c->num_font / 8 > 2 ? c->num_font / 8 : 2;
    int gl = grouped ? line_h(c, FONT_BOLD, gf) + 2 * rule : 0;
    int cols = heat_grid_cols(p, gw, h), rows = (p->heads + cols - 1) / cols;
    int pw = gw / cols, ph = (h - rows * gl) / rows;
    int pad = c->num_font / 4;
    for (int r = 0; grouped && r < rows; r++)
        draw_group_bands(c, x, y + r * (ph + gl), cols, pw, gl, gf, r);
    for (int i = 0; i < p->heads; i++) {
        int px0 = x + (i % cols) * pw, py0 = y + (i / cols) * (ph + gl) + gl;
        int gy, gh;
        HeatRequest rq = {m,     i,
                          range, {px0 + pad, py0 + pad, pw - 2 * pad, ph - 2 * pad},
                          true,  i == c->st->head,
                          NULL};
        draw_heatmap(c, &rq, &gy, &gh);
    }
    bool cells = false; // (too small a panel draws no cells: then there is no sample to speak of)
    for (size_t k = first_cmd; k < c->s->count && !cells; k++)
        cells = c->s->cmds[k].role == ROLE_CELL;
    if (stride > 1
        && cells) { // said under the grid: the class must not take a sample for every cell
        char note[300], fitted[300];
        snprintf(note, sizeof note,
                 // TRANSLATORS: under the all-heads grid of a huge lesson: "Sampled: 256 of 512
                 // queries and keys per head shown (one in 2), each square standing for 2x2 cells".
                 TR("Sampled: %d of %d queries and keys per head shown (one in %d), each square "
                    "standing for %dx%d cells"),
                 (p->m + stride - 1) / stride, p->m, stride, stride, stride);
        fit_text(c, FONT_REGULAR, nf, note, w, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, nf, c->th->muted, (Box){x, y + h, w, nh}, CENTER, fitted);
    }
    draw_colorbar(c, m, range, x + w - bar, y + c->num_font, bar, h - 2 * c->num_font);
}

// The stage's heatmap for every head; before the scores, a sentence saying when they appear.
void draw_all_heads(Ctx *c, int x, int y, int w, int h)
{
    MatId m = model_stage_heatmap(&c->L->params, view_stage(c->st));
    if (m == MAT_NONE) {
        text_in(c, FONT_REGULAR, c->text_font, c->th->muted, (Box){x, y, w, h}, CENTER,
                c->ex->slide ? TR("The heads' attention patterns appear from the Scores stage on.")
                             : TR("The heads' attention patterns appear from the Scores stage on "
                                  "(press \xe2\x86\x92)."));
        return;
    }
    draw_heads_grid(c, m, x, y, w, h);
}

// A slide of every head (SCENE_PART_ALL_HEADS): the lesson's title, what the grid shows, the grid
// with one colour bar, and which axis is which under it.
void draw_heads_page(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    MatId m = model_stage_heatmap(p, view_stage(c->st));
    if (m == MAT_NONE) m = MAT_WEIGHTS;
    int tt = scene_page_title(c, x, y, w, true);
    y += tt;
    h -= tt;
    const MatInfo *mi = mat_info(m);
    char head[200], fitted[200];
    int f = c->num_font * 4 / 5, lh = line_h(c, FONT_BOLD, f) + c->num_font / 5;
    // TRANSLATORS: the heading of an exported image of every head: "All 2 heads · attention weights
    // A".
    snprintf(head, sizeof head, TR("All %d heads \xc2\xb7 %s %s"), p->heads, mi ? TR(mi->what) : "",
             mi ? mi->symbol : "");
    fit_text(c, FONT_BOLD, f, head, w, fitted, sizeof fitted);
    math_at(c, FONT_BOLD, f, c->th->ink, x, y, fitted);
    const char *axes = scene_heat_axes(c->L, false);
    int lf = c->num_font * 3 / 5, ah = line_h(c, FONT_REGULAR, lf) + c->num_font / 6;
    if (text_w(c, FONT_REGULAR, lf, axes) > w) axes = scene_heat_axes(c->L, true);
    text_in(c, FONT_REGULAR, lf, c->th->muted, (Box){x, y + h - ah, w, ah}, CENTER, axes);
    draw_heads_grid(c, m, x, y + lh, w, h - lh - ah);
}
