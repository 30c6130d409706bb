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

bool hf_gpt2_embed(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err)
{
    int d = m->cfg.hidden;
    if (!hf_check_positions(m, n, err) || !mat_init(h, n, d)) return false;
    const StTensor *wte = hf_model_tensor(m, HF_EMBED), *wpe = hf_model_tensor(m, HF_POSITIONS);
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
    const StTensor *w = hf_layer_tensor(m, HF_QKV, layer),
                   *b = hf_layer_tensor(m, HF_QKV_BIAS, layer);
    const StTensor *o = hf_layer_tensor(m, HF_O, layer), *ob = hf_layer_tensor(m, HF_O_BIAS, layer);
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

bool hf_gpt2_attention(AttnParams *p, const HfModel *m, int layer, const Matrix *h)
{
    const HfConfig *c = &m->cfg;
    if (!p->X.data && !params_init(p, h->rows, h->rows, c->hidden, c->heads, c->head_dim))
        return false;
    bool ok = true;
    double *w = hf_layer_vector(m, HF_IN_NORM, layer, &ok),
           *b = hf_layer_vector(m, HF_IN_NORM_BIAS, layer, &ok);
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
static bool conv1d(Matrix *out, const Matrix *x, const HfModel *m, int layer, HfLayerTensor wrow,
                   HfLayerTensor brow)
{
    Matrix w;
    bool ok = true;
    if (!hf_matrix(&w, hf_layer_tensor(m, wrow, layer))) return false;
    double *b = hf_layer_vector(m, brow, layer, &ok);
    if (ok) {
        mat_matmul(out, x, &w);
        for (int i = 0; i < out->rows; i++)
            for (int j = 0; j < out->cols; j++) mat_row(out, i)[j] += b[j];
    }
    free(b);
    mat_free(&w);
    return ok;
}

bool hf_gpt2_mlp(Matrix *h, const HfModel *m, int layer)
{
    const HfConfig *c = &m->cfg;
    Matrix x = {0}, inner = {0}, out = {0};
    bool ok = mat_init(&x, h->rows, c->hidden) && mat_init(&inner, h->rows, c->intermediate)
              && mat_init(&out, h->rows, c->hidden);
    double *w = hf_layer_vector(m, HF_POST_NORM, layer, &ok),
           *b = hf_layer_vector(m, HF_POST_NORM_BIAS, layer, &ok);
    if (ok) block_layer_norm(&x, h, w, b, c->eps);
    ok = ok && conv1d(&inner, &x, m, layer, HF_UP, HF_UP_BIAS);
    if (ok) block_gelu_tanh(&inner);
    ok = ok && conv1d(&out, &inner, m, layer, HF_DOWN, HF_DOWN_BIAS);
    if (ok) block_add(h, &out);
    free(w);
    free(b);
    mat_free(&x);
    mat_free(&inner);
    mat_free(&out);
    return ok;
}
