// What a family's forward pass is made of, one row of HF_FAMILIES (hf_family.c) per family: the
// tensors it reads by their part in the model (a name pattern, its shape in the config's sizes),
// its norms, the config keys it names in errors and its steps (hf_llama.c, hf_gpt2.c, hf_bert.c),
// for the run that hf_model.c drives.
#ifndef MHA_HF_ARCH_H
#define MHA_HF_ARCH_H

#include "hf/hf_model.h"

// The sizes a tensor's shape is given in.
typedef enum { D_NONE, D_HIDDEN, D_Q, D_KV, D_QKV, D_INTER, D_VOCAB, D_POSITIONS, D_TYPES } HfDim;
// When a tensor is read.
typedef enum { NEED_ALWAYS, NEED_QKV_BIAS, NEED_O_BIAS, NEED_MLP_BIAS, NEED_UNTIED } HfNeed;

// The model's own tensors by their part, in the order they are checked.
typedef enum {
    HF_EMBED, // the token embedding (the prefix is found from it)
    HF_POSITIONS, // learned positions (GPT-2, BERT)
    HF_TYPES, // token types (BERT)
    HF_EMBED_NORM, // the embeddings' LayerNorm (BERT)
    HF_EMBED_NORM_BIAS,
    HF_FINAL_NORM, // the norm before the unembedding
    HF_FINAL_NORM_BIAS,
    HF_LM_HEAD, // the unembedding when it is not the embedding
    HF_MODEL_TENSORS
} HfModelTensor;

// Each layer's tensors by their part, in the order they are checked.
typedef enum {
    HF_IN_NORM, // the norm that makes the attention's input (pre-norm families)
    HF_IN_NORM_BIAS,
    HF_Q,
    HF_Q_BIAS,
    HF_K,
    HF_K_BIAS,
    HF_V,
    HF_V_BIAS,
    HF_QKV, // q, k and v side by side in one tensor (GPT-2's c_attn)
    HF_QKV_BIAS,
    HF_O,
    HF_O_BIAS,
    HF_POST_NORM, // after the attention (pre-norm: the MLP's input; BERT: after its residual)
    HF_POST_NORM_BIAS,
    HF_GATE,
    HF_GATE_BIAS,
    HF_UP, // the MLP's first projection (intermediate, c_fc)
    HF_UP_BIAS,
    HF_DOWN, // its second (output, c_proj)
    HF_DOWN_BIAS,
    HF_OUT_NORM, // after the MLP's residual (BERT)
    HF_OUT_NORM_BIAS,
    HF_LAYER_TENSORS
} HfLayerTensor;

typedef struct {
    const char *name; // printf format with the layer's number, after the model's prefix; NULL:
                      // the family has no such tensor
    HfDim rows, cols; // a vector: (rows), cols D_NONE
    HfNeed need;
} HfTensorRow;

typedef struct HfArchOps {
    HfTensorRow model_rows[HF_MODEL_TENSORS];
    HfTensorRow layer_rows[HF_LAYER_TENSORS];
    const char *const *prefixes; // what may come before every name ("transformer." for
                                 // GPT2LMHeadModel), NULL-ended
    // h (n, hidden) = the input of the first layer for ids (n of them); false: no memory, or why in
    // err.
    bool (*embed)(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err);
    // p = layer's attention on h (n, hidden): X = its norm of h, its weights. p is empty (all
    // zeros: made here) or the previous layer's (the same shapes: every number the config reads
    // overwritten). false: no memory (p freed).
    bool (*attention)(AttnParams *p, const HfModel *m, int layer, const Matrix *h);
    // h += the layer's MLP of its norm of h. false: no memory.
    bool (*mlp)(Matrix *h, const HfModel *m, int layer);
    NormKind final_norm; // the norm before the unembedding (its weight HF_FINAL_NORM, its bias
                         // HF_FINAL_NORM_BIAS); NORM_NONE: no next token (BERT)
    HfModelTensor unembedding; // what the logits read when tied (HF_MODEL_TENSORS: none)
    HfModelTensor unembedding_untied; // ... when the config does not tie them
    const char *layers_key; // config.json's name for the number of layers
    const char *positions_key; // ... for the learned positions (NULL: RoPE, none)
    const char *input_norm; // what makes a layer's attention input, in words (a lesson's notes)
    NormKind norm; // ... that norm (NORM_NONE: X is the layer's input itself; its weight
                   // HF_IN_NORM, its bias HF_IN_NORM_BIAS)
} HfArchOps;

extern const HfArchOps HF_FAMILIES[HF_ARCH_COUNT];

// The steps of each family (hf_llama.c, hf_gpt2.c, hf_bert.c), as HfArchOps describes them.
bool hf_llama_embed(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err);
bool hf_llama_attention(AttnParams *p, const HfModel *m, int layer, const Matrix *h);
bool hf_llama_mlp(Matrix *h, const HfModel *m, int layer);
bool hf_gpt2_embed(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err);
bool hf_gpt2_attention(AttnParams *p, const HfModel *m, int layer, const Matrix *h);
bool hf_gpt2_mlp(Matrix *h, const HfModel *m, int layer);
bool hf_bert_embed(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err);
bool hf_bert_attention(AttnParams *p, const HfModel *m, int layer, const Matrix *h);
bool hf_bert_mlp(Matrix *h, const HfModel *m, int layer);

// The tensor of a table's row for layer (ignored by a model row), or NULL when the config does not
// read it.
const StTensor *hf_tensor(const HfModel *m, const HfTensorRow *row, int layer);
// The same by part: the model's own tensor, a layer's.
// hf_tensors.c: whether the config needs a row's tensor; its name at a layer (into out, cap bytes);
// a LayerNorm name's older spelling (".gamma", ".beta"; false when it has none); the tensor called
// name or by its older name (NULL: neither).
bool hf_tensor_needed(const HfConfig *c, HfNeed need);
void hf_tensor_name(char *out, size_t cap, const HfModel *m, const HfTensorRow *row, int layer);
bool hf_older_name(const char *name, char *alt, size_t cap);
const StTensor *hf_find_named(const HfModel *m, const char *name);
const StTensor *hf_model_tensor(const HfModel *m, HfModelTensor part);
const StTensor *hf_layer_tensor(const HfModel *m, HfLayerTensor part, int layer);
// A row's vector converted (NULL when the config does not read it; *ok false when memory ran out).
double *hf_vector(const HfModel *m, const HfTensorRow *row, int layer, bool *ok);
// The same by part.
double *hf_model_vector(const HfModel *m, HfModelTensor part, bool *ok);
double *hf_layer_vector(const HfModel *m, HfLayerTensor part, int layer, bool *ok);
// out (rows, cols) = a 2-D tensor converted. false: no memory.
bool hf_matrix(Matrix *out, const StTensor *t);
// out (n, o) = x (n, i) @ w^T + b (b NULL: none), w the tensor (o, i) as torch.nn.Linear keeps it,
// read a row at a time in its own dtype (never converted whole) and the rows shared out over the
// processors: the same bits on any number of them. false: no memory.
bool hf_linear(Matrix *out, const Matrix *x, const StTensor *w, const double *b);
// Columns [c0, c0 + count) of dst (rows, cols) = rows [r0, r0 + count) of the 2-D tensor t (each
// `rows` long), transposed: dst[i][c0 + j] = t[r0 + j][i]; count <= HF_COLUMN_BLOCK, buf holds
// count * rows numbers. (A torch Linear keeps (out, in): this is its weight^T, a block at a time.)
enum { HF_COLUMN_BLOCK = 64 };
void hf_columns(Matrix *dst, int c0, const StTensor *t, int r0, int count, double *buf);
// All the columns of dst from the rows of t from r0, HF_COLUMN_BLOCK at a time.
void hf_columns_from_rows(Matrix *dst, const StTensor *t, int r0, double *buf);
// false with err (config.json, the family's positions key) when n tokens are more than the model's
// learned positions.
bool hf_check_positions(const HfModel *m, int n, LessonError *err);
// false with err naming the tensor (hf_finite.c) when h (n, hidden), the embeddings of ids, holds
// a NaN or an infinity: the embedding rows, positions, types and norm the text reads checked.
bool hf_check_embedding(const HfModel *m, const Matrix *h, const int *ids, int n, LessonError *err);
// The same for logits (rows, vocab): the final norm and the unembedding checked.
bool hf_check_logits(const HfModel *m, const Matrix *logits, LessonError *err);

#endif
