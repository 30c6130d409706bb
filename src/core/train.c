// Adam on the squared-error loss of a task's training sequences: full batch, sequences in order,
// one thread, so a run gives the same bits every time.
#include "core/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"

static const char *const TASK_KEYS[TASK_COUNT] = {"previous-token", "first-token",
                                                  "previous-and-first"};

const char *train_task_key(TrainTask t) { return (t >= 0 && t < TASK_COUNT) ? TASK_KEYS[t] : "?"; }

void train_targets(Matrix *targets, TrainTask task, const Matrix *vocab, const int *ids, int n)
{
    int d = vocab->cols, half = d / 2;
    for (int i = 0; i < n; i++) {
        const double *prev = mat_row(vocab, ids[i > 0 ? i - 1 : 0]);
        const double *first = mat_row(vocab, ids[0]);
        double *out = mat_row(targets, i);
        switch (task) {
        case TASK_PREVIOUS_TOKEN: memcpy(out, prev, (size_t)d * sizeof(double)); break;
        case TASK_FIRST_TOKEN: memcpy(out, first, (size_t)d * sizeof(double)); break;
        default:
            memset(out, 0, (size_t)d * sizeof(double));
            memcpy(out, prev, (size_t)half * sizeof(double));
            memcpy(out + half, first, (size_t)half * sizeof(double));
            break;
        }
    }
}

void train_draw_ids(int *ids, size_t count, int vocab, uint64_t seed)
{
    Rng rng;
    rng_seed(&rng, seed);
    for (size_t i = 0; i < count; i++) {
        int id = (int)(rng_next_double(&rng) * (double)vocab);
        ids[i] = id < vocab ? id : vocab - 1; // u < 1, so never needed; kept as a bound
    }
}

static void copy_values(Matrix *dst, const Matrix *src)
{
    if (src->data)
        memcpy(dst->data, src->data, (size_t)src->rows * (size_t)src->cols * sizeof(double));
}

// work's embeddings = the training sequence s: E (or X without positions) rows from the vocabulary,
// then X = E + P and S = X.
static void load_sequence(Trainer *tr, int s)
{
    AttnParams *w = &tr->work;
    Matrix *e = w->positions != POS_NONE ? &w->E : &w->X;
    for (int i = 0; i < w->n; i++)
        memcpy(mat_row(e, i), mat_row(&tr->vocab, tr->ids[(size_t)s * (size_t)w->n + (size_t)i]),
               (size_t)w->d_model * sizeof(double));
    if (w->positions != POS_NONE) params_apply_positions(w);
    else copy_values(&w->S, &w->X);
}

// The mean loss over the sequences of work's weights; with grad, tr->grad = its gradient (zeroed
// first).
static bool run_batch(Trainer *tr, bool grad, double *loss, TraceError *err)
{
    int count = tr->spec.sequences;
    double sum = 0.0, weight = 1.0 / (double)count;
    if (grad) grads_zero(&tr->grad);
    for (int s = 0; s < count; s++) {
        if (atomic_load(&tr->stop)) {
            if (err) snprintf(err->message, sizeof err->message, "stopped");
            return false;
        }
        load_sequence(tr, s);
        Trace t;
        if (!trace_run(&t, &tr->work, err)) return false;
        sum += attn_loss(&t, &tr->targets[s]);
        if (grad
            && atomic_load(
                &tr->stop)) { // between the forward and the backward pass too (Q waits less)
            trace_free(&t);
            if (err) snprintf(err->message, sizeof err->message, "stopped");
            return false;
        }
        bool ok = !grad || attn_backward(&tr->grad, &tr->work, &t, &tr->targets[s], weight);
        trace_free(&t);
        if (!ok) {
            if (err) snprintf(err->message, sizeof err->message, "out of memory");
            return false;
        }
    }
    *loss = sum / (double)count;
    return true;
}

bool train_evaluate(Trainer *tr, const AttnParams *weights, double *loss, TraceError *err)
{
    params_copy_weights(&tr->work, weights);
    return run_batch(tr, false, loss, err);
}

static bool add_checkpoint(Trainer *tr)
{
    if (tr->checkpoint_count == tr->checkpoint_cap)
        return false; // (checkpoint_every keeps them within the cap)
    TrainCheckpoint *c = &tr->checkpoints[tr->checkpoint_count];
    if (!params_copy(&c->p, &tr->p)) return false;
    c->step = tr->step;
    tr->checkpoint_count++;
    return true;
}

double train_step_multiply_adds(const AttnParams *p, int sequences)
{
    CostFigures c = cost_compute_cross(p->d_model, p->n, p->m, p->heads, p->d_k);
    double forward =
        (double)p->n * (double)c.projection_weights + 2.0 * (double)c.score_multiplications;
    return 3.0 * (double)sequences * forward;
}

bool train_check(const AttnParams *p, const TrainSpec *spec, TraceError *err)
{
    double macs = train_step_multiply_adds(p, spec->sequences);
    if (macs <= TRAIN_MAX_STEP_MULTIPLY_ADDS) return true;
    if (err) {
        CostFigures c = cost_compute_cross(p->d_model, p->n, p->m, p->heads, p->d_k);
        char w[32], s[32];
        err->stage = STAGE_INPUT;
        err->head = -1;
        snprintf(err->message, sizeof err->message,
                 "one training step would take %.3g multiply-adds (3 x %d sequences x (%d tokens x "
                 "%s projection "
                 "weights + 2 x %s score multiplications)); the bound is %.3g (about 10 s of one "
                 "core): use fewer "
                 "sequences or a smaller lesson",
                 macs, spec->sequences, p->n, cost_format_int(w, sizeof w, c.projection_weights),
                 cost_format_int(s, sizeof s, c.score_multiplications),
                 TRAIN_MAX_STEP_MULTIPLY_ADDS);
    }
    return false;
}

// How many checkpoints fit TRAIN_CHECKPOINT_BYTES (at least 2, at most TRAIN_CHECKPOINTS + 1) for
// weights like p.
static int checkpoint_capacity(const AttnParams *p)
{
    double values = 0;
    const Matrix *m[] = {&p->X, &p->S, &p->E, &p->P, &p->E_S, &p->P_S};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        values += (double)m[i]->rows * (double)m[i]->cols;
    for (int i = 0; i < PARAM_COUNT; i++)
        for (int h = 0; h < (PARAMS[i].per_head ? p->heads : 1); h++) {
            const Matrix *w = params_at_const(p, i, h);
            values += (double)w->rows * (double)w->cols;
        }
    double fit = TRAIN_CHECKPOINT_BYTES / (values * (double)sizeof(double));
    return fit >= TRAIN_CHECKPOINTS + 1 ? TRAIN_CHECKPOINTS + 1 : fit < 2 ? 2 : (int)fit;
}

bool train_init(Trainer *tr, const AttnParams *initial, const TrainSpec *spec, const Matrix *vocab,
                TraceError *err)
{
    memset(tr, 0, sizeof *tr);
    atomic_init(&tr->stop, false);
    if (!train_check(initial, spec, err)) return false;
    tr->spec = *spec;
    int n = initial->n, count = spec->sequences;
    tr->beta1_t = tr->beta2_t = 1.0;
    // A checkpoint every steps / k steps (rounded up) makes at most k after step 0, the last among
    // them or after them (k of them only when they end at the last): k + 1 in all, the capacity.
    tr->checkpoint_cap = checkpoint_capacity(initial);
    int k = tr->checkpoint_cap - 1;
    tr->checkpoint_every = (spec->steps + k - 1) / k;
    if (tr->checkpoint_every < 1) tr->checkpoint_every = 1;
    bool ok = (tr->checkpoints = calloc((size_t)tr->checkpoint_cap, sizeof *tr->checkpoints))
              && params_copy(&tr->p, initial) && params_copy(&tr->work, initial)
              && grads_init(&tr->grad, initial) && grads_init(&tr->m, initial)
              && grads_init(&tr->v, initial) && mat_copy(&tr->vocab, vocab)
              && (tr->ids = malloc((size_t)count * (size_t)n * sizeof(int)))
              && (tr->targets = calloc((size_t)count, sizeof(Matrix)))
              && (tr->loss = malloc(((size_t)spec->steps + 1) * sizeof(double)));
    for (int s = 0; ok && s < count; s++) ok = mat_init(&tr->targets[s], n, initial->d_model);
    if (!ok) {
        train_free(tr);
        return trace_error_oom(err);
    }
    tr->p.req.ablated = tr->work.req.ablated = 0;
    train_draw_ids(tr->ids, (size_t)count * (size_t)n, vocab->rows, spec->seed);
    for (int s = 0; s < count; s++)
        train_targets(&tr->targets[s], spec->task, vocab, tr->ids + (size_t)s * (size_t)n, n);
    double loss;
    if (!train_evaluate(tr, &tr->p, &loss, err)) {
        train_free(tr);
        return false;
    }
    tr->loss[0] = loss;
    tr->loss_count = 1;
    if (!add_checkpoint(tr)) {
        train_free(tr);
        return trace_error_oom(err);
    }
    return true;
}

void train_free(Trainer *tr)
{
    params_free(&tr->p);
    params_free(&tr->work);
    params_free(&tr->grad);
    params_free(&tr->m);
    params_free(&tr->v);
    mat_free(&tr->vocab);
    free(tr->ids);
    if (tr->targets)
        for (int s = 0; s < tr->spec.sequences; s++) mat_free(&tr->targets[s]);
    free(tr->targets);
    free(tr->loss);
    for (int i = 0; i < tr->checkpoint_count; i++) params_free(&tr->checkpoints[i].p);
    free(tr->checkpoints);
    memset(tr, 0, sizeof *tr);
}

// p -= lr * m_hat / (sqrt(v_hat) + eps) for one matrix, with m, v updated from the gradient g.
// p, g, m, v (rows, cols) alike.
void train_adam_update(Matrix *p, Matrix *m, Matrix *v, const Matrix *g, double lr, double c1,
                       double c2)
{
    size_t count = (size_t)p->rows * (size_t)p->cols;
    for (size_t i = 0; i < count; i++) {
        double gi = g->data[i];
        m->data[i] = TRAIN_ADAM_BETA1 * m->data[i] + (1.0 - TRAIN_ADAM_BETA1) * gi;
        v->data[i] = TRAIN_ADAM_BETA2 * v->data[i] + (1.0 - TRAIN_ADAM_BETA2) * (gi * gi);
        double m_hat = m->data[i] / c1, v_hat = v->data[i] / c2;
        p->data[i] -= lr * m_hat / (sqrt(v_hat) + TRAIN_ADAM_EPS);
    }
}

bool train_step(Trainer *tr, TraceError *err)
{
    if (tr->step >= tr->spec.steps) return true;
    double loss;
    params_copy_weights(&tr->work, &tr->p);
    if (!run_batch(tr, true, &loss, err)) return false;
    tr->beta1_t *= TRAIN_ADAM_BETA1;
    tr->beta2_t *= TRAIN_ADAM_BETA2;
    double c1 = 1.0 - tr->beta1_t, c2 = 1.0 - tr->beta2_t;
    Matrix *pl[6 * 64 + 2], *ml[6 * 64 + 2], *vl[6 * 64 + 2], *gl[6 * 64 + 2];
    if (tr->p.heads > 64) return trace_error_oom(err);
    int count = params_trainable(pl, &tr->p);
    params_trainable(ml, &tr->m);
    params_trainable(vl, &tr->v);
    params_trainable(gl, &tr->grad);
    for (int i = 0; i < count; i++)
        train_adam_update(pl[i], ml[i], vl[i], gl[i], tr->spec.learning_rate, c1, c2);
    tr->loss[tr->step] =
        loss; // the loss of the weights before this step (known already but for step 0)
    tr->step++;
    tr->loss_count = tr->step;
    if (tr->step
        == tr->spec
               .steps) { // the last loss needs one more pass; the others come with the next step
        if (!train_evaluate(tr, &tr->p, &loss, err)) return false;
        tr->loss[tr->step] = loss;
        tr->loss_count = tr->step + 1;
    }
    if ((tr->step % tr->checkpoint_every == 0 || tr->step == tr->spec.steps) && !add_checkpoint(tr))
        return trace_error_oom(err);
    return true;
}

void train_reset(Trainer *tr)
{
    params_copy_weights(&tr->p, &tr->checkpoints[0].p);
    for (int i = 1; i < tr->checkpoint_count; i++) params_free(&tr->checkpoints[i].p);
    tr->checkpoint_count = 1;
    grads_zero(&tr->m);
    grads_zero(&tr->v);
    tr->step = 0;
    tr->beta1_t = tr->beta2_t = 1.0;
    tr->loss_count = 1;
}
