// libFuzzer target for the gradient and training entry points: any bytes -> lesson parser +
// validator -> trace
// -> --grad's computation (the loss against the lesson's targets, attn_backward, cli_grad_check,
// cli_print_grad)
// -> a few bounded training steps (train_check, train_init, train_step, train_evaluate,
// train_reset) -> the trained lesson written and read back. Must never crash or leak, and:
// - the gradient is the same bits when computed twice (no uninitialised memory, no order
// dependence);
// - what cli_grad_check lets through prints as JSON: no "inf" or "nan" in --grad's output (issue
// 27, item 5);
// - the trained lesson that lesson_write_json writes and lesson_write_readable accepts parses
// again, with the
//   trained weights bit for bit (issue 27, item 4: whatever mha-tracer writes, it can read back).
// Each run is small: lessons above FUZZ_MAX_* are parsed but not differentiated or trained, at most
// FUZZ_TRAIN_STEPS steps of at most FUZZ_TRAIN_SEQUENCES sequences. Built with -DMHA_FUZZ=ON
// (clang); seeded with lessons/, tests/good/, tests/bad/ and tests/fuzz-seeds/.
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "core/grad.h"
#include "core/train.h"
#include "lesson/lesson.h"
#include "lesson/lesson_write.h"

#define FUZZ_MAX_VALUES 20000.0 // heads x d_model x d_k and n x d_model: the weights and embeddings
#define FUZZ_MAX_STEP_MULTIPLY_ADDS 4e6 // one training step (train_step_multiply_adds)
#define FUZZ_TRAIN_STEPS 3
#define FUZZ_TRAIN_SEQUENCES 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool small(const AttnParams *p)
{
    return (double)p->heads * p->d_model * p->d_k <= FUZZ_MAX_VALUES
           && (double)p->n * p->d_model <= FUZZ_MAX_VALUES
           && (double)p->m * p->d_model <= FUZZ_MAX_VALUES
           && (double)p->heads * p->n * p->m <= FUZZ_MAX_VALUES;
}

// The same bits in every gradient matrix of a and b (both from grads_init of the same parameters).
static bool same_grads(const AttnParams *a, const AttnParams *b)
{
    const Matrix *x[] = {&a->X, &a->S}, *y[] = {&b->X, &b->S};
    for (int i = 0; i < 2; i++)
        if (x[i]->data
            && memcmp(x[i]->data, y[i]->data, (size_t)x[i]->rows * x[i]->cols * sizeof(double)))
            return false;
    for (int i = 0; i < PARAM_COUNT; i++)
        for (int h = 0; h < params_count(a, i); h++) {
            const Matrix *m = params_own_const(a, i, h), *n = params_own_const(b, i, h);
            if (m->data && memcmp(m->data, n->data, (size_t)m->rows * m->cols * sizeof(double)))
                return false;
        }
    return true;
}

// --grad: loss, gradient (twice), the check, and the printed JSON.
static void fuzz_grad(const Lesson *l, const Trace *t)
{
    Matrix targets;
    bool missing;
    if (!lesson_targets(l, &targets, &missing)) return;
    AttnParams g, g2;
    if (grads_init(&g, &l->params)) {
        if (grads_init(&g2, &l->params)) {
            double loss = attn_loss(t, &targets);
            bool a = attn_backward(&g, &l->params, t, &targets, 1.0),
                 b = attn_backward(&g2, &l->params, t, &targets, 1.0);
            if (a != b || (a && !same_grads(&g, &g2))) abort();
            char why[400];
            if (a && cli_grad_check(loss, &g, &targets, why, sizeof why)) {
                char *text = NULL;
                size_t len = 0;
                FILE *out = open_memstream(&text, &len);
                if (out) {
                    cli_print_grad(out, loss, &g);
                    fclose(out);
                    if (text && (strstr(text, "inf") || strstr(text, "nan"))) abort();
                    free(text);
                }
            }
            params_free(&g2);
        }
        params_free(&g);
    }
    mat_free(&targets);
}

// The trained weights written out and read back: they must load, with the same bits.
static void fuzz_written(const Lesson *l, const AttnParams *trained)
{
    size_t len = 0;
    char *json = lesson_write_json(l, trained, " (trained)", &len);
    if (!json) return;
    LessonError err;
    if (lesson_write_readable(json, len, &err)) {
        Lesson back;
        if (!lesson_parse(&back, json, len, "trained.json", &err)) {
            char buf[1400];
            fprintf(stderr, "the trained lesson does not load again: %s\n",
                    lesson_error_format(&err, buf, sizeof buf));
            abort();
        }
        const Matrix *w = &back.params.W_Q[0], *v = &trained->W_Q[0];
        if (w->rows != v->rows || w->cols != v->cols
            || memcmp(w->data, v->data, (size_t)w->rows * w->cols * sizeof(double)))
            abort();
        lesson_free(&back);
    }
    free(json);
}

// A few training steps of the lesson's task, within the fuzzer's bounds.
static void fuzz_train(const Lesson *l)
{
    TrainSpec spec = l->train;
    if (spec.steps > FUZZ_TRAIN_STEPS) spec.steps = FUZZ_TRAIN_STEPS;
    if (spec.sequences > FUZZ_TRAIN_SEQUENCES) spec.sequences = FUZZ_TRAIN_SEQUENCES;
    if (train_step_multiply_adds(&l->params, spec.sequences) > FUZZ_MAX_STEP_MULTIPLY_ADDS) return;
    TraceError terr;
    if (!train_check(&l->params, &spec, &terr)) return;
    Matrix vocab;
    int *ids = malloc((size_t)l->params.n * sizeof(int));
    if (!ids || !lesson_train_vocabulary(l, &vocab, ids)) {
        free(ids);
        return;
    }
    free(ids);
    Trainer tr;
    bool ok = train_init(&tr, &l->params, &spec, &vocab, &terr);
    mat_free(&vocab);
    if (!ok) return;
    while (ok && tr.step < spec.steps) ok = train_step(&tr, &terr);
    double loss;
    if (ok) {
        (void)train_evaluate(&tr, &tr.p, &loss, &terr);
        fuzz_written(l, &tr.p);
    }
    train_reset(&tr);
    if (tr.step != 0 || tr.checkpoint_count != 1) abort();
    (void)train_step(&tr, &terr);
    train_free(&tr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Lesson l;
    LessonError err;
    if (!lesson_parse(&l, (const char *)data, size, "fuzz.json", &err)) return 0;
    if (small(&l.params)) {
        Trace t;
        TraceError terr;
        if (trace_run(&t, &l.params, &terr)) {
            fuzz_grad(&l, &t);
            trace_free(&t);
        }
        if (l.trains) fuzz_train(&l);
    }
    lesson_free(&l);
    return 0;
}
