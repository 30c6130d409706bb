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
    {"W_Q", true, false, false, PDIM_D_MODEL, PDIM_D_K, offsetof(LayerWeights, W_Q)},
    {"W_K", true, true, false, PDIM_D_MODEL, PDIM_D_K, offsetof(LayerWeights, W_K)},
    {"W_V", true, true, false, PDIM_D_MODEL, PDIM_D_K, offsetof(LayerWeights, W_V)},
    {"b_Q", true, false, true, PDIM_ONE, PDIM_D_K, offsetof(LayerWeights, b_Q)},
    {"b_K", true, true, true, PDIM_ONE, PDIM_D_K, offsetof(LayerWeights, b_K)},
    {"b_V", true, true, true, PDIM_ONE, PDIM_D_K, offsetof(LayerWeights, b_V)},
    {"W_O", false, false, false, PDIM_H_D_K, PDIM_D_MODEL, offsetof(LayerWeights, W_O)},
    {"b_O", false, false, true, PDIM_ONE, PDIM_D_MODEL, offsetof(LayerWeights, b_O)},
};

static void copy_values(Matrix *dst, const Matrix *src)
{
    if (src->data)
        memcpy(dst->data, src->data, (size_t)src->rows * (size_t)src->cols * sizeof(double));
}

// ---------------------------------------------------------------------------------------------------
// One layer's weights

int layer_shape_dim(LayerShape s, ParamDim d)
{
    return d == PDIM_D_MODEL ? s.d_model
           : d == PDIM_D_K   ? s.d_k
           : d == PDIM_H_D_K ? s.heads * s.d_k
                             : 1;
}

// The per-head array of row i (a Matrix * inside w).
static Matrix **weight_array(LayerWeights *w, int i)
{
    return (Matrix **)(void *)((char *)w + PARAMS[i].offset);
}

Matrix *layer_weights_at(LayerWeights *w, int i, int h)
{
    if (PARAMS[i].per_head) return *weight_array(w, i) + h;
    return (Matrix *)(void *)((char *)w + PARAMS[i].offset);
}

const Matrix *layer_weights_at_const(const LayerWeights *w, int i, int h)
{
    return layer_weights_at((LayerWeights *)w, i, h);
}

int layer_weights_count(LayerShape s, int i)
{
    return !PARAMS[i].per_head ? 1 : PARAMS[i].per_kv ? s.kv_heads : s.heads;
}

// How many consecutive heads share one matrix of row i (1 for a shape not yet given).
static int group_of(LayerShape s, int i)
{
    return PARAMS[i].per_kv && s.kv_heads > 0 ? s.heads / s.kv_heads : 1;
}

Matrix *layer_weights_own(LayerWeights *w, LayerShape s, int i, int k)
{
    return layer_weights_at(w, i, k * group_of(s, i));
}

const Matrix *layer_weights_own_const(const LayerWeights *w, LayerShape s, int i, int k)
{
    return layer_weights_own((LayerWeights *)w, s, i, k);
}

bool layer_weights_init(LayerWeights *w, LayerShape s)
{
    memset(w, 0, sizeof *w);
    bool ok = true;
    for (int i = 0; ok && i < PARAM_COUNT; i++) {
        int rows = layer_shape_dim(s, PARAMS[i].rows), cols = layer_shape_dim(s, PARAMS[i].cols);
        if (PARAMS[i].per_head)
            ok =
                (*weight_array(w, i) = alloc_matrices(s.heads, group_of(s, i), rows, cols)) != NULL;
        else ok = mat_init(layer_weights_at(w, i, 0), rows, cols);
    }
    if (!ok) layer_weights_free(w, s);
    return ok;
}

void layer_weights_free(LayerWeights *w, LayerShape s)
{
    for (int i = 0; i < PARAM_COUNT; i++) {
        if (PARAMS[i].per_head) free_matrices(*weight_array(w, i), s.heads, group_of(s, i));
        else mat_free(layer_weights_at(w, i, 0));
    }
    memset(w, 0, sizeof *w);
}

void layer_weights_copy_values(LayerWeights *dst, const LayerWeights *src, LayerShape s)
{
    for (int i = 0; i < PARAM_COUNT; i++)
        for (int k = 0; k < layer_weights_count(s, i); k++)
            copy_values(layer_weights_own(dst, s, i, k), layer_weights_own_const(src, s, i, k));
}

bool layer_weights_copy(LayerWeights *out, const LayerWeights *src, LayerShape s)
{
    if (!layer_weights_init(out, s)) return false;
    layer_weights_copy_values(out, src, s);
    return true;
}

void layer_weights_swap(LayerWeights *a, LayerWeights *b, LayerShape s)
{
    // Every entry, the shared ones of a group too: each points at its owner's numbers in both, so
    // after the swap it points at the other's owner, which moved with it.
    for (int i = 0; i < PARAM_COUNT; i++)
        for (int h = 0; h < (PARAMS[i].per_head ? s.heads : 1); h++) {
            Matrix *x = layer_weights_at(a, i, h), *y = layer_weights_at(b, i, h);
            double *keep = x->data;
            x->data = y->data;
            y->data = keep;
        }
}

int layer_weights_trainable(Matrix **out, LayerWeights *w, LayerShape s)
{
    int k = 0;
    for (int h = 0; h < s.heads; h++)
        for (int i = 0; i < PARAM_COUNT; i++)
            if (PARAMS[i].per_head && h % group_of(s, i) == 0) out[k++] = layer_weights_at(w, i, h);
    for (int i = 0; i < PARAM_COUNT; i++)
        if (!PARAMS[i].per_head) out[k++] = layer_weights_at(w, i, 0);
    return k;
}

// ---------------------------------------------------------------------------------------------------
// The parameters of one lesson: its inputs and the weights of its layer

int params_dim(const AttnParams *p, ParamDim d) { return layer_shape_dim(params_shape(p), d); }

Matrix *params_at(AttnParams *p, int i, int h) { return layer_weights_at(&p->w, i, h); }

const Matrix *params_at_const(const AttnParams *p, int i, int h)
{
    return layer_weights_at_const(&p->w, i, h);
}

int params_count(const AttnParams *p, int i) { return layer_weights_count(params_shape(p), i); }

Matrix *params_own(AttnParams *p, int i, int k)
{
    return layer_weights_own(&p->w, params_shape(p), i, k);
}

const Matrix *params_own_const(const AttnParams *p, int i, int k)
{
    return layer_weights_own_const(&p->w, params_shape(p), i, k);
}

int params_trainable(Matrix **out, AttnParams *p)
{
    return layer_weights_trainable(out, &p->w, params_shape(p));
}

void params_copy_weights(AttnParams *dst, const AttnParams *src)
{
    layer_weights_copy_values(&dst->w, &src->w, params_shape(src));
}

void params_swap_weights(AttnParams *a, AttnParams *b)
{
    layer_weights_swap(&a->w, &b->w, params_shape(a));
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
    bool ok = mat_init(&p->X, n, d_model) && mat_init(&p->S, m, d_model)
              && layer_weights_init(&p->w, params_shape(p));
    if (!ok) params_free(p);
    return ok;
}

void params_free(AttnParams *p)
{
    mat_free(&p->X);
    mat_free(&p->S);
    layer_weights_free(&p->w, params_shape(p));
    mat_free(&p->E);
    mat_free(&p->P);
    mat_free(&p->E_S);
    mat_free(&p->P_S);
    memset(p, 0, sizeof *p);
}

bool params_copy(AttnParams *out, const AttnParams *src)
{
    if (!params_init_grouped(out, src->n, src->m, src->d_model, src->heads, src->kv_heads,
                             src->d_k))
        return false;
    out->cfg = src->cfg; // every setting of the lesson
    out->req = src->req; // and what its runs ask
    copy_values(&out->X, &src->X);
    copy_values(&out->S, &src->S);
    layer_weights_copy_values(&out->w, &src->w, params_shape(src));
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
