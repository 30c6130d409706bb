// Tests the scene's panels headless with the fake font: the cost (K), the single-head comparison
// (M), grouped K/V heads in the header and the all-heads grid, RoPE as a picture (W) and the KV
// cache's size (Shift+K): the core's numbers as the panels format them, at the floor, inside the
// window.
#include "scene_checks.h"

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
        SceneExtras ex = {&L.params, &cmp, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
        Scene s;
        scene_init(&s);
        int sizes[2][2] = {{1280, 720}, {3840, 2160}};
        for (int z = 0; z < 2; z++) {
            char what[200];
            snprintf(what, sizeof what, "%s compare %dx%d", files[f], sizes[z][0], sizes[z][1]);
            CHECK(scene_build_ex(&s, &(SceneRequest){.st = &st,
                                                     .lesson = &L,
                                                     .trace = &T,
                                                     .ex = &ex,
                                                     .w = sizes[z][0],
                                                     .h = sizes[z][1],
                                                     .tm = &TM}),
                  "%s builds", what);
            check_bounds(&s, sizes[z][0], sizes[z][1], what);
            CHECK(has_text(&s, "One head")
                      && (s.pair_parts >= 2 || has_text(&s, "Output, one head")),
                  "%s: titles (the outputs' on part 2 of %d)", what, s.pair_parts);
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

// The compare panel in two parts where its outputs fit whole at the floor only on a screen of their
// own (mao-zuo-zai-dianzi-shang's 6x8, llama-rope-gqa's 7x8 at 1280x720): the patterns, then (→)
// the two outputs with every cell and the cost line, and ← back; in three where each fits whole
// only alone (mistral-sliding-window's 8x8): the patterns, the one head's output, the heads'; the
// strip's tab says the part; a lesson whose outputs fit beside the patterns keeps one part.
static void test_compare_parts(void)
{
    const struct {
        const char *file;
        int parts;
    } cases[] = {{"lessons/mao-zuo-zai-dianzi-shang.json", 2},
                 {"lessons/llama-rope-gqa.json", 2},
                 {"lessons/mistral-sliding-window.json", 3},
                 {"lessons/the-cat-sat-on-the-mat.json", 1}};
    for (size_t f = 0; f < sizeof cases / sizeof cases[0]; f++) {
        Lesson L;
        Trace T;
        if (!load(cases[f].file, &L, &T)) continue;
        Comparison cmp;
        TraceError terr;
        CHECK(compare_run(&cmp, &L.params, &terr), "%s: comparison runs", cases[f].file);
        ViewDims dims = view_dims_from_params(&L.params);
        ViewState st;
        view_init(&st, &dims);
        press(&st, VIEW_KEY_M);
        SceneExtras ex = {&L.params, &cmp, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
        SceneRequest rq = {
            .st = &st, .lesson = &L, .trace = &T, .ex = &ex, .w = 1280, .h = 720, .tm = &TM};
        Scene s;
        scene_init(&s);
        CHECK(scene_build_ex(&s, &rq), "%s builds", cases[f].file);
        CHECK(s.pair_parts == cases[f].parts, "%s: %d parts, want %d", cases[f].file, s.pair_parts,
              cases[f].parts);
        view_set_pair_parts(&st, s.pair_parts);
        char first[32], last[32]; // the corners of the single head's output and of the heads'
        scene_format_value(mat_get(&cmp.trace.output, 0, 0), first, sizeof first);
        scene_format_value(mat_get(&T.output, L.params.n - 1, L.params.d_model - 1), last,
                           sizeof last);
        char tab[32], heads[32];
        snprintf(tab, sizeof tab, "part 1 of %d", cases[f].parts);
        snprintf(heads, sizeof heads, "Output, %d heads", L.params.heads);
        CHECK(has_text(&s, tab) == (cases[f].parts > 1), "%s: the tab '%s'", cases[f].file, tab);
        if (cases[f].parts > 1) {
            CHECK(!has_text(&s, "Output, one head") && has_text(&s, "One head"),
                  "%s part 1: the patterns without the outputs", cases[f].file);
            press(&st, VIEW_KEY_RIGHT);
            CHECK(st.pair_part == 1 && st.panel == PANEL_COMPARE, "%s: → goes to part 2 (%d)",
                  cases[f].file, st.pair_part);
            CHECK(scene_build_ex(&s, &rq), "%s part 2 builds", cases[f].file);
            check_layout(&s, 1280, 720, cases[f].file, false); // at the floor: not the board's size
            snprintf(tab, sizeof tab, "part 2 of %d", cases[f].parts);
            CHECK(has_text(&s, tab), "%s: the tab '%s'", cases[f].file, tab);
        }
        if (cases[f].parts == 3) { // the one head's output alone, then the heads'
            CHECK(has_text(&s, "Output, one head") && has_text(&s, first) && !has_text(&s, heads),
                  "%s part 2: the one head's output alone (%s)", cases[f].file, first);
            press(&st, VIEW_KEY_RIGHT);
            CHECK(st.pair_part == 2, "%s: → goes to part 3 (%d)", cases[f].file, st.pair_part);
            CHECK(scene_build_ex(&s, &rq), "%s part 3 builds", cases[f].file);
            check_layout(&s, 1280, 720, cases[f].file, false);
            CHECK(has_text(&s, heads) && has_text(&s, last) && !has_text(&s, "Output, one head")
                      && has_text(&s, "part 3 of 3"),
                  "%s part 3: the heads' output alone (%s)", cases[f].file, last);
        } else
            CHECK(has_text(&s, "Output, one head") && has_text(&s, first) && has_text(&s, last)
                      && has_text(&s, " vs "),
                  "%s: the outputs whole (%s, %s) with the cost line", cases[f].file, first, last);
        if (cases[f].parts > 1) {
            for (int k = 1; k < cases[f].parts; k++) press(&st, VIEW_KEY_LEFT);
            CHECK(st.pair_part == 0 && st.panel == PANEL_COMPARE, "%s: ← back to part 1",
                  cases[f].file);
        }
        scene_free(&s);
        compare_free(&cmp);
        trace_free(&T);
        lesson_free(&L);
    }
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

// The shuffle panel (X) where its two outputs fit whole only each alone (llama-rope-gqa's 7x8 at
// 1280x720): part 1 the lesson's output whole, → part 2 the reordered one whole, each with the
// strip's tab; a lesson whose outputs fit side by side (the dog) keeps one part.
static void test_shuffle_parts(void)
{
    const struct {
        const char *file;
        int parts;
    } cases[] = {{MHA_SOURCE_DIR "/lessons/llama-rope-gqa.json", 2},
                 {MHA_SOURCE_DIR "/lessons/the-dog-bit-the-man.json", 1}};
    for (size_t f = 0; f < sizeof cases / sizeof cases[0]; f++) {
        Session doc;
        session_init(&doc);
        SessionError err;
        if (!session_load(&doc, cases[f].file, &err) || !session_shuffle(&doc, 0, &err)) {
            CHECK(false, "%s and its shuffle: %s", cases[f].file, err.message);
            session_free(&doc);
            continue;
        }
        ViewDims dims = view_dims_from_params(&doc.edit);
        ViewState st;
        view_init(&st, &dims);
        press(&st, VIEW_KEY_X);
        Lesson shown = session_shown(&doc);
        SceneExtras ex = {.original = &doc.lesson.params, .shuffle = session_shuffled(&doc)};
        SceneRequest rq = {.st = &st,
                           .lesson = &shown,
                           .trace = &doc.trace,
                           .ex = &ex,
                           .w = 1280,
                           .h = 720,
                           .tm = &TM};
        Scene s;
        scene_init(&s);
        CHECK(scene_build_ex(&s, &rq), "%s builds", cases[f].file);
        CHECK(s.pair_parts == cases[f].parts, "%s: %d parts, want %d", cases[f].file, s.pair_parts,
              cases[f].parts);
        view_set_pair_parts(&st, s.pair_parts);
        int n = doc.edit.n, d = doc.edit.d_model;
        char first[32], last[32]; // the corners of the lesson's output and of the reordered one
        scene_format_value(mat_get(&doc.trace.output, 0, d - 1), first, sizeof first);
        scene_format_value(mat_get(&doc.shuf.trace.output, n - 1, d - 1), last, sizeof last);
        CHECK(has_text(&s, "Output") && has_text(&s, first), "%s: the output whole (%s)",
              cases[f].file, first);
        if (cases[f].parts == 2) {
            CHECK(has_text(&s, "part 1 of 2") && !has_text(&s, "Output, tokens reordered"),
                  "%s part 1: the lesson's output alone, the tab says so", cases[f].file);
            press(&st, VIEW_KEY_RIGHT);
            CHECK(st.pair_part == 1 && st.panel == PANEL_SHUFFLE, "%s: → goes to part 2",
                  cases[f].file);
            CHECK(scene_build_ex(&s, &rq), "%s part 2 builds", cases[f].file);
            CHECK(has_text(&s, "part 2 of 2"), "%s part 2: the tab", cases[f].file);
        }
        check_bounds(&s, 1280, 720, cases[f].file);
        CHECK(has_text(&s, "Output, tokens reordered") && has_text(&s, last),
              "%s: the reordered output whole (%s)", cases[f].file, last);
        scene_free(&s);
        session_free(&doc);
    }
}

int main(void)
{
    test_cost_panel();
    test_compare_view();
    test_compare_parts();
    test_shuffle_parts();
    test_kv_groups();
    test_cache_size();
    test_rotation_panel();
    test_header_groups();
    return check_report("test_scene_panels");
}
