// The lesson's parameters: allocating, copying and shuffling them, the table of its weights, and
// the positions added to the embeddings (sinusoidal or given).
#include "core/params.h"
#include "core/exactmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Frees an array of `count` matrices allocated with alloc_matrices (group: entries sharing one's
// data).
static void free_matrices(Matrix *ms, int count, int group)
{
    if (!ms) return;
    for (int i = 0; i < count; i += group) mat_free(&ms[i]);
    free(ms);
}

// `count` matrices (rows, cols), zeroed; each run of `group` of them shares the first one's
// numbers.
static Matrix *alloc_matrices(int count, int group, int rows, int cols)
{
    Matrix *ms = calloc((size_t)count, sizeof(Matrix));
    if (!ms) return NULL;
    for (int i = 0; i < count; i++) {
        if (i % group) {
            ms[i] = ms[i - i % group];
            continue;
        }
        if (!mat_init(&ms[i], rows, cols)) {
            free_matrices(ms, i, group);
            return NULL;
        }
    }
    return ms;
}

const ParamInfo PARAMS[PARAM_COUNT] = {
    {"W_Q", true, false, false, PDIM_D_MODEL, PDIM_D_K, offsetof(AttnParams, W_Q)},
    {"W_K", true, true, false, PDIM_D_MODEL, PDIM_D_K, offsetof(AttnParams, W_K)},
    {"W_V", true, true, false, PDIM_D_MODEL, PDIM_D_K, offsetof(AttnParams, W_V)},
    {"b_Q", true, false, true, PDIM_ONE, PDIM_D_K, offsetof(AttnParams, b_Q)},
    {"b_K", true, true, true, PDIM_ONE, PDIM_D_K, offsetof(AttnParams, b_K)},
    {"b_V", true, true, true, PDIM_ONE, PDIM_D_K, offsetof(AttnParams, b_V)},
    {"W_O", false, false, false, PDIM_H_D_K, PDIM_D_MODEL, offsetof(AttnParams, W_O)},
    {"b_O", false, false, true, PDIM_ONE, PDIM_D_MODEL, offsetof(AttnParams, b_O)},
};

int params_dim(const AttnParams *p, ParamDim d)
{
    return d == PDIM_D_MODEL ? p->d_model
           : d == PDIM_D_K   ? p->d_k
           : d == PDIM_H_D_K ? p->heads * p->d_k
                             : 1;
}

// The per-head array of row i (a Matrix * inside p).
static Matrix **param_array(AttnParams *p, int i)
{
    return (Matrix **)(void *)((char *)p + PARAMS[i].offset);
}

Matrix *params_at(AttnParams *p, int i, int h)
{
    if (PARAMS[i].per_head) return *param_array(p, i) + h;
    return (Matrix *)(void *)((char *)p + PARAMS[i].offset);
}

const Matrix *params_at_const(const AttnParams *p, int i, int h)
{
    return params_at((AttnParams *)p, i, h);
}

int params_count(const AttnParams *p, int i)
{
    return !PARAMS[i].per_head ? 1 : PARAMS[i].per_kv ? p->kv_heads : p->heads;
}

// How many consecutive heads share one matrix of row i.
static int group_of(const AttnParams *p, int i)
{
    return PARAMS[i].per_kv ? p->heads / p->kv_heads : 1;
}

Matrix *params_own(AttnParams *p, int i, int k) { return params_at(p, i, k * group_of(p, i)); }

const Matrix *params_own_const(const AttnParams *p, int i, int k)
{
    return params_own((AttnParams *)p, i, k);
}

const Matrix *params_at_offset(const AttnParams *p, size_t offset, int h)
{
    for (int i = 0; i < PARAM_COUNT; i++)
        if (PARAMS[i].offset == offset) return params_at_const(p, i, PARAMS[i].per_head ? h : 0);
    return NULL;
}

bool params_init(AttnParams *p, int n, int m, int d_model, int heads, int d_k)
{
    return params_init_grouped(p, n, m, d_model, heads, heads, d_k);
}

bool params_init_grouped(AttnParams *p, int n, int m, int d_model, int heads, int kv_heads, int d_k)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->m = m;
    p->d_model = d_model;
    p->heads = heads;
    p->kv_heads = kv_heads;
    p->d_k = d_k;
    bool ok = mat_init(&p->X, n, d_model) && mat_init(&p->S, m, d_model);
    for (int i = 0; ok && i < PARAM_COUNT; i++) {
        int rows = params_dim(p, PARAMS[i].rows), cols = params_dim(p, PARAMS[i].cols);
        if (PARAMS[i].per_head)
            ok = (*param_array(p, i) = alloc_matrices(heads, group_of(p, i), rows, cols)) != NULL;
        else ok = mat_init(params_at(p, i, 0), rows, cols);
    }
    if (!ok) params_free(p);
    return ok;
}

void params_free(AttnParams *p)
{
    mat_free(&p->X);
    mat_free(&p->S);
    for (int i = 0; i < PARAM_COUNT; i++) {
        if (PARAMS[i].per_head)
            free_matrices(*param_array(p, i), p->heads, p->kv_heads > 0 ? group_of(p, i) : 1);
        else mat_free(params_at(p, i, 0));
    }
    mat_free(&p->E);
    mat_free(&p->P);
    mat_free(&p->E_S);
    mat_free(&p->P_S);
    memset(p, 0, sizeof *p);
}

void layer_stream_free(LayerStream *s)
{
    if (!s) return;
    int tokens = s->x.rows * s->top; // counted before x is freed (mat_free empties it)
    for (int i = 0; s->top_token && i < tokens; i++) free(s->top_token[i]);
    mat_free(&s->x);
    mat_free(&s->gain);
    mat_free(&s->shift);
    free(s->top_token);
    free(s->top_id);
    free(s->top_p);
    free(s->overview);
    memset(s, 0, sizeof *s);
}

static void copy_values(Matrix *dst, const Matrix *src)
{
    if (src->data)
        memcpy(dst->data, src->data, (size_t)src->rows * (size_t)src->cols * sizeof(double));
}

int params_trainable(Matrix **out, AttnParams *p)
{
    int k = 0;
    for (int h = 0; h < p->heads; h++)
        for (int i = 0; i < PARAM_COUNT; i++)
            if (PARAMS[i].per_head && h % group_of(p, i) == 0) out[k++] = params_at(p, i, h);
    for (int i = 0; i < PARAM_COUNT; i++)
        if (!PARAMS[i].per_head) out[k++] = params_at(p, i, 0);
    return k;
}

void params_copy_weights(AttnParams *dst, const AttnParams *src)
{
    for (int i = 0; i < PARAM_COUNT; i++)
        for (int k = 0; k < params_count(src, i); k++)
            copy_values(params_own(dst, i, k), params_own_const(src, i, k));
}

void params_swap_weights(AttnParams *a, AttnParams *b)
{
    // Every entry, the shared ones of a group too: each points at its owner's numbers in both, so
    // after the swap it points at the other's owner, which moved with it.
    for (int i = 0; i < PARAM_COUNT; i++)
        for (int h = 0; h < (PARAMS[i].per_head ? a->heads : 1); h++) {
            Matrix *x = params_at(a, i, h), *y = params_at(b, i, h);
            double *keep = x->data;
            x->data = y->data;
            y->data = keep;
        }
}

bool params_copy(AttnParams *out, const AttnParams *src)
{
    if (!params_init_grouped(out, src->n, src->m, src->d_model, src->heads, src->kv_heads,
                             src->d_k))
        return false;
    out->cfg = src->cfg; // every setting of the lesson
    out->rope_shift = src->rope_shift;
    out->rope_block = src->rope_block;
    copy_values(&out->X, &src->X);
    copy_values(&out->S, &src->S);
    params_copy_weights(out, src);
    out->ablated = src->ablated;
    out->stream = src->stream;
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
    out->stream = NULL; // a checkpoint's stream is in the tokens' own order
    // Without positions the rows of X are the token embeddings: they move. With positions E moves
    // and P stays.
    Matrix *moved = src->positions != POS_NONE ? &out->E : &out->X;
    const Matrix *from = src->positions != POS_NONE ? &src->E : &src->X;
    for (int i = 0; i < src->n; i++)
        memcpy(mat_row(moved, i), mat_row(from, perm[i]), (size_t)src->d_model * sizeof(double));
    if (src->positions != POS_NONE) params_apply_positions(out);
    else if (!src->cross) copy_values(&out->S, &out->X);
    return true;
}

double params_scale(const AttnParams *p)
{
    return p->scale > 0 ? p->scale : 1.0 / sqrt((double)p->d_k);
}
