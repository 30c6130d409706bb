// The lesson's parameters as the computation reads them (AttnParams), the table of its weights, and
// positions (sinusoidal or given). C11 + libm only.
#ifndef MHA_PARAMS_H
#define MHA_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include "core/matrix.h"

typedef enum { MASK_NONE = 0, MASK_CAUSAL = 1 } MaskKind;

// Where the position vectors added to the embeddings come from (none: the embeddings are used as
// given).
typedef enum { POS_NONE = 0, POS_SINUSOIDAL, POS_EXPLICIT } PositionKind;

// Rotary position embeddings (RoPE): none, or which coordinates of a row turn together as a pair j:
// (j, j + d_k/2) for "halves" (GPT-NeoX, Hugging Face Llama), (2j, 2j + 1) for "interleaved"
// (RoFormer).
typedef enum { ROPE_NONE = 0, ROPE_HALVES, ROPE_INTERLEAVED } RopeKind;
// RoPE scaling (Hugging Face's rope_scaling, modeling_rope_utils.py): each pair's frequency changed
// for a longer context. LINEAR: theta_j / factor; LLAMA3: theta_j / factor for the wavelengths
// longer than original_max / low_freq_factor, theta_j for those shorter than original_max /
// high_freq_factor, between them a blend (attn_rope_theta). NONE (zero): theta_j as it is.
typedef enum { ROPE_SCALE_NONE = 0, ROPE_SCALE_LINEAR, ROPE_SCALE_LLAMA3 } RopeScaleKind;
typedef struct {
    RopeScaleKind kind;
    double factor, low_freq_factor, high_freq_factor,
        original_max; // original_max_position_embeddings
} RopeScale;

// The largest shift of every position that the board's RoPE demonstration (AttnParams.rope_shift)
// takes.
#define ATTN_MAX_ROPE_SHIFT 1000000

// The most heads an ablation mask can name (one bit each).
#define ATTN_MAX_ABLATED_HEADS 64

// A lesson's settings, apart from its matrices (llama2.c's Config): each a row of the lesson-field
// table (src/lesson/lesson_fields.c), which reads, checks, saves and prints them. Copied as one:
// dst->cfg = src->cfg. The members are listed once, here, for AttnConfig and for AttnParams'
// unnamed twin of cfg (p->heads is p->cfg.heads).
#define ATTN_CONFIG_MEMBERS                                                                        \
    int heads, d_k;                                                                                \
    /* Grouped-query attention: kv_heads K/V heads (dividing heads; == heads for plain             \
     * multi-head), query   */                                                                     \
    /* head h reading K/V head params_kv_head(p, h). kv_given: the lesson named "kv_heads" (--json \
     * says so). */                                                                                \
    int kv_heads;                                                                                  \
    bool kv_given;                                                                                 \
    MaskKind mask;                                                                                 \
    int window; /* > 0 (causal lessons only): query i sees the keys j with i - window < j <= i; 0: \
                   all j <= i */                                                                   \
    RopeKind rope; /* ROPE_NONE: no rotation; else Q and K rows turn by position *                 \
                      rope_base^(-2j/d_k) */                                                       \
    double rope_base;                                                                              \
    RopeScale                                                                                      \
        rope_scale; /* zero: no scaling (a real model's rope_scaling, kept by --save-lesson) */    \
    bool cross; /* true when keys/values come from a separate source sequence */                   \
    /* Where X's positions come from (POS_NONE: the embeddings as given; else X = E + P, see       \
     * below). */                                                                                  \
    PositionKind positions;                                                                        \
    double scale; /* > 0: multiplies the scores instead of the default division by sqrt(d_k); 0:   \
                     the default */

typedef struct {
    ATTN_CONFIG_MEMBERS
} AttnConfig;
// What surrounds a real model's layer (hf/hf_model.h: --model in the window), for the stages
// shown only then (the norm that makes X, the residual add, the next token) and the overview of
// every layer's patterns. A lesson has none (AttnParams.stream NULL). Owned by the Lesson made from
// the checkpoint; free with layer_stream_free.
typedef enum { NORM_NONE = 0, NORM_RMS, NORM_LAYER } NormKind;
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
    int layers, heads, n; // the overview: every layer's attention weights (layers 0: not kept)
    float *overview; // [layers][heads][n][n]
} LayerStream;
void layer_stream_free(LayerStream *s);

// Everything the computation reads. Owned by whoever filled it (usually a Lesson); free with
// params_free.
typedef struct {
    int n; // query tokens
    int m; // key/value tokens (== n for self-attention)
    int d_model;
    union { // the settings: as one struct (cfg), or member by member (p->heads)
        AttnConfig cfg;
        struct {
            ATTN_CONFIG_MEMBERS
        };
    };
    // RoPE's point, shown on the board: > 0 (RoPE lessons only) the trace also turns every Q and K
    // row at position p + rope_shift and takes their scores (HeadTrace.Q_shift, K_shift,
    // scores_shift), which equal the scores up to rounding. Not a lesson key: the window's key S
    // and --rope-shift set it; 0: not computed.
    int rope_shift;
    // > 0: RoPE turns each block of rope_block columns as a d_k of its own (--compare's single
    // head, whose h·d_k columns are the h heads' side by side, each turned as its head turns it);
    // 0: the whole d_k.
    int rope_block;
    Matrix X; // (n, d_model) query-side embeddings
    Matrix S; // (m, d_model) key/value-side embeddings; a copy of X for self-attention
    Matrix *W_Q, *W_K, *W_V; // [heads], each (d_model, d_k)
    Matrix *b_Q, *b_K, *b_V; // [heads], each (1, d_k); zeros when the lesson gives none
    // W_K, W_V, b_K, b_V with kv_heads < heads: the heads of a group share one matrix's numbers
    // (the same data, as Hugging Face's repeat_kv repeats them): entry h is K/V head
    // params_kv_head(p, h)'s, owned by the group's first head. An edit through any of them is the
    // group's; a gradient into them sums the group.
    Matrix W_O; // (heads * d_k, d_model)
    Matrix b_O; // (1, d_model); zeros when the lesson gives none
    // Positions (cfg.positions POS_NONE: E, P, E_S and P_S are empty and X, S are the embeddings as
    // given). Otherwise X = E + P is what the projections read, and for cross-attention S = E_S +
    // P_S; params_apply_positions recomputes them after E, P, E_S or P_S change.
    Matrix E, P; // (n, d_model) the token embeddings and the position vectors
    Matrix E_S, P_S; // (m, d_model) the source's, for cross-attention (empty for self-attention)
    uint64_t ablated; // bit h: head h's Z enters the concatenation as zeros (its own stages are
                      // still computed)
    const LayerStream
        *stream; // a real model's layer: what surrounds it (borrowed; NULL for a lesson)
} AttnParams;

// Allocates every matrix of p (zeroed) for the given sizes. Free with params_free.
bool params_init(AttnParams *p, int n, int m, int d_model, int heads, int d_k);
// The same with kv_heads K/V heads (1 <= kv_heads <= heads, dividing heads).
bool params_init_grouped(AttnParams *p, int n, int m, int d_model, int heads, int kv_heads,
                         int d_k);
// The K/V head query head h reads: floor(h / (heads / kv_heads)) (consecutive query heads share
// one).
static inline int params_kv_head(const AttnParams *p, int h)
{
    return h / (p->heads / p->kv_heads);
}
void params_free(AttnParams *p);
// out = a deep copy of src (free with params_free).
bool params_copy(AttnParams *out, const AttnParams *src);

// Gives p (already initialised, with X and S holding the token embeddings) positions of this kind:
// E and E_S become copies of X and S, P and P_S are the sinusoids (POS_SINUSOIDAL) or zeros to be
// filled (POS_EXPLICIT), then X = E + P and S = E_S + P_S. POS_NONE changes nothing. False when out
// of memory.
bool params_set_positions(AttnParams *p, PositionKind kind);
// X (n, d_model) = E + P; S = E_S + P_S for cross-attention, else a copy of X. Nothing without
// positions.
void params_apply_positions(AttnParams *p);
// P (rows, d_model) = the sinusoidal positions from position 0: P[pos][2i] = sin(pos /
// 10000^(2i/d_model)), P[pos][2i+1] = cos(pos / 10000^(2i/d_model)); an odd last column takes the
// sine.
void positions_sinusoidal(Matrix *P);
// out = src with its query tokens reordered: token i of out is token perm[i] of src (perm: a
// permutation of 0..n-1). The token embeddings move with their tokens and the positions stay where
// they are (X = E[perm] + P); for self-attention the keys and values move too. Free with
// params_free. False when out of memory.
bool params_shuffle(AttnParams *out, const AttnParams *src, const int *perm);
// The number that multiplies the scores: p->scale, or 1/sqrt(d_k) by default.
double params_scale(const AttnParams *p);
// true when head h is ablated (its Z zeros in the concatenation).
static inline bool params_ablated(const AttnParams *p, int h)
{
    return h >= 0 && h < ATTN_MAX_ABLATED_HEADS && ((p->ablated >> h) & 1u);
}
// One scaled score, exactly as the trace computes it: score * scale, or score / sqrt(d_k) by
// default.
static inline double attn_scale_one(const AttnParams *p, double score, double root_d_k)
{
    return p->scale > 0 ? score * p->scale : score / root_d_k;
}

// The lesson's weights, one row each: the table that allocating, copying, zeroing, training and
// writing the weights iterate (per head W_Q, W_K, W_V, b_Q, b_K, b_V, then W_O, b_O: the trainable
// order).
typedef enum { PDIM_D_MODEL = 0, PDIM_D_K, PDIM_H_D_K, PDIM_ONE } ParamDim;
typedef struct {
    const char *name; // the lesson's and the JSON's name: "W_Q"
    bool per_head; // one matrix per head (an array of p->heads), or one for the layer
    bool per_kv; // per head, one of each K/V head's: kv_heads of their own (params_own)
    bool bias; // a bias: one row (1, cols), written as a vector
    ParamDim rows, cols;
    size_t offset; // where it lives in AttnParams: a Matrix * (per head) or a Matrix
} ParamInfo;

#define PARAM_COUNT 8
extern const ParamInfo PARAMS[PARAM_COUNT];
// The matrix of weight row i (PARAMS[i]) for head h (ignored for a per-layer weight); for a
// per-K/V-head row head h's group's.
Matrix *params_at(AttnParams *p, int i, int h);
const Matrix *params_at_const(const AttnParams *p, int i, int h);
// How many matrices of its own row i has: 1 for the layer's, heads, or kv_heads (per_kv).
int params_count(const AttnParams *p, int i);
// The k-th of them (k < params_count): for a per-K/V-head row, K/V head k's.
Matrix *params_own(AttnParams *p, int i, int k);
const Matrix *params_own_const(const AttnParams *p, int i, int k);
// The weights (AT_WEIGHTS of the model's table) at offset in AttnParams for head h: the row of
// PARAMS kept there, read through params_at. NULL when no row is kept there.
const Matrix *params_at_offset(const AttnParams *p, size_t offset, int h);
// The size a ParamDim stands for in p.
int params_dim(const AttnParams *p, ParamDim d);
// The trainable matrices of p in the table's order (for each head the per-head rows, a K/V head's
// when the head opens its group, then the per-layer ones); out holds PARAM_COUNT * heads pointers
// at most; returns how many.
int params_trainable(Matrix **out, AttnParams *p);
// dst's weights (every row of PARAMS) = src's; both of the same sizes.
void params_copy_weights(AttnParams *dst, const AttnParams *src);
// a and b's weights exchanged without copying a number (the same sizes and groups: one a
// params_copy of the other): each gets the other's storage.
void params_swap_weights(AttnParams *a, AttnParams *b);

#endif
