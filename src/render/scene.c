// Lays out one frame of the viewer as plain draw commands: the stage's matrices as an operation, each
// head's heatmap, the arithmetic of the focused cell, header, footer and overlays. No SDL here.
#include "scene.h"
#include "../model/i18n.h"
#include "../core/utf8.h"

#include "../model/questions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Explanation lines and labels are cut to their buffers on purpose (tokens can be long).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

// ---------------------------------------------------------------------------------------------------
// The command list

void scene_init(Scene *s) { memset(s, 0, sizeof *s); }

void scene_free(Scene *s)
{
    free(s->cmds);
    free(s->text);
    free(s->hits);
    memset(s, 0, sizeof *s);
}

void scene_clear(Scene *s)
{
    s->count = 0;
    s->text_len = 0;
    s->hit_count = 0;
    s->oom = false;
}

static bool grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *p = realloc(*buf, n * elem);
    if (!p) return false;
    *buf = p;
    *cap = n;
    return true;
}

DrawCmd *scene_push(Scene *s, DrawKind kind, int x, int y, int w, int h, Rgba color)
{
    if (s->oom || !grow((void **)&s->cmds, &s->cap, s->count + 1, sizeof(DrawCmd))) {
        s->oom = true;
        return NULL;
    }
    DrawCmd *c = &s->cmds[s->count++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->x = x;
    c->y = y;
    c->w = w;
    c->h = h;
    c->color = color;
    c->thickness = 1;
    return c;
}

void scene_append(Scene *dst, const Scene *src, int dx, int dy)
{
    for (size_t i = 0; i < src->count; i++) {
        const DrawCmd *c = &src->cmds[i];
        bool whole = c->kind == CMD_CLIP && (c->w == 0 || c->h == 0); // "everywhere again": no place to move
        int x = whole ? c->x : c->x + dx, y = whole ? c->y : c->y + dy;
        DrawCmd *d = c->kind == CMD_TEXT ? scene_push_text(dst, c->font, c->size, c->color, x, y, c->w, c->h, scene_text(src, c))
                                         : scene_push(dst, c->kind, x, y, c->w, c->h, c->color);
        if (!d) return;
        d->thickness = c->thickness;
        d->font = c->font;
        d->size = c->size;
        d->role = c->role;
        d->cell = c->cell;
    }
}

void scene_push_rect(Scene *s, int x, int y, int w, int h, Rgba color)
{
    if (w > 0 && h > 0) scene_push(s, CMD_RECT, x, y, w, h, color);
}

DrawCmd *scene_push_text(Scene *s, FontRole font, int size, Rgba color, int x, int y, int w, int h, const char *utf8)
{
    size_t len = strlen(utf8);
    if (s->oom || !grow((void **)&s->text, &s->text_cap, s->text_len + len + 1, 1)) {
        s->oom = true;
        return NULL;
    }
    DrawCmd *c = scene_push(s, CMD_TEXT, x, y, w, h, color);
    if (!c) return NULL;
    c->font = font;
    c->size = size;
    c->text = s->text_len;
    memcpy(s->text + s->text_len, utf8, len + 1);
    s->text_len += len + 1;
    return c;
}

void scene_push_hit(Scene *s, int x, int y, int w, int h, CellRef cell, int head)
{
    if (s->oom || !grow((void **)&s->hits, &s->hit_cap, s->hit_count + 1, sizeof(HitRegion))) {
        s->oom = true;
        return;
    }
    HitRegion *r = &s->hits[s->hit_count++];
    r->x = x;
    r->y = y;
    r->w = w;
    r->h = h;
    r->cell = cell;
    r->head = head;
}

bool scene_hit(const Scene *s, int x, int y, CellRef *cell, int *head)
{
    for (size_t i = s->hit_count; i-- > 0;) {
        const HitRegion *r = &s->hits[i];
        if (x >= r->x && y >= r->y && x < r->x + r->w && y < r->y + r->h) {
            *cell = r->cell;
            *head = r->head;
            return true;
        }
    }
    return false;
}

// ---------------------------------------------------------------------------------------------------
// Layout context and theme

typedef struct {
    Scene *s;
    const ViewState *st;
    const Lesson *L;
    const Trace *T;
    const TextMetrics *tm;
    const SceneExtras *ex;  // never NULL (an empty one when the caller gave none)
    const Theme *th;
    double u;           // chrome (header, footer, overlays): 1.0 on a 1280x720 window
    int num_font;       // the board's numbers (and the heatmap's): legible from the back row, times the zoom
    int text_font;      // sentences: the footer, the explanation of a cell
    int min_font;       // nothing smaller is drawn
    double ranges[RANGE_COUNT]; // colour ranges of the range groups, computed on first use
    // What the widest number of a matrix is made of, computed on first use (one scan per matrix and frame,
    // not one per layout tried: a 768 x 768 W^O is 590,000 cells).
    struct NumStats {
        MatId m;
        int head;
        double big;
        bool neg, ints, inf;
    } nums[48];
    int num_count;
    int heat_cell_w, heat_cell_h; // a heatmap beside the board: cells no larger than the result's (0: any)
    int heat_grid_x, heat_grid_w; // where the last heatmap's cells went (for its colour bar)
    bool windowed;      // the board drew a window of some matrix
    char caption[48], next[48]; // the sub-step on the board and the next one (for the hint line)
    bool heat_shown;    // the heatmap went beside the board
    CellRef focus;      // the cell whose arithmetic is shown
    // input rows/columns that the focused cell was computed from (row or col -1: the whole band)
    CellRef lit[8];
    int lit_count;
} Ctx;

// Okabe-Ito blue for results; magenta for the focus (no colour map has it); reddish purple for edits.
const Theme THEME_LIGHT = {
    .bg = {234, 236, 240, 255}, .panel = {222, 226, 233, 255}, .ink = {24, 27, 34, 255}, .muted = {74, 80, 92, 255},
    .grid = {255, 255, 255, 255}, .empty = {226, 228, 232, 255}, .result = {0, 114, 178, 255},
    .focus = {232, 0, 190, 255}, .hatch = {150, 150, 156, 255}, .masked_bg = {208, 208, 212, 255},
    .banner_bg = {176, 32, 32, 255}, .white = {255, 255, 255, 255}, .edited = {120, 40, 200, 255},
    .status_bg = {0, 90, 140, 255}, .page_cell = {255, 255, 255, 255},
};
const Theme THEME_DARK = {
    .bg = {22, 24, 30, 255}, .panel = {40, 44, 54, 255}, .ink = {236, 238, 242, 255}, .muted = {170, 176, 188, 255},
    .grid = {90, 94, 104, 255}, .empty = {54, 58, 68, 255}, .result = {86, 180, 233, 255},
    .focus = {255, 60, 220, 255}, .hatch = {120, 124, 132, 255}, .masked_bg = {70, 72, 80, 255},
    .banner_bg = {176, 32, 32, 255}, .white = {255, 255, 255, 255}, .edited = {190, 120, 255, 255},
    .status_bg = {0, 90, 140, 255}, .page_cell = {60, 64, 74, 255},
};
const Theme THEME_PRINT = {
    .bg = {255, 255, 255, 255}, .panel = {240, 240, 240, 255}, .ink = {0, 0, 0, 255}, .muted = {70, 70, 70, 255},
    .grid = {120, 120, 120, 255}, .empty = {230, 230, 230, 255}, .result = {0, 0, 0, 255},
    .focus = {0, 0, 0, 255}, .hatch = {110, 110, 110, 255}, .masked_bg = {200, 200, 200, 255},
    .banner_bg = {0, 0, 0, 255}, .white = {255, 255, 255, 255}, .edited = {0, 0, 0, 255},
    .status_bg = {60, 60, 60, 255}, .page_cell = {255, 255, 255, 255},
};

int scene_number_font(int h)
{
    int f = (int)lround(h * 0.039);
    return f < 10 ? 10 : f;
}

static int px(const Ctx *c, double v)
{
    int r = (int)lround(v * c->u);
    return r < 1 ? 1 : r;
}

static int text_w(const Ctx *c, FontRole f, int size, const char *t) { return c->tm->text_width(c->tm->user, f, size, t); }
static int line_h(const Ctx *c, FontRole f, int size) { return c->tm->line_height(c->tm->user, f, size); }

// Text whose top-left is (x, y). Returns its width.
static int text_at(Ctx *c, FontRole f, int size, Rgba color, int x, int y, const char *t)
{
    if (!t[0]) return 0;
    int w = text_w(c, f, size, t);
    return scene_push_text(c->s, f, size, color, x, y, w, line_h(c, f, size), t) ? w : 0;
}

typedef enum { LEFT, CENTER, RIGHT } Align;

// Text aligned horizontally in [x, x + w) and centred vertically in [y, y + h).
static int text_in(Ctx *c, FontRole f, int size, Rgba color, int x, int y, int w, int h, Align a, const char *t)
{
    int tw = text_w(c, f, size, t), th = line_h(c, f, size);
    int tx = a == LEFT ? x : a == CENTER ? x + (w - tw) / 2 : x + w - tw;
    return text_at(c, f, size, color, tx, y + (h - th) / 2, t);
}

// Copies t into buf, cut (with "…") so it measures at most max_w.
static void fit_text(const Ctx *c, FontRole f, int size, const char *t, int max_w, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", t);
    if (text_w(c, f, size, buf) <= max_w) return;
    size_t n = strlen(buf);
    while (n > 0) {
        n--;
        while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80) n--; // stay on a UTF-8 boundary
        if (n + 4 > cap) continue;
        memcpy(buf + n, "\xe2\x80\xa6", 4);
        if (text_w(c, f, size, buf) <= max_w) return;
    }
    buf[0] = '\0';
}

// A token label cut to max_w keeps its subscript index ("was…₁₁"): two cut "was" must stay apart.
static void fit_label(const Ctx *c, FontRole f, int size, const char *t, int max_w, char *buf, size_t cap)
{
    size_t len = strlen(t), sub = len;
    while (sub >= 3 && (unsigned char)t[sub - 3] == 0xE2 && (unsigned char)t[sub - 2] == 0x82 &&
           (unsigned char)t[sub - 1] >= 0x80 && (unsigned char)t[sub - 1] <= 0x89)
        sub -= 3;
    if (sub == len || sub == 0 || text_w(c, f, size, t) <= max_w) {
        fit_text(c, f, size, t, max_w, buf, cap);
        return;
    }
    char stem[256];
    int sw = text_w(c, f, size, t + sub);
    snprintf(stem, sizeof stem, "%.*s", (int)sub, t);
    fit_text(c, f, size, stem, max_w - sw, buf, cap);
    if (!buf[0]) snprintf(buf, cap, "\xe2\x80\xa6");
    snprintf(buf + strlen(buf), cap - strlen(buf), "%s", t + sub);
}

static void rect(Ctx *c, int x, int y, int w, int h, Rgba color) { scene_push_rect(c->s, x, y, w, h, color); }

// A cell's fill, tagged with the cell it shows (the SVG writer and the tests read the tag).
static void cell_rect(Ctx *c, int x, int y, int w, int h, Rgba color, CellRef ref)
{
    if (w <= 0 || h <= 0) return;
    DrawCmd *d = scene_push(c->s, CMD_RECT, x, y, w, h, color);
    if (d) {
        d->role = ROLE_CELL;
        d->cell = ref;
    }
}

// Marks the last command pushed (a number's text) with its role and cell.
static void tag_last(Ctx *c, DrawRole role, CellRef ref)
{
    if (c->s->count == 0 || c->s->oom) return;
    c->s->cmds[c->s->count - 1].role = role;
    c->s->cmds[c->s->count - 1].cell = ref;
}

static void frame(Ctx *c, int x, int y, int w, int h, int t, Rgba color)
{
    if (w <= 0 || h <= 0) return;
    DrawCmd *cmd = scene_push(c->s, CMD_FRAME, x, y, w, h, color);
    if (cmd) cmd->thickness = t;
}

// Word-wraps t into lines no wider than w starting at (x, y); returns the height used (at most max_lines).
static int math_w(const Ctx *c, FontRole f, int size, const char *t);
static int math_at(Ctx *c, FontRole f, int size, Rgba color, int x, int y, const char *t);

// Chinese, Japanese and Korean text has no spaces: a line may break after any of its characters (the cluster
// p[at..end)), except before closing punctuation (，。、：；）」』！？) and after opening punctuation (（「『).
static bool line_break_after(const char *p, size_t at, size_t end)
{
    size_t i = at, n = strlen(p + at) + at;
    uint32_t cp = utf8_decode(p, n, &i);
    bool wide = (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0x20000 && cp <= 0x3134F);
    if (!wide || !p[end] || cp == 0xFF08 || cp == 0x300C || cp == 0x300E) return false;
    size_t j = end;
    uint32_t nx = utf8_decode(p, n, &j);
    static const uint32_t NO_START[] = {0xFF0C, 0x3002, 0x3001, 0xFF1A, 0xFF1B, 0xFF09, 0x300D, 0x300F, 0xFF01, 0xFF1F, 0x2014};
    for (size_t k = 0; k < sizeof NO_START / sizeof NO_START[0]; k++)
        if (nx == NO_START[k]) return false;
    return true;
}

// Word-wraps t (in the board's notation: '^' raises) into lines no wider than w from (x, y); returns the
// height used (at most max_lines).
static int wrap_text(Ctx *c, FontRole f, int size, Rgba color, int x, int y, int w, int max_lines, const char *t,
                     bool draw)
{
    int lh = line_h(c, f, size), used = 0, lines = 0;
    char line[512];
    const char *p = t;
    while (*p && lines < max_lines) {
        size_t len = 0, best = 0;
        for (;;) {
            size_t next = len;
            while (p[next] == ' ') next++;
            while (p[next] && p[next] != ' ' && p[next] != '\n') {
                size_t at = next;
                next = utf8_cluster_end(p, strlen(p + at) + at, at);
                if (line_break_after(p, at, next)) break; // Chinese and Japanese break between characters
            }
            if (next >= sizeof line) break;
            memcpy(line, p, next);
            line[next] = '\0';
            if (math_w(c, f, size, line) > w && best > 0) break;
            best = next;
            len = next;
            if (!p[next] || p[next] == '\n') break;
        }
        if (best == 0) best = strlen(p) < sizeof line - 1 ? strlen(p) : sizeof line - 1;
        memcpy(line, p, best);
        line[best] = '\0';
        if (lines == max_lines - 1 && p[best]) {
            char cut[512];
            fit_text(c, f, size, p, w, cut, sizeof cut);
            snprintf(line, sizeof line, "%s", cut);
        }
        if (draw) math_at(c, f, size, color, x, y + used, line);
        used += lh;
        lines++;
        p += best;
        while (*p == ' ' || *p == '\n') p++;
    }
    return used;
}

// ---------------------------------------------------------------------------------------------------
// Numbers, names and text in the board's notation

void scene_format_value(double v, char *buf, size_t cap) { model_format_value(v, buf, cap); }
double scene_cell_value(const Lesson *L, const Trace *T, CellRef c) { return model_cell_value(&L->params, T, c); }
void scene_mat_shape(const Lesson *L, MatId m, int *rows, int *cols) { model_mat_shape(&L->params, m, rows, cols); }
int scene_explain(const Lesson *L, const Trace *T, CellRef c, char lines[][256], int max_lines)
{
    return model_explain(L, T, c, lines, max_lines, true);
}

static const char *const TIMES = "\xc3\x97"; // ×

// Text in the board's notation: '^' raises what follows it (one character, or a group in parentheses, drawn
// without them: 10000^(2i/d)), smaller and higher: W₀^Q. Returns the width; draws when `draw`.
static int math_run(Ctx *c, FontRole f, int size, Rgba color, int x, int y, const char *t, bool draw)
{
    char seg[512];
    int w = 0;
    const char *p = t;
    int small = size * 2 / 3 > 6 ? size * 2 / 3 : 6;
    while (*p) {
        const char *caret = strchr(p, '^');
        size_t n = caret ? (size_t)(caret - p) : strlen(p);
        if (n >= sizeof seg) n = sizeof seg - 1;
        if (n > 0) {
            memcpy(seg, p, n);
            seg[n] = '\0';
            int sw = text_w(c, f, size, seg);
            if (draw) scene_push_text(c->s, f, size, color, x + w, y, sw, line_h(c, f, size), seg);
            w += sw;
        }
        if (!caret) break;
        p = caret + 1;
        size_t k = 0;
        const char *close = p[0] == '(' ? strchr(p, ')') : NULL;
        if (close && close - p > 1 && close - p < (ptrdiff_t)sizeof seg) { // ^(2i/d): the group, raised without its parentheses
            k = (size_t)(close - p - 1);
            memcpy(seg, p + 1, k);
            seg[k] = '\0';
            int sw = text_w(c, f, small, seg);
            if (draw) scene_push_text(c->s, f, small, color, x + w + 1, y - size / 8, sw, line_h(c, f, small), seg);
            w += sw + 2;
            p = close + 1;
            continue;
        }
        if ((unsigned char)p[0] >= 0x80) { // one UTF-8 character
            k = 1;
            while (((unsigned char)p[k] & 0xC0) == 0x80) k++;
        } else if (p[0]) {
            k = 1;
        }
        if (k == 0) break;
        memcpy(seg, p, k);
        seg[k] = '\0';
        int sw = text_w(c, f, small, seg);
        if (draw) scene_push_text(c->s, f, small, color, x + w + 1, y - size / 8, sw, line_h(c, f, small), seg);
        w += sw + 2;
        p += k;
    }
    return w;
}
static int math_w(const Ctx *c, FontRole f, int size, const char *t)
{
    return math_run((Ctx *)c, f, size, (Rgba){0, 0, 0, 0}, 0, 0, t, false);
}
static int math_at(Ctx *c, FontRole f, int size, Rgba color, int x, int y, const char *t)
{
    return math_run(c, f, size, color, x, y, t, true);
}

// The input bands that light up for a focused cell: the cell, and what it was computed from (the matrix
// table's `from`).
static void light_inputs(Ctx *c)
{
    CellRef f = c->focus;
    c->lit_count = 0;
    if (f.mat == MAT_NONE) return;
    c->lit[c->lit_count++] = f;
    c->lit_count += model_mat_inputs(&c->L->params, f, c->lit + 1, (int)(sizeof c->lit / sizeof c->lit[0]) - 1);
}

// ---------------------------------------------------------------------------------------------------
// Matrix grids. Every number on the board is drawn at one legible size (Ctx.num_font, 3.9 % of the
// window height times the zoom); a matrix too big for the room shows a window of its rows and columns,
// with where it is ("columns 0–7 of 768"), that follows the focused cell. Numbers never shrink away.

typedef struct {
    MatId mat;
    int head;
    bool result;        // this step's result: framed and tagged
    int rows, cols;     // the whole matrix
    int r0, nr, c0, nc; // the window shown
    int cell_w, cell_h;
    int label_w;        // the row-label column
    double range;       // the colour scale: |value| that reaches the ends (shared by its range group)
    bool probabilities; // 0..1 on the sequential map
    const char *title;  // instead of the matrix's name (NULL: its name)
    int side_w;         // a column right of the cells: each softmax row's entropy in bits (0: none)
} MatBox;

typedef struct {
    int num_font, label_font, title_font, op_font;
    int title_h, col_label_h, foot_h;
    int gap;            // between a matrix and its neighbour
    bool narrow;        // cells as wide as their numbers: long token labels are abbreviated instead
} GridStyle;

static bool per_head_mat(MatId m)
{
    const MatInfo *mi = mat_info(m);
    return mi && mi->per_head;
}

static double cell_value(const Ctx *c, CellRef r) { return model_cell_value(&c->L->params, c->T, r); }

static double group_range(const Ctx *c, MatId m)
{
    const MatInfo *mi = mat_info(m);
    if (!mi) return 1.0;
    if (c->ranges[mi->range] <= 0.0) ((Ctx *)c)->ranges[mi->range] = model_range(&c->L->params, c->T, mi->range);
    return c->ranges[mi->range];
}

static Rgba cell_color(const Ctx *c, MatId m, double v, double range)
{
    if (isinf(v)) return c->th->masked_bg;
    if (m == MAT_WEIGHTS) return colormap_rgb(c->st->colormap, v);
    if (m == MAT_MASK) return c->th->page_cell;
    return colormap_diverging(c->st->colormap, v / range);
}

static void grid_style(const Ctx *c, GridStyle *g)
{
    int f = c->num_font;
    g->num_font = f;
    g->label_font = (int)lround(f * 0.8);
    g->title_font = (int)lround(f * 0.8);
    g->op_font = (int)lround(f * 1.1);
    g->title_h = line_h(c, FONT_BOLD, g->title_font) + f / 5;
    g->col_label_h = line_h(c, FONT_REGULAR, g->label_font) + f / 8 + 3 * (f / 7 < 3 ? 3 : f / 7); // + result_pad
    g->foot_h = line_h(c, FONT_REGULAR, g->label_font) + f / 3;
    g->gap = (int)lround(f * 0.45);
    g->narrow = false;
}

// The widest number of a matrix at the number font: from its largest magnitude, sign and integer-ness.
static int widest_number(const Ctx *c, const GridStyle *g, MatId m, int head, int rows, int cols)
{
    double big = 0.0;
    bool neg = false, ints = true, inf = false, found = false;
    Ctx *cc = (Ctx *)c; // the cache only
    for (int i = 0; i < c->num_count && !found; i++)
        if (c->nums[i].m == m && c->nums[i].head == head) {
            big = c->nums[i].big;
            neg = c->nums[i].neg;
            ints = c->nums[i].ints;
            inf = c->nums[i].inf;
            found = true;
        }
    size_t count = found ? 0 : (size_t)rows * (size_t)cols, step = count > 200000 ? count / 200000 : 1;
    for (size_t k = 0; k < count; k += step) {
        double v = cell_value(c, (CellRef){m, head, (int)(k / (size_t)cols), (int)(k % (size_t)cols)});
        if (isinf(v)) { inf = true; continue; }
        if (!isfinite(v)) continue;
        if (fabs(v) > big) big = fabs(v);
        if (v < 0) neg = true;
        if (v != floor(v)) ints = false;
    }
    if (!found && cc->num_count < (int)(sizeof cc->nums / sizeof cc->nums[0]))
        cc->nums[cc->num_count++] = (struct NumStats){m, head, big, neg, ints, inf};
    char buf[64];
    // A number as wide as the widest: big + 0.5 (one more digit when rounding carries), never an exact integer
    // when the values are not (1.5 + 0.5 would print "2", as narrow as an integer, and cut "1.5000").
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

// The result's frame: its thickness, and the room it takes outside the cells.
static int result_rule(const GridStyle *g) { return g->num_font / 7 < 3 ? 3 : g->num_font / 7; }
static int result_pad(const GridStyle *g) { return 3 * result_rule(g); }

static void box_init(const Ctx *c, const GridStyle *g, MatBox *b, MatId m, int head, bool result)
{
    memset(b, 0, sizeof *b);
    b->mat = m;
    b->head = head;
    b->result = result;
    model_mat_shape(&c->L->params, m, &b->rows, &b->cols);
    b->nr = b->rows;
    b->nc = b->cols;
    b->range = group_range(c, m);
    b->probabilities = m == MAT_WEIGHTS;
    b->cell_h = line_h(c, FONT_REGULAR, g->num_font) + g->num_font / 3;
    int w = widest_number(c, g, m, head, b->rows, b->cols) + (int)lround(g->num_font * 0.5);
    // Every column label must fit too: token labels are cut only beyond 4 number widths.
    const MatInfo *mi = mat_info(m);
    if (mi->col_axis != AXIS_DIM && !g->narrow) {
        char buf[160];
        for (int j = 0; j < b->cols && j < 64; j++) {
            model_axis_label(c->L, mi->col_axis, j, buf, sizeof buf);
            int lw = text_w(c, FONT_REGULAR, g->label_font, buf) + g->num_font / 4;
            if (lw > w) w = lw;
        }
        int cap = 4 * b->cell_h;
        if (w > cap) w = cap > b->cell_h ? cap : b->cell_h;
    }
    b->cell_w = w > b->cell_h ? w : b->cell_h;
    // Row labels.
    int lw = 0;
    char buf[160];
    for (int i = 0; i < b->rows && i < 600; i++) {
        model_axis_label(c->L, mi->row_axis, i, buf, sizeof buf);
        int tw = text_w(c, FONT_REGULAR, g->label_font, buf);
        if (tw > lw) lw = tw;
    }
    int cap = 5 * g->num_font;
    // Clear of the frame a result has, and of the focus frame any matrix's lit row can get: a label never
    // touches a border (Arabic and Hebrew labels end at their first letter, whose ink reaches its edge).
    b->label_w = (lw > cap ? cap : lw) + g->num_font / 3 + result_pad(g);
    // The softmax's result: each row's entropy beside it, so the class sees rows go one-hot as the scale grows.
    if (m == MAT_WEIGHTS && result && view_stage(c->st) == STAGE_SOFTMAX && c->T && head < c->T->heads &&
        c->T->head[head].entropy.data) {
        int ew = text_w(c, FONT_REGULAR, g->num_font, "0.0000"), hw = text_w(c, FONT_REGULAR, g->label_font, TR("bits"));
        b->side_w = result_pad(g) + g->num_font / 2 + (ew > hw ? ew : hw);
    }
}

static bool box_windowed(const MatBox *b) { return b->nr < b->rows || b->nc < b->cols; }
static int box_width(const GridStyle *g, const MatBox *b)
{
    (void)g;
    return b->label_w + b->nc * b->cell_w + b->side_w;
}
// A window's caption: one line per windowed axis ("rows 0–8 of 512", "cols 0–1 of 64").
static int caption_lines(const MatBox *b) { return (b->nr < b->rows) + (b->nc < b->cols); }
static int box_height(const GridStyle *g, const MatBox *b)
{
    int lines = caption_lines(b);
    return g->title_h + g->col_label_h + b->nr * b->cell_h + (lines ? g->foot_h + (lines - 1) * (g->foot_h * 2 / 3) : 0);
}

// Where the window of a matrix starts: around the focused cell, or the row/column the focus reads.
static void box_follow(const Ctx *c, MatBox *b)
{
    int want_r = -1, want_c = -1;
    for (int k = 0; k < c->lit_count; k++) {
        const CellRef *l = &c->lit[k];
        if (l->mat != b->mat || (per_head_mat(b->mat) && l->head != b->head)) continue;
        if (l->row >= 0) want_r = l->row;
        if (l->col >= 0) want_c = l->col;
    }
    if (b->mat == MAT_CONCAT && c->focus.mat == MAT_Z && want_c < 0) want_c = c->focus.head * c->L->params.d_k;
    b->r0 = want_r < 0 ? 0 : want_r - b->nr / 2;
    b->c0 = want_c < 0 ? 0 : want_c - b->nc / 2;
    if (b->r0 + b->nr > b->rows) b->r0 = b->rows - b->nr;
    if (b->c0 + b->nc > b->cols) b->c0 = b->cols - b->nc;
    if (b->r0 < 0) b->r0 = 0;
    if (b->c0 < 0) b->c0 = 0;
}

// Draws one matrix with its title, labels and cells; (x, y) is the top-left of the box.
static void draw_matrix(Ctx *c, const GridStyle *g, const MatBox *b, int x, int y)
{
    char title[160], name[96], buf[160], fitted[160];
    model_mat_name(b->mat, b->head, name, sizeof name);
    if (b->title) snprintf(name, sizeof name, "%s", b->title);
    // A head switched off (key O): its own matrices say so; its columns of Concat are hatched below.
    if (per_head_mat(b->mat) && params_ablated(&c->L->params, b->head))
        snprintf(name + strlen(name), sizeof name - strlen(name), "%s", TRC("a matrix", " off"));
    snprintf(title, sizeof title, "%s  (%d%s%d)", name, b->rows, TIMES, b->cols);
    int gx = x + b->label_w, gy = y + g->title_h + g->col_label_h;
    int gw = b->nc * b->cell_w, gh = b->nr * b->cell_h;
    FontRole tf = b->result ? FONT_BOLD : FONT_REGULAR;
    Rgba tcol = b->result ? c->th->result : c->th->ink;
    const char *pick = math_w(c, tf, g->title_font, title) <= gw + b->label_w ? title : name;
    int tw = math_w(c, tf, g->title_font, pick);
    int tx = tw <= gw ? gx + (gw - tw) / 2 : gx + gw - tw;
    if (tx < x) tx = x;
    math_at(c, tf, g->title_font, tcol, tx, y + (g->title_h - line_h(c, tf, g->title_font)) / 2, pick);
    const MatInfo *mi = mat_info(b->mat);
    int lh = line_h(c, FONT_REGULAR, g->label_font);
    // Every column label, cut to its cell when it must be.
    for (int j = 0; j < b->nc; j++) {
        model_axis_label(c->L, mi->col_axis, b->c0 + j, buf, sizeof buf);
        fit_label(c, FONT_REGULAR, g->label_font, buf, b->cell_w - 2, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, g->label_font, c->th->muted, gx + j * b->cell_w, gy - g->col_label_h, b->cell_w,
                g->col_label_h - result_pad(g), CENTER, fitted); // clear of a result's frame
    }
    for (int i = 0; i < b->nr; i++) {
        model_axis_label(c->L, mi->row_axis, b->r0 + i, buf, sizeof buf);
        int pad = g->num_font / 4 + result_pad(g);
        fit_label(c, FONT_REGULAR, g->label_font, buf, b->label_w - pad - g->num_font / 12, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, g->label_font, c->th->muted, x, gy + i * b->cell_h, b->label_w - pad, b->cell_h, RIGHT,
                fitted);
    }
    (void)lh;
    // Cells on a grid of white lines inside a thin frame; the page is darker than a zero cell.
    rect(c, gx - 1, gy - 1, gw + 1, gh + 1, c->th->grid);
    if (!b->result) frame(c, gx - 2, gy - 2, gw + 3, gh + 3, 1, c->th->muted);
    bool editable = c->ex->original && view_mat_editable(b->mat);
    for (int i = 0; i < b->nr; i++) {
        for (int j = 0; j < b->nc; j++) {
            CellRef ref = {b->mat, b->head, b->r0 + i, b->c0 + j};
            int x0 = gx + j * b->cell_w, y0 = gy + i * b->cell_h, cw = b->cell_w - 1, ch = b->cell_h - 1;
            if (b->result && !view_cell_revealed(c->st, ref)) {
                rect(c, x0, y0, cw, ch, c->th->empty);
                // A question waiting for a click: the hidden cell answers it (and explains nothing).
                scene_push_hit(c->s, x0, y0, b->cell_w, b->cell_h, c->st->quiz_phase == QUIZ_ASKING ? ref
                               : (CellRef){MAT_NONE, 0, 0, 0}, -1);
                continue;
            }
            double v = cell_value(c, ref);
            Rgba bgc = cell_color(c, b->mat, v, b->range);
            cell_rect(c, x0, y0, cw, ch, bgc, ref);
            if (isinf(v) || (b->mat == MAT_CONCAT && c->L->params.d_k > 0 &&
                             params_ablated(&c->L->params, (b->c0 + j) / c->L->params.d_k)))
                scene_push(c->s, CMD_HATCH, x0, y0, cw, ch, c->th->hatch);
            else if (c->st->colormap == COLORMAP_GREY && v < 0 && !b->probabilities)
                frame(c, x0 + 2, y0 + 2, cw - 4, ch - 4, 1, c->th->ink); // the sign, without colour
            model_format_value(v, buf, sizeof buf);
            if (text_in(c, FONT_REGULAR, g->num_font, isinf(v) ? c->th->ink : colormap_text_on(bgc), x0, y0, cw, ch,
                        CENTER, buf) > 0)
                tag_last(c, ROLE_NUMBER, ref);
            if (editable && view_param_edited(c->ex->original, &c->L->params, ref)) {
                int t = px(c, 3) < 3 ? 3 : px(c, 3);
                frame(c, x0, y0, cw, ch, t, c->th->edited);
                int k = ch / 3;
                rect(c, x0 + cw - k, y0, k, k, c->th->edited);
            }
            scene_push_hit(c->s, x0, y0, b->cell_w, b->cell_h, ref, -1);
        }
    }
    // Lit input bands and the focused cell (after the cells so they sit on top).
    int t = c->num_font / 8 < 3 ? 3 : c->num_font / 8;
    for (int k = 0; k < c->lit_count; k++) {
        const CellRef *l = &c->lit[k];
        if (l->mat != b->mat || (per_head_mat(b->mat) && l->head != b->head)) continue;
        int r0 = l->row < 0 ? b->r0 : l->row, r1 = l->row < 0 ? b->r0 + b->nr : l->row + 1;
        int c0 = l->col < 0 ? b->c0 : l->col, c1 = l->col < 0 ? b->c0 + b->nc : l->col + 1;
        if (r0 < b->r0 || c0 < b->c0 || r1 > b->r0 + b->nr || c1 > b->c0 + b->nc) continue;
        int x0 = gx + (c0 - b->c0) * b->cell_w, x1 = gx + (c1 - b->c0) * b->cell_w;
        int y0 = gy + (r0 - b->r0) * b->cell_h, y1 = gy + (r1 - b->r0) * b->cell_h;
        frame(c, x0 - t, y0 - t, x1 - x0 + 2 * t, y1 - y0 + 2 * t, t, c->th->focus);
    }
    int rt = result_rule(g);
    if (b->result) frame(c, gx - 2 * rt, gy - 2 * rt, gw + 4 * rt, gh + 4 * rt, rt, c->th->result);
    if (b->side_w > 0) { // entropy in bits of each row shown: -sum A log2 A, from the trace
        int ex = gx + gw + result_pad(g) + g->num_font / 2, ew = b->side_w - result_pad(g) - g->num_font / 2;
        text_in(c, FONT_REGULAR, g->label_font, c->th->muted, ex, gy - g->col_label_h, ew, g->col_label_h - result_pad(g),
                CENTER, TR("bits"));
        const Matrix *ent = &c->T->head[b->head].entropy;
        for (int i = 0; i < b->nr; i++) {
            CellRef ref = {b->mat, b->head, b->r0 + i, 0};
            if (b->r0 + i >= ent->rows || !view_cell_revealed(c->st, ref)) continue; // a row still being revealed
            bool whole = true;
            for (int j = 0; j < b->cols && whole; j++) whole = view_cell_revealed(c->st, (CellRef){b->mat, b->head, b->r0 + i, j});
            if (!whole) continue;
            model_format_value(mat_get(ent, b->r0 + i, 0), buf, sizeof buf);
            text_in(c, FONT_REGULAR, g->num_font, c->th->ink, ex, gy + i * b->cell_h, ew, b->cell_h, RIGHT, buf);
        }
    }
    if (box_windowed(b)) {
        char where[2][96];
        int lines = 0;
        if (b->nr < b->rows)
            snprintf(where[lines++], sizeof where[0], TR("rows %d\xe2\x80\x93%d of %d"), b->r0, b->r0 + b->nr - 1, b->rows);
        if (b->nc < b->cols)
            snprintf(where[lines++], sizeof where[0], TR("cols %d\xe2\x80\x93%d of %d"), b->c0, b->c0 + b->nc - 1, b->cols);
        int lh2 = line_h(c, FONT_REGULAR, g->label_font), cy = gy + gh + rt * 3;
        for (int k = 0; k < lines; k++) {
            // The whole caption: smaller rather than cut (it says where the window is).
            int size = g->label_font;
            while (size > 8 && text_w(c, FONT_REGULAR, size, where[k]) > gw + b->label_w) size--;
            text_in(c, FONT_REGULAR, size, c->th->result, x, cy, gw + b->label_w, lh2, RIGHT, where[k]);
            cy += g->foot_h * 2 / 3;
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// The board: the stage's equations (stage table) laid out at the legible size. Arrangements are tried in
// order: every equation in one row each; each "A op B" stacked above "= R"; one equation at a time
// (sub-steps, the keys step through them); and only then windows of the matrices that do not fit.

typedef struct {
    bool is_op;
    MatBox box;
    char op[24];
} BoardTerm;

typedef struct {
    BoardTerm t[TERM_MAX];
    int count;
} BoardRow;

#define BOARD_ROWS (EQ_MAX * 2)

typedef struct {
    BoardRow rows[BOARD_ROWS];
    int count;
    bool narrow;    // cells as wide as their numbers: long column labels cut
    char caption[48], next[48]; // one sub-step shown: what it computes, and what the next one does
} Arrangement;

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

static int op_width(const Ctx *c, const GridStyle *g, const char *op)
{
    return math_w(c, FONT_BOLD, g->op_font, op) + 2 * g->gap;
}

static int row_width(const Ctx *c, const GridStyle *g, const BoardRow *r)
{
    int w = 0;
    for (int k = 0; k < r->count; k++)
        w += r->t[k].is_op ? op_width(c, g, r->t[k].op) : box_width(g, &r->t[k].box) + g->gap;
    return w;
}

static int row_height(const GridStyle *g, const BoardRow *r)
{
    int h = 0;
    for (int k = 0; k < r->count; k++)
        if (!r->t[k].is_op && box_height(g, &r->t[k].box) > h) h = box_height(g, &r->t[k].box);
    return h;
}

static int arrangement_height(const GridStyle *g, const Arrangement *a)
{
    int h = 0;
    for (int r = 0; r < a->count; r++) h += row_height(g, &a->rows[r]) + (r ? g->gap * 2 : 0);
    return h;
}

static bool arrangement_fits(const Ctx *c, const GridStyle *g, const Arrangement *a, int w, int h)
{
    for (int r = 0; r < a->count; r++)
        if (row_width(c, g, &a->rows[r]) > w) return false;
    return arrangement_height(g, a) <= h;
}

// Shrinks the windows of the widest and tallest matrices until the arrangement fits (down to 1 x 1).
static void window_to_fit(const Ctx *c, const GridStyle *g, Arrangement *a, int w, int h)
{
    for (int r = 0; r < a->count; r++) {
        BoardRow *row = &a->rows[r];
        for (int guard = 0; guard < 100000; guard++) {
            int excess = row_width(c, g, row) - w;
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
    for (int guard = 0; guard < 100000; guard++) {
        int excess = arrangement_height(g, a) - h;
        if (excess <= 0) break;
        MatBox *tallest = NULL;
        for (int r = 0; r < a->count; r++)
            for (int k = 0; k < a->rows[r].count; k++) {
                MatBox *b = &a->rows[r].t[k].box;
                if (a->rows[r].t[k].is_op || b->nr <= 1) continue;
                if (!tallest || b->nr * b->cell_h > tallest->nr * tallest->cell_h) tallest = b;
            }
        if (!tallest) break;
        bool was = box_windowed(tallest);
        tallest->nr -= 1;
        if (!was) tallest->nr -= g->foot_h / tallest->cell_h; // the caption line takes room too
        if (tallest->nr < 1) tallest->nr = 1;
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

// Cells wide enough for their labels first; when that needs windows, cells as wide as their numbers.
static void plan_board(Ctx *c, const GridStyle *g, int w, int h, Arrangement *out, int *substeps, int *sub)
{
    int sub0 = *sub;
    plan_board_style(c, g, w, h, out, substeps, sub);
    bool windowed = false;
    for (int r = 0; r < out->count; r++)
        for (int k = 0; k < out->rows[r].count; k++)
            if (!out->rows[r].t[k].is_op && box_windowed(&out->rows[r].t[k].box)) windowed = true;
    if (!windowed && *substeps == 1) return;
    GridStyle narrow = *g;
    narrow.narrow = true;
    Arrangement alt;
    int subs = 1, s2 = sub0;
    plan_board_style(c, &narrow, w, h, &alt, &subs, &s2);
    bool alt_windowed = false;
    for (int r = 0; r < alt.count; r++)
        for (int k = 0; k < alt.rows[r].count; k++)
            if (!alt.rows[r].t[k].is_op && box_windowed(&alt.rows[r].t[k].box)) alt_windowed = true;
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
    *sub = 0;
    // One equation that does not fit: the arrangement that keeps the most cells after windowing.
    Arrangement best, alt;
    build_arrangement(c, g, eq, neq, ARR_ROWS, 0, &best);
    window_to_fit(c, g, &best, w, h);
    build_arrangement(c, g, eq, neq, ARR_STACKED, 0, &alt);
    window_to_fit(c, g, &alt, w, h);
    long cells_best = 0, cells_alt = 0;
    for (int r = 0; r < best.count; r++)
        for (int k = 0; k < best.rows[r].count; k++)
            if (!best.rows[r].t[k].is_op) cells_best += (long)best.rows[r].t[k].box.nr * best.rows[r].t[k].box.nc;
    for (int r = 0; r < alt.count; r++)
        for (int k = 0; k < alt.rows[r].count; k++)
            if (!alt.rows[r].t[k].is_op) cells_alt += (long)alt.rows[r].t[k].box.nr * alt.rows[r].t[k].box.nc;
    *out = cells_alt > cells_best ? alt : best;
}

static void draw_arrangement(Ctx *c, const GridStyle *g, const Arrangement *a, int x, int y, int w, int h)
{
    snprintf(c->caption, sizeof c->caption, "%s", a->caption);
    snprintf(c->next, sizeof c->next, "%s", a->next);
    for (int r = 0; r < a->count; r++)
        for (int k = 0; k < a->rows[r].count; k++)
            if (!a->rows[r].t[k].is_op && box_windowed(&a->rows[r].t[k].box)) c->windowed = true;
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

static void draw_board(Ctx *c, int x, int y, int w, int h)
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
// Heatmaps: the attention pattern beside the board, every token labelled.

static double heat_range(const Ctx *c, MatId m) { return group_range(c, m); }

// "Head 0 · attention weights A₀"; the part before " · " is the first line when it must wrap.
static void heat_title(const Ctx *c, MatId m, int head, bool compact, char *buf, size_t cap)
{
    char name[64];
    model_mat_name(m, head, name, sizeof name);
    const MatInfo *mi = mat_info(m);
    const char *off = params_ablated(&c->L->params, head) ? TRC("a head", " off") : ""; // switched off (key O)
    if (compact) snprintf(buf, cap, TR("head %d%s"), head, off);
    else snprintf(buf, cap, TR("Head %d%s \xc2\xb7 %s %s"), head, off, mi ? TR(mi->what) : "", name);
}

// Vertical colour bar with its range; (x, y, w, h) is the whole bar including its labels.
static void draw_colorbar(Ctx *c, MatId m, double range, int x, int y, int w, int h)
{
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
        Rgba col = m == MAT_WEIGHTS ? colormap_rgb(c->st->colormap, t) : colormap_diverging(c->st->colormap, 2.0 * t - 1.0);
        int y0 = top + (int)((long)i * bh / steps), y1 = top + (int)((long)(i + 1) * bh / steps);
        rect(c, x, y0, bar_w, y1 - y0, col);
    }
    frame(c, x, top, bar_w, bh, 1, c->th->muted);
    char buf[32];
    double hi = m == MAT_WEIGHTS ? 1.0 : range, lo = m == MAT_WEIGHTS ? 0.0 : -range;
    int lx = x + bar_w + c->num_font / 4, lw = w - bar_w - c->num_font / 4;
    if (m == MAT_WEIGHTS) snprintf(buf, sizeof buf, "1");
    else model_format_value(hi, buf, sizeof buf);
    text_in(c, FONT_REGULAR, font, c->th->muted, lx, top, lw, lh, LEFT, buf);
    if (m == MAT_WEIGHTS) snprintf(buf, sizeof buf, "0");
    else model_format_value(lo, buf, sizeof buf);
    text_in(c, FONT_REGULAR, font, c->th->muted, lx, top + bh - lh, lw, lh, LEFT, buf);
}

// The bar and its widest label (the range's ends, as draw_colorbar writes them).
static int colorbar_width(const Ctx *c, MatId m)
{
    char buf[32];
    if (m == MAT_WEIGHTS) snprintf(buf, sizeof buf, "0");
    else model_format_value(-heat_range(c, m), buf, sizeof buf);
    return c->num_font * 2 / 3 + c->num_font / 4 + text_w(c, FONT_REGULAR, c->num_font, buf) + 2;
}

const char *scene_heat_axes(const Lesson *L, bool brief)
{
    if (!L->params.cross) return TR("\xe2\x86\x93 queries    \xe2\x86\x92 keys");
    return brief ? TR("\xe2\x86\x93 target   \xe2\x86\x92 source") : TR("\xe2\x86\x93 queries: the target    \xe2\x86\x92 keys: the source");
}

// One head's heatmap in (x, y, w, h): title, key labels on top, query labels left, cells as large as fit;
// numbers at the board's size when they fit the cells, else the colours alone (the board has the numbers).
// Every token is labelled: the labels turn or shrink to an abbreviation before any is left out.
static void draw_heatmap(Ctx *c, MatId m, int head, double range, int x, int y, int w, int h, bool compact,
                         bool selected, int *grid_y, int *grid_h, const char *title_text)
{
    *grid_y = y;
    *grid_h = h;
    const AttnParams *p = &c->L->params;
    int title_font = compact ? c->num_font * 2 / 3 : c->num_font * 4 / 5;
    int label_font = compact ? c->num_font * 3 / 5 : c->num_font * 4 / 5;
    char title[160], buf[160], fitted[160];
    if (title_text) snprintf(title, sizeof title, "%s", title_text);
    else heat_title(c, m, head, compact, title, sizeof title);
    int tlh = line_h(c, FONT_BOLD, title_font);
    int th = tlh + c->num_font / 5;
    const char *dot = strstr(title, " \xc2\xb7 ");
    Rgba tcol = selected ? c->th->result : c->th->ink;
    int title_w;
    if (math_w(c, FONT_BOLD, title_font, title) > w && dot && !compact) {
        char first[160];
        snprintf(first, sizeof first, "%.*s", (int)(dot - title), title);
        fit_text(c, FONT_BOLD, title_font, first, w, fitted, sizeof fitted);
        text_in(c, FONT_BOLD, title_font, tcol, x, y, w, tlh, LEFT, fitted);
        int size = title_font;
        while (size > 8 && math_w(c, FONT_REGULAR, size, dot + 4) > w) size--;
        if (math_w(c, FONT_REGULAR, size, dot + 4) <= w) math_at(c, FONT_REGULAR, size, tcol, x, y + tlh, dot + 4);
        th = 2 * tlh + c->num_font / 5;
        title_w = w;
    } else {
        fit_text(c, FONT_BOLD, title_font, title, w, fitted, sizeof fitted);
        int tw = math_w(c, FONT_BOLD, title_font, fitted);
        math_at(c, FONT_BOLD, title_font, tcol, compact ? x + (w - tw) / 2 : x, y + (th - tlh) / 2, fitted);
        title_w = tw;
    }
    // Labels: every one, at a size that lets the cells keep the room (down to 60 % of the label font).
    int lw = 0;
    for (int i = 0; i < p->n; i++) {
        model_axis_label(c->L, AXIS_QUERY, i, buf, sizeof buf);
        int tw = text_w(c, FONT_REGULAR, label_font, buf);
        if (tw > lw) lw = tw;
    }
    if (lw > w / 4) lw = w / 4;
    lw += c->num_font / 4;
    int llh = line_h(c, FONT_REGULAR, label_font);
    int top_h = llh + c->num_font / 6;
    // The axes' caption under the cells (which sequence runs down, which across), when the width holds it.
    const char *axes = compact ? NULL : scene_heat_axes(c->L, false);
    int axes_w = axes ? text_w(c, FONT_REGULAR, label_font, axes) : 0;
    if (axes && axes_w > w) {
        axes = scene_heat_axes(c->L, true);
        axes_w = text_w(c, FONT_REGULAR, label_font, axes);
    }
    if (axes_w > w || h - th - top_h < 4 * llh) axes = NULL;
    int cap_h = axes ? llh + c->num_font / 6 : 0;
    int avail_w = w - lw, avail_h = h - th - top_h - cap_h;
    int cell_h = p->n > 0 ? avail_h / p->n : 0, cell_w = p->m > 0 ? avail_w / p->m : 0;
    if (cell_h > cell_w * 2 / 1) cell_h = cell_w;
    if (cell_w > cell_h * 3) cell_w = cell_h * 3;
    if (!compact && c->heat_cell_w > 0 && cell_w > c->heat_cell_w) cell_w = c->heat_cell_w; // the result stays first
    if (!compact && c->heat_cell_h > 0 && cell_h > c->heat_cell_h) cell_h = c->heat_cell_h;
    if (cell_h < 1 || cell_w < 1) return;
    // Row labels shrink when the cells are lower than the text (every token keeps its label).
    int row_font = label_font;
    while (row_font > 6 && line_h(c, FONT_REGULAR, row_font) > cell_h + 2) row_font--;
    // Column labels: across when "the…" fits a cell at 8 px or more; else written downwards, one letter a
    // line (at most 6), so that narrow columns keep a readable label each.
    int col_font = label_font;
    while (col_font > 8 && text_w(c, FONT_REGULAR, col_font, "the\xe2\x80\xa6") > cell_w - 2) col_font--;
    bool down = text_w(c, FONT_REGULAR, col_font, "the\xe2\x80\xa6") > cell_w - 2;
    int down_lines = 0;
    if (down) {
        col_font = cell_w + cell_w / 3;
        if (col_font > label_font) col_font = label_font;
        if (col_font < 6) col_font = 6;
        for (int j = 0; j < p->m; j++) {
            model_axis_label(c->L, AXIS_KEY, j, buf, sizeof buf);
            int chars = 0;
            for (const char *q = buf; *q; q++) chars += ((unsigned char)*q & 0xC0) != 0x80;
            if (chars > down_lines) down_lines = chars;
        }
        if (down_lines > 6) down_lines = 6;
        int extra = down_lines * (line_h(c, FONT_REGULAR, col_font) * 4 / 5) + 2 - top_h;
        if (extra > 0) { // the cells give the labels their room
            top_h += extra;
            if (p->n > 0 && (h - th - top_h - cap_h) / p->n < cell_h) cell_h = (h - th - top_h - cap_h) / p->n;
            if (cell_h < 1) return;
        }
    }
    int gw = cell_w * p->m;
    int gx = x + lw + (w - lw - gw) / 2, gy = y + th + top_h;
    c->heat_grid_x = gx;
    c->heat_grid_w = gw;
    *grid_y = gy;
    *grid_h = cell_h * p->n;
    scene_push_hit(c->s, x, y, w, h, (CellRef){MAT_NONE, 0, 0, 0}, head);
    // Numbers only at the board's size, when every one fits its cell.
    bool numbers = !compact;
    if (numbers) {
        // The widest number: the range's end, and one with its integer digits and four decimals (a range of
        // exactly 4 prints as "−4", its cells as "−2.8284").
        char wide[32], wide4[32];
        model_format_value(m == MAT_WEIGHTS ? 0.5555 : -range, wide, sizeof wide);
        model_format_value(m == MAT_WEIGHTS ? 0.5555 : -(floor(range) + 0.5555), wide4, sizeof wide4);
        int ww = text_w(c, FONT_REGULAR, c->num_font, wide), ww4 = text_w(c, FONT_REGULAR, c->num_font, wide4);
        if (ww4 > ww) ww = ww4;
        numbers = ww + c->num_font / 4 <= cell_w && line_h(c, FONT_REGULAR, c->num_font) <= cell_h;
    }
    for (int j = 0; j < p->m; j++) {
        model_axis_label(c->L, AXIS_KEY, j, buf, sizeof buf);
        if (down) {
            // One character a line, top to bottom; a longer token ends in "…".
            int step = line_h(c, FONT_REGULAR, col_font) * 4 / 5, line = 0;
            const char *q = buf;
            while (*q && line < down_lines) {
                size_t k = 1;
                while (q[k] && ((unsigned char)q[k] & 0xC0) == 0x80) k++;
                char ch[8];
                bool last = line == down_lines - 1 && q[k];
                snprintf(ch, sizeof ch, "%.*s", last ? 3 : (int)k, last ? "\xe2\x80\xa6" : q);
                text_in(c, FONT_REGULAR, col_font, c->th->muted, gx + j * cell_w, gy - top_h + line * step, cell_w, step,
                        CENTER, ch);
                q += k;
                line++;
            }
            continue;
        }
        fit_label(c, FONT_REGULAR, col_font, buf, cell_w - 2, fitted, sizeof fitted);
        if (!fitted[0]) snprintf(fitted, sizeof fitted, "%d", j);
        text_in(c, FONT_REGULAR, col_font, c->th->muted, gx + j * cell_w, gy - top_h, cell_w, top_h, CENTER, fitted);
    }
    if (axes) { // centred under the cells, inside the heatmap's width
        int ax = gx + gw / 2 - axes_w / 2;
        if (ax + axes_w > x + w) ax = x + w - axes_w;
        if (ax < x) ax = x;
        text_in(c, FONT_REGULAR, label_font, c->th->muted, ax, gy + cell_h * p->n + c->num_font / 6, axes_w, llh, LEFT,
                axes);
    }
    for (int i = 0; i < p->n; i++) {
        model_axis_label(c->L, AXIS_QUERY, i, buf, sizeof buf);
        fit_label(c, FONT_REGULAR, row_font, buf, lw - c->num_font / 4, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, row_font, c->th->muted, gx - lw, gy + i * cell_h, lw - c->num_font / 4, cell_h, RIGHT,
                fitted);
    }
    bool causal = p->mask == MASK_CAUSAL && view_stage(c->st) >= STAGE_MASK;
    int inset = cell_w >= 8 && cell_h >= 8 ? 1 : 0;
    rect(c, gx - inset, gy - inset, gw + inset, cell_h * p->n + inset, c->th->grid);
    for (int i = 0; i < p->n; i++) {
        for (int j = 0; j < p->m; j++) {
            CellRef ref = {m, head, i, j};
            int cx = gx + j * cell_w, cy = gy + i * cell_h;
            double v = cell_value(c, ref);
            bool masked = causal && j > i;
            Rgba bgc = masked && m == MAT_WEIGHTS ? c->th->masked_bg : cell_color(c, m, v, range);
            bool shown = view_cell_revealed(c->st, ref) || head != c->st->head;
            if (!shown) bgc = c->th->empty;
            if (shown) cell_rect(c, cx, cy, cell_w - inset, cell_h - inset, bgc, ref);
            else rect(c, cx, cy, cell_w - inset, cell_h - inset, bgc);
            if (masked && shown) scene_push(c->s, CMD_HATCH, cx, cy, cell_w - inset, cell_h - inset, c->th->hatch);
            if (numbers && shown) {
                model_format_value(v, buf, sizeof buf);
                if (text_in(c, FONT_REGULAR, c->num_font, masked ? c->th->ink : colormap_text_on(bgc), cx, cy,
                            cell_w - inset, cell_h - inset, CENTER, buf) > 0)
                    tag_last(c, ROLE_NUMBER, ref);
            }
            if (shown || c->st->quiz_phase == QUIZ_ASKING) scene_push_hit(c->s, cx, cy, cell_w, cell_h, ref, head);
        }
    }
    CellRef f = c->focus;
    int t = c->num_font / 8 < 3 ? 3 : c->num_font / 8;
    if (f.mat != MAT_NONE && f.head == head && f.row < p->n && f.row >= 0 && f.col < p->m &&
        (f.mat == MAT_SCORES || f.mat == MAT_SCALED || f.mat == MAT_MASKED || f.mat == MAT_WEIGHTS)) {
        frame(c, gx + f.col * cell_w - t, gy + f.row * cell_h - t, cell_w + 2 * t, cell_h + 2 * t, t, c->th->focus);
    } else if (f.mat == MAT_Z && f.head == head && f.row < p->n && f.row >= 0) {
        frame(c, gx - t, gy + f.row * cell_h - t, gw + 2 * t, cell_h + 2 * t, t, c->th->focus);
    }
    if (selected && compact) {
        int tx = x + (w - title_w) / 2;
        int l = gx - lw < tx ? gx - lw : tx;
        int r = gx + gw > tx + title_w ? gx + gw : tx + title_w;
        int pad = c->num_font / 4;
        int fx = l - pad < x ? x : l - pad, fr = r + pad > x + w ? x + w : r + pad;
        int fb = gy + cell_h * p->n + pad > y + h ? y + h : gy + cell_h * p->n + pad;
        frame(c, fx, y, fr - fx, fb - y, 3, c->th->result);
    }
}

// Every head's heatmap of m in a grid that fills (x, y, w, h), with one colour bar at the right.
static void draw_heads_grid(Ctx *c, MatId m, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    double range = heat_range(c, m);
    int bar = colorbar_width(c, m);
    int gw = w - bar - c->num_font / 2;
    int best_cols = 1;
    double best = -1.0;
    for (int cols = 1; cols <= p->heads; cols++) {
        int rows = (p->heads + cols - 1) / cols;
        double cw = (double)gw / cols / (p->m + 1), ch = (double)h / rows / (p->n + 2);
        double cell = cw < ch ? cw : ch;
        if (cell > best) {
            best = cell;
            best_cols = cols;
        }
    }
    int cols = best_cols, rows = (p->heads + cols - 1) / cols;
    int pw = gw / cols, ph = h / rows;
    int pad = c->num_font / 4;
    for (int i = 0; i < p->heads; i++) {
        int px0 = x + (i % cols) * pw, py0 = y + (i / cols) * ph;
        int gy, gh;
        draw_heatmap(c, m, i, range, px0 + pad, py0 + pad, pw - 2 * pad, ph - 2 * pad, true, i == c->st->head, &gy, &gh,
                     NULL);
    }
    draw_colorbar(c, m, range, x + w - bar, y + c->num_font, bar, h - 2 * c->num_font);
}

static void draw_all_heads(Ctx *c, int x, int y, int w, int h)
{
    MatId m = model_stage_heatmap(&c->L->params, view_stage(c->st));
    if (m == MAT_NONE) {
        text_in(c, FONT_REGULAR, c->text_font, c->th->muted, x, y, w, h, CENTER,
                c->ex->slide ? TR("The heads' attention patterns appear from the Scores stage on.")
                             : TR("The heads' attention patterns appear from the Scores stage on (press \xe2\x86\x92)."));
        return;
    }
    draw_heads_grid(c, m, x, y, w, h);
}

// ---------------------------------------------------------------------------------------------------
// Header, footer, explanation, overlays

static const char *stage_formula(const Ctx *c, char *buf, size_t cap)
{
    const StageInfo *si = stage_info(view_stage(c->st));
    buf[0] = '\0';
    if (si) si->formula(&c->L->params, c->st->head, buf, cap);
    return buf;
}

static const char *stage_explanation(const Ctx *c, Stage s, char *buf, size_t cap)
{
    const StageInfo *si = stage_info(s);
    buf[0] = '\0';
    if (si) si->explain(&c->L->params, buf, cap);
    return buf;
}

// The header's note: what the last save or revert did, else how many values are edited and how to undo or
// keep them. Returns NULL when there is nothing to say.
static const char *status_text(const Ctx *c, char *buf, size_t cap, Rgba *color)
{
    *color = c->th->status_bg;
    if (c->ex->status) return c->ex->status;
    if (!c->ex->original) return NULL;
    int n = view_param_edit_count(c->ex->original, &c->L->params);
    if (n == 0) return NULL;
    if (c->ex->slide) snprintf(buf, cap, TRN("\xe2\x9c\x8e %d value edited", "\xe2\x9c\x8e %d values edited", n), n);
    else snprintf(buf, cap, TRN("\xe2\x9c\x8e %d value edited  \xc2\xb7  R reverts  \xc2\xb7  Ctrl+S saves",
                                "\xe2\x9c\x8e %d values edited  \xc2\xb7  R reverts  \xc2\xb7  Ctrl+S saves", n), n);
    *color = c->th->edited;
    return buf;
}

// Header: line 1 the stage's name and formula (what the class reads first) and the head; line 2 a strip
// naming every stage, the current one filled, with the lesson's title and the sub-step.
static void draw_header(Ctx *c, int x, int y, int w, int *height)
{
    const ViewState *st = c->st;
    int ff = (int)lround(c->num_font * 0.95), sf = c->text_font;
    int l1 = line_h(c, FONT_BOLD, ff) + c->num_font / 4;
    char head[96], fitted[512], formula[512];
    if (st->panel == PANEL_COMPARE) snprintf(head, sizeof head, TR("1 head vs %d"), c->L->params.heads);
    else if (st->panel == PANEL_SHUFFLE) snprintf(head, sizeof head, "%s", TR("shuffle test"));
    else if (st->view == VIEW_ALL_HEADS) snprintf(head, sizeof head, TR("all %d heads"), c->L->params.heads);
    else if (c->L->params.heads == 1) snprintf(head, sizeof head, "%s", TR("one head"));
    else if (stage_info(view_stage(st)) && stage_info(view_stage(st))->results[0] != MAT_NONE &&
             !mat_info(stage_info(view_stage(st))->results[0])->per_head)
        snprintf(head, sizeof head, TR("all %d heads"), c->L->params.heads);
    else snprintf(head, sizeof head, TR("head %d  (%d of %d)"), st->head, st->head + 1, c->L->params.heads);
    // Heads switched off (key O), on every stage: which ones.
    int off = 0, first_off = -1;
    for (int i = 0; i < c->L->params.heads; i++)
        if (params_ablated(&c->L->params, i)) off++, first_off = first_off < 0 ? i : first_off;
    if (off == 1) snprintf(head + strlen(head), sizeof head - strlen(head), TR("  \xc2\xb7  head %d off"), first_off);
    else if (off > 1) snprintf(head + strlen(head), sizeof head - strlen(head), TR("  \xc2\xb7  %d heads off"), off);
    int hw = text_w(c, FONT_BOLD, sf, head);
    text_in(c, FONT_BOLD, sf, c->th->result, x + w - hw, y, hw, l1, LEFT, head);
    bool cmp = st->panel == PANEL_COMPARE;
    const StageInfo *si = stage_info(view_stage(st));
    bool shuffle = st->panel == PANEL_SHUFFLE;
    const char *name = cmp ? TR("Single head vs multi-head") : shuffle ? TR("Shuffle test") : si ? TR(si->name) : "";
    int nw = math_at(c, FONT_BOLD, ff, c->th->result, x, y + (l1 - line_h(c, FONT_BOLD, ff)) / 2, name);
    if (cmp) {
        char last[16] = "";
        model_subscript(last, sizeof last, c->L->params.heads - 1);
        snprintf(formula, sizeof formula, TR("W^Q = [W\xe2\x82\x80^Q | \xe2\x80\xa6 | W%s^Q], likewise W^K, W^V; the same W^O"),
                 last);
    } else if (shuffle)
        snprintf(formula, sizeof formula, "%s",
                 c->L->params.positions != POS_NONE ? TR("X = E + P: the tokens move, their positions stay")
                 : c->L->params.mask == MASK_CAUSAL ? TR("no positions, but the causal mask follows the order")
                                                    : TR("no positions: X = E, the rows move with their tokens"));
    else
        stage_formula(c, formula, sizeof formula);
    int room = w - nw - hw - c->num_font * 2;
    int fsize = ff;
    while (fsize > c->text_font && math_w(c, FONT_REGULAR, fsize, formula) > room) fsize--;
    if (math_w(c, FONT_REGULAR, fsize, formula) <= room)
        math_at(c, FONT_REGULAR, fsize, c->th->ink, x + nw + c->num_font, y + (l1 - line_h(c, FONT_REGULAR, fsize)) / 2,
                formula);
    // Line 2: the title, then one segment per stage with its short name.
    int y2 = y + l1;
    int pf = (int)lround(c->text_font * 0.85);
    int l2 = line_h(c, FONT_REGULAR, pf) + c->num_font / 4;
    char title[256];
    snprintf(title, sizeof title, "%s", c->L->title ? c->L->title : "");
    const char *status = NULL;
    char note[1600];
    Rgba ncol;
    status = status_text(c, note, sizeof note, &ncol);
    int tw_max = w / 4;
    fit_text(c, FONT_BOLD, pf, title, tw_max, fitted, sizeof fitted);
    int tw = text_in(c, FONT_BOLD, pf, c->th->ink, x, y2, tw_max, l2, LEFT, fitted);
    int sx = x + tw + c->num_font / 2, sw = x + w - sx;
    int n = st->stage_count > 0 ? st->stage_count : 1, gap = 3;
    int seg = (sw - (n - 1) * gap) / n;
    c->s->strip_x = sx;
    c->s->strip_y = y2 + 1;
    c->s->strip_seg = seg;
    c->s->strip_gap = gap;
    c->s->strip_h = l2 - 2;
    c->s->strip_n = seg > 0 ? st->stage_count : 0;
    for (int i = 0; i < st->stage_count; i++) {
        const StageInfo *s2 = stage_info(st->stages[i]);
        int sx0 = sx + i * (seg + gap);
        bool cur = i == st->stage_index, done = i < st->stage_index;
        rect(c, sx0, y2 + 1, seg, l2 - 2, cur ? c->th->result : done ? c->th->panel : c->th->bg);
        frame(c, sx0, y2 + 1, seg, l2 - 2, 1, cur ? c->th->result : c->th->grid);
        const char *label = s2 ? TR(s2->short_name) : "";
        char lab[96];
        if (cur && c->s->substeps > 1) // the board decided this frame's sub-steps (it is drawn first)
            snprintf(lab, sizeof lab, "%s %d/%d", label, c->s->substep + 1, c->s->substeps);
        else
            snprintf(lab, sizeof lab, "%s", label);
        Rgba col = cur ? c->th->white : done ? c->th->ink : c->th->muted;
        FontRole lf = cur ? FONT_BOLD : FONT_REGULAR;
        int size = pf;
        // Too wide: smaller (down to 70 %), then the sub-step alone ("1/3"), then the name alone.
        while (size > pf * 7 / 10 && math_w(c, lf, size, lab) > seg - 4) size--;
        if (math_w(c, lf, size, lab) > seg - 4 && cur && c->s->substeps > 1)
            snprintf(lab, sizeof lab, "%d/%d", c->s->substep + 1, c->s->substeps);
        if (math_w(c, lf, size, lab) > seg - 4) snprintf(lab, sizeof lab, "%s", label);
        int lw = math_w(c, lf, size, lab);
        if (lw <= seg - 2)
            math_at(c, lf, size, col, sx0 + (seg - lw) / 2, y2 + (l2 - line_h(c, FONT_REGULAR, size)) / 2, lab);
    }
    int used = l1 + l2 + c->num_font / 5;
    if (status) {
        // What the last save or revert did, or the edit count: a line of its own, read whole.
        int bh = line_h(c, FONT_BOLD, pf) + 6;
        fit_text(c, FONT_BOLD, pf, status, w - 16, fitted, sizeof fitted);
        int bw = text_w(c, FONT_BOLD, pf, fitted) + 16;
        rect(c, x, y + used, bw, bh, ncol);
        text_in(c, FONT_BOLD, pf, c->th->white, x + 8, y + used, bw - 16, bh, LEFT, fitted);
        used += bh + 4;
    }
    *height = used;
}

// The arithmetic of the focused cell, or a one-line hint. The room is reserved whether or not a cell is
// focused, so the board does not move under the pointer.
static int explain_height(const Ctx *c) { return 3 * line_h(c, FONT_REGULAR, c->text_font) + c->num_font / 3; }

static void draw_explain(Ctx *c, int x, int y, int w, int h)
{
    char lines[4][256];
    int n = model_explain(c->L, c->T, c->focus, lines, 4, !c->ex->slide);
    if (n == 0 && c->ex->slide) return; // a slide has no pointer to invite
    int f = c->text_font;
    int lh = line_h(c, FONT_REGULAR, f);
    int pad = c->num_font / 3;
    if (n == 0) {
        const char *hint = view_stage(c->st) == STAGE_INPUT
                               ? TR("Point at a number to see where it comes from.  \xe2\x86\x92 next,  N notes,  H all keys")
                               : TR("Point at (or click) a cell to see how it was computed.  \xe2\x80\x9c.\xe2\x80\x9d fills the "
                                 "result one cell at a time.");
        char fitted[256], part[256];
        if (c->st->quiz_phase == QUIZ_ASKING && c->ex->question)
            hint = TR("Predict first: the result stays hidden until the class answers the question below.");
        else if (c->s->substeps > 1 && c->caption[0]) { // which part of the stage this is, and what comes next
            if (c->next[0])
                snprintf(part, sizeof part, TR("Part %d of %d: %s  (\xe2\x86\x92 %s).   Point at a cell to see how it was "
                         "computed."), c->s->substep + 1, c->s->substeps, c->caption, c->next);
            else
                snprintf(part, sizeof part, TR("Part %d of %d: %s  (\xe2\x86\x92 next stage).   Point at a cell to see "
                         "how it was computed."), c->s->substep + 1, c->s->substeps, c->caption);
            hint = part;
        }
        fit_text(c, FONT_REGULAR, f, hint, w - 2 * pad, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, f, c->th->muted, x, y, w, lh, LEFT, fitted);
        return;
    }
    rect(c, x, y, w, h, c->th->panel);
    int shown = n < 3 ? n : 3;
    for (int i = 0; i < shown; i++) {
        int size = f;
        while (size > c->min_font && math_w(c, FONT_REGULAR, size, lines[i]) > w - 2 * pad) size--;
        char fitted[256];
        fit_text(c, FONT_REGULAR, size, lines[i], w - 2 * pad, fitted, sizeof fitted);
        math_at(c, FONT_REGULAR, size, i == shown - 1 && i > 0 ? c->th->result : c->th->ink, x + pad,
                y + pad / 2 + i * lh, fitted);
    }
}

static const char COMPARE_TEXT[] =
    N_("The single head holds exactly the heads' weights, joined side by side. It computes one attention pattern where the "
    "heads compute one each: the split changes the patterns and the output, not the number of weights or multiplications.");

// Predict, then reveal: the question on screen in a framed box, with how to answer (and what was typed) while
// it waits, then the verdict and the answer computed from the trace. A slide shows the question (asked) or the
// answer (revealed) without the verdict or the keys. Returns the height used.
static int draw_question(Ctx *c, const LessonQuestion *q, int x, int y, int w, bool draw)
{
    const ViewState *st = c->st;
    // The class reads the question from the back row: its letters at least 2.6 % of the height (a cap height of
    // 0.73 of a 1.2-em line), a little above the sentences' 3 % size where that rounds down.
    int f = c->text_font, legible = (int)ceil(c->s->height * 0.026 / (1.2 * 0.73));
    if (f < legible) f = legible;
    int pad = c->num_font / 4, t = px(c, 2) < 1 ? 1 : px(c, 2);
    int iw = w - 2 * pad - 2 * t, lh = line_h(c, FONT_BOLD, f);
    QuestionAnswer a;
    LessonError err;
    bool answered = question_answer(c->L, c->T, q, st->quiz < 0 ? 0 : st->quiz, &a, &err);
    char head[1200], line[700], words[512];
    if (st->quiz >= 0)
        // TRANSLATORS: questions: predict, then reveal. %s is the teacher's question, in the lesson's language.
        snprintf(head, sizeof head, TR("Question %d of %d: %s"), st->quiz + 1, c->L->question_count, q->text);
    else
        snprintf(head, sizeof head, TR("Question: %s"), q->text);
    int used = t + pad / 2;
    used += wrap_text(c, FONT_BOLD, f, c->th->result, x + t + pad, y + used, iw, 3, head, draw);
    if (!answered) { // the lesson's question does not fit it (--check says why)
        snprintf(line, sizeof line, TR("No answer: %s"), err.message);
        used += wrap_text(c, FONT_REGULAR, f, c->th->ink, x + t + pad, y + used, iw, 2, line, draw);
    } else if (st->quiz_phase == QUIZ_ASKING || st->quiz_phase == QUIZ_JUDGING) {
        question_prompt(q, &a, words, sizeof words);
        if (st->quiz_q.input == QUIZ_TYPE && !c->ex->slide)
            snprintf(line, sizeof line, "%s   %s %s\xe2\x96\x8f", words, TR("Your number:"), st->quiz_input);
        else
            snprintf(line, sizeof line, "%s", words);
        if (!c->ex->slide) snprintf(line + strlen(line), sizeof line - strlen(line), "   %s", TR("(Esc: skip)"));
        used += wrap_text(c, FONT_REGULAR, f, c->th->ink, x + t + pad, y + used, iw, 2, line, draw);
    } else {
        int lx = x + t + pad, room = iw;
        if (!c->ex->slide) { // the verdict: a badge, then what the class gave
            const char *verdict = st->quiz_right ? TR("\xe2\x9c\x93 Right") : TR("\xe2\x9c\x97 Not quite");
            Rgba bg = st->quiz_right ? (Rgba){0, 122, 84, 255} : (Rgba){190, 60, 0, 255};
            int bw = text_w(c, FONT_BOLD, f, verdict) + 2 * pad;
            if (draw) {
                rect(c, lx, y + used, bw, lh, bg);
                text_in(c, FONT_BOLD, f, (Rgba){255, 255, 255, 255}, lx + pad, y + used, bw - 2 * pad, lh, LEFT, verdict);
            }
            char said[400];
            QuestionResponse r = {st->quiz_cell, st->quiz_value, st->quiz_choice};
            question_response(q, c->L, &r, said, sizeof said);
            char fitted[256];
            fit_text(c, FONT_REGULAR, f, said, room - bw - pad, fitted, sizeof fitted);
            if (draw) text_in(c, FONT_REGULAR, f, c->th->ink, lx + bw + pad, y + used, room - bw - pad, lh, LEFT, fitted);
            used += lh + pad / 3;
        }
        question_describe(q, &a, c->L, words, sizeof words);
        snprintf(line, sizeof line, TR("Answer: %s"), words);
        used += wrap_text(c, FONT_BOLD, f, c->th->ink, lx, y + used, room, 2, line, draw);
    }
    used += pad / 2 + t;
    if (draw) frame(c, x, y, w, used, t, c->th->result); // draw_footer laid the box's panel colour under the text
    return used;
}

static const char SHUFFLE_TEXT[] =
    N_("Attention alone cannot tell the order of the tokens: without positions, shuffling them only moves the output "
    "rows. Positions added to the embeddings make the order count. Shift+X: another order;  X: back to the board.");
static int draw_footer(Ctx *c, int x, int y, int w, bool draw)
{
    int f = c->text_font;
    const LessonQuestion *q = c->ex->question;
    if (q && c->st->quiz_phase != QUIZ_NONE && c->st->panel != PANEL_COMPARE && c->st->panel != PANEL_SHUFFLE) {
        if (draw) rect(c, x, y, w, draw_question(c, q, x, y, w, false), c->th->panel);
        return draw_question(c, q, x, y, w, draw);
    }
    if (c->st->panel == PANEL_COMPARE) return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 2, TR(COMPARE_TEXT), draw);
    if (c->st->panel == PANEL_SHUFFLE) return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 2, TR(SHUFFLE_TEXT), draw);
    char text[768];
    if (c->st->notes && c->L->notes && c->L->notes[0]) // the lesson's notes (key N), on any stage
        return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 9, c->L->notes, draw);
    return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 3, stage_explanation(c, view_stage(c->st), text, sizeof text),
                     draw);
}

static const char *const HELP[][2] = {
    {N_("\xe2\x86\x92  Space  PageDown  \xe2\x86\x93"), N_("next stage")},
    {N_("\xe2\x86\x90  Backspace  PageUp  \xe2\x86\x91"), N_("previous stage")},
    {N_("Home / End"), N_("first / last stage")},
    {N_("click the strip"), N_("that stage (the stage shown: its next part)")},
    {N_(".   ,"), N_("fill the result one cell at a time / undo")},
    {N_("1 \xe2\x80\xa6 9"), N_("show the 1st \xe2\x80\xa6 9th head (head 0 \xe2\x80\xa6 8)")},
    {N_("Tab / Shift+Tab"), N_("next / previous head")},
    {N_("A"), N_("all heads at once / one head")},
    {N_("C"), N_("colours: viridis, cividis, greyscale (black on white, signs outlined)")},
    {N_("D"), N_("dark board / light board")},
    {N_("K"), N_("cost panel: weights and multiplications, 1 head vs h heads")},
    {N_("M"), N_("single head vs multi-head, side by side")},
    {N_("O"), N_("switch the current head off (its Z zeros in the concat) / on again")},
    {N_("[  ]"), N_("softmax scale down / up, stops at 1/d_k, 1/\xe2\x88\x9a" "d_k, 1 (Shift: finer)")},
    {N_("X  /  Shift+X"), N_("shuffle test: the tokens reordered beside the original / another order")},
    {N_("T   J  L   Z   V"), N_("train (a lesson with \"train\"): start / pause, checkpoints back / on, step 0, export them")},
    {N_("click + \xe2\x86\x91 \xe2\x86\x93 / wheel / drag"), N_("change a clicked embedding or weight (Shift: finer)")},
    {N_("R"), N_("revert the edits to the file")},
#ifdef __EMSCRIPTEN__ // the page: files become the browser's downloads
    {N_("Ctrl+S"), N_("download the edited lesson (NAME-edited.json)")},
    {N_("E  /  Shift+E"), N_("slides of the heatmap / of the whole board: PNG + SVG, downloaded")},
#else
    {N_("Ctrl+S"), N_("save the edited lesson as NAME-edited.json")},
    {N_("E  /  Shift+E"), N_("slides of the heatmap / of the whole board: PNG + SVG in exports/")},
#endif
    {N_("+  \xe2\x88\x92  0"), N_("zoom in, out, reset")},
    {N_("F11  F"), N_("fullscreen")},
    {N_("mouse"), N_("point at a cell: how it was computed; click pins it")},
#ifdef __EMSCRIPTEN__
    {N_("drop a .json"), N_("open that lesson (or the bar's menu and Open lesson\xe2\x80\xa6)")},
#else
    {N_("drop a .json"), N_("open that lesson (saved edits reload by themselves)")},
#endif
    {N_("N"), N_("the lesson's notes (on any stage)")},
    {N_("P"), N_("predict: an automatic question (which key a row attends to most)")},
    {N_("click  /  number + Enter  /  1 \xe2\x80\xa6 9"), N_("answer a question (its result stays hidden till then); Esc skips")},
    {N_("H  F1"), N_("this help")},
#ifdef __EMSCRIPTEN__
    {N_("Esc"), N_("close help or panel, unpin")},
#else
    {N_("Esc"), N_("close help or panel, unpin, then quit;   Q quits")},
#endif
};

static void draw_help(Ctx *c, int w, int h)
{
    int rows = (int)(sizeof HELP / sizeof HELP[0]);
    int kf = px(c, 19), lh = line_h(c, FONT_BOLD, kf) + px(c, 8);
    while (kf > c->min_font && (rows + 1) * lh + 2 * px(c, 28) > h - 20) { // all rows on the screen
        kf--;
        lh = line_h(c, FONT_BOLD, kf) + px(c, 6);
    }
    int kw = 0, dw = 0;
    for (int i = 0; i < rows; i++) {
        int a = text_w(c, FONT_BOLD, kf, TR(HELP[i][0])), b = text_w(c, FONT_REGULAR, kf, TR(HELP[i][1]));
        if (a > kw) kw = a;
        if (b > dw) dw = b;
    }
    int pad = px(c, 28);
    int pw = kw + dw + 3 * pad, ph = (rows + 1) * lh + 2 * pad;
    if (pw > w - 20) pw = w - 20;
    if (ph > h - 20) ph = h - 20;
    int x = (w - pw) / 2, y = (h - ph) / 2;
    rect(c, 0, 0, w, h, (Rgba){20, 22, 28, 150});
    rect(c, x, y, pw, ph, c->th->white);
    frame(c, x, y, pw, ph, px(c, 2), c->th->result);
    text_in(c, FONT_BOLD, px(c, 22), c->th->result, x + pad, y + pad / 2, pw - 2 * pad, lh, LEFT, TR("Keys"));
    for (int i = 0; i < rows; i++) {
        int yy = y + pad / 2 + (i + 1) * lh;
        if (yy + lh > y + ph) break;
        char fitted[256];
        fit_text(c, FONT_BOLD, kf, TR(HELP[i][0]), kw, fitted, sizeof fitted);
        text_in(c, FONT_BOLD, kf, c->th->ink, x + pad, yy, kw, lh, LEFT, fitted);
        fit_text(c, FONT_REGULAR, kf, TR(HELP[i][1]), pw - kw - 3 * pad, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, kf, c->th->ink, x + 2 * pad + kw, yy, pw - kw - 3 * pad, lh, LEFT, fitted);
    }
}

static void draw_banner(Ctx *c, int w, const char *msg, int *height)
{
    int f = px(c, 17);
    int pad = px(c, 10);
    int used = wrap_text(c, FONT_BOLD, f, c->th->white, 0, 0, w - 2 * pad, 3, msg, false);
    rect(c, 0, 0, w, used + 2 * pad, c->th->banner_bg);
    wrap_text(c, FONT_BOLD, f, c->th->white, pad, pad, w - 2 * pad, 3, msg, true);
    *height = used + 2 * pad;
}


// The cost panel (key K): the document's figures for the lesson's d_model and n with h = 1 and its h, and
// the paper's (512, 10, h = 1 and 8) when the lesson is not the paper's.
static void draw_cost(Ctx *c, int w, int h)
{
    const AttnParams *p = &c->L->params;
    CostFigures fig[4];
    compare_costs(&fig[0], &fig[1], p);
    int nfig = 2;
    if (!(p->d_model == 512 && p->n == 10 && p->heads == 8 && p->d_k == 64 && !p->cross)) {
        fig[2] = cost_compute(512, 10, 1, 512);
        fig[3] = cost_compute(512, 10, 8, 64);
        nfig = 4;
    }
    static const char *const head[5] = {"", N_("d_k"), N_("projection weights"), N_("score multiplications"), N_("attention matrices")};
    char cell[4][5][96];
    for (int i = 0; i < nfig; i++) {
        const CostFigures *f = &fig[i];
        snprintf(cell[i][0], 96, "h = %lld", (long long)f->heads);
        snprintf(cell[i][1], 96, "%lld", (long long)f->d_k);
        cost_format_int(cell[i][2], 96, f->projection_weights);
        cost_format_int(cell[i][3], 96, f->score_multiplications);
        snprintf(cell[i][4], 96, "%lld %s (%lld%s%lld)", (long long)f->attention_matrices, TIMES, (long long)f->matrix_rows,
                 TIMES, (long long)f->matrix_cols);
    }
    int f = px(c, 20), lh = line_h(c, FONT_REGULAR, f) + px(c, 10);
    int colw[5], gap = px(c, 28), pad = px(c, 28);
    for (int k = 0; k < 5; k++) {
        colw[k] = text_w(c, FONT_BOLD, f, TR(head[k]));
        for (int i = 0; i < nfig; i++) {
            int tw = text_w(c, FONT_REGULAR, f, cell[i][k]);
            if (tw > colw[k]) colw[k] = tw;
        }
    }
    int table_w = 4 * gap;
    for (int k = 0; k < 5; k++) table_w += colw[k];
    char title[160], sub[200], line1[200], line2[200], concl[300];
    snprintf(title, sizeof title, TR("What the heads cost \xe2\x80\x94 this lesson: d_model = %d, n = %d%s"), p->d_model, p->n,
             p->cross ? "" : "");
    if (p->cross) snprintf(title + strlen(title), sizeof title - strlen(title), TR(", m = %d source tokens"), p->m);
    snprintf(sub, sizeof sub, "%s", TR("The paper's layer: d_model = 512, n = 10 (the document's table)"));
    snprintf(line1, sizeof line1, "%s",
             TR("projection weights = h\xc2\xb7" "3\xc2\xb7" "d_model\xc2\xb7" "d_k + h\xc2\xb7" "d_k\xc2\xb7"
                "d_model   (W_Q, W_K, W_V per head + W^O)"));
    snprintf(line2, sizeof line2, TR("score multiplications = h\xc2\xb7n\xc2\xb7%s\xc2\xb7" "d_k   (all the Q_i K_i%s)"),
             p->cross ? "m" : "n", "\xe1\xb5\x80");
    snprintf(concl, sizeof concl,
             TR("Each head works in d_k = %d numbers instead of %d: the same weights and the same multiplications, "
             "but %d attention patterns instead of 1."),
             p->d_k, p->heads * p->d_k, p->heads);
    int sf = px(c, 18);
    int body_h = lh * (1 + 3 + (nfig == 4 ? 4 : 0) + 2) + lh / 2 * (nfig == 4 ? 2 : 1) + 2 * line_h(c, FONT_BOLD, sf) +
                 px(c, 4);
    int pw = table_w + 2 * pad, ph = body_h + pad + pad / 2;
    int tw = text_w(c, FONT_BOLD, px(c, 22), title) + 2 * pad;
    if (tw > pw) pw = tw;
    if (pw > w - 20) pw = w - 20;
    if (ph > h - 20) ph = h - 20;
    int x = (w - pw) / 2, y = (h - ph) / 2;
    rect(c, 0, 0, w, h, (Rgba){20, 22, 28, 150});
    rect(c, x, y, pw, ph, c->th->white);
    frame(c, x, y, pw, ph, px(c, 2), c->th->result);
    int yy = y + pad / 2, tx = x + (pw - table_w) / 2;
    char fitted[300];
    fit_text(c, FONT_BOLD, px(c, 22), title, pw - 2 * pad, fitted, sizeof fitted);
    text_in(c, FONT_BOLD, px(c, 22), c->th->result, x + pad, yy, pw - 2 * pad, lh, LEFT, fitted);
    yy += lh;
    for (int part = 0; part < nfig / 2; part++) {
        if (part == 1) {
            yy += lh / 2;
            fit_text(c, FONT_BOLD, f, sub, pw - 2 * pad, fitted, sizeof fitted);
            text_in(c, FONT_BOLD, f, c->th->ink, x + pad, yy, pw - 2 * pad, lh, LEFT, fitted);
            yy += lh;
        }
        int xx = tx;
        for (int k = 0; k < 5; k++) {
            text_in(c, FONT_BOLD, f, c->th->muted, xx, yy, colw[k], lh, k == 0 ? LEFT : RIGHT, TR(head[k]));
            xx += colw[k] + gap;
        }
        yy += lh;
        rect(c, tx, yy - px(c, 4), table_w, 1, c->th->empty);
        for (int i = part * 2; i < part * 2 + 2; i++) {
            xx = tx;
            for (int k = 0; k < 5; k++) {
                text_in(c, k == 0 ? FONT_BOLD : FONT_REGULAR, f, k == 2 || k == 3 ? c->th->result : c->th->ink, xx, yy, colw[k], lh,
                        k == 0 ? LEFT : RIGHT, cell[i][k]);
                xx += colw[k] + gap;
            }
            yy += lh;
        }
    }
    yy += lh / 2;
    fit_text(c, FONT_REGULAR, sf, line1, pw - 2 * pad, fitted, sizeof fitted);
    text_in(c, FONT_REGULAR, sf, c->th->muted, x + pad, yy, pw - 2 * pad, lh, LEFT, fitted);
    yy += lh;
    fit_text(c, FONT_REGULAR, sf, line2, pw - 2 * pad, fitted, sizeof fitted);
    text_in(c, FONT_REGULAR, sf, c->th->muted, x + pad, yy, pw - 2 * pad, lh, LEFT, fitted);
    yy += lh;
    wrap_text(c, FONT_BOLD, sf, c->th->ink, x + pad, yy + px(c, 4), pw - 2 * pad, 2, concl, true);
}

// Single head vs multi-head (key M): the one head that holds the h heads' weights side by side, its one
// attention pattern beside the h patterns, and both outputs, with the cost of each.
static void draw_compare(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    const Comparison *cmp = c->ex->compare;
    if (!cmp) {
        text_in(c, FONT_REGULAR, px(c, 20), c->th->muted, x, y, w, h, CENTER,
                TR("The single-head version could not be computed (see the banner)."));
        return;
    }
    ViewState st = *c->st; // the whole patterns, whatever is being revealed, no head singled out
    st.reveal = -1;
    st.head = -1;
    Lesson one = *c->L;
    one.params = cmp->single;
    SceneExtras none = {0};
    Ctx multi = *c, single = *c;
    multi.st = &st;
    single.st = &st;
    single.L = &one;
    single.T = &cmp->trace;
    single.ex = &none;
    single.focus.mat = MAT_NONE;
    single.lit_count = 0;
    char buf[300], a[64], b[64], d[64], e[64];
    // Bottom: the cost line and both outputs.
    int f = px(c, 18), lh = line_h(c, FONT_BOLD, f) + px(c, 6);
    int out_h = (int)(h * 0.36);
    int top_h = h - out_h - lh - px(c, 8);
    int bar = colorbar_width(c, MAT_WEIGHTS);
    int gap = px(c, 28);
    int left_w = (w - bar - gap) / (p->heads >= 4 ? 4 : 3);
    // Top left: the one head.
    int gy, gh;
    size_t hits = c->s->hit_count;
    snprintf(buf, sizeof buf, TR("One head \xc2\xb7 d_k = %d"), cmp->single.d_k);
    draw_heatmap(&single, MAT_WEIGHTS, 0, 1.0, x, y, left_w, top_h, false, false, &gy, &gh, buf);
    c->s->hit_count = hits; // its cells are not the lesson's: no hover explanation for them
    // Top right: the h heads.
    int rx = x + left_w + gap, rw = w - left_w - gap;
    snprintf(buf, sizeof buf, TR("%d heads \xc2\xb7 d_k = %d each: each head is a full scaled dot-product attention"), p->heads,
             p->d_k);
    char fitted[300];
    fit_text(c, FONT_BOLD, px(c, 18), buf, rw, fitted, sizeof fitted);
    int hth = line_h(c, FONT_BOLD, px(c, 18)) + px(c, 6);
    text_in(c, FONT_BOLD, px(c, 18), c->th->ink, rx, y, rw, hth, LEFT, fitted);
    draw_heads_grid(&multi, MAT_WEIGHTS, rx, y + hth, rw, top_h - hth);
    rect(c, x + left_w + gap / 2, y, 1, top_h, c->th->empty);
    // The cost line.
    int cy = y + top_h + px(c, 4);
    cost_format_int(a, sizeof a, cmp->cost_one.projection_weights);
    cost_format_int(b, sizeof b, cmp->cost_multi.projection_weights);
    cost_format_int(d, sizeof d, cmp->cost_one.score_multiplications);
    cost_format_int(e, sizeof e, cmp->cost_multi.score_multiplications);
    snprintf(buf, sizeof buf, TR("Same cost: %s vs %s projection weights, %s vs %s score multiplications \xe2\x80\x94 but 1 "
                              "pattern vs %d"),
             a, b, d, e, p->heads);
    fit_text(c, FONT_BOLD, f, buf, w, fitted, sizeof fitted);
    text_in(c, FONT_BOLD, f, c->th->result, x, cy, w, lh, CENTER, fitted);
    // Both outputs on one row, the same colour scale, windowed like the board when they do not fit.
    GridStyle g;
    grid_style(c, &g);
    Arrangement arr;
    memset(&arr, 0, sizeof arr);
    arr.count = 1;
    BoardRow *row = &arr.rows[0];
    row->count = 3;
    box_init(&single, &g, &row->t[0].box, MAT_OUTPUT, 0, false);
    row->t[1].is_op = true;
    snprintf(row->t[1].op, sizeof row->t[1].op, "%s", TR("vs"));
    box_init(c, &g, &row->t[2].box, MAT_OUTPUT, 0, true);
    double range = row->t[0].box.range > row->t[2].box.range ? row->t[0].box.range : row->t[2].box.range;
    row->t[0].box.range = row->t[2].box.range = range;
    int cw = row->t[0].box.cell_w > row->t[2].box.cell_w ? row->t[0].box.cell_w : row->t[2].box.cell_w;
    row->t[0].box.cell_w = row->t[2].box.cell_w = cw;
    char t1[64], t2[64];
    snprintf(t1, sizeof t1, "%s", TR("Output, one head"));
    snprintf(t2, sizeof t2, TR("Output, %d heads"), p->heads);
    row->t[0].box.title = t1;
    row->t[2].box.title = t2;
    int oy = cy + lh + px(c, 4), oh = y + h - oy;
    window_to_fit(c, &g, &arr, w, oh);
    int row_w = row_width(c, &g, row);
    int xx = x + (w - row_w) / 2;
    hits = c->s->hit_count;
    draw_matrix(&single, &g, &row->t[0].box, xx, oy);
    c->s->hit_count = hits;
    xx += box_width(&g, &row->t[0].box) + g.gap;
    int cells_top = oy + g.title_h + g.col_label_h, cells_h = row->t[0].box.nr * row->t[0].box.cell_h;
    text_in(c, FONT_BOLD, g.op_font, c->th->muted, xx + g.gap, cells_top, op_width(c, &g, TR("vs")) - 2 * g.gap, cells_h,
            CENTER, TR("vs"));
    xx += op_width(c, &g, TR("vs"));
    draw_matrix(&multi, &g, &row->t[2].box, xx, oy);
}

// ---------------------------------------------------------------------------------------------------
// Slide pages: the size a heatmap needs, by the rules of draw_heatmap and draw_heads_grid above (kept here,
// beside them, so that a change of the layout changes the page with it). At scale 1 the sizes are a
// 1280x720 window's; the exporter multiplies them by its scale.

#define MAX_GRID_W 1600 // one head's cells at scale 1: larger lessons get smaller cells (colours, no numbers)
#define MAX_GRID_H 1000
#define MAX_ALL_W 3840  // all heads at scale 1: 4K, so that 8 heads of 10 tokens keep every label whole
#define MAX_ALL_H 2160

typedef struct {
    const TextMetrics *tm;
    int nf; // the board's number font at the scale; the heatmap's fonts derive from it as in the scene
    int m8; // the scene's page margin at the scale
} Measure;

// The scene's sizes at scale k (its fonts stop shrinking below about 0.4).
static Measure measure_at(const TextMetrics *tm, double k)
{
    int m8 = (int)lround(8.0 * (k < 0.4 ? 0.4 : k));
    return (Measure){tm, scene_number_font((int)lround(720.0 * k)), m8 < 1 ? 1 : m8};
}

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }
static int m_text_w(const Measure *me, FontRole f, int size, const char *t)
{
    return me->tm->text_width(me->tm->user, f, size, t);
}
static int m_line_h(const Measure *me, FontRole f, int size) { return me->tm->line_height(me->tm->user, f, size); }

static int widest_label(const Measure *me, const Lesson *L, Axis a, int count, int size)
{
    char buf[160];
    int w = 0;
    for (int i = 0; i < count; i++) {
        model_axis_label(L, a, i, buf, sizeof buf);
        w = imax(w, m_text_w(me, FONT_REGULAR, size, buf));
    }
    return w;
}

// The colour bar beside the cells with its widest end value (the scene's colorbar_width): "0" for the
// weights, else the lower end of the shared range ("−2.7498").
static int bar_width(const Measure *me, const Lesson *L, const Trace *T, MatId mat)
{
    RangeGroup g = mat_info(mat)->range;
    char lo[32] = "0";
    if (g != RANGE_PROB) model_format_value(-model_range(&L->params, T, g), lo, sizeof lo);
    return me->nf * 2 / 3 + me->nf / 4 + m_text_w(me, FONT_REGULAR, me->nf, lo) + 2;
}

// One head at scale 1: cells wide enough for the board's numbers and every key, a number high with air
// around it; the title on one line; the colour bar (centred on the cells, three lines at least) inside.
static void heatmap_page(const Measure *me, const Lesson *L, const Trace *T, MatId mat, int head, int *w, int *h)
{
    const AttnParams *p = &L->params;
    const MatInfo *mi = mat_info(mat);
    int nf = me->nf, lf = nf * 4 / 5;
    char wide[32], name[64], title[200];
    model_format_value(-model_range(p, T, mi->range), wide, sizeof wide);
    int num = imax(m_text_w(me, FONT_REGULAR, nf, wide), m_text_w(me, FONT_REGULAR, nf, "0.5555")) + nf / 4;
    int key = imin(widest_label(me, L, AXIS_KEY, p->m, lf) + nf / 4, 4 * nf);
    int cell_w = imax(num, key) + nf / 2, cell_h = m_line_h(me, FONT_REGULAR, nf) + nf / 2;
    if (cell_w > 3 * cell_h) cell_h = (cell_w + 2) / 3; // the scene keeps cells at most 3:1
    if (p->m * cell_w > MAX_GRID_W) cell_w = imax(MAX_GRID_W / p->m, 1);
    if (p->n * cell_h > MAX_GRID_H) cell_h = imax(MAX_GRID_H / p->n, 1);
    cell_w = imin(cell_w, 3 * cell_h);
    cell_h = imin(cell_h, 2 * cell_w);
    int lw = widest_label(me, L, AXIS_QUERY, p->n, lf) + nf / 4;
    model_mat_name(mat, head, name, sizeof name);
    snprintf(title, sizeof title, TR("Head %d \xc2\xb7 %s %s"), head, TR(mi->what), name);
    int heat_w = imax(lw + p->m * cell_w, m_text_w(me, FONT_BOLD, lf, title) + nf);
    heat_w = imax(heat_w, 4 * lw); // the scene gives the query labels a quarter of the width at most
    heat_w = imax(heat_w, m_text_w(me, FONT_REGULAR, lf, scene_heat_axes(L, false))); // the axes' caption under the cells
    int th = m_line_h(me, FONT_BOLD, lf) + nf / 5, top = m_line_h(me, FONT_REGULAR, lf) + nf / 6;
    top += m_line_h(me, FONT_REGULAR, lf) + nf / 6; // the caption's line
    int grid_h = p->n * cell_h, half_bar = 3 * m_line_h(me, FONT_REGULAR, nf) / 2 + 1;
    int heat_h = th + top + imax(grid_h, grid_h / 2 + half_bar);
    *w = heat_w + bar_width(me, L, T, mat) + 3 * me->m8 + nf / 2;
    *h = heat_h + 2 * me->m8 + nf / 4;
}

// The scene's choice of columns for the all-heads grid in a w x h page (its draw_heads_grid): the one that
// gives the largest cells.
static int scene_grid_cols(const Measure *me, const AttnParams *p, int bar, int w, int h)
{
    double gw = w - 2 * me->m8 - bar - me->nf / 2, gh = h - 2 * me->m8, best = -1.0;
    int cols = 1;
    for (int c = 1; c <= p->heads; c++) {
        int rows = (p->heads + c - 1) / c;
        double cw = gw / c / (p->m + 1), ch = gh / rows / (p->n + 2), cell = cw < ch ? cw : ch;
        if (cell > best) {
            best = cell;
            cols = c;
        }
    }
    return cols;
}

// All heads at scale 1: square cells as wide as the widest key (no numbers, as in the window's grid), the
// panels in the columns that bring the page closest to 16:9 among those the scene would choose itself.
static void heads_page(const Measure *me, const Lesson *L, const Trace *T, MatId mat, int *w, int *h)
{
    const AttnParams *p = &L->params;
    int nf = me->nf, lf = nf * 3 / 5, pad = nf / 4, bar = bar_width(me, L, T, mat);
    int lw = widest_label(me, L, AXIS_QUERY, p->n, lf) + nf / 4;
    int th = m_line_h(me, FONT_BOLD, nf * 2 / 3) + nf / 5, top = m_line_h(me, FONT_REGULAR, lf) + nf / 6;
    int cell = imin(imax(widest_label(me, L, AXIS_KEY, p->m, lf) + 6, m_line_h(me, FONT_REGULAR, lf) + nf / 3), 3 * nf);
    for (;;) {
        double best = 1e300;
        *w = *h = 0;
        for (int c = 1; c <= p->heads; c++) {
            int rows = (p->heads + c - 1) / c;
            int pw = imax(lw + p->m * cell, 4 * lw) + 2 * pad, ph = th + top + p->n * cell + 2 * pad;
            int W = 2 * me->m8 + c * pw + nf / 2 + bar, H = 2 * me->m8 + rows * ph;
            double score = fabs(log((double)W / H / (16.0 / 9.0)));
            if (scene_grid_cols(me, p, bar, W, H) != c) score += 100.0; // the scene would lay it out otherwise
            if (score < best - 1e-9) {
                best = score;
                *w = W;
                *h = H;
            }
        }
        if ((*w <= MAX_ALL_W && *h <= MAX_ALL_H) || cell <= 4) return;
        cell = cell * 7 / 8;
    }
}

void scene_heatmap_page(const Lesson *L, const Trace *T, MatId mat, int head, double scale, const TextMetrics *tm,
                        int *w, int *h)
{
    Measure me = measure_at(tm, scale > 0.0 ? scale : 1.0);
    if (head < 0) heads_page(&me, L, T, mat, w, h);
    else heatmap_page(&me, L, T, mat, head, w, h);
}

// ---------------------------------------------------------------------------------------------------
// Entry points

static const SceneExtras NO_EXTRAS = {NULL, NULL, NULL, false, NULL, NULL, NULL, NULL};

static void ctx_init(Ctx *c, Scene *s, const ViewState *st, const Lesson *L, const Trace *T, const TextMetrics *tm,
                     double u, int num_font, int text_font)
{
    memset(c, 0, sizeof *c);
    c->ex = &NO_EXTRAS;
    c->th = &THEME_LIGHT;
    c->s = s;
    c->st = st;
    c->L = L;
    c->T = T;
    c->tm = tm;
    c->u = u < 0.4 ? 0.4 : u;
    c->num_font = num_font < 8 ? 8 : num_font;
    c->text_font = text_font < 10 ? 10 : text_font;
    c->min_font = 10;
    c->focus = view_focus_cell(st);
    if (c->focus.mat != MAT_NONE && isnan(scene_cell_value(L, T, c->focus))) c->focus.mat = MAT_NONE;
    light_inputs(c);
    s->num_font = c->num_font;
}

static double window_scale(int w, int h)
{
    double sx = w / 1280.0, sy = h / 720.0;
    return sx < sy ? sx : sy;
}

bool scene_build(Scene *s, const ViewState *st, const Lesson *L, const Trace *T, int w, int h, const TextMetrics *tm,
                 const char *banner)
{
    return scene_build_ex(s, st, L, T, NULL, w, h, tm, banner);
}

static int text_font_for(int h)
{
    int f = (int)lround(h * 0.03);
    return f < 11 ? 11 : f;
}

// The main area of one head's stage: the board and, when the stage has one and there is room, the
// heatmap beside it (on a per-head stage, this head's; on Concat and Output, every head's). The board
// always has the room it needs first: the heatmap goes when it would push the board into sub-steps or
// windows it would not need alone.
static void draw_stage_at(Ctx *c, int x, int y, int w, int h);

// The stage at the legible size, or larger when the screen has room: the largest number size (up to
// 1.6 times) that shows the same thing (no new windows or sub-steps, the heatmap kept).
static void draw_stage(Ctx *c, int x, int y, int w, int h)
{
    Scene *s = c->s;
    size_t cmds0 = s->count, text0 = s->text_len, hits0 = s->hit_count;
    int base = c->num_font;
    c->windowed = c->heat_shown = false;
    draw_stage_at(c, x, y, w, h);
    bool windowed = c->windowed, heat = c->heat_shown;
    int subs = s->substeps, sub = s->substep;
    if (windowed || s->oom) return;
    static const double GROW[] = {1.6, 1.45, 1.3, 1.15};
    for (size_t i = 0; i < sizeof GROW / sizeof GROW[0]; i++) {
        s->count = cmds0;
        s->text_len = text0;
        s->hit_count = hits0;
        c->num_font = (int)lround(base * GROW[i]);
        c->windowed = c->heat_shown = false;
        draw_stage_at(c, x, y, w, h);
        if (!c->windowed && c->heat_shown == heat && s->substeps == subs && s->substep == sub) {
            s->num_font = c->num_font;
            c->num_font = base;
            return;
        }
    }
    s->count = cmds0;
    s->text_len = text0;
    s->hit_count = hits0;
    c->num_font = base;
    c->windowed = c->heat_shown = false;
    draw_stage_at(c, x, y, w, h);
}

static void draw_stage_at(Ctx *c, int x, int y, int w, int h)
{
    const ViewState *st = c->st;
    MatId m = model_stage_heatmap(&c->L->params, view_stage(st));
    const StageInfo *si = stage_info(view_stage(st));
    bool per_head = si && si->results[0] != MAT_NONE && mat_info(si->results[0])->per_head;
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
        for (int r = 0; same && r < part.count; r++)
            for (int k = 0; k < part.rows[r].count; k++)
                if (!part.rows[r].t[k].is_op && box_windowed(&part.rows[r].t[k].box)) same = false;
        if (same) heat_w = tryw;
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
    double range = heat_range(c, m);
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

#define SQRT_SIGN "\xe2\x88\x9a"

// The softmax scale's slider, on the stages it acts on (scaling, mask; softmax when moved): where the scale is between
// 1/(4 d_k) and 4 on a log axis, its stops 1/d_k, 1/√d_k and 1 marked, moved with [ and ].
static bool slider_shown(const Ctx *c)
{
    Stage s = view_stage(c->st);
    // On the softmax once the scale is moved: at the default the board keeps its room for the heatmap.
    return c->st->panel == PANEL_NONE &&
           (s == STAGE_SCALE || s == STAGE_MASK || (s == STAGE_SOFTMAX && c->L->params.scale > 0));
}
static int slider_height(const Ctx *c) { return line_h(c, FONT_REGULAR, c->num_font) + c->num_font / 3; }

static void draw_scale_slider(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    double now = params_scale(p), lo = view_scale_min(p->d_k), hi = VIEW_SCALE_MAX;
    int f = c->num_font;
    char val[64], label[96];
    model_format_value(now, val, sizeof val);
    snprintf(label, sizeof label, TR("scale %s%s"), val, p->scale > 0 ? "" : " = 1/" SQRT_SIGN "d_k");
    int lw = text_at(c, FONT_BOLD, f, c->th->result, x, y + (h - line_h(c, FONT_BOLD, f)) / 2, label);
    const char *keys = c->ex->slide ? "" : "[  ]";
    int kw = keys[0] ? text_w(c, FONT_REGULAR, f, keys) : 0;
    int tx = x + lw + f, tw = w - lw - f - (kw ? kw + f : 0) - f;
    if (tw < 4 * f) return;
    int my = y + h / 2;
    rect(c, tx, my - 1, tw, 3, c->th->muted);
    double span = log(hi) - log(lo);
    const double stops[3] = {1.0 / p->d_k, 1.0 / sqrt((double)p->d_k), 1.0};
    static const char *const names[3] = {"1/d_k", "1/" SQRT_SIGN "d_k", "1"};
    int lf = (int)lround(f * 0.8);
    int last_end = tx - f;
    for (int i = 0; i < 3; i++) {
        if (i > 0 && stops[i] == stops[i - 1]) continue; // d_k = 1: one stop
        int sx = tx + (int)lround((log(stops[i]) - log(lo)) / span * tw);
        int nw = text_w(c, FONT_REGULAR, lf, names[i]), nx = sx - nw / 2;
        rect(c, sx - 1, y + 2, 3, h - 4, c->th->ink);
        if (nx > last_end + f / 4 && nx + nw <= tx + tw + f) { // a label that does not cover its neighbour's
            rect(c, nx - 2, my - line_h(c, FONT_REGULAR, lf) / 2, nw + 4, line_h(c, FONT_REGULAR, lf), c->th->bg);
            text_at(c, FONT_REGULAR, lf, c->th->ink, nx, my - line_h(c, FONT_REGULAR, lf) / 2, names[i]);
            last_end = nx + nw;
        }
    }
    Scene *s = c->s; // where a press or a drag moves the scale (scene_slider_at)
    s->slider_x = tx;
    s->slider_y = y;
    s->slider_w = tw;
    s->slider_h = h;
    s->slider_lo = lo;
    s->slider_hi = hi;
    for (int i = 0; i < 3; i++) s->slider_stops[i] = stops[i];
    int kx = tx + (int)lround((log(now < lo ? lo : now > hi ? hi : now) - log(lo)) / span * tw);
    int kwid = f / 3 < 6 ? 6 : f / 3;
    rect(c, kx - kwid / 2, y, kwid, h, c->th->result);
    if (kw) text_at(c, FONT_REGULAR, f, c->th->muted, x + w - kw, y + (h - line_h(c, FONT_REGULAR, f)) / 2, keys);
}

// ---------------------------------------------------------------------------------------------------
// The shuffle test (key X): the outputs of the lesson and of its tokens reversed, side by side, and whether the
// rows only moved. The session computed both traces (core: params_shuffle); the scene shows them.

static void draw_shuffle(Ctx *c, int x, int y, int w, int h)
{
    const SessionShuffle *sh = c->ex->shuffle;
    if (!sh) {
        text_in(c, FONT_REGULAR, c->text_font, c->th->muted, x, y, w, h, CENTER,
                TR("The shuffled lesson could not be computed (see the banner)."));
        return;
    }
    const AttnParams *p = &c->L->params;
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
    int f = c->text_font, lh = line_h(c, FONT_BOLD, f) + c->num_font / 4;
    char buf[600], fitted[600], num[64];
    // Line 1: the two orders (Shift+X: the next reordering, view_shuffle_perm).
    bool reversed = true;
    int a = -1, b = -1;
    for (int i = 0; i < p->n; i++) {
        reversed = reversed && sh->perm[i] == p->n - 1 - i;
        if (sh->perm[i] != i) *(a < 0 ? &a : &b) = i;
    }
    char head[200];
    if (reversed || a < 0 || b < 0) snprintf(head, sizeof head, "%s", TR("The tokens reversed:  "));
    else snprintf(head, sizeof head, TR("\"%s\" and \"%s\" swapped:  "), c->L->tokens[a], c->L->tokens[b]);
    size_t used = (size_t)snprintf(buf, sizeof buf, "%s", head);
    for (int i = 0; i < p->n && used < sizeof buf; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? " " : "", c->L->tokens[i]);
    if (used < sizeof buf) used += (size_t)snprintf(buf + used, sizeof buf - used, "  \xe2\x86\x92  ");
    for (int i = 0; i < p->n && used < sizeof buf; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? " " : "", sh->lesson.tokens[i]);
    fit_text(c, FONT_BOLD, f, buf, w, fitted, sizeof fitted);
    text_in(c, FONT_BOLD, f, c->th->ink, x, y, w, lh, LEFT, fitted);
    // Line 2: the verdict, with the largest difference between a token's two output rows.
    model_format_value(sh->difference, num, sizeof num);
    if (sh->same)
        snprintf(buf, sizeof buf, TR("%s: each token's row is the same, only moved \xe2\x80\x94 largest difference %s"),
                 p->positions == POS_NONE ? TR("Without positions") : TR("The rows only moved"), num);
    else
        snprintf(buf, sizeof buf, TR("%s: the rows change \xe2\x80\x94 largest difference between a token's two rows %s"),
                 p->positions != POS_NONE ? TR("With positions") : p->mask == MASK_CAUSAL ? TR("With the causal mask") : TR("Changed"),
                 num);
    fit_text(c, FONT_BOLD, f, buf, w, fitted, sizeof fitted);
    text_in(c, FONT_BOLD, f, c->th->result, x, y + lh, w, lh, LEFT, fitted);
    // The two outputs on one row, one colour scale, windowed like the board when they do not fit.
    GridStyle g;
    grid_style(c, &g);
    Arrangement arr;
    memset(&arr, 0, sizeof arr);
    arr.count = 1;
    BoardRow *row = &arr.rows[0];
    row->count = 3;
    box_init(&orig, &g, &row->t[0].box, MAT_OUTPUT, 0, false);
    row->t[1].is_op = true;
    snprintf(row->t[1].op, sizeof row->t[1].op, "%s", TR("vs"));
    box_init(&shuf, &g, &row->t[2].box, MAT_OUTPUT, 0, true);
    double range = row->t[0].box.range > row->t[2].box.range ? row->t[0].box.range : row->t[2].box.range;
    row->t[0].box.range = row->t[2].box.range = range;
    int cw = row->t[0].box.cell_w > row->t[2].box.cell_w ? row->t[0].box.cell_w : row->t[2].box.cell_w;
    int lw2 = row->t[0].box.label_w > row->t[2].box.label_w ? row->t[0].box.label_w : row->t[2].box.label_w;
    row->t[0].box.cell_w = row->t[2].box.cell_w = cw;
    row->t[0].box.label_w = row->t[2].box.label_w = lw2;
    row->t[0].box.title = TR("Output");
    row->t[2].box.title = TR("Output, tokens reordered");
    int oy = y + 2 * lh + c->num_font / 3, oh = y + h - oy;
    window_to_fit(c, &g, &arr, w, oh);
    int row_w = row_width(c, &g, row);
    int xx = x + (w - row_w) / 2;
    size_t hits = c->s->hit_count;
    draw_matrix(&orig, &g, &row->t[0].box, xx, oy);
    xx += box_width(&g, &row->t[0].box) + g.gap;
    int cells_top = oy + g.title_h + g.col_label_h, cells_h = row->t[0].box.nr * row->t[0].box.cell_h;
    text_in(c, FONT_BOLD, g.op_font, c->th->muted, xx + g.gap, cells_top, op_width(c, &g, TR("vs")) - 2 * g.gap, cells_h,
            CENTER, TR("vs"));
    xx += op_width(c, &g, TR("vs"));
    draw_matrix(&shuf, &g, &row->t[2].box, xx, oy);
    c->s->hit_count = hits; // the panel's cells answer no hover (the shuffled ones are not the lesson's)
}

// ---------------------------------------------------------------------------------------------------
// Training (issue 15): under the header, the step and the loss, the loss curve (log axis) with the step shown
// marked, and the saved checkpoints as ticks along its foot, the one shown as a knob (J / L move it).

static bool training_shown(const Ctx *c)
{
    return c->ex->train && c->ex->train->active && c->ex->train->tr.loss_count > 0 && c->st->panel == PANEL_NONE;
}
static int training_height(const Ctx *c) { return 2 * line_h(c, FONT_REGULAR, c->num_font) + c->num_font / 3; }

static void draw_training(Ctx *c, int x, int y, int w, int h)
{
    const SessionTrain *t = c->ex->train;
    const Trainer *tr = &t->tr;
    int f = c->num_font, lh = line_h(c, FONT_REGULAR, f);
    int shown = t->shown >= 0 ? tr->checkpoints[t->shown].step : tr->step;
    int known = tr->loss_count; // loss[0 .. known)
    double loss_shown = shown < known ? tr->loss[shown] : tr->loss[known - 1];
    char line1[160], line2[160], num[64], start[64];
    snprintf(line1, sizeof line1,
             t->running ? TR("Training: step %d / %d") : shown < tr->step ? TR("Checkpoint: step %d / %d") : TR("Paused: step %d / %d"),
             shown, tr->spec.steps);
    model_format_value(loss_shown, num, sizeof num);
    if (loss_shown < 0.001) snprintf(num, sizeof num, "%.2e", loss_shown);
    model_format_value(tr->loss[0], start, sizeof start);
    snprintf(line2, sizeof line2, TR("loss %s (from %s)"), num, start);
    int w1 = text_w(c, FONT_BOLD, f, line1), w2 = text_w(c, FONT_REGULAR, f, line2);
    int left = (w1 > w2 ? w1 : w2) + f;
    text_at(c, FONT_BOLD, f, c->th->result, x, y, line1);
    text_at(c, FONT_REGULAR, f, c->th->ink, x, y + lh, line2);
    const char *keys = c->ex->slide ? "" : "T  J L  Z  V";
    int kw = keys[0] ? text_w(c, FONT_REGULAR, f, keys) : 0;
    int px0 = x + left, pw = w - left - (kw ? kw + f : 0);
    if (pw < 6 * f) return;
    int py0 = y + 2, ph = h - f / 2 - 4; // the plot; the checkpoint ticks below it
    frame(c, px0, py0, pw, ph, 1, c->th->grid);
    // log10 of the loss from the smallest to the largest known (at least one decade)
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < known; i++)
        if (tr->loss[i] > 0) {
            double v = log10(tr->loss[i]);
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    if (!(hi >= lo)) lo = hi = 0;
    if (hi - lo < 1) lo = hi - 1;
    int steps = tr->spec.steps > 0 ? tr->spec.steps : 1;
    int prev_x = -1, prev_y = 0;
    for (int col = 0; col < pw - 2; col++) { // one point per pixel column: the loss at that step
        int k = (int)((double)col / (pw - 3 > 0 ? pw - 3 : 1) * steps);
        if (k >= known) break;
        double v = tr->loss[k] > 0 ? log10(tr->loss[k]) : lo;
        int yy = py0 + 1 + (int)lround((hi - v) / (hi - lo) * (ph - 3));
        int xx = px0 + 1 + col;
        if (prev_x >= 0) {
            DrawCmd *d = scene_push(c->s, CMD_LINE, prev_x, prev_y, xx - prev_x, yy - prev_y, c->th->result);
            if (d) d->thickness = 2;
        }
        prev_x = xx;
        prev_y = yy;
    }
    c->s->train_x = px0 + 1;
    c->s->train_w = pw - 3;
    c->s->train_y = py0;
    c->s->train_h = h - (py0 - y);
    c->s->train_steps = steps;
    int sx = px0 + 1 + (int)lround((double)shown / steps * (pw - 3));
    rect(c, sx - 1, py0, 2, ph, c->th->ink);
    // the checkpoints: a tick each, the one shown (or the newest weights) a knob
    int ty = py0 + ph + 2, thh = h - (ty - y);
    for (int i = 0; i < tr->checkpoint_count; i++) {
        int cx = px0 + 1 + (int)lround((double)tr->checkpoints[i].step / steps * (pw - 3));
        rect(c, cx, ty, 1, thh > 2 ? thh - 2 : 1, c->th->muted);
    }
    int kwid = f / 3 < 6 ? 6 : f / 3;
    rect(c, sx - kwid / 2, ty, kwid, thh, c->th->result);
    if (kw) text_at(c, FONT_REGULAR, f, c->th->muted, x + w - kw, y + (h - lh) / 2, keys);
}

bool scene_train_at(const Scene *s, int x, int y, int *step)
{
    if (s->train_w <= 0 || y < s->train_y || y >= s->train_y + s->train_h || x < s->train_x - s->train_h / 2 ||
        x > s->train_x + s->train_w + s->train_h / 2)
        return false;
    double t = (double)(x - s->train_x) / s->train_w;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    *step = (int)lround(t * s->train_steps);
    return true;
}

bool scene_stage_at(const Scene *s, int x, int y, int *stage_index)
{
    if (s->strip_n <= 0 || s->strip_seg <= 0 || y < s->strip_y || y >= s->strip_y + s->strip_h || x < s->strip_x)
        return false;
    int step = s->strip_seg + s->strip_gap, i = (x - s->strip_x) / step;
    if (i >= s->strip_n || x - s->strip_x - i * step >= s->strip_seg) return false; // past the end, or in a gap
    *stage_index = i;
    return true;
}

bool scene_slider_at(const Scene *s, int x, int y, double *scale)
{
    int pad = s->slider_h / 2;
    if (s->slider_w <= 0 || y < s->slider_y || y >= s->slider_y + s->slider_h || x < s->slider_x - pad ||
        x > s->slider_x + s->slider_w + pad)
        return false;
    double t = (double)(x - s->slider_x) / s->slider_w;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double v = exp(log(s->slider_lo) + t * (log(s->slider_hi) - log(s->slider_lo)));
    for (int i = 0; i < 3; i++) { // near a stop: the stop itself (1/sqrt(d_k) is the default, exactly)
        double sx = s->slider_x + (log(s->slider_stops[i]) - log(s->slider_lo)) / (log(s->slider_hi) - log(s->slider_lo)) *
                                      s->slider_w;
        if (fabs(sx - x) <= s->slider_h / 4.0) v = s->slider_stops[i];
    }
    *scale = v;
    return true;
}

bool scene_build_ex(Scene *s, const ViewState *st, const Lesson *L, const Trace *T, const SceneExtras *ex, int w, int h,
                    const TextMetrics *tm, const char *banner)
{
    scene_clear(s);
    s->width = w;
    s->height = h;
    s->substeps = 1;
    s->substep = 0;
    s->pan_span_x = s->pan_span_y = 0;
    s->slider_w = 0;
    s->train_w = 0;
    s->strip_n = 0;
    Ctx c;
    double zoom = st->zoom > 0.0 ? st->zoom : 1.0;
    ctx_init(&c, s, st, L, T, tm, window_scale(w, h), scene_number_font(h), text_font_for(h));
    if (ex) c.ex = ex;
    c.th = st->dark ? &THEME_DARK : st->colormap == COLORMAP_GREY ? &THEME_PRINT : &THEME_LIGHT;
    if (c.ex->theme) c.th = c.ex->theme;
    s->background = c.th->bg;
    rect(&c, 0, 0, w, h, c.th->bg);
    int margin = c.num_font * 2 / 3;
    int y = 0;
    if (banner && banner[0]) {
        int bh = 0;
        draw_banner(&c, w, banner, &bh);
        y += bh;
    }
    y += c.num_font / 4;
    // The header is measured first and drawn last: its strip names the sub-step the board chose.
    int hh = 0, header_y = y;
    size_t cmds0 = s->count, text0 = s->text_len, hits0 = s->hit_count;
    draw_header(&c, margin, y, w - 2 * margin, &hh);
    s->count = cmds0;
    s->text_len = text0;
    s->hit_count = hits0;
    y += hh + c.num_font / 4;
    if (slider_shown(&c)) {
        int sh = slider_height(&c);
        draw_scale_slider(&c, margin, y, w - 2 * margin, sh);
        y += sh + c.num_font / 4;
    }
    if (training_shown(&c)) {
        int th = training_height(&c);
        draw_training(&c, margin, y, w - 2 * margin, th);
        y += th + c.num_font / 4;
    }
    int footer_h = draw_footer(&c, 0, 0, w - 2 * margin, false);
    int footer_y = h - c.num_font / 4 - footer_h;
    int explain_h = st->panel == PANEL_COMPARE || st->panel == PANEL_SHUFFLE ? 0 : explain_height(&c);
    int explain_y = footer_y - c.num_font / 4 - explain_h;
    draw_footer(&c, margin, footer_y, w - 2 * margin, true);
    int main_h = explain_y - c.num_font / 3 - y;
    int main_w = w - 2 * margin;
    if (main_h > 0) {
        if (st->panel == PANEL_COMPARE) {
            draw_compare(&c, margin, y, main_w, main_h);
        } else if (st->panel == PANEL_SHUFFLE) {
            draw_shuffle(&c, margin, y, main_w, main_h);
        } else {
            // Zoom: the board is laid out zoom times larger and the window shows the part the pan points at.
            int vw = (int)lround(main_w * zoom), vh = (int)lround(main_h * zoom);
            int ox = margin - (int)lround((vw - main_w) * (zoom > 1.0 ? st->pan_x : 0.5));
            int oy = y - (int)lround((vh - main_h) * (zoom > 1.0 ? st->pan_y : 0.5));
            s->pan_span_x = vw > main_w ? vw - main_w : 0;
            s->pan_span_y = vh > main_h ? vh - main_h : 0;
            if (zoom < 1.0) {
                s->pan_span_x = s->pan_span_y = 0;
                vw = main_w;
                vh = main_h;
                ox = margin;
                oy = y;
            }
            c.num_font = (int)lround(c.num_font * zoom);
            if (c.num_font < 8) c.num_font = 8;
            s->num_font = c.num_font;
            hits0 = s->hit_count;
            if (zoom > 1.0) scene_push(s, CMD_CLIP, margin, y, main_w, main_h, c.th->bg);
            if (st->view == VIEW_ALL_HEADS) draw_all_heads(&c, ox, oy, vw, vh);
            else draw_stage(&c, ox, oy, vw, vh);
            if (zoom > 1.0) {
                scene_push(s, CMD_CLIP, 0, 0, 0, 0, c.th->bg);
                // Cells panned out of sight answer no hover.
                for (size_t i = hits0; i < s->hit_count; i++) {
                    HitRegion *r = &s->hits[i];
                    int x0 = r->x > margin ? r->x : margin, y0 = r->y > y ? r->y : y;
                    int x1 = r->x + r->w < margin + main_w ? r->x + r->w : margin + main_w;
                    int y1 = r->y + r->h < y + main_h ? r->y + r->h : y + main_h;
                    r->x = x0;
                    r->y = y0;
                    r->w = x1 > x0 ? x1 - x0 : 0;
                    r->h = y1 > y0 ? y1 - y0 : 0;
                }
            }
            c.num_font = scene_number_font(h);
        }
    }
    draw_header(&c, margin, header_y, w - 2 * margin, &hh);
    if (explain_h > 0) draw_explain(&c, margin, explain_y, w - 2 * margin, explain_h); // names the sub-step
    if (st->panel == PANEL_COST) draw_cost(&c, w, h);
    if (st->help) draw_help(&c, w, h);
    return !s->oom;
}

bool scene_build_part(Scene *s, ScenePart part, const ViewState *st, const Lesson *L, const Trace *T, int w, int h,
                      double scale, const TextMetrics *tm)
{
    return scene_build_part_ex(s, part, st, L, T, NULL, w, h, scale, tm);
}

bool scene_build_part_ex(Scene *s, ScenePart part, const ViewState *st, const Lesson *L, const Trace *T,
                         const SceneExtras *ex, int w, int h, double scale, const TextMetrics *tm)
{
    if (part == SCENE_PART_WINDOW) return scene_build_ex(s, st, L, T, ex, w, h, tm, NULL);
    scene_clear(s);
    s->width = w;
    s->height = h;
    s->substeps = 1;
    s->substep = 0;
    Ctx c;
    double u = scale > 0.0 ? scale : window_scale(w, h);
    ctx_init(&c, s, st, L, T, tm, u, scene_number_font((int)lround(720 * u)), text_font_for((int)lround(720 * u)));
    if (ex) c.ex = ex;
    if (c.ex->theme) c.th = c.ex->theme;
    s->background = c.th->bg;
    rect(&c, 0, 0, w, h, c.th->bg);
    int m8 = px(&c, 8);
    MatId m = model_stage_heatmap(&L->params, view_stage(st));
    if (m == MAT_NONE) m = MAT_WEIGHTS;
    switch (part) {
    case SCENE_PART_BOARD: draw_board(&c, m8, m8, w - 2 * m8, h - 2 * m8); break;
    case SCENE_PART_HEATMAP: {
        int bar = colorbar_width(&c, m);
        int gy, gh;
        draw_heatmap(&c, m, st->head, heat_range(&c, m), m8, m8, w - bar - 3 * m8, h - 2 * m8, false, false, &gy, &gh,
                     NULL);
        draw_colorbar(&c, m, heat_range(&c, m), w - bar - m8, gy, bar, gh);
        break;
    }
    case SCENE_PART_ALL_HEADS: {
        ViewState all = *st;
        if (model_stage_heatmap(&L->params, view_stage(st)) == MAT_NONE) all.stage_index = all.stage_count - 1;
        c.st = &all;
        draw_all_heads(&c, m8, m8, w - 2 * m8, h - 2 * m8);
        c.st = st;
        break;
    }
    default: break;
    }
    return !s->oom;
}
