// --train LESSON --out FILE: trains the lesson as its "train" section says, on this one thread, and
// writes the trained lesson (its questions' answers updated) with the figures of the run. No SDL.
#include "app/cli_train.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h> // clock: how long --train took

#include "app/cli.h"
#include "app/options.h"
#include "core/train.h"
#include "lesson/lesson_write.h"
#include "model/questions.h"
#include "platform/platform.h"

// The processor time used so far, in seconds (training runs on this one thread, so it is the time
// it took).
static double seconds_now(void) { return (double)clock() / CLOCKS_PER_SEC; }

// Would the trained lesson load again? Its weights are written out (4 * heads * d_model * d_k
// numbers): within lesson_write_bound's bounds it does; else the untrained lesson written the same
// way holds as many values (lesson_write_readable). false with why.
static bool train_output_fits(const Lesson *l, char *why, size_t cap)
{
    const AttnParams *p = &l->params;
    double weights = 4.0 * p->heads * p->d_model * p->d_k, values, bytes;
    lesson_write_bound(l, p, &values, &bytes);
    if (values <= LESSON_MAX_FILE_VALUES && bytes <= LESSON_MAX_FILE_BYTES) return true;
    LessonError err;
    size_t len = 0;
    char *json =
        weights <= LESSON_MAX_FILE_VALUES ? lesson_write_json(l, p, " (trained)", &len) : NULL;
    bool ok = json && lesson_write_readable(json, len, &err);
    free(json);
    if (weights > LESSON_MAX_FILE_VALUES)
        snprintf(why, cap,
                 "its weights written out are 4 * heads * d_model * d_k = 4 * %d * %d * %d = %.0f "
                 "numbers, more than "
                 "the %d values a lesson file may hold, so it could not be loaded again",
                 p->heads, p->d_model, p->d_k, weights, LESSON_MAX_FILE_VALUES);
    else if (!ok) snprintf(why, cap, "%s", json || len ? err.message : "out of memory");
    return ok;
}

// The trained lesson's questions: each stated answer recomputed from the trained weights (the
// file's were about the untrained ones). Returns how many changed, or -1 (questions dropped) when
// one cannot be answered.
static int train_update_questions(Lesson *l, const AttnParams *trained)
{
    Lesson shown = *l;
    shown.params = *trained;
    Trace t;
    TraceError terr;
    int changed = 0;
    if (l->question_count == 0) return 0;
    bool traced = trace_run(&t, trained, &terr), ok = traced;
    for (int i = 0; ok && i < l->question_count; i++) {
        LessonQuestion *q = &l->questions[i];
        QuestionAnswer a;
        LessonError err;
        if (!(ok = question_answer(&shown, &t, q, i, &a, &err))) break;
        bool same = q->kind == ANSWER_CELL    ? q->row == a.cell.row && q->col == a.cell.col
                    : q->kind == ANSWER_VALUE ? q->value == a.value
                                              : q->correct == a.choice;
        changed += !same;
        if (q->kind == ANSWER_CELL) q->row = a.cell.row, q->col = a.cell.col;
        else if (q->kind == ANSWER_VALUE) q->value = a.value;
        else q->correct = a.choice;
    }
    if (traced) trace_free(&t);
    if (!ok) l->question_count = 0;
    return ok ? changed : -1;
}

int cli_train_check_out(const char *path, const char *steps_arg, int *steps, const char *out)
{
    if (!out) {
        cli_line(stderr, "mha-tracer: error: --train needs --out FILE for the trained lesson\n");
        return EXIT_USAGE;
    }
    double steps_given;
    if (steps_arg) {
        if (!options_number(OPT_STEPS, steps_arg, &steps_given)) return EXIT_USAGE;
        *steps = (int)steps_given;
    }
    // The lesson itself, by any name or through a link, is refused (a hard link's other name would
    // be replaced by a new file, as every write here renames a fresh one into place, and the lesson
    // keep its bytes).
    char in_real[4096], out_real[4096];
    if (path && platform_realpath(path, in_real, sizeof in_real)
        && platform_realpath(out, out_real, sizeof out_real) && strcmp(in_real, out_real) == 0) {
        cli_line(stderr,
                 "mha-tracer: error: --out %s is the lesson itself; write the trained lesson to "
                 "another file\n",
                 out);
        return EXIT_USAGE;
    }
    LessonError target_err; // refused before the training, not after it
    if (!lesson_write_target(out, &target_err)) {
        char buf[1400];
        cli_line(stderr, "%s\n", lesson_error_format(&target_err, buf, sizeof buf));
        return EXIT_IO;
    }
    return EXIT_OK;
}

// --train: Adam on the lesson's task, progress every tenth of the run, the trained lesson into out.
// The request's checks before any training: a lesson with a "train" section, --out (never the
// lesson itself, a target that can be written), --steps, and a trained lesson that would load
// again. EXIT_OK or the exit status.
static int check_request(Lesson *l, const char *path, const char *steps_arg, const char *out)
{
    if (!l->trains) {
        cli_line(stderr,
                 "%s: error: --train needs a lesson with a \"train\" section (see the README)\n",
                 path ? path : "<built-in>");
        return EXIT_USAGE;
    }
    int refused = cli_train_check_out(path, steps_arg, &l->train.steps, out);
    if (refused != EXIT_OK) return refused;
    char why[600];
    if (!train_output_fits(l, why, sizeof why)) {
        cli_line(stderr, "%s: error: the trained lesson: %s; nothing was trained\n",
                 path ? path : "<built-in>", why);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

// The loss before the first step (loss0) is not finite: says why (the embedding too big to square,
// else the sizes of the numbers).
static void loss_refused(const Lesson *l, const char *path, double loss0)
{
    const Matrix *e = l->params.positions != POS_NONE ? &l->params.E : &l->params.X;
    size_t big = 0, count = (size_t)e->rows * (size_t)e->cols;
    for (size_t i = 1; i < count; i++)
        if (fabs(e->data[i]) > fabs(e->data[big])) big = i;
    char why[300] = "use smaller embeddings or weights";
    if (fabs(e->data[big])
        > 1e154) // a target (a token's embedding) whose square is beyond a double
        snprintf(
            why, sizeof why,
            "the task's targets are the lesson's embeddings, and embeddings[%zu][%zu] = %g squared "
            "exceeds a double: give embeddings below 1e154",
            big / (size_t)e->cols, big % (size_t)e->cols, e->data[big]);
    cli_line(stderr,
             "%s: error: the training loss mean((output - target)^2) is %s before the first step: "
             "%s; nothing "
             "was trained\n",
             path ? path : "<built-in>", isnan(loss0) ? "not a number" : "infinite", why);
}

int cli_write_lesson(const char *path, char *json, size_t len)
{
    LessonError err;
    int status = EXIT_OK;
    if (!json) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        status = EXIT_IO;
    } else if (!lesson_write_file(path, json, len, &err)) {
        char buf[1400];
        cli_line(stderr, "%s\n", lesson_error_format(&err, buf, sizeof buf));
        status = EXIT_IO;
    } else cli_line(stdout, "wrote %s\n", path);
    free(json);
    return status;
}

// Writes the trained lesson (tr's weights, the questions' answers updated) to out, and the run's
// figures.
static int write_trained(const Lesson *l, const Trainer *tr, const char *out, int steps,
                         double seconds)
{
    size_t len;
    char *json = lesson_write_json(l, &tr->p, " (trained)", &len);
    int status = cli_write_lesson(out, json, len);
    if (status != EXIT_OK) return status;
    cli_line(stdout, "steps=%d loss_start=%.9g loss_end=%.9g seconds=%.3f\n", steps, tr->loss[0],
             tr->loss[steps], seconds);
    return cli_finish_stdout();
}

int cli_run_train(Lesson *l, const char *path, const char *steps_arg, const char *out)
{
    int refused = check_request(l, path, steps_arg, out);
    if (refused != EXIT_OK) return refused;
    Matrix vocab;
    int *ids = malloc((size_t)l->params.n * sizeof(int));
    if (!ids || !lesson_train_vocabulary(l, &vocab, ids)) {
        free(ids);
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    free(ids);
    double t0 = seconds_now();
    Trainer tr;
    TraceError terr;
    bool ok = train_init(&tr, &l->params, &l->train, &vocab, &terr);
    mat_free(&vocab);
    if (!ok) {
        cli_line(stderr, "%s: error: %s\n", path ? path : "<built-in>", terr.message);
        return EXIT_USAGE;
    }
    if (!isfinite(tr.loss[0])) { // refused before a step: no step of it could be finite
        loss_refused(l, path, tr.loss[0]);
        train_free(&tr);
        return EXIT_USAGE;
    }
    int steps = l->train.steps, every = steps >= 10 ? steps / 10 : 1;
    cli_line(stdout,
             "training %s: task %s, %d sequences of %d tokens from %d distinct, %d steps, learning "
             "rate %g\n",
             path ? path : "<built-in>", train_task_key(l->train.task), l->train.sequences,
             l->params.n, tr.vocab.rows, steps, l->train.learning_rate);
    cli_line(stdout, "step %d/%d loss %.9g\n", 0, steps, tr.loss[0]);
    while (ok && tr.step < steps) {
        ok = train_step(&tr, &terr);
        if (ok && (tr.step % every == 0 || tr.step == steps))
            cli_line(stdout, "step %d/%d loss %.9g\n", tr.step, steps,
                     tr.loss[tr.step == steps ? steps : tr.step - 1]);
    }
    if (!ok) {
        cli_line(stderr, "%s: error: step %d: %s\n", path ? path : "<built-in>", tr.step + 1,
                 terr.message);
        train_free(&tr);
        return EXIT_USAGE;
    }
    double seconds = seconds_now() - t0;
    int asked = l->question_count, changed = train_update_questions(l, &tr.p);
    if (asked > 0 && changed >= 0)
        cli_line(stderr,
                 "mha-tracer: note: the trained lesson keeps its %d question%s; %d stated answer%s "
                 "changed to what "
                 "the trained weights give\n",
                 asked, asked == 1 ? "" : "s", changed, changed == 1 ? " was" : "s were");
    else if (asked > 0)
        cli_line(stderr,
                 "mha-tracer: note: the trained lesson leaves out its %d question%s: their answers "
                 "cannot be "
                 "computed from the trained weights\n",
                 asked, asked == 1 ? "" : "s");
    int status = write_trained(l, &tr, out, steps, seconds);
    train_free(&tr);
    return status;
}
