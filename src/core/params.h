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
// The weights of one attention layer (llama2.c's TransformerWeights, for one layer): a stack of
// layers, x_{l+1} = x_l + MHA_l(x_l), is an array of them, each of the sizes of one LayerShape.
// With kv_heads < heads, W_K, W_V, b_K and b_V are shared by the heads of a group (the same data,
// as Hugging Face's repeat_kv repeats them): entry h is K/V head params_kv_head(p, h)'s, owned by
// the group's first head. An edit through any of them is the group's; a gradient into them sums
// the group. The members are listed once, here, for LayerWeights and for AttnParams' unnamed twin
// of w (p->W_Q is p->w.W_Q).
#define LAYER_WEIGHTS_MEMBERS                                                                      \
    Matrix *W_Q, *W_K, *W_V; /* [heads], each (d_model, d_k) */                                    \
    Matrix *b_Q, *b_K, *b_V; /* [heads], each (1, d_k); zeros when the lesson gives none */        \
    Matrix W_O; /* (heads * d_k, d_model) */                                                       \
    Matrix b_O; /* (1, d_model); zeros when the lesson gives none */

typedef struct {
    LAYER_WEIGHTS_MEMBERS
} LayerWeights;

// The sizes of one layer's weights (every layer of a stack has the same).
typedef struct {
    int d_model, heads, kv_heads, d_k;
} LayerShape;

// What one run of a layer asks beyond the lesson (the window's keys, the command line's options):
// not lesson keys, and not copied by saving. The members are listed once, here, for AttnRequest and
// for AttnParams' unnamed twin of req (p->ablated is p->req.ablated).
#define ATTN_REQUEST_MEMBERS                                                                       \
    /* RoPE's point, shown on the board: > 0 (RoPE lessons only) the trace also turns every Q and  \
     * K row at position p + rope_shift and takes their scores (HeadTrace.Q_shift, K_shift,        \
     * scores_shift), which equal the scores up to rounding. The window's key S and --rope-shift   \
     * set it; 0: not computed. */                                                                 \
    int rope_shift;                                                                                \
    /* > 0: RoPE turns each block of rope_block columns as a d_k of its own (--compare's single    \
     * head, whose h·d_k columns are the h heads' side by side, each turned as its head turns     \
     * it); 0: the whole d_k. */                                                                   \
    int rope_block;                                                                                \
    /* bit h: head h's Z enters the concatenation as zeros (its own stages are still computed) */  \
    uint64_t ablated;

typedef struct {
    ATTN_REQUEST_MEMBERS
} AttnRequest;

// A real model's layer's surroundings (hf/layer_stream.h): kept by the layers above beside the
// parameters, never read here.
struct LayerStream;

// Everything the computation reads: the sizes, the settings (cfg), what this run asks (req), the
// inputs (X, S, and E, P, E_S, P_S with positions) and one layer's weights (w). Owned by whoever
// filled it (usually a Lesson); free with params_free.
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
    union { // what this run asks: as one struct (req), or member by member (p->rope_shift)
        AttnRequest req;
        struct {
            ATTN_REQUEST_MEMBERS
        };
    };
    Matrix X; // (n, d_model) query-side embeddings
    Matrix S; // (m, d_model) key/value-side embeddings; a copy of X for self-attention
    union { // the layer's weights: as one struct (w), or member by member (p->W_Q)
        LayerWeights w;
        struct {
            LAYER_WEIGHTS_MEMBERS
        };
    };
    // Positions (cfg.positions POS_NONE: E, P, E_S and P_S are empty and X, S are the embeddings as
    // given). Otherwise X = E + P is what the projections read, and for cross-attention S = E_S +
    // P_S; params_apply_positions recomputes them after E, P, E_S or P_S change.
    Matrix E, P; // (n, d_model) the token embeddings and the position vectors
    Matrix E_S, P_S; // (m, d_model) the source's, for cross-attention (empty for self-attention)
    // A real model's layer: what surrounds it, for the display (borrowed, never read here; copied
    // by params_copy, dropped by params_shuffle). NULL for a lesson.
    const struct LayerStream *stream;
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

// A layer's weights, one row each: the table that allocating, copying, zeroing, training and
// writing the weights iterate (per head W_Q, W_K, W_V, b_Q, b_K, b_V, then W_O, b_O: the trainable
// order).
typedef enum { PDIM_D_MODEL = 0, PDIM_D_K, PDIM_H_D_K, PDIM_ONE } ParamDim;
typedef struct {
    const char *name; // the lesson's and the JSON's name: "W_Q"
    bool per_head; // one matrix per head (an array of heads), or one for the layer
    bool per_kv; // per head, one of each K/V head's: kv_heads of their own (layer_weights_own)
    bool bias; // a bias: one row (1, cols), written as a vector
    ParamDim rows, cols;
    size_t offset; // where it lives in LayerWeights: a Matrix * (per head) or a Matrix
} ParamInfo;

#define PARAM_COUNT 8
extern const ParamInfo PARAMS[PARAM_COUNT];

// ---- One layer's weights -------------------------------------------------------------------------
// The size a ParamDim stands for in a layer of shape s.
int layer_shape_dim(LayerShape s, ParamDim d);
// Allocates every matrix of w (zeroed) for shape s (1 <= kv_heads <= heads, dividing heads). False
// when out of memory (w left empty). Free with layer_weights_free and the same shape.
bool layer_weights_init(LayerWeights *w, LayerShape s);
void layer_weights_free(LayerWeights *w, LayerShape s);
// out = a deep copy of src, of shape s (free with layer_weights_free). False when out of memory.
bool layer_weights_copy(LayerWeights *out, const LayerWeights *src, LayerShape s);
// dst's numbers (every row of PARAMS) = src's; both of shape s.
void layer_weights_copy_values(LayerWeights *dst, const LayerWeights *src, LayerShape s);
// a and b's weights exchanged without copying a number (both of shape s, one a copy of the
// other): each gets the other's storage.
void layer_weights_swap(LayerWeights *a, LayerWeights *b, LayerShape s);
// The matrix of weight row i (PARAMS[i]) for head h (ignored for a per-layer weight); for a
// per-K/V-head row head h's group's.
Matrix *layer_weights_at(LayerWeights *w, int i, int h);
const Matrix *layer_weights_at_const(const LayerWeights *w, int i, int h);
// How many matrices of its own row i has: 1 for the layer's, heads, or kv_heads (per_kv).
int layer_weights_count(LayerShape s, int i);
// The k-th of them (k < layer_weights_count): for a per-K/V-head row, K/V head k's.
Matrix *layer_weights_own(LayerWeights *w, LayerShape s, int i, int k);
const Matrix *layer_weights_own_const(const LayerWeights *w, LayerShape s, int i, int k);
// The trainable matrices of w in the table's order (for each head the per-head rows, a K/V head's
// when the head opens its group, then the per-layer ones); out holds PARAM_COUNT * heads pointers
// at most; returns how many.
int layer_weights_trainable(Matrix **out, LayerWeights *w, LayerShape s);

// ---- The same, for the layer of p (p->w, of shape params_shape(p)) -------------------------------
static inline LayerShape params_shape(const AttnParams *p)
{
    return (LayerShape){p->d_model, p->heads, p->kv_heads, p->d_k};
}
Matrix *params_at(AttnParams *p, int i, int h);
const Matrix *params_at_const(const AttnParams *p, int i, int h);
int params_count(const AttnParams *p, int i);
Matrix *params_own(AttnParams *p, int i, int k);
const Matrix *params_own_const(const AttnParams *p, int i, int k);
// The size a ParamDim stands for in p.
int params_dim(const AttnParams *p, ParamDim d);
int params_trainable(Matrix **out, AttnParams *p);
// dst's weights = src's; both of the same sizes.
void params_copy_weights(AttnParams *dst, const AttnParams *src);
// a and b's weights exchanged without copying a number (the same sizes and groups: one a
// params_copy of the other).
void params_swap_weights(AttnParams *a, AttnParams *b);

#endif
