// Tests that every text of every panel reads against what is under it, in every theme (light, dark,
// print): the help (H), the cost panel (K), single head vs multi-head (M), the shuffle test (X),
// the notes, a question asked and answered, the banner, the header with its status line, the
// footer, the scale slider, the training strip, the board and the heatmaps with their labels (each
// colour map), on the window and as slides. The background of a text is read from the draw commands
// before it (the rectangles under its middle, blended by their alpha) and the WCAG contrast ratio
// of the text's colour against it must be at least 4.5:1.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/questions.h"
#include "model/session.h"
#include "model/view.h"
#include "render/scene.h"

#include "fake_font.h"

static const struct {
    const char *name;
    const Theme *theme;
} THEMES[] = {{"light", &THEME_LIGHT}, {"dark", &THEME_DARK}, {"print", &THEME_PRINT}};
#define THEME_N (sizeof THEMES / sizeof THEMES[0])

// WCAG 2 relative luminance of an sRGB colour.
static double luminance(double r, double g, double b)
{
    double v[3] = {r / 255.0, g / 255.0, b / 255.0};
    for (int i = 0; i < 3; i++)
        v[i] = v[i] <= 0.03928 ? v[i] / 12.92 : pow((v[i] + 0.055) / 1.055, 2.4);
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
}

static double contrast(double r1, double g1, double b1, double r2, double g2, double b2)
{
    double a = luminance(r1, g1, b1), b = luminance(r2, g2, b2);
    return a > b ? (a + 0.05) / (b + 0.05) : (b + 0.05) / (a + 0.05);
}

// The colour at (x, y) when command `upto` is drawn: the page, then every rectangle before it that
// covers the point, blended by its alpha.
static void colour_under(const Scene *s, size_t upto, int x, int y, double rgb[3])
{
    rgb[0] = s->background.r;
    rgb[1] = s->background.g;
    rgb[2] = s->background.b;
    for (size_t i = 0; i < upto; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind != CMD_RECT || x < c->x || x >= c->x + c->w || y < c->y || y >= c->y + c->h)
            continue;
        double a = c->color.a / 255.0;
        rgb[0] = a * c->color.r + (1 - a) * rgb[0];
        rgb[1] = a * c->color.g + (1 - a) * rgb[1];
        rgb[2] = a * c->color.b + (1 - a) * rgb[2];
    }
}

// What was measured: how many texts, and each pair of colours (text, background) found below 4.5:1
// once, with the first text seen in it.
typedef struct {
    int texts, bad;
    struct Pair {
        Rgba ink;
        int bg[3];
    } pairs[256];
    int pair_count;
} Tally;

// Every text of s against what is under its middle and its quarters (the worst of the three).
static void check_scene(const Scene *s, const char *what, Tally *t)
{
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind != CMD_TEXT) continue;
        const char *txt = scene_text(s, c);
        if (!txt[0] || !strcmp(txt, " ")) continue;
        double worst = INFINITY, under[3] = {0, 0, 0};
        for (int k = 1; k <= 3; k++) {
            double bg[3];
            colour_under(s, i, c->x + c->w * k / 4, c->y + c->h / 2, bg);
            double r = contrast(c->color.r, c->color.g, c->color.b, bg[0], bg[1], bg[2]);
            if (r < worst) worst = r, memcpy(under, bg, sizeof bg);
        }
        t->texts++;
        if (worst >= 4.5) continue;
        t->bad++;
        struct Pair p = {c->color,
                         {(int)lround(under[0]), (int)lround(under[1]), (int)lround(under[2])}};
        bool seen = false;
        for (int k = 0; k < t->pair_count && !seen; k++)
            seen = !memcmp(&t->pairs[k].ink, &p.ink, sizeof p.ink)
                   && !memcmp(t->pairs[k].bg, p.bg, sizeof p.bg);
        if (seen) continue;
        if (t->pair_count < 256) t->pairs[t->pair_count++] = p;
        CHECK(false, "%s: \"%.50s\" (%d,%d,%d) on (%d,%d,%d) reads %.2f:1 (< 4.5:1)", what, txt,
              c->color.r, c->color.g, c->color.b, p.bg[0], p.bg[1], p.bg[2], worst);
    }
}

// The window at w x h in every theme: each stage, with notes, a banner, an edit count and a status
// line, the help, the cost panel, the comparison and the shuffle test.
static void window_screens(Session *doc, int w, int h, Tally *t)
{
    Lesson L = session_shown(doc);
    ViewDims dims = view_dims_from_params(&doc->edit);
    SessionError err;
    CHECK(session_compare(doc, &err) || session_comparison(doc), "the comparison: %s", err.message);
    CHECK(session_shuffle(doc, 0, &err) || session_shuffled(doc), "the shuffle: %s", err.message);
    Scene s;
    scene_init(&s);
    char what[160];
    for (size_t th = 0; th < THEME_N; th++) {
        ViewState st;
        view_init(&st, &dims);
        SceneExtras ex = {.original = &doc->lesson.params,
                          .compare = session_comparison(doc),
                          .shuffle = session_shuffled(doc),
                          .theme = THEMES[th].theme};
        for (int i = 0; i < st.stage_count; i++) {
            st.stage_index = i;
            st.colormap =
                (ColormapId)((i + (int)th)
                             % COLORMAP_COUNT); // every map in every theme, over the stages
            st.notes = i % 2 == 0;
            st.pinned = view_reveal_total(&st) > 0 ? view_reveal_cell(&st, 0)
                                                   : (CellRef){MAT_NONE, 0, 0, 0};
            snprintf(what, sizeof what, "%s %dx%d %s stage %d", L.title, w, h, THEMES[th].name, i);
            scene_build_ex(
                &s,
                &(SceneRequest){.st = &st,
                                .lesson = &L,
                                .trace = &doc->trace,
                                .ex = &ex,
                                .w = w,
                                .h = h,
                                .tm = &TM,
                                .banner = i == 1 ? "A banner: the lesson did not reload" : NULL});
            check_scene(&s, what, t);
            for (int p = 0; p < 4; p++) {
                ViewState o = st;
                o.help = p == 0;
                o.help_page = i; // the help's pages, over the stages
                o.panel = p == 1   ? PANEL_COST
                          : p == 2 ? PANEL_COMPARE
                          : p == 3 ? PANEL_SHUFFLE
                                   : PANEL_NONE;
                static const char *const NAMES[] = {"help", "cost", "compare", "shuffle"};
                snprintf(what, sizeof what, "%s %dx%d %s stage %d %s", L.title, w, h,
                         THEMES[th].name, i, NAMES[p]);
                SceneExtras e2 = ex;
                e2.status = p == 0 ? "Saved the-cat-sat-edited.json" : NULL;
                scene_build_ex(&s, &(SceneRequest){.st = &o,
                                                   .lesson = &L,
                                                   .trace = &doc->trace,
                                                   .ex = &e2,
                                                   .w = w,
                                                   .h = h,
                                                   .tm = &TM});
                check_scene(&s, what, t);
            }
        }
        // The slide parts: the board, the heatmap, every head's heatmaps.
        for (int i = 0; i < st.stage_count; i++) {
            st.stage_index = i;
            st.colormap = (ColormapId)((i + (int)th + 1) % COLORMAP_COUNT);
            for (ScenePart part = SCENE_PART_BOARD; part <= SCENE_PART_ALL_HEADS; part++) {
                SceneExtras slide = {.slide = true, .theme = THEMES[th].theme};
                snprintf(what, sizeof what, "%s %s slide part %d stage %d", L.title,
                         THEMES[th].name, (int)part, i);
                scene_build_ex(&s, &(SceneRequest){.st = &st,
                                                   .lesson = &L,
                                                   .trace = &doc->trace,
                                                   .ex = &slide,
                                                   .w = w,
                                                   .h = h,
                                                   .tm = &TM,
                                                   .part = part,
                                                   .scale = 1.0});
                check_scene(&s, what, t);
            }
        }
    }
    scene_free(&s);
}

// Each question of the lesson asked and revealed, right and wrong, in every theme.
static void question_screens(const Session *doc, int w, int h, Tally *t)
{
    Lesson L = session_shown(doc);
    ViewDims dims = view_dims_from_params(&doc->edit);
    Scene s;
    scene_init(&s);
    char what[160];
    for (size_t th = 0; th < THEME_N; th++)
        for (int i = 0; i < L.question_count; i++) {
            const LessonQuestion *q = &L.questions[i];
            QuestionAnswer a;
            LessonError err;
            if (!question_answer(&L, &doc->trace, q, i, &a, &err)) continue;
            ViewQuestion vq = question_view(q, &a);
            ViewState st;
            view_init(&st, &dims);
            view_quiz_ask(&st, &vq, i);
            SceneExtras ex = {.question = q, .theme = THEMES[th].theme};
            for (int k = 0; k < 3; k++) {
                if (k > 0) {
                    st.quiz_phase = QUIZ_REVEALED;
                    st.quiz_right = k == 1;
                }
                snprintf(what, sizeof what, "%s %dx%d %s question %d phase %d", L.title, w, h,
                         THEMES[th].name, i, k);
                scene_build_ex(&s, &(SceneRequest){.st = &st,
                                                   .lesson = &L,
                                                   .trace = &doc->trace,
                                                   .ex = &ex,
                                                   .w = w,
                                                   .h = h,
                                                   .tm = &TM});
                check_scene(&s, what, t);
            }
        }
    scene_free(&s);
}

// The scale slider (moved off its default) and the training strip, in every theme.
static void strip_screens(Session *doc, int w, int h, Tally *t)
{
    SessionError err;
    CHECK(session_set_scale(doc, 0.25, &err), "the scale moves: %s", err.message);
    bool trains = session_train_toggle(doc, &err);
    CHECK(trains, "training starts: %s", err.message);
    if (trains) session_train_steps(doc, 20, &err);
    Lesson L = session_shown(doc);
    ViewDims dims = view_dims_from_params(&doc->edit);
    Scene s;
    scene_init(&s);
    char what[160];
    int sliders = 0, strips = 0;
    for (size_t th = 0; th < THEME_N; th++) {
        ViewState st;
        view_init(&st, &dims);
        SceneExtras ex = {
            .original = &doc->lesson.params, .train = &doc->train, .theme = THEMES[th].theme};
        for (int i = 0; i < st.stage_count; i++) {
            st.stage_index = i;
            snprintf(what, sizeof what, "%s %dx%d %s training, stage %d", L.title, w, h,
                     THEMES[th].name, i);
            scene_build_ex(&s, &(SceneRequest){.st = &st,
                                               .lesson = &L,
                                               .trace = &doc->trace,
                                               .ex = &ex,
                                               .w = w,
                                               .h = h,
                                               .tm = &TM});
            sliders += s.slider_w > 0;
            strips += s.train_w > 0;
            check_scene(&s, what, t);
        }
    }
    CHECK(sliders > 0 && strips > 0, "the slider (%d) and the training strip (%d) were drawn",
          sliders, strips);
    scene_free(&s);
}

static void test_lesson(const char *rel, bool train)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MHA_SOURCE_DIR, rel);
    static const int SIZES[2][2] = {{1280, 720}, {1920, 1080}};
    for (int k = 0; k < 2; k++) {
        Session doc;
        session_init(&doc);
        SessionError err;
        if (!session_load(&doc, path, &err)) {
            CHECK(false, "%s loads: %s", rel, err.message);
            session_free(&doc);
            return;
        }
        session_edit(&doc, (CellRef){MAT_X, 0, 0, 0}, 0.5,
                     &err); // an edit: the header's count, the marks
        static Tally t;
        memset(&t, 0, sizeof t);
        window_screens(&doc, SIZES[k][0], SIZES[k][1], &t);
        question_screens(&doc, SIZES[k][0], SIZES[k][1], &t);
        if (train) strip_screens(&doc, SIZES[k][0], SIZES[k][1], &t);
        CHECK(t.texts > 1000, "%s: texts measured (%d)", rel, t.texts);
        printf("%s %dx%d: %d texts measured, %d below 4.5:1\n", rel, SIZES[k][0], SIZES[k][1],
               t.texts, t.bad);
        session_free(&doc);
    }
}

int main(void)
{
    test_lesson("lessons/the-cat-sat.json", false);
    test_lesson("lessons/causal-decoder.json", false);
    test_lesson("lessons/two-heads-two-jobs.json", true);
    return check_report("test_contrast");
}
