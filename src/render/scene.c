// Lays out one frame of the viewer as plain draw commands: the stage's matrices as an operation, each
// head's heatmap, the arithmetic of the focused cell, header, footer and overlays. No SDL here.
#include "scene.h"

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
    double u;           // 1.0 on a 1280x720 window at zoom 1
    int min_font;       // numbers smaller than this are not drawn (colours only, value on hover)
    CellRef focus;      // the cell whose arithmetic is shown
    // input rows/columns that the focused cell was computed from (row or col -1: the whole band)
    CellRef lit[8];
    int lit_count;
} Ctx;

static const Rgba BG = {248, 248, 245, 255};
static const Rgba PANEL = {236, 238, 242, 255};
static const Rgba INK = {24, 27, 34, 255};
static const Rgba MUTED = {92, 98, 110, 255};
static const Rgba GRID = {255, 255, 255, 255};
static const Rgba EMPTY = {226, 228, 232, 255};
static const Rgba RESULT = {0, 114, 178, 255};  // Okabe-Ito blue: the step's result
static const Rgba LIT = {213, 94, 0, 255};      // Okabe-Ito vermillion: inputs of the focused cell
static const Rgba HATCH = {150, 150, 156, 255};
static const Rgba MASKED_BG = {208, 208, 212, 255};
static const Rgba BANNER_BG = {176, 32, 32, 255};
static const Rgba WHITE = {255, 255, 255, 255};
static const Rgba EDITED = {204, 121, 167, 255}; // Okabe-Ito reddish purple: a value changed by hand
static const Rgba STATUS_BG = {0, 90, 140, 255};

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

static void rect(Ctx *c, int x, int y, int w, int h, Rgba color) { scene_push_rect(c->s, x, y, w, h, color); }

static void frame(Ctx *c, int x, int y, int w, int h, int t, Rgba color)
{
    if (w <= 0 || h <= 0) return;
    DrawCmd *cmd = scene_push(c->s, CMD_FRAME, x, y, w, h, color);
    if (cmd) cmd->thickness = t;
}

// Word-wraps t into lines no wider than w starting at (x, y); returns the height used (at most max_lines).
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
            while (p[next] && p[next] != ' ' && p[next] != '\n') next++;
            if (next >= sizeof line) break;
            memcpy(line, p, next);
            line[next] = '\0';
            if (text_w(c, f, size, line) > w && best > 0) break;
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
        if (draw) text_at(c, f, size, color, x, y + used, line);
        used += lh;
        lines++;
        p += best;
        while (*p == ' ' || *p == '\n') p++;
    }
    return used;
}

// ---------------------------------------------------------------------------------------------------
// Numbers and names

void scene_format_value(double v, char *buf, size_t cap)
{
    if (isinf(v)) {
        snprintf(buf, cap, "%s\xe2\x88\x9e", v < 0 ? "\xe2\x88\x92" : ""); // −∞
        return;
    }
    if (isnan(v)) {
        snprintf(buf, cap, "?");
        return;
    }
    if (fabs(v) < 0.00005) v = 0.0;
    char tmp[64];
    snprintf(tmp, sizeof tmp, fabs(v) >= 1e5 ? "%.3e" : "%.4f", fabs(v)); // huge sums stay short
    snprintf(buf, cap, "%s%s", v < 0 ? "\xe2\x88\x92" : "", tmp); // U+2212 minus sign
}

// Appends the subscript digits of n.
static void subscript(char *buf, size_t cap, int n)
{
    char digits[16];
    snprintf(digits, sizeof digits, "%d", n);
    for (const char *d = digits; *d; d++) {
        size_t len = strlen(buf);
        if (len + 4 > cap) return;
        buf[len] = (char)0xE2;
        buf[len + 1] = (char)0x82;
        buf[len + 2] = (char)(0x80 + (*d - '0'));
        buf[len + 3] = '\0';
    }
}

static const char *const SUP_T = "\xe1\xb5\x80";   // ᵀ
static const char *const SQRT = "\xe2\x88\x9a";    // √
static const char *const TIMES = "\xc3\x97";       // ×
static const char *const PRIME = "\xe2\x80\xb2";   // ′

// "Q₀", "K₀ᵀ", "W₀^Q", "A₀" ...
static void mat_name(const Lesson *L, MatId m, int head, char *buf, size_t cap)
{
    (void)L;
    buf[0] = '\0';
    switch (m) {
    case MAT_X: snprintf(buf, cap, "X"); return;
    case MAT_S: snprintf(buf, cap, "S"); return;
    case MAT_WQ: case MAT_WK: case MAT_WV:
        snprintf(buf, cap, "W");
        subscript(buf, cap, head);
        snprintf(buf + strlen(buf), cap - strlen(buf), "^%c", m == MAT_WQ ? 'Q' : m == MAT_WK ? 'K' : 'V');
        return;
    case MAT_Q: snprintf(buf, cap, "Q"); break;
    case MAT_K: case MAT_KT: snprintf(buf, cap, "K"); break;
    case MAT_V: snprintf(buf, cap, "V"); break;
    case MAT_SCORES: snprintf(buf, cap, "S"); break;
    case MAT_SCALED: snprintf(buf, cap, "S%s", PRIME); break;
    case MAT_MASK: snprintf(buf, cap, "M"); return;
    case MAT_MASKED: snprintf(buf, cap, "S%s", PRIME); break;
    case MAT_WEIGHTS: snprintf(buf, cap, "A"); break;
    case MAT_Z: snprintf(buf, cap, "Z"); break;
    case MAT_CONCAT: snprintf(buf, cap, "Concat"); return;
    case MAT_WO: snprintf(buf, cap, "W^O"); return;
    case MAT_OUTPUT: snprintf(buf, cap, "Output"); return;
    default: return;
    }
    subscript(buf, cap, head);
    if (m == MAT_KT) snprintf(buf + strlen(buf), cap - strlen(buf), "%s", SUP_T);
    if (m == MAT_MASKED) snprintf(buf + strlen(buf), cap - strlen(buf), " + M");
}

void scene_mat_shape(const Lesson *L, MatId m, int *rows, int *cols)
{
    const AttnParams *p = &L->params;
    int r = 0, c = 0;
    switch (m) {
    case MAT_X: r = p->n; c = p->d_model; break;
    case MAT_S: r = p->m; c = p->d_model; break;
    case MAT_WQ: case MAT_WK: case MAT_WV: r = p->d_model; c = p->d_k; break;
    case MAT_Q: r = p->n; c = p->d_k; break;
    case MAT_K: case MAT_V: r = p->m; c = p->d_k; break;
    case MAT_KT: r = p->d_k; c = p->m; break;
    case MAT_SCORES: case MAT_SCALED: case MAT_MASK: case MAT_MASKED: case MAT_WEIGHTS: r = p->n; c = p->m; break;
    case MAT_Z: r = p->n; c = p->d_k; break;
    case MAT_CONCAT: r = p->n; c = p->heads * p->d_k; break;
    case MAT_WO: r = p->heads * p->d_k; c = p->d_model; break;
    case MAT_OUTPUT: r = p->n; c = p->d_model; break;
    default: break;
    }
    *rows = r;
    *cols = c;
}

double scene_cell_value(const Lesson *L, const Trace *T, CellRef c)
{
    const AttnParams *p = &L->params;
    int rows, cols;
    scene_mat_shape(L, c.mat, &rows, &cols);
    if (c.row < 0 || c.col < 0 || c.row >= rows || c.col >= cols) return NAN;
    bool per_head = c.mat >= MAT_WQ && c.mat <= MAT_Z;
    if (per_head && (c.head < 0 || c.head >= p->heads || c.head >= T->heads)) return NAN;
    const HeadTrace *ht = per_head ? &T->head[c.head] : NULL;
    switch (c.mat) {
    case MAT_X: return mat_get(&p->X, c.row, c.col);
    case MAT_S: return mat_get(&p->S, c.row, c.col);
    case MAT_WQ: return mat_get(&p->W_Q[c.head], c.row, c.col);
    case MAT_WK: return mat_get(&p->W_K[c.head], c.row, c.col);
    case MAT_WV: return mat_get(&p->W_V[c.head], c.row, c.col);
    case MAT_Q: return mat_get(&ht->Q, c.row, c.col);
    case MAT_K: return mat_get(&ht->K, c.row, c.col);
    case MAT_V: return mat_get(&ht->V, c.row, c.col);
    case MAT_KT: return mat_get(&ht->K, c.col, c.row);
    case MAT_SCORES: return mat_get(&ht->scores, c.row, c.col);
    case MAT_SCALED: return mat_get(&ht->scores, c.row, c.col) / sqrt((double)p->d_k); // as attn_scale
    case MAT_MASK: return (p->mask == MASK_CAUSAL && c.col > c.row) ? -INFINITY : 0.0;
    case MAT_MASKED: return mat_get(&ht->scaled, c.row, c.col);
    case MAT_WEIGHTS: return mat_get(&ht->weights, c.row, c.col);
    case MAT_Z: return mat_get(&ht->Z, c.row, c.col);
    case MAT_CONCAT: return mat_get(&T->concat, c.row, c.col);
    case MAT_WO: return mat_get(&p->W_O, c.row, c.col);
    case MAT_OUTPUT: return mat_get(&T->output, c.row, c.col);
    default: return NAN;
    }
}

typedef enum { AXIS_DIM, AXIS_QUERY, AXIS_KEY } Axis;

static void mat_axes(MatId m, Axis *rows, Axis *cols)
{
    *rows = AXIS_DIM;
    *cols = AXIS_DIM;
    switch (m) {
    case MAT_X: case MAT_Q: case MAT_Z: case MAT_CONCAT: case MAT_OUTPUT: *rows = AXIS_QUERY; break;
    case MAT_S: case MAT_K: case MAT_V: *rows = AXIS_KEY; break;
    case MAT_KT: *cols = AXIS_KEY; break;
    case MAT_SCORES: case MAT_SCALED: case MAT_MASK: case MAT_MASKED: case MAT_WEIGHTS:
        *rows = AXIS_QUERY;
        *cols = AXIS_KEY;
        break;
    default: break;
    }
}

static void axis_label(const Lesson *L, Axis a, int i, char *buf, size_t cap)
{
    if (a == AXIS_QUERY && i < L->params.n) snprintf(buf, cap, "%s", L->tokens[i]);
    else if (a == AXIS_KEY && i < L->params.m) snprintf(buf, cap, "%s", L->source_tokens[i]);
    else snprintf(buf, cap, "%d", i);
}

static bool is_weights(MatId m) { return m == MAT_WEIGHTS; }

// ---------------------------------------------------------------------------------------------------
// The arithmetic of one cell

// Appends "(a)(b) + (c)(d) + …" for a dot product of length k, then the sum; at most 6 terms are written.
static void dot_terms(char *line, size_t cap, const double *a, int as, const double *b, int bs, int k)
{
    char x[32], y[32];
    line[0] = '\0';
    int shown = k <= 6 ? k : 4;
    for (int i = 0; i < shown; i++) {
        scene_format_value(a[(size_t)i * as], x, sizeof x);
        scene_format_value(b[(size_t)i * bs], y, sizeof y);
        snprintf(line + strlen(line), cap - strlen(line), "%s(%s)(%s)", i ? " + " : "= ", x, y);
    }
    if (shown < k) snprintf(line + strlen(line), cap - strlen(line), " + \xe2\x80\xa6 (%d terms)", k);
}

static void products(char *line, size_t cap, const double *a, int as, const double *b, int bs, int k, double total)
{
    char x[32];
    line[0] = '\0';
    int shown = k <= 6 ? k : 4;
    for (int i = 0; i < shown; i++) {
        double t = a[(size_t)i * as] * b[(size_t)i * bs];
        scene_format_value(i && t < 0 ? -t : t, x, sizeof x);
        snprintf(line + strlen(line), cap - strlen(line), "%s%s", i ? (t < 0 ? " \xe2\x88\x92 " : " + ") : "= ", x);
    }
    if (shown < k) snprintf(line + strlen(line), cap - strlen(line), " + \xe2\x80\xa6");
    scene_format_value(total, x, sizeof x);
    snprintf(line + strlen(line), cap - strlen(line), " = %s", x);
}

// hints: the last line of an editable cell says how to change it (not on a slide).
// Shown under an embedding or a weight in the window (not on slides).
static const char EDIT_HINT[] =
    "click it, then \xe2\x86\x91 \xe2\x86\x93, the wheel or a vertical drag changes it; every later stage follows";

static int explain_lines(const Lesson *L, const Trace *T, CellRef c, char lines[][256], int max_lines, bool hints)
{
    const AttnParams *p = &L->params;
    int n = 0;
    if (c.mat == MAT_NONE || max_lines < 3) return 0;
    double v = scene_cell_value(L, T, c);
    if (isnan(v)) return 0;
    char name[64], rl[96], cl[96], vs[32], a[32], b[32];
    Axis ra, ca;
    mat_axes(c.mat, &ra, &ca);
    mat_name(L, c.mat, c.head, name, sizeof name);
    axis_label(L, ra, c.row, rl, sizeof rl);
    axis_label(L, ca, c.col, cl, sizeof cl);
    scene_format_value(v, vs, sizeof vs);
    int h = c.head;
    const HeadTrace *ht = (c.mat >= MAT_Q && c.mat <= MAT_Z) ? &T->head[h] : NULL;
    char hn[16] = "";
    subscript(hn, sizeof hn, h);
    double root = sqrt((double)p->d_k);
    switch (c.mat) {
    case MAT_X:
    case MAT_S:
        snprintf(lines[n++], 256, "%s[%s, %s] = %s", name, rl, cl, vs);
        snprintf(lines[n++], 256, "the embedding of \"%s\", dimension %d: given by the lesson", rl, c.col);
        if (hints)
            snprintf(lines[n++], 256, "%s", EDIT_HINT);
        break;
    case MAT_WQ:
    case MAT_WK:
    case MAT_WV:
    case MAT_WO:
        snprintf(lines[n++], 256, "%s[%d, %d] = %s", name, c.row, c.col, vs);
        snprintf(lines[n++], 256, "a learned weight (in this lesson: given, or random with a fixed seed)");
        if (hints)
            snprintf(lines[n++], 256, "%s", EDIT_HINT);
        break;
    case MAT_Q:
    case MAT_K:
    case MAT_V:
    case MAT_KT: {
        const Matrix *in = c.mat == MAT_Q ? &p->X : &p->S;
        const Matrix *w = c.mat == MAT_Q ? &p->W_Q[h] : c.mat == MAT_V ? &p->W_V[h] : &p->W_K[h];
        const Matrix *bias = c.mat == MAT_Q ? &p->b_Q[h] : c.mat == MAT_V ? &p->b_V[h] : &p->b_K[h];
        int r = c.mat == MAT_KT ? c.col : c.row, col = c.mat == MAT_KT ? c.row : c.col;
        char tok[96], wn[32];
        axis_label(L, c.mat == MAT_Q ? AXIS_QUERY : AXIS_KEY, r, tok, sizeof tok);
        mat_name(L, c.mat == MAT_Q ? MAT_WQ : c.mat == MAT_V ? MAT_WV : MAT_WK, h, wn, sizeof wn);
        char bn[8];
        snprintf(bn, sizeof bn, "%c", c.mat == MAT_Q ? 'Q' : c.mat == MAT_V ? 'V' : 'K');
        snprintf(lines[n++], 256, "%s%s[%s, %d] = %s[%s] \xc2\xb7 %s[:, %d]%s", bn, hn, tok, col,
                 c.mat == MAT_Q ? "X" : (p->cross ? "S" : "X"), tok, wn, col,
                 mat_get(bias, 0, col) != 0.0 ? " + b" : "");
        dot_terms(lines[n++], 256, mat_row(in, r), 1, w->data + col, w->cols, p->d_model);
        products(lines[n++], 256, mat_row(in, r), 1, w->data + col, w->cols, p->d_model, v);
        break;
    }
    case MAT_SCORES: {
        char kt[96];
        axis_label(L, AXIS_KEY, c.col, kt, sizeof kt);
        snprintf(lines[n++], 256, "S%s[%s, %s] = Q%s[%s] \xc2\xb7 K%s[%s]   (dot product of %d numbers)", hn, rl, cl,
                 hn, rl, hn, kt, p->d_k);
        dot_terms(lines[n++], 256, mat_row(&ht->Q, c.row), 1, mat_row(&ht->K, c.col), 1, p->d_k);
        products(lines[n++], 256, mat_row(&ht->Q, c.row), 1, mat_row(&ht->K, c.col), 1, p->d_k, v);
        break;
    }
    case MAT_SCALED:
        scene_format_value(mat_get(&ht->scores, c.row, c.col), a, sizeof a);
        scene_format_value(root, b, sizeof b);
        snprintf(lines[n++], 256, "S%s%s[%s, %s] = S%s[%s, %s] / %sd_k", PRIME, hn, rl, cl, hn, rl, cl, SQRT);
        snprintf(lines[n++], 256, "= %s / %s%d = %s / %s", a, SQRT, p->d_k, a, b);
        snprintf(lines[n++], 256, "= %s", vs);
        break;
    case MAT_MASK:
        snprintf(lines[n++], 256, "M[%s, %s] = %s", rl, cl, vs);
        snprintf(lines[n++], 256, c.col > c.row ? "\"%s\" comes after \"%s\": a query may not look ahead"
                                                : "\"%s\" is not after \"%s\": this score is kept",
                 cl, rl);
        break;
    case MAT_MASKED: {
        double s = mat_get(&ht->scores, c.row, c.col) / root;
        scene_format_value(s, a, sizeof a);
        scene_format_value(scene_cell_value(L, T, (CellRef){MAT_MASK, h, c.row, c.col}), b, sizeof b);
        snprintf(lines[n++], 256, "S%s%s[%s, %s] + M[%s, %s]", PRIME, hn, rl, cl, rl, cl);
        snprintf(lines[n++], 256, "= %s + %s = %s", a, b, vs);
        if (isinf(v)) snprintf(lines[n++], 256, "masked: \"%s\" may not look at the later \"%s\"", rl, cl);
        break;
    }
    case MAT_WEIGHTS: {
        const Matrix *sc = &ht->scaled;
        snprintf(lines[n++], 256, "A%s[%s, %s] = exp(S%s[%s, %s]) / \xce\xa3\xe2\x82\x96 exp(S%s[%s, k])", hn, rl, cl,
                 PRIME, rl, cl, PRIME, rl);
        double sum = 0.0;
        for (int k = 0; k < sc->cols; k++) sum += exp(mat_get(sc, c.row, k));
        double e = exp(mat_get(sc, c.row, c.col));
        char *l = lines[n++];
        scene_format_value(mat_get(sc, c.row, c.col), a, sizeof a);
        snprintf(l, 256, "= exp(%s) / (", a);
        int shown = sc->cols <= 5 ? sc->cols : 3;
        for (int k = 0; k < shown; k++) {
            scene_format_value(exp(mat_get(sc, c.row, k)), a, sizeof a);
            snprintf(l + strlen(l), 256 - strlen(l), "%s%s", k ? " + " : "", a);
        }
        snprintf(l + strlen(l), 256 - strlen(l), "%s)", shown < sc->cols ? " + \xe2\x80\xa6" : "");
        scene_format_value(e, a, sizeof a);
        scene_format_value(sum, b, sizeof b);
        snprintf(lines[n++], 256, "= %s / %s = %s     (each row of A sums to 1)", a, b, vs);
        break;
    }
    case MAT_Z: {
        snprintf(lines[n++], 256, "Z%s[%s, %d] = \xce\xa3\xe2\x82\x96 A%s[%s, k] \xc2\xb7 V%s[k, %d]   (V's rows, weighted)",
                 hn, rl, c.col, hn, rl, hn, c.col);
        dot_terms(lines[n++], 256, mat_row(&ht->weights, c.row), 1, ht->V.data + c.col, ht->V.cols, p->m);
        products(lines[n++], 256, mat_row(&ht->weights, c.row), 1, ht->V.data + c.col, ht->V.cols, p->m, v);
        break;
    }
    case MAT_CONCAT: {
        int head = p->d_k > 0 ? c.col / p->d_k : 0, k = p->d_k > 0 ? c.col % p->d_k : 0;
        char zn[16] = "Z";
        subscript(zn, sizeof zn, head);
        snprintf(lines[n++], 256, "Concat[%s, %d] = %s[%s, %d] = %s", rl, c.col, zn, rl, k, vs);
        snprintf(lines[n++], 256, "columns %d\xe2\x80\xa6%d of Concat are head %d's output", head * p->d_k,
                 head * p->d_k + p->d_k - 1, head);
        break;
    }
    case MAT_OUTPUT: {
        int k = p->heads * p->d_k;
        snprintf(lines[n++], 256, "Output[%s, %d] = Concat[%s] \xc2\xb7 W^O[:, %d]%s", rl, c.col, rl, c.col,
                 mat_get(&p->b_O, 0, c.col) != 0.0 ? " + b^O" : "");
        dot_terms(lines[n++], 256, mat_row(&T->concat, c.row), 1, p->W_O.data + c.col, p->W_O.cols, k);
        products(lines[n++], 256, mat_row(&T->concat, c.row), 1, p->W_O.data + c.col, p->W_O.cols, k, v);
        break;
    }
    default: break;
    }
    return n;
}

int scene_explain(const Lesson *L, const Trace *T, CellRef c, char lines[][256], int max_lines)
{
    return explain_lines(L, T, c, lines, max_lines, true);
}

// The input bands that light up for a focused cell.
static void light_inputs(Ctx *c)
{
    CellRef f = c->focus;
    c->lit_count = 0;
    if (f.mat == MAT_NONE) return;
#define LIGHT(m, r, col) (c->lit[c->lit_count++] = (CellRef){(m), f.head, (r), (col)})
    LIGHT(f.mat, f.row, f.col);
    switch (f.mat) {
    case MAT_Q: LIGHT(MAT_X, f.row, -1); LIGHT(MAT_WQ, -1, f.col); break;
    case MAT_K: LIGHT(c->L->params.cross ? MAT_S : MAT_X, f.row, -1); LIGHT(MAT_WK, -1, f.col); break;
    case MAT_V: LIGHT(c->L->params.cross ? MAT_S : MAT_X, f.row, -1); LIGHT(MAT_WV, -1, f.col); break;
    case MAT_SCORES: LIGHT(MAT_Q, f.row, -1); LIGHT(MAT_KT, -1, f.col); break;
    case MAT_SCALED: LIGHT(MAT_SCORES, f.row, f.col); break;
    case MAT_MASKED: LIGHT(MAT_SCALED, f.row, f.col); LIGHT(MAT_MASK, f.row, f.col); break;
    case MAT_WEIGHTS: LIGHT(c->L->params.mask == MASK_CAUSAL ? MAT_MASKED : MAT_SCALED, f.row, -1); break;
    case MAT_Z: LIGHT(MAT_WEIGHTS, f.row, -1); LIGHT(MAT_V, -1, f.col); break;
    case MAT_CONCAT:
        if (c->L->params.d_k > 0) {
            c->lit[c->lit_count++] = (CellRef){MAT_Z, f.col / c->L->params.d_k, f.row, f.col % c->L->params.d_k};
        }
        break;
    case MAT_OUTPUT: LIGHT(MAT_CONCAT, f.row, -1); LIGHT(MAT_WO, -1, f.col); break;
    default: break;
    }
#undef LIGHT
}

// ---------------------------------------------------------------------------------------------------
// Matrix grids

typedef struct {
    MatId mat;
    int head;
    int rows, cols;
    int label_w;        // width of the row-label column
    bool result;        // this step's result: framed and tagged
    double range;       // diverging colour scale: |value| that reaches the ends
    bool negative;      // some value < 0 (its minus sign takes room)
    const char *title;  // instead of the matrix's name (NULL: its name)
} MatBox;

typedef struct {
    double cell_w, cell_h; // fractional: big matrices get cells narrower than a pixel
    int num_font;       // 0: no numbers
    int op_font;
    int label_font, title_font;
    int title_h, col_label_h;
    int gap;
} GridStyle;

static bool per_head_mat(MatId m) { return m >= MAT_WQ && m <= MAT_Z; }

// Largest |value| of a matrix (1 when all are 0); *neg tells whether any value is negative.
static double matrix_range_sign(const Ctx *c, MatId m, int head, bool *neg)
{
    int rows, cols;
    scene_mat_shape(c->L, m, &rows, &cols);
    double r = 0.0;
    *neg = false;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double v = scene_cell_value(c->L, c->T, (CellRef){m, head, i, j});
            if (isfinite(v) && fabs(v) > r) r = fabs(v);
            if (v < 0.0) *neg = true;
        }
    return r > 0.0 ? r : 1.0;
}

static double matrix_range(const Ctx *c, MatId m, int head)
{
    bool neg;
    return matrix_range_sign(c, m, head, &neg);
}

static Rgba cell_color(const Ctx *c, MatId m, double v, double range)
{
    if (isinf(v)) return MASKED_BG;
    if (is_weights(m)) return colormap_rgb(c->st->colormap, v);
    return colormap_diverging(c->st->colormap, v / range);
}

static int row_label_width(const Ctx *c, MatId m, int rows, int font)
{
    Axis ra, ca;
    mat_axes(m, &ra, &ca);
    int w = 0;
    char buf[128];
    for (int i = 0; i < rows; i++) {
        axis_label(c->L, ra, i, buf, sizeof buf);
        int tw = text_w(c, FONT_REGULAR, font, buf);
        if (tw > w) w = tw;
    }
    int cap = px(c, 120);
    return (w > cap ? cap : w) + px(c, 8);
}

static int box_width(const GridStyle *g, const MatBox *b) { return b->label_w + (int)floor(b->cols * g->cell_w + 1e-9); }
static int box_height(const GridStyle *g, const MatBox *b)
{
    return g->title_h + g->col_label_h + (int)floor(b->rows * g->cell_h + 1e-9);
}

// Pixel edge of cell i when cells are `size` pixels (fractional) wide.
static int edge(double size, int i) { return (int)floor(size * i + 1e-9); }

// Mean of the finite values in a block of cells; -INFINITY when the block is all masked.
static double block_value(const Ctx *c, MatId m, int head, int r0, int r1, int c0, int c1)
{
    if (r1 - r0 == 1 && c1 - c0 == 1) return scene_cell_value(c->L, c->T, (CellRef){m, head, r0, c0});
    double sum = 0.0;
    int k = 0;
    for (int i = r0; i < r1; i++)
        for (int j = c0; j < c1; j++) {
            double v = scene_cell_value(c->L, c->T, (CellRef){m, head, i, j});
            if (isfinite(v)) {
                sum += v;
                k++;
            }
        }
    return k ? sum / k : -INFINITY;
}

// True when a cell of the block [r0, r1) x [c0, c1) of an editable matrix was changed by hand.
static bool block_edited(const Ctx *c, const MatBox *b, int r0, int r1, int c0, int c1)
{
    for (int i = r0; i < r1; i++)
        for (int j = c0; j < c1; j++)
            if (view_param_edited(c->ex->original, &c->L->params, (CellRef){b->mat, b->head, i, j})) return true;
    return false;
}

// Draws one matrix with its title, labels and cells; (x, y) is the top-left of the box. Matrices with more
// cells than pixels are drawn in blocks (mean colour), each block answering hover for its first cell.
static void draw_matrix(Ctx *c, const GridStyle *g, const MatBox *b, int x, int y)
{
    char title[96], name[64], buf[128], fitted[128];
    mat_name(c->L, b->mat, b->head, name, sizeof name);
    if (b->title) snprintf(name, sizeof name, "%s", b->title);
    snprintf(title, sizeof title, "%s (%d%s%d)", name, b->rows, TIMES, b->cols);
    int gx = x + b->label_w, gy = y + g->title_h + g->col_label_h;
    int gw = edge(g->cell_w, b->cols), gh = edge(g->cell_h, b->rows);
    // Title: bold and blue for the result.
    FontRole tf = b->result ? FONT_BOLD : FONT_REGULAR;
    // The full title, else the name alone, else the name cut.
    const char *pick = text_w(c, tf, g->title_font, title) <= gw + b->label_w ? title : name;
    fit_text(c, tf, g->title_font, pick, gw + b->label_w, fitted, sizeof fitted);
    int tw = text_w(c, tf, g->title_font, fitted);
    if (tw <= gw) text_in(c, tf, g->title_font, b->result ? RESULT : INK, gx, y, gw, g->title_h, CENTER, fitted);
    else text_in(c, tf, g->title_font, b->result ? RESULT : INK, gx + gw - tw, y, tw, g->title_h, LEFT, fitted);
    Axis ra, ca;
    mat_axes(b->mat, &ra, &ca);
    // Column labels: every k-th (1, 2, 4 ...) when the cells are narrower than the labels.
    int lh = line_h(c, FONT_REGULAR, g->label_font);
    int widest = text_w(c, FONT_REGULAR, g->label_font, "000");
    for (int j = 0; j < b->cols && ca != AXIS_DIM; j++) {
        axis_label(c->L, ca, j, buf, sizeof buf);
        int w = text_w(c, FONT_REGULAR, g->label_font, buf);
        if (w > widest) widest = w;
    }
    if (widest > px(c, 90)) widest = px(c, 90); // long tokens are cut
    int step_c = 1;
    while (step_c * g->cell_w < widest + px(c, 4) && step_c < b->cols) step_c *= 2;
    for (int j = 0; j < b->cols; j += step_c) {
        axis_label(c->L, ca, j, buf, sizeof buf);
        int x0 = gx + edge(g->cell_w, j), wcell = edge(g->cell_w, j + 1) - edge(g->cell_w, j);
        fit_text(c, FONT_REGULAR, g->label_font, buf, (int)(g->cell_w * step_c) - px(c, 2), fitted, sizeof fitted);
        if (fitted[0] && x0 + text_w(c, FONT_REGULAR, g->label_font, fitted) <= c->s->width)
            text_in(c, FONT_REGULAR, g->label_font, MUTED, x0, gy - g->col_label_h, wcell, g->col_label_h,
                    step_c == 1 ? CENTER : LEFT, fitted);
    }
    int step_r = 1;
    while (step_r * g->cell_h < lh && step_r < b->rows) step_r *= 2;
    for (int i = 0; i < b->rows; i += step_r) {
        axis_label(c->L, ra, i, buf, sizeof buf);
        fit_text(c, FONT_REGULAR, g->label_font, buf, b->label_w - px(c, 6), fitted, sizeof fitted);
        int y0 = gy + edge(g->cell_h, i), hcell = edge(g->cell_h, i + 1) - edge(g->cell_h, i);
        if (hcell < lh) y0 -= (lh - hcell) / 2, hcell = lh;
        if (y0 < gy - px(c, 2)) y0 = gy;
        if (y0 + hcell > gy + gh + lh / 2) continue;
        text_in(c, FONT_REGULAR, g->label_font, MUTED, x, y0, b->label_w - px(c, 6), hcell, RIGHT, fitted);
    }
    // Cells, or blocks of cells when there are more cells than pixels.
    rect(c, gx, gy, gw, gh, GRID);
    int brows = b->rows, bcols = b->cols;
    if (g->cell_h < 2.0) brows = gh / 2 > 0 ? gh / 2 : 1;
    if (g->cell_w < 2.0) bcols = gw / 2 > 0 ? gw / 2 : 1;
    if (brows > b->rows) brows = b->rows;
    if (bcols > b->cols) bcols = b->cols;
    bool blocks = brows != b->rows || bcols != b->cols;
    int inset = g->cell_w >= 8 && g->cell_h >= 8 ? 1 : 0;
    bool editable = c->ex->original && view_mat_editable(b->mat);
    for (int bi = 0; bi < brows; bi++) {
        int r0 = (int)((long)bi * b->rows / brows), r1 = (int)((long)(bi + 1) * b->rows / brows);
        int y0 = gy + edge(g->cell_h, r0), y1 = gy + edge(g->cell_h, r1);
        for (int bj = 0; bj < bcols; bj++) {
            int c0 = (int)((long)bj * b->cols / bcols), c1 = (int)((long)(bj + 1) * b->cols / bcols);
            int x0 = gx + edge(g->cell_w, c0), x1 = gx + edge(g->cell_w, c1);
            CellRef ref = {b->mat, b->head, r0, c0};
            int cw = x1 - x0 - inset, ch = y1 - y0 - inset;
            if (b->result && !view_cell_revealed(c->st, ref)) {
                rect(c, x0, y0, cw, ch, EMPTY);
                scene_push_hit(c->s, x0, y0, x1 - x0, y1 - y0, (CellRef){MAT_NONE, 0, 0, 0}, -1);
                continue;
            }
            double v = blocks ? block_value(c, b->mat, b->head, r0, r1, c0, c1) : scene_cell_value(c->L, c->T, ref);
            Rgba bgc = cell_color(c, b->mat, v, b->range);
            rect(c, x0, y0, cw, ch, bgc);
            if (isinf(v) && cw >= 4 && ch >= 4) scene_push(c->s, CMD_HATCH, x0, y0, cw, ch, HATCH);
            if (g->num_font > 0 && !blocks) {
                scene_format_value(v, buf, sizeof buf);
                text_in(c, FONT_REGULAR, g->num_font, isinf(v) ? INK : colormap_text_on(bgc), x0, y0, cw, ch, CENTER,
                        buf);
            }
            if (editable && block_edited(c, b, r0, r1, c0, c1)) {
                // Edited by hand: a corner tab and an outline in their own colour.
                int k = (cw < ch ? cw : ch) / 3;
                if (k > px(c, 10)) k = px(c, 10);
                if (k >= 3) rect(c, x0 + cw - k, y0, k, k, EDITED);
                if (cw >= 6 && ch >= 6) frame(c, x0, y0, cw, ch, cw >= 20 ? px(c, 2) : 1, EDITED);
            }
            scene_push_hit(c->s, x0, y0, x1 - x0, y1 - y0, ref, -1);
        }
    }
    // Lit input bands (drawn after the cells so they sit on top).
    int t = px(c, 3);
    for (int k = 0; k < c->lit_count; k++) {
        const CellRef *l = &c->lit[k];
        if (l->mat != b->mat || (per_head_mat(b->mat) && l->head != b->head)) continue;
        int r0 = l->row < 0 ? 0 : l->row, r1 = l->row < 0 ? b->rows : l->row + 1;
        int c0 = l->col < 0 ? 0 : l->col, c1 = l->col < 0 ? b->cols : l->col + 1;
        if (r1 > b->rows || c1 > b->cols) continue;
        int x0 = gx + edge(g->cell_w, c0), x1 = gx + edge(g->cell_w, c1);
        int y0 = gy + edge(g->cell_h, r0), y1 = gy + edge(g->cell_h, r1);
        frame(c, x0 - t, y0 - t, x1 - x0 + 2 * t, y1 - y0 + 2 * t, t, LIT);
    }
    if (b->result) frame(c, gx - px(c, 5), gy - px(c, 5), gw + px(c, 10), gh + px(c, 10), px(c, 3), RESULT);
}

// ---------------------------------------------------------------------------------------------------
// The board: the stage's operation as rows of terms (matrices and operators)

typedef struct {
    bool is_op;
    MatBox box;
    char op[48];
} Term;

typedef struct {
    Term t[20];
    int count;
} EqRow;

static void add_mat(Ctx *c, EqRow *r, MatId m, int head, bool result)
{
    if (r->count >= 20) return;
    Term *t = &r->t[r->count++];
    memset(t, 0, sizeof *t);
    t->box.mat = m;
    t->box.head = head;
    t->box.result = result;
    scene_mat_shape(c->L, m, &t->box.rows, &t->box.cols);
    t->box.range = matrix_range_sign(c, m, head, &t->box.negative);
    if (is_weights(m)) t->box.range = 1.0;
}

static void add_op(EqRow *r, const char *op)
{
    if (r->count >= 20) return;
    Term *t = &r->t[r->count++];
    memset(t, 0, sizeof *t);
    t->is_op = true;
    snprintf(t->op, sizeof t->op, "%s", op);
}

// The stage's operation as rows of terms. Variants are other arrangements (0 rows when there is none):
// 1: the projections as one row X · [W^Q W^K W^V] = [Q K V], better for wide embeddings;
// 2: a one-row operation stacked at its "=" (the inputs above, "= result" below), for operations much
//    wider than tall, such as 5 tokens' S′ + M = S′ + M.

// One row "A op B = R" of an operation; R, the stage's result, is highlighted.
static void add_binary(Ctx *c, EqRow *row, MatId a, const char *op, MatId b, MatId result, int h)
{
    add_mat(c, row, a, h, false);
    add_op(row, op);
    add_mat(c, row, b, h, false);
    add_op(row, "=");
    add_mat(c, row, result, h, true);
}
static int build_rows(Ctx *c, EqRow *rows, int max_rows, int variant)
{
    const AttnParams *p = &c->L->params;
    int h = c->st->head, n = 0;
    char op[48];
    memset(rows, 0, sizeof(EqRow) * (size_t)max_rows);
    if (variant == 2) {
        EqRow one[3];
        if (max_rows < 2 || build_rows(c, one, 3, 0) != 1) return 0;
        int eq = -1;
        for (int k = 0; k < one[0].count; k++)
            if (one[0].t[k].is_op && strchr(one[0].t[k].op, '=')) eq = k;
        if (eq <= 0 || eq >= one[0].count - 1) return 0;
        for (int k = 0; k < eq; k++) rows[0].t[rows[0].count++] = one[0].t[k];
        Term *e = &one[0].t[eq];
        size_t len = strlen(e->op);
        if (len > 2 && strcmp(e->op + len - 2, " =") == 0) { // "÷ √2 =": "÷ √2" stays above
            e->op[len - 2] = '\0';
            rows[0].t[rows[0].count++] = *e;
        }
        add_op(&rows[1], "=");
        for (int k = eq + 1; k < one[0].count; k++) rows[1].t[rows[1].count++] = one[0].t[k];
        return 2;
    }
    if (variant != 0 && view_stage(c->st) != STAGE_PROJECT) return 0;
    switch (view_stage(c->st)) {
    case STAGE_INPUT:
        add_mat(c, &rows[n], MAT_X, h, true);
        if (p->cross) {
            add_op(&rows[n], "   ");
            add_mat(c, &rows[n], MAT_S, h, true);
        }
        n++;
        break;
    case STAGE_PROJECT: {
        MatId w[3] = {MAT_WQ, MAT_WK, MAT_WV}, o[3] = {MAT_Q, MAT_K, MAT_V};
        if (variant == 1) {
            if (p->cross) return 0;
            add_mat(c, &rows[0], MAT_X, h, false);
            add_op(&rows[0], "\xc2\xb7");
            for (int i = 0; i < 3; i++) add_mat(c, &rows[0], w[i], h, false);
            add_op(&rows[0], "=");
            for (int i = 0; i < 3; i++) add_mat(c, &rows[0], o[i], h, true);
            return 1;
        }
        for (int i = 0; i < 3 && n < max_rows; i++, n++) {
            add_binary(c, &rows[n], (i == 0 || !p->cross) ? MAT_X : MAT_S, "\xc2\xb7", w[i], o[i], h);
        }
        break;
    }
    case STAGE_SCORES:
        add_binary(c, &rows[n++], MAT_Q, "\xc2\xb7", MAT_KT, MAT_SCORES, h);
        break;
    case STAGE_SCALE:
        add_mat(c, &rows[n], MAT_SCORES, h, false);
        snprintf(op, sizeof op, "\xc3\xb7 %s%d =", SQRT, p->d_k);
        add_op(&rows[n], op);
        add_mat(c, &rows[n], MAT_SCALED, h, true);
        n++;
        break;
    case STAGE_MASK:
        add_binary(c, &rows[n++], MAT_SCALED, "+", MAT_MASK, MAT_MASKED, h);
        break;
    case STAGE_SOFTMAX:
        add_op(&rows[n], "softmax");
        add_mat(c, &rows[n], p->mask == MASK_CAUSAL ? MAT_MASKED : MAT_SCALED, h, false);
        add_op(&rows[n], "=");
        add_mat(c, &rows[n], MAT_WEIGHTS, h, true);
        n++;
        break;
    case STAGE_WEIGHTED_SUM:
        add_binary(c, &rows[n++], MAT_WEIGHTS, "\xc2\xb7", MAT_V, MAT_Z, h);
        break;
    case STAGE_CONCAT: {
        // Up to 8 heads' Z on the left; with more, the concat alone (its columns say which head).
        if (p->heads <= 8) {
            for (int i = 0; i < p->heads; i++) {
                if (i) add_op(&rows[n], "|");
                add_mat(c, &rows[n], MAT_Z, i, false);
            }
            add_op(&rows[n], "=");
        }
        add_mat(c, &rows[n], MAT_CONCAT, h, true);
        n++;
        break;
    }
    case STAGE_OUTPUT:
        add_binary(c, &rows[n++], MAT_CONCAT, "\xc2\xb7", MAT_WO, MAT_OUTPUT, h);
        break;
    default: break;
    }
    return n;
}

// The widest formatted value among the board's matrices: the largest magnitude, with a sign if any is negative.
static int widest_value(const Ctx *c, const EqRow *rows, int nrows, int font)
{
    int best = text_w(c, FONT_REGULAR, font, "0.0000");
    char buf[64];
    for (int r = 0; r < nrows; r++)
        for (int k = 0; k < rows[r].count; k++) {
            const Term *t = &rows[r].t[k];
            if (t->is_op) continue;
            scene_format_value(t->box.negative ? -t->box.range : t->box.range, buf, sizeof buf);
            int w = text_w(c, FONT_REGULAR, font, buf);
            if (w > best) best = w;
        }
    return best;
}

// Chooses cell sizes and fonts so that all rows fit in w x h. Returns the cell area (bigger is better).
static double fit_style(Ctx *c, EqRow *rows, int nrows, int w, int h, GridStyle *gs)
{
    GridStyle g;
    g.title_font = px(c, 18);
    g.label_font = px(c, 16);
    g.title_h = line_h(c, FONT_BOLD, g.title_font) + px(c, 10);
    g.col_label_h = line_h(c, FONT_REGULAR, g.label_font) + px(c, 4);
    g.gap = px(c, 12);
    int op_font = px(c, 28);
    int num_target = px(c, 17);
    int cw_max = widest_value(c, rows, nrows, num_target) + px(c, 12);
    int ch_max = line_h(c, FONT_REGULAR, num_target) + px(c, 12);
    // Fixed widths and heights of each row, then the cell size that fits all rows. Width and height shrink
    // separately (cells may get flatter) so that numbers survive as long as possible.
    double fit_w = 1.0, fit_h = 1.0;
    int fixed_h = 0, sum_rows = 0;
    for (int r = 0; r < nrows; r++) {
        int fixed_w = 0, cols = 0, tallest = 0;
        for (int k = 0; k < rows[r].count; k++) {
            Term *t = &rows[r].t[k];
            if (t->is_op) {
                fixed_w += text_w(c, FONT_BOLD, op_font, t->op) + 2 * g.gap;
            } else {
                t->box.label_w = row_label_width(c, t->box.mat, t->box.rows, g.label_font);
                fixed_w += t->box.label_w + px(c, 12);
                cols += t->box.cols;
                if (t->box.rows > tallest) tallest = t->box.rows;
            }
        }
        if (cols > 0) {
            double f = (double)(w - fixed_w) / ((double)cols * cw_max);
            if (f < fit_w) fit_w = f;
        }
        fixed_h += g.title_h + g.col_label_h + px(c, 16);
        sum_rows += tallest;
    }
    if (sum_rows > 0) {
        double f = (double)(h - fixed_h) / ((double)sum_rows * ch_max);
        if (f < fit_h) fit_h = f;
    }
    if (fit_w <= 0.0) fit_w = 0.01;
    if (fit_h <= 0.0) fit_h = 0.01;
    // Not flatter than 1:4, nor taller than wide.
    g.cell_w = floor(cw_max * fit_w * 64.0) / 64.0;
    g.cell_h = floor(ch_max * fit_h * 64.0) / 64.0;
    if (g.cell_w > 4.0 * g.cell_h) g.cell_w = 4.0 * g.cell_h;
    if (g.cell_h > g.cell_w) g.cell_h = g.cell_w;
    if (g.cell_w > 8.0) g.cell_w = floor(g.cell_w); // whole pixels when there is room: crisp grids
    if (g.cell_h > 8.0) g.cell_h = floor(g.cell_h);
    // Numbers: the largest font that still fits the cell, or none when that would be illegible.
    g.num_font = num_target;
    while (g.num_font >= c->min_font &&
           (widest_value(c, rows, nrows, g.num_font) + px(c, 4) > g.cell_w ||
            line_h(c, FONT_REGULAR, g.num_font) > g.cell_h))
        g.num_font--;
    if (g.num_font < c->min_font) g.num_font = 0;
    g.op_font = op_font;
    *gs = g;
    return g.cell_w * g.cell_h * (g.num_font > 0 ? 4.0 : 1.0);
}

// The projections of self-attention as one multiplication scheme: X once on the left, each W above its
// result, so that row i of X lines up with row i of Q, K and V, and column j of W with their column j.
// Three stacked rows "X · W = Q" repeat X and share the height three ways; this shares it two ways
// (d_model + n rows instead of 3·max(d_model, n)), so the numbers are larger and every row is labelled.
// rows[0]: W^Q W^K W^V; rows[1]: X, a spacer, Q K V.
static bool build_scheme(Ctx *c, EqRow rows[2])
{
    if (view_stage(c->st) != STAGE_PROJECT || c->L->params.cross) return false;
    int h = c->st->head;
    memset(rows, 0, 2 * sizeof *rows);
    add_mat(c, &rows[0], MAT_WQ, h, false);
    add_mat(c, &rows[0], MAT_WK, h, false);
    add_mat(c, &rows[0], MAT_WV, h, false);
    add_mat(c, &rows[1], MAT_X, h, false);
    add_op(&rows[1], "  ");
    add_mat(c, &rows[1], MAT_Q, h, true);
    add_mat(c, &rows[1], MAT_K, h, true);
    add_mat(c, &rows[1], MAT_V, h, true);
    return true;
}

static void draw_scheme(Ctx *c, EqRow rows[2], const GridStyle *g, int x, int y, int w, int h)
{
    MatBox *wb[3] = {&rows[0].t[0].box, &rows[0].t[1].box, &rows[0].t[2].box};
    MatBox *xb = &rows[1].t[0].box, *rb[3] = {&rows[1].t[2].box, &rows[1].t[3].box, &rows[1].t[4].box};
    // "Q₀ = X·W₀^Q": each result says where it comes from.
    char titles[3][64];
    for (int i = 0; i < 3; i++) {
        char rn[32], wn[32];
        mat_name(c->L, rb[i]->mat, rb[i]->head, rn, sizeof rn);
        mat_name(c->L, wb[i]->mat, wb[i]->head, wn, sizeof wn);
        snprintf(titles[i], sizeof titles[i], "%s = X\xc2\xb7%s", rn, wn);
        rb[i]->title = titles[i];
    }
    int spacer = text_w(c, FONT_BOLD, g->op_font, rows[1].t[1].op) + 2 * g->gap, sep = px(c, 24);
    int col_w[3], label[3], total = box_width(g, xb) + spacer;
    for (int i = 0; i < 3; i++) {
        label[i] = wb[i]->label_w > rb[i]->label_w ? wb[i]->label_w : rb[i]->label_w;
        col_w[i] = label[i] + (int)floor(rb[i]->cols * g->cell_w + 1e-9);
        total += col_w[i] + (i ? sep : 0);
    }
    if (total > w) { // the columns closer together when the cells took the room (never closer than px(12))
        int narrower = (total - w + 1) / 2;
        if (narrower > sep - px(c, 12)) narrower = sep - px(c, 12);
        sep -= narrower;
        total -= 2 * narrower;
    }
    int vgap = px(c, 16), top_h = box_height(g, wb[0]), bottom_h = box_height(g, rb[0]);
    int xx = x + (w - total) / 2, yy = y + (h - top_h - vgap - bottom_h) / 2;
    if (xx < x) xx = x;
    if (yy < y) yy = y;
    int by = yy + top_h + vgap;
    draw_matrix(c, g, xb, xx, by);
    xx += box_width(g, xb) + spacer;
    for (int i = 0; i < 3; i++) {
        int gx = xx + label[i]; // the left edge of both grids of this column
        draw_matrix(c, g, wb[i], gx - wb[i]->label_w, yy);
        draw_matrix(c, g, rb[i], gx - rb[i]->label_w, by);
        xx += col_w[i] + sep;
    }
}

static void draw_board(Ctx *c, int x, int y, int w, int h)
{
    EqRow rows[3], alt[3];
    GridStyle g, ga;
    int nrows = build_rows(c, rows, 3, 0);
    if (nrows == 0) return;
    double score = fit_style(c, rows, nrows, w, h, &g);
    if (build_scheme(c, alt)) {
        double alt_score = fit_style(c, alt, 2, w, h, &ga);
        // Only when it shows the numbers: with colours alone, long thin strips read worse than the rows.
        if (ga.num_font > 0 && alt_score > score) {
            draw_scheme(c, alt, &ga, x, y, w, h);
            return;
        }
    }
    for (int variant = 1; variant <= 2; variant++) {
        int nalt = build_rows(c, alt, 3, variant);
        double alt_score = nalt > 0 ? fit_style(c, alt, nalt, w, h, &ga) : 0.0;
        // Stacking must win clearly (numbers where there were none, or much bigger cells).
        if (nalt > 0 && alt_score > (variant == 2 ? 1.3 : 1.0) * score) {
            memcpy(rows, alt, sizeof rows);
            nrows = nalt;
            g = ga;
            score = alt_score;
        }
    }
    int op_font = g.op_font;
    // Lay out the rows, each centred horizontally; vertical space shared equally.
    int total_h = 0;
    int heights[3];
    for (int r = 0; r < nrows; r++) {
        int tallest = 0;
        for (int k = 0; k < rows[r].count; k++)
            if (!rows[r].t[k].is_op && box_height(&g, &rows[r].t[k].box) > tallest)
                tallest = box_height(&g, &rows[r].t[k].box);
        heights[r] = tallest;
        total_h += tallest;
    }
    int vgap = nrows > 1 ? (h - total_h) / (nrows + 1) : (h - total_h) / 2;
    if (vgap < 0) vgap = 0;
    int yy = y + vgap;
    if (vgap > px(c, 40) && nrows > 1) yy = y + (h - total_h - (nrows - 1) * px(c, 40)) / 2, vgap = px(c, 40);
    for (int r = 0; r < nrows; r++) {
        int row_w = 0;
        for (int k = 0; k < rows[r].count; k++) {
            const Term *t = &rows[r].t[k];
            row_w += t->is_op ? text_w(c, FONT_BOLD, op_font, t->op) + 2 * g.gap : box_width(&g, &t->box) + px(c, 12);
        }
        int xx = x + (w - row_w) / 2;
        if (xx < x) xx = x;
        for (int k = 0; k < rows[r].count; k++) {
            const Term *t = &rows[r].t[k];
            if (t->is_op) {
                int ow = text_w(c, FONT_BOLD, op_font, t->op);
                // Centre the operator on the tallest matrix's cells.
                int cells_top = yy + g.title_h + g.col_label_h;
                int cells_h = heights[r] - g.title_h - g.col_label_h;
                text_in(c, FONT_BOLD, op_font, INK, xx + g.gap, cells_top, ow, cells_h, CENTER, t->op);
                xx += ow + 2 * g.gap;
            } else {
                int bh = box_height(&g, &t->box);
                int top = yy + (heights[r] - bh) / 2;
                draw_matrix(c, &g, &t->box, xx, top);
                xx += box_width(&g, &t->box) + px(c, 12);
            }
        }
        yy += heights[r] + vgap;
    }
}

// ---------------------------------------------------------------------------------------------------
// Heatmaps

// Which matrix the heatmap shows at this stage, and whether it is on the fixed 0..1 scale.
static MatId heat_mat(const ViewState *st, const Lesson *L)
{
    switch (view_stage(st)) {
    case STAGE_INPUT:
    case STAGE_PROJECT: return MAT_NONE;
    case STAGE_SCORES: return MAT_SCORES;
    case STAGE_SCALE: return MAT_SCALED;
    case STAGE_MASK: return L->params.mask == MASK_CAUSAL ? MAT_MASKED : MAT_SCALED;
    default: return MAT_WEIGHTS;
    }
}

static double heat_range(const Ctx *c, MatId m)
{
    if (m == MAT_WEIGHTS) return 1.0;
    double r = 0.0; // shared by all heads so that they compare fairly
    for (int h = 0; h < c->L->params.heads; h++) {
        double x = matrix_range(c, m, h);
        if (x > r) r = x;
    }
    return r;
}

// "Head 0 · attention weights A₀"; the part before " · " is the first line when it must wrap.
static void heat_title(const Ctx *c, MatId m, int head, bool compact, char *buf, size_t cap)
{
    char name[64];
    mat_name(c->L, m, head, name, sizeof name);
    const char *what = m == MAT_WEIGHTS ? "attention weights" : m == MAT_SCORES ? "raw scores" : "scaled scores";
    if (compact) snprintf(buf, cap, "head %d", head);
    else snprintf(buf, cap, "Head %d \xc2\xb7 %s %s", head, what, name);
}

// v with `dec` decimals and a real minus sign (the heatmap falls back to 2 decimals in small cells).
static void format_dec(double v, int dec, char *buf, size_t cap)
{
    if (dec >= 4 || !isfinite(v)) {
        scene_format_value(v, buf, cap);
        return;
    }
    double lim = 0.5 * pow(10.0, -dec);
    if (fabs(v) < lim) v = 0.0;
    char tmp[64];
    if (fabs(v) >= 1e3) snprintf(tmp, sizeof tmp, "%.1e", fabs(v));
    else snprintf(tmp, sizeof tmp, "%.*f", dec, fabs(v));
    snprintf(buf, cap, "%s%s", v < 0 ? "\xe2\x88\x92" : "", tmp);
}

// Vertical colour bar with its range; (x, y, w, h) is the whole bar including its labels.
static void draw_colorbar(Ctx *c, MatId m, double range, int x, int y, int w, int h)
{
    int font = px(c, 15);
    int lh = line_h(c, FONT_REGULAR, font);
    int bar_w = px(c, 18);
    if (bar_w > w / 3) bar_w = w / 3 > 4 ? w / 3 : 4;
    int top = y, bh = h;
    if (bh < 3 * lh) { // too short for three labels: grow around the centre
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
    frame(c, x, top, bar_w, bh, 1, MUTED);
    char buf[32];
    double hi = m == MAT_WEIGHTS ? 1.0 : range, lo = m == MAT_WEIGHTS ? 0.0 : -range;
    double mid = (hi + lo) / 2.0;
    int lx = x + bar_w + px(c, 6), lw = w - bar_w - px(c, 6);
    scene_format_value(hi, buf, sizeof buf);
    text_in(c, FONT_REGULAR, font, MUTED, lx, top, lw, lh, LEFT, buf);
    scene_format_value(mid, buf, sizeof buf);
    text_in(c, FONT_REGULAR, font, MUTED, lx, top + bh / 2 - lh / 2, lw, lh, LEFT, buf);
    scene_format_value(lo, buf, sizeof buf);
    text_in(c, FONT_REGULAR, font, MUTED, lx, top + bh - lh, lw, lh, LEFT, buf);
}

static int colorbar_width(const Ctx *c)
{
    return px(c, 18) + px(c, 6) + text_w(c, FONT_REGULAR, px(c, 15), "\xe2\x88\x92" "00.0000") + px(c, 4);
}

// One head's heatmap in (x, y, w, h): title, key labels on top, query labels left, square-ish cells.
// title: NULL for the head's own title (heat_title).
static void draw_heatmap(Ctx *c, MatId m, int head, double range, int x, int y, int w, int h, bool compact,
                         bool selected, int *grid_y, int *grid_h, const char *title_text)
{
    *grid_y = y;
    *grid_h = h;
    const AttnParams *p = &c->L->params;
    int title_font = compact ? px(c, 16) : px(c, 18);
    int label_font = compact ? px(c, 14) : px(c, 16);
    if (label_font < 12) label_font = 12;
    char title[128], buf[128], fitted[128];
    if (title_text) snprintf(title, sizeof title, "%s", title_text);
    else heat_title(c, m, head, compact, title, sizeof title);
    int tlh = line_h(c, FONT_BOLD, title_font);
    int th = tlh + px(c, 6);
    int title_w = text_w(c, FONT_BOLD, title_font, title);
    const char *dot = strstr(title, " \xc2\xb7 ");
    Rgba tcol = selected ? RESULT : INK;
    if (title_w > w && dot && !compact) {
        // Too wide for one line: "Head 0" above, "attention weights A₀" below.
        char first[128];
        snprintf(first, sizeof first, "%.*s", (int)(dot - title), title);
        fit_text(c, FONT_BOLD, title_font, first, w, fitted, sizeof fitted);
        text_in(c, FONT_BOLD, title_font, tcol, x, y, w, tlh, LEFT, fitted);
        fit_text(c, FONT_REGULAR, title_font, dot + 4, w, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, title_font, tcol, x, y + tlh, w, tlh, LEFT, fitted);
        th = 2 * tlh + px(c, 6);
        title_w = w;
    } else {
        fit_text(c, FONT_BOLD, title_font, title, w, fitted, sizeof fitted);
        text_in(c, FONT_BOLD, title_font, tcol, x, y, w, th, compact ? CENTER : LEFT, fitted);
        title_w = text_w(c, FONT_BOLD, title_font, fitted);
    }
    // Labels: shown when there is room for them at a legible size.
    int lw = 0, llh = line_h(c, FONT_REGULAR, label_font);
    for (int i = 0; i < p->n; i++) {
        int tw = text_w(c, FONT_REGULAR, label_font, c->L->tokens[i]);
        if (tw > lw) lw = tw;
    }
    if (lw > w / 4) lw = w / 4;
    lw += px(c, 6);
    int top_h = llh + px(c, 4);
    int avail_w = w - lw, avail_h = h - th - top_h;
    int cell = p->m > 0 ? avail_w / p->m : 0;
    if (p->n > 0 && avail_h / p->n < cell) cell = avail_h / p->n;
    bool labels = cell >= 6;
    if (!labels) {
        lw = 0;
        top_h = 0;
        cell = p->m > 0 ? w / p->m : 0;
        if (p->n > 0 && (h - th) / p->n < cell) cell = (h - th) / p->n;
    }
    if (cell < 1) return;
    int cell_w = cell, cell_h = cell;
    // Wider than tall looks better for numbers when the panel is wide.
    if (!compact) {
        int wide = p->m > 0 ? avail_w / p->m : cell;
        if (wide > cell * 2) wide = cell * 2;
        if (wide > cell) cell_w = wide;
    }
    int gw = cell_w * p->m;
    int gx = x + lw + (w - lw - gw) / 2, gy = y + th + top_h;
    *grid_y = gy;
    *grid_h = cell_h * p->n;
    scene_push_hit(c->s, x, y, w, h, (CellRef){MAT_NONE, 0, 0, 0}, head);
    // Numbers when legible: 4 decimals as on the board, else 2 (the colour carries the rest).
    int nf = 0, dec = 4;
    for (int d = 4; d >= 2 && nf == 0; d -= 2) {
        int f = px(c, 17);
        if (compact && f > cell_h / 2) f = cell_h / 2;
        char widest[32];
        format_dec(m == MAT_WEIGHTS ? 1.0 : -range, d, widest, sizeof widest);
        while (f >= c->min_font && (text_w(c, FONT_REGULAR, f, widest) + px(c, 6) > cell_w ||
                                    line_h(c, FONT_REGULAR, f) > cell_h))
            f--;
        if (f >= c->min_font) {
            nf = f;
            dec = d;
        }
    }
    if (labels) {
        int widest = 0;
        for (int j = 0; j < p->m; j++) {
            int tw = text_w(c, FONT_REGULAR, label_font, c->L->source_tokens[j]);
            if (tw > widest) widest = tw;
        }
        if (widest > px(c, 90)) widest = px(c, 90);
        int step_c = 1;
        while (step_c * cell_w < widest + px(c, 4) && step_c < p->m) step_c++;
        for (int j = 0; j < p->m; j += step_c) {
            fit_text(c, FONT_REGULAR, label_font, c->L->source_tokens[j], cell_w * step_c - px(c, 2), fitted,
                     sizeof fitted);
            int tw = text_w(c, FONT_REGULAR, label_font, fitted);
            int lx = gx + j * cell_w + (cell_w - tw) / 2;
            if (lx < gx) lx = gx;
            if (lx + tw > x + w) lx = x + w - tw;
            text_at(c, FONT_REGULAR, label_font, MUTED, lx, gy - top_h + (top_h - llh) / 2, fitted);
        }
        int step = 1;
        while (step * cell_h < llh && step < p->n) step++;
        for (int i = 0; i < p->n; i += step) {
            fit_text(c, FONT_REGULAR, label_font, c->L->tokens[i], lw - px(c, 6), fitted, sizeof fitted);
            text_in(c, FONT_REGULAR, label_font, MUTED, gx - lw, gy + i * cell_h, lw - px(c, 6), cell_h, RIGHT, fitted);
        }
    }
    bool causal = p->mask == MASK_CAUSAL && view_stage(c->st) >= STAGE_MASK;
    int inset = cell >= 8 ? 1 : 0;
    for (int i = 0; i < p->n; i++) {
        for (int j = 0; j < p->m; j++) {
            CellRef ref = {m, head, i, j};
            int cx = gx + j * cell_w, cy = gy + i * cell_h;
            double v = scene_cell_value(c->L, c->T, ref);
            bool masked = causal && j > i;
            Rgba bgc = masked && m == MAT_WEIGHTS ? MASKED_BG : cell_color(c, m, v, range);
            bool shown = view_cell_revealed(c->st, ref) || head != c->st->head;
            if (!shown) bgc = EMPTY;
            rect(c, cx, cy, cell_w - inset, cell_h - inset, bgc);
            if (masked && shown) scene_push(c->s, CMD_HATCH, cx, cy, cell_w - inset, cell_h - inset, HATCH);
            if (nf > 0 && shown) {
                format_dec(v, dec, buf, sizeof buf);
                text_in(c, FONT_REGULAR, nf, masked ? INK : colormap_text_on(bgc), cx, cy, cell_w - inset,
                        cell_h - inset, CENTER, buf);
            }
            if (shown) scene_push_hit(c->s, cx, cy, cell_w, cell_h, ref, head);
        }
    }
    // The focused cell (or the heatmap row the focus reads) outlined.
    CellRef f = c->focus;
    int t = px(c, 3);
    if (f.mat != MAT_NONE && f.head == head && f.row < p->n &&
        (f.mat == MAT_SCORES || f.mat == MAT_SCALED || f.mat == MAT_MASKED || f.mat == MAT_WEIGHTS)) {
        frame(c, gx + f.col * cell_w - t, gy + f.row * cell_h - t, cell_w + 2 * t, cell_h + 2 * t, t, LIT);
    } else if (f.mat == MAT_Z && f.head == head && f.row < p->n) {
        frame(c, gx - t, gy + f.row * cell_h - t, gw + 2 * t, cell_h + 2 * t, t, LIT);
    }
    if (selected && compact) {
        // Around the title and the cells, not the whole panel (whose height the grid shares out).
        int tx = x + (w - title_w) / 2;
        int l = (labels ? gx - lw : gx) < tx ? (labels ? gx - lw : gx) : tx;
        int r = gx + gw > tx + title_w ? gx + gw : tx + title_w;
        int pad = px(c, 6);
        int fx = l - pad < x ? x : l - pad, fr = r + pad > x + w ? x + w : r + pad;
        int fb = gy + cell_h * p->n + pad > y + h ? y + h : gy + cell_h * p->n + pad;
        frame(c, fx, y, fr - fx, fb - y, px(c, 2), RESULT);
    }
}

// Every head's heatmap of m in a grid that fills (x, y, w, h), with one colour bar at the right.
static void draw_heads_grid(Ctx *c, MatId m, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    double range = heat_range(c, m);
    int bar = colorbar_width(c);
    int gw = w - bar - px(c, 16);
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
    int pad = px(c, 8);
    for (int i = 0; i < p->heads; i++) {
        int px0 = x + (i % cols) * pw, py0 = y + (i / cols) * ph;
        int gy, gh;
        draw_heatmap(c, m, i, range, px0 + pad, py0 + pad, pw - 2 * pad, ph - 2 * pad, true, i == c->st->head, &gy, &gh,
                     NULL);
    }
    draw_colorbar(c, m, range, x + w - bar, y + px(c, 30), bar, h - px(c, 60));
}

static void draw_all_heads(Ctx *c, int x, int y, int w, int h)
{
    MatId m = heat_mat(c->st, c->L);
    if (m == MAT_NONE) {
        text_in(c, FONT_REGULAR, px(c, 20), MUTED, x, y, w, h, CENTER,
                c->ex->slide ? "The heads' attention patterns appear from the Scores stage on."
                             : "The heads' attention patterns appear from the Scores stage on (press \xe2\x86\x92).");
        return;
    }
    draw_heads_grid(c, m, x, y, w, h);
}

// ---------------------------------------------------------------------------------------------------
// Header, footer, explanation, overlays

static const char *stage_formula(const Ctx *c, char *buf, size_t cap)
{
    const AttnParams *p = &c->L->params;
    char h[16] = "";
    subscript(h, sizeof h, c->st->head);
    switch (view_stage(c->st)) {
    case STAGE_INPUT:
        snprintf(buf, cap, "X = the embeddings of the %d tokens  (%d%s%d: one row per token)", p->n, p->n, TIMES, p->d_model);
        break;
    case STAGE_PROJECT:
        snprintf(buf, cap, "Q%s = X W%s^Q,   K%s = %s W%s^K,   V%s = %s W%s^V", h, h, h, p->cross ? "S" : "X", h, h,
                 p->cross ? "S" : "X", h);
        break;
    case STAGE_SCORES: snprintf(buf, cap, "S%s = Q%s K%s%s", h, h, h, SUP_T); break;
    case STAGE_SCALE: snprintf(buf, cap, "S%s%s = Q%s K%s%s / %sd_k,   d_k = %d", PRIME, h, h, h, SUP_T, SQRT, p->d_k); break;
    case STAGE_MASK:
        snprintf(buf, cap, "Q%s K%s%s / %sd_k + M,   M = \xe2\x88\x92\xe2\x88\x9e above the diagonal", h, h, SUP_T, SQRT);
        break;
    case STAGE_SOFTMAX:
        snprintf(buf, cap, "A%s = softmax(Q%s K%s%s / %sd_k%s)   row by row", h, h, h, SUP_T, SQRT,
                 p->mask == MASK_CAUSAL ? " + M" : "");
        break;
    case STAGE_WEIGHTED_SUM: snprintf(buf, cap, "Z%s = A%s V%s", h, h, h); break;
    case STAGE_CONCAT: {
        char last[16] = "";
        subscript(last, sizeof last, p->heads - 1);
        snprintf(buf, cap, "Concat = [Z\xe2\x82\x80 | \xe2\x80\xa6 | Z%s]   (%d%s%d)", last, p->n, TIMES, p->heads * p->d_k);
        break;
    }
    case STAGE_OUTPUT: snprintf(buf, cap, "Output = Concat \xc2\xb7 W^O%s", mat_get(&p->b_O, 0, 0) != 0.0 ? " + b^O" : ""); break;
    default: buf[0] = '\0';
    }
    return buf;
}

// One or two plain sentences for the footer, with the lesson's own sizes, in the document's words.
// Self- and cross-attention, and causal lessons, each get their own wording where it differs.
static const char *stage_explanation(const Ctx *c, Stage s, char *buf, size_t cap)
{
    const AttnParams *p = &c->L->params;
    bool cross = p->cross, causal = p->mask == MASK_CAUSAL;
    switch (s) {
    case STAGE_INPUT:
        if (cross)
            snprintf(buf, cap, "Cross-attention: the queries come from the %d target tokens X, the keys and values from "
                     "the %d source tokens S. Each token is a row of d_model = %d numbers, its embedding.", p->n, p->m,
                     p->d_model);
        else
            snprintf(buf, cap, "Each token enters as a row of d_model = %d numbers, its embedding. Every head reads "
                     "the same X.", p->d_model);
        break;
    case STAGE_PROJECT:
        snprintf(buf, cap, "Each head has its own W^Q, W^K and W^V (%d × %d). They turn %s into that head's "
                 "queries Q, keys K and values V: d_k = %d numbers per token instead of %d.", p->d_model, p->d_k,
                 cross ? "X into Q, and S into K and V," : "every row of X", p->d_k, p->d_model);
        break;
    case STAGE_SCORES:
        snprintf(buf, cap, "A score is the dot product of a query row of Q and a key row of K: the larger it is, the "
                 "better that query matches that key. Each head makes its own %d × %d table.", p->n, p->m);
        break;
    case STAGE_SCALE:
        snprintf(buf, cap, "Dividing by √" "d_k = √%d keeps the scores in the same range whatever "
                 "the head size, so the softmax that follows does not saturate.", p->d_k);
        break;
    case STAGE_MASK:
        snprintf(buf, cap, "In a decoder a token may not look at the tokens after it: the mask sets every score above "
                 "the diagonal to −∞, which softmax turns into a weight of exactly 0.");
        break;
    case STAGE_SOFTMAX:
        snprintf(buf, cap, "Softmax turns each row into weights that are positive and sum to 1: how much each query "
                 "attends to each key%s. Each head is a full scaled dot-product attention, with a pattern of its own.",
                 causal ? " (masked keys get 0)" : "");
        break;
    case STAGE_WEIGHTED_SUM:
        snprintf(buf, cap, "Each row of Z = A V is a mix of the value rows, weighted by that query's attention. Every "
                 "head gives its own Z of %d × %d.", p->n, p->d_k);
        break;
    case STAGE_CONCAT:
        snprintf(buf, cap, "The %d heads' outputs are joined side by side: %d blocks of d_k = %d numbers make one row "
                 "of %d per token.", p->heads, p->heads, p->d_k, p->heads * p->d_k);
        break;
    case STAGE_OUTPUT:
        snprintf(buf, cap, "W^O (%d × %d) mixes the heads and returns a d_model-sized vector per token, so the "
                 "residual Add & Norm and the next layer receive vectors of the size they expect.", p->heads * p->d_k,
                 p->d_model);
        break;
    default: buf[0] = '\0';
    }
    return buf;
}

// The header's note: what the last save or revert did, else how many values are edited and how to undo or
// keep them. Returns NULL when there is nothing to say.
static const char *status_text(const Ctx *c, char *buf, size_t cap, Rgba *color)
{
    *color = STATUS_BG;
    if (c->ex->status) return c->ex->status;
    if (!c->ex->original) return NULL;
    int n = view_param_edit_count(c->ex->original, &c->L->params);
    if (n == 0) return NULL;
    if (c->ex->slide) snprintf(buf, cap, "\xe2\x9c\x8e %d value%s edited", n, n == 1 ? "" : "s");
    else snprintf(buf, cap, "\xe2\x9c\x8e %d value%s edited  \xc2\xb7  R reverts  \xc2\xb7  Ctrl+S saves", n, n == 1 ? "" : "s");
    *color = EDITED;
    return buf;
}

static void draw_header(Ctx *c, int x, int y, int w, int *height)
{
    const ViewState *st = c->st;
    int tf = px(c, 24), sf = px(c, 20), ff = px(c, 24);
    int l1 = line_h(c, FONT_BOLD, tf) + px(c, 8);
    char buf[256], fitted[256];
    snprintf(buf, sizeof buf, "stage %d / %d", st->stage_index + 1, st->stage_count);
    int sw = text_w(c, FONT_REGULAR, sf, buf);
    char head[96];
    if (st->panel == PANEL_COMPARE) snprintf(head, sizeof head, "1 head vs %d", c->L->params.heads);
    else if (st->view == VIEW_ALL_HEADS) snprintf(head, sizeof head, "all %d heads", c->L->params.heads);
    else snprintf(head, sizeof head, "head %d  (%d of %d)", st->head, st->head + 1, c->L->params.heads);
    int hw = text_w(c, FONT_BOLD, sf, head);
    int title_max = w - sw - hw - px(c, 80);
    // After the title: the edit count or where the lesson was saved (the title gives way, down to a third).
    char note[1600], nfit[1600];
    Rgba ncol;
    const char *ntext = status_text(c, note, sizeof note, &ncol);
    int nw_used = 0, gap = px(c, 24);
    int nf = sf;
    if (ntext) {
        // A save message must be read whole: the title gives way to a few letters and the text may shrink.
        int tw_full = text_w(c, FONT_BOLD, tf, c->L->title ? c->L->title : "");
        int keep = c->ex->status ? px(c, 60) : title_max / 3;
        if (tw_full < keep) keep = tw_full;
        int room = title_max - keep - gap;
        while (nf > c->min_font + 2 && text_w(c, FONT_BOLD, nf, ntext) > room) nf--;
        fit_text(c, FONT_BOLD, nf, ntext, room, nfit, sizeof nfit);
        nw_used = nfit[0] ? text_w(c, FONT_BOLD, nf, nfit) + gap : 0;
    }
    fit_text(c, FONT_BOLD, tf, c->L->title ? c->L->title : "", title_max - nw_used, fitted, sizeof fitted);
    int tw = text_in(c, FONT_BOLD, tf, INK, x, y, w, l1, LEFT, fitted);
    if (nw_used > 0) {
        int bw = nw_used - gap + px(c, 16), bx = x + tw + gap - px(c, 8);
        int bh = line_h(c, FONT_BOLD, nf) + px(c, 6);
        rect(c, bx, y + (l1 - bh) / 2, bw, bh, ncol);
        text_in(c, FONT_BOLD, nf, WHITE, x + tw + gap, y, nw_used - gap, l1, LEFT, nfit);
    }
    // Right: "stage k / N   head i of h"
    text_in(c, FONT_BOLD, sf, RESULT, x + w - hw, y, hw, l1, LEFT, head);
    text_in(c, FONT_REGULAR, sf, MUTED, x + w - hw - px(c, 28) - sw, y, sw, l1, LEFT, buf);
    // Line 2: the stage's name in bold, then its formula.
    int l2 = line_h(c, FONT_BOLD, ff) + px(c, 8);
    bool cmp = st->panel == PANEL_COMPARE;
    int nw = text_in(c, FONT_BOLD, ff, RESULT, x, y + l1, w, l2, LEFT, cmp ? "Single head vs multi-head" : stage_name(view_stage(st)));
    char formula[256];
    if (cmp) {
        char last[16] = "";
        subscript(last, sizeof last, c->L->params.heads - 1);
        snprintf(formula, sizeof formula, "W^Q = [W\xe2\x82\x80^Q | \xe2\x80\xa6 | W%s^Q], likewise W^K, W^V; the same W^O",
                 last);
    } else
        stage_formula(c, formula, sizeof formula);
    fit_text(c, FONT_REGULAR, ff, formula, w - nw - px(c, 40), fitted, sizeof fitted);
    text_in(c, FONT_REGULAR, ff, INK, x + nw + px(c, 40), y + l1, w - nw - px(c, 40), l2, LEFT, fitted);
    // Stage progress: one small bar per stage.
    int by = y + l1 + l2 + px(c, 4), bw = (w - (st->stage_count - 1) * px(c, 4)) / (st->stage_count ? st->stage_count : 1);
    for (int i = 0; i < st->stage_count; i++)
        rect(c, x + i * (bw + px(c, 4)), by, bw, px(c, 4), i <= st->stage_index ? RESULT : EMPTY);
    *height = l1 + l2 + px(c, 12);
}

static void draw_explain(Ctx *c, int x, int y, int w, int h)
{
    char lines[4][256];
    int n = explain_lines(c->L, c->T, c->focus, lines, 4, !c->ex->slide);
    if (n == 0 && c->ex->slide) return; // a slide has no pointer to invite
    rect(c, x, y, w, h, PANEL);
    int f = px(c, 18);
    int lh = line_h(c, FONT_MONO, f);
    int pad = px(c, 12);
    if (n == 0) {
        const char *hint = view_stage(c->st) == STAGE_INPUT
                               ? "Point at a number to see where it comes from.  \xe2\x86\x92 next stage,  H all keys"
                               : "Point at (or click) a cell to see how it was computed.  \xe2\x80\x9c.\xe2\x80\x9d fills the "
                                 "result one cell at a time.";
        char fitted[256];
        fit_text(c, FONT_REGULAR, px(c, 18), hint, w - 2 * pad, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, px(c, 18), MUTED, x + pad, y, w - 2 * pad, h, LEFT, fitted);
        return;
    }
    int total = n * lh;
    int yy = y + (h - total) / 2;
    for (int i = 0; i < n; i++) {
        // Shrink a long line down to the legible minimum, then cut it.
        int size = f;
        while (size > c->min_font && text_w(c, FONT_MONO, size, lines[i]) > w - 2 * pad) size--;
        char fitted[256];
        fit_text(c, FONT_MONO, size, lines[i], w - 2 * pad, fitted, sizeof fitted);
        text_at(c, FONT_MONO, size, i == 0 ? INK : (i == n - 1 ? RESULT : INK), x + pad, yy + i * lh, fitted);
    }
}

static const char COMPARE_TEXT[] =
    "The single head holds exactly the heads' weights, joined side by side. It computes one attention pattern where the "
    "heads compute one each: the split changes the patterns and the output, not the number of weights or multiplications.";

static int draw_footer(Ctx *c, int x, int y, int w, bool draw)
{
    int f = px(c, 18);
    if (c->st->panel == PANEL_COMPARE) return wrap_text(c, FONT_REGULAR, f, INK, x, y, w, 2, COMPARE_TEXT, draw);
    char text[512];
    int used = wrap_text(c, FONT_REGULAR, f, INK, x, y, w, 2, stage_explanation(c, view_stage(c->st), text, sizeof text),
                         draw);
    // The lesson's notes, on the first stage, whole: up to 6 lines (the board above it is only X and gives way).
    if (c->st->stage_index == 0 && c->L->notes && c->L->notes[0])
        used += px(c, 4) + wrap_text(c, FONT_REGULAR, f, MUTED, x, y + used + px(c, 4), w, 6, c->L->notes, draw);
    return used;
}

static const char *const HELP[][2] = {
    {"\xe2\x86\x92  Space  PageDown  \xe2\x86\x93", "next stage"},
    {"\xe2\x86\x90  Backspace  PageUp  \xe2\x86\x91", "previous stage"},
    {"Home / End", "first / last stage"},
    {".   ,", "fill the result one cell at a time / undo"},
    {"1 \xe2\x80\xa6 9", "show the 1st \xe2\x80\xa6 9th head (head 0 \xe2\x80\xa6 8)"},
    {"Tab / Shift+Tab", "next / previous head"},
    {"A", "all heads at once / one head"},
    {"C", "colours: viridis, cividis, greyscale"},
    {"K", "cost panel: weights and multiplications, 1 head vs h heads"},
    {"M", "single head vs multi-head, side by side"},
    {"click + \xe2\x86\x91 \xe2\x86\x93 / wheel / drag", "change a clicked embedding or weight (Shift: finer)"},
    {"R", "revert the edits to the file"},
    {"Ctrl+S", "save the edited lesson as NAME-edited.json"},
    {"E  /  Shift+E", "slides of the heatmap / of the whole board: PNG + SVG in exports/"},
    {"+  \xe2\x88\x92  0", "zoom in, out, reset"},
    {"F11  F", "fullscreen"},
    {"mouse", "point at a cell: how it was computed; click pins it"},
    {"drop a .json", "open that lesson (saved edits reload by themselves)"},
    {"H  F1", "this help"},
    {"Esc", "close help or panel, unpin, then quit;   Q quits"},
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
        int a = text_w(c, FONT_BOLD, kf, HELP[i][0]), b = text_w(c, FONT_REGULAR, kf, HELP[i][1]);
        if (a > kw) kw = a;
        if (b > dw) dw = b;
    }
    int pad = px(c, 28);
    int pw = kw + dw + 3 * pad, ph = (rows + 1) * lh + 2 * pad;
    if (pw > w - 20) pw = w - 20;
    if (ph > h - 20) ph = h - 20;
    int x = (w - pw) / 2, y = (h - ph) / 2;
    rect(c, 0, 0, w, h, (Rgba){20, 22, 28, 150});
    rect(c, x, y, pw, ph, WHITE);
    frame(c, x, y, pw, ph, px(c, 2), RESULT);
    text_in(c, FONT_BOLD, px(c, 22), RESULT, x + pad, y + pad / 2, pw - 2 * pad, lh, LEFT, "Keys");
    for (int i = 0; i < rows; i++) {
        int yy = y + pad / 2 + (i + 1) * lh;
        if (yy + lh > y + ph) break;
        char fitted[256];
        fit_text(c, FONT_BOLD, kf, HELP[i][0], kw, fitted, sizeof fitted);
        text_in(c, FONT_BOLD, kf, INK, x + pad, yy, kw, lh, LEFT, fitted);
        fit_text(c, FONT_REGULAR, kf, HELP[i][1], pw - kw - 3 * pad, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, kf, INK, x + 2 * pad + kw, yy, pw - kw - 3 * pad, lh, LEFT, fitted);
    }
}

static void draw_banner(Ctx *c, int w, const char *msg, int *height)
{
    int f = px(c, 17);
    int pad = px(c, 10);
    int used = wrap_text(c, FONT_BOLD, f, WHITE, 0, 0, w - 2 * pad, 3, msg, false);
    rect(c, 0, 0, w, used + 2 * pad, BANNER_BG);
    wrap_text(c, FONT_BOLD, f, WHITE, pad, pad, w - 2 * pad, 3, msg, true);
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
    static const char *const head[5] = {"", "d_k", "projection weights", "score multiplications", "attention matrices"};
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
        colw[k] = text_w(c, FONT_BOLD, f, head[k]);
        for (int i = 0; i < nfig; i++) {
            int tw = text_w(c, FONT_REGULAR, f, cell[i][k]);
            if (tw > colw[k]) colw[k] = tw;
        }
    }
    int table_w = 4 * gap;
    for (int k = 0; k < 5; k++) table_w += colw[k];
    char title[160], sub[200], line1[200], line2[200], concl[300];
    snprintf(title, sizeof title, "What the heads cost \xe2\x80\x94 this lesson: d_model = %d, n = %d%s", p->d_model, p->n,
             p->cross ? "" : "");
    if (p->cross) snprintf(title + strlen(title), sizeof title - strlen(title), ", m = %d source tokens", p->m);
    snprintf(sub, sizeof sub, "The paper's layer: d_model = 512, n = 10 (the document's table)");
    snprintf(line1, sizeof line1, "projection weights = h\xc2\xb7" "3\xc2\xb7" "d_model\xc2\xb7" "d_k + h\xc2\xb7" "d_k\xc2\xb7"
                                  "d_model   (W_Q, W_K, W_V per head + W^O)");
    snprintf(line2, sizeof line2, "score multiplications = h\xc2\xb7n\xc2\xb7%s\xc2\xb7" "d_k   (all the Q_i K_i%s)",
             p->cross ? "m" : "n", SUP_T);
    snprintf(concl, sizeof concl,
             "Each head works in d_k = %d numbers instead of %d: the same weights and the same multiplications, "
             "but %d attention patterns instead of 1.",
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
    rect(c, x, y, pw, ph, WHITE);
    frame(c, x, y, pw, ph, px(c, 2), RESULT);
    int yy = y + pad / 2, tx = x + (pw - table_w) / 2;
    char fitted[300];
    fit_text(c, FONT_BOLD, px(c, 22), title, pw - 2 * pad, fitted, sizeof fitted);
    text_in(c, FONT_BOLD, px(c, 22), RESULT, x + pad, yy, pw - 2 * pad, lh, LEFT, fitted);
    yy += lh;
    for (int part = 0; part < nfig / 2; part++) {
        if (part == 1) {
            yy += lh / 2;
            fit_text(c, FONT_BOLD, f, sub, pw - 2 * pad, fitted, sizeof fitted);
            text_in(c, FONT_BOLD, f, INK, x + pad, yy, pw - 2 * pad, lh, LEFT, fitted);
            yy += lh;
        }
        int xx = tx;
        for (int k = 0; k < 5; k++) {
            text_in(c, FONT_BOLD, f, MUTED, xx, yy, colw[k], lh, k == 0 ? LEFT : RIGHT, head[k]);
            xx += colw[k] + gap;
        }
        yy += lh;
        rect(c, tx, yy - px(c, 4), table_w, 1, EMPTY);
        for (int i = part * 2; i < part * 2 + 2; i++) {
            xx = tx;
            for (int k = 0; k < 5; k++) {
                text_in(c, k == 0 ? FONT_BOLD : FONT_REGULAR, f, k == 2 || k == 3 ? RESULT : INK, xx, yy, colw[k], lh,
                        k == 0 ? LEFT : RIGHT, cell[i][k]);
                xx += colw[k] + gap;
            }
            yy += lh;
        }
    }
    yy += lh / 2;
    fit_text(c, FONT_REGULAR, sf, line1, pw - 2 * pad, fitted, sizeof fitted);
    text_in(c, FONT_REGULAR, sf, MUTED, x + pad, yy, pw - 2 * pad, lh, LEFT, fitted);
    yy += lh;
    fit_text(c, FONT_REGULAR, sf, line2, pw - 2 * pad, fitted, sizeof fitted);
    text_in(c, FONT_REGULAR, sf, MUTED, x + pad, yy, pw - 2 * pad, lh, LEFT, fitted);
    yy += lh;
    wrap_text(c, FONT_BOLD, sf, INK, x + pad, yy + px(c, 4), pw - 2 * pad, 2, concl, true);
}

// Single head vs multi-head (key M): the one head that holds the h heads' weights side by side, its one
// attention pattern beside the h patterns, and both outputs, with the cost of each.
static void draw_compare(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    const Comparison *cmp = c->ex->compare;
    if (!cmp) {
        text_in(c, FONT_REGULAR, px(c, 20), MUTED, x, y, w, h, CENTER,
                "The single-head version could not be computed (see the banner).");
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
    int bar = colorbar_width(c);
    int gap = px(c, 28);
    int left_w = (w - bar - gap) / (p->heads >= 4 ? 4 : 3);
    // Top left: the one head.
    int gy, gh;
    size_t hits = c->s->hit_count;
    snprintf(buf, sizeof buf, "One head \xc2\xb7 d_k = %d", cmp->single.d_k);
    draw_heatmap(&single, MAT_WEIGHTS, 0, 1.0, x, y, left_w, top_h, false, false, &gy, &gh, buf);
    c->s->hit_count = hits; // its cells are not the lesson's: no hover explanation for them
    // Top right: the h heads.
    int rx = x + left_w + gap, rw = w - left_w - gap;
    snprintf(buf, sizeof buf, "%d heads \xc2\xb7 d_k = %d each: each head is a full scaled dot-product attention", p->heads,
             p->d_k);
    char fitted[300];
    fit_text(c, FONT_BOLD, px(c, 18), buf, rw, fitted, sizeof fitted);
    int hth = line_h(c, FONT_BOLD, px(c, 18)) + px(c, 6);
    text_in(c, FONT_BOLD, px(c, 18), INK, rx, y, rw, hth, LEFT, fitted);
    draw_heads_grid(&multi, MAT_WEIGHTS, rx, y + hth, rw, top_h - hth);
    rect(c, x + left_w + gap / 2, y, 1, top_h, EMPTY);
    // The cost line.
    int cy = y + top_h + px(c, 4);
    cost_format_int(a, sizeof a, cmp->cost_one.projection_weights);
    cost_format_int(b, sizeof b, cmp->cost_multi.projection_weights);
    cost_format_int(d, sizeof d, cmp->cost_one.score_multiplications);
    cost_format_int(e, sizeof e, cmp->cost_multi.score_multiplications);
    snprintf(buf, sizeof buf, "Same cost: %s vs %s projection weights, %s vs %s score multiplications \xe2\x80\x94 but 1 "
                              "pattern vs %d",
             a, b, d, e, p->heads);
    fit_text(c, FONT_BOLD, f, buf, w, fitted, sizeof fitted);
    text_in(c, FONT_BOLD, f, RESULT, x, cy, w, lh, CENTER, fitted);
    // Both outputs on one row, the same colour scale.
    EqRow row;
    memset(&row, 0, sizeof row);
    add_mat(&single, &row, MAT_OUTPUT, 0, false);
    add_op(&row, "vs");
    add_mat(c, &row, MAT_OUTPUT, 0, true);
    double range = row.t[0].box.range > row.t[2].box.range ? row.t[0].box.range : row.t[2].box.range;
    row.t[0].box.range = row.t[2].box.range = range;
    row.t[0].box.negative = row.t[2].box.negative = row.t[0].box.negative || row.t[2].box.negative;
    char t1[64], t2[64];
    snprintf(t1, sizeof t1, "Output, one head");
    snprintf(t2, sizeof t2, "Output, %d heads", p->heads);
    row.t[0].box.title = t1;
    row.t[2].box.title = t2;
    GridStyle g;
    int oy = cy + lh + px(c, 4), oh = y + h - oy;
    fit_style(c, &row, 1, w, oh, &g);
    int ow = text_w(c, FONT_BOLD, g.op_font, "vs");
    int row_w = box_width(&g, &row.t[0].box) + box_width(&g, &row.t[2].box) + 2 * px(c, 12) + ow + 2 * g.gap;
    int xx = x + (w - row_w) / 2;
    hits = c->s->hit_count;
    draw_matrix(&single, &g, &row.t[0].box, xx, oy);
    c->s->hit_count = hits;
    xx += box_width(&g, &row.t[0].box) + px(c, 12);
    int cells_top = oy + g.title_h + g.col_label_h, cells_h = box_height(&g, &row.t[0].box) - g.title_h - g.col_label_h;
    text_in(c, FONT_BOLD, g.op_font, MUTED, xx + g.gap, cells_top, ow, cells_h, CENTER, "vs");
    xx += ow + 2 * g.gap;
    draw_matrix(&multi, &g, &row.t[2].box, xx, oy);
}

// ---------------------------------------------------------------------------------------------------
// Entry points

static const SceneExtras NO_EXTRAS = {NULL, NULL, NULL, false};

static void ctx_init(Ctx *c, Scene *s, const ViewState *st, const Lesson *L, const Trace *T, const TextMetrics *tm,
                     double u)
{
    memset(c, 0, sizeof *c);
    c->ex = &NO_EXTRAS;
    c->s = s;
    c->st = st;
    c->L = L;
    c->T = T;
    c->tm = tm;
    c->u = u < 0.4 ? 0.4 : u;
    // Legible on a projector: never below 12 px, and scaled with the window.
    c->min_font = (int)lround(12.0 * (c->u > 1.0 ? c->u : 1.0));
    c->focus = view_focus_cell(st);
    if (c->focus.mat != MAT_NONE && isnan(scene_cell_value(L, T, c->focus))) c->focus.mat = MAT_NONE;
    light_inputs(c);
}

static double window_scale(const ViewState *st, int w, int h)
{
    double sx = w / 1280.0, sy = h / 720.0;
    return (sx < sy ? sx : sy) * st->zoom;
}

bool scene_build(Scene *s, const ViewState *st, const Lesson *L, const Trace *T, int w, int h, const TextMetrics *tm,
                 const char *banner)
{
    return scene_build_ex(s, st, L, T, NULL, w, h, tm, banner);
}

bool scene_build_ex(Scene *s, const ViewState *st, const Lesson *L, const Trace *T, const SceneExtras *ex, int w, int h,
                    const TextMetrics *tm, const char *banner)
{
    scene_clear(s);
    s->width = w;
    s->height = h;
    s->background = BG;
    Ctx c;
    ctx_init(&c, s, st, L, T, tm, window_scale(st, w, h));
    if (ex) c.ex = ex;
    rect(&c, 0, 0, w, h, BG);
    int margin = px(&c, 24);
    int y = 0;
    if (banner && banner[0]) {
        int bh = 0;
        draw_banner(&c, w, banner, &bh);
        y += bh;
    }

    y += px(&c, 12);
    int hh = 0;
    draw_header(&c, margin, y, w - 2 * margin, &hh);
    y += hh + px(&c, 8);
    int footer_h = draw_footer(&c, 0, 0, w - 2 * margin, false);
    int footer_y = h - margin / 2 - footer_h;
    // The comparison has no cell arithmetic to explain: its outputs take that room.
    int explain_h = st->panel == PANEL_COMPARE ? 0 : px(&c, 18) * 3 + px(&c, 30);
    int explain_y = footer_y - px(&c, 12) - explain_h;
    draw_footer(&c, margin, footer_y, w - 2 * margin, true);
    if (explain_h > 0) draw_explain(&c, margin, explain_y, w - 2 * margin, explain_h);
    int main_h = explain_y - px(&c, 12) - y;
    int main_w = w - 2 * margin;
    if (main_h > 0) {
        if (st->panel == PANEL_COMPARE) {
            draw_compare(&c, margin, y, main_w, main_h);
        } else if (st->view == VIEW_ALL_HEADS) {
            draw_all_heads(&c, margin, y, main_w, main_h);
        } else {
            MatId m = heat_mat(st, L);
            if (m == MAT_NONE) {
                draw_board(&c, margin, y, main_w, main_h);
            } else {
                int heat_w = (int)(main_w * 0.32);
                int board_w = main_w - heat_w - px(&c, 24);
                draw_board(&c, margin, y, board_w, main_h);
                int bar = colorbar_width(&c);
                int hx = margin + board_w + px(&c, 24);
                rect(&c, hx - px(&c, 12), y, 1, main_h, EMPTY);
                int gy, gh;
                draw_heatmap(&c, m, st->head, heat_range(&c, m), hx, y, heat_w - bar - px(&c, 12), main_h, false, true,
                             &gy, &gh, NULL);
                draw_colorbar(&c, m, heat_range(&c, m), hx + heat_w - bar, gy, bar, gh);
            }
        }
    }
    if (st->panel == PANEL_COST) draw_cost(&c, w, h);
    if (st->help) draw_help(&c, w, h);
    return !s->oom;
}

bool scene_build_part(Scene *s, ScenePart part, const ViewState *st, const Lesson *L, const Trace *T, int w, int h,
                      double scale, const TextMetrics *tm)
{
    if (part == SCENE_PART_WINDOW) return scene_build(s, st, L, T, w, h, tm, NULL);
    scene_clear(s);
    s->width = w;
    s->height = h;
    s->background = BG;
    Ctx c;
    ctx_init(&c, s, st, L, T, tm, scale > 0.0 ? scale : window_scale(st, w, h));
    rect(&c, 0, 0, w, h, BG);
    int m8 = px(&c, 8);
    MatId m = heat_mat(st, L);
    if (m == MAT_NONE) m = MAT_WEIGHTS;
    switch (part) {
    case SCENE_PART_BOARD: draw_board(&c, m8, m8, w - 2 * m8, h - 2 * m8); break;
    case SCENE_PART_HEATMAP: {
        int bar = colorbar_width(&c);
        int gy, gh;
        draw_heatmap(&c, m, st->head, heat_range(&c, m), m8, m8, w - bar - 3 * m8, h - 2 * m8, false, false, &gy, &gh,
                     NULL);
        draw_colorbar(&c, m, heat_range(&c, m), w - bar - m8, gy, bar, gh);
        break;
    }
    case SCENE_PART_ALL_HEADS: {
        ViewState all = *st;
        if (heat_mat(st, L) == MAT_NONE) all.stage_index = all.stage_count - 1; // weights exist at the end
        c.st = &all;
        draw_all_heads(&c, m8, m8, w - 2 * m8, h - 2 * m8);
        c.st = st;
        break;
    }
    default: break;
    }
    return !s->oom;
}
