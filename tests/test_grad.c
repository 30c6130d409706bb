// Tests the gradients (src/core/grad.c) against central finite differences on random attention
// layers: every combination of causal mask, cross-attention, positions (none, sinusoidal,
// explicit), scale, biases and an ablated head, plus lessons loaded in each weight form; and the
// trainer: Adam's first step, the same bits on a second run, the numpy draw of the training
// sequences, the tasks' targets.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/grad.h"
#include "core/rng.h"
#include "core/train.h"
#include "lesson/lesson.h"

static double worst_fd = 0.0; // the largest |analytic - finite difference| over every test
static int fd_values = 0;

static double loss_of(const AttnParams *p, const Matrix *targets)
{
    Trace t;
    TraceError err;
    if (!trace_run(&t, p, &err)) return NAN;
    double l = attn_loss(&t, targets);
    trace_free(&t);
    return l;
}

// After a change to E, E_S or X: X = E + P, S = E_S + P_S or a copy of X.
static void refresh(AttnParams *p)
{
    if (p->positions != POS_NONE) params_apply_positions(p);
    else if (!p->cross)
        memcpy(p->S.data, p->X.data, (size_t)p->n * (size_t)p->d_model * sizeof(double));
}

// Compares every entry of the analytic gradient ga with (L(x + h) - L(x - h)) / 2h of the matching
// entry x.
static void check_matrix(AttnParams *p, Matrix *x, const Matrix *ga, const Matrix *targets,
                         const char *what)
{
    const double h = 1e-5;
    size_t count = (size_t)x->rows * (size_t)x->cols;
    for (size_t i = 0; i < count; i++) {
        double keep = x->data[i];
        x->data[i] = keep + h;
        refresh(p);
        double up = loss_of(p, targets);
        x->data[i] = keep - h;
        refresh(p);
        double down = loss_of(p, targets);
        x->data[i] = keep;
        refresh(p);
        double fd = (up - down) / (2 * h), g = ga->data[i];
        double diff = fabs(fd - g);
        if (diff > worst_fd) worst_fd = diff;
        fd_values++;
        CHECK(diff <= 1e-8 * (1.0 + fabs(g)), "%s[%zu]: analytic %.17g, finite difference %.17g",
              what, i, g, fd);
    }
}

static void check_all(AttnParams *p, const Matrix *targets, const char *name)
{
    Trace t;
    TraceError err;
    bool ok = trace_run(&t, p, &err);
    CHECK(ok, "%s: trace runs: %s", name, err.message);
    if (!ok) return;
    AttnParams g;
    CHECK(grads_init(&g, p), "%s: grads allocate", name);
    CHECK(attn_backward(&g, p, &t, targets, 1.0), "%s: backward runs", name);
    trace_free(&t);
    char what[160];
    for (int h = 0; h < p->heads; h++) {
        Matrix *pw[6] = {&p->W_Q[h], &p->W_K[h], &p->W_V[h], &p->b_Q[h], &p->b_K[h], &p->b_V[h]};
        Matrix *gw[6] = {&g.W_Q[h], &g.W_K[h], &g.W_V[h], &g.b_Q[h], &g.b_K[h], &g.b_V[h]};
        static const char *const names[6] = {"W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V"};
        for (int k = 0; k < 6; k++) {
            snprintf(what, sizeof what, "%s: %s[%d]", name, names[k], h);
            check_matrix(p, pw[k], gw[k], targets, what);
        }
    }
    snprintf(what, sizeof what, "%s: W_O", name);
    check_matrix(p, &p->W_O, &g.W_O, targets, what);
    snprintf(what, sizeof what, "%s: b_O", name);
    check_matrix(p, &p->b_O, &g.b_O, targets, what);
    snprintf(what, sizeof what, "%s: embeddings", name);
    check_matrix(p, p->positions != POS_NONE ? &p->E : &p->X, &g.X, targets, what);
    if (p->cross) {
        snprintf(what, sizeof what, "%s: source_embeddings", name);
        check_matrix(p, p->positions != POS_NONE ? &p->E_S : &p->S, &g.S, targets, what);
    }
    params_free(&g);
}

static void fill(Rng *r, Matrix *m, double std)
{
    rng_normal_fill(r, 0.0, std, m->data, (size_t)m->rows * (size_t)m->cols);
}

// A random layer: mask, cross, positions (0 none, 1 sinusoidal, 2 explicit), scale, biases, ablated
// head 1.
static void test_combination(int mask, int cross, int pos, int scale, int bias, int ablate,
                             uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    int n = 4, m = cross ? 3 : 4, d = 5, heads = 2, dk = 3;
    AttnParams p;
    CHECK(params_init(&p, n, m, d, heads, dk), "params allocate");
    p.mask = mask ? MASK_CAUSAL : MASK_NONE;
    p.cross = cross;
    fill(&r, &p.X, 1.0);
    if (cross) fill(&r, &p.S, 1.0);
    else memcpy(p.S.data, p.X.data, (size_t)n * (size_t)d * sizeof(double));
    for (int h = 0; h < heads; h++) {
        fill(&r, &p.W_Q[h], 0.6);
        fill(&r, &p.W_K[h], 0.6);
        fill(&r, &p.W_V[h], 0.6);
        if (bias) {
            fill(&r, &p.b_Q[h], 0.3);
            fill(&r, &p.b_K[h], 0.3);
            fill(&r, &p.b_V[h], 0.3);
        }
    }
    fill(&r, &p.W_O, 0.5);
    if (bias) fill(&r, &p.b_O, 0.3);
    if (pos) {
        CHECK(params_set_positions(&p, pos == 1 ? POS_SINUSOIDAL : POS_EXPLICIT), "positions");
        if (pos == 2) {
            fill(&r, &p.P, 0.5);
            if (cross) fill(&r, &p.P_S, 0.5);
            params_apply_positions(&p);
        }
    }
    if (scale) p.scale = 0.75;
    if (ablate) p.ablated = 2;
    Matrix targets;
    mat_init(&targets, n, d);
    fill(&r, &targets, 1.0);
    char name[120];
    snprintf(name, sizeof name, "mask %d cross %d positions %d scale %d bias %d ablate %d", mask,
             cross, pos, scale, bias, ablate);
    check_all(&p, &targets, name);
    mat_free(&targets);
    params_free(&p);
}

// The shipped lessons in each weight form (random, PyTorch, explicit; cross-attention; causal),
// with targets drawn at random.
static void test_lesson(const char *file, uint64_t seed)
{
    Lesson l;
    LessonError err;
    char path[512];
    snprintf(path, sizeof path, "%s/lessons/%s", MHA_SOURCE_DIR, file);
    bool ok = lesson_load(&l, path, &err);
    CHECK(ok, "%s loads: %s", file, err.message);
    if (!ok) return;
    Rng r;
    rng_seed(&r, seed);
    Matrix targets;
    mat_init(&targets, l.params.n, l.params.d_model);
    fill(&r, &targets, 1.0);
    check_all(&l.params, &targets, file);
    mat_free(&targets);
    lesson_free(&l);
}

// ablated head: no gradient reaches its weights
static void test_ablated_zero(void)
{
    Rng r;
    rng_seed(&r, 5);
    AttnParams p;
    params_init(&p, 3, 3, 4, 2, 2);
    fill(&r, &p.X, 1.0);
    memcpy(p.S.data, p.X.data, sizeof(double) * 12);
    for (int h = 0; h < 2; h++) {
        fill(&r, &p.W_Q[h], 1.0);
        fill(&r, &p.W_K[h], 1.0);
        fill(&r, &p.W_V[h], 1.0);
    }
    fill(&r, &p.W_O, 1.0);
    p.ablated = 1;
    Matrix targets;
    mat_init(&targets, 3, 4);
    fill(&r, &targets, 1.0);
    Trace t;
    TraceError err;
    trace_run(&t, &p, &err);
    AttnParams g;
    grads_init(&g, &p);
    attn_backward(&g, &p, &t, &targets, 1.0);
    double s0 = 0, s1 = 0;
    for (int i = 0; i < 8; i++) {
        s0 += fabs(g.W_Q[0].data[i]) + fabs(g.W_V[0].data[i]);
        s1 += fabs(g.W_V[1].data[i]);
    }
    CHECK(s0 == 0.0, "the ablated head 0 gets no gradient, got %g", s0);
    CHECK(s1 > 0.0, "head 1 does get a gradient");
    trace_free(&t);
    params_free(&g);
    mat_free(&targets);
    params_free(&p);
}

// The sequences: numpy's (default_rng(7).random(6) * 5).astype(int) (computed with NumPy 1.24).
static void test_draw(void)
{
    Rng r;
    rng_seed(&r, 7);
    double u[6];
    for (int i = 0; i < 6; i++) u[i] = rng_next_double(&r);
    int ids[6];
    train_draw_ids(ids, 6, 5, 7);
    for (int i = 0; i < 6; i++) CHECK(ids[i] == (int)(u[i] * 5), "id %d = floor(u * 5)", i);
    static const int numpy_ids[6] = {3, 4, 3, 1, 1, 4};
    for (int i = 0; i < 6; i++)
        CHECK(ids[i] == numpy_ids[i], "id %d: %d, NumPy %d", i, ids[i], numpy_ids[i]);
}

static void test_targets(void)
{
    Matrix vocab, t;
    mat_init(&vocab, 3, 4);
    for (int i = 0; i < 12; i++) vocab.data[i] = i + 1;
    mat_init(&t, 3, 4);
    int ids[3] = {2, 0, 1};
    train_targets(&t, TASK_PREVIOUS_TOKEN, &vocab, ids, 3);
    CHECK(mat_get(&t, 0, 0) == 9 && mat_get(&t, 1, 0) == 9 && mat_get(&t, 2, 3) == 4,
          "previous-token targets");
    train_targets(&t, TASK_FIRST_TOKEN, &vocab, ids, 3);
    CHECK(mat_get(&t, 0, 1) == 10 && mat_get(&t, 2, 1) == 10, "first-token targets");
    train_targets(&t, TASK_PREVIOUS_AND_FIRST, &vocab, ids, 3);
    // row 2: previous token 0 (1 2 ..) in columns 0-1, first token 2 (9 10 ..) in columns 2-3
    CHECK(mat_get(&t, 2, 0) == 1 && mat_get(&t, 2, 1) == 2 && mat_get(&t, 2, 2) == 9
              && mat_get(&t, 2, 3) == 10,
          "previous-and-first targets: %g %g %g %g", mat_get(&t, 2, 0), mat_get(&t, 2, 1),
          mat_get(&t, 2, 2), mat_get(&t, 2, 3));
    mat_free(&vocab);
    mat_free(&t);
}

// A small layer with one-hot tokens and positions, for the trainer.
static void small_layer(AttnParams *p, Matrix *vocab)
{
    params_init(p, 4, 4, 6, 1, 4);
    p->mask = MASK_CAUSAL;
    Rng r;
    rng_seed(&r, 11);
    fill(&r, &p->W_Q[0], 0.5);
    fill(&r, &p->W_K[0], 0.5);
    fill(&r, &p->W_V[0], 0.5);
    fill(&r, &p->W_O, 0.5);
    mat_init(vocab, 3, 6);
    for (int i = 0; i < 3; i++) mat_set(vocab, i, i, 1.0);
    for (int i = 0; i < 4; i++)
        memcpy(mat_row(&p->X, i), mat_row(vocab, i % 3), 6 * sizeof(double));
    params_set_positions(p, POS_EXPLICIT);
    for (int i = 0; i < 3; i++) mat_set(&p->P, i + 1, 3 + i, 1.0);
    params_apply_positions(p);
}

static void test_trainer(void)
{
    AttnParams p;
    Matrix vocab;
    small_layer(&p, &vocab);
    TrainSpec spec = {TASK_PREVIOUS_TOKEN, 16, 3, 40, 0.05};
    Trainer a, b;
    TraceError err;
    CHECK(train_init(&a, &p, &spec, &vocab, &err), "trainer starts: %s", err.message);
    CHECK(train_init(&b, &p, &spec, &vocab, &err), "second trainer starts");
    // Adam's first step moves every weight with a gradient by lr * g / (|g| + eps): about lr.
    params_copy_weights(&a.work, &a.p);
    CHECK(train_step(&a, &err), "step 1");
    double worst = 0;
    for (int i = 0; i < 24; i++) {
        double g = a.grad.W_Q[0].data[i], moved = p.W_Q[0].data[i] - a.p.W_Q[0].data[i];
        double want = 0.05 * g / (fabs(g) + TRAIN_ADAM_EPS);
        if (fabs(moved - want) > worst) worst = fabs(moved - want);
    }
    CHECK(worst < 1e-15, "Adam's first step is lr * g / (|g| + eps), off by %g", worst);
    while (a.step < spec.steps) train_step(&a, &err);
    while (b.step < spec.steps) train_step(&b, &err);
    CHECK(a.loss_count == spec.steps + 1 && b.loss_count == spec.steps + 1, "every loss known: %d",
          a.loss_count);
    CHECK(memcmp(a.loss, b.loss, sizeof(double) * (size_t)(spec.steps + 1)) == 0,
          "two runs, the same loss bits");
    CHECK(memcmp(a.p.W_Q[0].data, b.p.W_Q[0].data, 24 * sizeof(double)) == 0
              && memcmp(a.p.W_O.data, b.p.W_O.data, 24 * sizeof(double)) == 0,
          "two runs, the same weight bits");
    CHECK(a.loss[spec.steps] < a.loss[0], "the loss falls: %g -> %g", a.loss[0],
          a.loss[spec.steps]);
    // loss[k] is the loss of the weights after k steps: the checkpoint at step k evaluates to it.
    int every = a.checkpoint_every;
    CHECK(a.checkpoint_count == spec.steps / every + 1, "checkpoints: %d", a.checkpoint_count);
    double l;
    CHECK(train_evaluate(&a, &a.checkpoints[1].p, &l, &err), "evaluate checkpoint 1");
    CHECK(l == a.loss[a.checkpoints[1].step], "checkpoint step %d loss %.17g vs %.17g",
          a.checkpoints[1].step, l, a.loss[a.checkpoints[1].step]);
    train_reset(&a);
    CHECK(a.step == 0 && a.checkpoint_count == 1
              && memcmp(a.p.W_Q[0].data, p.W_Q[0].data, 24 * sizeof(double)) == 0,
          "reset: the initial weights");
    train_free(&a);
    train_free(&b);
    params_free(&p);
    mat_free(&vocab);
}

int main(void)
{
    uint64_t seed = 100;
    for (int mask = 0; mask < 2; mask++)
        for (int cross = 0; cross < 2; cross++)
            for (int pos = 0; pos < 3; pos++)
                for (int scale = 0; scale < 2; scale++) {
                    if (mask && cross) continue; // causal masking is for self-attention
                    test_combination(mask, cross, pos, scale, (int)(seed % 2), (int)(seed % 3 == 0),
                                     seed);
                    seed++;
                }
    test_combination(1, 0, 2, 1, 1, 1, 999);
    static const char *const files[] = {"the-cat-sat.json", "pytorch-layer.json",
                                        "cross-attention.json", "causal-decoder.json",
                                        "the-cat-sat-on-the-mat-positions.json"};
    for (int i = 0; i < 5; i++) test_lesson(files[i], 40 + (uint64_t)i);
    printf("finite differences: %d values, largest |analytic - central difference| %.3g\n",
           fd_values, worst_fd);
    test_ablated_zero();
    test_draw();
    test_targets();
    test_trainer();
    return check_report("test_grad");
}
