// Builds the single head that holds a lesson's h heads side by side, and traces it.
#include "core/compare.h"

#include <stdio.h>
#include <string.h>

// dst (rows, h·d_k) columns [i·d_k, (i+1)·d_k) = src[i] (rows, d_k) for every head i.
static void join_columns(Matrix *dst, const Matrix *src, int heads)
{
    for (int i = 0; i < heads; i++) {
        const Matrix *s = &src[i];
        for (int r = 0; r < s->rows; r++)
            if (s->cols)
                memcpy(mat_row(dst, r) + (size_t)i * (size_t)s->cols, mat_row(s, r),
                       (size_t)s->cols * sizeof(double));
    }
}

static void copy_values(Matrix *dst, const Matrix *src)
{
    if (src->data)
        memcpy(dst->data, src->data, (size_t)src->rows * (size_t)src->cols * sizeof(double));
}

bool compare_single_head(AttnParams *out, const AttnParams *p)
{
    if (!params_init(out, p->n, p->m, p->d_model, 1, p->heads * p->d_k)) return false;
    // The lesson's settings (its mask, sliding window, RoPE; its own scale multiplies the one
    // head's scores too, 0: its own 1/sqrt(h d_k)) but one head of h·d_k, one K/V head, and X as it
    // is (E + P with positions).
    AttnConfig cfg = p->cfg;
    cfg.heads = cfg.kv_heads = 1;
    cfg.d_k = p->heads * p->d_k;
    cfg.kv_given = false;
    cfg.positions = POS_NONE;
    out->cfg = cfg;
    // Each head's columns turned as that head turns them: the scores still add up.
    out->req.rope_block = p->d_k;
    copy_values(&out->X, &p->X); // E + P when the lesson has positions
    copy_values(&out->S, &p->S);
    // The per-head weights side by side; W_O (h·d_k, d_model) and b_O as they are: the concat and
    // the single Z line up.
    for (int i = 0; i < PARAM_COUNT; i++) {
        Matrix *to = layer_weights_at(&out->w, i, 0);
        const Matrix *from = layer_weights_at_const(&p->w, i, 0);
        if (PARAMS[i].per_head) join_columns(to, from, p->heads);
        else copy_values(to, from);
    }
    return true;
}

void compare_costs(CostFigures *one, CostFigures *multi, const AttnParams *p)
{
    *one = cost_compute_cross(p->d_model, p->n, p->m, 1, p->heads * p->d_k);
    // Grouped-query attention: W_K and W_V are the kv_heads K/V heads' (the single head joins every
    // head's).
    *multi = cost_compute_grouped(p->d_model, p->n, p->m, p->heads,
                                  p->kv_heads > 0 ? p->kv_heads : p->heads, p->d_k);
}

bool compare_run(Comparison *c, const AttnParams *p, TraceError *err)
{
    memset(c, 0, sizeof *c);
    if (!compare_single_head(&c->single, p)) {
        err->stage = STAGE_INPUT;
        err->head = -1;
        snprintf(err->message, sizeof err->message, "out of memory building the single head");
        return false;
    }
    if (!trace_run(&c->trace, &c->single, err)) {
        // Name the single head: the multi-head trace of the same lesson may well have succeeded.
        char inner[sizeof err->message];
        memcpy(inner, err->message, sizeof inner);
        snprintf(err->message, sizeof err->message, "single head: %.*s",
                 (int)sizeof err->message - 16, inner);
        params_free(&c->single);
        memset(c, 0, sizeof *c);
        return false;
    }
    compare_costs(&c->cost_one, &c->cost_multi, p);
    return true;
}

void compare_free(Comparison *c)
{
    trace_free(&c->trace);
    params_free(&c->single);
    memset(c, 0, sizeof *c);
}
