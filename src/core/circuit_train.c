// Training a circuit on the induction task (circuit_train.h): the sequences, the scores, and Adam
// (the same update as train.c's) on gradients summed in sequence order, whichever worker computed
// each.
#include "core/circuit_train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/train.h"
#include "platform/platform.h"

void circuit_draw_induction(int *ids, int *period, int n, int vocab, int period_min, int period_max,
                            Rng *rng)
{
    int span = period_max - period_min + 1;
    int p = period_min + (int)(rng_next_double(rng) * (double)span);
    if (p > period_max) p = period_max;
    int pattern[256];
    for (int k = 0; k < p; k++) {
        bool seen;
        do {
            int t = (int)(rng_next_double(rng) * (double)vocab);
            pattern[k] = t < vocab ? t : vocab - 1;
            seen = false;
            for (int j = 0; j < k; j++) seen = seen || pattern[j] == pattern[k];
        } while (seen);
    }
    for (int i = 0; i < n; i++) ids[i] = pattern[i % p];
    *period = p;
}

bool circuit_scores_init(CircuitScores *s, const Circuit *c)
{
    memset(s, 0, sizeof *s);
    size_t count = (size_t)c->layers * (size_t)c->shape.heads;
    s->prev_token = calloc(count ? count : 1, sizeof(double));
    s->induction = calloc(count ? count : 1, sizeof(double));
    if (s->prev_token && s->induction) return true;
    circuit_scores_free(s);
    return false;
}

void circuit_scores_free(CircuitScores *s)
{
    free(s->prev_token);
    free(s->induction);
    memset(s, 0, sizeof *s);
}

// Adds one run's attention scores: sums (layers * heads) of A[i][i-1] over i >= 1 and of the
// induction attention over the repeated positions.
static void add_attention(CircuitScores *s, const CircuitRun *r, int p)
{
    int n = r->n;
    for (int l = 0; l < r->layers; l++)
        for (int h = 0; h < r->trace[l].heads; h++) {
            const Matrix *A = &r->trace[l].head[h].weights;
            size_t at = (size_t)l * (size_t)r->trace[l].heads + (size_t)h;
            double prev = 0.0, ind = 0.0;
            for (int i = 1; i < n; i++) prev += mat_row(A, i)[i - 1];
            for (int i = p; i < n; i++)
                for (int j = i - p + 1; j >= 1; j -= p) ind += mat_row(A, i)[j];
            s->prev_token[at] += prev;
            s->induction[at] += ind;
        }
}

bool circuit_measure(CircuitScores *s, const Circuit *c, const AttnConfig *settings, const int *ids,
                     const int *period, int count, int n, const uint64_t *ablated, TraceError *err)
{
    size_t cells = (size_t)c->layers * (size_t)c->shape.heads;
    memset(s->prev_token, 0, cells * sizeof(double));
    memset(s->induction, 0, cells * sizeof(double));
    double loss = 0.0, rloss = 0.0;
    long right = 0, repeats = 0, prev_count = 0, ind_count = 0;
    for (int q = 0; q < count; q++) {
        const int *seq = ids + (size_t)q * (size_t)n;
        CircuitRun r;
        if (!circuit_run(&r, c, settings, seq, n, ablated, err)) return false;
        loss += r.loss;
        for (int i = period[q] - 1; i + 1 < n; i++) {
            const double *row = mat_row(&r.logits, i);
            int best = 0;
            for (int v = 1; v < c->vocab; v++)
                if (row[v] > row[best]) best = v;
            right += best == seq[i + 1];
            rloss += circuit_cross_entropy(&r.logits, i, seq[i + 1]);
            repeats++;
        }
        add_attention(s, &r, period[q]);
        prev_count += n - 1;
        ind_count += n > period[q] ? n - period[q] : 0;
        circuit_run_free(&r);
    }
    s->loss = count ? loss / count : 0.0;
    s->repeat_loss = repeats ? rloss / (double)repeats : 0.0;
    s->repeat_accuracy = repeats ? (double)right / (double)repeats : 0.0;
    for (size_t k = 0; k < cells; k++) {
        s->prev_token[k] = prev_count ? s->prev_token[k] / (double)prev_count : 0.0;
        s->induction[k] = ind_count ? s->induction[k] / (double)ind_count : 0.0;
    }
    return true;
}

void circuit_train_free(CircuitTrainer *tr)
{
    circuit_free(&tr->c);
    circuit_free(&tr->m);
    circuit_free(&tr->v);
    circuit_free(&tr->total);
    if (tr->each)
        for (int s = 0; s < tr->spec.sequences; s++) circuit_free(&tr->each[s]);
    free(tr->each);
    free(tr->ids);
    free(tr->period);
    free(tr->eval_ids);
    free(tr->eval_period);
    free(tr->seq_loss);
    memset(tr, 0, sizeof *tr);
}

bool circuit_train_init(CircuitTrainer *tr, const Circuit *initial, const AttnConfig *settings,
                        const CircuitTrainSpec *spec, bool learn_positions, TraceError *err)
{
    memset(tr, 0, sizeof *tr);
    tr->spec = *spec;
    tr->settings = *settings;
    tr->learn_positions = learn_positions;
    tr->n = initial->n_ctx;
    tr->beta1_t = tr->beta2_t = 1.0;
    size_t S = (size_t)spec->sequences, n = (size_t)tr->n, E = CIRCUIT_EVAL_SEQUENCES;
    bool ok = circuit_copy(&tr->c, initial) && circuit_copy(&tr->m, initial)
              && circuit_copy(&tr->v, initial) && circuit_copy(&tr->total, initial)
              && (tr->each = calloc(S, sizeof *tr->each)) && (tr->ids = malloc(S * n * sizeof(int)))
              && (tr->period = malloc(S * sizeof(int)))
              && (tr->eval_ids = malloc(E * n * sizeof(int)))
              && (tr->eval_period = malloc(E * sizeof(int)))
              && (tr->seq_loss = malloc(S * sizeof(double)));
    for (size_t s = 0; ok && s < S; s++) ok = circuit_copy(&tr->each[s], initial);
    if (!ok) {
        circuit_train_free(tr);
        return trace_error_oom(err);
    }
    circuit_zero(&tr->m);
    circuit_zero(&tr->v);
    rng_seed(&tr->rng, spec->seed);
    Rng eval;
    rng_seed(&eval, spec->seed + 1);
    for (size_t q = 0; q < E; q++)
        circuit_draw_induction(tr->eval_ids + q * n, &tr->eval_period[q], tr->n, initial->vocab,
                               spec->period_min, spec->period_max, &eval);
    return true;
}

// Sequences s0 .. s1-1 of the batch, for one worker: each its own gradient into each[s] (zeroed
// first) and its loss; each touches only its own, so the numbers do not depend on the split.
typedef struct {
    CircuitTrainer *tr;
    int s0, s1;
    bool ok;
    TraceError err;
} BatchJob;

static int batch_job(void *arg)
{
    BatchJob *job = arg;
    CircuitTrainer *tr = job->tr;
    double weight = 1.0 / (double)tr->spec.sequences;
    job->ok = true;
    for (int s = job->s0; job->ok && s < job->s1; s++) {
        const int *ids = tr->ids + (size_t)s * (size_t)tr->n;
        CircuitRun r;
        if (!(job->ok = circuit_run(&r, &tr->c, &tr->settings, ids, tr->n, NULL, &job->err))) break;
        tr->seq_loss[s] = r.loss;
        circuit_zero(&tr->each[s]);
        job->ok = circuit_backward(&tr->each[s], &tr->c, &tr->settings, &r, ids, NULL, weight);
        if (!job->ok) trace_error_oom(&job->err);
        circuit_run_free(&r);
    }
    return 0;
}

// The step's gradient: total = each[0] + each[1] + ... in sequence order, matrix by matrix.
static bool sum_gradients(CircuitTrainer *tr)
{
    int cap = circuit_matrix_cap(&tr->c);
    Matrix **t = malloc((size_t)cap * sizeof *t), **e = malloc((size_t)cap * sizeof *e);
    if (!t || !e) {
        free(t), free(e);
        return false;
    }
    int count = circuit_matrices(t, &tr->total, true);
    circuit_zero(&tr->total);
    for (int s = 0; s < tr->spec.sequences; s++) {
        circuit_matrices(e, &tr->each[s], true);
        for (int k = 0; k < count; k++) {
            size_t size = (size_t)t[k]->rows * (size_t)t[k]->cols;
            for (size_t i = 0; i < size; i++) t[k]->data[i] += e[k]->data[i];
        }
    }
    free(t), free(e);
    return true;
}

static bool adam_step(CircuitTrainer *tr)
{
    int cap = circuit_matrix_cap(&tr->c);
    Matrix **p = malloc(4 * (size_t)cap * sizeof *p);
    if (!p) return false;
    Matrix **m = p + cap, **v = m + cap, **g = v + cap;
    int count = circuit_matrices(p, &tr->c, tr->learn_positions);
    circuit_matrices(m, &tr->m, tr->learn_positions);
    circuit_matrices(v, &tr->v, tr->learn_positions);
    circuit_matrices(g, &tr->total, tr->learn_positions);
    tr->beta1_t *= TRAIN_ADAM_BETA1;
    tr->beta2_t *= TRAIN_ADAM_BETA2;
    double c1 = 1.0 - tr->beta1_t, c2 = 1.0 - tr->beta2_t;
    for (int k = 0; k < count; k++)
        train_adam_update(p[k], m[k], v[k], g[k], tr->spec.learning_rate, c1, c2);
    free(p);
    return true;
}

#define CIRCUIT_MAX_WORKERS 8

bool circuit_train_step(CircuitTrainer *tr, TraceError *err)
{
    int S = tr->spec.sequences;
    for (int s = 0; s < S; s++)
        circuit_draw_induction(tr->ids + (size_t)s * (size_t)tr->n, &tr->period[s], tr->n,
                               tr->c.vocab, tr->spec.period_min, tr->spec.period_max, &tr->rng);
    int parts = platform_cpu_count();
    if (parts > CIRCUIT_MAX_WORKERS) parts = CIRCUIT_MAX_WORKERS;
    if (parts > S) parts = S;
    if (parts < 1) parts = 1;
    BatchJob jobs[CIRCUIT_MAX_WORKERS];
    for (int i = 0; i < parts; i++)
        jobs[i] = (BatchJob){.tr = tr, .s0 = S * i / parts, .s1 = S * (i + 1) / parts};
    platform_run_jobs(batch_job, jobs, sizeof jobs[0], parts);
    for (int i = 0; i < parts; i++)
        if (!jobs[i].ok) {
            if (err) *err = jobs[i].err;
            return false;
        }
    double loss = 0.0;
    for (int s = 0; s < S; s++) loss += tr->seq_loss[s];
    tr->last_loss = loss / (double)S;
    if (!sum_gradients(tr) || !adam_step(tr)) return trace_error_oom(err);
    tr->step++;
    return true;
}

bool circuit_train_measure(CircuitTrainer *tr, CircuitScores *s, const uint64_t *ablated,
                           TraceError *err)
{
    return circuit_measure(s, &tr->c, &tr->settings, tr->eval_ids, tr->eval_period,
                           CIRCUIT_EVAL_SEQUENCES, tr->n, ablated, err);
}
