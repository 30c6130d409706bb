// What surrounds a real model's layer in the window (LayerStream): its input before the norm, the
// norm's weights, the next tokens and every layer's patterns. Kept beside the layer's parameters.
#ifndef MHA_LAYER_STREAM_H
#define MHA_LAYER_STREAM_H

#include "core/matrix.h"

// The norm a checkpoint's layer applies to its input before the attention.
typedef enum { NORM_NONE = 0, NORM_RMS, NORM_LAYER } NormKind;

// What surrounds a real model's layer (hf/hf_model.h: --model in the window), for the stages
// shown only then (the norm that makes X, the residual add, the next token) and the overview of
// every layer's patterns. A lesson has none. Owned by the HfRun that made it (hf_run_free frees
// it); the run's lesson borrows it (AttnParams.stream) for as long as the run lives.
typedef struct LayerStream {
    Matrix x; // (n, d_model) the residual stream at the layer's input, before its norm
    Matrix gain, shift; // (1, d_model) the norm's weight, and LayerNorm's bias (empty for RMSNorm)
    NormKind norm; // NORM_NONE: X is x itself (BERT normalizes after the residual add)
    double eps;
    int top; // the next tokens kept per position, most probable first (0: an encoder, none)
    int *top_id; // [n * top]
    double *top_p; // [n * top]
    char **top_token; // [n * top] as the class reads them
    int layer; // the layer stepped through (from 0)
    bool attention_only; // a lesson of layers: no norm, no MLP, logits = x_L U (circuit_layer.c)
    int layers, heads, n; // the overview: every layer's attention weights (layers 0: not kept)
    float *overview; // [layers][heads][n][n]
} LayerStream;

// Frees what s holds (not s itself) and leaves it empty; NULL: nothing.
void layer_stream_free(LayerStream *s);

#endif
