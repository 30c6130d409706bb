// Tests the board headless with a fixed-width fake font: the viridis colour of head 0's The->The
// weight (0.6111), the header (stage name in the board's notation, formula, progress strip, head),
// nothing drawn outside the window, every number on the board at the one legible size (3.75 % of
// the height times the zoom) on every stage and sub-step, windows and sub-steps instead of smaller
// numbers, hover and edit marks, the stable softmax explanation, zoom, colormaps. The panels, the
// heatmaps' labels and the teaching screens are test_scene_panels.c, _heat.c and _teach.c.
#include "scene_checks.h"

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
        CHECK(scene_build_ex(&s, &(SceneRequest){.st = &st,
                                                 .lesson = &L,
                                                 .trace = &T,
                                                 .w = 800,
                                                 .h = 600,
                                                 .tm = &TM,
                                                 .part = (ScenePart)part,
                                                 .scale = 1.0}),
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
        scene_build_ex(&s, &(SceneRequest){.st = &st,
                                           .lesson = &L,
                                           .trace = &T,
                                           .w = 1280,
                                           .h = 720,
                                           .tm = &TM,
                                           .part = SCENE_PART_HEATMAP,
                                           .scale = 1.0});
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
        scene_build_ex(s,
                       &(SceneRequest){
                           .st = st, .lesson = L, .trace = T, .ex = ex, .w = w, .h = h, .tm = &TM});
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
    SceneExtras ex = {&L.params, NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
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
                         NULL,      NULL, NULL,
                         NULL,      NULL};
    scene_build_ex(&s, &(SceneRequest){.st = &st,
                                       .lesson = &shown,
                                       .trace = &t2,
                                       .ex = &saved,
                                       .w = 1280,
                                       .h = 720,
                                       .tm = &TM});
    CHECK(has_text(&s, "x-edited.json in /tmp"), "the status line says where the lesson was saved");
    // A slide: the edit count stays, the keys and mouse hints go (also with a weight pinned or
    // nothing focused).
    CHECK(has_text(&s, "Ctrl+S") || has_text(&s, "x-edited"), "window status");
    SceneExtras slide = {&L.params, NULL, NULL, true, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    st.pinned = (CellRef){MAT_WK, 0, 1, 0};
    scene_build_ex(&s, &(SceneRequest){.st = &st,
                                       .lesson = &shown,
                                       .trace = &t2,
                                       .ex = &slide,
                                       .w = 1280,
                                       .h = 720,
                                       .tm = &TM});
    CHECK(has_text(&s, "1 value edited") && !has_text(&s, "Ctrl+S") && !has_text(&s, "R reverts"),
          "a slide counts the edit without the keys");
    CHECK(has_text(&s, "a learned weight") && !has_text(&s, "click it"),
          "a slide explains a weight without the mouse");
    ex.slide = false;
    scene_build_ex(
        &s,
        &(SceneRequest){
            .st = &st, .lesson = &shown, .trace = &t2, .ex = &ex, .w = 1280, .h = 720, .tm = &TM});
    CHECK(has_text(&s, "click it") && has_text(&s, "Ctrl+S"), "the window keeps its hints");
    st.pinned.mat = MAT_NONE;
    scene_build_ex(&s, &(SceneRequest){.st = &st,
                                       .lesson = &shown,
                                       .trace = &t2,
                                       .ex = &slide,
                                       .w = 1280,
                                       .h = 720,
                                       .tm = &TM});
    CHECK(!has_text(&s, "Point at"), "no pointer hint on a slide");
    scene_build_ex(
        &s,
        &(SceneRequest){
            .st = &st, .lesson = &shown, .trace = &t2, .ex = &ex, .w = 1280, .h = 720, .tm = &TM});
    CHECK(has_text(&s, "Point at"), "the window invites the pointer");
    st.help = true;
    scene_build_ex(
        &s,
        &(SceneRequest){
            .st = &st, .lesson = &shown, .trace = &t2, .ex = &ex, .w = 1280, .h = 720, .tm = &TM});
    CHECK(help_lists(&s, &st, &shown, &t2, &ex, "Shift+E"), "the help lists E and Shift+E");
    check_bounds(&s, 1280, 720, "help");
    scene_free(&s);
    params_free(&e);
    trace_free(&t2);
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
            scene_build_ex(&s, &(SceneRequest){.st = &st,
                                               .lesson = &L,
                                               .trace = &T,
                                               .w = w,
                                               .h = h * 3 / 4,
                                               .tm = &TM,
                                               .part = SCENE_PART_BOARD,
                                               .scale = h / 720.0});
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

// The board's numbers (ROLE_NUMBER inside a matrix's box: the heatmap beside it repeats the
// result's) drawn whole inside (x, y, w, h).
static int numbers_inside(const Scene *s, int x, int y, int w, int h)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        bool in_box = false;
        for (size_t k = 0; k < s->box_count && !in_box; k++) {
            const SceneBox *b = &s->boxes[k];
            in_box = c->x >= b->x && c->y >= b->y && c->x + c->w <= b->x + b->w
                     && c->y + c->h <= b->y + b->h;
        }
        n += c->kind == CMD_TEXT && c->role == ROLE_NUMBER && in_box && c->x >= x && c->y >= y
             && c->x + c->w <= x + w && c->y + c->h <= y + h;
    }
    return n;
}

// Zoom keeps what the class looks at: two presses of + on the softmax of a 3-token lesson magnify
// around the framed result A, which stays whole, its digits at least 1.3 times larger and at least
// half of the board's numbers still on the screen; a pan then moves from there.
static void test_zoom_follows(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    go(&st, STAGE_SOFTMAX);
    Scene s;
    scene_init(&s);
    static const int SIZES[][2] = {{1280, 720}, {1920, 1080}};
    for (int z = 0; z < 2; z++) {
        int W = SIZES[z][0], H = SIZES[z][1];
        press(&st, VIEW_KEY_0); // zoom 1
        scene_build(&s, &st, &L, &T, W, H, &TM, NULL);
        int base = s.num_font, before = numbers_inside(&s, 0, 0, W, H);
        press(&st, VIEW_KEY_PLUS);
        press(&st, VIEW_KEY_PLUS);
        scene_build(&s, &st, &L, &T, W, H, &TM, NULL);
        const DrawCmd *clip = NULL;
        for (size_t i = 0; i < s.count && !clip; i++)
            if (s.cmds[i].kind == CMD_CLIP && s.cmds[i].w > 0) clip = &s.cmds[i];
        CHECK(clip != NULL, "%dx%d zoomed: the board is clipped to its window", W, H);
        if (!clip) continue;
        int after = numbers_inside(&s, clip->x, clip->y, clip->w, clip->h);
        CHECK(s.num_font * 10 >= base * 13, "%dx%d: two + make the digits %d/%d, not 1.3 times", W,
              H, s.num_font, base);
        CHECK(2 * after >= before, "%dx%d: %d of the %d numbers left on screen at two +", W, H,
              after, before);
        const SceneBox *r = NULL;
        for (size_t i = 0; i < s.box_count && !r; i++)
            if (s.boxes[i].result) r = &s.boxes[i];
        CHECK(r != NULL, "%dx%d: the softmax's result drawn", W, H);
        if (r)
            CHECK(r->nr == r->rows && r->nc == r->cols && r->x >= clip->x && r->y >= clip->y
                      && r->x + r->w <= clip->x + clip->w && r->y + r->h <= clip->y + clip->h,
                  "%dx%d: the result %s whole in the window (box %d,%d %dx%d, window %d,%d %dx%d)",
                  W, H, r->title, r->x, r->y, r->w, r->h, clip->x, clip->y, clip->w, clip->h);
        view_set_pan_used(&st, s.pan_x, s.pan_y);
        double px = st.pan_x;
        press(&st, VIEW_KEY_RIGHT);
        CHECK(!st.pan_follow && st.pan_x > px - 1e-9,
              "%dx%d: a pan moves on from the followed place (%g -> %g)", W, H, px, st.pan_x);
    }
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
    SceneExtras ex = {
        &L.params, NULL, "Exported x.png and .svg to /tmp", false, NULL, NULL, NULL, NULL, NULL,
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
                built += scene_build_ex(&s, &(SceneRequest){.st = &st,
                                                            .lesson = &L,
                                                            .trace = &T,
                                                            .ex = &ex,
                                                            .w = w,
                                                            .h = h,
                                                            .tm = &TM,
                                                            .banner = v == 4 ? "a banner" : NULL});
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
        CHECK(scene_build_ex(&s, &(SceneRequest){.st = &st,
                                                 .lesson = &L,
                                                 .trace = &T,
                                                 .ex = &ex,
                                                 .w = 1280,
                                                 .h = 720,
                                                 .tm = &TM}),
              "cross board builds");
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
        CHECK(scene_build_ex(&s, &(SceneRequest){.st = &st,
                                                 .lesson = &L,
                                                 .trace = &T,
                                                 .ex = &ex,
                                                 .w = 1280,
                                                 .h = 720,
                                                 .tm = &TM}),
              "cat board builds");
        CHECK(has_text(&s, "\xe2\x86\x93 queries    \xe2\x86\x92 keys"),
              "self-attention axes: queries down, keys across");
        CHECK(!has_text(&s, "target"), "no target/source in self-attention");
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
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
    test_zoom_follows();
    test_header_title();
    test_windows("lessons/paper-base.json"); // (3)
    test_windows("lessons/bert-base-shape.json"); // (3)
    test_huge_embeddings(); // (5)
    test_one_head();
    test_projector();
    test_extreme_sizes();
    test_edit_marks();
    test_board_labels("lessons/causal-decoder.json");
    test_board_labels("lessons/the-cat-sat.json");
    test_board_labels("tests/good/three-tokens.json");
    test_cat();
    test_lesson_file("tests/good/twelve-heads.json", 12, false);
    test_lesson_file("lessons/causal-decoder.json", 2, true);
    test_lesson_file("lessons/cross-attention.json", 2, false);
    test_lesson_file("lessons/bert-base-shape.json", 12, false);
    return check_report("test_scene");
}
