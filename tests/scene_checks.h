// The scene tests' shared checks (tests/test_scene*.c): what a built scene says and draws (texts,
// numbers at the board's size, hit regions, heatmap panels), keys for the view, seeded lessons, and
// the walk through every stage and sub-step. Header-only (static inline) because check.h's counters
// are each program's own.
#ifndef MHA_TEST_SCENE_CHECKS_H
#define MHA_TEST_SCENE_CHECKS_H
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "core/cost.h"
#include "core/utf8.h"
#include "render/colormap.h"
#include "render/scene.h"
#include "model/questions.h"
#include "model/rope_picture.h"

#define MINUS "\xe2\x88\x92" // U+2212
#define INF "\xe2\x88\x9e" // ∞
#define ELLIPSIS "\xe2\x80\xa6" // …
#define EN_DASH "\xe2\x80\x93" // –
#define TIMES "\xc3\x97" // ×

#include "fake_font.h"

// The three stages only a checkpoint's layer has (--model in the window: the norm, the residual
// add, the next token): no lesson has them.
#define LESSON_STAGES (STAGE_COUNT - 3)

// The height of a digit drawn at `size`: 0.73 of the line (the cap height of the fonts shipped).
static inline double glyph_height(int size) { return fake_height(NULL, FONT_REGULAR, size) * 0.73; }

static inline bool same(Rgba a, Rgba b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

static inline bool has_text(const Scene *s, const char *needle)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strstr(scene_text(s, &s->cmds[i]), needle)) return true;
    return false;
}

// Whether the texts drawn, run together in their order without their spaces (a sentence wrapped
// over lines, its raised letters drawn apart), contain needle without its spaces.
static inline bool said_squeezed(const Scene *s, const char *needle)
{
    size_t cap = 1, used = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT) cap += strlen(scene_text(s, &s->cmds[i]));
    char *all = malloc(cap), *want = malloc(strlen(needle) + 1);
    bool found = false;
    if (all && want) {
        for (size_t i = 0; i < s->count; i++)
            if (s->cmds[i].kind == CMD_TEXT)
                for (const char *t = scene_text(s, &s->cmds[i]); *t; t++)
                    if (*t != ' ') all[used++] = *t;
        all[used] = '\0';
        size_t k = 0;
        for (const char *t = needle; *t; t++)
            if (*t != ' ') want[k++] = *t;
        want[k] = '\0';
        found = strstr(all, want) != NULL;
    }
    free(all);
    free(want);
    return found;
}

// Whether the help (its pages 1 to 6, built at 1280x720 with the extras ex, may be NULL) shows
// needle.
static inline bool help_lists(Scene *s, ViewState *st, const Lesson *L, const Trace *T,
                              const SceneExtras *ex, const char *needle)
{
    SceneExtras none = {0};
    bool found = false;
    for (int p = 0; p < 6 && !found; p++) {
        st->help_page = p;
        scene_build_ex(s, &(SceneRequest){.st = st,
                                          .lesson = L,
                                          .trace = T,
                                          .ex = ex ? ex : &none,
                                          .w = 1280,
                                          .h = 720,
                                          .tm = &TM});
        found = has_text(s, needle);
    }
    st->help_page = 0;
    scene_build_ex(s, &(SceneRequest){.st = st,
                                      .lesson = L,
                                      .trace = T,
                                      .ex = ex ? ex : &none,
                                      .w = 1280,
                                      .h = 720,
                                      .tm = &TM});
    return found;
}

static inline int count_text(const Scene *s, const char *needle)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strstr(scene_text(s, &s->cmds[i]), needle)) n++;
    return n;
}

static inline int count_exact(const Scene *s, const char *exact)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++)
        n += s->cmds[i].kind == CMD_TEXT && !strcmp(scene_text(s, &s->cmds[i]), exact);
    return n;
}

static inline bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

// Matrix titles: a text starting with the matrix's name and holding its shape, "X  (6×4)".
static inline int count_title(const Scene *s, const char *name, const char *shape)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++) {
        const char *t = scene_text(s, &s->cmds[i]);
        n += s->cmds[i].kind == CMD_TEXT && starts_with(t, name) && strstr(t, shape)
             && t[strlen(name)] == ' ';
    }
    return n;
}

static inline bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

// Text in the board's notation ('^' raises the next character) as the scene draws it: separate
// CMD_TEXT pieces in a row, each raised one smaller and higher than the text before it. "Scores
// QK^T" is a text ending in "Scores QK" followed by a smaller, higher "T". Without '^': a text
// containing it.
static inline bool has_math(const Scene *s, const char *notation)
{
    char pieces[16][256];
    int np = 0;
    const char *p = notation;
    for (;;) {
        const char *caret = strchr(p, '^');
        size_t n = caret ? (size_t)(caret - p) : strlen(p);
        snprintf(pieces[np++], sizeof pieces[0], "%.*s", (int)n, p);
        if (!caret || np >= 15) break;
        p = caret + 1;
        const char *close = p[0] == '(' ? strchr(p, ')') : NULL;
        if (close && close - p > 1) { // a raised group: its text without the parentheses
            snprintf(pieces[np++], sizeof pieces[0], "%.*s", (int)(close - p - 1), p + 1);
            p = close + 1;
            if (np >= 15) break;
            continue;
        }
        size_t k = 1;
        while (((unsigned char)p[k] & 0xC0) == 0x80) k++;
        snprintf(pieces[np++], sizeof pieces[0], "%.*s", (int)k, p);
        p += k;
        if (np >= 15) break;
    }
    if (np == 1) return has_text(s, pieces[0]);
    // pieces: plain, raised, plain, raised, ..., plain
    int first = pieces[0][0] ? 0 : 1; // a notation that starts raised
    for (size_t i = 0; i < s->count; i++) {
        size_t k = i;
        bool ok = true;
        for (int j = first; j < np && ok; j++, k++) {
            if (k >= s->count || s->cmds[k].kind != CMD_TEXT) {
                ok = j == np - 1 && !pieces[j][0]; // an empty last piece is not drawn
                break;
            }
            const DrawCmd *c = &s->cmds[k];
            const char *t = scene_text(s, c);
            if (j % 2 == 1) { // raised
                const DrawCmd *prev = k > 0 ? &s->cmds[k - 1] : NULL;
                ok = !strcmp(t, pieces[j])
                     && (!prev || j == first || (c->size < prev->size && c->y < prev->y));
            } else if (j == first) {
                ok = ends_with(t, pieces[j]);
            } else if (j == np - 1) {
                ok = !pieces[j][0] || starts_with(t, pieces[j]);
                if (!pieces[j][0]) break;
            } else {
                ok = !strcmp(t, pieces[j]);
            }
        }
        if (ok) return true;
    }
    return false;
}

// A number as model_format_value writes it: an optional minus (U+2212; an ASCII '-' is reported),
// then digits with 4 decimals, an integer, d.ddde±dd, or ∞. *integer: no decimals; *ascii_minus:
// written with '-'.
static inline bool parse_number(const char *t, bool *integer, bool *ascii_minus)
{
    *integer = false;
    *ascii_minus = false;
    if (starts_with(t, MINUS)) t += strlen(MINUS);
    else if (t[0] == '-') {
        *ascii_minus = true;
        t++;
    }
    if (!strcmp(t, INF)) return true;
    const char *p = t;
    while (*p >= '0' && *p <= '9') p++;
    if (p == t) return false;
    if (!*p) {
        *integer = true;
        return true;
    }
    if (*p != '.') return false;
    p++;
    const char *d = p;
    while (*p >= '0' && *p <= '9') p++;
    if (p == d) return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        const char *e = p;
        while (*p >= '0' && *p <= '9') p++;
        if (p == e) return false;
    }
    return *p == '\0';
}

// The hit region of a cell (not an empty, unrevealed one) whose rectangle holds the centre of c.
static inline const HitRegion *cell_under(const Scene *s, const DrawCmd *c)
{
    int cx = c->x + c->w / 2, cy = c->y + c->h / 2;
    for (size_t i = s->hit_count; i-- > 0;) {
        const HitRegion *r = &s->hits[i];
        if (r->cell.mat != MAT_NONE && cx >= r->x && cy >= r->y && cx < r->x + r->w
            && cy < r->y + r->h)
            return r;
    }
    return NULL;
}

// Is command c a value on the board (or a heatmap, or a colour bar)? Decimals always are; a bare
// integer is one only inside a cell (outside, "0" … "3" are the indices of a dimension axis:
// labels, not values). The scale slider's ends are its labels, not the board's.
static inline bool is_value(const Scene *s, const DrawCmd *c)
{
    if (c->kind != CMD_TEXT) return false;
    if (s->slider_w > 0 && c->y >= s->slider_y && c->y < s->slider_y + s->slider_h) return false;
    bool integer, ascii;
    if (!parse_number(scene_text(s, c), &integer, &ascii)) return false;
    return !integer || cell_under(s, c) != NULL;
}

// Every value drawn is at least `min_size` and its digits at least 2.6 % of h; all of them at the
// one size s->num_font; none with an ASCII minus, no "?" (NaN) anywhere. Returns how many values
// were drawn at least at min_size.
static inline int check_numbers(const Scene *s, int h, int min_size, const char *what)
{
    int small = 0, low = 0, other_size = 0, ascii = 0, nan_cells = 0, full = 0;
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind != CMD_TEXT) continue;
        const char *t = scene_text(s, c);
        if (!strcmp(t, "?")) nan_cells++;
        bool integer, am;
        if (parse_number(t, &integer, &am) && am) ascii++;
        if (!is_value(s, c)) continue;
        if (c->size < min_size) {
            if (small++ < 3)
                fprintf(stderr, "  %s: '%s' at %d px (< %d) at %d,%d\n", what, t, c->size, min_size,
                        c->x, c->y);
        } else {
            full++;
        }
        if (glyph_height(c->size) < 0.026 * h) low++;
        if (c->size != s->num_font) {
            if (other_size++ < 3)
                fprintf(stderr, "  %s: '%s' at %d px, the board's size is %d\n", what, t, c->size,
                        s->num_font);
        }
    }
    CHECK(small == 0, "%s: %d numbers smaller than %d px", what, small, min_size);
    CHECK(low == 0, "%s: %d numbers with digits below 2.6 %% of %d px", what, low, h);
    CHECK(other_size == 0, "%s: %d numbers not at the board's one size %d px", what, other_size,
          s->num_font);
    CHECK(ascii == 0, "%s: %d numbers written with an ASCII '-' instead of U+2212", what, ascii);
    CHECK(nan_cells == 0, "%s: %d cells read '?' (NaN)", what, nan_cells);
    return full;
}

// Every command inside the window, no text below 6 px (the scene's floor for squeezed labels), and
// every number at the board's one size (s->num_font, at least scene_number_font(h) at zoom 1).
// numbers: false under an overlay (the cost panel's figures are a table, not the board).
static inline void check_layout(const Scene *s, int w, int h, const char *what, bool numbers)
{
    int outside = 0, tiny = 0;
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind == CMD_CLIP) continue;
        if (c->x < 0 || c->y < 0 || c->x + c->w > w || c->y + c->h > h) {
            if (outside++ < 3)
                fprintf(stderr, "  %s: command %zu (kind %d, '%s') at %d,%d %dx%d\n", what, i,
                        c->kind, c->kind == CMD_TEXT ? scene_text(s, c) : "", c->x, c->y, c->w,
                        c->h);
        }
        if (c->kind == CMD_TEXT && c->size < 6) tiny++;
    }
    CHECK(outside == 0, "%s: %d commands outside %dx%d", what, outside, w, h);
    CHECK(tiny == 0, "%s: %d texts smaller than 6 px", what, tiny);
    if (numbers) check_numbers(s, h, s->num_font, what);
}

static inline void check_bounds(const Scene *s, int w, int h, const char *what)
{
    check_layout(s, w, h, what, true);
}

// The fill colour of the rectangle exactly under the hit region of a cell (the last such rect
// wins).
static inline bool cell_fill(const Scene *s, CellRef want, int nth, Rgba *out)
{
    int seen = 0;
    for (size_t i = 0; i < s->hit_count; i++) {
        const HitRegion *r = &s->hits[i];
        if (r->cell.mat != want.mat || r->cell.head != want.head || r->cell.row != want.row
            || r->cell.col != want.col)
            continue;
        if (seen++ != nth) continue;
        for (size_t k = s->count; k-- > 0;) {
            const DrawCmd *c = &s->cmds[k];
            if (c->kind == CMD_RECT && c->x == r->x && c->y == r->y && c->w >= r->w - 1
                && c->w <= r->w) {
                *out = c->color;
                return true;
            }
        }
    }
    return false;
}

static inline int count_hits(const Scene *s, MatId m)
{
    int n = 0;
    for (size_t i = 0; i < s->hit_count; i++) n += s->hits[i].cell.mat == m;
    return n;
}

static inline int count_hits_head(const Scene *s, MatId m, int head)
{
    int n = 0;
    for (size_t i = 0; i < s->hit_count; i++)
        n += s->hits[i].cell.mat == m && s->hits[i].cell.head == head;
    return n;
}

static inline int count_frames(const Scene *s, Rgba color)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++)
        n += s->cmds[i].kind == CMD_FRAME && same(s->cmds[i].color, color);
    return n;
}

// The heatmap panel of a head (the region draw_heatmap marks with no cell); NULL when none is
// drawn.
static inline const HitRegion *heat_panel(const Scene *s, int head)
{
    for (size_t i = 0; i < s->hit_count; i++)
        if (s->hits[i].cell.mat == MAT_NONE && s->hits[i].head == head) return &s->hits[i];
    return NULL;
}

static inline int heat_panels(const Scene *s)
{
    int n = 0;
    for (size_t i = 0; i < s->hit_count; i++)
        n += s->hits[i].cell.mat == MAT_NONE && s->hits[i].head >= 0;
    return n;
}

static inline ViewEvent key(ViewKey k)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_KEY;
    e.key = k;
    e.head = -1;
    return e;
}

// A key, then what the window does before drawing: a stage just reached asks the question due
// there.
static inline void press(ViewState *st, ViewKey k)
{
    ViewEvent e = key(k);
    view_handle(st, &e);
    view_walk_settle(st);
}

// To stage s, stage by stage (the view has no sub-steps reported, so each Right is a stage).
static inline void go(ViewState *st, Stage s)
{
    press(st, VIEW_KEY_HOME);
    st->substep = 0;
    st->substep_count = 1;
    while (view_stage(st) != s && st->stage_index < st->stage_count - 1) press(st, VIEW_KEY_RIGHT);
}

// A lesson of n tokens (words repeated, so several tokens occur more than once), seeded random
// numbers.
static inline char *lesson_of_tokens(int n, int d_model, int heads, bool causal)
{
    static const char *const WORDS[] = {"the", "cat", "sat", "on", "mat", "and", "a",
                                        "dog", "ran", "to",  "it", "was", "big"};
    size_t cap = 4096 + (size_t)n * 16;
    char *j = malloc(cap);
    if (!j) return NULL;
    size_t len = (size_t)snprintf(j, cap, "{\"title\": \"%d tokens\", \"tokens\": [", n);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(j + len, cap - len, "%s\"%s\"", i ? ", " : "", WORDS[i % 13]);
    snprintf(j + len, cap - len,
             "], \"embeddings\": {\"random\": {\"seed\": 40, \"std\": 1.0}}, \"d_model\": %d, "
             "\"heads\": %d,%s"
             " \"weights\": {\"random\": {\"seed\": 41}}}",
             d_model, heads, causal ? " \"mask\": \"causal\"," : "");
    return j;
}

// Every stage and every sub-step of it, as the window steps through them: build, report the
// sub-steps to the view, Right. fn is called after each build with the stage and sub-step shown.
typedef void (*StepFn)(const Scene *s, const ViewState *st, void *user);

static inline int walk(Scene *s, ViewState *st, const Lesson *L, const Trace *T, int w, int h,
                       StepFn fn, void *user)
{
    press(st, VIEW_KEY_HOME);
    st->substep = 0;
    st->substep_count = 1;
    int frames = 0;
    for (int guard = 0; guard < 64; guard++) {
        CHECK(scene_build(s, st, L, T, w, h, &TM, NULL), "scene builds");
        frames++;
        fn(s, st, user);
        view_set_substeps(st, s->substeps, s->substep);
        int at = st->stage_index, sub = st->substep;
        press(st, VIEW_KEY_RIGHT);
        if (st->stage_index == at && st->substep == sub)
            break; // the last sub-step of the last stage
    }
    return frames;
}

// The header: stage name (raised notation), formula, progress strip of short names, which head.
static inline void header_checks(const Scene *s, const ViewState *st, const Lesson *L,
                                 const char *what)
{
    Stage stage = view_stage(st);
    const StageInfo *si = stage_info(stage);
    CHECK(si && has_math(s, si->name), "%s: the stage's name '%s' is in the header", what,
          si ? si->name : "?");
    char formula[512];
    if (si) {
        si->formula(&L->params, st->head, formula, sizeof formula);
        CHECK(has_math(s, formula), "%s: the formula '%s' is in the header", what, formula);
    }
    int missing = 0;
    for (int k = 0; k < st->stage_count; k++) {
        const StageInfo *sk = stage_info(st->stages[k]);
        if (sk && !has_math(s, sk->short_name)) {
            if (missing++ < 2)
                fprintf(stderr, "  %s: no '%s' in the progress strip\n", what, sk->short_name);
        }
    }
    CHECK(missing == 0, "%s: the progress strip names every stage (%d missing)", what, missing);
    char gone[32];
    snprintf(gone, sizeof gone, "stage %d / %d", st->stage_index + 1, st->stage_count);
    CHECK(!has_text(s, gone), "%s: no '%s' any more", what, gone);
    char head[64];
    bool joined = si && si->results[0] != MAT_NONE && !mat_info(si->results[0])->per_head;
    if (L->params.heads == 1) snprintf(head, sizeof head, "one head");
    else if (st->view == VIEW_ALL_HEADS || joined)
        snprintf(head, sizeof head, "all %d heads", L->params.heads);
    else
        snprintf(head, sizeof head, "head %d  (%d of %d)", st->head, st->head + 1, L->params.heads);
    CHECK(count_exact(s, head) == 1, "%s: the header says '%s'", what, head);
}

struct Walk {
    const Lesson *L;
    int w, h;
    bool header;
    char name[96];
};

static inline void walk_numbers(const Scene *s, const ViewState *st, void *user)
{
    struct Walk *wk = user;
    char what[200];
    snprintf(what, sizeof what, "%s %s %d/%d %s %dx%d", wk->name, stage_key(view_stage(st)),
             s->substep + 1, s->substeps, st->view == VIEW_ALL_HEADS ? "all" : "one", wk->w, wk->h);
    // At zoom 1 the numbers are at the legible size, or larger when the same board fits, or smaller
    // down to the floor (digits of 2.6 %) when that shows a matrix whole that would be windowed.
    CHECK(s->num_font >= scene_number_floor(wk->h),
          "%s: num_font %d below scene_number_floor(%d) = %d at zoom 1", what, s->num_font, wk->h,
          scene_number_floor(wk->h));
    check_bounds(s, wk->w, wk->h, what);
    int full = check_numbers(s, wk->h, scene_number_floor(wk->h), what);
    CHECK(st->view != VIEW_ONE_HEAD || full > 0,
          "%s: no number drawn at the board's size (at least %d px)", what,
          scene_number_floor(wk->h));
    if (wk->header) header_checks(s, st, wk->L, what);
}

// (1) and (6): every stage, every sub-step, both views, several window sizes: every number at the
// full size, and numbers on the board on every one-head frame.
static inline void test_number_sizes(const char *name, const Lesson *L, const Trace *T,
                                     const int (*sizes)[2], int nsizes, bool header)
{
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    Scene s;
    scene_init(&s);
    for (int z = 0; z < nsizes; z++)
        for (int v = 0; v < 2; v++) {
            st.view = v ? VIEW_ALL_HEADS : VIEW_ONE_HEAD;
            struct Walk wk = {L, sizes[z][0], sizes[z][1], header, ""};
            snprintf(wk.name, sizeof wk.name, "%s", name);
            int frames = walk(&s, &st, L, T, sizes[z][0], sizes[z][1], walk_numbers, &wk);
            CHECK(frames >= st.stage_count,
                  "%s %dx%d: every stage visited (%d frames for %d stages)", name, sizes[z][0],
                  sizes[z][1], frames, st.stage_count);
        }
    scene_free(&s);
}

// The text command whose text is exactly t, or NULL.
static inline const DrawCmd *text_cmd(const Scene *s, const char *t)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strcmp(scene_text(s, &s->cmds[i]), t) == 0)
            return &s->cmds[i];
    return NULL;
}

// The labels of a heatmap (one head's panel): for every row and every column, a text left of
// (above) the grid, centred on that row (column), that is the token's label, or its start cut with
// "…". The label itself, or its start cut with "…", keeping a duplicate token's subscript index
// after it
// ("w…₁₁" for "was₁₁").
static inline bool label_ok(const char *text, const char *label)
{
    if (!strcmp(text, label)) return true;
    const char *dots = strstr(text, ELLIPSIS);
    if (!dots) return false;
    size_t n = (size_t)(dots - text);
    const char *tail = dots + strlen(ELLIPSIS);
    size_t tl = strlen(tail), ll = strlen(label);
    if (tl > 0
        && (tl >= ll || strcmp(label + ll - tl, tail) != 0 || (unsigned char)tail[0] != 0xE2))
        return false;
    return n > 0 && strncmp(text, label, n) == 0;
}

// The letters a cut label keeps before its "…" (code points).
static inline int letters_kept(const char *t)
{
    const char *dots = strstr(t, ELLIPSIS);
    int n = 0;
    for (const char *q = t; *q && (!dots || q < dots); q++) n += ((unsigned char)*q & 0xC0) != 0x80;
    return n;
}

// Whether a text is drawn inside a hit region.
static inline bool inside(const DrawCmd *c, const HitRegion *r)
{
    return c->x >= r->x && c->y >= r->y && c->x < r->x + r->w && c->y < r->y + r->h;
}

// Is t a token label cut short ("<…" for "<s>", "do…" for "down")?
static inline bool cut_label(const Lesson *L, const char *t)
{
    char label[160];
    for (int i = 0; i < L->params.n + L->params.m; i++) {
        model_axis_label(L, i < L->params.n ? AXIS_QUERY : AXIS_KEY,
                         i < L->params.n ? i : i - L->params.n, label, sizeof label);
        if (strcmp(t, label) && label_ok(t, label)) return true;
    }
    return false;
}

#endif
