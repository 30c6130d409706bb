// Llama and its kin (mistral, qwen2) as Hugging Face's modeling_llama.py (transformers 4.4x)
// computes them:
//   h = embed_tokens(ids)                                          LlamaModel.forward
//   per layer: x = input_layernorm(h)  (RMSNorm)                   LlamaDecoderLayer.forward
//              a = self_attn(x): q, k, v = q_proj(x), k_proj(x), v_proj(x) per head; q, k turned by
//              RoPE
//                  (apply_rotary_pos_emb: rotate_half, the pairs (j, j + d/2), inv_freq =
//                  theta^(-2j/d), changed by rope_scaling: modeling_rope_utils.py's linear, dynamic
//                  and llama3); k, v repeated over the group (repeat_kv); softmax(q k^T / sqrt(d) +
//                  causal mask) v; o_proj of the heads side by side LlamaAttention.forward,
//                  eager_attention_forward
//              h = h + a;  h = h + mlp(post_attention_layernorm(h)),
//              mlp(x) = down_proj(silu(gate_proj(x)) * up_proj(x))  LlamaMLP.forward
//   logits = lm_head(norm(h)) (lm_head = embed_tokens when tied)    LlamaForCausalLM.forward
#include <stdlib.h>
#include <string.h>

#include "core/block.h"
#include "core/exactmath.h"
#include "hf/hf_arch.h"
#include "platform/platform.h"

enum {
    T_IN_NORM,
    T_Q,
    T_QB,
    T_K,
    T_KB,
    T_V,
    T_VB,
    T_O,
    T_OB,
    T_POST_NORM,
    T_GATE,
    T_GATE_B,
    T_UP,
    T_UP_B,
    T_DOWN,
    T_DOWN_B,
    T_LAYER_COUNT
};
static const HfTensorRow LAYER_TENSORS[T_LAYER_COUNT] = {
    [T_IN_NORM] = {"model.layers.%d.input_layernorm.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [T_Q] = {"model.layers.%d.self_attn.q_proj.weight", D_Q, D_HIDDEN, NEED_ALWAYS},
    [T_QB] = {"model.layers.%d.self_attn.q_proj.bias", D_Q, D_NONE, NEED_QKV_BIAS},
    [T_K] = {"model.layers.%d.self_attn.k_proj.weight", D_KV, D_HIDDEN, NEED_ALWAYS},
    [T_KB] = {"model.layers.%d.self_attn.k_proj.bias", D_KV, D_NONE, NEED_QKV_BIAS},
    [T_V] = {"model.layers.%d.self_attn.v_proj.weight", D_KV, D_HIDDEN, NEED_ALWAYS},
    [T_VB] = {"model.layers.%d.self_attn.v_proj.bias", D_KV, D_NONE, NEED_QKV_BIAS},
    [T_O] = {"model.layers.%d.self_attn.o_proj.weight", D_HIDDEN, D_Q, NEED_ALWAYS},
    [T_OB] = {"model.layers.%d.self_attn.o_proj.bias", D_HIDDEN, D_NONE, NEED_O_BIAS},
    [T_POST_NORM] = {"model.layers.%d.post_attention_layernorm.weight", D_HIDDEN, D_NONE,
                     NEED_ALWAYS},
    [T_GATE] = {"model.layers.%d.mlp.gate_proj.weight", D_INTER, D_HIDDEN, NEED_ALWAYS},
    [T_GATE_B] = {"model.layers.%d.mlp.gate_proj.bias", D_INTER, D_NONE, NEED_MLP_BIAS},
    [T_UP] = {"model.layers.%d.mlp.up_proj.weight", D_INTER, D_HIDDEN, NEED_ALWAYS},
    [T_UP_B] = {"model.layers.%d.mlp.up_proj.bias", D_INTER, D_NONE, NEED_MLP_BIAS},
    [T_DOWN] = {"model.layers.%d.mlp.down_proj.weight", D_HIDDEN, D_INTER, NEED_ALWAYS},
    [T_DOWN_B] = {"model.layers.%d.mlp.down_proj.bias", D_HIDDEN, D_NONE, NEED_MLP_BIAS},
};

enum { T_EMBED, T_NORM, T_LM_HEAD, T_MODEL_COUNT };
static const HfTensorRow MODEL_TENSORS[T_MODEL_COUNT] = {
    [T_EMBED] = {"model.embed_tokens.weight", D_VOCAB, D_HIDDEN, NEED_ALWAYS},
    [T_NORM] = {"model.norm.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
    [T_LM_HEAD] = {"lm_head.weight", D_VOCAB, D_HIDDEN, NEED_UNTIED},
};

enum { COLUMN_BLOCK = 64 }; // the tensor rows converted at a time into one transposed block

// Columns [c0, c0 + count) of dst (rows, cols) = rows [r0, r0 + count) of the 2-D tensor t (each
// `rows` long), transposed: dst[i][c0 + j] = t[r0 + j][i]; count <= COLUMN_BLOCK, buf holds count *
// rows numbers.
static void columns_from_rows(Matrix *dst, int c0, const StTensor *t, int r0, int count,
                              double *buf)
{
    int rows = dst->rows;
    st_read(buf, t, (size_t)r0 * (size_t)rows, (size_t)count * (size_t)rows);
    for (int i0 = 0; i0 < rows;
         i0 += 8) { // 8 rows of dst at a time: one cache line of each buf row read
        int i1 = rows - i0 < 8 ? rows : i0 + 8;
        for (int j = 0; j < count; j++)
            for (int i = i0; i < i1; i++)
                mat_row(dst, i)[c0 + j] = buf[(size_t)j * (size_t)rows + (size_t)i];
    }
}

// All the columns of dst from the rows of t from r0, COLUMN_BLOCK at a time.
static void matrix_from_rows(Matrix *dst, const StTensor *t, int r0, double *buf)
{
    for (int c = 0; c < dst->cols; c += COLUMN_BLOCK)
        columns_from_rows(dst, c, t, r0 + c,
                          dst->cols - c < COLUMN_BLOCK ? dst->cols - c : COLUMN_BLOCK, buf);
}

enum { WEIGHT_MAX_JOBS = 8 };

typedef struct {
    AttnParams *p;
    const HfModel *m;
    int layer, part,
        parts; // this job's share: every parts-th head and K/V head from part, a slice of W_O
    bool ok;
} WeightJob;

// One job's share of the q, k, v and o projections (the same numbers whichever job converts them).
static int weights_job(void *arg)
{
    WeightJob *j = arg;
    const HfConfig *c = &j->m->cfg;
    AttnParams *p = j->p;
    int d = c->head_dim, group = c->heads / c->kv_heads;
    const StTensor *q = hf_tensor(j->m, &LAYER_TENSORS[T_Q], j->layer),
                   *k = hf_tensor(j->m, &LAYER_TENSORS[T_K], j->layer);
    const StTensor *v = hf_tensor(j->m, &LAYER_TENSORS[T_V], j->layer),
                   *o = hf_tensor(j->m, &LAYER_TENSORS[T_O], j->layer);
    int widest = c->hidden > c->heads * d ? c->hidden : c->heads * d;
    double *buf =
        malloc(sizeof *buf * (size_t)widest * (size_t)(d > COLUMN_BLOCK ? d : COLUMN_BLOCK));
    if (!(j->ok = buf != NULL)) return 1;
    for (int h = j->part; h < c->heads; h += j->parts) matrix_from_rows(&p->W_Q[h], q, h * d, buf);
    for (int g = j->part; g < c->kv_heads; g += j->parts) {
        matrix_from_rows(&p->W_K[g * group], k, g * d,
                         buf); // the group's first query head holds its K/V head
        matrix_from_rows(&p->W_V[g * group], v, g * d, buf);
    }
    int blocks =
        (p->W_O.cols + COLUMN_BLOCK - 1) / COLUMN_BLOCK; // W_O's column blocks, in parts slices
    for (int b = blocks * j->part / j->parts; b < blocks * (j->part + 1) / j->parts; b++) {
        int c0 = b * COLUMN_BLOCK,
            count = p->W_O.cols - c0 < COLUMN_BLOCK ? p->W_O.cols - c0 : COLUMN_BLOCK;
        columns_from_rows(&p->W_O, c0, o, c0, count, buf);
    }
    free(buf);
    return 0;
}

// p's weights from layer's q, k, v and o projections: W_Q[h] (hidden, d) = q_proj.weight[h*d +
// j][i] (a torch Linear keeps (out, in)); K/V head g's in the group's first head; W_O =
// o_proj.weight^T; converted by as many jobs as there are processors (each number read and written
// once, by one of them). false: no memory.
static bool llama_weights(AttnParams *p, const HfModel *m, int layer)
{
    const HfConfig *c = &m->cfg;
    int d = c->head_dim, group = c->heads / c->kv_heads;
    const StTensor *qb = hf_tensor(m, &LAYER_TENSORS[T_QB], layer),
                   *kb = hf_tensor(m, &LAYER_TENSORS[T_KB], layer);
    const StTensor *vb = hf_tensor(m, &LAYER_TENSORS[T_VB], layer),
                   *ob = hf_tensor(m, &LAYER_TENSORS[T_OB], layer);
    WeightJob jobs[WEIGHT_MAX_JOBS];
    int parts = platform_cpu_count();
    if (parts > WEIGHT_MAX_JOBS) parts = WEIGHT_MAX_JOBS;
    if (parts > c->heads) parts = c->heads;
    if (parts < 1) parts = 1;
    for (int i = 0; i < parts; i++) jobs[i] = (WeightJob){p, m, layer, i, parts, false};
    platform_run_jobs(weights_job, jobs, sizeof jobs[0], parts);
    bool ok = true;
    for (int i = 0; i < parts; i++) ok = ok && jobs[i].ok;
    for (int h = 0; h < c->heads; h++)
        for (int j = 0; qb && j < d; j++)
            mat_set(&p->b_Q[h], 0, j, st_get(qb, (size_t)(h * d + j)));
    for (int g = 0; g < c->kv_heads; g++)
        for (int j = 0; j < d; j++) {
            if (kb) mat_set(&p->b_K[g * group], 0, j, st_get(kb, (size_t)(g * d + j)));
            if (vb) mat_set(&p->b_V[g * group], 0, j, st_get(vb, (size_t)(g * d + j)));
        }
    for (int r = 0; ob && r < c->hidden; r++) mat_set(&p->b_O, 0, r, st_get(ob, (size_t)r));
    return ok;
}

// Layer `layer`'s attention on the residual stream h (n, hidden): p with X = input_layernorm(h) and
// its weights.
static bool llama_attention(AttnParams *p, const HfModel *m, int layer, const Matrix *h)
{
    const HfConfig *c = &m->cfg;
    if (!p->X.data
        && !params_init_grouped(p, h->rows, h->rows, c->hidden, c->heads, c->kv_heads, c->head_dim))
        return false;
    bool ok = true;
    double *w = hf_vector(m, &LAYER_TENSORS[T_IN_NORM], layer, &ok);
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
    p->rope_scale = c->rope_scale; // linear, llama3: each pair's frequency (attn_rope_theta)
    // dynamic (_compute_dynamic_ntk_parameters): past max_position_embeddings positions the base
    // grows, base * (factor * n / max - (factor - 1)) ^ (d / (d - 2)); up to them it is the plain
    // base.
    if (c->rope_dynamic > 0 && h->rows > c->rope_max_positions) {
        double f = c->rope_dynamic, d = c->head_dim;
        p->rope_base =
            c->rope_theta * core_pow(f * h->rows / c->rope_max_positions - (f - 1), d / (d - 2));
    }
    if (llama_weights(p, m, layer)) return true;
    params_free(p);
    return false;
}

// h (n, hidden) += down_proj(silu(gate_proj(x)) * up_proj(x)), x = post_attention_layernorm(h).
static bool llama_mlp(Matrix *h, const HfModel *m, int layer)
{
    const HfConfig *c = &m->cfg;
    Matrix x = {0}, gate = {0}, up = {0}, down = {0};
    bool ok = true;
    double *norm = hf_vector(m, &LAYER_TENSORS[T_POST_NORM], layer, &ok);
    double *bg = hf_vector(m, &LAYER_TENSORS[T_GATE_B], layer, &ok),
           *bu = hf_vector(m, &LAYER_TENSORS[T_UP_B], layer, &ok);
    double *bd = hf_vector(m, &LAYER_TENSORS[T_DOWN_B], layer, &ok);
    ok = ok && mat_init(&x, h->rows, h->cols) && mat_init(&gate, h->rows, c->intermediate)
         && mat_init(&up, h->rows, c->intermediate) && mat_init(&down, h->rows, c->hidden);
    if (ok) block_rms_norm(&x, h, norm, c->eps);
    // Each weight read a row at a time in its own dtype, never converted whole.
    ok = ok && hf_linear(&gate, &x, hf_tensor(m, &LAYER_TENSORS[T_GATE], layer), bg)
         && hf_linear(&up, &x, hf_tensor(m, &LAYER_TENSORS[T_UP], layer), bu);
    if (ok) block_swiglu(&gate, &up);
    ok = ok && hf_linear(&down, &gate, hf_tensor(m, &LAYER_TENSORS[T_DOWN], layer), bd);
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

static bool llama_embed(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err)
{
    (void)err;
    if (!mat_init(h, n, m->cfg.hidden)) return false;
    const StTensor *e = hf_tensor(m, &MODEL_TENSORS[T_EMBED], -1);
    for (int i = 0; i < n; i++)
        st_read(mat_row(h, i), e, (size_t)ids[i] * (size_t)m->cfg.hidden, (size_t)m->cfg.hidden);
    return true;
}

static bool llama_final_norm(double *out, const HfModel *m, const double *row)
{
    bool ok = true;
    double *w = hf_vector(m, &MODEL_TENSORS[T_NORM], -1, &ok);
    if (ok) {
        Matrix in = {1, m->cfg.hidden, (double *)row}, o = {1, m->cfg.hidden, out};
        block_rms_norm(&o, &in, w, m->cfg.eps);
    }
    free(w);
    return ok;
}

static const char *const NO_PREFIX[] = {"", NULL};

const HfArchOps HF_LLAMA_OPS = {.model_rows = MODEL_TENSORS,
                                .model_count = T_MODEL_COUNT,
                                .layer_rows = LAYER_TENSORS,
                                .layer_count = T_LAYER_COUNT,
                                .prefixes = NO_PREFIX,
                                .embed = llama_embed,
                                .attention = llama_attention,
                                .mlp = llama_mlp,
                                .final_norm = llama_final_norm,
                                .unembedding = T_EMBED,
                                .unembedding_untied = T_LM_HEAD,
                                .norm = NORM_RMS,
                                .norm_gain = T_IN_NORM,
                                .norm_shift = -1,
                                .layers_key = "num_hidden_layers",
                                .input_norm = "input_layernorm, an RMSNorm"};
