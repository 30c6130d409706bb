// A lesson of layers written out explicit (what --train writes): the vocabulary, the tokens, the
// settings, the token embeddings, the positions, the weights as a list of layers, the unembedding
// and the "train" section, every number in the shortest form that reads back to the same double.
#include "lesson/lesson_circuit_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/lesson_fields.h"

static void string(StrBuf *o, const char *s) { lesson_put_string(o, s); }
static void row(StrBuf *o, const double *v, int n) { lesson_put_row(o, v, n); }

// A matrix as an array of rows, a row a line, indented by pad.
static void matrix(StrBuf *o, const Matrix *m, const char *pad)
{
    strbuf_puts(o, "[\n");
    for (int r = 0; r < m->rows; r++) {
        strbuf_printf(o, "%s  ", pad);
        row(o, mat_row(m, r), m->cols);
        strbuf_puts(o, r + 1 < m->rows ? ",\n" : "\n");
    }
    strbuf_printf(o, "%s]", pad);
}

static void words(StrBuf *o, char *const *w, int n)
{
    strbuf_puts(o, "[");
    for (int i = 0; i < n; i++) {
        if (i) strbuf_puts(o, ", ");
        string(o, w[i]);
    }
    strbuf_puts(o, "]");
}

static bool all_zero(const Matrix *m)
{
    for (size_t i = 0; i < (size_t)m->rows * (size_t)m->cols; i++)
        if (m->data[i] != 0.0) return false;
    return true;
}

// One layer's object: W_Q, W_K, W_V (per head), W_O, then the biases that are not all zero.
static void layer(StrBuf *o, const LayerWeights *w, LayerShape s)
{
    strbuf_puts(o, "    {");
    bool first = true;
    for (int i = 0; i < PARAM_COUNT; i++) {
        bool any = false;
        for (int k = 0; k < layer_weights_count(s, i); k++)
            any = any || !all_zero(layer_weights_own_const(w, s, i, k));
        if (PARAMS[i].bias && !any) continue;
        strbuf_printf(o, "%s\n      \"%s\": ", first ? "" : ",", PARAMS[i].name);
        first = false;
        if (PARAMS[i].per_head) strbuf_puts(o, "[");
        for (int k = 0; k < layer_weights_count(s, i); k++) {
            const Matrix *m = layer_weights_own_const(w, s, i, k);
            if (k) strbuf_puts(o, ", ");
            if (PARAMS[i].bias) row(o, m->data, m->cols);
            else matrix(o, m, PARAMS[i].per_head ? "      " : "      ");
        }
        if (PARAMS[i].per_head) strbuf_puts(o, "]");
    }
    strbuf_puts(o, "\n    }");
}

static void train_section(StrBuf *o, const CircuitTrainSpec *t)
{
    strbuf_printf(o,
                  ",\n  \"train\": {\"task\": \"induction\", \"period\": [%d, %d], \"sequences\": "
                  "%d, \"steps\": %d, \"learning_rate\": ",
                  t->period_min, t->period_max, t->sequences, t->steps);
    lesson_put_number(o, t->learning_rate);
    strbuf_printf(o, ", \"seed\": %.0f}", (double)t->seed);
}

char *lesson_circuit_write_json(const Lesson *l, const Circuit *m, const CircuitTrainSpec *train,
                                const char *title_suffix, size_t *len)
{
    const LessonCircuit *lc = l->circuit;
    const AttnParams *p = &l->params;
    StrBuf o = {0};
    size_t tl = strlen(l->title), sl = title_suffix ? strlen(title_suffix) : 0;
    bool add = sl && !(tl >= sl && strcmp(l->title + tl - sl, title_suffix) == 0);
    char *title = malloc(tl + sl + 1);
    if (!title) return NULL;
    snprintf(title, tl + sl + 1, "%s%s", l->title, add ? title_suffix : "");
    strbuf_puts(&o, "{\n  \"$schema\": \"./lesson.schema.json\",\n  \"title\": ");
    string(&o, title);
    free(title);
    if (l->notes) strbuf_puts(&o, ",\n  \"notes\": "), string(&o, l->notes);
    if (l->language) strbuf_puts(&o, ",\n  \"language\": "), string(&o, l->language);
    strbuf_puts(&o, ",\n  \"vocabulary\": ");
    words(&o, lc->vocabulary, lc->vocab);
    strbuf_puts(&o, ",\n  \"tokens\": ");
    words(&o, l->tokens, p->n);
    strbuf_printf(&o, ",\n  \"d_model\": %d,\n  \"heads\": %d,\n  \"d_k\": %d", m->shape.d_model,
                  m->shape.heads, m->shape.d_k);
    if (p->mask == MASK_CAUSAL) strbuf_puts(&o, ",\n  \"mask\": \"causal\"");
    if (p->window > 0) strbuf_printf(&o, ",\n  \"window\": %d", p->window);
    if (p->scale > 0) strbuf_puts(&o, ",\n  \"scale\": "), lesson_put_number(&o, p->scale);
    strbuf_puts(&o, ",\n  \"token_embeddings\": ");
    matrix(&o, &m->E, "  ");
    if (lc->positions == POS_EXPLICIT)
        strbuf_puts(&o, ",\n  \"positions\": "), matrix(&o, &m->P, "  ");
    else if (lc->positions == POS_SINUSOIDAL) strbuf_puts(&o, ",\n  \"positions\": \"sinusoidal\"");
    strbuf_puts(&o, ",\n  \"weights\": [\n");
    for (int k = 0; k < m->layers; k++) {
        layer(&o, &m->w[k], m->shape);
        strbuf_puts(&o, k + 1 < m->layers ? ",\n" : "\n");
    }
    strbuf_puts(&o, "  ],\n  \"unembedding\": ");
    matrix(&o, &m->U, "  ");
    if (train) train_section(&o, train);
    strbuf_puts(&o, "\n}\n");
    if (o.oom) {
        free(o.p);
        return NULL;
    }
    *len = o.len;
    return o.p;
}
