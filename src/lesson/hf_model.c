// A Llama-family checkpoint's forward pass in float64, step by step as Hugging Face's modeling_llama.py
// (transformers 4.4x, LlamaDecoderLayer.forward) takes it:
//   h = embed_tokens(ids)                                          LlamaModel.forward
//   per layer: x = input_layernorm(h)  (RMSNorm)                   LlamaDecoderLayer.forward
//              a = self_attn(x): q, k, v = q_proj(x), k_proj(x), v_proj(x) per head; q, k turned by RoPE
//                  (apply_rotary_pos_emb: rotate_half, the pairs (j, j + d/2), inv_freq = theta^(-2j/d));
//                  k, v repeated over the group (repeat_kv); softmax(q k^T / sqrt(d) + causal mask) v;
//                  o_proj of the heads side by side                LlamaAttention.forward, eager_attention_forward
//              h = h + a;  h = h + mlp(post_attention_layernorm(h)),
//              mlp(x) = down_proj(silu(gate_proj(x)) * up_proj(x))  LlamaMLP.forward
//   logits = lm_head(norm(h)) (lm_head = embed_tokens when tied)    LlamaForCausalLM.forward
// The attention of every layer is the project's own trace (trace_run), so layer L is what the window steps.
#include "hf_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/block.h"
#include "hf_error.h"

typedef enum { D_NONE, D_HIDDEN, D_Q, D_KV, D_INTER, D_VOCAB } Dim;
typedef enum { NEED_ALWAYS, NEED_QKV_BIAS, NEED_O_BIAS, NEED_MLP_BIAS, NEED_UNTIED } Need;

typedef struct {
    const char *name; // printf format with the layer's number
    Dim rows, cols;   // a vector: (rows) and cols D_NONE
    Need need;
} TensorRow;

enum { T_IN_NORM, T_Q, T_QB, T_K, T_KB, T_V, T_VB, T_O, T_OB, T_POST_NORM, T_GATE, T_GATE_B, T_UP, T_UP_B, T_DOWN,
       T_DOWN_B, T_LAYER_COUNT };
static const TensorRow LAYER_TENSORS[T_LAYER_COUNT] = {
    [T_IN_NORM] = {"model.layers.%d.input_layernorm.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [T_Q] = {"model.layers.%d.self_attn.q_proj.weight", D_Q, D_HIDDEN, NEED_ALWAYS},
    [T_QB] = {"model.layers.%d.self_attn.q_proj.bias", D_Q, D_NONE, NEED_QKV_BIAS},
    [T_K] = {"model.layers.%d.self_attn.k_proj.weight", D_KV, D_HIDDEN, NEED_ALWAYS},
    [T_KB] = {"model.layers.%d.self_attn.k_proj.bias", D_KV, D_NONE, NEED_QKV_BIAS},
    [T_V] = {"model.layers.%d.self_attn.v_proj.weight", D_KV, D_HIDDEN, NEED_ALWAYS},
    [T_VB] = {"model.layers.%d.self_attn.v_proj.bias", D_KV, D_NONE, NEED_QKV_BIAS},
    [T_O] = {"model.layers.%d.self_attn.o_proj.weight", D_HIDDEN, D_Q, NEED_ALWAYS},
    [T_OB] = {"model.layers.%d.self_attn.o_proj.bias", D_HIDDEN, D_NONE, NEED_O_BIAS},
    [T_POST_NORM] = {"model.layers.%d.post_attention_layernorm.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [T_GATE] = {"model.layers.%d.mlp.gate_proj.weight", D_INTER, D_HIDDEN, NEED_ALWAYS},
    [T_GATE_B] = {"model.layers.%d.mlp.gate_proj.bias", D_INTER, D_NONE, NEED_MLP_BIAS},
    [T_UP] = {"model.layers.%d.mlp.up_proj.weight", D_INTER, D_HIDDEN, NEED_ALWAYS},
    [T_UP_B] = {"model.layers.%d.mlp.up_proj.bias", D_INTER, D_NONE, NEED_MLP_BIAS},
    [T_DOWN] = {"model.layers.%d.mlp.down_proj.weight", D_HIDDEN, D_INTER, NEED_ALWAYS},
    [T_DOWN_B] = {"model.layers.%d.mlp.down_proj.bias", D_HIDDEN, D_NONE, NEED_MLP_BIAS},
};

enum { T_EMBED, T_NORM, T_LM_HEAD, T_MODEL_COUNT };
static const TensorRow MODEL_TENSORS[T_MODEL_COUNT] = {
    [T_EMBED] = {"model.embed_tokens.weight", D_VOCAB, D_HIDDEN, NEED_ALWAYS},
    [T_NORM] = {"model.norm.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [T_LM_HEAD] = {"lm_head.weight", D_VOCAB, D_HIDDEN, NEED_UNTIED},
};

static int dim_size(const HfConfig *c, Dim d)
{
    int sizes[] = {[D_NONE] = 0, [D_HIDDEN] = c->hidden, [D_Q] = c->heads * c->head_dim,
                   [D_KV] = c->kv_heads * c->head_dim, [D_INTER] = c->intermediate, [D_VOCAB] = c->vocab};
    return sizes[d];
}

static bool needed(const HfConfig *c, Need need)
{
    bool when[] = {[NEED_ALWAYS] = true, [NEED_QKV_BIAS] = c->qkv_bias, [NEED_O_BIAS] = c->attn_bias,
                   [NEED_MLP_BIAS] = c->mlp_bias, [NEED_UNTIED] = !c->tie};
    return when[need];
}

// Row `row` of a table for layer (-1: a model tensor), or NULL when the config does not use it.
static const StTensor *tensor(const HfModel *m, const TensorRow *row, int layer)
{
    char name[160];
    snprintf(name, sizeof name, row->name, layer);
    return needed(&m->cfg, row->need) ? st_find(&m->ck, name) : NULL;
}

// Is the tensor of row there, with the shape the config gives and a dtype read here?
static bool check_tensor(const HfModel *m, const TensorRow *row, int layer, LessonError *err)
{
    if (!needed(&m->cfg, row->need)) return true;
    char name[160];
    snprintf(name, sizeof name, row->name, layer);
    const StTensor *t = st_find(&m->ck, name);
    if (!t) return hf_fail(err, m->ck.source, name, "missing: %s reads it", m->cfg.model_type);
    const char *file = m->ck.paths[t->file];
    if (t->dtype == ST_OTHER) return hf_fail(err, file, name, "dtype %s: only F32, F16, BF16 and F64 are read", t->dtype_name);
    int rows = dim_size(&m->cfg, row->rows), cols = dim_size(&m->cfg, row->cols);
    int ndim = row->cols == D_NONE ? 1 : 2;
    if (t->ndim != ndim || t->shape[0] != rows || (ndim == 2 && t->shape[1] != cols)) {
        char has[96] = "", want[48];
        for (int d = 0, used = 0; d < t->ndim && used < (int)sizeof has; d++)
            used += snprintf(has + used, sizeof has - (size_t)used, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
        if (ndim == 1) snprintf(want, sizeof want, "[%d]", rows);
        else snprintf(want, sizeof want, "[%d, %d]", rows, cols);
        return hf_fail(err, file, name, "shape [%s], but config.json's sizes make it %s", has, want);
    }
    return true;
}

static bool check_tensors(const HfModel *m, LessonError *err)
{
    for (int i = 0; i < T_MODEL_COUNT; i++)
        if (!check_tensor(m, &MODEL_TENSORS[i], -1, err)) return false;
    for (int l = 0; l < m->cfg.layers; l++)
        for (int i = 0; i < T_LAYER_COUNT; i++)
            if (!check_tensor(m, &LAYER_TENSORS[i], l, err)) return false;
    return true;
}

bool hf_model_open(HfModel *m, const char *dir, LessonError *err)
{
    memset(m, 0, sizeof *m);
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    if (!hf_config_load(&m->cfg, dir, err)) return false;
    if (!st_open_dir(&m->ck, dir, err)) return false;
    if (!check_tensors(m, err) || !tokenizer_load(&m->tok, dir, err)) {
        st_close(&m->ck);
        return false;
    }
    return true;
}

void hf_model_close(HfModel *m)
{
    st_close(&m->ck);
    tokenizer_free(&m->tok);
    memset(m, 0, sizeof *m);
}

// ---- one layer's weights, converted when the layer runs ----

static bool to_matrix(Matrix *out, const StTensor *t)
{
    if (!mat_init(out, (int)t->shape[0], (int)t->shape[1])) return false;
    st_read(out->data, t, 0, t->count);
    return true;
}

// The vector of row (NULL when the config has none: then *ok stays).
static double *to_vector(const HfModel *m, const TensorRow *row, int layer, bool *ok)
{
    const StTensor *t = tensor(m, row, layer);
    if (!t) return NULL;
    double *v = malloc(sizeof *v * t->count);
    if (v) st_read(v, t, 0, t->count);
    else *ok = false;
    return v;
}

// p's weights from layer's q, k, v and o projections: W_Q[h] (hidden, d) = q_proj.weight[h*d + j][i] (a
// torch Linear keeps (out, in)); K/V head g's in the group's first head; W_O = o_proj.weight^T.
static void fill_attention(AttnParams *p, const HfModel *m, int layer)
{
    const HfConfig *c = &m->cfg;
    int d = c->head_dim, group = c->heads / c->kv_heads;
    const StTensor *q = tensor(m, &LAYER_TENSORS[T_Q], layer), *k = tensor(m, &LAYER_TENSORS[T_K], layer);
    const StTensor *v = tensor(m, &LAYER_TENSORS[T_V], layer), *o = tensor(m, &LAYER_TENSORS[T_O], layer);
    const StTensor *qb = tensor(m, &LAYER_TENSORS[T_QB], layer), *kb = tensor(m, &LAYER_TENSORS[T_KB], layer);
    const StTensor *vb = tensor(m, &LAYER_TENSORS[T_VB], layer), *ob = tensor(m, &LAYER_TENSORS[T_OB], layer);
    for (int r = 0; r < c->heads * d; r++) {
        int h = r / d, j = r % d;
        for (int i = 0; i < c->hidden; i++) mat_set(&p->W_Q[h], i, j, st_get(q, (size_t)r * (size_t)c->hidden + (size_t)i));
        if (qb) mat_set(&p->b_Q[h], 0, j, st_get(qb, (size_t)r));
    }
    for (int r = 0; r < c->kv_heads * d; r++) {
        int h = r / d * group, j = r % d; // the group's first query head holds its K/V head
        for (int i = 0; i < c->hidden; i++) {
            mat_set(&p->W_K[h], i, j, st_get(k, (size_t)r * (size_t)c->hidden + (size_t)i));
            mat_set(&p->W_V[h], i, j, st_get(v, (size_t)r * (size_t)c->hidden + (size_t)i));
        }
        if (kb) mat_set(&p->b_K[h], 0, j, st_get(kb, (size_t)r));
        if (vb) mat_set(&p->b_V[h], 0, j, st_get(vb, (size_t)r));
    }
    for (int r = 0; r < c->hidden; r++) {
        for (int i = 0; i < c->heads * d; i++) mat_set(&p->W_O, i, r, st_get(o, (size_t)r * (size_t)(c->heads * d) + (size_t)i));
        if (ob) mat_set(&p->b_O, 0, r, st_get(ob, (size_t)r));
    }
}

// Layer `layer`'s attention on the residual stream h (n, hidden): p with X = input_layernorm(h) and its weights.
static bool layer_params(AttnParams *p, const HfModel *m, int layer, const Matrix *h)
{
    const HfConfig *c = &m->cfg;
    if (!params_init_grouped(p, h->rows, h->rows, c->hidden, c->heads, c->kv_heads, c->head_dim)) return false;
    bool ok = true;
    double *w = to_vector(m, &LAYER_TENSORS[T_IN_NORM], layer, &ok);
    if (!ok) {
        params_free(p);
        return false;
    }
    block_rms_norm(&p->X, h, w, c->eps);
    free(w);
    memcpy(p->S.data, p->X.data, sizeof(double) * (size_t)h->rows * (size_t)h->cols);
    p->kv_given = c->kv_heads < c->heads;
    p->mask = MASK_CAUSAL;
    p->window = c->sliding_window;
    p->rope = ROPE_HALVES;
    p->rope_base = c->rope_theta;
    fill_attention(p, m, layer);
    return true;
}

// h (n, hidden) += down_proj(silu(gate_proj(x)) * up_proj(x)), x = post_attention_layernorm(h).
static bool run_mlp(Matrix *h, const HfModel *m, int layer)
{
    const HfConfig *c = &m->cfg;
    Matrix x = {0}, w = {0}, gate = {0}, up = {0}, down = {0};
    bool ok = true;
    double *norm = to_vector(m, &LAYER_TENSORS[T_POST_NORM], layer, &ok);
    double *bg = to_vector(m, &LAYER_TENSORS[T_GATE_B], layer, &ok), *bu = to_vector(m, &LAYER_TENSORS[T_UP_B], layer, &ok);
    double *bd = to_vector(m, &LAYER_TENSORS[T_DOWN_B], layer, &ok);
    ok = ok && mat_init(&x, h->rows, h->cols) && mat_init(&gate, h->rows, c->intermediate)
         && mat_init(&up, h->rows, c->intermediate) && mat_init(&down, h->rows, c->hidden);
    if (ok) block_rms_norm(&x, h, norm, c->eps);
    // One (intermediate, hidden) weight converted at a time.
    if (ok && (ok = to_matrix(&w, tensor(m, &LAYER_TENSORS[T_GATE], layer)))) block_linear(&gate, &x, &w, bg);
    mat_free(&w);
    if (ok && (ok = to_matrix(&w, tensor(m, &LAYER_TENSORS[T_UP], layer)))) block_linear(&up, &x, &w, bu);
    mat_free(&w);
    if (ok) block_swiglu(&gate, &up);
    if (ok && (ok = to_matrix(&w, tensor(m, &LAYER_TENSORS[T_DOWN], layer)))) block_linear(&down, &gate, &w, bd);
    mat_free(&w);
    if (ok) block_add(h, &down);
    free(norm);
    free(bg);
    free(bu);
    free(bd);
    mat_free(&x);
    mat_free(&gate);
    mat_free(&up);
    mat_free(&down);
    return ok;
}

// ---- the next token ----

// logits = lm_head(norm(h[last])) over the vocabulary, read row by row in the tensor's own dtype (never converted
// whole); softmax in float64; the HF_TOP most probable (the lower id first among equals).
static bool next_tokens(HfRun *r, const HfModel *m, const Matrix *h)
{
    const HfConfig *c = &m->cfg;
    bool ok = true;
    double *norm = to_vector(m, &MODEL_TENSORS[T_NORM], -1, &ok);
    double *x = malloc(sizeof *x * (size_t)c->hidden), *logits = malloc(sizeof *logits * (size_t)c->vocab);
    const StTensor *head = c->tie ? tensor(m, &MODEL_TENSORS[T_EMBED], -1) : tensor(m, &MODEL_TENSORS[T_LM_HEAD], -1);
    ok = ok && x && logits;
    if (ok) {
        Matrix last = {1, c->hidden, mat_row(h, h->rows - 1)}, out = {1, c->hidden, x};
        block_rms_norm(&out, &last, norm, c->eps);
        double top = -INFINITY;
        for (int v = 0; v < c->vocab; v++) {
            double s = 0;
            for (int i = 0; i < c->hidden; i++) s += st_get(head, (size_t)v * (size_t)c->hidden + (size_t)i) * x[i];
            logits[v] = s;
            if (s > top) top = s;
        }
        double sum = 0;
        for (int v = 0; v < c->vocab; v++) sum += logits[v] = exp(logits[v] - top);
        for (int v = 0; v < c->vocab; v++) logits[v] /= sum;
        for (int k = 0; k < HF_TOP && k < c->vocab; k++) {
            int best = -1;
            for (int v = 0; v < c->vocab; v++) {
                bool taken = false;
                for (int q = 0; q < k; q++) taken |= r->next[q].id == v;
                if (!taken && (best < 0 || logits[v] > logits[best])) best = v;
            }
            r->next[k].id = best;
            r->next[k].p = logits[best];
            if (!(r->next[k].token = tokenizer_display(&m->tok, best))) ok = false;
        }
    }
    free(norm);
    free(x);
    free(logits);
    return ok;
}

// ---- the run ----

// r->lesson from layer's params (taken over): its title, tokens and the params.
static bool make_lesson(HfRun *r, const HfModel *m, int layer, AttnParams *p)
{
    Lesson *l = &r->lesson;
    const char *base = strrchr(m->dir, '/');
    base = base && base[1] ? base + 1 : m->dir;
    char title[1200];
    snprintf(title, sizeof title, "%s: layer %d of %d (%s)", base, layer, m->cfg.layers, m->cfg.model_type);
    l->title = malloc(strlen(title) + 1);
    l->tokens = calloc((size_t)r->n, sizeof *l->tokens);
    l->source_tokens = calloc((size_t)r->n, sizeof *l->source_tokens);
    l->params = *p;
    memset(p, 0, sizeof *p);
    bool ok = l->title && l->tokens && l->source_tokens;
    if (ok) strcpy(l->title, title);
    for (int i = 0; ok && i < r->n; i++)
        ok = (l->tokens[i] = tokenizer_display(&m->tok, r->ids[i])) && (l->source_tokens[i] = tokenizer_display(&m->tok, r->ids[i]));
    return ok;
}

// h (n, hidden) = the embeddings of ids, each row read from embed_tokens.weight in its dtype.
static bool embed(Matrix *h, const HfModel *m, const int *ids, int n)
{
    if (!mat_init(h, n, m->cfg.hidden)) return false;
    const StTensor *e = tensor(m, &MODEL_TENSORS[T_EMBED], -1);
    for (int i = 0; i < n; i++) st_read(mat_row(h, i), e, (size_t)ids[i] * (size_t)m->cfg.hidden, (size_t)m->cfg.hidden);
    return true;
}

// Every layer on h: attention (the trace) and residual, MLP and residual; layer `keep`'s params into r->lesson.
static bool run_layers(HfRun *r, const HfModel *m, Matrix *h, int keep, LessonError *err)
{
    for (int l = 0; l < m->cfg.layers; l++) {
        AttnParams p;
        Trace t;
        TraceError terr;
        if (!layer_params(&p, m, l, h)) return hf_fail(err, m->dir, NULL, "out of memory");
        if (!trace_run(&t, &p, &terr)) {
            params_free(&p);
            char field[64];
            snprintf(field, sizeof field, "model.layers.%d.self_attn", l);
            return hf_fail(err, m->ck.source, field, "%s", terr.message);
        }
        block_add(h, &t.output);
        trace_free(&t);
        bool ok = l != keep || make_lesson(r, m, l, &p);
        params_free(&p);
        if (!ok || !run_mlp(h, m, l)) return hf_fail(err, m->dir, NULL, "out of memory");
        if (!mat_all_finite(h, false)) {
            char field[64];
            snprintf(field, sizeof field, "model.layers.%d", l);
            return hf_fail(err, m->ck.source, field, "the residual stream overflows after this layer");
        }
    }
    return true;
}

bool hf_model_run(HfRun *r, const HfModel *m, const char *text, int layer, LessonError *err)
{
    memset(r, 0, sizeof *r);
    char config[1100];
    snprintf(config, sizeof config, "%s/config.json", m->dir);
    if (layer < 0 || layer >= m->cfg.layers)
        return hf_fail(err, config, "num_hidden_layers", "--layer %d: the model has %d layers (0 to %d)", layer,
                       m->cfg.layers, m->cfg.layers - 1);
    char tok_path[1100];
    snprintf(tok_path, sizeof tok_path, "%s/tokenizer.json", m->dir);
    if (!tokenizer_encode(&m->tok, text, &r->ids, &r->n, tok_path, err)) return false;
    bool ok = true;
    if (r->n < 1 || r->n > LESSON_MAX_TOKENS)
        ok = hf_fail(err, tok_path, NULL, "the text is %d tokens: 1 to %d are traced", r->n, LESSON_MAX_TOKENS);
    for (int i = 0; ok && i < r->n; i++)
        if (r->ids[i] < 0 || r->ids[i] >= m->cfg.vocab)
            ok = hf_fail(err, config, "vocab_size", "token id %d of the text is past the vocabulary's %d", r->ids[i],
                         m->cfg.vocab);
    Matrix h = {0};
    if (ok && !embed(&h, m, r->ids, r->n)) ok = hf_fail(err, m->dir, NULL, "out of memory");
    if (ok) ok = run_layers(r, m, &h, layer, err);
    if (ok && !next_tokens(r, m, &h)) ok = hf_fail(err, m->dir, NULL, "out of memory");
    mat_free(&h);
    if (!ok) hf_run_free(r);
    return ok;
}

void hf_run_free(HfRun *r)
{
    free(r->ids);
    lesson_free(&r->lesson);
    for (int k = 0; k < HF_TOP; k++) free(r->next[k].token);
    memset(r, 0, sizeof *r);
}
