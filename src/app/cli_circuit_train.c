// --train on a lesson of layers: Adam on fresh induction sequences each step, a line every tenth of
// the run (the evaluation repeats' loss, their accuracy, each head's previous-token and induction
// scores), then each head switched off in turn, and the trained lesson written explicit. No SDL.
#include "app/cli_circuit_train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/cli_train.h"
#include "app/options.h"
#include "lesson/lesson_circuit_write.h"
#include "lesson/lesson_write.h"
#include "platform/platform.h"

bool cli_circuit_ablation(const char *arg, int layers, int heads, uint64_t *ablated, char *msg,
                          size_t cap)
{
    memset(ablated, 0, (size_t)layers * sizeof *ablated);
    const char *p = arg;
    while (*p) {
        char *end;
        long l = strtol(p, &end, 10), h = -1;
        if (end == p || *end != ':') {
            snprintf(msg, cap, "'%s': expected LAYER:HEAD[,LAYER:HEAD...], e.g. 0:1", arg);
            return false;
        }
        p = end + 1;
        h = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || l < 0 || l >= layers || h < 0 || h >= heads) {
            snprintf(msg, cap,
                     "'%s': expected LAYER:HEAD with a layer from 0 to %d and a head from 0 to %d",
                     arg, layers - 1, heads - 1);
            return false;
        }
        ablated[l] |= (uint64_t)1 << h;
        p = *end ? end + 1 : end;
    }
    return true;
}

bool cli_circuit_probe(const Lesson *l, const Circuit *m, const uint64_t *ablated, CircuitScores *s,
                       TraceError *err)
{
    const LessonCircuit *lc = l->circuit;
    int n = m->n_ctx, count = CIRCUIT_EVAL_SEQUENCES;
    int *ids = malloc((size_t)count * (size_t)n * sizeof(int)),
        *period = malloc((size_t)count * sizeof(int));
    bool ok = ids && period && circuit_scores_init(s, m);
    if (ok) {
        Rng rng;
        rng_seed(&rng, lc->train.seed + 1);
        for (int q = 0; q < count; q++)
            circuit_draw_induction(ids + (size_t)q * (size_t)n, &period[q], n, m->vocab,
                                   lc->train.period_min, lc->train.period_max, &rng);
        ok = circuit_measure(s, m, &l->params.cfg, ids, period, count, n, ablated, err);
    } else if (err) snprintf(err->message, sizeof err->message, "out of memory");
    free(ids);
    free(period);
    return ok;
}

void cli_circuit_print_heads(FILE *out, const Circuit *m, const CircuitScores *s)
{
    for (int k = 0; k < m->layers; k++)
        for (int h = 0; h < m->shape.heads; h++) {
            size_t at = (size_t)k * (size_t)m->shape.heads + (size_t)h;
            cli_line(out, "layer %d head %d: previous-token %.4f, induction %.4f\n", k, h,
                     s->prev_token[at], s->induction[at]);
        }
}

static double wall_seconds(void) { return (double)platform_time_ns() * 1e-9; }

// The best previous-token score among layer 0's heads, and the best induction score among the
// last layer's.
static void best_scores(const Circuit *m, const CircuitScores *s, double *prev, double *ind)
{
    int H = m->shape.heads;
    *prev = *ind = 0.0;
    for (int h = 0; h < H; h++) {
        if (s->prev_token[h] > *prev) *prev = s->prev_token[h];
        double v = s->induction[(size_t)(m->layers - 1) * (size_t)H + (size_t)h];
        if (v > *ind) *ind = v;
    }
}

// "step K/N loss L repeat_loss R repeat_accuracy A previous_token a b | c d induction ..."
static void progress_line(const CircuitTrainer *tr, const CircuitScores *s)
{
    const Circuit *m = &tr->c;
    printf("step %d/%d loss %.9g repeat_loss %.6f repeat_accuracy %.4f", tr->step, tr->spec.steps,
           s->loss, s->repeat_loss, s->repeat_accuracy);
    for (int which = 0; which < 2; which++) {
        const double *v = which ? s->induction : s->prev_token;
        printf(which ? " induction" : " previous_token");
        for (int k = 0; k < m->layers; k++)
            for (int h = 0; h < m->shape.heads; h++)
                printf("%s %.4f", k && !h ? " |" : "",
                       v[(size_t)k * (size_t)m->shape.heads + (size_t)h]);
    }
    printf("\n");
}

// After training: each head switched off in turn, the evaluation repeats' loss and accuracy.
static bool ablation_table(const Lesson *l, const Circuit *m, TraceError *err)
{
    uint64_t off[CIRCUIT_MAX_LAYERS];
    for (int k = 0; k < m->layers; k++)
        for (int h = 0; h < m->shape.heads; h++) {
            memset(off, 0, sizeof off);
            off[k] = (uint64_t)1 << h;
            CircuitScores s;
            if (!cli_circuit_probe(l, m, off, &s, err)) return false;
            cli_line(stdout,
                     "switched off layer %d head %d: repeat_loss %.6f repeat_accuracy %.4f\n", k, h,
                     s.repeat_loss, s.repeat_accuracy);
            circuit_scores_free(&s);
        }
    return true;
}

// The request's checks before training: --out (not the lesson itself, a target that can be
// written), --steps.
static int check_request(Lesson *l, const char *path, const char *steps_arg, const char *out)
{
    if (!l->circuit->trains) {
        cli_line(stderr, "%s: error: --train needs a lesson with a \"train\" section\n", path);
        return EXIT_USAGE;
    }
    return cli_train_check_out(path, steps_arg, &l->circuit->train.steps, out);
}

static int write_trained(const Lesson *l, const CircuitTrainer *tr, const char *out)
{
    size_t len = 0;
    char *json = lesson_circuit_write_json(l, &tr->c, &tr->spec, " (trained)", &len);
    return cli_write_lesson(out, json, len);
}

// The steps, a line every tenth of the run; false with err on failure.
static bool run_steps(const Lesson *l, CircuitTrainer *tr, CircuitScores *s, double *loss0,
                      TraceError *err)
{
    (void)l;
    int steps = tr->spec.steps, every = steps >= 10 ? steps / 10 : 1;
    if (!circuit_train_measure(tr, s, NULL, err)) return false;
    *loss0 = s->loss;
    progress_line(tr, s);
    while (tr->step < steps) {
        if (!circuit_train_step(tr, err)) return false;
        if (tr->step % every == 0 || tr->step == steps) {
            if (!circuit_train_measure(tr, s, NULL, err)) return false;
            progress_line(tr, s);
        }
    }
    return true;
}

int cli_circuit_train(Lesson *l, const char *path, const char *steps_arg, const char *out)
{
    const char *name = path ? path : "<built-in>";
    int status = check_request(l, name, steps_arg, out);
    if (status != EXIT_OK) return status;
    LessonCircuit *lc = l->circuit;
    const Circuit *m = &lc->model;
    cli_line(stdout,
             "training %s: task induction, %d sequences a step of %d tokens with a period from %d "
             "to %d, vocabulary %d, %d layer%s of %d head%s, %d steps, learning rate %g\n",
             name, lc->train.sequences, m->n_ctx, lc->train.period_min, lc->train.period_max,
             m->vocab, m->layers, m->layers == 1 ? "" : "s", m->shape.heads,
             m->shape.heads == 1 ? "" : "s", lc->train.steps, lc->train.learning_rate);
    double t0 = wall_seconds(), loss0 = 0;
    CircuitTrainer tr;
    CircuitScores s = {0};
    TraceError err = {0};
    bool ok =
        circuit_train_init(&tr, m, &l->params.cfg, &lc->train, lc->positions == POS_EXPLICIT, &err)
        && circuit_scores_init(&s, m);
    ok = ok && run_steps(l, &tr, &s, &loss0, &err);
    double seconds = wall_seconds() - t0;
    if (ok) {
        cli_circuit_print_heads(stdout, &tr.c, &s);
        ok = ablation_table(l, &tr.c, &err);
    }
    if (!ok) {
        cli_line(stderr, "%s: error: step %d: %s\n", name, tr.step + 1, err.message);
        status = EXIT_USAGE;
    } else if ((status = write_trained(l, &tr, out)) == EXIT_OK) {
        double prev, ind;
        best_scores(&tr.c, &s, &prev, &ind);
        cli_line(stdout,
                 "steps=%d loss_start=%.9g loss_end=%.9g repeat_accuracy=%.4f previous_token=%.4f "
                 "induction=%.4f seconds=%.3f\n",
                 tr.spec.steps, loss0, s.loss, s.repeat_accuracy, prev, ind, seconds);
        status = cli_finish_stdout();
    }
    circuit_scores_free(&s);
    circuit_train_free(&tr);
    return status;
}
