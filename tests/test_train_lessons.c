// The shipped training lessons (issue 15): each trains (the lesson's own steps), its loss falls at
// least 100 times, the trained trace shows the task's pattern on the lesson's own tokens (some head
// with >= 0.8 of each row's weight one token back, or on the first token), and the trained lesson
// written out is byte for byte the shipped "-trained" file (the same bits on every run and machine)
// and loads like any lesson.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson/lesson.h"
#include "lesson/lesson_write.h"
#include "read_all.h"

// The smallest weight, over rows 1..n-1, that head h puts one token back (back) or on the first
// token.
static double pattern(const Trace *t, int h, bool back)
{
    const Matrix *w = &t->head[h].weights;
    double least = 1.0;
    for (int i = 1; i < w->rows; i++) {
        double v = mat_get(w, i, back ? i - 1 : 0);
        if (v < least) least = v;
    }
    return least;
}

static void train_lesson(const char *name)
{
    char path[512], trained_path[512];
    snprintf(path, sizeof path, "%s/lessons/%s.json", MHA_SOURCE_DIR, name);
    snprintf(trained_path, sizeof trained_path, "%s/lessons/%s-trained.json", MHA_SOURCE_DIR, name);
    Lesson l;
    LessonError err;
    bool ok = lesson_load(&l, path, &err);
    CHECK(ok, "%s loads: %s", name, err.message);
    if (!ok) return;
    CHECK(l.trains, "%s has a train section", name);
    CHECK(l.notes && strstr(l.notes, "What to look for"), "%s: its notes say what to look for",
          name);
    Matrix vocab;
    int *ids = malloc(sizeof(int) * (size_t)l.params.n);
    lesson_train_vocabulary(&l, &vocab, ids);
    Trainer tr;
    TraceError terr;
    ok = train_init(&tr, &l.params, &l.train, &vocab, &terr);
    CHECK(ok, "%s: training starts: %s", name, terr.message);
    while (ok && tr.step < l.train.steps) ok = train_step(&tr, &terr);
    CHECK(ok, "%s: every step runs: %s", name, terr.message);
    double start = tr.loss[0], end = tr.loss[l.train.steps];
    printf("%s: %d steps, loss %.6g -> %.6g (%.0f times lower)\n", name, l.train.steps, start, end,
           start / end);
    CHECK(end * 100.0 <= start, "%s: the loss falls at least 100 times: %g -> %g", name, start,
          end);
    Trace t;
    ok = ok && trace_run(&t, &tr.p, &terr);
    CHECK(ok, "%s: the trained trace runs", name);
    if (ok) {
        double best_back = 0, best_first = 0;
        int head_back = -1, head_first = -1;
        for (int h = 0; h < t.heads; h++) {
            double b = pattern(&t, h, true), f = pattern(&t, h, false);
            printf("  head %d: least weight one back %.4f, on the first token %.4f\n", h, b, f);
            if (b > best_back) best_back = b, head_back = h;
            if (f > best_first) best_first = f, head_first = h;
        }
        if (l.train.task != TASK_FIRST_TOKEN)
            CHECK(best_back >= 0.8, "%s: some head puts >= 0.8 one token back, best %.4f", name,
                  best_back);
        if (l.train.task != TASK_PREVIOUS_TOKEN)
            CHECK(best_first >= 0.8, "%s: some head puts >= 0.8 on the first token, best %.4f",
                  name, best_first);
        if (l.train.task == TASK_PREVIOUS_AND_FIRST)
            CHECK(head_back != head_first, "%s: two heads, two jobs (head %d back, head %d first)",
                  name, head_back, head_first);
        trace_free(&t);
    }
    size_t len, shipped_len = 0;
    char *json = lesson_write_json(&l, &tr.p, " (trained)", &len);
    char *shipped = read_all(trained_path, &shipped_len);
    CHECK(json && shipped && len == shipped_len && memcmp(json, shipped, len) == 0,
          "%s: the trained lesson is byte for byte lessons/%s-trained.json", name, name);
    Lesson again;
    ok = json && lesson_parse(&again, json, len, "trained", &err);
    CHECK(ok, "%s: the trained lesson loads: %s", name, err.message);
    if (ok) {
        CHECK(again.params.positions == POS_EXPLICIT && again.trains,
              "%s: it keeps positions and the train section", name);
        Trace t2;
        if (trace_run(&t2, &again.params, &terr)) {
            Trace t1;
            trace_run(&t1, &tr.p, &terr);
            CHECK(mat_max_abs_diff(&t1.output, &t2.output) == 0.0,
                  "%s: it traces bit for bit as trained", name);
            trace_free(&t1);
            trace_free(&t2);
        }
        lesson_free(&again);
    }
    free(json);
    free(shipped);
    train_free(&tr);
    mat_free(&vocab);
    free(ids);
    lesson_free(&l);
}

int main(void)
{
    train_lesson("learn-previous-token");
    train_lesson("learn-first-token");
    train_lesson("two-heads-two-jobs");
    return check_report("test_train_lessons");
}
