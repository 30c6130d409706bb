// Tests the scene headless with a fixed-width fake font: the viridis colour of head 0's The->The
// weight (0.6111), the header (stage name in the board's notation, formula, progress strip, head),
// nothing drawn outside the window, every number on the board at the one legible size (3.75 % of
// the height times the zoom) on every stage and sub-step, windows and sub-steps instead of smaller
// numbers, heatmaps that label every token, hover and edit marks, the stable softmax explanation,
// notes, the all-heads grid, colormaps.
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
static double glyph_height(int size) { return fake_height(NULL, FONT_REGULAR, size) * 0.73; }

static bool same(Rgba a, Rgba b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

static bool has_text(const Scene *s, const char *needle)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strstr(scene_text(s, &s->cmds[i]), needle)) return true;
    return false;
}

// Whether the texts drawn, run together in their order without their spaces (a sentence wrapped
// over lines, its raised letters drawn apart), contain needle without its spaces.
static bool said_squeezed(const Scene *s, const char *needle)
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
static bool help_lists(Scene *s, ViewState *st, const Lesson *L, const Trace *T,
                       const SceneExtras *ex, const char *needle)
{
    SceneExtras none = {0};
    bool found = false;
    for (int p = 0; p < 6 && !found; p++) {
        st->help_page = p;
        scene_build_ex(s, st, L, T, ex ? ex : &none, 1280, 720, &TM, NULL);
        found = has_text(s, needle);
    }
    st->help_page = 0;
    scene_build_ex(s, st, L, T, ex ? ex : &none, 1280, 720, &TM, NULL);
    return found;
}

static int count_text(const Scene *s, const char *needle)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strstr(scene_text(s, &s->cmds[i]), needle)) n++;
    return n;
}

static int count_exact(const Scene *s, const char *exact)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++)
        n += s->cmds[i].kind == CMD_TEXT && !strcmp(scene_text(s, &s->cmds[i]), exact);
    return n;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

// Matrix titles: a text starting with the matrix's name and holding its shape, "X  (6×4)".
static int count_title(const Scene *s, const char *name, const char *shape)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++) {
        const char *t = scene_text(s, &s->cmds[i]);
        n += s->cmds[i].kind == CMD_TEXT && starts_with(t, name) && strstr(t, shape)
             && t[strlen(name)] == ' ';
    }
    return n;
}
static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

// Text in the board's notation ('^' raises the next character) as the scene draws it: separate
// CMD_TEXT pieces in a row, each raised one smaller and higher than the text before it. "Scores
// QK^T" is a text ending in "Scores QK" followed by a smaller, higher "T". Without '^': a text
// containing it.
static bool has_math(const Scene *s, const char *notation)
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
static bool parse_number(const char *t, bool *integer, bool *ascii_minus)
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
static const HitRegion *cell_under(const Scene *s, const DrawCmd *c)
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
static bool is_value(const Scene *s, const DrawCmd *c)
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
static int check_numbers(const Scene *s, int h, int min_size, const char *what)
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
static void check_layout(const Scene *s, int w, int h, const char *what, bool numbers)
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

static void check_bounds(const Scene *s, int w, int h, const char *what)
{
    check_layout(s, w, h, what, true);
}

// The fill colour of the rectangle exactly under the hit region of a cell (the last such rect
// wins).
static bool cell_fill(const Scene *s, CellRef want, int nth, Rgba *out)
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

static int count_hits(const Scene *s, MatId m)
{
    int n = 0;
    for (size_t i = 0; i < s->hit_count; i++) n += s->hits[i].cell.mat == m;
    return n;
}

static int count_hits_head(const Scene *s, MatId m, int head)
{
    int n = 0;
    for (size_t i = 0; i < s->hit_count; i++)
        n += s->hits[i].cell.mat == m && s->hits[i].cell.head == head;
    return n;
}

static int count_frames(const Scene *s, Rgba color)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++)
        n += s->cmds[i].kind == CMD_FRAME && same(s->cmds[i].color, color);
    return n;
}

// The heatmap panel of a head (the region draw_heatmap marks with no cell); NULL when none is
// drawn.
static const HitRegion *heat_panel(const Scene *s, int head)
{
    for (size_t i = 0; i < s->hit_count; i++)
        if (s->hits[i].cell.mat == MAT_NONE && s->hits[i].head == head) return &s->hits[i];
    return NULL;
}

static int heat_panels(const Scene *s)
{
    int n = 0;
    for (size_t i = 0; i < s->hit_count; i++)
        n += s->hits[i].cell.mat == MAT_NONE && s->hits[i].head >= 0;
    return n;
}

static ViewEvent key(ViewKey k)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_KEY;
    e.key = k;
    e.head = -1;
    return e;
}

static void press(ViewState *st, ViewKey k)
{
    ViewEvent e = key(k);
    view_handle(st, &e);
}

// To stage s, stage by stage (the view has no sub-steps reported, so each Right is a stage).
static void go(ViewState *st, Stage s)
{
    press(st, VIEW_KEY_HOME);
    st->substep = 0;
    st->substep_count = 1;
    while (view_stage(st) != s && st->stage_index < st->stage_count - 1) press(st, VIEW_KEY_RIGHT);
}

// A lesson of n tokens (words repeated, so several tokens occur more than once), seeded random
// numbers.
static char *lesson_of_tokens(int n, int d_model, int heads, bool causal)
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
static int walk(Scene *s, ViewState *st, const Lesson *L, const Trace *T, int w, int h, StepFn fn,
                void *user)
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

// ---------------------------------------------------------------------------------------------------

static void test_colormaps(void)
{
    Rgba v = colormap_rgb(COLORMAP_VIRIDIS, 0.6111);
    // matplotlib: viridis(0.6111) = _viridis_data[int(0.6111 * 256) = 156] = (0.143303, 0.669459,
    // 0.511215), to_hex(...) = #25ab82
    CHECK(v.r == 37 && v.g == 171 && v.b == 130, "viridis(0.6111) = #25ab82, got (%d,%d,%d)", v.r,
          v.g, v.b);
    Rgba lo = colormap_rgb(COLORMAP_VIRIDIS, 0.0), hi = colormap_rgb(COLORMAP_VIRIDIS, 1.0);
    CHECK(lo.r == 68 && lo.g == 1 && lo.b == 84, "viridis(0) = #440154");
    CHECK(hi.r == 253 && hi.g == 231 && hi.b == 37, "viridis(1) = #fde725");
    Rgba c0 = colormap_rgb(COLORMAP_CIVIDIS, 0.0), c1 = colormap_rgb(COLORMAP_CIVIDIS, 1.0);
    CHECK(c0.r == 0 && c0.g == 34 && c0.b == 78, "cividis(0) = #00224e, got (%d,%d,%d)", c0.r, c0.g,
          c0.b);
    CHECK(c1.r == 254 && c1.g == 232 && c1.b == 56, "cividis(1) = #fee838, got (%d,%d,%d)", c1.r,
          c1.g, c1.b);
    Rgba g0 = colormap_rgb(COLORMAP_GREY, 0.0), g1 = colormap_rgb(COLORMAP_GREY, 1.0);
    CHECK(g0.r == 255 && g1.r < 40 && g0.r == g0.g && g1.g == g1.b,
          "greyscale: white to near black");
    Rgba n = colormap_rgb(COLORMAP_VIRIDIS, NAN);
    CHECK(same(n, lo), "NaN maps to the low end");
    Rgba d0 = colormap_diverging(COLORMAP_VIRIDIS, 0.0),
         dn = colormap_diverging(COLORMAP_VIRIDIS, -1.0),
         dp = colormap_diverging(COLORMAP_VIRIDIS, 1.0);
    CHECK(d0.r > 240 && d0.g > 240 && d0.b > 240, "diverging 0 is near white");
    CHECK(dn.b > dn.r && dp.r > dp.b, "diverging: blue below, orange above");
    CHECK(strcmp(colormap_name(COLORMAP_CIVIDIS), "cividis") == 0, "names");
}

// The number size itself: 3.9 % of the height, digits above 2.6 % (with a margin for rounding).
static void test_number_font(void)
{
    static const int H[] = {480, 600, 720, 768, 900, 1080, 1440, 2160};
    for (size_t i = 0; i < sizeof H / sizeof H[0]; i++) {
        int f = scene_number_font(H[i]);
        CHECK(abs(f - (int)lround(H[i] * 0.039)) <= 1, "scene_number_font(%d) = %d, 3.9 %% is %.1f",
              H[i], f, H[i] * 0.039);
        CHECK(glyph_height(f) >= 0.026 * H[i], "digits at %d px are %.1f px, below 2.6 %% of %d", f,
              glyph_height(f), H[i]);
    }
}

// The header: stage name (raised notation), formula, progress strip of short names, which head.
static void header_checks(const Scene *s, const ViewState *st, const Lesson *L, const char *what)
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

static void walk_numbers(const Scene *s, const ViewState *st, void *user)
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
static void test_number_sizes(const char *name, const Lesson *L, const Trace *T,
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

static void test_cat(void)
{
    Lesson L;
    LessonError err;
    CHECK(lesson_load_builtin(&L, &err), "built-in lesson loads");
    Trace T;
    TraceError terr;
    CHECK(trace_run(&T, &L.params, &terr), "trace runs");
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    Scene s;
    scene_init(&s);

    // Softmax stage, head 0: the heatmap (and the board's A_0) colour The->The with
    // viridis(0.6111).
    go(&st, STAGE_SOFTMAX);
    CHECK(scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL), "scene builds");
    double w00 = scene_cell_value(&L, &T, (CellRef){MAT_WEIGHTS, 0, 0, 0});
    CHECK(fabs(w00 - 0.6111) < 5e-5, "A_0[The, The] = 0.6111, got %.6f", w00);
    Rgba want = colormap_rgb(COLORMAP_VIRIDIS, 0.6111), got = {0, 0, 0, 0};
    int n_weight_cells = 0;
    for (int nth = 0; nth < 2; nth++) {
        bool found = cell_fill(&s, (CellRef){MAT_WEIGHTS, 0, 0, 0}, nth, &got);
        CHECK(found, "cell A_0[The, The] #%d drawn", nth);
        if (found) {
            n_weight_cells++;
            CHECK(same(got, want),
                  "A_0[The, The] #%d is viridis(0.6111) = (%d,%d,%d), got (%d,%d,%d)", nth, want.r,
                  want.g, want.b, got.r, got.g, got.b);
        }
    }
    CHECK(n_weight_cells == 2, "The->The appears in the board and in the heatmap beside it");
    CHECK(heat_panel(&s, 0) != NULL, "3 tokens at 1280x720: the heatmap is beside the board");
    CHECK(count_exact(&s, "0.6111") >= 1, "the value 0.6111 is written");
    CHECK(has_text(&s, "The cat sat"), "the title is shown");
    CHECK(!has_text(&s, "stage 5 / 8") && !has_text(&s, " / 8"), "no 'stage k / N'");
    CHECK(has_text(&s, "Softmax"), "the stage's name");
    CHECK(has_math(&s, "A\xe2\x82\x80 = softmax(S\xe2\x80\xb2\xe2\x82\x80)"),
          "the formula A₀ = softmax(S′₀)");
    CHECK(count_exact(&s, "head 0  (1 of 2)") == 1, "which head: 'head 0  (1 of 2)'");
    CHECK(has_text(&s, "cat") && has_text(&s, "sat"), "token labels");
    CHECK(count_title(&s, "A\xe2\x82\x80", "(3" TIMES "3)") >= 1,
          "A_0 (3x3) titled with its shape");
    header_checks(&s, &st, &L, "cat softmax 1280x720");
    // The colour bar of the weights reads "1" at the top and "0" at the bottom, right of the
    // heatmap.
    {
        int grid_r = 0;
        const HitRegion *panel = heat_panel(&s, 0);
        for (size_t i = 0; i < s.hit_count; i++) {
            const HitRegion *r = &s.hits[i];
            if (panel && r->cell.mat == MAT_WEIGHTS && r->x >= panel->x && r->x + r->w > grid_r)
                grid_r = r->x + r->w;
        }
        int y1 = -1, y0 = -1;
        for (size_t i = 0; i < s.count; i++) {
            const DrawCmd *c = &s.cmds[i];
            if (c->kind != CMD_TEXT || c->x < grid_r) continue;
            if (!strcmp(scene_text(&s, c), "1")) y1 = c->y;
            if (!strcmp(scene_text(&s, c), "0")) y0 = c->y;
        }
        CHECK(grid_r > 0 && y1 >= 0 && y0 > y1,
              "colour bar of the weights: '1' above '0' right of the heatmap (%d, %d)", y1, y0);
        CHECK(!has_text(&s, "1.0000") && !has_text(&s, "0.0000"),
              "no 1.0000 / 0.0000 on the colour bar");
    }
    check_bounds(&s, 1280, 720, "softmax 1280x720");

    // Head 1 via Tab: sat -> cat = 0.5844.
    press(&st, VIEW_KEY_TAB);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(cell_fill(&s, (CellRef){MAT_WEIGHTS, 1, 2, 1}, 0, &got)
              && same(got, colormap_rgb(COLORMAP_VIRIDIS,
                                        scene_cell_value(&L, &T, (CellRef){MAT_WEIGHTS, 1, 2, 1}))),
          "head 1's sat->cat cell coloured by its weight");
    CHECK(has_text(&s, "0.5844"), "head 1 shows 0.5844");
    CHECK(count_exact(&s, "head 1  (2 of 2)") == 1, "the header says head 1  (2 of 2)");
    // Head 1's wider numbers: the board beside the heatmap would need two parts, so the heatmap
    // yields (issue 25: the side heatmap gives way before a matrix is split or windowed) and S'₁
    // and A₁ show whole in one.
    CHECK(count_hits(&s, MAT_WEIGHTS) == 18
              || (count_hits(&s, MAT_WEIGHTS) == 9 && s.substeps == 1
                  && count_hits(&s, MAT_SCALED) + count_hits(&s, MAT_MASKED) == 9),
          "9 weight cells on the board + 9 in the heatmap, or the board whole in one part; got %d, "
          "%d parts",
          count_hits(&s, MAT_WEIGHTS), s.substeps);

    // Header right on Concat and Output, and in the all-heads view.
    st.head = 0;
    go(&st, STAGE_CONCAT);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(count_exact(&s, "all 2 heads") == 1, "Concat: 'all 2 heads'");
    // On Concat the heatmap panel, when there is one, shows every head.
    if (heat_panels(&s) > 0)
        CHECK(heat_panels(&s) == 2, "Concat: the panel shows both heads (%d)", heat_panels(&s));
    go(&st, STAGE_OUTPUT);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(count_exact(&s, "all 2 heads") == 1, "Output: 'all 2 heads'");
    if (heat_panels(&s) > 0)
        CHECK(heat_panels(&s) == 2, "Output: the panel shows both heads (%d)", heat_panels(&s));
    header_checks(&s, &st, &L, "cat output 1280x720");
    st.view = VIEW_ALL_HEADS;
    go(&st, STAGE_SCORES);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(count_exact(&s, "all 2 heads") == 1, "all-heads view: 'all 2 heads'");
    st.view = VIEW_ONE_HEAD;

    // Every stage, both views, at 3840x2160 too: nothing outside, numbers at the one size.
    static const int BIG[1][2] = {{3840, 2160}};
    test_number_sizes("cat", &L, &T, BIG, 1, true);

    // Hover on a score: the explanation shows the dot product and its sum; inputs light up in
    // magenta.
    go(&st, STAGE_SCORES);
    st.head = 0;
    ViewEvent hover = {.kind = VIEW_EV_HOVER, .cell = {MAT_SCORES, 0, 0, 1}, .head = -1};
    view_handle(&st, &hover);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    char lines[4][256];
    int n = scene_explain(&L, &T, (CellRef){MAT_SCORES, 0, 0, 1}, lines, 4);
    CHECK(n == 3, "a score is explained in 3 lines, got %d", n);
    CHECK(n > 0 && strstr(lines[0], "Q\xe2\x82\x80[The]") && strstr(lines[0], "K\xe2\x82\x80[cat]"),
          "names Q_0[The] and K_0[cat]: %s", lines[0]);
    char sval[32];
    scene_format_value(scene_cell_value(&L, &T, (CellRef){MAT_SCORES, 0, 0, 1}), sval, sizeof sval);
    CHECK(n == 3 && strstr(lines[2], sval), "the sum %s ends the products line: %s", sval,
          lines[2]);
    CHECK(has_text(&s, lines[0]), "the explanation is on screen");
    int lit = count_frames(&s, THEME_LIGHT.focus);
    bool heat = heat_panel(&s, 0) != NULL;
    CHECK(lit >= (heat ? 4 : 3),
          "the score, Q's row, K^T's column%s light up in the focus colour (%d frames)",
          heat ? " and the heatmap cell" : "", lit);
    CellRef under;
    int head;
    const HitRegion *r0 = NULL;
    for (size_t i = 0; i < s.hit_count; i++)
        if (s.hits[i].cell.mat == MAT_SCORES && s.hits[i].cell.row == 1 && s.hits[i].cell.col == 2)
            r0 = &s.hits[i];
    CHECK(r0 && scene_hit(&s, r0->x + 1, r0->y + 1, &under, &head) && under.mat == MAT_SCORES
              && under.row == 1 && under.col == 2,
          "scene_hit finds the cell under the pointer");

    // Each kind of cell has an explanation.
    MatId kinds[] = {MAT_X,       MAT_WQ, MAT_Q,      MAT_KT,    MAT_SCALED,
                     MAT_WEIGHTS, MAT_Z,  MAT_CONCAT, MAT_OUTPUT};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        CHECK(scene_explain(&L, &T, (CellRef){kinds[i], 1, 1, 1}, lines, 4) >= 2,
              "matrix %d is explained", kinds[i]);
    // The stable softmax: "max = …;  exp(a − max) / (…)" then "= e / sum = value (unrounded; the
    // row sums to 1; its entropy in bits)".
    n = scene_explain(&L, &T, (CellRef){MAT_WEIGHTS, 0, 0, 0}, lines, 4);
    CHECK(n == 3 && starts_with(lines[1], "max = ") && strstr(lines[1], "exp(")
              && strstr(lines[1], " " MINUS " ") && strstr(lines[1], ") / ("),
          "softmax cell: the row's max subtracted: %s", n > 1 ? lines[1] : "");
    CHECK(n == 3 && starts_with(lines[2], "= ") && strstr(lines[2], "0.6111")
              && strstr(lines[2], "(unrounded;") && strstr(lines[2], " bits)"),
          "softmax cell: = e / sum = 0.6111 (unrounded; … entropy … bits): %s",
          n > 2 ? lines[2] : "");
    n = scene_explain(&L, &T, (CellRef){MAT_SCALED, 0, 0, 0}, lines, 4);
    CHECK(n == 3
              && strstr(lines[1], "\xe2\x88\x9a"
                                  "2"),
          "scaled: divided by sqrt 2");

    // Reveal: '.' fills S_0 one cell at a time; unrevealed cells have no hit and no number.
    go(&st, STAGE_SCORES);
    memset(&st.hover, 0, sizeof st.hover);
    press(&st, VIEW_KEY_PERIOD);
    press(&st, VIEW_KEY_PERIOD);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    int shown = count_hits_head(&s, MAT_SCORES, 0);
    CHECK(shown == 2 + (heat_panel(&s, 0) ? 2 : 0),
          "two board cells (+ two heatmap cells) answer hover while revealing, got %d", shown);
    n = scene_explain(&L, &T, view_focus_cell(&st), lines, 4);
    CHECK(n == 3 && has_text(&s, lines[0]), "the newest cell's arithmetic is shown");

    // The error banner.
    scene_build(&s, &st, &L, &T, 1280, 720, &TM,
                "broken.json:3:7: error: heads: expected a number");
    CHECK(has_text(&s, "broken.json:3:7"), "the banner shows file:line:col");
    check_bounds(&s, 1280, 720, "banner");

    // The help overlay lists the keys.
    press(&st, VIEW_KEY_H);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(help_lists(&s, &st, &L, &T, NULL, "PageDown") && help_lists(&s, &st, &L, &T, NULL, "Tab")
              && help_lists(&s, &st, &L, &T, NULL, "fullscreen"),
          "help lists the keys");
    CHECK(help_lists(&s, &st, &L, &T, NULL, "notes"), "help lists N (notes)");
    check_bounds(&s, 1280, 720, "help");
    press(&st, VIEW_KEY_H);

    // Export parts.
    for (int part = SCENE_PART_BOARD; part <= SCENE_PART_ALL_HEADS; part++) {
        CHECK(scene_build_part(&s, (ScenePart)part, &st, &L, &T, 800, 600, 1.0, &TM),
              "part %d builds", part);
        check_bounds(&s, 800, 600, "part");
        CHECK(s.count > 10, "part %d draws something", part);
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

static void test_lesson_file(const char *name, int heads, bool causal)
{
    Lesson L;
    Trace T;
    if (!load(name, &L, &T)) return;
    CHECK(L.params.heads == heads, "%s has %d heads", name, heads);
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    bool masked = false;
    for (int i = 0; i < st.stage_count; i++) masked |= st.stages[i] == STAGE_MASK;
    CHECK(masked == causal && st.stage_count == LESSON_STAGES - 3 + causal,
          "%s: mask stage only when causal (%d stages)", name, st.stage_count);
    static const int SIZES[2][2] = {{1280, 720}, {3840, 2160}};
    test_number_sizes(name, &L, &T, SIZES, 2, false);
    Scene s;
    scene_init(&s);
    if (heads == 12) {
        // All twelve heads fit the grid at 1280x720, each with its label.
        st.view = VIEW_ALL_HEADS;
        go(&st, STAGE_SOFTMAX);
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        CHECK(heat_panels(&s) == 12, "12 head panels in the grid, got %d", heat_panels(&s));
        CHECK(has_text(&s, "head 11"), "the last head is labelled");
        CHECK(count_exact(&s, "all 12 heads") == 1, "the header says all 12 heads");
    }
    if (causal) {
        // Masked cells are hatched and read "−∞" before softmax.
        st.view = VIEW_ONE_HEAD;
        go(&st, STAGE_MASK);
        st.substep = VIEW_SUBSTEP_RESULT; // the part that shows S' + M (the mask's own -inf too)
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        int hatches = 0;
        for (size_t i = 0; i < s.count; i++) hatches += s.cmds[i].kind == CMD_HATCH;
        CHECK(hatches >= 2, "masked cells hatched on the board (%d)", hatches);
        CHECK(has_text(&s, MINUS INF), "masked cells read -inf");
        CHECK(isinf(scene_cell_value(&L, &T, (CellRef){MAT_MASKED, 0, 0, 1})),
              "S'+M above the diagonal is -inf");
        // The heatmap of the masked scores hatches every masked cell.
        scene_build_part(&s, SCENE_PART_HEATMAP, &st, &L, &T, 1280, 720, 1.0, &TM);
        hatches = 0;
        for (size_t i = 0; i < s.count; i++) hatches += s.cmds[i].kind == CMD_HATCH;
        int n = L.params.n;
        CHECK(hatches == n * (n - 1) / 2, "the heatmap hatches the %d masked cells (%d)",
              n * (n - 1) / 2, hatches);
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Key K: the document's figures for d_model 512, n 10 with h = 1 and h = 8.
static void test_cost_panel(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/paper-base.json", &L, &T)) return;
    CHECK(L.params.d_model == 512 && L.params.n == 10 && L.params.heads == 8,
          "paper-base is (512, 10, 8)");
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    st.stage_index = 1;
    press(&st, VIEW_KEY_K);
    Scene s;
    scene_init(&s);
    CHECK(scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL), "cost panel builds");
    CHECK(count_text(&s, "1,048,576") == 2, "1,048,576 weights for h = 1 and h = 8 (%d)",
          count_text(&s, "1,048,576"));
    CHECK(count_text(&s, "51,200") == 2, "51,200 multiplications for h = 1 and h = 8 (%d)",
          count_text(&s, "51,200"));
    CHECK(has_text(&s, "h = 1") && has_text(&s, "h = 8") && has_text(&s, "512")
              && has_text(&s, "64"),
          "both rows, d_k 512 and 64");
    CHECK(has_text(&s, "8 " TIMES " (10" TIMES "10)")
              && has_text(&s, "1 " TIMES " (10" TIMES "10)"),
          "8 and 1 attention matrices of 10x10");
    check_layout(&s, 1280, 720, "cost panel 1280x720", false);
    scene_build(&s, &st, &L, &T, 3840, 2160, &TM, NULL);
    check_layout(&s, 3840, 2160, "cost panel 3840x2160", false);
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
    // Another lesson: its own rows, then the paper's for reference.
    if (!load("lessons/the-cat-sat-on-the-mat.json", &L, &T)) return;
    dims = view_dims_from_params(&L.params);
    view_init(&st, &dims);
    press(&st, VIEW_KEY_K);
    scene_init(&s);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(count_text(&s, "1,048,576") == 2 && count_text(&s, "64") >= 2,
          "the lesson's 64 weights and the paper's rows");
    CHECK(has_text(&s, "h = 2"), "the lesson's h");
    check_layout(&s, 1280, 720, "cost panel, mat lesson", false);
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Key M: one head's pattern beside the h patterns and both outputs; the cost line says they are the
// same, or (grouped K/V heads: llama, mistral) that the heads' weights are fewer, as the footer
// does (issue 38).
static void test_compare_view(void)
{
    const char *files[] = {
        "lessons/the-cat-sat-on-the-mat.json", "lessons/causal-decoder.json",
        "lessons/cross-attention.json",        "lessons/bert-base-shape.json",
        "lessons/llama-rope-gqa.json",         "lessons/mistral-sliding-window.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        Lesson L;
        Trace T;
        if (!load(files[f], &L, &T)) continue;
        Comparison cmp;
        TraceError terr;
        CHECK(compare_run(&cmp, &L.params, &terr), "%s: comparison runs", files[f]);
        ViewDims dims = view_dims_from_params(&L.params);
        ViewState st;
        view_init(&st, &dims);
        press(&st, VIEW_KEY_M);
        SceneExtras ex = {&L.params, &cmp, NULL, false, NULL, NULL, NULL, NULL, NULL};
        Scene s;
        scene_init(&s);
        int sizes[2][2] = {{1280, 720}, {3840, 2160}};
        for (int z = 0; z < 2; z++) {
            char what[200];
            snprintf(what, sizeof what, "%s compare %dx%d", files[f], sizes[z][0], sizes[z][1]);
            CHECK(scene_build_ex(&s, &st, &L, &T, &ex, sizes[z][0], sizes[z][1], &TM, NULL),
                  "%s builds", what);
            check_bounds(&s, sizes[z][0], sizes[z][1], what);
            CHECK(has_text(&s, "One head") && has_text(&s, "Output, one head"), "%s: titles", what);
            bool same = cmp.cost_one.projection_weights == cmp.cost_multi.projection_weights;
            CHECK(same == (L.params.kv_heads == L.params.heads),
                  "%s: the same cost exactly without grouped heads", what);
            CHECK(has_text(&s, "Same cost") == same, "%s: \"Same cost\" said %d, the costs %s",
                  what, has_text(&s, "Same cost"), same ? "equal" : "differ");
            if (!same) {
                char want[160], a[32], b[32];
                cost_format_int(a, sizeof a, cmp.cost_one.projection_weights);
                cost_format_int(b, sizeof b, cmp.cost_multi.projection_weights);
                snprintf(want, sizeof want,
                         "Cost: %s vs %s projection weights (%d K/V head%s, not %d)", a, b,
                         L.params.kv_heads, L.params.kv_heads == 1 ? "" : "s", L.params.heads);
                CHECK(has_text(&s, want), "%s: %s", what, want);
                CHECK(said_squeezed(&s, "The single head holds the heads' WQ joined side by side "
                                        "and each K/V head's WK")
                          && !said_squeezed(&s, "holds exactly the heads' weights"),
                      "%s: the footer says the K/V heads' weights repeat", what);
            } else
                CHECK(said_squeezed(&s, "holds exactly the heads' weights"), "%s: the footer",
                      what);
        }
        if (f == 0) {
            // The single head's pattern is drawn, and its numbers are the single trace's.
            char v[32];
            scene_format_value(mat_get(&cmp.trace.head[0].weights, 1, 2), v, sizeof v);
            CHECK(has_text(&s, v), "the single head's weight %s is shown", v);
            CHECK(has_text(&s, "Single head vs multi-head"), "the header names the view");
        }
        scene_free(&s);
        compare_free(&cmp);
        trace_free(&T);
        lesson_free(&L);
    }
}

// The text command whose text is exactly t, or NULL.
static const DrawCmd *text_cmd(const Scene *s, const char *t)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strcmp(scene_text(s, &s->cmds[i]), t) == 0)
            return &s->cmds[i];
    return NULL;
}

// Issue 38: grouped-query attention seen. The all-heads view puts the heads of one K/V head under
// its name
// ("K/V head 1", at the floor) and a band in its colour, one colour per K/V head; the header names
// the head's K/V head and how many there are. A lesson without grouped heads shows none of it.
static void test_kv_groups(void)
{
    static const char *const files[] = {"lessons/llama-rope-gqa.json", "lessons/the-cat-sat.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        Lesson L;
        Trace T;
        if (!load(files[f], &L, &T)) continue;
        const AttnParams *p = &L.params;
        bool grouped = p->kv_heads < p->heads;
        ViewDims dims = view_dims_from_params(p);
        ViewState st;
        view_init(&st, &dims);
        go(&st, STAGE_SOFTMAX);
        Scene s;
        scene_init(&s);
        int sizes[2][2] = {{1280, 720}, {1920, 1080}};
        for (int z = 0; z < 2; z++) {
            int w = sizes[z][0], h = sizes[z][1];
            st.view = VIEW_ONE_HEAD;
            st.head = p->heads - 1;
            scene_build(&s, &st, &L, &T, w, h, &TM, NULL);
            char want[128];
            snprintf(want, sizeof want, "head %d  (%d of %d) \xc2\xb7 K/V head %d", p->heads - 1,
                     p->heads, p->heads, params_kv_head(p, p->heads - 1));
            CHECK(has_text(&s, want) == grouped, "%s %dx%d: the header says '%s': %d", files[f], w,
                  h, want, has_text(&s, want));
            press(&st, VIEW_KEY_A);
            scene_build(&s, &st, &L, &T, w, h, &TM, NULL);
            snprintf(want, sizeof want, "all %d heads \xc2\xb7 %d K/V heads", p->heads,
                     p->kv_heads);
            CHECK(has_text(&s, want) == grouped, "%s %dx%d all heads: the header says '%s'",
                  files[f], w, h, want);
            Rgba colors[LESSON_MAX_HEADS];
            int found = 0;
            for (int g = 0; g < p->kv_heads; g++) {
                snprintf(want, sizeof want, "K/V head %d", g);
                const DrawCmd *label = text_cmd(&s, want);
                if (!grouped) {
                    CHECK(!label, "%s: no K/V heads' names without grouped heads", files[f]);
                    continue;
                }
                CHECK(label && label->size >= scene_number_floor(h),
                      "%s %dx%d: '%s' at the floor (%d px)", files[f], w, h, want,
                      label ? label->size : 0);
                if (!label) continue;
                found++;
                // Its band: the rectangle drawn right after its name, under it and as wide as its
                // heads' panels.
                const DrawCmd *band = NULL;
                for (const DrawCmd *k = label + 1; k < s.cmds + s.count && !band; k++)
                    if (k->kind == CMD_RECT) band = k;
                bool band_ok = band && band->y >= label->y && band->x <= label->x
                               && band->x + band->w >= label->x + label->w;
                CHECK(band_ok, "%s: K/V head %d has its band under its name", files[f], g);
                if (!band_ok) continue;
                colors[g] = band->color;
                // Over its heads' panels: the titles "head i" of the group's heads lie under the
                // band, no other's.
                for (int i = 0; i < p->heads; i++) {
                    char title[32];
                    snprintf(title, sizeof title, "head %d", i);
                    const DrawCmd *t = text_cmd(&s, title);
                    bool under = t && t->x + t->w / 2 >= band->x
                                 && t->x + t->w / 2 <= band->x + band->w && t->y > band->y;
                    CHECK(under == (params_kv_head(p, i) == g),
                          "%s %dx%d: head %d %s K/V head %d's band", files[f], w, h, i,
                          under ? "under" : "not under", g);
                }
            }
            for (int a = 0; a < found; a++)
                for (int b = a + 1; b < found; b++)
                    CHECK(memcmp(&colors[a], &colors[b], sizeof colors[a]) != 0,
                          "%s: K/V heads %d and %d share a colour", files[f], a, b);
            check_bounds(&s, w, h, "K/V groups");
            press(&st, VIEW_KEY_A);
        }
        scene_free(&s);
        trace_free(&T);
        lesson_free(&L);
    }
}

// Issue 38: with grouped K/V heads the header underlines the head with its K/V head's colour (the
// all-heads grid's Okabe-Ito band: K/V head 0 blue, 1 orange), every K/V head's colour under "all
// heads"; no band without groups.
static void test_header_groups(void)
{
    static const Rgba BLUE = {0, 114, 178, 255}, ORANGE = {230, 159, 0, 255};
    static const char *const files[] = {"lessons/llama-rope-gqa.json", "lessons/the-cat-sat.json"};
    for (size_t f = 0; f < 2; f++) {
        Lesson L;
        Trace T;
        if (!load(files[f], &L, &T)) continue;
        ViewDims dims = view_dims_from_params(&L.params);
        Scene s;
        scene_init(&s);
        for (int head = 0; head < L.params.heads; head++)
            for (int all = 0; all < 2; all++) {
                ViewState st;
                view_init(&st, &dims);
                st.head = head;
                st.view = all ? VIEW_ALL_HEADS : VIEW_ONE_HEAD;
                if (!scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL)) continue;
                int blue = 0, orange = 0;
                for (size_t i = 0; i < s.count; i++) {
                    const DrawCmd *c = &s.cmds[i];
                    if (c->kind != CMD_RECT || c->y >= s.strip_y) continue;
                    blue += !memcmp(&c->color, &BLUE, sizeof BLUE);
                    orange += !memcmp(&c->color, &ORANGE, sizeof ORANGE);
                }
                if (f == 1)
                    CHECK(blue + orange == 0, "%s: no K/V band in the header without groups",
                          files[f]);
                else if (all)
                    CHECK(blue == 1 && orange == 1,
                          "%s all heads: both K/V heads' colours (%d, %d)", files[f], blue, orange);
                else
                    CHECK(blue == (head < 2) && orange == (head >= 2),
                          "%s head %d: its K/V head's colour (%d, %d)", files[f], head, blue,
                          orange);
            }
        scene_free(&s);
        trace_free(&T);
        lesson_free(&L);
    }
}

// Issue 38: W opens RoPE as a picture: every pair's numbers before and after the turn (the trace's
// Q and Q_rot, formatted as the board formats numbers), the two scores of the relative view, the
// bases of the plot, all at the floor, inside the window, at both sizes, for each token; the
// circles drawn as lines. W again closes it.
static void test_rotation_panel(void)
{
    static const char *const files[] = {"lessons/llama-rope-gqa.json",
                                        "lessons/mistral-sliding-window.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        Lesson L;
        Trace T;
        if (!load(files[f], &L, &T)) continue;
        ViewDims dims = view_dims_from_params(&L.params);
        ViewState st;
        view_init(&st, &dims);
        press(&st, VIEW_KEY_W);
        CHECK(st.panel == PANEL_ROPE && st.rope_t == L.params.n - 1,
              "W opens the rotation panel at the last token");
        Scene s;
        scene_init(&s);
        static const int sizes[2][2] = {{1280, 720}, {1920, 1080}};
        for (int tok = 0; tok < L.params.n; tok++)
            for (int z = 0; z < 2; z++) {
                int w = sizes[z][0], h = sizes[z][1];
                st.rope_t = tok;
                st.head = (tok + z) % L.params.heads;
                char what[160], want[160], a[32], b[32], ar[32], br[32];
                snprintf(what, sizeof what, "%s rotation token %d head %d %dx%d", files[f], tok,
                         st.head, w, h);
                CHECK(scene_build(&s, &st, &L, &T, w, h, &TM, NULL), "%s builds", what);
                check_layout(&s, w, h, what,
                             false); // a panel's figures at the floor, checked below
                RopePicture rp;
                if (!model_rope_picture(&rp, &L.params, &T, st.head, tok)) {
                    CHECK(false, "%s: a picture", what);
                    continue;
                }
                const HeadTrace *ht = &T.head[st.head];
                for (int j = 0; j < rp.pairs; j++) {
                    const RopePair *q = &rp.pair[j];
                    model_format_value(mat_get(&ht->Q, tok, q->a), a, sizeof a);
                    model_format_value(mat_get(&ht->Q, tok, q->b), b, sizeof b);
                    model_format_value(mat_get(&ht->Q_rot, tok, q->a), ar, sizeof ar);
                    model_format_value(mat_get(&ht->Q_rot, tok, q->b), br, sizeof br);
                    snprintf(want, sizeof want, "(%s, %s) \xe2\x86\x92", a, b);
                    const DrawCmd *t = text_cmd(&s, want);
                    CHECK(t && t->size >= scene_number_floor(h),
                          "%s: pair %d before '%s' at the floor", what, j, want);
                    snprintf(want, sizeof want, "(%s, %s)", ar, br);
                    t = text_cmd(&s, want);
                    CHECK(t && t->size >= scene_number_floor(h),
                          "%s: pair %d after '%s' at the floor", what, j, want);
                }
                model_format_value(mat_get(&ht->scores, tok, rp.rel.key), a, sizeof a);
                snprintf(want, sizeof want, "q\xc2\xb7k = %s", a);
                int same = 0;
                for (size_t i = 0; i < s.count; i++)
                    same += s.cmds[i].kind == CMD_TEXT && !strcmp(s.text + s.cmds[i].text, want)
                            && s.cmds[i].size >= scene_number_floor(h);
                CHECK(same == 2, "%s: '%s' written twice (both placings), %d", what, want, same);
                CHECK(has_text(&s, "500,000") && has_text(&s, "10,000 (this lesson)"),
                      "%s: the plot's bases", what);
                int lines = 0;
                for (size_t i = 0; i < s.count; i++) lines += s.cmds[i].kind == CMD_LINE;
                CHECK(lines >= 4 * 64, "%s: the circles drawn (%d segments)", what, lines);
            }
        press(&st, VIEW_KEY_W);
        CHECK(st.panel == PANEL_NONE, "W again closes it");
        scene_free(&s);
        trace_free(&T);
        lesson_free(&L);
    }
}

// Issue 38: Shift+K opens the KV cache's size (K still the cost panel, Shift+K again or Esc closes
// it): the published shape's bytes a token and for 8,192 tokens with MHA, GQA, MQA and Mistral-7B's
// window, and the lesson's, each the core's number as the panel formats it, at the floor, inside
// the window; its chart draws a line per row.
static void test_cache_size(void)
{
    static const char *const files[] = {"lessons/mistral-sliding-window.json",
                                        "lessons/the-cat-sat.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        Lesson L;
        Trace T;
        if (!load(files[f], &L, &T)) continue;
        const AttnParams *p = &L.params;
        ViewDims dims = view_dims_from_params(p);
        ViewState st;
        view_init(&st, &dims);
        ViewEvent sk = key(VIEW_KEY_K);
        sk.mods = VIEW_MOD_SHIFT;
        view_handle(&st, &sk);
        CHECK(st.panel == PANEL_CACHE, "Shift+K opens the KV cache's size");
        Scene s;
        scene_init(&s);
        int sizes[2][2] = {{1280, 720}, {1920, 1080}};
        for (int z = 0; z < 2; z++) {
            int w = sizes[z][0], h = sizes[z][1];
            char what[160], want[32];
            snprintf(what, sizeof what, "%s cache size %dx%d", files[f], w, h);
            CHECK(scene_build(&s, &st, &L, &T, w, h, &TM, NULL), "%s builds", what);
            check_bounds(&s, w, h, what);
            static const int64_t PUB[4][2] = {
                {32, 0}, {8, 0}, {1, 0}, {8, 4096}}; // MHA, GQA, MQA, window
            for (int r = 0; r < 4; r++) {
                cost_format_bytes(want, sizeof want,
                                  cost_kv_cache_bytes(32, PUB[r][0], 128, 2, 1, 0));
                CHECK(has_text(&s, want), "%s: %s a token", what, want);
                cost_format_bytes(want, sizeof want,
                                  cost_kv_cache_bytes(32, PUB[r][0], 128, 2, 8192, PUB[r][1]));
                const DrawCmd *t = text_cmd(&s, want);
                CHECK(t && t->size >= scene_number_floor(h), "%s: %s for 8,192 tokens at the floor",
                      what, want);
            }
            int kv = p->kv_heads > 0 ? p->kv_heads : p->heads;
            cost_format_bytes(want, sizeof want,
                              cost_kv_cache_bytes(1, p->heads, p->d_k, 2, p->n, 0));
            CHECK(has_text(&s, want), "%s: the lesson's MHA, %s", what, want);
            if (p->window > 0) {
                cost_format_bytes(want, sizeof want,
                                  cost_kv_cache_bytes(1, kv, p->d_k, 2, p->n, p->window));
                CHECK(has_text(&s, want), "%s: the lesson's window, %s", what, want);
            }
            int lines = 0;
            for (size_t i = 0; i < s.count; i++) lines += s.cmds[i].kind == CMD_LINE;
            CHECK(lines >= 5, "%s: a line per row of the chart (%d segments)", what, lines);
        }
        view_handle(&st, &sk);
        CHECK(st.panel == PANEL_NONE, "Shift+K again closes it");
        press(&st, VIEW_KEY_K);
        CHECK(st.panel == PANEL_COST, "K is still the cost panel");
        // The cost panel's KV-cache line says what the window keeps: 2·G·d_k·W numbers.
        scene_build(&s, &st, &L, &T, 1920, 1080, &TM, NULL);
        char line[128];
        snprintf(line, sizeof line, "the window of %d keeps %d tokens at most: %d numbers",
                 p->window, p->window,
                 2 * (p->kv_heads > 0 ? p->kv_heads : p->heads) * p->d_k * p->window);
        CHECK(said_squeezed(&s, line) == (p->window > 0), "%s: the cost panel says '%s': %d",
              files[f], line, said_squeezed(&s, line));
        press(&st, VIEW_KEY_K);
        view_handle(&st, &sk);
        press(&st, VIEW_KEY_ESCAPE);
        CHECK(st.panel == PANEL_NONE && !st.quit, "Esc closes it");
        scene_free(&s);
        trace_free(&T);
        lesson_free(&L);
    }
}

// Edit marks of the frame: a frame of thickness `t` in the edited colour with a filled square of
// the same colour in its top-right corner.
static int edit_marks(const Scene *s, int *thickness, int *corners)
{
    int marks = 0;
    *corners = 0;
    *thickness = 0;
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *f = &s->cmds[i];
        if (f->kind != CMD_FRAME || !same(f->color, THEME_LIGHT.edited)) continue;
        marks++;
        *thickness = f->thickness;
        for (size_t k = 0; k < s->count; k++) {
            const DrawCmd *r = &s->cmds[k];
            if (r->kind == CMD_RECT && same(r->color, THEME_LIGHT.edited) && r->y == f->y
                && r->x + r->w == f->x + f->w && r->w > 0 && r->w < f->w)
                (*corners)++;
        }
    }
    return marks;
}

// Builds the projections stage at the sub-step that shows matrix m (the board may show one at a
// time).
static bool build_showing(Scene *s, ViewState *st, const Lesson *L, const Trace *T,
                          const SceneExtras *ex, MatId m, int w, int h)
{
    st->substep = 0;
    for (int k = 0; k < 8; k++) {
        st->substep = k;
        scene_build_ex(s, st, L, T, ex, w, h, &TM, NULL);
        if (count_hits(s, m) > 0) return true;
        if (k >= s->substeps - 1) break;
    }
    return false;
}

// An edited weight is outlined (3 px, the edited colour, a corner square), and the status line
// counts the edits.
static void test_edit_marks(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat-on-the-mat.json", &L, &T)) return;
    Lesson shown = L;
    AttnParams e;
    CHECK(params_copy(&e, &L.params), "copy");
    CHECK(view_param_set(&e, (CellRef){MAT_WK, 1, 1, 0}, 1.5), "edit");
    shown.params = e;
    Trace t2;
    TraceError terr;
    CHECK(trace_run(&t2, &e, &terr), "trace");
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    go(&st, STAGE_PROJECT);
    st.head = 1;
    SceneExtras ex = {&L.params, NULL, NULL, false, NULL, NULL, NULL, NULL, NULL};
    Scene s;
    scene_init(&s);
    CHECK(build_showing(&s, &st, &shown, &t2, &ex, MAT_WK, 1280, 720),
          "W_K_1 is shown at some sub-step");
    int thick, corners;
    int marks = edit_marks(&s, &thick, &corners);
    CHECK(marks == 1, "one edited cell outlined in THEME_LIGHT.edited, got %d", marks);
    CHECK(marks != 1 || thick == 3, "the edit frame is 3 px at 1280x720, got %d", thick);
    CHECK(marks != 1 || corners == 1, "the edited cell has a corner square, got %d", corners);
    CHECK(has_text(&s, "1 value edited"), "the status line counts the edit");
    check_bounds(&s, 1280, 720, "edit marks");
    st.head = 0;
    build_showing(&s, &st, &shown, &t2, &ex, MAT_WK, 1280, 720);
    CHECK(edit_marks(&s, &thick, &corners) == 0, "head 0 has no edited cell");
    SceneExtras saved = {&L.params, NULL, "Saved 1 edit as x-edited.json in /tmp",
                         false,     NULL, NULL,
                         NULL,      NULL, NULL};
    scene_build_ex(&s, &st, &shown, &t2, &saved, 1280, 720, &TM, NULL);
    CHECK(has_text(&s, "x-edited.json in /tmp"), "the status line says where the lesson was saved");
    // A slide: the edit count stays, the keys and mouse hints go (also with a weight pinned or
    // nothing focused).
    CHECK(has_text(&s, "Ctrl+S") || has_text(&s, "x-edited"), "window status");
    SceneExtras slide = {&L.params, NULL, NULL, true, NULL, NULL, NULL, NULL, NULL};
    st.pinned = (CellRef){MAT_WK, 0, 1, 0};
    scene_build_ex(&s, &st, &shown, &t2, &slide, 1280, 720, &TM, NULL);
    CHECK(has_text(&s, "1 value edited") && !has_text(&s, "Ctrl+S") && !has_text(&s, "R reverts"),
          "a slide counts the edit without the keys");
    CHECK(has_text(&s, "a learned weight") && !has_text(&s, "click it"),
          "a slide explains a weight without the mouse");
    ex.slide = false;
    scene_build_ex(&s, &st, &shown, &t2, &ex, 1280, 720, &TM, NULL);
    CHECK(has_text(&s, "click it") && has_text(&s, "Ctrl+S"), "the window keeps its hints");
    st.pinned.mat = MAT_NONE;
    scene_build_ex(&s, &st, &shown, &t2, &slide, 1280, 720, &TM, NULL);
    CHECK(!has_text(&s, "Point at"), "no pointer hint on a slide");
    scene_build_ex(&s, &st, &shown, &t2, &ex, 1280, 720, &TM, NULL);
    CHECK(has_text(&s, "Point at"), "the window invites the pointer");
    st.help = true;
    scene_build_ex(&s, &st, &shown, &t2, &ex, 1280, 720, &TM, NULL);
    CHECK(help_lists(&s, &st, &shown, &t2, &ex, "Shift+E"), "the help lists E and Shift+E");
    check_bounds(&s, 1280, 720, "help");
    scene_free(&s);
    params_free(&e);
    trace_free(&t2);
    trace_free(&T);
    lesson_free(&L);
}

// The labels of a heatmap (one head's panel): for every row and every column, a text left of
// (above) the grid, centred on that row (column), that is the token's label, or its start cut with
// "…". The label itself, or its start cut with "…", keeping a duplicate token's subscript index
// after it
// ("w…₁₁" for "was₁₁").
static bool label_ok(const char *text, const char *label)
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

// beside: the heatmap beside the board, whose texts are at the floor (issue 36): there an axis may
// have no label at all, its tokens left to the matrix beside it, when none fits at the floor whole
// or cut keeping two letters.
static void check_heat_labels(const Scene *s, const Lesson *L, int head, const HitRegion *panel,
                              const char *what, bool beside)
{
    const AttnParams *p = &L->params;
    MatId m = MAT_NONE;
    int gx = 1 << 30, gy = 1 << 30;
    // Row bands and column bands from the cells inside the panel.
    int *ry = calloc((size_t)p->n, sizeof(int)), *rh = calloc((size_t)p->n, sizeof(int));
    int *cx = calloc((size_t)p->m, sizeof(int)), *cw = calloc((size_t)p->m, sizeof(int));
    if (!ry || !rh || !cx || !cw) goto done;
    for (size_t i = 0; i < s->hit_count; i++) {
        const HitRegion *r = &s->hits[i];
        if (r->cell.mat == MAT_NONE || r->cell.head != head || r->x < panel->x || r->y < panel->y
            || r->x + r->w > panel->x + panel->w + 1 || r->y + r->h > panel->y + panel->h + 1)
            continue;
        if (r->cell.row < 0 || r->cell.row >= p->n || r->cell.col < 0 || r->cell.col >= p->m)
            continue;
        m = r->cell.mat;
        ry[r->cell.row] = r->y;
        rh[r->cell.row] = r->h;
        cx[r->cell.col] = r->x;
        cw[r->cell.col] = r->w;
        if (r->x < gx) gx = r->x;
        if (r->y < gy) gy = r->y;
    }
    CHECK(m != MAT_NONE, "%s: the heatmap has cells", what);
    if (m == MAT_NONE) goto done;
    // rows: a text left of the grid, its middle in the row's band; columns: above the grid, in the
    // column's.
    for (int axis = 0; axis < 2; axis++) {
        int count = axis ? p->m : p->n, ok = 0, same_text = 0;
        char(*shown)[160] = calloc((size_t)count, sizeof *shown);
        if (!shown) break;
        char label[160];
        for (int i = 0; i < count; i++) {
            model_axis_label(L, axis ? AXIS_KEY : AXIS_QUERY, i, label, sizeof label);
            // A column's label may be written across (one text) or downwards (a text per letter,
            // top to bottom): the texts within the column's width above the grid, in order.
            char text[160] = "";
            for (size_t k = 0; k < s->count; k++) {
                const DrawCmd *c = &s->cmds[k];
                if (c->kind != CMD_TEXT || (axis && c->font == FONT_BOLD))
                    continue; // a panel's title is no label
                // (or, staggered on two lines, wider than its column and centred over it)
                bool at =
                    axis ? c->y + c->h <= gy + 1 && c->y >= panel->y
                               && ((c->x >= cx[i] - 1 && c->x + c->w <= cx[i] + cw[i] + 1)
                                   || (c->w > cw[i] && c->w <= 2 * cw[i] && c->x + c->w / 2 >= cx[i]
                                       && c->x + c->w / 2 <= cx[i] + cw[i]))
                         : c->x + c->w <= gx && c->x >= panel->x && c->y + c->h / 2 >= ry[i]
                               && c->y + c->h / 2 < ry[i] + rh[i];
                if (!at) continue;
                if (axis)
                    snprintf(text + strlen(text), sizeof text - strlen(text), "%s",
                             scene_text(s, c));
                else if (label_ok(scene_text(s, c), label))
                    snprintf(text, sizeof text, "%s", scene_text(s, c));
            }
            if (text[0] && label_ok(text, label)) snprintf(shown[i], sizeof shown[i], "%s", text);
            else if (axis && text[0] && (count - ok < 4 || getenv("MHA_TEST_VERBOSE")))
                fprintf(stderr, "  %s: column %d reads '%s', its token is '%s'\n", what, i, text,
                        label);
            if (shown[i][0]) ok++;
            else if ((count - ok < 4 || i < 2) && !beside)
                fprintf(stderr, "  %s: %s %d ('%s') has no label\n", what, axis ? "column" : "row",
                        i, label);
        }
        if (beside && ok == 0) { // left to the board: no text of this axis at all, cut or not
            free(shown);
            continue;
        }
        // Tokens that occur twice keep their subscripts: no two rows (columns) read the same.
        for (int i = 0; i < count; i++)
            for (int j = i + 1; j < count; j++)
                if (shown[i][0] && shown[j][0] && !strcmp(shown[i], shown[j])) {
                    if (same_text++ < 2)
                        fprintf(stderr, "  %s: %ss %d and %d both read '%s'\n", what,
                                axis ? "column" : "row", i, j, shown[i]);
                }
        CHECK(ok == count, "%s: %d of %d %ss labelled with their token", what, ok, count,
              axis ? "column" : "row");
        CHECK(same_text == 0,
              "%s: %d pairs of %ss read the same (a duplicate token's subscript cut off)", what,
              same_text, axis ? "column" : "row");
        free(shown);
    }
done:
    free(ry);
    free(rh);
    free(cx);
    free(cw);
}

// The heatmap as a part (the slide), and beside the board or in the all-heads grid when there; on
// every stage that has one, or (only) on the softmax.
static void heat_label_views(const char *name, const Lesson *L, const Trace *T, int w, int h,
                             Stage only)
{
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    Scene s;
    scene_init(&s);
    char what[200];
    for (int k = 0; k < st.stage_count; k++) {
        st.stage_index = k;
        if (model_stage_heatmap(&L->params, view_stage(&st)) == MAT_NONE) continue;
        if (only != STAGE_COUNT && view_stage(&st) != only) continue;
        snprintf(what, sizeof what, "%s %s heatmap part %dx%d", name, stage_key(view_stage(&st)), w,
                 h);
        scene_build_part(&s, SCENE_PART_HEATMAP, &st, L, T, w, h, h / 720.0, &TM);
        const HitRegion *panel = heat_panel(&s, 0);
        CHECK(panel != NULL, "%s: drawn", what);
        if (panel) check_heat_labels(&s, L, 0, panel, what, false);
        check_numbers(&s, h, s.num_font, what);
        st.view = VIEW_ALL_HEADS;
        scene_build(&s, &st, L, T, w, h, &TM, NULL);
        snprintf(what, sizeof what, "%s %s all heads %dx%d", name, stage_key(view_stage(&st)), w,
                 h);
        CHECK(heat_panels(&s) == L->params.heads, "%s: %d panels", what, heat_panels(&s));
        for (int hd = 0; hd < L->params.heads; hd++) {
            char w2[240];
            snprintf(w2, sizeof w2, "%s, head %d", what, hd);
            if ((panel = heat_panel(&s, hd))) check_heat_labels(&s, L, hd, panel, w2, false);
        }
        st.view = VIEW_ONE_HEAD;
        scene_build(&s, &st, L, T, w, h, &TM, NULL);
        if ((panel = heat_panel(&s, st.head))) {
            snprintf(what, sizeof what, "%s %s beside the board %dx%d", name,
                     stage_key(view_stage(&st)), w, h);
            check_heat_labels(&s, L, st.head, panel, what, true);
        }
    }
    scene_free(&s);
}

// (4) The causal lesson's heatmaps label every token; a 40-token lesson's heatmap labels all 40
// rows and columns (tokens that occur more than once with their index as a subscript).
static void test_heat_labels(void)
{
    Lesson L;
    Trace T;
    if (load("lessons/causal-decoder.json", &L, &T)) {
        heat_label_views("causal", &L, &T, 1280, 720, STAGE_COUNT);
        heat_label_views("causal", &L, &T, 1920, 1080, STAGE_COUNT);
        trace_free(&T);
        lesson_free(&L);
    }
    char *json = lesson_of_tokens(40, 8, 2, false);
    CHECK(json != NULL, "40-token lesson written");
    if (json && parse(json, &L, &T)) {
        CHECK(L.params.n == 40 && L.params.m == 40, "40 tokens");
        char label[64];
        model_axis_label(&L, AXIS_QUERY, 13, label, sizeof label);
        CHECK(!strcmp(label, "the\xe2\x82\x81\xe2\x82\x83"), "the 14th token is the₁₃, got %s",
              label);
        heat_label_views("40 tokens", &L, &T, 1280, 720, STAGE_SOFTMAX);
        heat_label_views("40 tokens", &L, &T, 1920, 1080, STAGE_SOFTMAX);
        // No number is squeezed into the small cells: numbers at the board's size, or colours
        // alone.
        ViewDims dims = view_dims_from_params(&L.params);
        ViewState st;
        view_init(&st, &dims);
        go(&st, STAGE_SOFTMAX);
        Scene s;
        scene_init(&s);
        scene_build_part(&s, SCENE_PART_HEATMAP, &st, &L, &T, 1280, 720, 1.0, &TM);
        check_numbers(&s, 720, s.num_font, "40 tokens heatmap part");
        scene_free(&s);
        trace_free(&T);
        lesson_free(&L);
    }
    free(json);
}

// The letters a cut label keeps before its "…" (code points).
static int letters_kept(const char *t)
{
    const char *dots = strstr(t, ELLIPSIS);
    int n = 0;
    for (const char *q = t; *q && (!dots || q < dots); q++) n += ((unsigned char)*q & 0xC0) != 0x80;
    return n;
}

// Whether a text is drawn inside a hit region.
static bool inside(const DrawCmd *c, const HitRegion *r)
{
    return c->x >= r->x && c->y >= r->y && c->x < r->x + r->w && c->y < r->y + r->h;
}

// Is t a token label cut short ("<…" for "<s>", "do…" for "down")?
static bool cut_label(const Lesson *L, const char *t)
{
    char label[160];
    for (int i = 0; i < L->params.n + L->params.m; i++) {
        model_axis_label(L, i < L->params.n ? AXIS_QUERY : AXIS_KEY,
                         i < L->params.n ? i : i - L->params.n, label, sizeof label);
        if (strcmp(t, label) && label_ok(t, label)) return true;
    }
    return false;
}

// Issue 25: the Arabic lesson's heatmaps at 1280x720 and 1920x1080 keep every token whole ("…جل"
// was cut): the key labels staggered on two lines when one cell is too narrow, the query labels in
// a wider column, on every stage with a heatmap, beside the board and in the all-heads grid.
static void test_arabic_heat_labels(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/jalasat-al-qitta.json", &L, &T)) return;
    static const int SIZES[2][2] = {{1280, 720}, {1920, 1080}};
    ViewDims dims = view_dims_from_params(&L.params);
    Scene s;
    scene_init(&s);
    for (int k = 0; k < 2; k++) {
        int w = SIZES[k][0], h = SIZES[k][1], cut = 0, screens = 0;
        ViewState st;
        view_init(&st, &dims);
        for (int i = 0; i < st.stage_count; i++) {
            st.stage_index = i;
            if (model_stage_heatmap(&L.params, view_stage(&st)) == MAT_NONE) continue;
            for (int v = 0; v < 2; v++)
                for (int hd = 0; hd < L.params.heads; hd++) {
                    st.view = v ? VIEW_ALL_HEADS : VIEW_ONE_HEAD;
                    st.head = hd;
                    scene_build(&s, &st, &L, &T, w, h, &TM, NULL);
                    screens++;
                    // Issue 36: a board's long labels are cut only to keep its equation on one
                    // screen (cells as wide as their numbers); a board in parts, and the heatmaps,
                    // cut none.
                    if (!v && s.substeps == 1) continue;
                    // Beside the board the tokens are at the floor (issue 36): there one may be
                    // cut, keeping two letters and its index, when it cannot be whole
                    // (check_heat_labels: no two alike).
                    const HitRegion *beside = v ? NULL : heat_panel(&s, hd);
                    for (size_t c = 0; c < s.count; c++)
                        if (s.cmds[c].kind == CMD_TEXT && cut_label(&L, scene_text(&s, &s.cmds[c]))
                            && !(beside && inside(&s.cmds[c], beside)
                                 && letters_kept(scene_text(&s, &s.cmds[c])) >= 2)
                            && cut++ < 3)
                            fprintf(stderr, "  arabic %dx%d %s head %d%s: '%s'\n", w, h,
                                    stage_key(view_stage(&st)), hd, v ? " (all heads)" : "",
                                    scene_text(&s, &s.cmds[c]));
                }
        }
        CHECK(screens >= 8 && cut == 0, "arabic %dx%d: %d token labels cut on %d screens", w, h,
              cut, screens);
        // The notes on the first stage: right-to-left lines aligned right, "(d_k = 4)" kept in its
        // order (an isolate), lines far enough apart for the Arabic letters' reach, the last one
        // inside the window.
        st.stage_index = 0;
        st.view = VIEW_ONE_HEAD;
        st.notes = true;
        scene_build(&s, &st, &L, &T, w, h, &TM, NULL);
        int lines = 0, right = -1, misaligned = 0, last_y = -1, tight = 0, low = 0, isolated = 0;
        for (size_t c = 0; c < s.count; c++) {
            const DrawCmd *d = &s.cmds[c];
            const char *t = scene_text(&s, d);
            if (d->kind != CMD_TEXT || !utf8_is_rtl(t) || strlen(t) < 40 || d->y < h / 2)
                continue; // a notes line
            lines++;
            if (getenv("MHA_TEST_VERBOSE"))
                fprintf(stderr, "  %d,%d %dx%d '%s'\n", d->x, d->y, d->w, d->h, t);
            if (right < 0) right = d->x + d->w;
            misaligned += abs(d->x + d->w - right) > 1;
            if (last_y >= 0 && d->y - last_y < d->h + d->h / 4) tight++;
            last_y = d->y;
            if (d->y + d->h + d->h / 4 > h) low++;
            isolated += strstr(t, "(\xe2\x81\xa6"
                                  "d_k = 4\xe2\x81\xa9)")
                        != NULL;
        }
        CHECK(lines >= 2 && misaligned == 0, "arabic %dx%d: %d notes lines, %d not aligned right",
              w, h, lines, misaligned);
        CHECK(tight == 0 && low == 0,
              "arabic %dx%d: %d notes lines too close, %d at the bottom edge", w, h, tight, low);
        CHECK(isolated == 1, "arabic %dx%d: (d_k = 4) kept left to right in the notes (%d)", w, h,
              isolated);
        heat_label_views("arabic", &L, &T, w, h, STAGE_COUNT);
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Short-token lessons at 1280x720 and 1920x1080: every stage shows numbers on the board, and when
// the heatmap is beside the board the board keeps every token label whole (the board alone does:
// the heatmap may not cost the board anything).
static void test_board_labels(const char *file)
{
    Lesson L;
    Trace T;
    if (!load(file, &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    Scene s;
    scene_init(&s);
    static const int SIZES[][2] = {{1280, 720}, {1920, 1080}};
    for (size_t z = 0; z < sizeof SIZES / sizeof SIZES[0]; z++) {
        int w = SIZES[z][0], h = SIZES[z][1];
        for (int k = 0; k < st.stage_count; k++) {
            st.stage_index = k;
            char what[160];
            snprintf(what, sizeof what, "%s %s %dx%d", file, stage_key(view_stage(&st)), w, h);
            // The board alone, in the room the window gives it.
            scene_build_part(&s, SCENE_PART_BOARD, &st, &L, &T, w, h * 3 / 4, h / 720.0, &TM);
            int alone = 0;
            for (size_t i = 0; i < s.count; i++)
                alone += s.cmds[i].kind == CMD_TEXT && cut_label(&L, scene_text(&s, &s.cmds[i]));
            scene_build(&s, &st, &L, &T, w, h, &TM, NULL);
            int numbers = check_numbers(&s, h, scene_number_floor(h), what);
            CHECK(numbers >= 4, "%s: board numbers shown (%d)", what, numbers);
            if (!heat_panel(&s, st.head) && heat_panels(&s) == 0) continue;
            int cut = 0;
            for (size_t i = 0; i < s.count; i++) {
                const DrawCmd *c = &s.cmds[i];
                if (c->kind != CMD_TEXT || !cut_label(&L, scene_text(&s, c))) continue;
                const HitRegion *panel = heat_panel(&s, st.head);
                if (panel && c->x >= panel->x) continue; // the heatmap's own labels
                if (cut++ < 2)
                    fprintf(stderr, "  %s: board label cut to '%s' beside the heatmap\n", what,
                            scene_text(&s, c));
            }
            CHECK(
                alone > 0 || cut == 0,
                "%s: the heatmap costs the board %d token labels (cut to fit; none cut without it)",
                what, cut);
        }
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Windows: a matrix too large shows some of its rows and columns at the full size, with a caption
// that says which ("columns 0–7 of 512", en dash); paper-base and bert-base-shape show numbers on
// every stage and sub-step (3); Right and PageDown step through sub-steps before the next stage.
struct Caption {
    const Lesson *L;
    int w, h, windowed;
    char name[64];
};

// Reads "rows a–b of n" (what = "rows ") or "cols a–b of n" / "columns a–b of n" (what = "col") in
// t.
static bool parse_range(const char *t, const char *what, int *a, int *b, int *n)
{
    const char *p = strstr(t, what);
    if (!p) return false;
    p += strlen(what);
    if (!strcmp(what, "col")) {
        if (starts_with(p, "umns ")) p += 5;
        else if (starts_with(p, "s ")) p += 2;
        else return false;
    }
    char *end;
    *a = (int)strtol(p, &end, 10);
    if (end == p || !starts_with(end, EN_DASH)) return false;
    p = end + strlen(EN_DASH);
    *b = (int)strtol(p, &end, 10);
    if (end == p || !starts_with(end, " of ")) return false;
    p = end + 4;
    *n = (int)strtol(p, &end, 10);
    return end != p;
}

// A matrix on the board showing only some of its cells says which, under it: "rows a–b of n" for
// its rows when not all are shown, "cols a–b of n" (or "columns") for its columns, with the rows
// and columns shown.
static int check_windows(const Scene *s, const Lesson *L, const char *what)
{
    int windowed = 0;
    for (int m = MAT_X; m < MAT_COUNT; m++)
        for (int hd = 0; hd < L->params.heads; hd++) {
            int R, C;
            scene_mat_shape(L, (MatId)m, &R, &C);
            if (R <= 0 || C <= 0) continue;
            char *seen = calloc((size_t)R * (size_t)C, 1);
            if (!seen) return windowed;
            int n = 0, r0 = R, r1 = -1, c0 = C, c1 = -1, x0 = 1 << 30, x1 = -1, y1 = -1;
            for (size_t i = 0; i < s->hit_count; i++) {
                const HitRegion *r = &s->hits[i];
                if (r->cell.mat != (MatId)m || r->cell.head != hd || r->head >= 0)
                    continue; // head >= 0: a heatmap
                if (r->cell.row < 0 || r->cell.row >= R || r->cell.col < 0 || r->cell.col >= C)
                    continue;
                if (!seen[(size_t)r->cell.row * C + r->cell.col]++) n++;
                if (r->cell.row < r0) r0 = r->cell.row;
                if (r->cell.row > r1) r1 = r->cell.row;
                if (r->cell.col < c0) c0 = r->cell.col;
                if (r->cell.col > c1) c1 = r->cell.col;
                if (r->x < x0) x0 = r->x;
                if (r->x + r->w > x1) x1 = r->x + r->w;
                if (r->y + r->h > y1) y1 = r->y + r->h;
            }
            free(seen);
            if (n == 0 || n == R * C) continue;
            windowed++;
            bool rows_cut = r1 - r0 + 1 < R, cols_cut = c1 - c0 + 1 < C;
            // The caption: one line per windowed axis, just under the cells, overlapping them
            // horizontally.
            const char *cap = NULL, *cap_rows = NULL, *cap_cols = NULL;
            int lh = fake_height(NULL, FONT_REGULAR, s->num_font);
            for (size_t i = 0; i < s->count; i++) {
                const DrawCmd *c = &s->cmds[i];
                if (c->kind == CMD_TEXT && c->y >= y1 - 2 && c->y <= y1 + 3 * lh && c->x < x1
                    && c->x + c->w > x0) {
                    if (!cap_rows && strstr(scene_text(s, c), "rows ")) cap_rows = scene_text(s, c);
                    if (!cap_cols && strstr(scene_text(s, c), "col")) cap_cols = scene_text(s, c);
                }
            }
            cap = cap_rows ? cap_rows : cap_cols;
            char name[64];
            model_mat_name(NULL, (MatId)m, hd, name, sizeof name);
            CHECK(cap != NULL, "%s: %s shows %d of %d cells and says which under it", what, name, n,
                  R * C);
            if (!cap) continue;
            int a, b, t;
            if (rows_cut)
                CHECK(cap_rows && parse_range(cap_rows, "rows ", &a, &b, &t) && a == r0 && b == r1
                          && t == R,
                      "%s: %s shows rows %d" EN_DASH "%d of %d: caption '%s'", what, name, r0, r1,
                      R, cap_rows ? cap_rows : "(none)");
            if (cols_cut)
                CHECK(cap_cols && parse_range(cap_cols, "col", &a, &b, &t) && a == c0 && b == c1
                          && t == C,
                      "%s: %s shows columns %d" EN_DASH "%d of %d: caption '%s'", what, name, c0,
                      c1, C, cap_cols ? cap_cols : "(none)");
        }
    return windowed;
}

static void walk_windows(const Scene *s, const ViewState *st, void *user)
{
    struct Caption *cp = user;
    char what[200];
    snprintf(what, sizeof what, "%s %s %d/%d %dx%d", cp->name, stage_key(view_stage(st)),
             s->substep + 1, s->substeps, cp->w, cp->h);
    cp->windowed += check_windows(s, cp->L, what);
    int full = check_numbers(s, cp->h, scene_number_floor(cp->h), what);
    CHECK(full > 0, "%s: numbers at the board's size (at least %d px) (%d)", what,
          scene_number_floor(cp->h), full);
}

static void test_windows(const char *file)
{
    Lesson L;
    Trace T;
    if (!load(file, &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    Scene s;
    scene_init(&s);
    static const int SIZES[][2] = {{1280, 720}, {1920, 1080}};
    for (size_t z = 0; z < sizeof SIZES / sizeof SIZES[0]; z++) {
        struct Caption cp = {&L, SIZES[z][0], SIZES[z][1], 0, ""};
        snprintf(cp.name, sizeof cp.name, "%s", file);
        walk(&s, &st, &L, &T, SIZES[z][0], SIZES[z][1], walk_windows, &cp);
        CHECK(cp.windowed > 0, "%s %dx%d: large matrices are windowed (%d)", file, SIZES[z][0],
              SIZES[z][1], cp.windowed);
    }
    // The input: X (10 or 7 x d_model) shows its first columns and says so.
    go(&st, STAGE_INPUT);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    bool cap = false;
    for (size_t i = 0; i < s.count; i++) {
        int a, b, n;
        if (s.cmds[i].kind == CMD_TEXT && parse_range(scene_text(&s, &s.cmds[i]), "col", &a, &b, &n)
            && a == 0 && n == L.params.d_model)
            cap = true;
    }
    CHECK(cap, "%s input: 'columns 0–k of %d'", file, L.params.d_model);

    // Parts: projections of d_model 512+ do not fit together: X, W and the result each on a part of
    // their own, every operand shown (issue 36), each result on exactly one part; Right and
    // PageDown step through them all.
    go(&st, STAGE_PROJECT);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(s.substeps >= 3 && s.substep == 0,
          "%s projections: at least 3 parts, the first shown (%d, %d)", file, s.substeps,
          s.substep);
    MatId results[3] = {MAT_Q, MAT_K, MAT_V};
    int parts = s.substeps, seen[3] = {0, 0, 0};
    for (int k = 0; k < parts; k++) {
        for (int r = 0; r < 3; r++) seen[r] += count_hits_head(&s, results[r], st.head) > 0;
        view_set_parts(&st, s.substeps, s.substep, s.part_result);
        press(&st, k % 2 ? VIEW_KEY_PAGEDOWN : VIEW_KEY_RIGHT);
        if (k < parts - 1) {
            CHECK(view_stage(&st) == STAGE_PROJECT && st.substep == k + 1, "%s: part %d follows",
                  file, k + 2);
            scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
            CHECK(s.substep == k + 1 && s.substeps == parts,
                  "%s: the scene shows part %d of %d (%d of %d)", file, k + 2, parts, s.substep + 1,
                  s.substeps);
        } else {
            CHECK(view_stage(&st) == STAGE_SCORES,
                  "%s: Right after the last part goes to the scores", file);
        }
    }
    for (int r = 0; r < 3; r++)
        CHECK(seen[r] == 1, "%s projections: %s on exactly one part (%d)", file,
              mat_info(results[r])->key, seen[r]);
    // Back from the scores: the projections' last sub-step (the scene clamps the view's 'last').
    go(&st, STAGE_SCORES);
    press(&st, VIEW_KEY_LEFT);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(view_stage(&st) == STAGE_PROJECT && s.substep == s.substeps - 1,
          "%s: Left from the scores shows the last sub-step (%d of %d)", file, s.substep + 1,
          s.substeps);
    // view_set_substeps clamps.
    view_set_substeps(&st, 3, 7);
    CHECK(st.substep == 2 && st.substep_count == 3, "view_set_substeps(3, 7) -> 2");
    view_set_substeps(&st, 3, -4);
    CHECK(st.substep == 0, "view_set_substeps(3, -4) -> 0");
    view_set_substeps(&st, 0, 5);
    CHECK(st.substep_count == 1 && st.substep == 0, "view_set_substeps(0, 5) -> one sub-step");
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// (2) Zoom: two steps of 1.25 make the numbers larger, all at the one size.
// Issue 25, item 20: a long lesson title is shown whole in the header (on a line of its own when
// the strip leaves it too little), at both projector sizes.
static void test_header_title(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/paper-base.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    go(&st, STAGE_SOFTMAX);
    Scene s;
    scene_init(&s);
    static const int SIZES[][2] = {{1280, 720}, {1920, 1080}};
    for (size_t z = 0; z < 2; z++) {
        scene_build(&s, &st, &L, &T, SIZES[z][0], SIZES[z][1], &TM, NULL);
        CHECK(count_exact(&s, L.title) == 1, "%dx%d: the title '%s' whole in the header",
              SIZES[z][0], SIZES[z][1], L.title);
        check_bounds(&s, SIZES[z][0], SIZES[z][1], "a long title");
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

static void test_zoom(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/causal-decoder.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    go(&st, STAGE_SOFTMAX);
    Scene s;
    scene_init(&s);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    int base = s.num_font;
    CHECK(base >= scene_number_font(720), "zoom 1: num_font %d >= scene_number_font(720) %d", base,
          scene_number_font(720));
    press(&st, VIEW_KEY_PLUS);
    press(&st, VIEW_KEY_PLUS);
    CHECK(fabs(st.zoom - 1.5625) < 1e-9, "two + steps: zoom 1.25^2, got %g", st.zoom);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(s.num_font > base, "zoom 1.5625: num_font %d larger than at zoom 1 (%d)", s.num_font,
          base);
    CHECK(s.num_font >= (int)lround(scene_number_font(720) * 1.5625) - 1,
          "zoom 1.5625: num_font %d is at least %d x 1.5625", s.num_font, scene_number_font(720));
    int n = check_numbers(&s, 720, s.num_font, "zoom 1.5625");
    CHECK(n > 0, "zoomed: numbers drawn (%d)", n);
    // Issue 25, item 19: the zoom says its level; the board cut by the window's edges says so with
    // an arrow, and no text is left in part (no fragment of a title under the slider).
    CHECK(has_text(&s, "zoom 156 %"), "the header says 'zoom 156 %%'");
    press(&st, VIEW_KEY_RIGHT);
    press(&st, VIEW_KEY_RIGHT);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    int arrows = count_exact(&s, "\xe2\x97\x80") + count_exact(&s, "\xe2\x96\xb6")
                 + count_exact(&s, "\xe2\x96\xb2") + count_exact(&s, "\xe2\x96\xbc");
    CHECK(arrows >= 2, "the edges the zoomed board goes on beyond show arrows (%d)", arrows);
    const DrawCmd *clip = NULL;
    int cut = 0;
    for (size_t i = 0; i < s.count; i++) {
        const DrawCmd *c = &s.cmds[i];
        if (c->kind == CMD_CLIP) clip = c->w > 0 ? c : NULL;
        else if (clip && c->kind == CMD_TEXT
                 && (c->x < clip->x || c->y < clip->y || c->x + c->w > clip->x + clip->w
                     || c->y + c->h > clip->y + clip->h)
                 && cut++ < 2)
            fprintf(stderr, "  zoomed: '%s' cut by the edge at %d,%d\n", scene_text(&s, c), c->x,
                    c->y);
    }
    CHECK(cut == 0, "no text of the zoomed board cut by the edge (%d)", cut);
    press(&st, VIEW_KEY_0);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(s.num_font == base, "0 resets the zoom: %d", s.num_font);
    CHECK(!has_text(&s, "zoom "), "at zoom 1 the header says nothing of it");
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// (5) Embeddings of 40: the scaled scores are in the thousands, exp of them is ∞ in a naive
// softmax; the explanation is the stable one and never shows ∞, on every weight of every head.
static void test_huge_embeddings(void)
{
    static const char JSON[] =
        "{\"title\": \"Embeddings of 40\", \"tokens\": [\"The\", \"cat\", \"sat\"],"
        " \"embeddings\": [[40, 0, 40, 0], [0, 40, 0, 40], [40, 40, 40, 40]],"
        " \"heads\": 2, \"weights\": {\"random\": {\"seed\": 42, \"qkv_std\": 1.0, \"out_std\": "
        "0.5}}}";
    Lesson L;
    Trace T;
    if (!parse(JSON, &L, &T)) return;
    double top = 0.0;
    for (int h = 0; h < L.params.heads; h++)
        for (int i = 0; i < L.params.n; i++)
            for (int j = 0; j < L.params.m; j++) {
                double v = fabs(scene_cell_value(&L, &T, (CellRef){MAT_SCALED, h, i, j}));
                if (v > top) top = v;
            }
    CHECK(top > 710.0, "the scaled scores overflow a naive exp (largest |S'| = %.1f)", top);
    char lines[4][256];
    int bad = 0;
    for (int h = 0; h < L.params.heads; h++)
        for (int i = 0; i < L.params.n; i++)
            for (int j = 0; j < L.params.m; j++) {
                int n = scene_explain(&L, &T, (CellRef){MAT_WEIGHTS, h, i, j}, lines, 4);
                CHECK(n == 3, "A%d[%d, %d] explained in 3 lines (%d)", h, i, j, n);
                for (int k = 0; k < n; k++)
                    if (strstr(lines[k], INF) || strstr(lines[k], "inf")
                        || strstr(lines[k], "nan")) {
                        if (bad++ < 3)
                            fprintf(stderr, "  A%d[%d, %d] line %d: %s\n", h, i, j, k, lines[k]);
                    }
                char v[32];
                scene_format_value(scene_cell_value(&L, &T, (CellRef){MAT_WEIGHTS, h, i, j}), v,
                                   sizeof v);
                CHECK(n == 3 && starts_with(lines[1], "max = ") && starts_with(lines[2], "= ")
                          && strstr(lines[2], v),
                      "A%d[%d, %d]: max line, then = e / sum = %s: %s", h, i, j, v,
                      n == 3 ? lines[2] : "");
            }
    CHECK(bad == 0, "no weight of the 40s lesson is explained with infinity (%d lines)", bad);
    // On screen too: the pinned weight's explanation, and nothing reads ∞ anywhere (no mask here).
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    go(&st, STAGE_SOFTMAX);
    st.pinned = (CellRef){MAT_WEIGHTS, 0, 1, 2};
    Scene s;
    scene_init(&s);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(has_text(&s, "max = "), "the stable explanation is on screen");
    CHECK(!has_text(&s, INF), "nothing on screen reads infinity");
    check_bounds(&s, 1280, 720, "embeddings of 40");
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Key N: the lesson's notes in the footer on any stage, whole.
static void test_notes(void)
{
    const char *files[] = {"lessons/causal-decoder.json", "lessons/the-cat-sat-on-the-mat.json",
                           "tests/good/three-tokens.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        Lesson L;
        Trace T;
        if (!load(files[f], &L, &T)) continue;
        if (!L.notes) {
            CHECK(false, "%s has notes", files[f]);
            trace_free(&T);
            lesson_free(&L);
            continue;
        }
        ViewDims dims = view_dims_from_params(&L.params);
        ViewState st;
        view_init(&st, &dims);
        Scene s;
        scene_init(&s);
        char start[32];
        snprintf(start, sizeof start, "%.20s", L.notes);
        go(&st, STAGE_SOFTMAX);
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        CHECK(!has_text(&s, start), "%s: no notes before N", files[f]);
        press(&st, VIEW_KEY_N);
        CHECK(st.notes, "N turns the notes on");
        for (int k = 0; k < st.stage_count; k++) {
            st.stage_index = k;
            st.notes = true;
            st.notes_page = 0;
            scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
            char what[160];
            snprintf(what, sizeof what, "%s notes %s 1280x720", files[f],
                     stage_key(view_stage(&st)));
            CHECK(has_text(&s, start), "%s: the notes are in the footer", what);
            // Whole, in pages in the room below the board (issue 36: they never move the board): N
            // turns them until the last words are drawn; no line of them is cut with an ellipsis on
            // any page.
            const char *tail = L.notes + strlen(L.notes);
            while (tail > L.notes && tail[-1] != ' ') tail--;
            bool end = false;
            int cut = 0, pages = 0;
            for (; pages < 12 && !end; pages++) {
                for (size_t i = 0; i < s.count; i++) {
                    if (s.cmds[i].kind != CMD_TEXT) continue;
                    const char *t = scene_text(&s, &s.cmds[i]);
                    if (ends_with(t, tail)) end = true;
                    const char *dots = strstr(t, ELLIPSIS);
                    char head[256];
                    snprintf(head, sizeof head, "%.*s", dots ? (int)(dots - t) : 0, t);
                    if (dots && strlen(head) >= 10 && strstr(L.notes, head))
                        cut++; // a line of the notes, cut
                }
                check_bounds(&s, 1280, 720, what);
                if (end) break;
                view_set_notes_more(&st, s.notes_more);
                CHECK(s.notes_more, "%s: page %d says more follows", what, pages + 1);
                press(&st, VIEW_KEY_N);
                CHECK(st.notes && st.notes_page == pages + 1, "%s: N turns to page %d", what,
                      pages + 2);
                scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
            }
            CHECK(end && cut == 0,
                  "%s: the notes are shown whole over %d pages (ends with '%s': %d, %d cut lines)",
                  what, pages + 1, tail, end, cut);
            view_set_notes_more(&st, s.notes_more);
            press(&st, VIEW_KEY_N);
            CHECK(!st.notes, "%s: N after the last page hides the notes", what);
        }
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        CHECK(!st.notes && !has_text(&s, start), "%s: N again hides them", files[f]);
        scene_free(&s);
        trace_free(&T);
        lesson_free(&L);
    }
}

// A lesson of one head: the header says "one head".
static void test_one_head(void)
{
    Lesson L;
    Trace T;
    if (!load("tests/good/big-seed.json", &L, &T)) return;
    CHECK(L.params.heads == 1, "big-seed has one head");
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    Scene s;
    scene_init(&s);
    for (int k = 0; k < st.stage_count; k++) {
        st.stage_index = k;
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        CHECK(count_exact(&s, "one head") == 1, "one-head lesson, %s: 'one head'",
              stage_key(view_stage(&st)));
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Any window size a window manager may give (the event storm's sizes): every stage, view, panel and
// overlay lays out without failing, and inside the window once there is room for it.
static void test_extreme_sizes(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/causal-decoder.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    static const int SIZES[][2] = {{1, 1}, {2, 700}, {700, 2}, {50, 30}, {8000, 5000}};
    Scene s;
    scene_init(&s);
    SceneExtras ex = {&L.params, NULL, "Exported x.png and .svg to /tmp", false, NULL, NULL, NULL,
                      NULL,      NULL};
    int built = 0;
    for (size_t k = 0; k < sizeof SIZES / sizeof SIZES[0]; k++)
        for (int i = 0; i < st.stage_count; i++)
            for (int v = 0; v < 5; v++) {
                st.stage_index = i;
                st.view = v == 1 ? VIEW_ALL_HEADS : VIEW_ONE_HEAD;
                st.panel = v == 2 ? PANEL_COST : v == 3 ? PANEL_COMPARE : PANEL_NONE;
                st.help = v == 4;
                st.pinned = (CellRef){MAT_X, 0, 0, 0};
                int w = SIZES[k][0], h = SIZES[k][1];
                built +=
                    scene_build_ex(&s, &st, &L, &T, &ex, w, h, &TM, v == 4 ? "a banner" : NULL);
                if (w >= 1000) check_layout(&s, w, h, "8000x5000", v != 2);
            }
    CHECK(built == (int)(sizeof SIZES / sizeof SIZES[0]) * st.stage_count * 5,
          "every size laid out (%d)", built);
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// At 1280x720, the 6-token lesson's projections show X once, every row labelled, numbers at the
// full size.
static void test_projector(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat-on-the-mat.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    go(&st, STAGE_PROJECT);
    Scene s;
    scene_init(&s);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    // Shown together: X once; shown one at a time: X on each sub-step.
    int xs = 0, labels = 0, numbers = 0;
    for (int k = 0; k < s.substeps || k == 0; k++) {
        st.substep = k;
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        char what[64];
        snprintf(what, sizeof what, "mat projections %d/%d", k + 1, s.substeps);
        CHECK(count_title(&s, "X", "(6" TIMES "4)") == 1, "%s: X shown once, got %d", what,
              count_title(&s, "X", "(6" TIMES "4)"));
        xs++;
        // 6 tokens as row labels ("the" twice: "the₀" and "the₄").
        labels += count_exact(&s, "the\xe2\x82\x80") + count_exact(&s, "the\xe2\x82\x84")
                  + count_exact(&s, "cat") + count_exact(&s, "sat") + count_exact(&s, "on")
                  + count_exact(&s, "mat");
        numbers += check_numbers(&s, 720, scene_number_font(720), what);
        check_bounds(&s, 1280, 720, what);
    }
    // Every row of X and of Q, K, V labelled, every cell of X, W, Q, K, V written.
    CHECK(labels == (s.substeps > 1 ? 12 * s.substeps : 24),
          "every row of X, Q, K, V labelled: %d labels", labels);
    CHECK(numbers >= (s.substeps > 1 ? s.substeps * (24 + 8 + 12) : 24 + 24 + 36),
          "%d numbers at the full size", numbers);
    (void)xs;
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Stepping forward always moves on: every (stage, sub-step) the keys reach comes after the one
// before, and the walk ends on the last stage, for every shipped lesson at the projector and laptop
// sizes (a sub-step the scene reported differently from the one asked for once sent PageDown round
// in a circle).
static void test_steps_move_on(void)
{
    static const char *const FILES[] = {
        "lessons/the-cat-sat.json",       "lessons/the-cat-sat-on-the-mat.json",
        "lessons/causal-decoder.json",    "lessons/cross-attention.json",
        "lessons/thinking-machines.json", "lessons/pytorch-layer.json",
        "lessons/paper-base.json",        "tests/good/three-tokens.json"};
    static const int SIZES[4][2] = {{1280, 720}, {1920, 1080}, {1024, 768}, {800, 600}};
    for (size_t f = 0; f < sizeof FILES / sizeof FILES[0]; f++) {
        Lesson L;
        Trace T;
        if (!load(FILES[f], &L, &T)) continue;
        for (int z = 0; z < 4; z++) {
            Scene s;
            scene_init(&s);
            ViewState st;
            ViewDims d = view_dims_from_params(&L.params);
            view_init(&st, &d);
            int last_stage = -1, last_sub = -1, steps = 0;
            bool forward = true;
            for (int guard = 0; guard < 80; guard++) {
                scene_build(&s, &st, &L, &T, SIZES[z][0], SIZES[z][1], &TM, NULL);
                view_set_substeps(&st, s.substeps, s.substep);
                if (st.stage_index < last_stage
                    || (st.stage_index == last_stage && st.substep <= last_sub))
                    forward = false;
                last_stage = st.stage_index;
                last_sub = st.substep;
                steps++;
                ViewEvent e = key(VIEW_KEY_PAGEDOWN);
                if (!view_handle(&st, &e)) break;
            }
            CHECK(forward && last_stage == st.stage_count - 1 && steps < 80,
                  "%s %dx%d: PageDown walks forward to the last stage (at stage %d of %d after %d "
                  "steps)",
                  FILES[f], SIZES[z][0], SIZES[z][1], last_stage + 1, st.stage_count, steps);
            scene_free(&s);
        }
        trace_free(&T);
        lesson_free(&L);
    }
}

// Cross-attention: the source sequence is Y in the stage texts (never S, which is the scores), and
// a full heatmap says which sequence runs down (the queries, from the target) and which across (the
// keys, from the source); a self-attention heatmap says queries and keys.
static void test_cross_names(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/cross-attention.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    Scene s;
    scene_init(&s);
    SceneExtras ex = {0};
    for (int i = 0; i < st.stage_count; i++) {
        st.stage_index = i;
        Stage stage = view_stage(&st);
        CHECK(scene_build_ex(&s, &st, &L, &T, &ex, 1280, 720, &TM, NULL), "cross board builds");
        if (stage == STAGE_INPUT) {
            CHECK(has_text(&s, "source tokens Y"), "the input stage names the source Y");
            CHECK(count_text(&s, "Y") >= 1 && !has_text(&s, "source tokens S"),
                  "no S for the source");
        }
        if (stage == STAGE_PROJECT)
            CHECK(has_text(&s, "Y into K and V"), "the projections read Y into K and V");
        if (stage == STAGE_SOFTMAX)
            CHECK(has_text(&s, "\xe2\x86\x93 target")
                      || has_text(&s, "\xe2\x86\x93 queries: the target"),
                  "the softmax board's heatmap names its axes");
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
    if (!load("lessons/the-cat-sat.json", &L, &T)) return;
    dims = view_dims_from_params(&L.params);
    view_init(&st, &dims);
    scene_init(&s);
    for (int i = 0; i < st.stage_count; i++) {
        st.stage_index = i;
        if (view_stage(&st) != STAGE_SOFTMAX) continue;
        CHECK(scene_build_ex(&s, &st, &L, &T, &ex, 1280, 720, &TM, NULL), "cat board builds");
        CHECK(has_text(&s, "\xe2\x86\x93 queries    \xe2\x86\x92 keys"),
              "self-attention axes: queries down, keys across");
        CHECK(!has_text(&s, "target"), "no target/source in self-attention");
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// The texts of the question box (the bottom of the window, from its "Question" line down): each at
// a size whose glyphs are >= 2.6 % of h, inside the window. Returns how many.
static int question_texts(const Scene *s, int w, int h, const char *what)
{
    int n = 0, low = 0, outside = 0, top = -1;
    for (size_t i = 0; i < s->count && top < 0; i++)
        if (s->cmds[i].kind == CMD_TEXT && starts_with(scene_text(s, &s->cmds[i]), "Question"))
            top = s->cmds[i].y;
    for (size_t i = 0; i < s->count && top >= 0; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind != CMD_TEXT || c->y < top)
            continue; // the box is at the bottom: its texts from its first down
        const char *t = scene_text(s, c);
        n++;
        if (glyph_height(c->size) < 0.026 * h) {
            if (low++ < 3) fprintf(stderr, "  %s: '%s' at %d px\n", what, t, c->size);
        }
        if (c->x < 0 || c->y < 0 || c->x + c->w > w || c->y + c->h > h) outside++;
    }
    CHECK(low == 0, "%s: %d question texts below 2.6 %% of %d px", what, low, h);
    CHECK(outside == 0, "%s: %d question texts outside the window", what, outside);
    return n;
}

// How many numbers of matrix m (head) the scene writes.
static int numbers_of(const Scene *s, MatId m, int head)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++)
        n += s->cmds[i].role == ROLE_NUMBER && s->cmds[i].cell.mat == m
             && s->cmds[i].cell.head == head;
    return n;
}

// A question on screen: asked (the result hidden, the question and how to answer legible at
// projector sizes, hidden cells still clickable), then revealed (the verdict, the answer, the
// result filled to it).
static void test_question_panel(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewQuestion vq[LESSON_MAX_QUESTIONS];
    for (int i = 0; i < L.question_count; i++) {
        QuestionAnswer a;
        LessonError err;
        CHECK(question_answer(&L, &T, &L.questions[i], i, &a, &err), "question %d answers", i);
        vq[i] = question_view(&L.questions[i], &a);
    }
    static const int SIZES[2][2] = {{1280, 720}, {1920, 1080}};
    Scene s;
    scene_init(&s);
    for (int k = 0; k < 2; k++) {
        int w = SIZES[k][0], h = SIZES[k][1];
        char what[96];
        ViewState st;
        view_init(&st, &dims);
        view_set_questions(&st, vq, L.question_count);
        go(&st, STAGE_SOFTMAX);
        CHECK(st.quiz == 0 && st.quiz_phase == QUIZ_ASKING && st.head == 1,
              "the softmax asks question 1");
        SceneExtras ex = {.question = &L.questions[0]};
        snprintf(what, sizeof what, "question asked %dx%d", w, h);
        CHECK(scene_build_ex(&s, &st, &L, &T, &ex, w, h, &TM, NULL), "%s builds", what);
        check_bounds(&s, w, h, what);
        // Numbered in the order asked: the scores question (third in the file) came first.
        CHECK(has_text(&s, "Question 2 of 3: Which word does"), "%s: the question", what);
        CHECK(has_text(&s, "Click the cell of A"), "%s: how to answer", what);
        CHECK(has_text(&s, "Esc: skip"), "%s: how to skip", what);
        CHECK(question_texts(&s, w, h, what) >= 2, "%s: question texts drawn", what);
        CHECK(numbers_of(&s, MAT_WEIGHTS, 1) == 0, "%s: no weight of head 1 is written (%d)", what,
              numbers_of(&s, MAT_WEIGHTS, 1));
        CHECK(!has_text(&s, "0.5487"), "%s: the answer is nowhere", what);
        CHECK(count_hits_head(&s, MAT_WEIGHTS, 1) >= 9, "%s: the hidden cells can be clicked (%d)",
              what, count_hits_head(&s, MAT_WEIGHTS, 1));
        // A value being typed shows what was typed.
        press(&st, VIEW_KEY_ESCAPE);
        press(&st, VIEW_KEY_RIGHT);
        CHECK(st.quiz == 1 && st.quiz_phase == QUIZ_ASKING, "question 2 next");
        ViewEvent d = {.kind = VIEW_EV_KEY, .key = VIEW_KEY_0, .head = -1};
        view_handle(&st, &d);
        d.key = VIEW_KEY_PERIOD;
        view_handle(&st, &d);
        d.key = VIEW_KEY_DIGIT;
        d.digit = 6;
        view_handle(&st, &d);
        ex.question = &L.questions[1];
        snprintf(what, sizeof what, "value typed %dx%d", w, h);
        scene_build_ex(&s, &st, &L, &T, &ex, w, h, &TM, NULL);
        check_bounds(&s, w, h, what);
        CHECK(has_text(&s, "Your number: 0.6"), "%s: the typed number shows", what);
        question_texts(&s, w, h, what);
        // Judged: the verdict, what was given, the answer; the result filled to the answer cell.
        d.key = VIEW_KEY_ENTER;
        view_handle(&st, &d);
        view_quiz_judged(&st, true, (CellRef){MAT_WEIGHTS, 0, 0, 0},
                         (CellRef){MAT_WEIGHTS, 0, 0, 0});
        snprintf(what, sizeof what, "question revealed %dx%d", w, h);
        scene_build_ex(&s, &st, &L, &T, &ex, w, h, &TM, NULL);
        check_bounds(&s, w, h, what);
        CHECK(has_text(&s, "\xe2\x9c\x93 Right") && has_text(&s, "you said 0.6"), "%s: the verdict",
              what);
        CHECK(has_text(&s, "Answer: row 0 (\xe2\x80\x9cThe\xe2\x80\x9d), column 0 "
                           "(\xe2\x80\x9cThe\xe2\x80\x9d) is 0.6111"),
              "%s: the answer", what);
        CHECK(numbers_of(&s, MAT_WEIGHTS, 0) >= 1 && has_text(&s, "0.6111"),
              "%s: the answer cell is filled", what);
        CHECK(!has_text(&s, "0.2431"), "%s: the cells after it are not yet", what);
        CHECK(has_text(&s, "exp("), "%s: its arithmetic shows", what);
        question_texts(&s, w, h, what);
        // A wrong answer says so.
        st.quiz_right = false;
        scene_build_ex(&s, &st, &L, &T, &ex, w, h, &TM, NULL);
        CHECK(has_text(&s, "\xe2\x9c\x97 Not quite"), "%s: not quite", what);
    }
    // A long question wraps inside the window, on a small window too.
    LessonQuestion longq = L.questions[0];
    char text[900];
    memset(text, 0, sizeof text);
    for (int i = 0; i < 40; i++) strcat(text, "attention ");
    longq.text = text;
    ViewState st;
    view_init(&st, &dims);
    view_set_questions(&st, vq, L.question_count);
    go(&st, STAGE_SOFTMAX);
    SceneExtras ex = {.question = &longq};
    scene_build_ex(&s, &st, &L, &T, &ex, 1280, 720, &TM, NULL);
    check_bounds(&s, 1280, 720, "a long question");
    scene_build_ex(&s, &st, &L, &T, &ex, 800, 600, &TM, NULL);
    check_layout(&s, 800, 600, "a long question 800x600", false);
    // No question on screen: no box, even with one given.
    press(&st, VIEW_KEY_ESCAPE);
    scene_build_ex(&s, &st, &L, &T, &ex, 1280, 720, &TM, NULL);
    CHECK(!has_text(&s, "Question"), "no box without a question on screen");
    st.help = true;
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(help_lists(&s, &st, &L, &T, NULL, "predict: an automatic question")
              && help_lists(&s, &st, &L, &T, NULL, "answer a question"),
          "the help lists P and answers");
    check_bounds(&s, 1280, 720, "help with the question keys");
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// The slider legible (issue 25, item 6): its labels (both ends' values, the stops' names) and the
// keys' explanation apart from each other, the thumb and the ticks clear of every label.
static void check_slider(const Scene *s, const char *what)
{
    const DrawCmd *texts[16];
    int nt = 0, overlaps = 0, covered = 0;
    bool lo = false, hi = false, keys = false;
    for (size_t i = 0; i < s->count && nt < 16; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind != CMD_TEXT || c->y < s->slider_y || c->y >= s->slider_y + s->slider_h
            || c->x < s->slider_x - 80)
            continue;
        const char *t = scene_text(s, c);
        lo = lo || !strcmp(t, "0.1250");
        hi = hi || !strcmp(t, "4");
        keys = keys || strstr(t, "[ smaller") != NULL;
        texts[nt++] = c;
    }
    for (int i = 0; i < nt; i++)
        for (int j = i + 1; j < nt; j++)
            if (texts[i]->x < texts[j]->x + texts[j]->w && texts[j]->x < texts[i]->x + texts[i]->w
                && texts[i]->y < texts[j]->y + texts[j]->h
                && texts[j]->y < texts[i]->y + texts[i]->h) {
                if (overlaps++ < 2)
                    fprintf(stderr, "  %s: '%s' over '%s'\n", what, scene_text(s, texts[i]),
                            scene_text(s, texts[j]));
            }
    for (size_t i = 0; i < s->count; i++) { // the thumb, the ticks and the track against the labels
        const DrawCmd *r = &s->cmds[i];
        if (r->kind != CMD_RECT || r->y < s->slider_y || r->y >= s->slider_y + s->slider_h
            || r->x < s->slider_x - 2 || r->x > s->slider_x + s->slider_w + 2
            || r->w > s->slider_w + 4)
            continue;
        for (int k = 0; k < nt; k++)
            if (r->x < texts[k]->x + texts[k]->w && texts[k]->x < r->x + r->w
                && r->y < texts[k]->y + texts[k]->h && texts[k]->y < r->y + r->h && covered++ < 2)
                fprintf(stderr, "  %s: a mark of the slider over '%s'\n", what,
                        scene_text(s, texts[k]));
    }
    CHECK(nt >= 4 && overlaps == 0, "%s: the slider's %d labels apart (%d overlaps)", what, nt,
          overlaps);
    CHECK(covered == 0, "%s: the thumb and ticks clear of the labels (%d)", what, covered);
    CHECK(lo && hi, "%s: both ends of the slider labelled with their values", what);
    CHECK(keys, "%s: the [ ] keys explained beside the slider", what);
}

// Issue 14 on the board: the Positions stage, the entropy column, the scale slider, switched-off
// heads and the shuffle panel, with every number at the legible size.
static void test_teaching(void)
{
    Lesson L;
    Trace T;
    static const int PROJECTOR[2][2] = {{1280, 720}, {1920, 1080}};
    if (load("lessons/the-dog-bit-the-man.json", &L, &T)) {
        test_number_sizes("the-dog-bit-the-man", &L, &T, PROJECTOR, 2, true);
        ViewDims dims = view_dims_from_params(&L.params);
        ViewState st;
        view_init(&st, &dims);
        CHECK(st.stage_count == LESSON_STAGES - 2 && st.stages[1] == STAGE_POSITIONS,
              "the Positions stage follows the input");
        Scene s;
        scene_init(&s);
        // Positions: E, P and X = E + P (one or two sub-steps), X's cells the trace's sums.
        go(&st, STAGE_POSITIONS);
        scene_build(&s, &st, &L, &T, 1920, 1080, &TM, NULL);
        bool e = count_title(&s, "E", "5") > 0, pm = count_title(&s, "P", "5") > 0,
             x = count_title(&s, "X", "5") > 0;
        if (s.substeps > 1) {
            view_set_substeps(&st, s.substeps, 1);
            scene_build(&s, &st, &L, &T, 1920, 1080, &TM, NULL);
            x = x || count_title(&s, "X", "5") > 0;
        }
        CHECK(e && pm && x, "E, P and X on the Positions board (E %d, P %d, X %d)", e, pm, x);
        // The header's 10000^(2i/d): the whole exponent raised, without its parentheses (it once
        // raised only the 2, reading as 10000 squared times i/d).
        CHECK(count_text(&s, "2i/d") == 1 && !has_text(&s, "^") && !has_text(&s, "(2i/d)"),
              "the exponent 2i/d raised as one group");
        CHECK(scene_cell_value(&L, &T, (CellRef){MAT_X, 0, 1, 0})
                  == mat_get(&L.params.E, 1, 0) + mat_get(&L.params.P, 1, 0),
              "X[1, 0] = E[1, 0] + P[1, 0]");
        char lines[4][256];
        int n = scene_explain(&L, &T, (CellRef){MAT_P, 0, 2, 1}, lines, 4);
        CHECK(n >= 2 && strstr(lines[1], "cos(2 / 10000^(0/4))"),
              "P[2, 1] explained as a cosine: %s", n > 1 ? lines[1] : "");
        // Softmax: each row's entropy in bits beside it, the trace's numbers.
        go(&st, STAGE_SOFTMAX);
        st.substep = 1000;
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        view_set_substeps(&st, s.substeps, s.substeps - 1);
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        char v[32];
        scene_format_value(mat_get(&T.head[0].entropy, 2, 0), v, sizeof v);
        CHECK(has_text(&s, "bits") && count_exact(&s, v) >= 1,
              "the entropy of row 2 (%s bits) beside the softmax", v);
        check_bounds(&s, 1280, 720, "softmax with entropies");
        // The slider on the scaling stage: the scale and its stops.
        go(&st, STAGE_SCALE);
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        CHECK(has_text(&s, "scale 0.7071 = 1/\xe2\x88\x9a"
                           "d_k")
                  && has_text(&s, "1/d_k"),
              "the slider at 1/sqrt(d_k)");
        check_bounds(&s, 1280, 720, "scaling with the slider");
        check_slider(&s, "1280x720 d_k 2");
        // A press on the slider: the ends are 1/(4 d_k) and 4; near the middle stop, exactly
        // 1/sqrt(d_k).
        double sv = 0;
        CHECK(s.slider_w > 0 && scene_slider_at(&s, s.slider_x, s.slider_y + 1, &sv)
                  && fabs(sv - 0.125) < 1e-12,
              "the left end is 1/(4 d_k) = 0.125 (%g)", sv);
        CHECK(scene_slider_at(&s, s.slider_x + s.slider_w, s.slider_y + s.slider_h - 1, &sv)
                  && fabs(sv - 4) < 1e-12,
              "the right end is 4 (%g)", sv);
        int root_x =
            s.slider_x
            + (int)lround((log(1 / sqrt(2.0)) - log(0.125)) / (log(4.0) - log(0.125)) * s.slider_w);
        CHECK(scene_slider_at(&s, root_x + 1, s.slider_y + 2, &sv) && sv == 1 / sqrt(2.0),
              "by the stop: 1/sqrt 2 (%g)", sv);
        CHECK(!scene_slider_at(&s, s.slider_x + 5, s.slider_y + s.slider_h + 2, &sv),
              "below the slider: not on it");
        go(&st, STAGE_PROJECT);
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        CHECK(s.slider_w == 0 && !scene_slider_at(&s, 300, 100, &sv),
              "no slider on the projections");
        scene_free(&s);
        // Head 1 switched off: marked, its Concat columns hatched, the Output stage's difference
        // row.
        AttnParams off;
        Trace TO;
        TraceError terr;
        CHECK(params_copy(&off, &L.params), "copy");
        off.ablated = 2;
        if (trace_run(&TO, &off, &terr)) {
            Lesson LO = L;
            LO.params = off;
            scene_init(&s);
            go(&st, STAGE_CONCAT);
            int hatches = 0;
            for (int sub = 0; sub < 3 && hatches == 0; sub++) {
                st.substep = sub;
                scene_build(&s, &st, &LO, &TO, 1920, 1080, &TM, NULL);
                for (size_t i = 0; i < s.count; i++) hatches += s.cmds[i].kind == CMD_HATCH;
            }
            CHECK(hatches == 5 * 2, "head 1's 2 columns of Concat hatched (%d)", hatches);
            CHECK(has_text(&s, "head 1 off"), "the header says head 1 is off");
            go(&st, STAGE_OUTPUT);
            bool diff = false, all = false; // in one part, or in parts of their own
            for (int sub = 0; sub < 8 && !(diff && all); sub++) {
                st.substep = sub;
                scene_build(&s, &st, &LO, &TO, 1920, 1080, &TM, NULL);
                diff = diff || count_hits(&s, MAT_OUTPUT_DIFF) > 0;
                all = all || count_hits(&s, MAT_OUTPUT_ALL) > 0;
                check_bounds(&s, 1920, 1080, "output with a head off");
            }
            CHECK(diff && all,
                  "the Output stage shows Output (all heads) - Output = the difference");
            CellRef d = {MAT_OUTPUT_DIFF, 0, 3, 2};
            CHECK(scene_cell_value(&LO, &TO, d)
                      == mat_get(&TO.full_output, 3, 2) - mat_get(&TO.output, 3, 2),
                  "the difference is the trace's two outputs subtracted");
            CHECK(scene_cell_value(&L, &T, d) != scene_cell_value(&L, &T, d),
                  "no difference without a head off (NaN)");
            scene_free(&s);
            trace_free(&TO);
        } else CHECK(false, "trace with head 1 off: %s", terr.message);
        params_free(&off);
        trace_free(&T);
        lesson_free(&L);
    }
    // Every number inside its cell: X = E + P of the cross lesson has 1.5 as its largest value,
    // whose width was once taken from "2" (1.5 + 0.5 printed as an integer) and cut "1.5000".
    if (load("tests/good/positions-explicit-cross.json", &L, &T)) {
        ViewDims dims = view_dims_from_params(&L.params);
        ViewState st;
        view_init(&st, &dims);
        go(&st, STAGE_POSITIONS);
        Scene s;
        scene_init(&s);
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        int numbers = 0, wider = 0;
        for (size_t i = 0; i < s.count; i++) {
            const DrawCmd *c = &s.cmds[i];
            const HitRegion *r =
                c->kind == CMD_TEXT && c->role == ROLE_NUMBER ? cell_under(&s, c) : NULL;
            if (!r) continue;
            numbers++;
            if (c->w > r->w) wider++;
        }
        CHECK(numbers >= 2 * 3 * 3 + 2 * 3 * 2 && wider == 0,
              "%d of %d numbers wider than their cells", wider, numbers);
        scene_free(&s);
        trace_free(&T);
        lesson_free(&L);
    }
    // The shuffle panel (key X), from the session's shuffled lesson.
    Session doc;
    session_init(&doc);
    SessionError err;
    if (session_load(&doc, MHA_SOURCE_DIR "/lessons/the-dog-bit-the-man.json", &err)
        && session_shuffle(&doc, 0, &err)) {
        ViewDims dims = view_dims_from_params(&doc.edit);
        ViewState st;
        view_init(&st, &dims);
        press(&st, VIEW_KEY_X);
        Lesson shown = session_shown(&doc);
        SceneExtras ex = {&doc.lesson.params,     NULL, NULL, false, NULL,
                          session_shuffled(&doc), NULL, NULL, NULL};
        Scene s;
        scene_init(&s);
        for (int z = 0; z < 2; z++) {
            CHECK(scene_build_ex(&s, &st, &shown, &doc.trace, &ex, PROJECTOR[z][0], PROJECTOR[z][1],
                                 &TM, NULL),
                  "builds");
            check_bounds(&s, PROJECTOR[z][0], PROJECTOR[z][1], "shuffle panel");
            CHECK(has_text(&s, "man the bit dog the")
                      && has_text(&s, "With positions: the rows change"),
                  "the shuffle panel names the order and says the rows change");
            char v[32];
            scene_format_value(mat_get(&doc.shuf.trace.output, 3, 1), v, sizeof v);
            CHECK(has_text(&s, v), "the shuffled output's numbers (%s) are shown", v);
        }
        scene_free(&s);
    } else CHECK(false, "dog lesson and its shuffle: %s", err.message);
    session_free(&doc);
}

// A press on the header's strip of stages (touch screens, a teacher's mouse): every segment answers
// with its own stage, the segment whose label is drawn there; gaps, the title and the line below
// answer nothing.
static void test_strip_press(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    Scene s;
    scene_init(&s);
    static const int SIZES[2][2] = {{1280, 720}, {1920, 1080}};
    for (int z = 0; z < 2; z++) {
        int w = SIZES[z][0], h = SIZES[z][1];
        go(&st, STAGE_SOFTMAX);
        scene_build(&s, &st, &L, &T, w, h, &TM, NULL);
        CHECK(s.strip_n == st.stage_count && s.strip_seg > 0,
              "%dx%d: the strip has %d segments (%d stages)", w, h, s.strip_n, st.stage_count);
        int at = -1;
        for (int i = 0; i < s.strip_n; i++) {
            int cx = s.strip_x + i * (s.strip_seg + s.strip_gap) + s.strip_seg / 2,
                cy = s.strip_y + s.strip_h / 2;
            CHECK(scene_stage_at(&s, cx, cy, &at) && at == i,
                  "%dx%d: the centre of segment %d answers %d", w, h, i, at);
        }
        // The labels: "softmax" and "AV" are drawn over their own stages' segments.
        static const struct {
            const char *label;
            Stage stage;
        } LABELS[] = {{"softmax", STAGE_SOFTMAX}, {"AV", STAGE_WEIGHTED_SUM}};
        for (int k = 0; k < 2; k++) {
            int want = -1;
            for (int i = 0; i < st.stage_count; i++)
                if (st.stages[i] == LABELS[k].stage) want = i;
            bool found = false;
            for (size_t i = 0; i < s.count && !found; i++) {
                const DrawCmd *c = &s.cmds[i];
                if (c->kind != CMD_TEXT || strcmp(scene_text(&s, c), LABELS[k].label) != 0)
                    continue;
                if (c->y < s.strip_y - 2 || c->y > s.strip_y + s.strip_h)
                    continue; // not the strip's
                found = scene_stage_at(&s, c->x + c->w / 2, s.strip_y + s.strip_h / 2, &at)
                        && at == want;
            }
            CHECK(found, "%dx%d: the label %s is on the segment that goes to its stage (%d)", w, h,
                  LABELS[k].label, want);
        }
        CHECK(s.strip_gap > 0
                  && !scene_stage_at(&s, s.strip_x + s.strip_seg + s.strip_gap / 2, s.strip_y + 2,
                                     &at),
              "%dx%d: the gap between two segments is on none", w, h);
        CHECK(!scene_stage_at(&s, s.strip_x - 5, s.strip_y + 2, &at),
              "%dx%d: the title is on no segment", w, h);
        CHECK(!scene_stage_at(&s, s.strip_x + 5, s.strip_y + s.strip_h + 3, &at),
              "%dx%d: below the strip is on none", w, h);
        CHECK(!scene_stage_at(&s, s.strip_x + s.strip_n * (s.strip_seg + s.strip_gap) + 1,
                              s.strip_y + 2, &at),
              "%dx%d: past the last segment is on none", w, h);
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

int main(void)
{
    test_strip_press();
    test_cross_names();
    test_steps_move_on();
    test_colormaps();
    test_number_font();
    // (1) every number >= scene_number_font(h) with digits >= 2.6 % of h, every stage and sub-step.
    static const int PROJECTOR[2][2] = {{1280, 720}, {1920, 1080}};
    // (6) smaller windows still draw numbers.
    static const int SMALL[2][2] = {{1024, 768}, {800, 600}};
    Lesson L;
    Trace T;
    if (load("lessons/the-cat-sat.json", &L, &T)) {
        test_number_sizes("the-cat-sat", &L, &T, PROJECTOR, 2, true);
        test_number_sizes("the-cat-sat", &L, &T, SMALL, 2, false);
        trace_free(&T);
        lesson_free(&L);
    }
    if (load("tests/good/three-tokens.json", &L, &T)) {
        test_number_sizes("three-tokens", &L, &T, PROJECTOR, 2, true);
        test_number_sizes("three-tokens", &L, &T, SMALL, 2, false);
        trace_free(&T);
        lesson_free(&L);
    }
    if (load("lessons/causal-decoder.json", &L, &T)) {
        test_number_sizes("causal", &L, &T, SMALL, 2, false);
        trace_free(&T);
        lesson_free(&L);
    }
    test_zoom(); // (2)
    test_header_title();
    test_windows("lessons/paper-base.json"); // (3)
    test_windows("lessons/bert-base-shape.json"); // (3)
    test_heat_labels(); // (4)
    test_arabic_heat_labels();
    test_huge_embeddings(); // (5)
    test_notes();
    test_one_head();
    test_projector();
    test_extreme_sizes();
    test_cost_panel();
    test_compare_view();
    test_kv_groups();
    test_cache_size();
    test_rotation_panel();
    test_header_groups();
    test_edit_marks();
    test_board_labels("lessons/causal-decoder.json");
    test_board_labels("lessons/the-cat-sat.json");
    test_board_labels("tests/good/three-tokens.json");
    test_cat();
    test_question_panel();
    test_lesson_file("tests/good/twelve-heads.json", 12, false);
    test_lesson_file("lessons/causal-decoder.json", 2, true);
    test_lesson_file("lessons/cross-attention.json", 2, false);
    test_lesson_file("lessons/bert-base-shape.json", 12, false);
    test_teaching();
    return check_report("test_scene");
}
