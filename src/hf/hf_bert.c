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
#include "hf/hf_error.h"

enum {
    B_Q,
    B_QB,
    B_K,
    B_KB,
    B_V,
    B_VB,
    B_O,
    B_OB,
    B_LN1_W,
    B_LN1_B,
    B_INTER,
    B_INTER_B,
    B_OUT,
    B_OUT_B,
    B_LN2_W,
    B_LN2_B,
    B_LAYER_COUNT
};
static const HfTensorRow LAYER_TENSORS[B_LAYER_COUNT] = {
    [B_Q] = {"encoder.layer.%d.attention.self.query.weight", D_HIDDEN, D_HIDDEN, NEED_ALWAYS},
    [B_QB] = {"encoder.layer.%d.attention.self.query.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [B_K] = {"encoder.layer.%d.attention.self.key.weight", D_HIDDEN, D_HIDDEN, NEED_ALWAYS},
    [B_KB] = {"encoder.layer.%d.attention.self.key.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [B_V] = {"encoder.layer.%d.attention.self.value.weight", D_HIDDEN, D_HIDDEN, NEED_ALWAYS},
    [B_VB] = {"encoder.layer.%d.attention.self.value.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [B_O] = {"encoder.layer.%d.attention.output.dense.weight", D_HIDDEN, D_HIDDEN, NEED_ALWAYS},
    [B_OB] = {"encoder.layer.%d.attention.output.dense.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [B_LN1_W] = {"encoder.layer.%d.attention.output.LayerNorm.weight", D_HIDDEN, D_NONE,
                 NEED_ALWAYS},
    [B_LN1_B] = {"encoder.layer.%d.attention.output.LayerNorm.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [B_INTER] = {"encoder.layer.%d.intermediate.dense.weight", D_INTER, D_HIDDEN, NEED_ALWAYS},
    [B_INTER_B] = {"encoder.layer.%d.intermediate.dense.bias", D_INTER, D_NONE, NEED_ALWAYS},
    [B_OUT] = {"encoder.layer.%d.output.dense.weight", D_HIDDEN, D_INTER, NEED_ALWAYS},
    [B_OUT_B] = {"encoder.layer.%d.output.dense.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [B_LN2_W] = {"encoder.layer.%d.output.LayerNorm.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [B_LN2_B] = {"encoder.layer.%d.output.LayerNorm.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
};

enum { B_WORD, B_POS, B_TYPE, B_ELN_W, B_ELN_B, B_MODEL_COUNT };
static const HfTensorRow MODEL_TENSORS[B_MODEL_COUNT] = {
    [B_WORD] = {"embeddings.word_embeddings.weight", D_VOCAB, D_HIDDEN, NEED_ALWAYS},
    [B_POS] = {"embeddings.position_embeddings.weight", D_POSITIONS, D_HIDDEN, NEED_ALWAYS},
    [B_TYPE] = {"embeddings.token_type_embeddings.weight", D_TYPES, D_HIDDEN, NEED_ALWAYS},
    [B_ELN_W] = {"embeddings.LayerNorm.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [B_ELN_B] = {"embeddings.LayerNorm.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
};

// BertModel's own checkpoints name the tensors bare ("embeddings…"), BertForMaskedLM's and the
// others' "bert.…".
static const char *const PREFIXES[] = {"", "bert.", NULL};

// h = LayerNorm((word + token type 0) + position), in BertEmbeddings.forward's order.
static bool bert_embed(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err)
{
    int d = m->cfg.hidden;
    if (n > m->cfg.positions) {
        char config[1100];
        snprintf(config, sizeof config, "%s/config.json", m->dir);
        return hf_fail(err, config, "max_position_embeddings",
                       "the text is %d tokens; the model has positions for %d", n,
                       m->cfg.positions);
    }
    if (!mat_init(h, n, d)) return false;
    const StTensor *word = hf_tensor(m, &MODEL_TENSORS[B_WORD], -1),
                   *pos = hf_tensor(m, &MODEL_TENSORS[B_POS], -1);
    const StTensor *type = hf_tensor(m, &MODEL_TENSORS[B_TYPE], -1);
    bool ok = true;
    double *w = hf_vector(m, &MODEL_TENSORS[B_ELN_W], -1, &ok),
           *b = hf_vector(m, &MODEL_TENSORS[B_ELN_B], -1, &ok);
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

// Column j of dst = row r of the 2-D tensor t (a torch Linear keeps (out, in)): dst = t^T, a block
// at a time.
static void transposed(Matrix *dst, int c0, const StTensor *t, int r0, double *buf)
{
    int rows = dst->rows, count = dst->cols - c0 < 64 ? dst->cols - c0 : 64;
    st_read(buf, t, (size_t)r0 * (size_t)rows, (size_t)count * (size_t)rows);
    for (int i0 = 0; i0 < rows;
         i0 += 8) { // 8 rows of dst at a time: one cache line of each buf row read
        int i1 = rows - i0 < 8 ? rows : i0 + 8;
        for (int j = 0; j < count; j++)
            for (int i = i0; i < i1; i++)
                mat_row(dst, i)[c0 + j] = buf[(size_t)j * (size_t)rows + (size_t)i];
    }
}

// p's weights: W_Q[h] (hidden, d) = query.weight[h*d + j][i], its bias; K, V the same; W_O =
// dense.weight^T.
static bool bert_weights(AttnParams *p, const HfModel *m, int layer)
{
    int d = m->cfg.head_dim, hidden = m->cfg.hidden;
    double *buf = malloc(sizeof *buf * (size_t)hidden * 64);
    if (!buf) return false;
    const int rows[3][2] = {{B_Q, B_QB}, {B_K, B_KB}, {B_V, B_VB}};
    for (int part = 0; part < 3; part++) {
        const StTensor *w = hf_tensor(m, &LAYER_TENSORS[rows[part][0]], layer);
        const StTensor *b = hf_tensor(m, &LAYER_TENSORS[rows[part][1]], layer);
        for (int h = 0; h < m->cfg.heads; h++) {
            Matrix *mat = part == 0 ? &p->W_Q[h] : part == 1 ? &p->W_K[h] : &p->W_V[h];
            Matrix *bias = part == 0 ? &p->b_Q[h] : part == 1 ? &p->b_K[h] : &p->b_V[h];
            for (int c = 0; c < d; c += 64) transposed(mat, c, w, h * d + c, buf);
            for (int j = 0; j < d; j++) mat_set(bias, 0, j, st_get(b, (size_t)(h * d + j)));
        }
    }
    const StTensor *o = hf_tensor(m, &LAYER_TENSORS[B_O], layer),
                   *ob = hf_tensor(m, &LAYER_TENSORS[B_OB], layer);
    for (int c = 0; c < hidden; c += 64) transposed(&p->W_O, c, o, c, buf);
    st_read(p->b_O.data, ob, 0, ob->count);
    free(buf);
    return true;
}

static bool bert_attention(AttnParams *p, const HfModel *m, int layer, const Matrix *h)
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
static bool bert_linear(Matrix *out, const Matrix *x, const HfModel *m, int layer, int wrow,
                        int brow)
{
    bool ok = true;
    double *b = hf_vector(m, &LAYER_TENSORS[brow], layer, &ok);
    ok = ok && hf_linear(out, x, hf_tensor(m, &LAYER_TENSORS[wrow], layer), b);
    free(b);
    return ok;
}

// h holds the attention's output plus the residual (hf_model.c added them): h = LayerNorm(h), then
// h = LayerNorm(output.dense(gelu(intermediate.dense(h))) + h).
static bool bert_mlp(Matrix *h, const HfModel *m, int layer)
{
    const HfConfig *c = &m->cfg;
    Matrix inner = {0}, out = {0};
    bool ok = mat_init(&inner, h->rows, c->intermediate) && mat_init(&out, h->rows, c->hidden);
    double *w1 = hf_vector(m, &LAYER_TENSORS[B_LN1_W], layer, &ok),
           *b1 = hf_vector(m, &LAYER_TENSORS[B_LN1_B], layer, &ok);
    double *w2 = hf_vector(m, &LAYER_TENSORS[B_LN2_W], layer, &ok),
           *b2 = hf_vector(m, &LAYER_TENSORS[B_LN2_B], layer, &ok);
    if (ok) block_layer_norm(h, h, w1, b1, c->eps);
    ok = ok && bert_linear(&inner, h, m, layer, B_INTER, B_INTER_B);
    if (ok) block_gelu_erf(&inner);
    ok = ok && bert_linear(&out, &inner, m, layer, B_OUT, B_OUT_B);
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

const HfArchOps HF_BERT_OPS = {.model_rows = MODEL_TENSORS,
                               .model_count = B_MODEL_COUNT,
                               .layer_rows = LAYER_TENSORS,
                               .layer_count = B_LAYER_COUNT,
                               .prefixes = PREFIXES,
                               .embed = bert_embed,
                               .attention = bert_attention,
                               .mlp = bert_mlp,
                               .final_norm = NULL,
                               .unembedding = -1,
                               .unembedding_untied = -1,
                               .norm = NORM_NONE,
                               .norm_gain = -1,
                               .norm_shift = -1,
                               .layers_key = "num_hidden_layers",
                               .input_norm = "none: BERT's layer input is the previous layer's "
                                             "output, already normed after its residual add"};
