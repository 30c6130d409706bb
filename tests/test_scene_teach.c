// Tests the teaching screens headless with the fake font: the notes, the questions (asked, judged,
// revealed) and the training's slider and strip.
#include "scene_checks.h"

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
        CHECK(scene_build_ex(
                  &s,
                  &(SceneRequest){
                      .st = &st, .lesson = &L, .trace = &T, .ex = &ex, .w = w, .h = h, .tm = &TM}),
              "%s builds", what);
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
        scene_build_ex(
            &s, &(SceneRequest){
                    .st = &st, .lesson = &L, .trace = &T, .ex = &ex, .w = w, .h = h, .tm = &TM});
        check_bounds(&s, w, h, what);
        CHECK(has_text(&s, "Your number: 0.6"), "%s: the typed number shows", what);
        question_texts(&s, w, h, what);
        // Judged: the verdict, what was given, the answer; the result filled to the answer cell.
        d.key = VIEW_KEY_ENTER;
        view_handle(&st, &d);
        view_quiz_judged(&st, true, (CellRef){MAT_WEIGHTS, 0, 0, 0},
                         (CellRef){MAT_WEIGHTS, 0, 0, 0});
        snprintf(what, sizeof what, "question revealed %dx%d", w, h);
        scene_build_ex(
            &s, &(SceneRequest){
                    .st = &st, .lesson = &L, .trace = &T, .ex = &ex, .w = w, .h = h, .tm = &TM});
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
        scene_build_ex(
            &s, &(SceneRequest){
                    .st = &st, .lesson = &L, .trace = &T, .ex = &ex, .w = w, .h = h, .tm = &TM});
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
    scene_build_ex(
        &s, &(SceneRequest){
                .st = &st, .lesson = &L, .trace = &T, .ex = &ex, .w = 1280, .h = 720, .tm = &TM});
    check_bounds(&s, 1280, 720, "a long question");
    scene_build_ex(
        &s, &(SceneRequest){
                .st = &st, .lesson = &L, .trace = &T, .ex = &ex, .w = 800, .h = 600, .tm = &TM});
    check_layout(&s, 800, 600, "a long question 800x600", false);
    // No question on screen: no box, even with one given.
    press(&st, VIEW_KEY_ESCAPE);
    scene_build_ex(
        &s, &(SceneRequest){
                .st = &st, .lesson = &L, .trace = &T, .ex = &ex, .w = 1280, .h = 720, .tm = &TM});
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
        SceneExtras ex = {&doc.lesson.params,
                          NULL,
                          NULL,
                          false,
                          NULL,
                          session_shuffled(&doc),
                          NULL,
                          NULL,
                          NULL,
                          NULL,
                          NULL};
        Scene s;
        scene_init(&s);
        for (int z = 0; z < 2; z++) {
            CHECK(scene_build_ex(&s, &(SceneRequest){.st = &st,
                                                     .lesson = &shown,
                                                     .trace = &doc.trace,
                                                     .ex = &ex,
                                                     .w = PROJECTOR[z][0],
                                                     .h = PROJECTOR[z][1],
                                                     .tm = &TM}),
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

int main(void)
{
    test_notes();
    test_question_panel();
    test_teaching();
    return check_report("test_scene_teach");
}
