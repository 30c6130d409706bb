// Runs the stages of multi-head attention, keeps every intermediate in a Trace, and says where and
// why a run failed (the stage, the head, and for an overflow the input that made it).
#include "core/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"

#define TRACE_STAGE_KEY(id, key, ...) [id] = key,
static const char *const STAGE_KEYS[STAGE_COUNT] = {STAGE_TABLE(TRACE_STAGE_KEY, TRACE_STAGE_KEY)};
#undef TRACE_STAGE_KEY

// The display-only stages' functions (the compute column of SHOWN rows): out (its shape) from the
// finished trace t; false when out of memory or when a number is not finite.
#define TRACE_SHOWN_DECL(id, key, compute, ...)                                                    \
    static bool compute(Matrix *out, const Trace *t, const AttnParams *p);
STAGE_TABLE(STAGE_TABLE_SKIP, TRACE_SHOWN_DECL)
#undef TRACE_SHOWN_DECL

const char *stage_key(Stage s) { return (s >= 0 && s < STAGE_COUNT) ? STAGE_KEYS[s] : "?"; }

double trace_shuffle_difference(const Trace *original, const Trace *shuffled, const int *perm)
{
    double worst = 0.0;
    const Matrix *a = &original->output, *b = &shuffled->output;
    for (int i = 0; i < b->rows; i++)
        for (int j = 0; j < b->cols; j++) {
            double d = fabs(mat_get(b, i, j) - mat_get(a, perm[i], j));
            if (d > worst) worst = d;
        }
    return worst;
}

bool trace_shuffle_same(const Trace *original, double difference)
{
    double big = 1.0;
    size_t count = (size_t)original->output.rows * (size_t)original->output.cols;
    for (size_t i = 0; i < count; i++)
        if (fabs(original->output.data[i]) > big) big = fabs(original->output.data[i]);
    return difference <= 1e-12 * big;
}

static void head_free(HeadTrace *ht)
{
    mat_free(&ht->Q);
    mat_free(&ht->K);
    mat_free(&ht->V);
    mat_free(&ht->Q_rot);
    mat_free(&ht->K_rot);
    mat_free(&ht->Q_shift);
    mat_free(&ht->K_shift);
    mat_free(&ht->scores_shift);
    mat_free(&ht->scores);
    mat_free(&ht->scaled);
    mat_free(&ht->weights);
    mat_free(&ht->Z);
    mat_free(&ht->entropy);
}

double trace_values(int n, int m, int d_model, int heads, int d_k, bool rope)
{
    double per_head = 2.0 * n * d_k + 2.0 * m * d_k + 3.0 * n * m;
    if (rope)
        per_head += 2.0 * (n + (double)m) * d_k
                    + (double)n * m; // Q_rot, K_rot; Q_shift, K_shift; scores_shift
    return heads * per_head + (double)n * heads * d_k + (double)n * d_model;
}

void trace_free(Trace *t)
{
    if (t->head)
        for (int h = 0; h < t->heads; h++) head_free(&t->head[h]);
    free(t->head);
    mat_free(&t->concat);
    mat_free(&t->output);
    mat_free(&t->full_output);
    for (int s = 0; s < STAGE_COUNT; s++) mat_free(&t->shown[s]);
    memset(t, 0, sizeof *t);
}

bool trace_error_oom(TraceError *err)
{
    if (err) {
        err->stage = STAGE_INPUT;
        err->head = -1;
        snprintf(err->message, sizeof err->message, "out of memory");
    }
    return false;
}

static bool fail(TraceError *err, Stage stage, int head, const char *message)
{
    if (err) {
        err->stage = stage;
        err->head = head;
        if (head >= 0)
            snprintf(err->message, sizeof err->message, "stage '%s', head %d: %s", stage_key(stage),
                     head, message);
        else
            snprintf(err->message, sizeof err->message, "stage '%s': %s", stage_key(stage),
                     message);
    }
    return false;
}

// ---------------------------------------------------------------------------------------------------
// Where a trace overflowed, in the lesson's terms: the first cell that became infinite or NaN and
// the product of inputs that made it (the largest term of its sum), so the message names the field
// to fix.

// The term k of row r of a (n, K) times column c of b (K, p) with the largest magnitude (a
// non-finite product counts as the largest); b_t: b is given transposed (p, K), as K is for the
// scores.
static int largest_term(const Matrix *a, int r, const Matrix *b, int c, bool b_t)
{
    int best = 0;
    double best_mag = -1.0;
    for (int k = 0; k < a->cols; k++) {
        double x = mat_row(a, r)[k], y = b_t ? mat_row(b, c)[k] : mat_row(b, k)[c];
        double mag = fabs(x * y);
        if (!isfinite(mag)) mag = INFINITY;
        if (mag > best_mag) best_mag = mag, best = k;
        if (isinf(best_mag)) break;
    }
    return best;
}

// The first non-finite cell of m (row-major order); false when every value is finite.
static bool first_bad(const Matrix *m, int *r, int *c)
{
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++)
            if (!isfinite(mat_row(m, i)[j])) {
                *r = i;
                *c = j;
                return true;
            }
    return false;
}

static const char *what(double v) { return isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf"; }

// Head h's projection `which` (0: Q, 1: K, 2: V; the rows W_Q, W_K, W_V of PARAMS, their biases
// three rows on) of x by the layer's weights, as trace_run makes it, and, when it has a non-finite
// cell, the sentence naming the product that made it.
static bool projection_overflow(char *out, size_t cap, const Matrix *x, const char *x_path,
                                const LayerWeights *lw, int which, int h)
{
    const Matrix *w = layer_weights_at_const(lw, which, h),
                 *b = layer_weights_at_const(lw, which + 3, h);
    const char *name = which == 0 ? "Q" : which == 1 ? "K" : "V";
    Matrix q;
    if (!mat_init(&q, x->rows, w->cols)) return false;
    attn_project(&q, x, w, b);
    int r, c;
    bool found = first_bad(&q, &r, &c);
    if (found) {
        int k = largest_term(x, r, w, c, false);
        snprintf(
            out, cap,
            "head %d: %s[%d][%d] is %s, from %s[%d][%d] = %.6g times weights.%s[%d][%d][%d] = %.6g",
            h, name, r, c, what(mat_row(&q, r)[c]), x_path, r, k, mat_row(x, r)[k],
            PARAMS[which].name, h, k, c, mat_row(w, k)[c]);
    }
    mat_free(&q);
    return found;
}

// err is a failed run's error (a value overflowed at err->stage, in head err->head). Recomputes
// what is needed from p and the layer's weights w and appends, in parentheses, the first cell that
// became infinite or NaN and the product that made it with the lesson's field paths, e.g. "(head 1:
// Q[0][1] is +inf, from embeddings[0][2] = 1e+200 times weights.W_Q[1][2][1] = 1e+200)". Leaves err
// alone when nothing more can be said.
static void overflow_detail(const AttnParams *p, const LayerWeights *w, TraceError *err)
{
    if (!err) return;
    char detail[300] = "";
    int h = err->head, r, c;
    const char *src_path = p->cross ? "source.embeddings" : "embeddings";
    if (err->stage == STAGE_PROJECT && h >= 0 && h < p->heads) {
        if (!projection_overflow(detail, sizeof detail, &p->X, "embeddings", w, 0, h))
            if (!projection_overflow(detail, sizeof detail, &p->S, src_path, w, 1, h))
                projection_overflow(detail, sizeof detail, &p->S, src_path, w, 2, h);
    } else if ((err->stage == STAGE_SCORES || err->stage == STAGE_WEIGHTED_SUM) && h >= 0
               && h < p->heads) {
        Matrix Q, K, V, S;
        memset(&Q, 0, sizeof Q), memset(&K, 0, sizeof K), memset(&V, 0, sizeof V),
            memset(&S, 0, sizeof S);
        if (mat_init(&Q, p->n, p->d_k) && mat_init(&K, p->m, p->d_k) && mat_init(&V, p->m, p->d_k)
            && mat_init(&S, p->n, p->m)) {
            attn_project(&Q, &p->X, &w->W_Q[h], &w->b_Q[h]);
            attn_project(&K, &p->S, &w->W_K[h], &w->b_K[h]);
            attn_scores(&S, &Q, &K);
            if (err->stage == STAGE_SCORES && first_bad(&S, &r, &c)) {
                int k = largest_term(&Q, r, &K, c, true);
                snprintf(detail, sizeof detail,
                         "head %d: the score of row %d, column %d is %s, from Q[%d][%d] = %.6g "
                         "times K[%d][%d] = %.6g "
                         "(smaller embeddings, W_Q or W_K)",
                         h, r, c, what(mat_row(&S, r)[c]), r, k, mat_row(&Q, r)[k], c, k,
                         mat_row(&K, c)[k]);
            } else if (err->stage == STAGE_WEIGHTED_SUM) {
                attn_project(&V, &p->S, &w->W_V[h], &w->b_V[h]);
                int bad_r = 0, bad_c = 0;
                if (first_bad(&V, &bad_r, &bad_c))
                    snprintf(detail, sizeof detail, "head %d: V[%d][%d] is %s", h, bad_r, bad_c,
                             what(mat_row(&V, bad_r)[bad_c]));
                else {
                    double big = 0;
                    for (int i = 0; i < V.rows; i++)
                        for (int j = 0; j < V.cols; j++)
                            if (fabs(mat_row(&V, i)[j]) > big)
                                big = fabs(mat_row(&V, i)[j]), bad_r = i, bad_c = j;
                    snprintf(detail, sizeof detail,
                             "head %d: the weighted sum of the values overflows; the largest value "
                             "is V[%d][%d] = %.6g "
                             "(smaller embeddings or W_V)",
                             h, bad_r, bad_c, big);
                }
            }
        }
        mat_free(&Q), mat_free(&K), mat_free(&V), mat_free(&S);
    } else if (err->stage == STAGE_SCALE && h >= 0 && h < p->heads) {
        // Only a lesson's own "scale" (or the window's slider) can overflow finite scores.
        snprintf(detail, sizeof detail,
                 "head %d: a score times \"scale\" = %.6g is beyond the largest double "
                 "(a smaller scale)",
                 h, p->scale);
    } else if (err->stage == STAGE_OUTPUT) {
        // The output is concat (n, h·d_k) @ W_O: recomputed from the heads' Z would need the whole
        // trace; the largest product of W_O's column with any Z value is what can be named without
        // it.
        int best_j = 0, best_c = 0;
        double best = -1;
        for (int j = 0; j < w->W_O.rows; j++)
            for (int cc = 0; cc < w->W_O.cols; cc++) {
                double v = fabs(mat_row(&w->W_O, j)[cc]);
                if (v > best) best = v, best_j = j, best_c = cc;
            }
        snprintf(detail, sizeof detail,
                 "the output Concat · W^O overflows; the largest number of W^O is "
                 "weights.W_O[%d][%d] = %.6g "
                 "(smaller W_O, or values V)",
                 best_j, best_c, best);
    }
    if (!detail[0]) return;
    size_t used = strlen(err->message);
    snprintf(err->message + used, sizeof err->message - used, " (%s)", detail);
}

// ---------------------------------------------------------------------------------------------------
// The run

#define OVERFLOW_MSG "a value overflowed to infinity or NaN; use smaller embeddings or weights"

// Heads h0 .. h1-1 of a trace, for one thread. Each head reads only p, w and req and writes only
// its own HeadTrace, so the numbers are the same whichever thread runs it.
typedef struct {
    Trace *t;
    const AttnParams *p; // the settings and the inputs
    const LayerWeights *w; // the layer's weights
    const AttnRequest *req; // what the run asks
    int h0, h1;
    Stage *failed; // [heads]
    const RopeTable *rope; // [2]: at positions 0 .. and rope_shift ..
} HeadJob;

// One head's stages, Q_i, K_i, V_i to Z_i, into ht (already allocated). Returns the stage where a
// non-finite number first appeared, or STAGE_COUNT when all is well.
// rope[0], rope[1]: the RoPE turns at positions 0 .. and rope_shift .., made once for all the
// heads.
static Stage run_head(HeadTrace *ht, const HeadJob *job, int h)
{
    const AttnParams *p = job->p;
    const LayerWeights *w = job->w;
    const RopeTable *rope = job->rope;
    attn_project(&ht->Q, &p->X, &w->W_Q[h], &w->b_Q[h]);
    attn_project(&ht->K, &p->S, &w->W_K[h], &w->b_K[h]); // the group's K/V head's (shared numbers)
    attn_project(&ht->V, &p->S, &w->W_V[h], &w->b_V[h]);
    if (!mat_all_finite(&ht->Q, false) || !mat_all_finite(&ht->K, false)
        || !mat_all_finite(&ht->V, false))
        return STAGE_PROJECT;
    const Matrix *q = &ht->Q, *k = &ht->K;
    if (p->rope != ROPE_NONE) {
        attn_rope_apply(&ht->Q_rot, &ht->Q, p->rope, &rope[0], +1);
        attn_rope_apply(&ht->K_rot, &ht->K, p->rope, &rope[0], +1);
        q = &ht->Q_rot, k = &ht->K_rot;
        if (!mat_all_finite(q, false) || !mat_all_finite(k, false))
            return STAGE_ROTATE; // near DBL_MAX only
        if (job->req->rope_shift > 0) { // RoPE's point: every position p + k, the same scores up
                                        // to rounding
            attn_rope_apply(&ht->Q_shift, &ht->Q, p->rope, &rope[1], +1);
            attn_rope_apply(&ht->K_shift, &ht->K, p->rope, &rope[1], +1);
            attn_scores(&ht->scores_shift, &ht->Q_shift, &ht->K_shift);
        }
    }
    attn_scores(&ht->scores, q, k);
    if (!mat_all_finite(&ht->scores, false)) return STAGE_SCORES;
    if (p->scale > 0) attn_scale_by(&ht->scaled, &ht->scores, p->scale);
    else attn_scale(&ht->scaled, &ht->scores, p->d_k);
    if (p->mask == MASK_CAUSAL) attn_mask_window(&ht->scaled, p->window);
    if (!mat_all_finite(&ht->scaled, p->mask == MASK_CAUSAL)) return STAGE_SCALE; // a huge scale
    mat_softmax_rows(&ht->weights, &ht->scaled);
    attn_entropy(&ht->entropy, &ht->weights);
    attn_weighted_sum(&ht->Z, &ht->weights, &ht->V);
    if (!mat_all_finite(&ht->Z, false)) return STAGE_WEIGHTED_SUM;
    return STAGE_COUNT;
}

static int run_heads(void *arg)
{
    HeadJob *job = arg;
    for (int h = job->h0; h < job->h1; h++) job->failed[h] = run_head(&job->t->head[h], job, h);
    return 0;
}

// Below this many multiply-adds per trace a second thread costs more than it saves.
#define TRACE_THREAD_MIN_WORK 2000000.0
// At most this many threads for one trace (a classroom's machine has 2 to 8 cores).
#define TRACE_MAX_THREADS 8

// How many threads a trace of this much work splits over: 1 below TRACE_THREAD_MIN_WORK, else one a
// core, at most parts (heads, or blocks of rows), TRACE_MAX_THREADS, and one per half of
// TRACE_THREAD_MIN_WORK (starting a thread costs about what a thread does with less).
static int thread_count(double work, int parts)
{
    if (work < TRACE_THREAD_MIN_WORK || parts < 2) return 1;
    int n = platform_cpu_count();
    if (n > parts) n = parts;
    if ((double)n > work / (TRACE_THREAD_MIN_WORK / 2))
        n = (int)(work / (TRACE_THREAD_MIN_WORK / 2));
    return n > TRACE_MAX_THREADS ? TRACE_MAX_THREADS : n < 1 ? 1 : n;
}

// fn(job i) for i = 0 .. count-1 (jobs of size bytes each), job 0 on this thread, the others on the
// platform's workers (kept between traces: starting a thread per part cost a paper-sized trace ~10
// %).
static void run_jobs(int (*fn)(void *), void *jobs, size_t size, int count)
{
    platform_run_jobs(fn, jobs, size, count);
}

typedef struct {
    Matrix *out;
    const Matrix *a, *b;
    int c0, c1;
} MatmulJob;

static int matmul_job(void *arg)
{
    MatmulJob *job = arg;
    if (job->c1 > job->c0) mat_matmul_cols(job->out, job->a, job->b, job->c0, job->c1);
    return 0;
}

// out (n, p) = a (n, k) @ b (k, p), the columns split over the cores when there are many (each
// column is computed exactly as one mat_matmul would, so the bits do not depend on the split; by
// columns, not rows, each thread packs only its part of b, as W_O is read once a trace).
static void matmul_threads(Matrix *out, const Matrix *a, const Matrix *b)
{
    int p = b->cols, parts = thread_count((double)a->rows * a->cols * p, p / 64);
    if (parts < 2) {
        mat_matmul(out, a, b);
        return;
    }
    MatmulJob jobs[TRACE_MAX_THREADS];
    for (int i = 0; i < parts;
         i++) { // columns [c0, c1), in multiples of 16 (whole panels of the kernels)
        int c0 = (int)((long)p * i / parts) & ~15,
            c1 = i + 1 == parts ? p : (int)((long)p * (i + 1) / parts) & ~15;
        jobs[i] = (MatmulJob){out, a, b, c0, c1};
    }
    run_jobs(matmul_job, jobs, sizeof jobs[0], parts);
}

// Allocates every head's matrices; false with *bad_head the first head that could not have them.
static bool heads_init(Trace *t, const AttnParams *p, const AttnRequest *req, int *bad_head)
{
    for (int h = 0; h < p->heads; h++) {
        HeadTrace *ht = &t->head[h];
        if (!mat_init(&ht->Q, p->n, p->d_k) || !mat_init(&ht->K, p->m, p->d_k)
            || !mat_init(&ht->V, p->m, p->d_k) || !mat_init(&ht->scores, p->n, p->m)
            || !mat_init(&ht->scaled, p->n, p->m) || !mat_init(&ht->weights, p->n, p->m)
            || !mat_init(&ht->Z, p->n, p->d_k) || !mat_init(&ht->entropy, p->n, 1)
            || (p->rope != ROPE_NONE
                && (!mat_init(&ht->Q_rot, p->n, p->d_k) || !mat_init(&ht->K_rot, p->m, p->d_k)))
            || (p->rope != ROPE_NONE && req->rope_shift > 0
                && (!mat_init(&ht->Q_shift, p->n, p->d_k) || !mat_init(&ht->K_shift, p->m, p->d_k)
                    || !mat_init(&ht->scores_shift, p->n, p->m)))) {
            *bad_head = h;
            return false;
        }
    }
    return true;
}

// RoPE's cos and sin once for every head (each head turning its own rows recomputed them heads
// × 2 times): rope[0] from position 0, rope[1] from rope_shift. False when out of memory.
static bool rope_tables_init(RopeTable rope[2], const AttnParams *p, const AttnRequest *req)
{
    if (p->rope == ROPE_NONE) return true;
    int d_k = req->rope_block > 0 && req->rope_block < p->d_k ? req->rope_block : p->d_k;
    int rows = p->n > p->m ? p->n : p->m;
    const RopeScale *scale = &p->rope_scale;
    if (!attn_rope_table_init_scaled(&rope[0], p->rope_base, scale, d_k, 0, rows)
        || (req->rope_shift > 0
            && !attn_rope_table_init_scaled(&rope[1], p->rope_base, scale, d_k, req->rope_shift,
                                            rows))) {
        attn_rope_table_free(&rope[0]);
        return false;
    }
    return true;
}

// Runs every head of all->t (all: the whole run as one job; all->failed[h] is set by each head);
// false with the first head that overflowed, as a one-thread run would report it.
static bool trace_heads(const HeadJob *all, TraceError *err)
{
    // Large lessons: the heads split over the cores (a classroom's machine has at least two), each
    // thread a run of consecutive heads. Small ones, or when no thread can be started: all on this
    // one.
    const AttnParams *p = all->p;
    double work =
        (double)p->heads * (double)p->d_k
        * ((double)p->n * p->d_model + 2.0 * p->m * p->d_model + 2.0 * (double)p->n * p->m);
    int parts = thread_count(work, p->heads);
    RopeTable rope[2] = {{0}, {0}};
    if (!rope_tables_init(rope, p, all->req)) return fail(err, STAGE_INPUT, -1, "out of memory");
    HeadJob jobs[TRACE_MAX_THREADS];
    for (int i = 0; i < parts; i++) {
        jobs[i] = *all;
        jobs[i].h0 = p->heads * i / parts, jobs[i].h1 = p->heads * (i + 1) / parts;
        jobs[i].rope = rope;
    }
    run_jobs(run_heads, jobs, sizeof jobs[0], parts);
    attn_rope_table_free(&rope[0]);
    attn_rope_table_free(&rope[1]);
    for (int h = 0; h < p->heads; h++) {
        if (all->failed[h] != STAGE_COUNT) {
            fail(err, all->failed[h], h, OVERFLOW_MSG);
            overflow_detail(p, all->w, err);
            return false;
        }
    }
    return true;
}

// concat = the heads' Z side by side; output = concat @ W_O + b_O, and with heads ablated also
// full_output, the output as it would be with every head.
static bool trace_output(Trace *t, const AttnParams *p, const LayerWeights *w,
                         const AttnRequest *req, TraceError *err)
{
    Matrix *zs = malloc((size_t)p->heads * sizeof(Matrix));
    if (!zs || !mat_init(&t->concat, p->n, p->heads * p->d_k)
        || !mat_init(&t->output, p->n, p->d_model)) {
        free(zs);
        return fail(err, STAGE_CONCAT, -1, "out of memory");
    }
    for (int h = 0; h < p->heads; h++) zs[h] = t->head[h].Z;
    attn_concat(&t->concat, zs, p->heads);
    free(zs);
    uint64_t ablated = req->ablated;
    if (p->heads < ATTN_MAX_ABLATED_HEADS) ablated &= ((uint64_t)1 << p->heads) - 1;
    if (ablated) { // the output as it would be with every head, for the screen's with / without /
                   // difference
        if (!mat_init(&t->full_output, p->n, p->d_model))
            return fail(err, STAGE_OUTPUT, -1, "out of memory");
        matmul_threads(&t->full_output, &t->concat, &w->W_O);
        mat_add_row(&t->full_output, &w->b_O);
        attn_ablate(&t->concat, ablated, p->heads, p->d_k);
    }
    matmul_threads(&t->output, &t->concat, &w->W_O); // = attn_project(output, concat, W_O, b_O)
    mat_add_row(&t->output, &w->b_O);
    if (!mat_all_finite(&t->output, false)
        || (ablated && !mat_all_finite(&t->full_output, false))) {
        fail(err, STAGE_OUTPUT, -1, OVERFLOW_MSG);
        overflow_detail(p, w, err);
        return false;
    }
    return true;
}

bool trace_run(Trace *t, const AttnParams *p, TraceError *err)
{
    return trace_run_layer(t, p, &p->w, &p->req, err);
}

bool trace_run_layer(Trace *t, const AttnParams *p, const LayerWeights *w, const AttnRequest *req,
                     TraceError *err)
{
    memset(t, 0, sizeof *t);
    t->head = calloc((size_t)p->heads, sizeof(HeadTrace));
    Stage *failed = calloc((size_t)p->heads, sizeof(Stage));
    if (!t->head || !failed) {
        free(t->head);
        free(failed);
        t->head = NULL;
        return fail(err, STAGE_INPUT, -1, "out of memory");
    }
    t->heads = p->heads;
    if (!mat_all_finite(&p->X, false) || !mat_all_finite(&p->S, false)) {
        free(failed);
        trace_free(t);
        return fail(err, STAGE_INPUT, -1, "the embeddings contain a non-finite number");
    }
    int bad_head = -1;
    if (!heads_init(t, p, req, &bad_head)) {
        free(failed);
        trace_free(t);
        return fail(err, STAGE_INPUT, bad_head, "out of memory");
    }
    HeadJob all = {.t = t, .p = p, .w = w, .req = req, .failed = failed};
    bool heads_ok = trace_heads(&all, err);
    free(failed);
    if (!heads_ok || !trace_output(t, p, w, req, err)) {
        trace_free(t);
        return false;
    }
    // The display-only stages, in the table's order, from the finished trace.
#define TRACE_SHOWN_RUN(id, key, compute, ...)                                                     \
    if (!compute(&t->shown[id], t, p)) {                                                           \
        trace_free(t);                                                                             \
        return fail(err, id, -1, "out of memory, or a number that is not finite");                 \
    }
    STAGE_TABLE(STAGE_TABLE_SKIP, TRACE_SHOWN_RUN)
#undef TRACE_SHOWN_RUN
    return true;
}
