// GPT-2 as Hugging Face's modeling_gpt2.py (transformers 4.4x) computes it:
//   h = wte(ids) + wpe(positions)                                  GPT2Model.forward
//   per layer: a = attn(ln_1(h)): q, k, v = c_attn(x) split in three (Conv1D: x @ W + b, W (in,
//   out)), then
//                  per head softmax(q k^T / sqrt(d) + causal mask) v, c_proj of the heads side by
//                  side
//                                                                   GPT2Attention.forward,
//                                                                   eager_attention_forward
//              h = h + a;  h = h + c_proj(gelu_new(c_fc(ln_2(h))))  GPT2Block.forward,
//              GPT2MLP.forward
//   logits = ln_f(h) @ wte^T (tied)                                 GPT2LMHeadModel.forward
#include <stdlib.h>
#include <string.h>

#include "core/block.h"
#include "hf/hf_arch.h"
#include "hf/hf_error.h"

enum {
    G_LN1_W,
    G_LN1_B,
    G_ATTN_W,
    G_ATTN_B,
    G_PROJ_W,
    G_PROJ_B,
    G_LN2_W,
    G_LN2_B,
    G_FC_W,
    G_FC_B,
    G_MLP_PROJ_W,
    G_MLP_PROJ_B,
    G_LAYER_COUNT
};
static const HfTensorRow LAYER_TENSORS[G_LAYER_COUNT] = {
    [G_LN1_W] = {"h.%d.ln_1.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [G_LN1_B] = {"h.%d.ln_1.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [G_ATTN_W] = {"h.%d.attn.c_attn.weight", D_HIDDEN, D_QKV, NEED_ALWAYS},
    [G_ATTN_B] = {"h.%d.attn.c_attn.bias", D_QKV, D_NONE, NEED_ALWAYS},
    [G_PROJ_W] = {"h.%d.attn.c_proj.weight", D_Q, D_HIDDEN, NEED_ALWAYS},
    [G_PROJ_B] = {"h.%d.attn.c_proj.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [G_LN2_W] = {"h.%d.ln_2.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [G_LN2_B] = {"h.%d.ln_2.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [G_FC_W] = {"h.%d.mlp.c_fc.weight", D_HIDDEN, D_INTER, NEED_ALWAYS},
    [G_FC_B] = {"h.%d.mlp.c_fc.bias", D_INTER, D_NONE, NEED_ALWAYS},
    [G_MLP_PROJ_W] = {"h.%d.mlp.c_proj.weight", D_INTER, D_HIDDEN, NEED_ALWAYS},
    [G_MLP_PROJ_B] = {"h.%d.mlp.c_proj.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
};

enum { G_WTE, G_WPE, G_LNF_W, G_LNF_B, G_MODEL_COUNT };
static const HfTensorRow MODEL_TENSORS[G_MODEL_COUNT] = {
    [G_WTE] = {"wte.weight", D_VOCAB, D_HIDDEN, NEED_ALWAYS},
    [G_WPE] = {"wpe.weight", D_POSITIONS, D_HIDDEN, NEED_ALWAYS},
    [G_LNF_W] = {"ln_f.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [G_LNF_B] = {"ln_f.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
};

// GPT2Model's own checkpoints name the tensors bare ("h.0.ln_1.weight"), GPT2LMHeadModel's
// "transformer.h.0...".
static const char *const PREFIXES[] = {"", "transformer.", NULL};

static bool gpt2_embed(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err)
{
    int d = m->cfg.hidden;
    if (n > m->cfg.positions) {
        char config[1100];
        snprintf(config, sizeof config, "%s/config.json", m->dir);
        return hf_fail(err, config, "n_positions",
                       "the text is %d tokens; the model has positions for %d", n,
                       m->cfg.positions);
    }
    if (!mat_init(h, n, d)) return false;
    const StTensor *wte = hf_tensor(m, &MODEL_TENSORS[G_WTE], -1),
                   *wpe = hf_tensor(m, &MODEL_TENSORS[G_WPE], -1);
    for (int i = 0; i < n; i++) {
        double *row = mat_row(h, i);
        for (int j = 0; j < d; j++)
            row[j] = st_get(wte, (size_t)ids[i] * (size_t)d + (size_t)j)
                     + st_get(wpe, (size_t)i * (size_t)d + (size_t)j);
    }
    return true;
}

// p's weights: c_attn.weight (hidden, 3 hidden) holds q, k, v side by side, head h's columns h*d ..
// h*d + d - 1 of each; c_proj.weight (hidden, hidden) is W_O as it is (Conv1D keeps (in, out)).
static void gpt2_weights(AttnParams *p, const HfModel *m, int layer)
{
    int d = m->cfg.head_dim, hidden = m->cfg.hidden, qkv = 3 * hidden;
    const StTensor *w = hf_tensor(m, &LAYER_TENSORS[G_ATTN_W], layer),
                   *b = hf_tensor(m, &LAYER_TENSORS[G_ATTN_B], layer);
    const StTensor *o = hf_tensor(m, &LAYER_TENSORS[G_PROJ_W], layer),
                   *ob = hf_tensor(m, &LAYER_TENSORS[G_PROJ_B], layer);
    for (int h = 0; h < m->cfg.heads; h++) {
        Matrix *mats[3] = {&p->W_Q[h], &p->W_K[h], &p->W_V[h]},
               *bias[3] = {&p->b_Q[h], &p->b_K[h], &p->b_V[h]};
        for (int part = 0; part < 3; part++)
            for (int j = 0; j < d; j++) {
                size_t col = (size_t)(part * hidden + h * d + j);
                for (int i = 0; i < hidden; i++)
                    mat_set(mats[part], i, j, st_get(w, (size_t)i * (size_t)qkv + col));
                mat_set(bias[part], 0, j, st_get(b, col));
            }
    }
    st_read(p->W_O.data, o, 0, o->count);
    st_read(p->b_O.data, ob, 0, ob->count);
}

static bool gpt2_attention(AttnParams *p, const HfModel *m, int layer, const Matrix *h)
{
    const HfConfig *c = &m->cfg;
    if (!p->X.data && !params_init(p, h->rows, h->rows, c->hidden, c->heads, c->head_dim))
        return false;
    bool ok = true;
    double *w = hf_vector(m, &LAYER_TENSORS[G_LN1_W], layer, &ok),
           *b = hf_vector(m, &LAYER_TENSORS[G_LN1_B], layer, &ok);
    if (ok) block_layer_norm(&p->X, h, w, b, c->eps);
    free(w);
    free(b);
    if (!ok) {
        params_free(p);
        return false;
    }
    memcpy(p->S.data, p->X.data, sizeof(double) * (size_t)h->rows * (size_t)h->cols);
    p->mask = MASK_CAUSAL;
    if (!c->scale_attn) p->scale = 1.0; // scale_attn_weights false: the scores as they are
    gpt2_weights(p, m, layer);
    return true;
}

// out (n, o) = x (n, i) @ W (i, o) + b: transformers' Conv1D.
static bool conv1d(Matrix *out, const Matrix *x, const HfModel *m, int layer, int wrow, int brow)
{
    Matrix w;
    bool ok = true;
    if (!hf_matrix(&w, hf_tensor(m, &LAYER_TENSORS[wrow], layer))) return false;
    double *b = hf_vector(m, &LAYER_TENSORS[brow], layer, &ok);
    if (ok) {
        mat_matmul(out, x, &w);
        for (int i = 0; i < out->rows; i++)
            for (int j = 0; j < out->cols; j++) mat_row(out, i)[j] += b[j];
    }
    free(b);
    mat_free(&w);
    return ok;
}

static bool gpt2_mlp(Matrix *h, const HfModel *m, int layer)
{
    const HfConfig *c = &m->cfg;
    Matrix x = {0}, inner = {0}, out = {0};
    bool ok = mat_init(&x, h->rows, c->hidden) && mat_init(&inner, h->rows, c->intermediate)
              && mat_init(&out, h->rows, c->hidden);
    double *w = hf_vector(m, &LAYER_TENSORS[G_LN2_W], layer, &ok),
           *b = hf_vector(m, &LAYER_TENSORS[G_LN2_B], layer, &ok);
    if (ok) block_layer_norm(&x, h, w, b, c->eps);
    ok = ok && conv1d(&inner, &x, m, layer, G_FC_W, G_FC_B);
    if (ok) block_gelu_tanh(&inner);
    ok = ok && conv1d(&out, &inner, m, layer, G_MLP_PROJ_W, G_MLP_PROJ_B);
    if (ok) block_add(h, &out);
    free(w);
    free(b);
    mat_free(&x);
    mat_free(&inner);
    mat_free(&out);
    return ok;
}

static bool gpt2_final_norm(double *out, const HfModel *m, const double *row)
{
    bool ok = true;
    double *w = hf_vector(m, &MODEL_TENSORS[G_LNF_W], -1, &ok),
           *b = hf_vector(m, &MODEL_TENSORS[G_LNF_B], -1, &ok);
    if (ok) {
        Matrix in = {1, m->cfg.hidden, (double *)row}, o = {1, m->cfg.hidden, out};
        block_layer_norm(&o, &in, w, b, m->cfg.eps);
    }
    free(w);
    free(b);
    return ok;
}

const HfArchOps HF_GPT2_OPS = {.model_rows = MODEL_TENSORS,
                               .model_count = G_MODEL_COUNT,
                               .layer_rows = LAYER_TENSORS,
                               .layer_count = G_LAYER_COUNT,
                               .prefixes = PREFIXES,
                               .embed = gpt2_embed,
                               .attention = gpt2_attention,
                               .mlp = gpt2_mlp,
                               .final_norm = gpt2_final_norm,
                               .unembedding = G_WTE,
                               .unembedding_untied = G_WTE,
                               .norm = NORM_LAYER,
                               .norm_gain = G_LN1_W,
                               .norm_shift = G_LN1_B,
                               .layers_key = "n_layer",
                               .input_norm = "ln_1, a LayerNorm"};
