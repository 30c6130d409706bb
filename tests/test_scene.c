// Tests the scene headless with a fixed-width fake font: the viridis colour of head 0's The->The weight
// (0.6111), labels and formula present, nothing drawn outside the window at 1280x720 and 3840x2160,
// no illegibly small numbers, hover arithmetic, masked cells, the all-heads grid and the colormaps.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/colormap.h"
#include "render/scene.h"

// Every character (UTF-8 code point) is 0.6 em wide; lines are 1.2 em.
static int fake_width(void *user, FontRole f, int size, const char *t)
{
    (void)user;
    (void)f;
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        if ((*p & 0xC0) != 0x80) n++;
    return (int)lround(n * size * 0.6);
}

static int fake_height(void *user, FontRole f, int size)
{
    (void)user;
    (void)f;
    return (int)lround(size * 1.2);
}

static const TextMetrics TM = {NULL, fake_width, fake_height};

static bool same(Rgba a, Rgba b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

static bool has_text(const Scene *s, const char *needle)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strstr(scene_text(s, &s->cmds[i]), needle)) return true;
    return false;
}

// Every command inside the window; text never below min_size.
static void check_bounds(const Scene *s, int w, int h, int min_size, const char *what)
{
    int outside = 0, small = 0;
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->x < 0 || c->y < 0 || c->x + c->w > w || c->y + c->h > h) {
            if (outside++ < 3)
                fprintf(stderr, "  %s: command %zu (kind %d, '%s') at %d,%d %dx%d\n", what, i, c->kind,
                        c->kind == CMD_TEXT ? scene_text(s, c) : "", c->x, c->y, c->w, c->h);
        }
        if (c->kind == CMD_TEXT && c->size < min_size) small++;
    }
    CHECK(outside == 0, "%s: %d commands outside %dx%d", what, outside, w, h);
    CHECK(small == 0, "%s: %d texts smaller than %d px", what, small, min_size);
}

// The fill colour of the rectangle exactly under the hit region of a cell (the last such rect wins).
static bool cell_fill(const Scene *s, CellRef want, int nth, Rgba *out)
{
    int seen = 0;
    for (size_t i = 0; i < s->hit_count; i++) {
        const HitRegion *r = &s->hits[i];
        if (r->cell.mat != want.mat || r->cell.head != want.head || r->cell.row != want.row || r->cell.col != want.col)
            continue;
        if (seen++ != nth) continue;
        for (size_t k = s->count; k-- > 0;) {
            const DrawCmd *c = &s->cmds[k];
            if (c->kind == CMD_RECT && c->x == r->x && c->y == r->y && c->w >= r->w - 1 && c->w <= r->w) {
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

static ViewEvent key(ViewKey k)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_KEY;
    e.key = k;
    e.head = -1;
    return e;
}

static void go(ViewState *st, Stage s)
{
    ViewEvent home = key(VIEW_KEY_HOME), next = key(VIEW_KEY_RIGHT);
    view_handle(st, &home);
    while (view_stage(st) != s && st->stage_index < st->stage_count - 1) view_handle(st, &next);
}

static void test_colormaps(void)
{
    Rgba v = colormap_rgb(COLORMAP_VIRIDIS, 0.6111);
    // matplotlib: viridis(0.6111) = _viridis_data[int(0.6111 * 256) = 156] = (0.143303, 0.669459, 0.511215),
    // to_hex(...) = #25ab82
    CHECK(v.r == 37 && v.g == 171 && v.b == 130, "viridis(0.6111) = #25ab82, got (%d,%d,%d)", v.r, v.g, v.b);
    Rgba lo = colormap_rgb(COLORMAP_VIRIDIS, 0.0), hi = colormap_rgb(COLORMAP_VIRIDIS, 1.0);
    CHECK(lo.r == 68 && lo.g == 1 && lo.b == 84, "viridis(0) = #440154");
    CHECK(hi.r == 253 && hi.g == 231 && hi.b == 37, "viridis(1) = #fde725");
    Rgba c0 = colormap_rgb(COLORMAP_CIVIDIS, 0.0), c1 = colormap_rgb(COLORMAP_CIVIDIS, 1.0);
    CHECK(c0.r == 0 && c0.g == 34 && c0.b == 78, "cividis(0) = #00224e, got (%d,%d,%d)", c0.r, c0.g, c0.b);
    CHECK(c1.r == 254 && c1.g == 232 && c1.b == 56, "cividis(1) = #fee838, got (%d,%d,%d)", c1.r, c1.g, c1.b);
    Rgba g0 = colormap_rgb(COLORMAP_GREY, 0.0), g1 = colormap_rgb(COLORMAP_GREY, 1.0);
    CHECK(g0.r == 255 && g1.r < 40 && g0.r == g0.g && g1.g == g1.b, "greyscale: white to near black");
    Rgba n = colormap_rgb(COLORMAP_VIRIDIS, NAN);
    CHECK(same(n, lo), "NaN maps to the low end");
    Rgba d0 = colormap_diverging(COLORMAP_VIRIDIS, 0.0), dn = colormap_diverging(COLORMAP_VIRIDIS, -1.0),
         dp = colormap_diverging(COLORMAP_VIRIDIS, 1.0);
    CHECK(d0.r > 240 && d0.g > 240 && d0.b > 240, "diverging 0 is near white");
    CHECK(dn.b > dn.r && dp.r > dp.b, "diverging: blue below, orange above");
    CHECK(strcmp(colormap_name(COLORMAP_CIVIDIS), "cividis") == 0, "names");
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

    // Softmax stage, head 0: the heatmap (and the board's A_0) colour The->The with viridis(0.6111).
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
            CHECK(same(got, want), "A_0[The, The] #%d is viridis(0.6111) = (%d,%d,%d), got (%d,%d,%d)", nth, want.r,
                  want.g, want.b, got.r, got.g, got.b);
        }
    }
    CHECK(n_weight_cells == 2, "The->The appears in the board and in the heatmap");
    CHECK(has_text(&s, "0.6111"), "the value 0.6111 is written");
    CHECK(has_text(&s, "The cat sat"), "the title is shown");
    CHECK(has_text(&s, "stage 5 / 8"), "stage k / N");
    CHECK(has_text(&s, "Softmax"), "the stage's name");
    CHECK(has_text(&s, "softmax(Q\xe2\x82\x80 K\xe2\x82\x80\xe1\xb5\x80 / \xe2\x88\x9a" "d_k)"), "the formula");
    CHECK(has_text(&s, "head 0"), "which head");
    CHECK(has_text(&s, "cat") && has_text(&s, "sat"), "token labels");
    CHECK(has_text(&s, "A\xe2\x82\x80 (3\xc3\x97" "3)"), "A_0 (3x3) titled with its shape");
    CHECK(has_text(&s, "1.0000") && has_text(&s, "0.0000"), "colour bar range 0..1");
    check_bounds(&s, 1280, 720, 12, "softmax 1280x720");

    // Head 1 via Tab: sat -> cat = 0.5844.
    ViewEvent tab = key(VIEW_KEY_TAB);
    view_handle(&st, &tab);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(cell_fill(&s, (CellRef){MAT_WEIGHTS, 1, 2, 1}, 0, &got) &&
              same(got, colormap_rgb(COLORMAP_VIRIDIS, scene_cell_value(&L, &T, (CellRef){MAT_WEIGHTS, 1, 2, 1}))),
          "head 1's sat->cat cell coloured by its weight");
    CHECK(has_text(&s, "0.5844"), "head 1 shows 0.5844");
    CHECK(count_hits(&s, MAT_WEIGHTS) == 18, "9 weight cells on the board + 9 in the heatmap, got %d",
          count_hits(&s, MAT_WEIGHTS));

    // Every stage, both views, at 1280x720, 1920x1080 and 3840x2160: nothing outside, numbers legible.
    int sizes[3][2] = {{1280, 720}, {1920, 1080}, {3840, 2160}};
    for (int z = 0; z < 3; z++) {
        for (int v = 0; v < 2; v++) {
            ViewEvent home = key(VIEW_KEY_HOME), next = key(VIEW_KEY_RIGHT);
            view_handle(&st, &home);
            st.view = v ? VIEW_ALL_HEADS : VIEW_ONE_HEAD;
            for (int k = 0; k < st.stage_count; k++) {
                char what[96];
                snprintf(what, sizeof what, "%s %s %dx%d", stage_key(view_stage(&st)), v ? "all" : "one", sizes[z][0],
                         sizes[z][1]);
                CHECK(scene_build(&s, &st, &L, &T, sizes[z][0], sizes[z][1], &TM, NULL), "%s builds", what);
                int min = sizes[z][1] >= 2160 ? 24 : 12;
                check_bounds(&s, sizes[z][0], sizes[z][1], min, what);
                CHECK(has_text(&s, stage_name(view_stage(&st))), "%s: the stage's name is shown", what);
                view_handle(&st, &next);
            }
        }
    }
    st.view = VIEW_ONE_HEAD;

    // Hover on a score: the explanation shows the dot product and its sum; inputs light up.
    go(&st, STAGE_SCORES);
    st.head = 0;
    ViewEvent hover = {.kind = VIEW_EV_HOVER, .cell = {MAT_SCORES, 0, 0, 1}, .head = -1};
    view_handle(&st, &hover);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    char lines[4][256];
    int n = scene_explain(&L, &T, (CellRef){MAT_SCORES, 0, 0, 1}, lines, 4);
    CHECK(n == 3, "a score is explained in 3 lines, got %d", n);
    CHECK(n > 0 && strstr(lines[0], "Q\xe2\x82\x80[The]") && strstr(lines[0], "K\xe2\x82\x80[cat]"), "names Q_0[The] and K_0[cat]: %s",
          lines[0]);
    char sval[32];
    scene_format_value(scene_cell_value(&L, &T, (CellRef){MAT_SCORES, 0, 0, 1}), sval, sizeof sval);
    CHECK(n == 3 && strstr(lines[2], sval), "the sum %s ends the products line: %s", sval, lines[2]);
    CHECK(has_text(&s, lines[0]), "the explanation is on screen");
    int lit = 0;
    for (size_t i = 0; i < s.count; i++)
        if (s.cmds[i].kind == CMD_FRAME && s.cmds[i].color.r == 213 && s.cmds[i].color.g == 94) lit++;
    CHECK(lit >= 4, "the score, Q's row, K^T's column and the heatmap cell light up (%d frames)", lit);
    CellRef under;
    int head;
    const HitRegion *r0 = NULL;
    for (size_t i = 0; i < s.hit_count; i++)
        if (s.hits[i].cell.mat == MAT_SCORES && s.hits[i].cell.row == 1 && s.hits[i].cell.col == 2) r0 = &s.hits[i];
    CHECK(r0 && scene_hit(&s, r0->x + 1, r0->y + 1, &under, &head) && under.mat == MAT_SCORES && under.row == 1 &&
              under.col == 2,
          "scene_hit finds the cell under the pointer");

    // Each kind of cell has an explanation.
    MatId kinds[] = {MAT_X, MAT_WQ, MAT_Q, MAT_KT, MAT_SCALED, MAT_WEIGHTS, MAT_Z, MAT_CONCAT, MAT_OUTPUT};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        CHECK(scene_explain(&L, &T, (CellRef){kinds[i], 1, 1, 1}, lines, 4) >= 2, "matrix %d is explained", kinds[i]);
    n = scene_explain(&L, &T, (CellRef){MAT_WEIGHTS, 0, 0, 0}, lines, 4);
    CHECK(n == 3 && strstr(lines[0], "exp") && strstr(lines[2], "0.6111"), "softmax cell: exp over the row's sum");
    n = scene_explain(&L, &T, (CellRef){MAT_SCALED, 0, 0, 0}, lines, 4);
    CHECK(n == 3 && strstr(lines[1], "\xe2\x88\x9a" "2"), "scaled: divided by sqrt 2");

    // Reveal: '.' fills S_0 one cell at a time; unrevealed cells have no hit and no number.
    go(&st, STAGE_SCORES);
    ViewEvent dot = key(VIEW_KEY_PERIOD);
    memset(&st.hover, 0, sizeof st.hover);
    view_handle(&st, &dot);
    view_handle(&st, &dot);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    int shown = 0;
    for (size_t i = 0; i < s.hit_count; i++)
        if (s.hits[i].cell.mat == MAT_SCORES && s.hits[i].cell.head == 0) shown++;
    CHECK(shown == 2 + 2, "two board cells + two heatmap cells answer hover while revealing, got %d", shown);
    n = scene_explain(&L, &T, view_focus_cell(&st), lines, 4);
    CHECK(n == 3 && has_text(&s, lines[0]), "the newest cell's arithmetic is shown");

    // The error banner.
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, "broken.json:3:7: error: heads: expected a number");
    CHECK(has_text(&s, "broken.json:3:7"), "the banner shows file:line:col");
    check_bounds(&s, 1280, 720, 12, "banner");

    // The help overlay lists the keys.
    ViewEvent help = key(VIEW_KEY_H);
    view_handle(&st, &help);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(has_text(&s, "PageDown") && has_text(&s, "Tab") && has_text(&s, "fullscreen"), "help lists the keys");
    check_bounds(&s, 1280, 720, 12, "help");

    // Export parts.
    for (int part = SCENE_PART_BOARD; part <= SCENE_PART_ALL_HEADS; part++) {
        CHECK(scene_build_part(&s, (ScenePart)part, &st, &L, &T, 800, 600, 1.0, &TM), "part %d builds", part);
        check_bounds(&s, 800, 600, 12, "part");
        CHECK(s.count > 10, "part %d draws something", part);
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

static void test_lesson_file(const char *name, int heads, bool causal)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MHA_SOURCE_DIR, name);
    Lesson L;
    LessonError err;
    if (!lesson_load(&L, path, &err)) {
        CHECK(false, "%s loads: %s", path, err.message);
        return;
    }
    Trace T;
    TraceError terr;
    CHECK(trace_run(&T, &L.params, &terr), "%s runs", name);
    CHECK(L.params.heads == heads, "%s has %d heads", name, heads);
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    CHECK((st.stage_count == 9) == causal, "%s: mask stage only when causal", name);
    Scene s;
    scene_init(&s);
    int sizes[2][2] = {{1280, 720}, {3840, 2160}};
    for (int z = 0; z < 2; z++)
        for (int v = 0; v < 2; v++) {
            st.view = v ? VIEW_ALL_HEADS : VIEW_ONE_HEAD;
            go(&st, STAGE_INPUT);
            for (int k = 0; k < st.stage_count; k++) {
                char what[160];
                snprintf(what, sizeof what, "%s %s %s %dx%d", name, stage_key(view_stage(&st)), v ? "all" : "one",
                         sizes[z][0], sizes[z][1]);
                scene_build(&s, &st, &L, &T, sizes[z][0], sizes[z][1], &TM, NULL);
                check_bounds(&s, sizes[z][0], sizes[z][1], sizes[z][1] >= 2160 ? 24 : 12, what);
                ViewEvent next = key(VIEW_KEY_RIGHT);
                view_handle(&st, &next);
            }
        }
    if (heads == 12) {
        // All twelve heads fit the grid at 1280x720, each with its label.
        st.view = VIEW_ALL_HEADS;
        go(&st, STAGE_SOFTMAX);
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        int panels = 0;
        for (size_t i = 0; i < s.hit_count; i++) panels += s.hits[i].cell.mat == MAT_NONE && s.hits[i].head >= 0;
        CHECK(panels == 12, "12 head panels in the grid, got %d", panels);
        CHECK(has_text(&s, "head 11"), "the last head is labelled");
    }
    if (causal) {
        // Masked cells are hatched and read "−∞" before softmax.
        st.view = VIEW_ONE_HEAD;
        go(&st, STAGE_MASK);
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        int hatches = 0;
        for (size_t i = 0; i < s.count; i++) hatches += s.cmds[i].kind == CMD_HATCH;
        int n = L.params.n;
        CHECK(hatches >= n * (n - 1) / 2 * 2, "masked cells hatched on the board and heatmap (%d)", hatches);
        CHECK(has_text(&s, "\xe2\x88\x92\xe2\x88\x9e"), "masked cells read -inf");
        CHECK(isinf(scene_cell_value(&L, &T, (CellRef){MAT_MASKED, 0, 0, 1})), "S'+M above the diagonal is -inf");
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

static int count_text(const Scene *s, const char *needle)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strstr(scene_text(s, &s->cmds[i]), needle)) n++;
    return n;
}

static bool load(const char *rel, Lesson *L, Trace *T)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MHA_SOURCE_DIR, rel);
    LessonError err;
    TraceError terr;
    if (!lesson_load(L, path, &err)) {
        CHECK(false, "%s loads: %s", rel, err.message);
        return false;
    }
    if (!trace_run(T, &L->params, &terr)) {
        CHECK(false, "%s traces", rel);
        lesson_free(L);
        return false;
    }
    return true;
}

// Key K: the document's figures for d_model 512, n 10 with h = 1 and h = 8.
static void test_cost_panel(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/paper-base.json", &L, &T)) return;
    CHECK(L.params.d_model == 512 && L.params.n == 10 && L.params.heads == 8, "paper-base is (512, 10, 8)");
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    st.stage_index = 1; // past the first stage, whose notes quote the same figures
    ViewEvent k = key(VIEW_KEY_K);
    view_handle(&st, &k);
    Scene s;
    scene_init(&s);
    CHECK(scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL), "cost panel builds");
    CHECK(count_text(&s, "1,048,576") == 2, "1,048,576 weights for h = 1 and h = 8 (%d)", count_text(&s, "1,048,576"));
    CHECK(count_text(&s, "51,200") == 2, "51,200 multiplications for h = 1 and h = 8 (%d)", count_text(&s, "51,200"));
    CHECK(has_text(&s, "h = 1") && has_text(&s, "h = 8") && has_text(&s, "512") && has_text(&s, "64"), "both rows, d_k 512 and 64");
    CHECK(has_text(&s, "8 \xc3\x97 (10\xc3\x97" "10)") && has_text(&s, "1 \xc3\x97 (10\xc3\x97" "10)"), "8 and 1 attention matrices of 10x10");
    check_bounds(&s, 1280, 720, 12, "cost panel 1280x720");
    scene_build(&s, &st, &L, &T, 3840, 2160, &TM, NULL);
    check_bounds(&s, 3840, 2160, 24, "cost panel 3840x2160");
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
    // Another lesson: its own rows, then the paper's for reference.
    if (!load("lessons/the-cat-sat-on-the-mat.json", &L, &T)) return;
    dims = view_dims_from_params(&L.params);
    view_init(&st, &dims);
    view_handle(&st, &k);
    scene_init(&s);
    scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
    CHECK(count_text(&s, "1,048,576") == 2 && count_text(&s, "64") >= 2, "the lesson's 64 weights and the paper's rows");
    CHECK(has_text(&s, "h = 2"), "the lesson's h");
    check_bounds(&s, 1280, 720, 12, "cost panel, mat lesson");
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Key M: one head's pattern beside the h patterns and both outputs; the cost line says they are the same.
static void test_compare_view(void)
{
    const char *files[] = {"lessons/the-cat-sat-on-the-mat.json", "lessons/causal-decoder.json", "lessons/cross-attention.json",
                           "lessons/bert-base-shape.json"};
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
        ViewEvent m = key(VIEW_KEY_M);
        view_handle(&st, &m);
        SceneExtras ex = {&L.params, &cmp, NULL, false, NULL};
        Scene s;
        scene_init(&s);
        int sizes[2][2] = {{1280, 720}, {3840, 2160}};
        for (int z = 0; z < 2; z++) {
            char what[200];
            snprintf(what, sizeof what, "%s compare %dx%d", files[f], sizes[z][0], sizes[z][1]);
            CHECK(scene_build_ex(&s, &st, &L, &T, &ex, sizes[z][0], sizes[z][1], &TM, NULL), "%s builds", what);
            check_bounds(&s, sizes[z][0], sizes[z][1], sizes[z][1] >= 2160 ? 24 : 12, what);
            CHECK(has_text(&s, "One head") && has_text(&s, "Output, one head") && has_text(&s, "Same cost"), "%s: titles", what);
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

// An edited weight is outlined in its own colour, and the status line says how many values are edited.
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
    SceneExtras ex = {&L.params, NULL, NULL, false, NULL};
    Scene s;
    scene_init(&s);
    scene_build_ex(&s, &st, &shown, &t2, &ex, 1280, 720, &TM, NULL);
    int marks = 0;
    for (size_t i = 0; i < s.count; i++)
        marks += s.cmds[i].kind == CMD_FRAME && s.cmds[i].color.r == 204 && s.cmds[i].color.g == 121;
    CHECK(marks == 1, "one edited cell outlined, got %d", marks);
    CHECK(has_text(&s, "1 value edited"), "the status line counts the edit");
    check_bounds(&s, 1280, 720, 12, "edit marks");
    st.head = 0;
    scene_build_ex(&s, &st, &shown, &t2, &ex, 1280, 720, &TM, NULL);
    marks = 0;
    for (size_t i = 0; i < s.count; i++)
        marks += s.cmds[i].kind == CMD_FRAME && s.cmds[i].color.r == 204 && s.cmds[i].color.g == 121;
    CHECK(marks == 0, "head 0 has no edited cell");
    SceneExtras saved = {&L.params, NULL, "Saved 1 edit as x-edited.json in /tmp", false, NULL};
    scene_build_ex(&s, &st, &shown, &t2, &saved, 1280, 720, &TM, NULL);
    CHECK(has_text(&s, "x-edited.json in /tmp"), "the status line says where the lesson was saved");
    // A slide: the edit count stays, the keys and mouse hints go (also with a weight pinned or nothing focused).
    CHECK(has_text(&s, "Ctrl+S") || has_text(&s, "x-edited"), "window status");
    SceneExtras slide = {&L.params, NULL, NULL, true, NULL};
    st.pinned = (CellRef){MAT_WK, 0, 1, 0};
    scene_build_ex(&s, &st, &shown, &t2, &slide, 1280, 720, &TM, NULL);
    CHECK(has_text(&s, "1 value edited") && !has_text(&s, "Ctrl+S") && !has_text(&s, "R reverts"),
          "a slide counts the edit without the keys");
    CHECK(has_text(&s, "a learned weight") && !has_text(&s, "click it"), "a slide explains a weight without the mouse");
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
    CHECK(has_text(&s, "Shift+E"), "the help lists E and Shift+E");
    check_bounds(&s, 1280, 720, 12, "help");
    scene_free(&s);
    params_free(&e);
    trace_free(&t2);
    trace_free(&T);
    lesson_free(&L);
}

// The 5-token causal lesson at 1280x720: the mask stage shows numbers on the board and in the heatmap, and
// heatmap titles are never cut.
static void test_causal_numbers(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/causal-decoder.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    Scene s;
    scene_init(&s);
    for (Stage stage = STAGE_SCORES; stage <= STAGE_WEIGHTED_SUM; stage++) {
        go(&st, stage);
        scene_build(&s, &st, &L, &T, 1280, 720, &TM, NULL);
        int board = 0, heat = 0;
        for (size_t i = 0; i < s.count; i++) {
            if (s.cmds[i].kind != CMD_TEXT) continue;
            const char *t = scene_text(&s, &s.cmds[i]);
            if (strlen(t) == 6 && t[1] == '.') board++;          // 0.0000, 2.8284
            if (strlen(t) == 4 && t[1] == '.') heat++;           // 0.00, 2.83
        }
        CHECK(board >= 25, "%s: board numbers shown (%d)", stage_key(stage), board);
        CHECK(heat >= 10 || stage == STAGE_WEIGHTED_SUM, "%s: heatmap numbers shown (%d)", stage_key(stage), heat);
        CHECK(!has_text(&s, "\xe2\x80\xa6"), "%s: no text cut", stage_key(stage));
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Any window size a window manager may give (the event storm's sizes): every stage, view, panel and overlay
// lays out without failing, and inside the window once there is room for it.
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
    SceneExtras ex = {&L.params, NULL, "Exported x.png and .svg to /tmp", false, NULL};
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
                built += scene_build_ex(&s, &st, &L, &T, &ex, w, h, &TM, v == 4 ? "a banner" : NULL);
                if (w >= 1000) check_bounds(&s, w, h, 12, "8000x5000");
            }
    CHECK(built == (int)(sizeof SIZES / sizeof SIZES[0]) * st.stage_count * 5, "every size laid out (%d)", built);
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

static int count_exact(const Scene *s, const char *exact)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++) n += s->cmds[i].kind == CMD_TEXT && !strcmp(scene_text(s, &s->cmds[i]), exact);
    return n;
}

// At 1280x720, the 6-token lesson's projections show X once, every row labelled, numbers of at least 16 px;
// the first stage shows the lesson's notes whole (no "…").
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
    CHECK(count_exact(&s, "X (6\xc3\x97" "4)") == 1, "X shown once, got %d", count_exact(&s, "X (6\xc3\x97" "4)"));
    // 6 tokens as row labels of X, Q, K and V ("the" twice in each).
    int labels = count_exact(&s, "the") + count_exact(&s, "cat") + count_exact(&s, "sat") + count_exact(&s, "on") +
                 count_exact(&s, "mat");
    CHECK(labels == 24, "every row of X, Q, K, V labelled: %d labels", labels);
    int small = 0, numbers = 0;
    for (size_t i = 0; i < s.count; i++) {
        const DrawCmd *c = &s.cmds[i];
        if (c->kind != CMD_TEXT || !strstr(scene_text(&s, c), ".0000")) continue;
        numbers++;
        small += c->size < 16;
    }
    CHECK(numbers >= 24 + 24 + 36 && small == 0, "%d numbers, %d below 16 px", numbers, small);
    check_bounds(&s, 1280, 720, 12, "projections");
    Lesson *ls[2] = {&L, NULL};
    Lesson C;
    Trace CT;
    if (load("lessons/causal-decoder.json", &C, &CT)) ls[1] = &C;
    for (int k = 0; k < 2 && ls[k]; k++) {
        ViewDims d = view_dims_from_params(&ls[k]->params);
        view_init(&st, &d);
        scene_build(&s, &st, ls[k], k ? &CT : &T, 1280, 720, &TM, NULL);
        CHECK(!has_text(&s, "\xe2\x80\xa6"), "%s: the notes are not cut", ls[k]->title);
        check_bounds(&s, 1280, 720, 12, "notes");
    }
    if (ls[1]) {
        trace_free(&CT);
        lesson_free(&C);
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

int main(void)
{
    test_projector();
    test_extreme_sizes();
    test_cost_panel();
    test_compare_view();
    test_edit_marks();
    test_causal_numbers();
    test_colormaps();
    test_cat();
    test_lesson_file("tests/good/twelve-heads.json", 12, false);
    test_lesson_file("lessons/causal-decoder.json", 2, true);
    test_lesson_file("lessons/cross-attention.json", 2, false);
    test_lesson_file("lessons/bert-base-shape.json", 12, false);
    return check_report("test_scene");
}
