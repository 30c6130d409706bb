// Training in the window without a window (issue 15): the keys T, J, L, Z, V ask for it (view.c);
// the session starts, runs, pauses, scrubs checkpoints and resets, and the weights shown are the
// trainer's (the trace follows); a lesson without "train" says why; a reload drops the trainer; the
// scene lays the training strip (loss curve, checkpoints) inside the window with numbers at
// least 2.6 % of the height at 1280x720 and 1920x1080, and leaves it out when not training.
#define _POSIX_C_SOURCE 200809L // nanosleep
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "model/session.h"
#include "model/view.h"
#include "render/export_png.h"
#include "render/scene.h"

#include "fake_font.h"

static void test_keys(void)
{
    ViewDims d = {6, 6, 12, 2, 6, true, true, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &d);
    struct {
        ViewKey key;
        ViewRequest req;
        double delta;
    } cases[] = {{VIEW_KEY_NONE, VIEW_REQ_TRAIN_SEEK, 7}, {VIEW_KEY_T, VIEW_REQ_TRAIN, 0},
                 {VIEW_KEY_J, VIEW_REQ_TRAIN_SHOW, -1},   {VIEW_KEY_L, VIEW_REQ_TRAIN_SHOW, 1},
                 {VIEW_KEY_Z, VIEW_REQ_TRAIN_RESET, 0},   {VIEW_KEY_V, VIEW_REQ_TRAIN_EXPORT, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ViewEvent ev = {.kind = VIEW_EV_KEY, .key = cases[i].key, .head = -1};
        if (cases[i].key == VIEW_KEY_NONE)
            ev = (ViewEvent){.kind = VIEW_EV_TRAIN_SEEK, .value = 7, .head = -1};
        s.request = VIEW_REQ_NONE;
        view_handle(&s, &ev);
        CHECK(s.request == cases[i].req, "key %zu asks for request %d, got %d", i,
              (int)cases[i].req, (int)s.request);
        if (cases[i].req == VIEW_REQ_TRAIN_SHOW || cases[i].req == VIEW_REQ_TRAIN_SEEK)
            CHECK(s.request_delta == cases[i].delta, "J / L: delta %g", s.request_delta);
    }
}

// The attention weights of head h of the session's trace, as the screen shows them, equal those of
// a trace of the trainer's weights w.
static bool shows(const Session *s, const AttnParams *w)
{
    AttnParams p;
    if (!params_copy(&p, &s->edit)) return false;
    params_copy_weights(&p, w);
    Trace t;
    TraceError err;
    bool ok = trace_run(&t, &p, &err);
    for (int h = 0; ok && h < p.heads; h++)
        ok = mat_max_abs_diff(&t.head[h].weights, &s->trace.head[h].weights) == 0.0;
    if (ok || t.head) trace_free(&t);
    params_free(&p);
    return ok;
}

// Every text of the scene inside the window; the training strip's texts (from "step" to the keys)
// at least 2.6 % of the height, its curve on a log scale said so, its keys explained, the header
// saying the weights are trained (issue 25). Returns the curve's width (0: no strip).
static int check_scene(const Session *doc, ViewState *st, int w, int h, bool want_strip)
{
    Scene sc;
    scene_init(&sc);
    Lesson shown = session_shown(doc);
    SceneExtras ex = {.original = &doc->lesson.params, .train = &doc->train};
    st->width = w;
    st->height = h;
    CHECK(scene_build_ex(&sc, &(SceneRequest){.st = st,
                                              .lesson = &shown,
                                              .trace = &doc->trace,
                                              .ex = &ex,
                                              .w = w,
                                              .h = h,
                                              .tm = &TM}),
          "scene builds at %dx%d", w, h);
    bool strip = false, curve = false, log_said = false, keys_said = false, trained_said = false;
    int smallest = 1 << 20, shown_step = session_train_shown_step(doc);
    char trained[64];
    snprintf(trained, sizeof trained, "trained %d step%s", shown_step, shown_step == 1 ? "" : "s");
    for (size_t i = 0; i < sc.count; i++) {
        const DrawCmd *c = &sc.cmds[i];
        if (c->kind == CMD_TEXT) {
            const char *t = scene_text(&sc, c);
            CHECK(c->x >= 0 && c->y >= 0 && c->x + c->w <= w && c->y + c->h <= h,
                  "%dx%d: text '%s' at %d,%d %dx%d is outside", w, h, t, c->x, c->y, c->w, c->h);
            log_said |= strcmp(t, "(a log scale)") == 0;
            keys_said |= strcmp(t, "T trains / pauses") == 0;
            trained_said |= strstr(t, trained) && strstr(t, "R reverts");
            if (strstr(t, " step ") || strncmp(t, "loss ", 5) == 0
                || strcmp(t, "T trains / pauses") == 0) {
                strip = true;
                if (c->size < smallest) smallest = c->size;
            }
        }
        if (c->kind == CMD_LINE && c->thickness == 2) curve = true;
    }
    CHECK(strip == want_strip, "%dx%d: the training strip %s", w, h,
          want_strip ? "is missing" : "is shown when not training");
    if (want_strip) {
        // digits are 0.73 of the font's pixel size (scene_number_font): at least 2.6 % of the
        // height
        CHECK(smallest * 0.73 >= 0.026 * h,
              "%dx%d: the strip's text is %d px, below 2.6 %% of the height", w, h, smallest);
        CHECK(curve || doc->train.tr.loss_count < 2, "%dx%d: no loss curve drawn", w, h);
        int step = -1, steps = doc->train.tr.spec.steps;
        CHECK(sc.train_w > 0 && sc.train_x + sc.train_w <= w && sc.train_y + sc.train_h <= h,
              "%dx%d: the strip's slider is inside the window", w, h);
        CHECK(scene_train_at(&sc, sc.train_x, sc.train_y + 1, &step) && step == 0,
              "%dx%d: its left end is step 0 (%d)", w, h, step);
        CHECK(scene_train_at(&sc, sc.train_x + sc.train_w, sc.train_y + sc.train_h - 1, &step)
                  && step == steps,
              "%dx%d: its right end is step %d (%d)", w, h, steps, step);
        CHECK(scene_train_at(&sc, sc.train_x + sc.train_w / 2, sc.train_y + 1, &step)
                  && abs(step - steps / 2) <= 2,
              "%dx%d: its middle is step %d (%d)", w, h, steps / 2, step);
        CHECK(!scene_train_at(&sc, sc.train_x, sc.train_y - 1, &step)
                  && !scene_train_at(&sc, sc.train_x, sc.train_y + sc.train_h, &step),
              "%dx%d: nothing above or below the strip", w, h);
        CHECK(log_said && keys_said,
              "%dx%d: the strip says its scale is logarithmic (%d) and what the keys do (%d)", w, h,
              log_said, keys_said);
        CHECK(trained_said == (shown_step > 0), "%dx%d: the header says '%s' (%d)", w, h, trained,
              trained_said);
    }
    int curve_w = want_strip ? sc.train_w : 0;
    scene_free(&sc);
    return curve_w;
}

// The heatmap beside the board while training (issue 25): its cells carry their numbers at 2.6 % of
// the height or more when they fit, else it says that they are too small for them (one head, the
// softmax's first part).
static void check_heat_numbers(const Session *doc, ViewState *st, int w, int h,
                               const TextMetrics *tm)
{
    Scene sc;
    scene_init(&sc);
    Lesson shown = session_shown(doc);
    SceneExtras ex = {.original = &doc->lesson.params, .train = &doc->train};
    ViewState one = *st;
    one.view = VIEW_ONE_HEAD;
    one.substep = 0;
    CHECK(scene_build_ex(&sc, &(SceneRequest){.st = &one,
                                              .lesson = &shown,
                                              .trace = &doc->trace,
                                              .ex = &ex,
                                              .w = w,
                                              .h = h,
                                              .tm = tm}),
          "scene builds at %dx%d", w, h);
    int numbers = 0, small = 0;
    bool said = false, heat = false;
    for (size_t i = 0; i < sc.count; i++) {
        const DrawCmd *c = &sc.cmds[i];
        if (c->kind != CMD_TEXT) continue;
        said |= strncmp(scene_text(&sc, c), "(cells too", 10) == 0; // (its first line)
        heat |= strstr(scene_text(&sc, c), "attention weights A") != NULL; // the heatmap's title
        if (c->role == ROLE_NUMBER && c->cell.mat == MAT_WEIGHTS) {
            numbers++;
            small += c->size * 0.729 < 0.026 * h; // the digits of the fonts shipped
        }
    }
    if (getenv("MHA_TEST_VERBOSE"))
        fprintf(stderr, "  %dx%d: %d numbers, said %d, substeps %d\n", w, h, numbers, said,
                sc.substeps);
    CHECK(small == 0, "%dx%d: %d of the heatmap's numbers below 2.6 %% of the height", w, h, small);
    CHECK(!heat || numbers > 0 || said,
          "%dx%d: the heatmap while training has no numbers (%d) and does not say why", w, h,
          numbers);
    scene_free(&sc);
}

// The first-token lesson (6 tokens, causal) training: its heatmap beside the softmax's board is
// small.
static void test_training_heatmap(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/lessons/learn-first-token.json", MHA_SOURCE_DIR);
    Session doc;
    session_init(&doc);
    SessionError err;
    CHECK(session_load(&doc, path, &err), "the first-token lesson loads: %s", err.message);
    if (!doc.loaded) return;
    ViewState st;
    ViewDims d = view_dims_from_params(&doc.edit);
    view_init(&st, &d);
    for (int i = 0; i < st.stage_count; i++)
        if (st.stages[i] == STAGE_SOFTMAX) st.stage_index = i;
    CHECK(session_train_toggle(&doc, &err), "T starts: %s", err.message);
    CHECK(session_train_steps(&doc, 20, &err), "20 steps: %s", err.message);
    ExportError xerr;
    Exporter *x =
        export_open(MHA_SOURCE_DIR "/assets/fonts", &xerr); // measured with the fonts shipped
    CHECK(x != NULL, "export_open: %s", xerr.message);
    if (x) {
        TextMetrics tm = export_metrics(x);
        check_heat_numbers(&doc, &st, 1280, 720, &tm);
        check_heat_numbers(&doc, &st, 1920, 1080, &tm);
        export_close(x);
    }
    session_free(&doc);
}

static void test_session_training(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/lessons/two-heads-two-jobs.json", MHA_SOURCE_DIR);
    Session doc;
    session_init(&doc);
    SessionError err;
    CHECK(session_load(&doc, path, &err), "the two-heads lesson loads: %s", err.message);
    if (!doc.loaded) return;
    ViewState st;
    ViewDims d = view_dims_from_params(&doc.edit);
    view_init(&st, &d);
    st.view = VIEW_ALL_HEADS;
    for (int i = 0; i < st.stage_count; i++)
        if (st.stages[i] == STAGE_SOFTMAX) st.stage_index = i;
    check_scene(&doc, &st, 1280, 720, false);
    CHECK(session_train_shown_step(&doc) == -1, "not training before T");
    CHECK(!session_train_show(&doc, -1, &err) && !session_train_reset(&doc, &err),
          "J and Z do nothing before T");
    CHECK(session_train_toggle(&doc, &err) && doc.train.running, "T starts: %s", err.message);
    int steps = doc.lesson.train.steps;
    for (int i = 0; i < 10; i++)
        CHECK(session_train_steps(&doc, 5, &err), "5 steps: %s", err.message);
    CHECK(doc.train.tr.step == 50 && session_train_shown_step(&doc) == 50,
          "50 steps done, shown: %d", session_train_shown_step(&doc));
    CHECK(shows(&doc, &doc.train.tr.p), "the screen's trace is the trainer's weights at step 50");
    CHECK(session_edit_count(&doc) > 0, "the trained weights count as edits (Ctrl+S saves them)");
    check_scene(&doc, &st, 1280, 720, true);
    check_scene(&doc, &st, 1920, 1080, true);
    check_heat_numbers(&doc, &st, 1280, 720, &TM);
    CHECK(session_train_toggle(&doc, &err) && !doc.train.running, "T pauses");
    int paused_w = check_scene(&doc, &st, 1280, 720, true);
    session_train_show(&doc, -1, &err);
    CHECK(check_scene(&doc, &st, 1280, 720, true) == paused_w,
          "the curve as wide at a checkpoint as paused (%d)", paused_w);
    session_train_show(&doc, 1, &err);
    CHECK(!session_train_steps(&doc, 5, &err) && doc.train.tr.step == 50, "no steps while paused");
    // J: back one checkpoint at a time to step 0; L forward again to the newest weights.
    int every = doc.train.tr.checkpoint_every, back = 0;
    while (session_train_show(&doc, -1, &err)) back++;
    CHECK(session_train_shown_step(&doc) == 0 && shows(&doc, &doc.train.tr.checkpoints[0].p),
          "J down to step 0 shows the initial weights");
    CHECK(back == 50 / every + (50 % every ? 1 : 0), "J took %d steps back (a checkpoint every %d)",
          back, every);
    CHECK(session_train_show(&doc, 1, &err) && session_train_shown_step(&doc) == every,
          "L: the next checkpoint");
    while (session_train_show(&doc, 1, &err)) {}
    CHECK(session_train_shown_step(&doc) == 50 && shows(&doc, &doc.train.tr.p),
          "L up to the newest weights");
    // A press on the strip: the checkpoint nearest to the step under the pointer.
    CHECK(session_train_seek(&doc, every + every / 2 - 1, &err)
              && session_train_shown_step(&doc) == every,
          "seek to step %d shows checkpoint step %d (%d)", every + every / 2 - 1, every,
          session_train_shown_step(&doc));
    CHECK(shows(&doc, &doc.train.tr.checkpoints[1].p), "the seek's weights are shown");
    CHECK(!session_train_seek(&doc, every, &err),
          "seeking to the checkpoint shown changes nothing");
    CHECK(session_train_seek(&doc, 10000, &err) && session_train_shown_step(&doc) == 50,
          "seek past the end: the newest");
    // Resuming from a checkpoint shown: from the newest weights.
    session_train_show(&doc, -1, &err);
    CHECK(session_train_toggle(&doc, &err) && doc.train.running
              && session_train_shown_step(&doc) == 50,
          "T resumes from the newest weights");
    while (doc.train.running) session_train_steps(&doc, 100, &err);
    CHECK(doc.train.tr.step == steps && doc.train.tr.loss_count == steps + 1,
          "the run ends at its steps (%d)", steps);
    CHECK(doc.train.tr.loss[steps] * 100 <= doc.train.tr.loss[0],
          "the loss fell 100 times in the window too");
    CHECK(!session_train_toggle(&doc, &err) && strstr(err.message, "done"), "T after the end: '%s'",
          err.message);
    check_scene(&doc, &st, 1280, 720, true);
    CHECK(session_train_reset(&doc, &err) && session_train_shown_step(&doc) == 0
              && !doc.train.running,
          "Z: step 0, paused");
    CHECK(session_edit_count(&doc) == 0, "Z: the file's weights again (no edits)");
    CHECK(session_train_toggle(&doc, &err) && doc.train.running, "T trains again after Z");
    // A reload drops the trainer.
    CHECK(session_load(&doc, path, &err) && !doc.train.active
              && session_train_shown_step(&doc) == -1,
          "a reload drops the trainer");
    // A lesson without "train" says why.
    snprintf(path, sizeof path, "%s/lessons/the-cat-sat.json", MHA_SOURCE_DIR);
    CHECK(session_load(&doc, path, &err), "the cat lesson loads");
    CHECK(!session_train_toggle(&doc, &err) && strstr(err.message, "no \"train\" section"),
          "no train section: '%s'", err.message);
    session_free(&doc);
}

// The window's training on the worker thread (issue 27): T returns before the trainer has started
// (its first evaluation and every step run on the worker, however long they take), the screen
// (drawn meanwhile) reads only the session's copy, T pauses at once, and the steps come through
// session_train_poll. Waits for progress, not a time.
static bool wait_job(Session *doc, SessionError *err)
{
    while (session_train_busy(doc)) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
        if (session_train_poll(doc, err) == SESSION_TRAIN_FAILED) return false;
    }
    return true;
}

static void test_session_async(void)
{
    const char *path = "test_train_window_heavy.json"; // (in the test's working folder)
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "a lesson file");
    if (!f) return;
    fprintf(f, "{\"title\": \"heavy\", \"sentence\": \"");
    for (int i = 0; i < 40; i++) fprintf(f, "%st%d", i ? " " : "", i);
    fprintf(f, "\", \"embeddings\": {\"random\": {\"seed\": 1, \"std\": 0.05}}, \"d_model\": 64, "
               "\"heads\": 8, "
               "\"d_k\": 32, \"weights\": {\"random\": {\"seed\": 2, \"qkv_std\": 0.05, "
               "\"out_std\": 0.05}}, "
               "\"train\": {\"task\": \"previous-token\", \"sequences\": 1, \"steps\": 3}}\n");
    fclose(f);
    Session doc;
    session_init(&doc);
    doc.train.async = true;
    SessionError err;
    CHECK(session_load(&doc, path, &err), "the heavy lesson loads: %s", err.message);
    ViewState st;
    ViewDims d = view_dims_from_params(&doc.edit);
    view_init(&st, &d);
    CHECK(session_train_toggle(&doc, &err) && doc.train.running, "T: %s", err.message);
    CHECK(session_train_busy(&doc) && !doc.train.active,
          "T returns while the trainer starts on the worker");
    CHECK(session_train_toggle(&doc, &err) && !doc.train.running && session_train_busy(&doc),
          "T pauses at once");
    CHECK(session_train_toggle(&doc, &err) && doc.train.running, "T runs again");
    CHECK(session_train_reset(&doc, &err) && !doc.train.running && session_train_busy(&doc),
          "Z while it starts: paused");
    CHECK(session_train_toggle(&doc, &err) && doc.train.running, "and T runs again");
    CHECK(wait_job(&doc, &err) && doc.train.active && session_train_shown_step(&doc) == 0,
          "started: %s", err.message);
    CHECK(session_train_steps(&doc, 1, &err) && session_train_busy(&doc)
              && session_train_shown_step(&doc) == 0,
          "a step starts on the worker; the screen shows step 0 meanwhile");
    check_scene(&doc, &st, 1280, 720, true); // drawn while the worker steps: the session's copy
    CHECK(!session_train_steps(&doc, 1, &err), "one job at a time");
    CHECK(wait_job(&doc, &err) && session_train_shown_step(&doc) == 1
              && shows(&doc, &doc.train.tr.p),
          "step 1 shown once the worker is done: %s", err.message);
    CHECK(session_train_steps(&doc, 1, &err) && session_train_busy(&doc), "another step");
    session_free(&doc); // while it runs: stopped at its next sequence
    CHECK(!doc.loaded && !doc.train.active, "freed while stepping");
    remove(path);
}

// scene_append: every command moved, texts copied, a whole-window clip left alone.
static void test_append(void)
{
    Scene a, b;
    scene_init(&a);
    scene_init(&b);
    scene_push_rect(&a, 1, 2, 3, 4, (Rgba){1, 2, 3, 255});
    scene_push_text(&a, FONT_BOLD, 20, (Rgba){0, 0, 0, 255}, (Box){5, 6, 30, 24}, "step 40");
    scene_push(&a, CMD_CLIP, 0, 0, 0, 0, (Rgba){0, 0, 0, 255});
    scene_push_text(&b, FONT_REGULAR, 10, (Rgba){0, 0, 0, 255}, (Box){0, 0, 5, 5}, "x");
    scene_append(&b, &a, 100, 10);
    CHECK(b.count == 4 && b.cmds[1].x == 101 && b.cmds[1].y == 12 && b.cmds[1].w == 3,
          "the rectangle moved");
    CHECK(b.cmds[2].kind == CMD_TEXT && b.cmds[2].x == 105 && b.cmds[2].size == 20
              && strcmp(scene_text(&b, &b.cmds[2]), "step 40") == 0
              && strcmp(scene_text(&b, &b.cmds[0]), "x") == 0,
          "the text moved and copied");
    CHECK(b.cmds[3].kind == CMD_CLIP && b.cmds[3].x == 0 && b.cmds[3].w == 0,
          "a whole-window clip stays");
    scene_free(&a);
    scene_free(&b);
}

int main(void)
{
    test_append();
    test_keys();
    test_session_training();
    test_training_heatmap();
    test_session_async();
    return check_report("test_train_window");
}
