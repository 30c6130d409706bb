// What a family's forward pass is made of (hf_llama.c, hf_gpt2.c), for the run that hf_model.c
// drives: the tensors it reads, as rows of a table with their shapes in the config's sizes, and its
// steps.
#ifndef MHA_HF_ARCH_H
#define MHA_HF_ARCH_H

#include "hf/hf_model.h"

// The sizes a tensor's shape is given in.
typedef enum { D_NONE, D_HIDDEN, D_Q, D_KV, D_QKV, D_INTER, D_VOCAB, D_POSITIONS, D_TYPES } HfDim;
// When a tensor is read.
typedef enum { NEED_ALWAYS, NEED_QKV_BIAS, NEED_O_BIAS, NEED_MLP_BIAS, NEED_UNTIED } HfNeed;

typedef struct {
    const char *name; // printf format with the layer's number, after the model's prefix
    HfDim rows, cols; // a vector: (rows), cols D_NONE
    HfNeed need;
} HfTensorRow;

typedef struct HfArchOps {
    const HfTensorRow *model_rows; // the model's own tensors; row 0 the token embedding
    int model_count;
    const HfTensorRow *layer_rows; // each layer's
    int layer_count;
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
    // out (hidden) = the final norm of one row. false: no memory. NULL: no next token (BERT).
    bool (*final_norm)(double *out, const HfModel *m, const double *row);
    int unembedding; // the row of model_rows the logits read (tied: 0, the embedding; -1: none)
    int unembedding_untied; // ... when the config does not tie them
    const char *layers_key; // config.json's name for the number of layers
    const char *input_norm; // what makes a layer's attention input, in words (a lesson's notes)
    NormKind norm; // ... that norm (NORM_NONE: X is the layer's input itself)
    int norm_gain, norm_shift; // its weight's and bias's rows of layer_rows (-1: none)
} HfArchOps;

extern const HfArchOps HF_LLAMA_OPS;
extern const HfArchOps HF_GPT2_OPS;
extern const HfArchOps HF_BERT_OPS;

// The tensor of a table's row for layer (ignored by a model row), or NULL when the config does not
// read it.
const StTensor *hf_tensor(const HfModel *m, const HfTensorRow *row, int layer);
// A row's vector converted (NULL when the config does not read it; *ok false when memory ran out).
double *hf_vector(const HfModel *m, const HfTensorRow *row, int layer, bool *ok);
// out (rows, cols) = a 2-D tensor converted. false: no memory.
bool hf_matrix(Matrix *out, const StTensor *t);
// out (n, o) = x (n, i) @ w^T + b (b NULL: none), w the tensor (o, i) as torch.nn.Linear keeps it,
// read a row at a time in its own dtype (never converted whole) and the rows shared out over the
// processors: the same bits on any number of them. false: no memory.
bool hf_linear(Matrix *out, const Matrix *x, const StTensor *w, const double *b);

#endif
