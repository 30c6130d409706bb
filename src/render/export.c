// Slide export: lays out heatmap images (and takes the window's board), renders them offscreen with SDL's
// software renderer into PNG bytes or writes them as SVG text, then writes the files all or nothing.
#define _POSIX_C_SOURCE 200809L // open, fsync, rename, mkdir
#include "export.h"

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "draw_sdl.h"
#include "svg.h"

// Token labels are cut to their buffers on purpose.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static void fail(ExportError *err, bool io, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void fail(ExportError *err, bool io, const char *fmt, ...)
{
    if (!err) return;
    err->io = io;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

void export_request_defaults(ExportRequest *r)
{
    memset(r, 0, sizeof *r);
    r->formats = EXPORT_PNG;
    r->what = EXPORT_WHAT_HEATMAPS;
    r->stage = STAGE_SOFTMAX;
    r->scale = 2.0;
    r->background = EXPORT_BG_WHITE;
    r->colormap = COLORMAP_VIRIDIS;
    r->head = 0;
}

void export_result_free(ExportResult *r)
{
    for (size_t i = 0; i < r->count; i++) free(r->paths[i]);
    free(r->paths);
    r->paths = NULL;
    r->count = 0;
}

void export_buffer_free(ExportBuffer *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

// ---------------------------------------------------------------------------------------------------
// Names

void export_slug(const char *title, char *out, size_t cap)
{
    size_t n = 0, limit = cap > 61 ? 60 : (cap ? cap - 1 : 0);
    bool dash = false;
    for (const unsigned char *p = (const unsigned char *)(title ? title : ""); *p && n < limit; p++) {
        unsigned char c = *p;
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && n > 0 && n + 1 < limit) out[n++] = '-';
            dash = false;
            out[n++] = (char)c;
        } else if (c == '\'' || (c == 0xE2 && p[1] == 0x80 && p[2] == 0x99)) { // "BERT's" -> "berts"
            if (c == 0xE2) p += 2;
        } else {
            dash = true;
        }
    }
    if (cap == 0) return;
    if (n == 0) {
        snprintf(out, cap, "lesson");
        return;
    }
    out[n] = '\0';
}

char *export_name_for(const char *lesson_path, const Lesson *lesson, char *out, size_t cap)
{
    if (!lesson_path || !lesson_path[0]) {
        export_slug(lesson ? lesson->title : NULL, out, cap);
        return out;
    }
    const char *base = strrchr(lesson_path, '/');
    base = base ? base + 1 : lesson_path;
    char name[512];
    snprintf(name, sizeof name, "%s", base);
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0) name[n - 5] = '\0';
    export_slug(name, out, cap);
    return out;
}

char *export_default_dir(const char *lesson_path, char *out, size_t cap)
{
    const char *slash = lesson_path ? strrchr(lesson_path, '/') : NULL;
    if (!slash) snprintf(out, cap, "exports");
    else if (slash == lesson_path) snprintf(out, cap, "/exports");
    else snprintf(out, cap, "%.*s/exports", (int)(slash - lesson_path), lesson_path);
    return out;
}

MatId export_stage_matrix(Stage stage, const Lesson *lesson)
{
    switch (stage) {
    case STAGE_INPUT:
    case STAGE_PROJECT: return MAT_NONE;
    case STAGE_SCORES: return MAT_SCORES;
    case STAGE_SCALE: return MAT_SCALED;
    case STAGE_MASK: return lesson->params.mask == MASK_CAUSAL ? MAT_MASKED : MAT_SCALED;
    default: return MAT_WEIGHTS;
    }
}

const char *export_matrix_key(MatId mat)
{
    switch (mat) {
    case MAT_SCORES: return "scores";
    case MAT_SCALED: return "scaled";
    case MAT_MASKED: return "masked";
    case MAT_WEIGHTS: return "weights";
    default: return "matrix";
    }
}

// ---------------------------------------------------------------------------------------------------
// Writing draw commands into a Scene (it is plain data)

typedef struct {
    Scene *s;
    const TextMetrics *tm;
    double k; // pixels per design unit: layout is done at scale 1 and every coordinate multiplied
} Pen;

static int S(const Pen *p, double v) { return (int)lround(v * p->k); }

// Width and line height in design units, measured large so they do not depend on the hinting at one size.
#define MEASURE_PX 64
static double dw(const Pen *p, FontRole f, double size, const char *t)
{
    return p->tm->text_width(p->tm->user, f, MEASURE_PX, t) * size / MEASURE_PX;
}
static double dh(const Pen *p, FontRole f, double size)
{
    return p->tm->line_height(p->tm->user, f, MEASURE_PX) * size / MEASURE_PX;
}

typedef enum { LEFT, CENTER, RIGHT } Align;

// Text aligned in the design box (x, y, w, h), vertically centred; sizes measured at the real pixel size.
static void text_d(Pen *p, FontRole f, double size, Rgba color, double x, double y, double w, double h, Align a,
                   const char *t)
{
    if (!t[0]) return;
    int px = S(p, size) < 4 ? 4 : S(p, size);
    int tw = p->tm->text_width(p->tm->user, f, px, t), th = p->tm->line_height(p->tm->user, f, px);
    int x0 = S(p, x), x1 = S(p, x + w), y0 = S(p, y), y1 = S(p, y + h);
    int tx = a == LEFT ? x0 : a == CENTER ? x0 + (x1 - x0 - tw) / 2 : x1 - tw;
    int ty = y0 + (y1 - y0 - th) / 2;
    scene_push_text(p->s, f, px, color, tx, ty, tw, th, t);
}

// Copies t into buf, cut with "…" so that it measures at most max_w design units.
static void fit_d(const Pen *p, FontRole f, double size, const char *t, double max_w, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", t);
    if (dw(p, f, size, buf) <= max_w) return;
    size_t n = strlen(buf);
    while (n > 0) {
        n--;
        while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80) n--;
        if (n + 4 > cap) continue;
        memcpy(buf + n, "\xe2\x80\xa6", 4);
        if (dw(p, f, size, buf) <= max_w) return;
    }
    buf[0] = '\0';
}

// ---------------------------------------------------------------------------------------------------
// Heatmap images

typedef struct {
    Rgba bg, ink, muted;
    bool draw_bg;
} Palette;

static Palette palette(ExportBackground b)
{
    switch (b) {
    case EXPORT_BG_DARK: return (Palette){{28, 30, 36, 255}, {236, 238, 242, 255}, {170, 176, 188, 255}, true};
    case EXPORT_BG_TRANSPARENT: return (Palette){{255, 255, 255, 0}, {24, 27, 34, 255}, {92, 98, 110, 255}, false};
    default: return (Palette){{255, 255, 255, 255}, {24, 27, 34, 255}, {92, 98, 110, 255}, true};
    }
}

static const Rgba MASKED_FILL = {208, 208, 212, 255}; // as the window: grey with hatching
static const Rgba HATCH_INK = {150, 150, 156, 255};
static const Rgba MASKED_TEXT = {24, 27, 34, 255};

// Design sizes (pixels at scale 1).
#define MARGIN 28.0
#define TITLE_FONT 24.0
#define SUB_FONT 17.0
#define AXIS_FONT 15.0
#define LABEL_FONT 17.0
#define VALUE_FONT 19.0
#define PANEL_TITLE_FONT 19.0
#define TICK_FONT 15.0
#define GAP 2.0          // between cells
#define BAR_W 22.0
#define BAR_GAP 28.0     // grid -> colour bar
#define BAR_MIN_H 120.0  // five ticks with room between them
#define TICK_LEN 6.0
#define LABEL_MAX 180.0  // longest token label before it is cut
#define TITLE_MAX 1400.0

typedef struct {
    Pen pen;
    const Lesson *L;
    const Trace *T;
    const HeatmapSpec *spec;
    Palette pal;
    double range;       // diverging scale: |value| at the ends (shared by all heads)
    double bar_h;       // height of the colour bar (design units)
    // Panel geometry, the same for every head.
    double label_w;     // row-label column (token + padding)
    double col_h;       // column-label row
    double cell_w, cell_h, gap;
    int step_r, step_c; // every k-th label when cells are small
    bool values;        // numbers in the cells
    bool corner;        // "queries ↓" in the corner above the row labels
} Heat;

static bool causal_masked(const Heat *h, int row, int col)
{
    return h->L->params.mask == MASK_CAUSAL && col > row &&
           (h->spec->mat == MAT_MASKED || h->spec->mat == MAT_WEIGHTS);
}

static double cell_value(const Heat *h, int head, int row, int col)
{
    return scene_cell_value(h->L, h->T, (CellRef){h->spec->mat, head, row, col});
}

static Rgba cell_fill(const Heat *h, double v, bool masked)
{
    if (masked || isinf(v)) return MASKED_FILL;
    if (h->spec->mat == MAT_WEIGHTS) return colormap_rgb(h->spec->colormap, v);
    return colormap_diverging(h->spec->colormap, v / h->range);
}

// Sizes the panel so every number and label fits; cells shrink (and the numbers go) only when the grid
// would be wider than max_w or taller than max_h.
static void heat_geometry(Heat *h, double max_w, double max_h)
{
    const Pen *p = &h->pen;
    const AttnParams *a = &h->L->params;
    double tok = 0.0, key = 0.0, val = dw(p, FONT_REGULAR, VALUE_FONT, "0.0000");
    for (int i = 0; i < a->n; i++) tok = fmax(tok, dw(p, FONT_REGULAR, LABEL_FONT, h->L->tokens[i]));
    for (int j = 0; j < a->m; j++) key = fmax(key, dw(p, FONT_REGULAR, LABEL_FONT, h->L->source_tokens[j]));
    tok = fmin(tok, LABEL_MAX);
    key = fmin(key, LABEL_MAX);
    // The widest number: the largest magnitude, signed when some value is negative, or −∞ (digits all
    // have the same width, so only these few are measured).
    double big = 0.0;
    bool neg = false, inf = false;
    for (int hd = 0; hd < a->heads; hd++)
        for (int i = 0; i < a->n; i++)
            for (int j = 0; j < a->m; j++) {
                double v = cell_value(h, hd, i, j);
                if (isinf(v)) inf = true;
                else if (isfinite(v)) big = fmax(big, fabs(v));
                if (v < 0.0) neg = true;
            }
    char buf[64];
    scene_format_value(neg ? -big : big, buf, sizeof buf);
    val = fmax(val, dw(p, FONT_REGULAR, VALUE_FONT, buf));
    if (inf) val = fmax(val, dw(p, FONT_REGULAR, VALUE_FONT, "\xe2\x88\x92\xe2\x88\x9e"));
    if (h->corner) tok = fmax(tok, dw(p, FONT_REGULAR, AXIS_FONT, "queries \xe2\x86\x93"));
    h->label_w = ceil(tok) + 14.0;
    h->col_h = ceil(dh(p, FONT_REGULAR, LABEL_FONT)) + 10.0;
    double vh = dh(p, FONT_REGULAR, VALUE_FONT);
    h->cell_w = ceil(fmax(fmax(val + 24.0, key + 14.0), 56.0));
    h->cell_h = ceil(fmax(vh + 22.0, 46.0));
    h->values = true;
    if (a->m * h->cell_w > max_w) h->cell_w = floor(max_w / a->m * 8.0) / 8.0;
    if (a->n * h->cell_h > max_h) h->cell_h = floor(max_h / a->n * 8.0) / 8.0;
    if (h->cell_w < 1.0) h->cell_w = 1.0;
    if (h->cell_h < 1.0) h->cell_h = 1.0;
    h->gap = h->cell_w >= 8.0 && h->cell_h >= 8.0 ? GAP : 0.0;
    if (h->cell_w < val + 8.0 || h->cell_h < vh + 2.0) h->values = false;
    double lh = dh(p, FONT_REGULAR, LABEL_FONT);
    h->step_r = (int)ceil(lh / h->cell_h);
    h->step_c = (int)ceil((fmin(key, 60.0) + 8.0) / h->cell_w);
    if (h->step_r < 1) h->step_r = 1;
    if (h->step_c < 1) h->step_c = 1;
}

static double grid_w(const Heat *h) { return h->L->params.m * h->cell_w - h->gap; }
static double grid_h(const Heat *h) { return h->L->params.n * h->cell_h - h->gap; }

// One head: column labels, row labels and cells; (gx, gy) is the top-left of the cells.
static void draw_panel(Heat *h, int head, double gx, double gy)
{
    Pen *p = &h->pen;
    const AttnParams *a = &h->L->params;
    char buf[256];
    double lh = dh(p, FONT_REGULAR, LABEL_FONT);
    for (int j = 0; j < a->m; j += h->step_c) {
        double w = h->cell_w * h->step_c - 4.0;
        if (h->step_c > 1 && j + h->step_c > a->m) break; // the last label would run past the grid
        fit_d(p, FONT_REGULAR, LABEL_FONT, h->L->source_tokens[j], w, buf, sizeof buf);
        if (h->step_c == 1) text_d(p, FONT_REGULAR, LABEL_FONT, h->pal.ink, gx + j * h->cell_w, gy - h->col_h, h->cell_w - h->gap, h->col_h - 4.0, CENTER, buf);
        else text_d(p, FONT_REGULAR, LABEL_FONT, h->pal.ink, gx + j * h->cell_w, gy - h->col_h, w, h->col_h - 4.0, LEFT, buf);
    }
    for (int i = 0; i < a->n; i += h->step_r) {
        fit_d(p, FONT_REGULAR, LABEL_FONT, h->L->tokens[i], h->label_w - 14.0, buf, sizeof buf);
        double y = gy + i * h->cell_h, ch = h->cell_h - h->gap;
        if (ch < lh) y -= (lh - ch) / 2.0, ch = lh;
        if (y < gy) y = gy; // not into the column labels
        text_d(p, FONT_REGULAR, LABEL_FONT, h->pal.ink, gx - h->label_w, y, h->label_w - 10.0, ch, RIGHT, buf);
    }
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < a->m; j++) {
            double v = cell_value(h, head, i, j);
            bool masked = causal_masked(h, i, j);
            Rgba fill = cell_fill(h, v, masked);
            int x0 = S(p, gx + j * h->cell_w), y0 = S(p, gy + i * h->cell_h);
            int x1 = S(p, gx + (j + 1) * h->cell_w - h->gap), y1 = S(p, gy + (i + 1) * h->cell_h - h->gap);
            if (x1 <= x0) x1 = x0 + 1;
            if (y1 <= y0) y1 = y0 + 1;
            scene_push(p->s, CMD_RECT, x0, y0, x1 - x0, y1 - y0, fill);
            scene_push_hit(p->s, x0, y0, x1 - x0, y1 - y0, (CellRef){h->spec->mat, head, i, j}, head);
            if (masked || isinf(v)) scene_push(p->s, CMD_HATCH, x0, y0, x1 - x0, y1 - y0, HATCH_INK);
            if (h->values) {
                scene_format_value(v, buf, sizeof buf);
                Rgba ink = masked || isinf(v) ? MASKED_TEXT : colormap_text_on(fill);
                text_d(p, FONT_REGULAR, VALUE_FONT, ink, gx + j * h->cell_w, gy + i * h->cell_h, h->cell_w - h->gap,
                       h->cell_h - h->gap, CENTER, buf);
            }
        }
}

// Tick values of the colour bar: 0, 0.25 ... 1 for weights, round numbers in [-range, range] otherwise;
// as many as fit on the bar with a free line between their labels.
static int bar_ticks(const Heat *h, double *ticks, int max, int *decimals)
{
    int fit = (int)floor(h->bar_h / (1.8 * dh(&h->pen, FONT_REGULAR, TICK_FONT))) + 1, n = 0;
    if (fit < 3) fit = 3;
    if (fit > max) fit = max;
    if (h->spec->mat == MAT_WEIGHTS) {
        double step = fit >= 5 ? 0.25 : 0.5;
        for (int i = 0; i * step <= 1.0 + 1e-9; i++) ticks[n++] = i * step;
        *decimals = 2;
        return n;
    }
    // The smallest step of 1, 2, 2.5 or 5 times a power of ten that gives no more than `fit` ticks.
    const double mult[] = {1.0, 2.0, 2.5, 5.0};
    double mag = pow(10.0, floor(log10(h->range)) - 2.0), step = mag;
    for (int k = 0; k < 40; k++) {
        step = mult[k % 4] * mag * pow(10.0, k / 4);
        if (2 * (int)floor(h->range / step + 1e-9) + 1 <= fit) break;
    }
    *decimals = 0;
    while (*decimals < 4 && fabs(step * pow(10.0, *decimals) - round(step * pow(10.0, *decimals))) > 1e-6) (*decimals)++;
    int k = (int)floor(h->range / step + 1e-9);
    for (int i = -k; i <= k && n < max; i++) ticks[n++] = i * step;
    return n;
}

static void tick_label(double v, int decimals, char *buf, size_t cap)
{
    if (fabs(v) < 1e-12) v = 0.0;
    snprintf(buf, cap, "%s%.*f", v < 0 ? "\xe2\x88\x92" : "", decimals, fabs(v));
}

static double bar_label_width(const Heat *h)
{
    double t[32], w = 0.0;
    int dec, n = bar_ticks(h, t, 32, &dec);
    char buf[64];
    for (int i = 0; i < n; i++) {
        tick_label(t[i], dec, buf, sizeof buf);
        w = fmax(w, dw(&h->pen, FONT_REGULAR, TICK_FONT, buf));
    }
    return ceil(w);
}

static double bar_total_w(const Heat *h) { return BAR_W + TICK_LEN + 4.0 + bar_label_width(h); }

// The colour bar: a smooth ramp (one band per pixel row, at most 256), a frame, ticks and their values.
static void draw_bar(Heat *h, double x, double y, double hgt)
{
    Pen *p = &h->pen;
    int x0 = S(p, x), x1 = S(p, x + BAR_W), y0 = S(p, y), y1 = S(p, y + hgt);
    int rows = y1 - y0, steps = rows < 256 ? rows : 256;
    bool weights = h->spec->mat == MAT_WEIGHTS;
    for (int i = 0; i < steps; i++) {
        double t = 1.0 - (i + 0.5) / steps;
        Rgba c = weights ? colormap_rgb(h->spec->colormap, t) : colormap_diverging(h->spec->colormap, 2.0 * t - 1.0);
        int a = y0 + (int)((long)i * rows / steps), b = y0 + (int)((long)(i + 1) * rows / steps);
        if (b > a) scene_push(p->s, CMD_RECT, x0, a, x1 - x0, b - a, c);
    }
    DrawCmd *fr = scene_push(p->s, CMD_FRAME, x0, y0, x1 - x0, y1 - y0, h->pal.muted);
    if (fr) fr->thickness = S(p, 1.0) < 1 ? 1 : S(p, 1.0);
    double t[32];
    int dec, n = bar_ticks(h, t, 32, &dec);
    double lo = weights ? 0.0 : -h->range, hi = weights ? 1.0 : h->range;
    double lh = dh(p, FONT_REGULAR, TICK_FONT);
    char buf[64];
    for (int i = 0; i < n; i++) {
        double ty = y + (hi - t[i]) / (hi - lo) * hgt;
        int yy = S(p, ty), th = S(p, 1.0) < 1 ? 1 : S(p, 1.0);
        scene_push(p->s, CMD_RECT, x1, yy - th / 2, S(p, x + BAR_W + TICK_LEN) - x1, th, h->pal.muted);
        tick_label(t[i], dec, buf, sizeof buf);
        text_d(p, FONT_REGULAR, TICK_FONT, h->pal.muted, x + BAR_W + TICK_LEN + 4.0, ty - lh / 2.0, 400.0, lh, LEFT, buf);
    }
}

// "A₀", "S₀", "S′₀" with the head's subscript digits.
static void symbol(MatId m, int head, char *buf, size_t cap)
{
    const char *base = m == MAT_WEIGHTS ? "A" : m == MAT_SCORES ? "S" : "S\xe2\x80\xb2";
    snprintf(buf, cap, "%s", base);
    char digits[16];
    snprintf(digits, sizeof digits, "%d", head);
    for (const char *d = digits; *d; d++) {
        size_t len = strlen(buf);
        if (len + 4 > cap) break;
        buf[len] = (char)0xE2;
        buf[len + 1] = (char)0x82;
        buf[len + 2] = (char)(0x80 + (*d - '0'));
        buf[len + 3] = '\0';
    }
}

static const char *matrix_words(MatId m)
{
    switch (m) {
    case MAT_SCORES: return "raw scores";
    case MAT_SCALED: return "scaled scores";
    case MAT_MASKED: return "masked scores";
    default: return "attention weights";
    }
}

// The line under the lesson title: which head, which matrix, and how to read it.
static void subtitle(const Heat *h, int head, char *buf, size_t cap)
{
    const AttnParams *a = &h->L->params;
    MatId m = h->spec->mat;
    char sym[32], q[32], k[32], note[160];
    // Per head: A₀, Q₀, K₀; for all heads: Aᵢ, Qᵢ, Kᵢ.
    const char *sub_i = "\xe1\xb5\xa2";
    if (head >= 0) {
        symbol(m, head, sym, sizeof sym);
        symbol(MAT_SCORES, head, q, sizeof q);
        symbol(MAT_SCORES, head, k, sizeof k);
        q[0] = 'Q';
        k[0] = 'K';
    } else {
        snprintf(sym, sizeof sym, "%s%s", m == MAT_WEIGHTS ? "A" : m == MAT_SCORES ? "S" : "S\xe2\x80\xb2", sub_i);
        snprintf(q, sizeof q, "Q%s", sub_i);
        snprintf(k, sizeof k, "K%s", sub_i);
    }
    switch (m) {
    case MAT_SCORES: snprintf(note, sizeof note, "%s = %s%s\xe1\xb5\x80", sym, q, k); break;
    case MAT_SCALED: snprintf(note, sizeof note, "%s = %s%s\xe1\xb5\x80 / \xe2\x88\x9a%d", sym, q, k, a->d_k); break;
    case MAT_MASKED: snprintf(note, sizeof note, "%s + M: \xe2\x88\x92\xe2\x88\x9e where a query may not look ahead", sym); break;
    default: snprintf(note, sizeof note, "%s: each row sums to 1", sym); break;
    }
    if (head >= 0)
        snprintf(buf, cap, "Head %d of %d \xc2\xb7 %s  %s", head, a->heads, matrix_words(m), note);
    else
        snprintf(buf, cap, "%d heads \xc2\xb7 %s  %s \xc2\xb7 queries \xe2\x86\x93 keys \xe2\x86\x92", a->heads,
                 matrix_words(m), note);
}

static double heat_range(const Heat *h)
{
    double r = 0.0;
    const AttnParams *a = &h->L->params;
    for (int hd = 0; hd < a->heads; hd++)
        for (int i = 0; i < a->n; i++)
            for (int j = 0; j < a->m; j++) {
                double v = cell_value(h, hd, i, j);
                if (isfinite(v) && fabs(v) > r) r = fabs(v);
            }
    return r > 0.0 ? r : 1.0;
}

// Width and height of the all-heads grid with `cols` panels per row (design units).
static void grid_size(const Heat *h, int cols, double title_h, double *w, double *hgt)
{
    int heads = h->L->params.heads, rows = (heads + cols - 1) / cols;
    double pw = h->label_w + grid_w(h), ph = title_h + h->col_h + grid_h(h);
    *w = cols * pw + (cols - 1) * 40.0;
    *hgt = rows * ph + (rows - 1) * 32.0;
}

bool export_build_heatmap(Scene *s, const HeatmapSpec *spec, const Lesson *L, const Trace *T, const TextMetrics *tm)
{
    scene_clear(s);
    Heat h;
    memset(&h, 0, sizeof h);
    h.pen = (Pen){s, tm, 1.0};
    h.L = L;
    h.T = T;
    h.spec = spec;
    h.pal = palette(spec->background);
    h.range = heat_range(&h);
    bool grid = spec->head < 0;
    h.corner = !grid;
    const AttnParams *a = &L->params;
    if (grid) heat_geometry(&h, 900.0, 600.0);
    else heat_geometry(&h, 1600.0, 1000.0);
    Pen *p = &h.pen;
    h.bar_h = fmax(grid_h(&h), BAR_MIN_H);

    char title[256], sub[320];
    fit_d(p, FONT_BOLD, TITLE_FONT, L->title ? L->title : "", TITLE_MAX, title, sizeof title);
    subtitle(&h, spec->head, sub, sizeof sub);
    double title_h = ceil(dh(p, FONT_BOLD, TITLE_FONT)), sub_h = ceil(dh(p, FONT_REGULAR, SUB_FONT));
    double axis_h = grid ? 0.0 : ceil(dh(p, FONT_REGULAR, AXIS_FONT)) + 2.0;
    double top = MARGIN + title_h + 4.0 + sub_h + 18.0; // where the heatmap block starts
    double ptitle_h = grid ? ceil(dh(p, FONT_BOLD, PANEL_TITLE_FONT)) + 6.0 : 0.0;

    // The block of panels: one, or a grid whose shape is closest to 16:9.
    int cols = 1;
    double block_w, block_h;
    if (grid) {
        double best = 1e300;
        for (int c = 1; c <= a->heads; c++) {
            double w, hh;
            grid_size(&h, c, ptitle_h, &w, &hh);
            double total_w = 2 * MARGIN + w + BAR_GAP + bar_total_w(&h), total_h = top + hh + MARGIN;
            double score = fabs(log(total_w / total_h / (16.0 / 9.0)));
            if (score < best - 1e-9) {
                best = score;
                cols = c;
            }
        }
        grid_size(&h, cols, ptitle_h, &block_w, &block_h);
    } else {
        block_w = h.label_w + grid_w(&h);
        block_h = axis_h + h.col_h + grid_h(&h);
    }
    double bar_x = MARGIN + block_w + BAR_GAP;
    double cells_top = top + axis_h + ptitle_h + h.col_h; // first row of cells
    double bar_h = h.bar_h;
    double tick_lh = dh(p, FONT_REGULAR, TICK_FONT);
    double W = ceil(fmax(bar_x + bar_total_w(&h) + MARGIN,
                         fmax(dw(p, FONT_BOLD, TITLE_FONT, title), dw(p, FONT_REGULAR, SUB_FONT, sub)) + 2 * MARGIN));
    double H = ceil(fmax(top + block_h, cells_top + bar_h + tick_lh / 2.0) + MARGIN);
    // Never larger than EXPORT_MAX_SIDE pixels on a side.
    double k = spec->scale > 0.0 ? spec->scale : 1.0;
    if (W * k > EXPORT_MAX_SIDE) k = floor(EXPORT_MAX_SIDE / W * 64.0) / 64.0;
    if (H * k > EXPORT_MAX_SIDE) k = floor(EXPORT_MAX_SIDE / H * 64.0) / 64.0;
    p->k = k;
    s->width = S(p, W);
    s->height = S(p, H);
    s->background = h.pal.bg;

    if (h.pal.draw_bg) scene_push(s, CMD_RECT, 0, 0, s->width, s->height, h.pal.bg);
    text_d(p, FONT_BOLD, TITLE_FONT, h.pal.ink, MARGIN, MARGIN, W - 2 * MARGIN, title_h, LEFT, title);
    text_d(p, FONT_REGULAR, SUB_FONT, h.pal.muted, MARGIN, MARGIN + title_h + 4.0, W - 2 * MARGIN, sub_h, LEFT, sub);
    const char *bar_name = spec->mat == MAT_WEIGHTS ? "weight" : "score";
    text_d(p, FONT_REGULAR, AXIS_FONT, h.pal.muted, bar_x, cells_top - h.col_h, 200.0, h.col_h - 4.0, LEFT, bar_name);
    if (grid) {
        for (int hd = 0; hd < a->heads; hd++) {
            double pw = h.label_w + grid_w(&h) + 40.0, ph = ptitle_h + h.col_h + grid_h(&h) + 32.0;
            double px0 = MARGIN + (hd % cols) * pw, py0 = top + (hd / cols) * ph;
            char name[32];
            snprintf(name, sizeof name, "Head %d", hd);
            text_d(p, FONT_BOLD, PANEL_TITLE_FONT, h.pal.ink, px0 + h.label_w, py0, grid_w(&h), ptitle_h - 6.0, LEFT, name);
            draw_panel(&h, hd, px0 + h.label_w, py0 + ptitle_h + h.col_h);
        }
    } else {
        double gx = MARGIN + h.label_w;
        text_d(p, FONT_REGULAR, AXIS_FONT, h.pal.muted, gx, top, grid_w(&h), axis_h, LEFT, "keys \xe2\x86\x92");
        text_d(p, FONT_REGULAR, AXIS_FONT, h.pal.muted, MARGIN, cells_top - h.col_h, h.label_w - 10.0, h.col_h - 4.0,
               RIGHT, "queries \xe2\x86\x93");
        draw_panel(&h, spec->head, gx, cells_top);
    }
    draw_bar(&h, bar_x, cells_top, bar_h);
    return !s->oom;
}

// ---------------------------------------------------------------------------------------------------
// Boards: the window's screen, on the background asked for

static bool is_grey(Rgba c)
{
    int mx = c.r > c.g ? (c.r > c.b ? c.r : c.b) : (c.g > c.b ? c.g : c.b);
    int mn = c.r < c.g ? (c.r < c.b ? c.r : c.b) : (c.g < c.b ? c.g : c.b);
    return mx - mn < 40;
}

static unsigned char clamp8(double v) { return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : lround(v)); }

// Ink that read on the light background, made to read on the dark one: greys flip their lightness,
// colours mix with white.
static Rgba lighten(Rgba c)
{
    double y = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
    if (is_grey(c)) {
        double ny = 255.0 - y * 0.85;
        return (Rgba){clamp8(ny + (c.r - y)), clamp8(ny + (c.g - y)), clamp8(ny + (c.b - y)), c.a};
    }
    return (Rgba){clamp8(c.r + (255 - c.r) * 0.4), clamp8(c.g + (255 - c.g) * 0.4), clamp8(c.b + (255 - c.b) * 0.4), c.a};
}

static int cmp_hit_pos(const void *a, const void *b)
{
    const HitRegion *x = *(const HitRegion *const *)a, *y = *(const HitRegion *const *)b;
    if (x->y != y->y) return x->y < y->y ? -1 : 1;
    if (x->x != y->x) return x->x < y->x ? -1 : 1;
    return 0;
}

static bool is_cell_rect(const HitRegion **cells, size_t n, const DrawCmd *c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cells[mid]->y < c->y || (cells[mid]->y == c->y && cells[mid]->x < c->x)) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < n && cells[i]->y == c->y && cells[i]->x == c->x; i++)
        if (c->w >= cells[i]->w - 2 && c->w <= cells[i]->w) return true;
    return false;
}

// Replaces the window's background. Dark: the light neutral panels become dark ones, and ink drawn on
// them (not on cells) is lightened; cells keep their colours. Returns false when memory ran out.
static bool board_background(Scene *s, ExportBackground bg)
{
    const Rgba white = {255, 255, 255, 255}, dark = palette(EXPORT_BG_DARK).bg;
    bool *on_bg = NULL;
    const HitRegion **cells = NULL;
    size_t ncells = 0;
    if (bg == EXPORT_BG_DARK) {
        on_bg = calloc(s->count ? s->count : 1, sizeof *on_bg);
        cells = malloc((s->hit_count ? s->hit_count : 1) * sizeof *cells);
        if (!on_bg || !cells) {
            free(on_bg);
            free(cells);
            return false;
        }
        for (size_t i = 0; i < s->hit_count; i++)
            if (s->hits[i].cell.mat != MAT_NONE) cells[ncells++] = &s->hits[i];
        qsort(cells, ncells, sizeof *cells, cmp_hit_pos);
    }
    // Panels, bars and grid backings are long; the bands of a colour bar are small and stay as they are.
    int long_side = (int)lround(48.0 * s->width / 1280.0);
    for (size_t i = 0; i < s->count; i++) {
        DrawCmd *c = &s->cmds[i];
        bool full = c->kind == CMD_RECT && c->x <= 0 && c->y <= 0 && c->x + c->w >= s->width && c->y + c->h >= s->height;
        if (bg == EXPORT_BG_WHITE) {
            if (full) c->color = white;
            continue;
        }
        if (bg == EXPORT_BG_TRANSPARENT) {
            if (full) c->color.a = 0;
            continue;
        }
        if (full) {
            c->color = dark;
            on_bg[i] = true;
        } else if (c->kind == CMD_RECT) {
            Rgba k = c->color;
            if (is_grey(k) && k.r >= 190 && k.g >= 190 && k.b >= 190 && (c->w >= long_side || c->h >= long_side) &&
                !is_cell_rect(cells, ncells, c)) {
                c->color = (Rgba){clamp8(dark.r + 255 - k.r), clamp8(dark.g + 255 - k.g), clamp8(dark.b + 255 - k.b), k.a};
                on_bg[i] = true;
            }
        } else if (c->kind == CMD_TEXT || c->kind == CMD_FRAME || c->kind == CMD_LINE) {
            // The topmost opaque rectangle under its middle decides what it is drawn on.
            int mx = c->x + c->w / 2, my = c->y + c->h / 2;
            bool under_bg = true;
            for (size_t k = i; k-- > 0;) {
                const DrawCmd *r = &s->cmds[k];
                if (r->kind != CMD_RECT || r->color.a != 255) continue;
                if (mx >= r->x && my >= r->y && mx < r->x + r->w && my < r->y + r->h) {
                    under_bg = on_bg[k];
                    break;
                }
            }
            if (c->kind != CMD_TEXT || under_bg) c->color = lighten(c->color);
        }
    }
    s->background = bg == EXPORT_BG_DARK ? dark : bg == EXPORT_BG_WHITE ? white : (Rgba){255, 255, 255, 0};
    free(on_bg);
    free(cells);
    return true;
}

// The board of export_build_board with what the window shows beyond the lesson (edit marks, the comparison);
// ex may be NULL. A slide has no pointer and no keys: their hints and any status line are left out.
static bool build_board(Scene *s, const ViewState *st, const Lesson *L, const Trace *T, const SceneExtras *ex,
                        double scale, ExportBackground background, const TextMetrics *tm)
{
    ViewState view = *st;
    view.help = false;
    view.zoom = 1.0;
    if (view.panel == PANEL_COST) view.panel = PANEL_NONE;
    double k = scale > 0.0 ? scale : 1.0;
    if (1280.0 * k > EXPORT_MAX_SIDE) k = EXPORT_MAX_SIDE / 1280.0;
    int w = (int)lround(1280.0 * k), h = (int)lround(720.0 * k);
    view.width = w;
    view.height = h;
    SceneExtras slide = {0};
    if (ex) slide = *ex;
    slide.status = NULL;
    slide.slide = true;
    if (view.panel == PANEL_COMPARE && !slide.compare) view.panel = PANEL_NONE; // nothing to compare with
    if (!scene_build_ex(s, &view, L, T, &slide, w, h, tm, NULL)) return false;
    return board_background(s, background);
}

bool export_build_board(Scene *s, const ViewState *st, const Lesson *L, const Trace *T, double scale,
                        ExportBackground background, const TextMetrics *tm)
{
    return build_board(s, st, L, T, NULL, scale, background, tm);
}

// ---------------------------------------------------------------------------------------------------
// PNG: offscreen rendering and encoding to memory

struct Exporter {
    SDL_Surface *base; // 1x1: a software renderer needs a surface; images are drawn into target textures
    SDL_Renderer *ren;
    DrawSdl *draw;
    bool ttf;
};

Exporter *export_open(const char *font_dir, ExportError *err)
{
    Exporter *x = calloc(1, sizeof *x);
    if (!x) {
        fail(err, true, "out of memory");
        return NULL;
    }
    if (TTF_Init() != 0) {
        fail(err, true, "cannot start SDL_ttf: %s", TTF_GetError());
        free(x);
        return NULL;
    }
    x->ttf = true;
    x->base = SDL_CreateRGBSurfaceWithFormat(0, 1, 1, 32, SDL_PIXELFORMAT_ARGB8888);
    if (x->base) x->ren = SDL_CreateSoftwareRenderer(x->base);
    if (!x->ren) {
        fail(err, true, "cannot create the offscreen renderer: %s", SDL_GetError());
        export_close(x);
        return NULL;
    }
    char msg[600];
    x->draw = draw_sdl_create(x->ren, font_dir ? font_dir : ".", msg, sizeof msg);
    if (!x->draw) {
        fail(err, true, "%s", msg);
        export_close(x);
        return NULL;
    }
    return x;
}

void export_close(Exporter *x)
{
    if (!x) return;
    draw_sdl_destroy(x->draw);
    if (x->ren) SDL_DestroyRenderer(x->ren);
    if (x->base) SDL_FreeSurface(x->base);
    if (x->ttf) TTF_Quit();
    free(x);
}

TextMetrics export_metrics(Exporter *x) { return draw_sdl_metrics(x->draw); }

// An SDL_RWops that appends to an ExportBuffer (IMG_SavePNG_RW writes through it).
static bool buf_reserve(ExportBuffer *b, size_t need)
{
    if (need <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < need) cap *= 2;
    unsigned char *p = realloc(b->data, cap);
    if (!p) return false;
    b->data = p;
    b->cap = cap;
    return true;
}

typedef struct {
    ExportBuffer *b;
    size_t pos;
} MemOut;

static Sint64 mem_size(SDL_RWops *rw) { return (Sint64)((MemOut *)rw->hidden.unknown.data1)->b->size; }

static Sint64 mem_seek(SDL_RWops *rw, Sint64 off, int whence)
{
    MemOut *m = rw->hidden.unknown.data1;
    Sint64 base = whence == RW_SEEK_SET ? 0 : whence == RW_SEEK_CUR ? (Sint64)m->pos : (Sint64)m->b->size;
    if (base + off < 0) return SDL_SetError("seek before the start");
    m->pos = (size_t)(base + off);
    return (Sint64)m->pos;
}

static size_t mem_read(SDL_RWops *rw, void *ptr, size_t size, size_t n)
{
    (void)rw;
    (void)ptr;
    (void)size;
    (void)n;
    return 0;
}

static size_t mem_write(SDL_RWops *rw, const void *ptr, size_t size, size_t n)
{
    MemOut *m = rw->hidden.unknown.data1;
    size_t bytes = size * n;
    if (size && bytes / size != n) return 0;
    if (!buf_reserve(m->b, m->pos + bytes)) {
        SDL_SetError("out of memory");
        return 0;
    }
    if (m->pos > m->b->size) memset(m->b->data + m->b->size, 0, m->pos - m->b->size);
    memcpy(m->b->data + m->pos, ptr, bytes);
    m->pos += bytes;
    if (m->pos > m->b->size) m->b->size = m->pos;
    return n;
}

static int mem_close(SDL_RWops *rw)
{
    SDL_FreeRW(rw);
    return 0;
}

static unsigned long crc32_png(const unsigned char *p, size_t n)
{
    unsigned long c = 0xFFFFFFFFUL;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320UL & (0UL - (c & 1UL)));
    }
    return c ^ 0xFFFFFFFFUL;
}

static void be32(unsigned char *p, unsigned long v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static const unsigned char PNG_SIG[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
static const char SOFTWARE_TEXT[] = "Software\0mha-tracer"; // keyword, NUL, text (tEXt chunk data)
#define SOFTWARE_LEN (sizeof SOFTWARE_TEXT - 1)

// Inserts the tEXt chunk "Software: mha-tracer" right after IHDR (so it is found in the first bytes).
static bool png_add_text(ExportBuffer *b)
{
    if (b->size < 33 || memcmp(b->data, PNG_SIG, 8) != 0 || memcmp(b->data + 12, "IHDR", 4) != 0) return false;
    size_t chunk = 12 + SOFTWARE_LEN, at = 33;
    if (!buf_reserve(b, b->size + chunk)) return false;
    memmove(b->data + at + chunk, b->data + at, b->size - at);
    unsigned char *c = b->data + at;
    be32(c, SOFTWARE_LEN);
    memcpy(c + 4, "tEXt", 4);
    memcpy(c + 8, SOFTWARE_TEXT, SOFTWARE_LEN);
    be32(c + 8 + SOFTWARE_LEN, crc32_png(c + 4, 4 + SOFTWARE_LEN));
    b->size += chunk;
    return true;
}

// Draws the scene offscreen into a new surface as it will be saved: RGB24, or ARGB8888 with straight
// (not premultiplied) alpha for a transparent background. NULL on failure (err filled).
static SDL_Surface *render_surface(Exporter *x, const Scene *s, ExportBackground background, ExportError *err)
{
    int w = s->width, h = s->height;
    if (w <= 0 || h <= 0 || w > EXPORT_MAX_SIDE || h > EXPORT_MAX_SIDE) {
        fail(err, false, "image size %dx%d is out of range", w, h);
        return NULL;
    }
    bool transparent = background == EXPORT_BG_TRANSPARENT;
    SDL_Texture *tex = SDL_CreateTexture(x->ren, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_TARGET, w, h);
    SDL_Surface *img = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    bool ok = tex && img && SDL_SetRenderTarget(x->ren, tex) == 0;
    if (ok) {
        // Starting from 0 alpha, SDL's blending keeps premultiplied colours; they are undone below.
        Rgba bg = transparent ? (Rgba){0, 0, 0, 0} : s->background;
        SDL_SetRenderDrawBlendMode(x->ren, SDL_BLENDMODE_NONE);
        SDL_SetRenderDrawColor(x->ren, bg.r, bg.g, bg.b, transparent ? 0 : 255);
        SDL_RenderClear(x->ren);
        ok = draw_sdl_scene(x->draw, s);
        if (ok) ok = SDL_RenderReadPixels(x->ren, NULL, SDL_PIXELFORMAT_ARGB8888, img->pixels, img->pitch) == 0;
        SDL_SetRenderTarget(x->ren, NULL);
    }
    if (tex) SDL_DestroyTexture(tex);
    if (!ok) {
        fail(err, true, "cannot render a %dx%d image: %s", w, h, SDL_GetError());
        if (img) SDL_FreeSurface(img);
        return NULL;
    }
    if (!transparent) {
        SDL_Surface *rgb = SDL_ConvertSurfaceFormat(img, SDL_PIXELFORMAT_RGB24, 0); // no alpha channel in the file
        SDL_FreeSurface(img);
        if (!rgb) fail(err, true, "cannot convert the image: %s", SDL_GetError());
        return rgb;
    }
    for (int yy = 0; yy < h; yy++) {
        Uint32 *row = (Uint32 *)((Uint8 *)img->pixels + (size_t)yy * (size_t)img->pitch);
        for (int xx = 0; xx < w; xx++) {
            Uint32 p = row[xx], a = p >> 24;
            if (a == 0) row[xx] = 0;
            else if (a < 255) {
                Uint32 r = (((p >> 16) & 0xFF) * 255 + a / 2) / a, g = (((p >> 8) & 0xFF) * 255 + a / 2) / a,
                       b = ((p & 0xFF) * 255 + a / 2) / a;
                row[xx] = a << 24 | (r > 255 ? 255 : r) << 16 | (g > 255 ? 255 : g) << 8 | (b > 255 ? 255 : b);
            }
        }
    }
    return img;
}

// PNG bytes of a surface, with our text chunk.
static bool encode_surface(SDL_Surface *img, ExportBuffer *out, char *msg, size_t cap)
{
    memset(out, 0, sizeof *out);
    MemOut m = {out, 0};
    SDL_RWops *rw = SDL_AllocRW();
    if (rw) {
        rw->type = SDL_RWOPS_UNKNOWN;
        rw->size = mem_size;
        rw->seek = mem_seek;
        rw->read = mem_read;
        rw->write = mem_write;
        rw->close = mem_close;
        rw->hidden.unknown.data1 = &m;
    }
    bool ok = rw && IMG_SavePNG_RW(img, rw, 0) == 0;
    if (rw) SDL_FreeRW(rw);
    if (ok) ok = png_add_text(out);
    if (!ok) {
        snprintf(msg, cap, "cannot encode PNG: %s", rw ? SDL_GetError() : "out of memory");
        export_buffer_free(out);
    }
    return ok;
}

bool export_png_encode(Exporter *x, const Scene *s, ExportBackground background, ExportBuffer *out,
                       ExportError *err)
{
    memset(out, 0, sizeof *out);
    SDL_Surface *img = render_surface(x, s, background, err);
    if (!img) return false;
    char msg[300];
    bool ok = encode_surface(img, out, msg, sizeof msg);
    SDL_FreeSurface(img);
    if (!ok) fail(err, true, "%s", msg);
    return ok;
}

// ---------------------------------------------------------------------------------------------------
// Files: ours or not, and writing all or nothing

static unsigned long get32(const unsigned char *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

bool export_bytes_are_ours(const unsigned char *head, size_t n)
{
    if (n >= 8 && memcmp(head, PNG_SIG, 8) == 0) {
        size_t pos = 8;
        while (pos + 8 <= n) {
            unsigned long len = get32(head + pos);
            const unsigned char *type = head + pos + 4;
            if (len > n) return false;
            if (memcmp(type, "tEXt", 4) == 0 && len == SOFTWARE_LEN && pos + 8 + len <= n &&
                memcmp(head + pos + 8, SOFTWARE_TEXT, SOFTWARE_LEN) == 0)
                return true;
            if (memcmp(type, "IEND", 4) == 0) return false;
            pos += 12 + (size_t)len;
        }
        return false;
    }
    // An SVG whose first lines carry our mark.
    size_t k = n < 512 ? n : 512, m = sizeof SVG_MARK - 1;
    for (size_t i = 0; i + m <= k; i++)
        if (memcmp(head + i, SVG_MARK, m) == 0) return true;
    return false;
}

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    snprintf(out, cap, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

// May path be replaced? Only when it does not exist, or is a regular file exported by us.
static bool may_replace(const char *path, ExportError *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0) {
        if (errno == ENOENT) return true;
        fail(err, true, "cannot check %s: %s", path, strerror(errno));
        return false;
    }
    if (!S_ISREG(sb.st_mode)) {
        fail(err, true, "%s exists and is not a file; nothing was written", path);
        return false;
    }
    unsigned char head[65536];
    size_t n = 0;
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        ssize_t r;
        while (n < sizeof head && ((r = read(fd, head + n, sizeof head - n)) > 0 || (r < 0 && errno == EINTR)))
            if (r > 0) n += (size_t)r;
        close(fd);
    }
    if (fd < 0 || !export_bytes_are_ours(head, n)) {
        fail(err, true, "%s exists and is not an mha-tracer export; it was left alone and nothing was written", path);
        return false;
    }
    return true;
}

static bool write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

bool export_write_files(const char *dir, bool create_dir, const ExportFile *files, size_t count, ExportError *err)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        int e = errno;
        if (e == ENOENT && create_dir && mkdir(dir, 0777) == 0) {
            // made it
        } else {
            if (e == ENOENT && create_dir) e = errno;
            fail(err, true, "cannot write to %s: %s%s", dir, strerror(e),
                 e == ENOENT ? " (the directory must exist)" : "");
            return false;
        }
    } else if (!S_ISDIR(sb.st_mode)) {
        fail(err, true, "cannot write to %s: not a directory", dir);
        return false;
    }
    char path[4096];
    for (size_t i = 0; i < count; i++) {
        join(path, sizeof path, dir, files[i].name);
        if (!may_replace(path, err)) return false;
    }
    char **tmps = calloc(count ? count : 1, sizeof *tmps);
    if (!tmps) {
        fail(err, true, "out of memory");
        return false;
    }
    bool ok = true;
    size_t made = 0;
    for (size_t i = 0; i < count && ok; i++) {
        char tmp[4096], name[600];
        snprintf(name, sizeof name, ".%s.%ld.tmp", files[i].name, (long)getpid());
        join(tmp, sizeof tmp, dir, name);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0) {
            fail(err, true, "cannot write in %s: %s; nothing was written", dir, strerror(errno));
            ok = false;
            break;
        }
        tmps[made] = malloc(strlen(tmp) + 1);
        if (tmps[made]) strcpy(tmps[made], tmp);
        made++;
        bool wrote = write_all(fd, files[i].data, files[i].size) && fsync(fd) == 0;
        int e = errno;
        if (close(fd) != 0 && wrote) {
            wrote = false;
            e = errno;
        }
        if (!wrote || !tmps[made - 1]) {
            join(path, sizeof path, dir, files[i].name);
            fail(err, true, "cannot write %s: %s; nothing was written", path, tmps[made - 1] ? strerror(e) : "out of memory");
            if (!tmps[made - 1]) unlink(tmp);
            ok = false;
        }
    }
    for (size_t i = 0; i < made && ok; i++) {
        join(path, sizeof path, dir, files[i].name);
        if (rename(tmps[i], path) != 0) {
            fail(err, true, "cannot write %s: %s", path, strerror(errno));
            ok = false;
        } else {
            free(tmps[i]);
            tmps[i] = NULL;
        }
    }
    for (size_t i = 0; i < made; i++) {
        if (tmps[i]) unlink(tmps[i]);
        free(tmps[i]);
    }
    free(tmps);
    if (ok) { // the renames themselves reach the disk
        int dfd = open(dir, O_RDONLY);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    return ok;
}

// ---------------------------------------------------------------------------------------------------
// Whole exports

typedef struct {
    char name[300];   // without extension
    char title[400];  // for the SVG <title>
    bool board;
    ViewState st;      // board
    HeatmapSpec spec; // heatmap
} Job;

typedef struct {
    Job *jobs;
    size_t count, cap;
} Jobs;

static Job *job_add(Jobs *j)
{
    if (j->count == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 16;
        Job *p = realloc(j->jobs, cap * sizeof *p);
        if (!p) return NULL;
        j->jobs = p;
        j->cap = cap;
    }
    Job *b = &j->jobs[j->count++];
    memset(b, 0, sizeof *b);
    return b;
}

static const char *lesson_title(const Lesson *L) { return L->title && L->title[0] ? L->title : "mha-tracer"; }

static bool add_heatmap(Jobs *jobs, const ExportRequest *req, const char *prefix, const Lesson *L, MatId mat, int head)
{
    Job *j = job_add(jobs);
    if (!j) return false;
    int heads = L->params.heads, digits = heads > 1000 ? 4 : heads > 100 ? 3 : heads > 10 ? 2 : 1;
    if (head >= 0) {
        snprintf(j->name, sizeof j->name, "%s-head%0*d-%s", prefix, digits, head, export_matrix_key(mat));
        snprintf(j->title, sizeof j->title, "%s \xe2\x80\x94 head %d: %s", lesson_title(L), head, matrix_words(mat));
    } else {
        snprintf(j->name, sizeof j->name, "%s-heads-%s", prefix, export_matrix_key(mat));
        snprintf(j->title, sizeof j->title, "%s \xe2\x80\x94 all %d heads: %s", lesson_title(L), heads, matrix_words(mat));
    }
    j->spec = (HeatmapSpec){mat, head, req->scale, req->colormap, req->background};
    return true;
}

static bool add_board(Jobs *jobs, const char *prefix, const Lesson *L, const ViewState *st)
{
    Job *j = job_add(jobs);
    if (!j) return false;
    j->board = true;
    j->st = *st;
    Stage stage = view_stage(st);
    snprintf(j->name, sizeof j->name, "%s-stage%02d-%s", prefix, st->stage_index + 1, stage_key(stage));
    snprintf(j->title, sizeof j->title, "%s \xe2\x80\x94 stage %d of %d: %s", lesson_title(L), st->stage_index + 1,
             st->stage_count, stage_name(stage));
    return true;
}

// Builds, encodes and writes every job, one image at a time. (Encoding PNGs on several threads would save
// a third of the time on two processors, but IMG_SavePNG_RW touches SDL_image's global init flags.)
static bool run_jobs(const Jobs *jobs, const ExportRequest *req, const Lesson *L, const Trace *T, ExportResult *out,
                     ExportError *err)
{
    unsigned formats = req->formats & (EXPORT_PNG | EXPORT_SVG);
    if (formats == 0) {
        fail(err, false, "no format asked for (png, svg or both)");
        return false;
    }
    size_t nfiles = 0, per = (formats & EXPORT_PNG ? 1 : 0) + (formats & EXPORT_SVG ? 1 : 0);
    size_t cap = jobs->count * per + 1;
    ExportFile *files = calloc(cap, sizeof *files);
    char **names = calloc(cap, sizeof *names);
    unsigned char **datas = calloc(cap, sizeof *datas);
    Exporter *x = NULL;
    Scene scene;
    scene_init(&scene);
    bool ok = files && names && datas;
    if (!ok) fail(err, true, "out of memory");
    if (ok) ok = (x = export_open(req->font_dir, err)) != NULL;
    TextMetrics tm;
    if (ok) tm = export_metrics(x);
    for (size_t i = 0; ok && i < jobs->count; i++) {
        const Job *j = &jobs->jobs[i];
        bool built = j->board ? build_board(&scene, &j->st, L, T, req->view, req->scale, req->background, &tm)
                              : export_build_heatmap(&scene, &j->spec, L, T, &tm);
        if (!built) {
            fail(err, true, "out of memory while laying out %s", j->name);
            ok = false;
            break;
        }
        for (unsigned f = EXPORT_PNG; ok && f <= EXPORT_SVG; f <<= 1) {
            if (!(formats & f)) continue;
            char *name = malloc(strlen(j->name) + 5);
            if (!name) {
                fail(err, true, "out of memory");
                ok = false;
                break;
            }
            sprintf(name, "%s.%s", j->name, f == EXPORT_PNG ? "png" : "svg");
            size_t k = nfiles++; // counted now, so that its name is freed whatever happens next
            names[k] = name;
            files[k].name = name;
            if (f == EXPORT_PNG) {
                ExportBuffer b;
                if (!export_png_encode(x, &scene, req->background, &b, err)) {
                    ok = false;
                    break;
                }
                files[k].data = b.data;
                files[k].size = b.size;
                datas[k] = b.data;
            } else {
                size_t size = 0;
                char *svg = svg_encode(&scene, j->title, &size);
                if (!svg) {
                    fail(err, true, "out of memory while writing %s", name);
                    ok = false;
                    break;
                }
                files[k].data = (unsigned char *)svg;
                files[k].size = size;
                datas[k] = (unsigned char *)svg;
            }
        }
    }
    scene_free(&scene);
    export_close(x);
    if (ok) ok = export_write_files(req->dir, req->create_dir, files, nfiles, err);
    if (ok) {
        out->paths = calloc(nfiles + 1, sizeof *out->paths);
        ok = out->paths != NULL;
        for (size_t i = 0; ok && i < nfiles; i++) {
            size_t len = strlen(req->dir) + strlen(names[i]) + 2;
            out->paths[i] = malloc(len);
            if (!out->paths[i]) break;
            join(out->paths[i], len, req->dir, names[i]);
            out->count++;
        }
        // The files are written; a path list cut short by no memory is still a success.
        if (!ok) fail(err, true, "out of memory");
    }
    for (size_t i = 0; i < nfiles; i++) {
        free(names[i]);
        free(datas[i]);
    }
    free(files);
    free(names);
    free(datas);
    return ok;
}

static bool heat_stage(Stage s) { return s == STAGE_SCORES || s == STAGE_SCALE || s == STAGE_MASK || s == STAGE_SOFTMAX; }

bool export_run(const ExportRequest *req, const Lesson *L, const Trace *T, ExportResult *out, ExportError *err)
{
    memset(out, 0, sizeof *out);
    if (!(req->scale >= EXPORT_SCALE_MIN && req->scale <= EXPORT_SCALE_MAX)) {
        fail(err, false, "scale %g is out of range (%g to %g)", req->scale, EXPORT_SCALE_MIN, EXPORT_SCALE_MAX);
        return false;
    }
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    st.colormap = req->colormap;
    st.head = req->head >= 0 && req->head < L->params.heads ? req->head : 0;
    int first = 0, last = st.stage_count - 1;
    if (req->stage != EXPORT_ALL_STAGES) {
        first = -1;
        for (int i = 0; i < st.stage_count; i++)
            if ((int)st.stages[i] == req->stage) first = i;
        if (first < 0) {
            fail(err, false, "this lesson has no '%s' stage%s", stage_key((Stage)req->stage),
                 req->stage == STAGE_MASK ? " (it is not causal)" : "");
            return false;
        }
        last = first;
        if (req->what == EXPORT_WHAT_HEATMAPS && !heat_stage((Stage)req->stage)) {
            fail(err, false, "there are no heatmaps at the '%s' stage: they show scores, scaled, mask (causal) or weights",
                 stage_key((Stage)req->stage));
            return false;
        }
    }
    char prefix[128];
    if (req->name && req->name[0]) export_slug(req->name, prefix, sizeof prefix);
    else export_slug(L->title, prefix, sizeof prefix);
    Jobs jobs = {0};
    bool ok = true;
    for (int i = first; ok && i <= last; i++) {
        st.stage_index = i;
        Stage stage = view_stage(&st);
        if (req->what & EXPORT_WHAT_BOARD) {
            // A slide has no pointer: the first result cell is pinned, so the board shows how it is computed.
            ViewState b = st;
            int total = view_reveal_total(&b);
            b.pinned = total > 0 ? view_reveal_cell(&b, 0) : (CellRef){MAT_X, b.head, 0, 0};
            ok = add_board(&jobs, prefix, L, &b);
        }
        if (ok && (req->what & EXPORT_WHAT_HEATMAPS) && heat_stage(stage)) {
            MatId mat = export_stage_matrix(stage, L);
            for (int h = 0; ok && h < L->params.heads; h++) ok = add_heatmap(&jobs, req, prefix, L, mat, h);
            if (ok && L->params.heads > 1) ok = add_heatmap(&jobs, req, prefix, L, mat, -1);
        }
    }
    if (!ok) {
        free(jobs.jobs);
        fail(err, true, "out of memory");
        return false;
    }
    ok = run_jobs(&jobs, req, L, T, out, err);
    free(jobs.jobs);
    return ok;
}

bool export_from_view(const ExportRequest *req, bool board, const ViewState *st, const Lesson *L, const Trace *T,
                      ExportResult *out, ExportError *err)
{
    memset(out, 0, sizeof *out);
    ExportRequest r = *req;
    if (!(r.scale >= EXPORT_SCALE_MIN && r.scale <= EXPORT_SCALE_MAX)) r.scale = 2.0;
    r.colormap = st->colormap;
    char prefix[128];
    if (r.name && r.name[0]) export_slug(r.name, prefix, sizeof prefix);
    else export_slug(L->title, prefix, sizeof prefix);
    Jobs jobs = {0};
    bool ok;
    if (board) {
        ok = add_board(&jobs, prefix, L, st);
    } else {
        MatId mat = export_stage_matrix(view_stage(st), L);
        if (mat == MAT_NONE) mat = MAT_WEIGHTS; // before the scores, as the all-heads view: the weights
        ok = add_heatmap(&jobs, &r, prefix, L, mat, st->view == VIEW_ALL_HEADS ? -1 : st->head);
    }
    if (!ok) {
        free(jobs.jobs);
        fail(err, true, "out of memory");
        return false;
    }
    ok = run_jobs(&jobs, &r, L, T, out, err);
    free(jobs.jobs);
    return ok;
}
