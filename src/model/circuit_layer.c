// One layer of a lesson of layers as the board shows it (circuit_layer.h): its parameters over the
// stream that enters it, the stream, the next tokens after the last layer and every layer's
// attention weights for the overview.
#include "model/circuit_layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exactmath.h"
#include "model/i18n.h"

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

// The k most probable tokens of row i of the logits (vocab), most probable first, the lower id
// first among equals: softmax in float64 (the largest logit subtracted first).
static bool next_tokens(LayerStream *s, const Matrix *logits, char *const *vocabulary, int i)
{
    int V = logits->cols, k = s->top;
    const double *z = mat_row(logits, i);
    double *p = malloc((size_t)V * sizeof *p), max = z[0], sum = 0.0;
    if (!p) return false;
    for (int v = 1; v < V; v++)
        if (z[v] > max) max = z[v];
    for (int v = 0; v < V; v++) sum += p[v] = core_exp(z[v] - max);
    for (int v = 0; v < V; v++) p[v] /= sum;
    int *id = s->top_id + (size_t)i * k;
    double *prob = s->top_p + (size_t)i * k;
    bool ok = true;
    mat_top_k(id, prob, p, V, k);
    for (int q = 0; q < k; q++)
        ok = ok && (s->top_token[(size_t)i * k + q] = dup_string(vocabulary[id[q]])) != NULL;
    free(p);
    return ok;
}

// The overview (layers, heads, n, n) as floats: every layer's attention weights.
static bool overview_of(LayerStream *s, const CircuitRun *r, int heads)
{
    int n = r->n;
    size_t per = (size_t)n * (size_t)n;
    s->overview = malloc((size_t)r->layers * (size_t)heads * per * sizeof *s->overview);
    if (!s->overview) return false;
    s->layers = r->layers;
    s->heads = heads;
    s->n = n;
    for (int l = 0; l < r->layers; l++)
        for (int h = 0; h < heads; h++)
            for (size_t k = 0; k < per; k++)
                s->overview[((size_t)l * heads + h) * per + k] =
                    (float)r->trace[l].head[h].weights.data[k];
    return true;
}

static bool stream_of(LayerStream *s, const Lesson *l, const CircuitRun *r, int layer, int heads)
{
    memset(s, 0, sizeof *s);
    s->norm = NORM_NONE;
    s->attention_only = true;
    s->layer = layer;
    int n = r->n, V = r->logits.cols;
    bool ok = mat_init(&s->x, n, r->x[layer].cols) && overview_of(s, r, heads);
    if (ok) memcpy(s->x.data, r->x[layer].data, (size_t)n * s->x.cols * sizeof(double));
    if (ok && layer == r->layers - 1) {
        s->top = V < CIRCUIT_LAYER_TOP ? V : CIRCUIT_LAYER_TOP;
        size_t all = (size_t)n * (size_t)s->top;
        s->top_id = calloc(all, sizeof *s->top_id);
        s->top_p = calloc(all, sizeof *s->top_p);
        s->top_token = calloc(all, sizeof *s->top_token);
        ok = s->top_id && s->top_p && s->top_token;
        for (int i = 0; ok && i < n; i++)
            ok = next_tokens(s, &r->logits, l->circuit->vocabulary, i);
    }
    if (!ok) layer_stream_free(s);
    return ok;
}

bool circuit_layer_params(AttnParams *p, LayerStream *stream, const Lesson *l, const Circuit *c,
                          const CircuitRun *r, int layer, uint64_t ablated)
{
    const LessonCircuit *lc = l->circuit;
    int n = l->params.n, d = c->shape.d_model;
    memset(p, 0, sizeof *p);
    if (!params_init(p, n, n, d, c->shape.heads, c->shape.d_k)) return false;
    p->cfg = l->params.cfg;
    p->kv_heads = c->shape.heads;
    bool ok = true;
    if (layer == 0) {
        ok = params_set_positions(p, POS_EXPLICIT);
        p->positions = POS_EXPLICIT;
        size_t row = (size_t)d * sizeof(double);
        for (int i = 0; ok && i < n; i++) {
            memcpy(mat_row(&p->E, i), mat_row(&c->E, lc->ids[i]), row);
            memcpy(mat_row(&p->P, i), mat_row(&c->P, i), row);
        }
        if (ok) params_apply_positions(p);
    } else {
        p->positions = POS_NONE;
        memcpy(p->X.data, r->x[layer].data, (size_t)n * (size_t)d * sizeof(double));
        memcpy(p->S.data, r->x[layer].data, (size_t)n * (size_t)d * sizeof(double));
    }
    if (ok) layer_weights_copy_values(&p->w, &c->w[layer], c->shape);
    p->ablated = ablated;
    if (!ok || !stream_of(stream, l, r, layer, c->shape.heads)) {
        params_free(p);
        return false;
    }
    p->stream = stream;
    return true;
}

static bool is_circuit(const AttnParams *p) { return p->stream && p->stream->attention_only; }

bool circuit_layer_formula(const AttnParams *p, Stage s, char *buf, size_t cap)
{
    if (!is_circuit(p) || (s != STAGE_RESIDUAL && s != STAGE_NEXT)) return false;
    int l = p->stream->layer;
    if (s == STAGE_NEXT) snprintf(buf, cap, "p = softmax(x_%d U)", p->stream->layers);
    else snprintf(buf, cap, "h\xe2\x80\xb2 = x_%d = x_%d + MHA_%d(x_%d)", l + 1, l, l, l);
    return true;
}

bool circuit_layer_explain(const AttnParams *p, Stage s, char *buf, size_t cap)
{
    if (!is_circuit(p) || (s != STAGE_RESIDUAL && s != STAGE_NEXT)) return false;
    int l = p->stream->layer, L = p->stream->layers;
    if (s == STAGE_NEXT)
        snprintf(buf, cap,
                 TR("After the last layer the logits are x_%d U: the stream times the unembedding "
                    "U, with no final norm and no MLP in this lesson. Their softmax gives every "
                    "token a probability: the %d most probable next tokens at each position, most "
                    "probable first (point at a cell: which token)."),
                 L, p->stream->top);
    else if (l + 1 < L)
        snprintf(buf, cap,
                 TR("Layer %d's heads, added up (Output), join the stream they read: x_%d = x_%d + "
                    "MHA_%d(x_%d), %d \xc3\x97 %d. Attention only: no norm and no MLP, so layer %d "
                    "reads this sum as it is."),
                 l, l + 1, l, l, l, p->n, p->d_model, l + 1);
    else
        snprintf(buf, cap,
                 TR("Layer %d's heads, added up (Output), join the stream they read: x_%d = x_%d + "
                    "MHA_%d(x_%d), %d \xc3\x97 %d. Attention only: no norm and no MLP; this is "
                    "x_%d, the last stream, which the next token reads."),
                 l, l + 1, l, l, l, p->n, p->d_model, L);
    return true;
}
