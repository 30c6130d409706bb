// Tests the heatmaps' labels headless with the fake font: every token labelled on every view (the
// slide, beside the board, the all-heads grid), cut labels keeping their letters and subscripts,
// Arabic.
#include "scene_checks.h"

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
        scene_build_ex(&s, &(SceneRequest){.st = &st,
                                           .lesson = L,
                                           .trace = T,
                                           .w = w,
                                           .h = h,
                                           .tm = &TM,
                                           .part = SCENE_PART_HEATMAP,
                                           .scale = h / 720.0});
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
        scene_build_ex(&s, &(SceneRequest){.st = &st,
                                           .lesson = &L,
                                           .trace = &T,
                                           .w = 1280,
                                           .h = 720,
                                           .tm = &TM,
                                           .part = SCENE_PART_HEATMAP,
                                           .scale = 1.0});
        check_numbers(&s, 720, s.num_font, "40 tokens heatmap part");
        scene_free(&s);
        trace_free(&T);
        lesson_free(&L);
    }
    free(json);
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

int main(void)
{
    test_heat_labels();
    test_arabic_heat_labels();
    return check_report("test_scene_heat");
}
