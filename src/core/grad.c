// The backward pass of multi-head attention for a squared-error loss: plain loops, one per product,
// in a fixed order, so the gradients are the same bits every run (no threads, no fused
// multiply-add).
#include "core/grad.h"

#include <stdlib.h>
#include <string.h>

bool grads_init(AttnParams *g, const AttnParams *p)
{
    if (!params_init_grouped(g, p->n, p->m, p->d_model, p->heads, p->kv_heads, p->d_k))
        return false;
    g->kv_given = p->kv_given;
    g->mask = p->mask;
    g->cross = p->cross;
    return true;
}

static void zero(Matrix *m)
{
    if (m->data) memset(m->data, 0, (size_t)m->rows * (size_t)m->cols * sizeof(double));
}

void grads_zero(AttnParams *g)
{
    zero(&g->X);
    zero(&g->S);
    for (int i = 0; i < PARAM_COUNT; i++)
        for (int k = 0; k < params_count(g, i); k++) zero(params_own(g, i, k));
}

// loss = mean((output - targets)^2), summed row by row in order
double attn_loss(const Trace *t, const Matrix *targets)
{
    const Matrix *o = &t->output;
    size_t count = (size_t)o->rows * (size_t)o->cols;
    double sum = 0.0;
    for (size_t i = 0; i < count; i++) {
        double e = o->data[i] - targets->data[i];
        sum += e * e;
    }
    return count ? sum / (double)count : 0.0;
}

// dw (d_in, d_out) += x^T (d_in, rows) @ dy (rows, d_out); db (1, d_out) += column sums of dy;
// dx (rows, d_in) += dy (rows, d_out) @ w^T (d_in, d_out)^T. The backward of y = x w + b. Each sum
// runs over its inner index in increasing order from 0.0 and is then added to its output, as the
// plain loops in the comments do; the sums of a row of dw (and of db) run side by side in acc (the
// column's sum over i for every k at once), which changes no bit and lets the compiler vectorise.
//   dw[a][k] += sum_i x[i][a] dy[i][k];  db[k] += sum_i dy[i][k];  dx[i][a] += sum_k dy[i][k]
//   w[a][k]
static void project_backward(Matrix *dw, Matrix *db, Matrix *dx, const Matrix *x, const Matrix *w,
                             const Matrix *dy)
{
    int rows = x->rows, d_in = x->cols, d_out = dy->cols;
    double stack[256], *acc = d_out <= 256 ? stack : malloc((size_t)d_out * sizeof *acc);
    if (!acc) { // (out of memory for a row of sums: the same sums one at a time)
        for (int a = 0; a < d_in; a++)
            for (int k = 0; k < d_out; k++) {
                double s = 0.0;
                for (int i = 0; i < rows; i++) s += mat_get(x, i, a) * mat_get(dy, i, k);
                dw->data[(size_t)a * (size_t)d_out + (size_t)k] += s;
            }
    }
    for (int a = 0; acc && a < d_in; a++) {
        for (int k = 0; k < d_out; k++) acc[k] = 0.0;
        for (int i = 0; i < rows; i++) {
            double xa = mat_row(x, i)[a];
            const double *g = mat_row(dy, i);
            for (int k = 0; k < d_out; k++) acc[k] += xa * g[k];
        }
        double *out = mat_row(dw, a);
        for (int k = 0; k < d_out; k++) out[k] += acc[k];
    }
    if (acc) {
        for (int k = 0; k < d_out; k++) acc[k] = 0.0;
        for (int i = 0; i < rows; i++) {
            const double *g = mat_row(dy, i);
            for (int k = 0; k < d_out; k++) acc[k] += g[k];
        }
        for (int k = 0; k < d_out; k++) db->data[k] += acc[k];
    } else {
        for (int k = 0; k < d_out; k++) {
            double s = 0.0;
            for (int i = 0; i < rows; i++) s += mat_get(dy, i, k);
            db->data[k] += s;
        }
    }
    if (acc != stack) free(acc);
    for (int i = 0; i < rows; i++) {
        const double *g = mat_row(dy, i);
        double *out = mat_row(dx, i);
        for (int a = 0; a < d_in; a++) {
            const double *wa = mat_row(w, a);
            double s = 0.0;
            for (int k = 0; k < d_out; k++) s += g[k] * wa[k];
            out[a] += s;
        }
    }
}

// out (r, c) = op(a) @ op(b), op transposing when its flag is set; each sum runs over the inner
// index in increasing order from 0.0, a's factor first, so the bits are those of the plain loop
// out[i][j] = sum_k op(a)[i][k] op(b)[k][j]. With b as it is, a row of out is summed side by side
// (every j at once, k outer), which changes no bit.
static void product(Matrix *out, const Matrix *a, bool a_t, const Matrix *b, bool b_t)
{
    int inner = a_t ? a->rows : a->cols;
    for (int i = 0; i < out->rows; i++) {
        double *o = mat_row(out, i);
        if (b_t) {
            for (int j = 0; j < out->cols; j++) {
                const double *bj = mat_row(b, j);
                double acc = 0.0;
                for (int k = 0; k < inner; k++)
                    acc += (a_t ? mat_get(a, k, i) : mat_get(a, i, k)) * bj[k];
                o[j] = acc;
            }
            continue;
        }
        for (int j = 0; j < out->cols; j++) o[j] = 0.0;
        for (int k = 0; k < inner; k++) {
            double aik = a_t ? mat_get(a, k, i) : mat_get(a, i, k);
            const double *bk = mat_row(b, k);
            for (int j = 0; j < out->cols; j++) o[j] += aik * bk[j];
        }
    }
}

// The scratch one head's backward needs: dZ, dV (m, d_k); dA/dscores (n, m); dQ (n, d_k); dK (m,
// d_k); with RoPE dQ_rot (n, d_k) and dK_rot (m, d_k), the gradients of the rotated rows.
typedef struct {
    Matrix dZ, dA, dQ, dK, dV, dQr, dKr;
} HeadScratch;

static void scratch_free(HeadScratch *s)
{
    Matrix *all[] = {&s->dZ, &s->dA, &s->dQ, &s->dK, &s->dV, &s->dQr, &s->dKr};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) mat_free(all[i]);
}

// Where one layer's backward adds its gradients: gw (the layer's weights' shapes), dX (n, d_model)
// for the queries' input and dS (m, d_model) for the keys' and values' (dX for self-attention).
typedef struct {
    LayerWeights *gw;
    Matrix *dX, *dS;
} LayerGrads;

// One head h: dC (n, heads*d_k) holds dL/dconcat; adds into g the gradients of W_Q, W_K, W_V, the
// biases and the inputs (dX for the queries; dS for the keys and values).
static void head_backward(const LayerGrads *g, const AttnParams *p, const LayerWeights *w,
                          const HeadTrace *ht, const Matrix *dC, int h, HeadScratch *s)
{
    int n = p->n, m = p->m, dk = p->d_k;
    LayerWeights *gw = g->gw;
    const Matrix *A = &ht->weights;
    // dZ (n, d_k) = dC's columns of head h
    for (int i = 0; i < n; i++)
        memcpy(mat_row(&s->dZ, i), mat_row(dC, i) + (size_t)h * (size_t)dk,
               (size_t)dk * sizeof(double));
    // dA (n, m) = dZ (n, d_k) @ V^T (d_k, m);  dV (m, d_k) = A^T (m, n) @ dZ (n, d_k)
    product(&s->dA, &s->dZ, false, &ht->V, true);
    product(&s->dV, A, true, &s->dZ, false);
    // Softmax backward, row by row: dscaled = A * (dA - sum_j A dA); a masked entry has A = 0 and
    // gets 0. Then the scale: dscores = dscaled * scale (the trace divides by sqrt(d_k), i.e. scale
    // = 1/sqrt(d_k)).
    double scale = params_scale(p);
    for (int i = 0; i < n; i++) {
        double dot = 0.0;
        for (int j = 0; j < m; j++) dot += mat_get(A, i, j) * mat_get(&s->dA, i, j);
        for (int j = 0; j < m; j++)
            mat_set(&s->dA, i, j, mat_get(A, i, j) * (mat_get(&s->dA, i, j) - dot) * scale);
    }
    // dQ (n, d_k) = dscores (n, m) @ K (m, d_k);  dK (m, d_k) = dscores^T (m, n) @ Q (n, d_k)
    if (p->rope == ROPE_NONE) {
        product(&s->dQ, &s->dA, false, &ht->K, false);
        product(&s->dK, &s->dA, true, &ht->Q, false);
    } else { // the scores read the rotated rows; the gradients turn back by the transposed rotation
        product(&s->dQr, &s->dA, false, &ht->K_rot, false);
        product(&s->dKr, &s->dA, true, &ht->Q_rot, false);
        attn_rope_scaled(&s->dQ, &s->dQr, p->rope, p->rope_base, &p->rope_scale, -1, 0);
        attn_rope_scaled(&s->dK, &s->dKr, p->rope, p->rope_base, &p->rope_scale, -1, 0);
    }
    // W_K[h], W_V[h] and their biases are the group's K/V head's: each head of the group adds its
    // part.
    project_backward(&gw->W_Q[h], &gw->b_Q[h], g->dX, &p->X, &w->W_Q[h], &s->dQ);
    project_backward(&gw->W_K[h], &gw->b_K[h], g->dS, &p->S, &w->W_K[h], &s->dK);
    project_backward(&gw->W_V[h], &gw->b_V[h], g->dS, &p->S, &w->W_V[h], &s->dV);
}

bool attn_backward_layer(LayerWeights *gw, Matrix *dX, Matrix *dS, const AttnParams *p,
                         const LayerWeights *w, const AttnRequest *req, const Trace *t,
                         const Matrix *dOut)
{
    int n = p->n, hd = p->heads * p->d_k;
    Matrix dC = {0};
    HeadScratch s = {0};
    bool ok = mat_init(&dC, n, hd) && mat_init(&s.dZ, n, p->d_k) && mat_init(&s.dA, n, p->m)
              && mat_init(&s.dQ, n, p->d_k) && mat_init(&s.dK, p->m, p->d_k)
              && mat_init(&s.dV, p->m, p->d_k)
              && (p->rope == ROPE_NONE
                  || (mat_init(&s.dQr, n, p->d_k) && mat_init(&s.dKr, p->m, p->d_k)));
    if (ok) {
        LayerGrads g = {gw, dX, dS ? dS : dX};
        // output = concat W_O + b_O (concat with the ablated heads' columns zero, as the trace has
        // it)
        project_backward(&gw->W_O, &gw->b_O, &dC, &t->concat, &w->W_O, dOut);
        for (int h = 0; h < p->heads; h++)
            if (!(h < ATTN_MAX_ABLATED_HEADS && ((req->ablated >> h) & 1u)))
                head_backward(&g, p, w, &t->head[h], &dC, h, &s);
    }
    mat_free(&dC);
    scratch_free(&s);
    return ok;
}

bool attn_backward(AttnParams *g, const AttnParams *p, const Trace *t, const Matrix *targets,
                   double weight)
{
    int n = p->n, d = p->d_model;
    Matrix dOut = {0};
    if (!mat_init(&dOut, n, d)) return false;
    // dOut (n, d_model) = weight * 2 (output - targets) / (n * d_model)
    double f = weight * 2.0 / ((double)n * (double)d);
    size_t count = (size_t)n * (size_t)d;
    for (size_t i = 0; i < count; i++) dOut.data[i] = f * (t->output.data[i] - targets->data[i]);
    bool ok =
        attn_backward_layer(&g->w, &g->X, p->cross ? &g->S : &g->X, p, &p->w, &p->req, t, &dOut);
    mat_free(&dOut);
    return ok;
}
