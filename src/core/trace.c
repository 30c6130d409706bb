// Runs the stages of multi-head attention and keeps every intermediate in a Trace.
#include "trace.h"
#include "exactmath.h"

#include "overflow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"

static const char *const STAGE_NAMES[STAGE_COUNT] = {
    "Input embeddings", "Positions E + P", "Projections Q, K, V", "Scores QKᵀ", "Scaling ÷√d_k", "Causal mask",
    "Softmax", "Weighted sum A·V", "Concatenation", "Output projection Wᴼ",
};
static const char *const STAGE_KEYS[STAGE_COUNT] = {
    "input", "positions", "projections", "scores", "scaled", "mask", "softmax", "weighted-sum", "concat", "output",
};

const char *stage_name(Stage s) { return (s >= 0 && s < STAGE_COUNT) ? STAGE_NAMES[s] : "?"; }
const char *stage_key(Stage s) { return (s >= 0 && s < STAGE_COUNT) ? STAGE_KEYS[s] : "?"; }

// Frees an array of `count` matrices allocated with calloc.
static void free_matrices(Matrix *ms, int count)
{
    if (!ms) return;
    for (int i = 0; i < count; i++) mat_free(&ms[i]);
    free(ms);
}

static Matrix *alloc_matrices(int count, int rows, int cols)
{
    Matrix *ms = calloc((size_t)count, sizeof(Matrix));
    if (!ms) return NULL;
    for (int i = 0; i < count; i++) {
        if (!mat_init(&ms[i], rows, cols)) {
            free_matrices(ms, count);
            return NULL;
        }
    }
    return ms;
}

bool params_init(AttnParams *p, int n, int m, int d_model, int heads, int d_k)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->m = m;
    p->d_model = d_model;
    p->heads = heads;
    p->d_k = d_k;
    bool ok = mat_init(&p->X, n, d_model) && mat_init(&p->S, m, d_model)
        && (p->W_Q = alloc_matrices(heads, d_model, d_k)) && (p->W_K = alloc_matrices(heads, d_model, d_k))
        && (p->W_V = alloc_matrices(heads, d_model, d_k)) && (p->b_Q = alloc_matrices(heads, 1, d_k))
        && (p->b_K = alloc_matrices(heads, 1, d_k)) && (p->b_V = alloc_matrices(heads, 1, d_k))
        && mat_init(&p->W_O, heads * d_k, d_model) && mat_init(&p->b_O, 1, d_model);
    if (!ok) params_free(p);
    return ok;
}

void params_free(AttnParams *p)
{
    mat_free(&p->X);
    mat_free(&p->S);
    free_matrices(p->W_Q, p->heads);
    free_matrices(p->W_K, p->heads);
    free_matrices(p->W_V, p->heads);
    free_matrices(p->b_Q, p->heads);
    free_matrices(p->b_K, p->heads);
    free_matrices(p->b_V, p->heads);
    mat_free(&p->W_O);
    mat_free(&p->b_O);
    mat_free(&p->E);
    mat_free(&p->P);
    mat_free(&p->E_S);
    mat_free(&p->P_S);
    memset(p, 0, sizeof *p);
}

static void copy_values(Matrix *dst, const Matrix *src)
{
    if (src->data) memcpy(dst->data, src->data, (size_t)src->rows * (size_t)src->cols * sizeof(double));
}

bool params_copy(AttnParams *out, const AttnParams *src)
{
    if (!params_init(out, src->n, src->m, src->d_model, src->heads, src->d_k)) return false;
    out->mask = src->mask;
    out->cross = src->cross;
    copy_values(&out->X, &src->X);
    copy_values(&out->S, &src->S);
    for (int h = 0; h < src->heads; h++) {
        copy_values(&out->W_Q[h], &src->W_Q[h]);
        copy_values(&out->W_K[h], &src->W_K[h]);
        copy_values(&out->W_V[h], &src->W_V[h]);
        copy_values(&out->b_Q[h], &src->b_Q[h]);
        copy_values(&out->b_K[h], &src->b_K[h]);
        copy_values(&out->b_V[h], &src->b_V[h]);
    }
    copy_values(&out->W_O, &src->W_O);
    copy_values(&out->b_O, &src->b_O);
    out->scale = src->scale;
    out->ablated = src->ablated;
    out->positions = src->positions;
    if (src->positions != POS_NONE) {
        bool ok = mat_copy(&out->E, &src->E) && mat_copy(&out->P, &src->P);
        if (ok && src->cross) ok = mat_copy(&out->E_S, &src->E_S) && mat_copy(&out->P_S, &src->P_S);
        if (!ok) {
            params_free(out);
            return false;
        }
    }
    return true;
}

void positions_sinusoidal(Matrix *P)
{
    int d = P->cols;
    for (int pos = 0; pos < P->rows; pos++)
        for (int i = 0; 2 * i < d; i++) {
            // The same expression as NumPy's pos / 10000 ** (2 * i / d_model).
            double angle = (double)pos / core_pow(10000.0, (double)(2 * i) / (double)d);
            mat_set(P, pos, 2 * i, core_sin(angle)); // glibc's bits on every platform (exactmath.c)
            if (2 * i + 1 < d) mat_set(P, pos, 2 * i + 1, core_cos(angle));
        }
}

// out (r, c) = a + b
static void add_into(Matrix *out, const Matrix *a, const Matrix *b)
{
    size_t count = (size_t)a->rows * (size_t)a->cols;
    for (size_t i = 0; i < count; i++) out->data[i] = a->data[i] + b->data[i];
}

void params_apply_positions(AttnParams *p)
{
    if (p->positions == POS_NONE) return;
    add_into(&p->X, &p->E, &p->P);
    if (p->cross) add_into(&p->S, &p->E_S, &p->P_S);
    else copy_values(&p->S, &p->X);
}

bool params_set_positions(AttnParams *p, PositionKind kind)
{
    if (kind == POS_NONE) return true;
    mat_free(&p->E);
    mat_free(&p->P);
    mat_free(&p->E_S);
    mat_free(&p->P_S);
    bool ok = mat_copy(&p->E, &p->X) && mat_init(&p->P, p->n, p->d_model);
    if (ok && p->cross) ok = mat_copy(&p->E_S, &p->S) && mat_init(&p->P_S, p->m, p->d_model);
    if (!ok) {
        mat_free(&p->E);
        mat_free(&p->P);
        mat_free(&p->E_S);
        mat_free(&p->P_S);
        return false;
    }
    p->positions = kind;
    if (kind == POS_SINUSOIDAL) {
        positions_sinusoidal(&p->P);
        if (p->cross) positions_sinusoidal(&p->P_S);
    }
    params_apply_positions(p);
    return true;
}

bool params_shuffle(AttnParams *out, const AttnParams *src, const int *perm)
{
    if (!params_copy(out, src)) return false;
    // Without positions the rows of X are the token embeddings: they move. With positions E moves and P stays.
    Matrix *moved = src->positions != POS_NONE ? &out->E : &out->X;
    const Matrix *from = src->positions != POS_NONE ? &src->E : &src->X;
    for (int i = 0; i < src->n; i++)
        memcpy(mat_row(moved, i), mat_row(from, perm[i]), (size_t)src->d_model * sizeof(double));
    if (src->positions != POS_NONE) params_apply_positions(out);
    else if (!src->cross) copy_values(&out->S, &out->X);
    return true;
}

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

double params_scale(const AttnParams *p) { return p->scale > 0 ? p->scale : 1.0 / sqrt((double)p->d_k); }

// q (n, d_k) = x (n, d_model) @ w (d_model, d_k) + b (1, d_k)
void attn_project(Matrix *q, const Matrix *x, const Matrix *w, const Matrix *b)
{
    mat_matmul(q, x, w);
    mat_add_row(q, b);
}

// scores (n, m) = q (n, d_k) @ k^T (d_k, m)
void attn_scores(Matrix *scores, const Matrix *q, const Matrix *k) { mat_matmul_bt(scores, q, k); }

// scaled (n, m) = scores / sqrt(d_k). Divides (not multiplies by 1/sqrt) to match NumPy's `/ np.sqrt(d_k)`.
void attn_scale(Matrix *scaled, const Matrix *scores, int d_k)
{
    double root = sqrt((double)d_k);
    size_t count = (size_t)scores->rows * (size_t)scores->cols;
    for (size_t i = 0; i < count; i++) scaled->data[i] = scores->data[i] / root;
}

// scaled (n, m) = scores * s
void attn_scale_by(Matrix *scaled, const Matrix *scores, double s)
{
    size_t count = (size_t)scores->rows * (size_t)scores->cols;
    for (size_t i = 0; i < count; i++) scaled->data[i] = scores->data[i] * s;
}

// entropy (n, 1) = -sum_j w log2 w over each row of weights (n, m)
void attn_entropy(Matrix *entropy, const Matrix *weights)
{
    for (int r = 0; r < weights->rows; r++) {
        double h = 0.0;
        const double *w = mat_row(weights, r);
        for (int c = 0; c < weights->cols; c++)
            if (w[c] > 0.0) h -= w[c] * log2(w[c]);
        entropy->data[r] = h == 0.0 ? 0.0 : h; // never -0
    }
}

// The ablated heads' columns of concat (n, h * d_k) become zeros.
void attn_ablate(Matrix *concat, uint64_t ablated, int heads, int d_k)
{
    for (int h = 0; h < heads && h < ATTN_MAX_ABLATED_HEADS; h++) {
        if (!((ablated >> h) & 1u)) continue;
        for (int r = 0; r < concat->rows; r++) memset(mat_row(concat, r) + (size_t)h * (size_t)d_k, 0, (size_t)d_k * sizeof(double));
    }
}

// A query may look only at itself and earlier tokens: -inf above the diagonal.
void attn_mask_causal(Matrix *scaled)
{
    for (int r = 0; r < scaled->rows; r++)
        for (int c = r + 1; c < scaled->cols; c++) mat_set(scaled, r, c, -INFINITY);
}

// z (n, d_k) = weights (n, m) @ v (m, d_k)
void attn_weighted_sum(Matrix *z, const Matrix *weights, const Matrix *v) { mat_matmul(z, weights, v); }

// concat (n, h * d_k) = [z_0 ... z_{h-1}] side by side
void attn_concat(Matrix *concat, const Matrix *z, int heads)
{
    for (int h = 0; h < heads; h++) {
        int d_k = z[h].cols;
        for (int r = 0; r < z[h].rows; r++)
            memcpy(mat_row(concat, r) + (size_t)h * (size_t)d_k, mat_row(&z[h], r), (size_t)d_k * sizeof(double));
    }
}

static void head_free(HeadTrace *ht)
{
    mat_free(&ht->Q);
    mat_free(&ht->K);
    mat_free(&ht->V);
    mat_free(&ht->scores);
    mat_free(&ht->scaled);
    mat_free(&ht->weights);
    mat_free(&ht->Z);
    mat_free(&ht->entropy);
}

double trace_values(int n, int m, int d_model, int heads, int d_k)
{
    double per_head = 2.0 * n * d_k + 2.0 * m * d_k + 3.0 * n * m;
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
    memset(t, 0, sizeof *t);
}

static bool fail(TraceError *err, Stage stage, int head, const char *message)
{
    if (err) {
        err->stage = stage;
        err->head = head;
        if (head >= 0)
            snprintf(err->message, sizeof err->message, "stage '%s', head %d: %s", stage_key(stage), head, message);
        else
            snprintf(err->message, sizeof err->message, "stage '%s': %s", stage_key(stage), message);
    }
    return false;
}

#define OVERFLOW_MSG "a value overflowed to infinity or NaN; use smaller embeddings or weights"

// One head's stages, Q_i, K_i, V_i to Z_i, into ht (already allocated). Returns the stage where a
// non-finite number first appeared, or STAGE_COUNT when all is well.
static Stage run_head(HeadTrace *ht, const AttnParams *p, int h)
{
    attn_project(&ht->Q, &p->X, &p->W_Q[h], &p->b_Q[h]);
    attn_project(&ht->K, &p->S, &p->W_K[h], &p->b_K[h]);
    attn_project(&ht->V, &p->S, &p->W_V[h], &p->b_V[h]);
    if (!mat_all_finite(&ht->Q, false) || !mat_all_finite(&ht->K, false) || !mat_all_finite(&ht->V, false))
        return STAGE_PROJECT;
    attn_scores(&ht->scores, &ht->Q, &ht->K);
    if (!mat_all_finite(&ht->scores, false)) return STAGE_SCORES;
    if (p->scale > 0) attn_scale_by(&ht->scaled, &ht->scores, p->scale);
    else attn_scale(&ht->scaled, &ht->scores, p->d_k);
    if (p->mask == MASK_CAUSAL) attn_mask_causal(&ht->scaled);
    if (!mat_all_finite(&ht->scaled, p->mask == MASK_CAUSAL)) return STAGE_SCALE; // a huge scale
    mat_softmax_rows(&ht->weights, &ht->scaled);
    attn_entropy(&ht->entropy, &ht->weights);
    attn_weighted_sum(&ht->Z, &ht->weights, &ht->V);
    if (!mat_all_finite(&ht->Z, false)) return STAGE_WEIGHTED_SUM;
    return STAGE_COUNT;
}

// Heads h0 .. h1-1 of a trace, for one thread. Each head reads only p and writes only its own
// HeadTrace, so the numbers are the same whichever thread runs it.
typedef struct {
    Trace *t;
    const AttnParams *p;
    int h0, h1;
    Stage *failed; // [heads]
} HeadJob;

static int run_heads(void *arg)
{
    HeadJob *job = arg;
    for (int h = job->h0; h < job->h1; h++) job->failed[h] = run_head(&job->t->head[h], job->p, h);
    return 0;
}

// Below this many multiply-adds per trace a second thread costs more than it saves.
#define TRACE_THREAD_MIN_WORK 2000000.0

typedef struct {
    Matrix out, a;
    const Matrix *b;
} MatmulJob;

static int matmul_job(void *arg)
{
    MatmulJob *job = arg;
    mat_matmul(&job->out, &job->a, job->b);
    return 0;
}

// out (n, p) = a (n, k) @ b (k, p), the bottom half of the rows on a second thread when there are many
// (each row is computed exactly as one mat_matmul would, so the bits do not depend on the split).
static void matmul_two_threads(Matrix *out, const Matrix *a, const Matrix *b)
{
    int n = a->rows, half = n / 2;
    if (n < 32 || (double)n * a->cols * b->cols < TRACE_THREAD_MIN_WORK) {
        mat_matmul(out, a, b);
        return;
    }
    MatmulJob top = {{half, out->cols, out->data}, {half, a->cols, a->data}, b};
    MatmulJob bottom = {{n - half, out->cols, mat_row(out, half)}, {n - half, a->cols, mat_row(a, half)}, b};
    PlatformThread *worker = platform_thread_start(matmul_job, &bottom);
    matmul_job(&top);
    if (worker)
        platform_thread_join(worker);
    else
        matmul_job(&bottom);
}

bool trace_run(Trace *t, const AttnParams *p, TraceError *err)
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
    for (int h = 0; h < p->heads; h++) {
        HeadTrace *ht = &t->head[h];
        if (!mat_init(&ht->Q, p->n, p->d_k) || !mat_init(&ht->K, p->m, p->d_k) || !mat_init(&ht->V, p->m, p->d_k)
            || !mat_init(&ht->scores, p->n, p->m) || !mat_init(&ht->scaled, p->n, p->m)
            || !mat_init(&ht->weights, p->n, p->m) || !mat_init(&ht->Z, p->n, p->d_k)
            || !mat_init(&ht->entropy, p->n, 1)) {
            free(failed);
            trace_free(t);
            return fail(err, STAGE_INPUT, h, "out of memory");
        }
    }
    // Large lessons: the second half of the heads on a second thread (the machine the class uses has at
    // least two cores). Small ones, or when no thread can be started: all on this one.
    double work = (double)p->heads * (double)p->d_k * ((double)p->n * p->d_model + 2.0 * p->m * p->d_model
                                                        + 2.0 * (double)p->n * p->m);
    HeadJob mine = {t, p, 0, p->heads, failed}, other = mine;
    PlatformThread *worker = NULL;
    if (p->heads >= 2 && work >= TRACE_THREAD_MIN_WORK) {
        other.h0 = mine.h1 = p->heads / 2;
        worker = platform_thread_start(run_heads, &other);
        if (!worker) mine.h1 = p->heads;
    }
    run_heads(&mine);
    if (worker) platform_thread_join(worker);
    for (int h = 0; h < p->heads; h++) {
        if (failed[h] != STAGE_COUNT) { // the first head that overflowed, as a one-thread run would report
            Stage stage = failed[h];
            free(failed);
            trace_free(t);
            fail(err, stage, h, OVERFLOW_MSG);
            trace_overflow_detail(p, err);
            return false;
        }
    }
    free(failed);
    Matrix *zs = malloc((size_t)p->heads * sizeof(Matrix));
    if (!zs || !mat_init(&t->concat, p->n, p->heads * p->d_k) || !mat_init(&t->output, p->n, p->d_model)) {
        free(zs);
        trace_free(t);
        return fail(err, STAGE_CONCAT, -1, "out of memory");
    }
    for (int h = 0; h < p->heads; h++) zs[h] = t->head[h].Z;
    attn_concat(&t->concat, zs, p->heads);
    free(zs);
    uint64_t ablated = p->ablated;
    if (p->heads < ATTN_MAX_ABLATED_HEADS) ablated &= ((uint64_t)1 << p->heads) - 1;
    if (ablated) { // the output as it would be with every head, for the screen's with / without / difference
        if (!mat_init(&t->full_output, p->n, p->d_model)) {
            trace_free(t);
            return fail(err, STAGE_OUTPUT, -1, "out of memory");
        }
        matmul_two_threads(&t->full_output, &t->concat, &p->W_O);
        mat_add_row(&t->full_output, &p->b_O);
        attn_ablate(&t->concat, ablated, p->heads, p->d_k);
    }
    matmul_two_threads(&t->output, &t->concat, &p->W_O); // = attn_project(output, concat, W_O, b_O)
    mat_add_row(&t->output, &p->b_O);
    if (!mat_all_finite(&t->output, false) || (ablated && !mat_all_finite(&t->full_output, false))) {
        trace_free(t);
        fail(err, STAGE_OUTPUT, -1, OVERFLOW_MSG);
        trace_overflow_detail(p, err);
        return false;
    }
    return true;
}
