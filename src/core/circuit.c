// A stack of attention layers over a vocabulary (see circuit.h): each layer is traced by
// trace_run_layer and differentiated by attn_backward_layer, so a circuit's numbers are the one
// layer's numbers, layer after layer. Plain loops in a fixed order: the same bits every run.
#include "core/circuit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exactmath.h"
#include "core/grad.h"

bool circuit_init(Circuit *c, int layers, LayerShape shape, int vocab, int n_ctx)
{
    memset(c, 0, sizeof *c);
    c->layers = layers, c->shape = shape, c->vocab = vocab, c->n_ctx = n_ctx;
    c->w = calloc((size_t)(layers > 0 ? layers : 1), sizeof *c->w);
    bool ok = c->w != NULL;
    for (int l = 0; ok && l < layers; l++)
        if (!(ok = layer_weights_init(&c->w[l], shape))) c->layers = l; // free only those made
    ok = ok && mat_init(&c->E, vocab, shape.d_model) && mat_init(&c->P, n_ctx, shape.d_model)
         && mat_init(&c->U, shape.d_model, vocab);
    if (!ok) circuit_free(c);
    return ok;
}

void circuit_free(Circuit *c)
{
    if (c->w)
        for (int l = 0; l < c->layers; l++) layer_weights_free(&c->w[l], c->shape);
    free(c->w);
    mat_free(&c->E);
    mat_free(&c->P);
    mat_free(&c->U);
    memset(c, 0, sizeof *c);
}

static void copy_matrix(Matrix *dst, const Matrix *src)
{
    if (src->data)
        memcpy(dst->data, src->data, (size_t)src->rows * (size_t)src->cols * sizeof(double));
}

void circuit_copy_values(Circuit *dst, const Circuit *src)
{
    for (int l = 0; l < src->layers; l++)
        layer_weights_copy_values(&dst->w[l], &src->w[l], src->shape);
    copy_matrix(&dst->E, &src->E);
    copy_matrix(&dst->P, &src->P);
    copy_matrix(&dst->U, &src->U);
}

bool circuit_copy(Circuit *out, const Circuit *src)
{
    if (!circuit_init(out, src->layers, src->shape, src->vocab, src->n_ctx)) return false;
    circuit_copy_values(out, src);
    return true;
}

int circuit_matrix_cap(const Circuit *c) { return c->layers * PARAM_COUNT * c->shape.heads + 3; }

int circuit_matrices(Matrix **out, Circuit *c, bool with_positions)
{
    int count = 0;
    for (int l = 0; l < c->layers; l++)
        count += layer_weights_trainable(out + count, &c->w[l], c->shape);
    out[count++] = &c->E;
    if (with_positions) out[count++] = &c->P;
    out[count++] = &c->U;
    return count;
}

static void zero_matrix(Matrix *m)
{
    if (m->data) memset(m->data, 0, (size_t)m->rows * (size_t)m->cols * sizeof(double));
}

void circuit_zero(Circuit *c)
{
    for (int l = 0; l < c->layers; l++)
        for (int i = 0; i < PARAM_COUNT; i++)
            for (int k = 0; k < layer_weights_count(c->shape, i); k++)
                zero_matrix(layer_weights_own(&c->w[l], c->shape, i, k));
    zero_matrix(&c->E);
    zero_matrix(&c->P);
    zero_matrix(&c->U);
}

// The settings and inputs one layer of the stack is traced with: x (n, d_model) as both the
// queries' and the keys' input, the lesson's settings, no positions (x already holds them), no
// weights of its own (trace_run_layer is given the layer's).
static AttnParams layer_params(const Circuit *c, const AttnConfig *settings, const Matrix *x)
{
    AttnParams p;
    memset(&p, 0, sizeof p);
    p.n = p.m = x->rows;
    p.d_model = c->shape.d_model;
    p.cfg = *settings;
    p.heads = c->shape.heads;
    p.kv_heads = c->shape.kv_heads;
    p.d_k = c->shape.d_k;
    p.cross = false;
    p.positions = POS_NONE;
    p.X = *x;
    p.S = *x;
    return p;
}

void circuit_run_free(CircuitRun *r)
{
    if (r->trace)
        for (int l = 0; l < r->layers; l++) trace_free(&r->trace[l]);
    if (r->x)
        for (int l = 0; l <= r->layers; l++) mat_free(&r->x[l]);
    free(r->trace);
    free(r->x);
    mat_free(&r->logits);
    memset(r, 0, sizeof *r);
}

double circuit_cross_entropy(const Matrix *logits, int i, int target)
{
    const double *row = mat_row(logits, i);
    double top = row[0], sum = 0.0;
    for (int j = 1; j < logits->cols; j++)
        if (row[j] > top) top = row[j];
    for (int j = 0; j < logits->cols; j++) sum += core_exp(row[j] - top);
    return top + core_log1p(sum - 1.0) - row[target];
}

static bool run_fail(TraceError *err, int layer, const char *what)
{
    if (err) {
        char inner[sizeof err->message];
        memcpy(inner, err->message, sizeof inner);
        inner[sizeof inner - 1] = '\0';
        int used = snprintf(err->message, sizeof err->message, "layer %d: ", layer);
        size_t at = used > 0 && (size_t)used < sizeof err->message ? (size_t)used : 0;
        const char *text = what ? what : inner;
        size_t room = sizeof err->message - at - 1, len = strlen(text);
        memcpy(err->message + at, text, len < room ? len : room);
        err->message[at + (len < room ? len : room)] = '\0';
    }
    return false;
}

bool circuit_run(CircuitRun *r, const Circuit *c, const AttnConfig *settings, const int *ids, int n,
                 const uint64_t *ablated, TraceError *err)
{
    int L = c->layers, d = c->shape.d_model;
    memset(r, 0, sizeof *r);
    r->n = n;
    r->x = calloc((size_t)L + 1, sizeof *r->x);
    r->trace = calloc((size_t)(L > 0 ? L : 1), sizeof *r->trace);
    bool ok = r->x && r->trace && mat_init(&r->logits, n, c->vocab);
    for (int l = 0; ok && l <= L; l++) ok = mat_init(&r->x[l], n, d);
    r->layers = ok ? L : 0;
    if (!ok) {
        circuit_run_free(r);
        if (err) snprintf(err->message, sizeof err->message, "out of memory");
        return false;
    }
    // x0 (n, d) = E[ids] + P[0..n)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++)
            mat_row(&r->x[0], i)[j] = mat_row(&c->E, ids[i])[j] + mat_row(&c->P, i)[j];
    for (int l = 0; l < L; l++) {
        AttnParams p = layer_params(c, settings, &r->x[l]);
        AttnRequest req = {0};
        req.ablated = ablated ? ablated[l] : 0;
        if (!trace_run_layer(&r->trace[l], &p, &c->w[l], &req, err)) {
            circuit_run_free(r); // (a failed trace is left empty, as are those not run)
            return run_fail(err, l, NULL);
        }
        // x_{l+1} (n, d) = x_l + MHA_l(x_l)
        size_t count = (size_t)n * (size_t)d;
        for (size_t k = 0; k < count; k++)
            r->x[l + 1].data[k] = r->x[l].data[k] + r->trace[l].output.data[k];
    }
    // logits (n, V) = x_L (n, d) @ U (d, V), each sum over d in order
    for (int i = 0; i < n; i++)
        for (int v = 0; v < c->vocab; v++) {
            double s = 0.0;
            for (int k = 0; k < d; k++) s += mat_row(&r->x[L], i)[k] * mat_row(&c->U, k)[v];
            mat_row(&r->logits, i)[v] = s;
        }
    if (!mat_all_finite(&r->logits, false)) {
        circuit_run_free(r);
        return run_fail(err, L - 1,
                        "the logits overflowed to infinity or NaN; use smaller "
                        "embeddings, weights or unembedding");
    }
    double sum = 0.0;
    for (int i = 0; i + 1 < n; i++) sum += circuit_cross_entropy(&r->logits, i, ids[i + 1]);
    r->loss = n > 1 ? sum / (double)(n - 1) : 0.0;
    return true;
}

// dlogits (n, V): row i < n-1 = (softmax(logits[i]) - onehot(ids[i+1])) * weight / (n - 1); the
// last row 0.
static void logits_backward(Matrix *dl, const Matrix *logits, const int *ids, double weight)
{
    int n = logits->rows, V = logits->cols;
    double f = n > 1 ? weight / (double)(n - 1) : 0.0;
    for (int i = 0; i + 1 < n; i++) {
        const double *row = mat_row(logits, i);
        double *out = mat_row(dl, i), top = row[0], sum = 0.0;
        for (int j = 1; j < V; j++)
            if (row[j] > top) top = row[j];
        for (int j = 0; j < V; j++) sum += (out[j] = core_exp(row[j] - top));
        for (int j = 0; j < V; j++) out[j] = (out[j] / sum - (j == ids[i + 1] ? 1.0 : 0.0)) * f;
    }
}

bool circuit_backward(Circuit *g, const Circuit *c, const AttnConfig *settings, const CircuitRun *r,
                      const int *ids, const uint64_t *ablated, double weight)
{
    int n = r->n, d = c->shape.d_model, V = c->vocab, L = c->layers;
    Matrix dl = {0}, dx = {0}, dprev = {0};
    bool ok = mat_init(&dl, n, V) && mat_init(&dx, n, d) && mat_init(&dprev, n, d);
    if (ok) {
        logits_backward(&dl, &r->logits, ids, weight);
        const Matrix *xL = &r->x[L];
        // dU (d, V) += x_L^T (d, n) @ dl (n, V);  dx (n, d) = dl (n, V) @ U^T (V, d)
        for (int k = 0; k < d; k++)
            for (int v = 0; v < V; v++) {
                double s = 0.0;
                for (int i = 0; i < n; i++) s += mat_row(xL, i)[k] * mat_row(&dl, i)[v];
                mat_row(&g->U, k)[v] += s;
            }
        for (int i = 0; i < n; i++)
            for (int k = 0; k < d; k++) {
                double s = 0.0;
                for (int v = 0; v < V; v++) s += mat_row(&dl, i)[v] * mat_row(&c->U, k)[v];
                mat_row(&dx, i)[k] = s;
            }
        // Down the stack: x_{l+1} = x_l + MHA_l(x_l), so dx_l = dx_{l+1} + MHA_l's backward of it.
        for (int l = L - 1; ok && l >= 0; l--) {
            AttnParams p = layer_params(c, settings, &r->x[l]);
            AttnRequest req = {0};
            req.ablated = ablated ? ablated[l] : 0;
            copy_matrix(&dprev, &dx);
            ok = attn_backward_layer(&g->w[l], &dprev, NULL, &p, &c->w[l], &req, &r->trace[l], &dx);
            Matrix swap = dx;
            dx = dprev, dprev = swap;
        }
        // x0 = E[ids] + P[0..n): each row's gradient to its token's embedding and its position
        for (int i = 0; ok && i < n; i++)
            for (int k = 0; k < d; k++) {
                mat_row(&g->E, ids[i])[k] += mat_row(&dx, i)[k];
                mat_row(&g->P, i)[k] += mat_row(&dx, i)[k];
            }
    }
    mat_free(&dl);
    mat_free(&dx);
    mat_free(&dprev);
    return ok;
}

// out (d, d) = W_Q[h] (d, d_k) @ W_K[h]^T (d_k, d) (qk) or W_V[h] (d, d_k) @ W_O^h (d_k, d)
static void head_matrix(Matrix *out, const Circuit *c, int l, int h, bool qk)
{
    const LayerWeights *w = &c->w[l];
    int d = c->shape.d_model, dk = c->shape.d_k;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double s = 0.0;
            for (int k = 0; k < dk; k++)
                s += qk ? mat_row(&w->W_Q[h], i)[k] * mat_row(&w->W_K[h], j)[k]
                        : mat_row(&w->W_V[h], i)[k] * mat_row(&w->W_O, h * dk + k)[j];
            mat_row(out, i)[j] = s;
        }
}

static double frobenius(const Matrix *m)
{
    double s = 0.0;
    size_t count = (size_t)m->rows * (size_t)m->cols;
    for (size_t i = 0; i < count; i++) s += m->data[i] * m->data[i];
    return sqrt(s);
}

// |a b| (b transposed when b_t) for (d, d) matrices
static double product_norm(const Matrix *a, const Matrix *b, bool b_t)
{
    int d = a->rows;
    double s = 0.0;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double acc = 0.0;
            for (int k = 0; k < d; k++)
                acc += mat_row(a, i)[k] * (b_t ? mat_row(b, j)[k] : mat_row(b, k)[j]);
            s += acc * acc;
        }
    return sqrt(s);
}

double circuit_composition(const Circuit *c, CompositionKind kind, int l2, int h2, int l1, int h1)
{
    int d = c->shape.d_model;
    Matrix a = {0}, b = {0};
    double out = 0.0;
    if (mat_init(&a, d, d) && mat_init(&b, d, d)) {
        // K: |W_QK2 W_OV1^T|; Q: |W_OV1 W_QK2|; V: |W_OV1 W_OV2|
        head_matrix(&a, c, kind == COMPOSE_K ? l2 : l1, kind == COMPOSE_K ? h2 : h1,
                    kind == COMPOSE_K);
        head_matrix(&b, c, kind == COMPOSE_K ? l1 : l2, kind == COMPOSE_K ? h1 : h2,
                    kind == COMPOSE_Q);
        double na = frobenius(&a), nb = frobenius(&b);
        out = na > 0 && nb > 0 ? product_norm(&a, &b, kind == COMPOSE_K) / (na * nb) : 0.0;
    }
    mat_free(&a);
    mat_free(&b);
    return out;
}
