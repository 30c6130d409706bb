// BERT as Hugging Face's modeling_bert.py (BertModel) computes it, post-LayerNorm:
//   h = LayerNorm(word(ids) + token_type(0) + position(0 .. n-1))           BertEmbeddings.forward
//   per layer: a = attention(h): q, k, v = query(h), key(h), value(h), per head softmax(q k^T /
//   sqrt(d)) v with no
//                  mask (one text: attention_mask all ones), then dense of the heads side by side
//                                                                           BertSelfAttention.forward,
//                                                                           BertSelfOutput
//              h = LayerNorm(a + h)                                         BertSelfOutput.forward
//              h = LayerNorm(output.dense(gelu(intermediate.dense(h))) + h)  BertIntermediate,
//              BertOutput
//   no language-model head: no next token (the pooler and the heads of BertFor… are not read).
// The attention's X is the layer's input itself: BERT normalizes after the residual add, not
// before.
#include <stdlib.h>
#include <string.h>

#include "core/block.h"
#include "hf/hf_arch.h"

// h = LayerNorm((word + token type 0) + position), in BertEmbeddings.forward's order.
bool hf_bert_embed(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err)
{
    int d = m->cfg.hidden;
    if (!hf_check_positions(m, n, err) || !mat_init(h, n, d)) return false;
    const StTensor *word = hf_model_tensor(m, HF_EMBED), *pos = hf_model_tensor(m, HF_POSITIONS);
    const StTensor *type = hf_model_tensor(m, HF_TYPES);
    bool ok = true;
    double *w = hf_model_vector(m, HF_EMBED_NORM, &ok),
           *b = hf_model_vector(m, HF_EMBED_NORM_BIAS, &ok);
    for (int i = 0; ok && i < n; i++) {
        double *row = mat_row(h, i);
        for (int j = 0; j < d; j++)
            row[j] =
                (st_get(word, (size_t)ids[i] * (size_t)d + (size_t)j) + st_get(type, (size_t)j))
                + st_get(pos, (size_t)i * (size_t)d + (size_t)j);
    }
    if (ok) block_layer_norm(h, h, w, b, m->cfg.eps);
    free(w);
    free(b);
    if (!ok) mat_free(h);
    return ok;
}

// p's weights: W_Q[h] (hidden, d) = query.weight[h*d + j][i], its bias; K, V the same; W_O =
// dense.weight^T.
static bool bert_weights(AttnParams *p, const HfModel *m, int layer)
{
    int d = m->cfg.head_dim, hidden = m->cfg.hidden;
    double *buf = malloc(sizeof *buf * (size_t)hidden * HF_COLUMN_BLOCK);
    if (!buf) return false;
    const HfLayerTensor rows[3][2] = {{HF_Q, HF_Q_BIAS}, {HF_K, HF_K_BIAS}, {HF_V, HF_V_BIAS}};
    for (int part = 0; part < 3; part++) {
        const StTensor *w = hf_layer_tensor(m, rows[part][0], layer);
        const StTensor *b = hf_layer_tensor(m, rows[part][1], layer);
        for (int h = 0; h < m->cfg.heads; h++) {
            Matrix *mat = part == 0 ? &p->W_Q[h] : part == 1 ? &p->W_K[h] : &p->W_V[h];
            Matrix *bias = part == 0 ? &p->b_Q[h] : part == 1 ? &p->b_K[h] : &p->b_V[h];
            hf_columns_from_rows(mat, w, h * d, buf);
            for (int j = 0; j < d; j++) mat_set(bias, 0, j, st_get(b, (size_t)(h * d + j)));
        }
    }
    const StTensor *o = hf_layer_tensor(m, HF_O, layer), *ob = hf_layer_tensor(m, HF_O_BIAS, layer);
    hf_columns_from_rows(&p->W_O, o, 0, buf);
    st_read(p->b_O.data, ob, 0, ob->count);
    free(buf);
    return true;
}

bool hf_bert_attention(AttnParams *p, const HfModel *m, int layer, const Matrix *h)
{
    const HfConfig *c = &m->cfg;
    if (!p->X.data && !params_init(p, h->rows, h->rows, c->hidden, c->heads, c->head_dim))
        return false;
    size_t bytes = sizeof(double) * (size_t)h->rows * (size_t)h->cols;
    memcpy(p->X.data, h->data, bytes);
    memcpy(p->S.data, h->data, bytes);
    p->mask = MASK_NONE;
    if (bert_weights(p, m, layer)) return true;
    params_free(p);
    return false;
}

// out (n, o) = x (n, i) @ w^T + b for the layer's tensors (w as torch.nn.Linear keeps it).
static bool bert_linear(Matrix *out, const Matrix *x, const HfModel *m, int layer,
                        HfLayerTensor wrow, HfLayerTensor brow)
{
    bool ok = true;
    double *b = hf_layer_vector(m, brow, layer, &ok);
    ok = ok && hf_linear(out, x, hf_layer_tensor(m, wrow, layer), b);
    free(b);
    return ok;
}

// h holds the attention's output plus the residual (hf_model.c added them): h = LayerNorm(h), then
// h = LayerNorm(output.dense(gelu(intermediate.dense(h))) + h).
bool hf_bert_mlp(Matrix *h, const HfModel *m, int layer)
{
    const HfConfig *c = &m->cfg;
    Matrix inner = {0}, out = {0};
    bool ok = mat_init(&inner, h->rows, c->intermediate) && mat_init(&out, h->rows, c->hidden);
    double *w1 = hf_layer_vector(m, HF_POST_NORM, layer, &ok),
           *b1 = hf_layer_vector(m, HF_POST_NORM_BIAS, layer, &ok);
    double *w2 = hf_layer_vector(m, HF_OUT_NORM, layer, &ok),
           *b2 = hf_layer_vector(m, HF_OUT_NORM_BIAS, layer, &ok);
    if (ok) block_layer_norm(h, h, w1, b1, c->eps);
    ok = ok && bert_linear(&inner, h, m, layer, HF_UP, HF_UP_BIAS);
    if (ok) block_gelu_erf(&inner);
    ok = ok && bert_linear(&out, &inner, m, layer, HF_DOWN, HF_DOWN_BIAS);
    if (ok) {
        block_add(&out, h); // output.dense(…) + input_tensor, in BertOutput's order
        block_layer_norm(h, &out, w2, b2, c->eps);
    }
    free(w1);
    free(b1);
    free(w2);
    free(b2);
    mat_free(&inner);
    mat_free(&out);
    return ok;
}
