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
    const StTensor *q = hf_layer_tensor(j->m, HF_Q, j->layer),
                   *k = hf_layer_tensor(j->m, HF_K, j->layer);
    const StTensor *v = hf_layer_tensor(j->m, HF_V, j->layer),
                   *o = hf_layer_tensor(j->m, HF_O, j->layer);
    int widest = c->hidden > c->heads * d ? c->hidden : c->heads * d;
    double *buf =
        malloc(sizeof *buf * (size_t)widest * (size_t)(d > HF_COLUMN_BLOCK ? d : HF_COLUMN_BLOCK));
    if (!(j->ok = buf != NULL)) return 1;
    for (int h = j->part; h < c->heads; h += j->parts)
        hf_columns_from_rows(&p->W_Q[h], q, h * d, buf);
    for (int g = j->part; g < c->kv_heads; g += j->parts) {
        hf_columns_from_rows(&p->W_K[g * group], k, g * d,
                             buf); // the group's first query head holds its K/V head
        hf_columns_from_rows(&p->W_V[g * group], v, g * d, buf);
    }
    int blocks = (p->W_O.cols + HF_COLUMN_BLOCK - 1)
                 / HF_COLUMN_BLOCK; // W_O's column blocks, in parts slices
    for (int b = blocks * j->part / j->parts; b < blocks * (j->part + 1) / j->parts; b++) {
        int c0 = b * HF_COLUMN_BLOCK,
            count = p->W_O.cols - c0 < HF_COLUMN_BLOCK ? p->W_O.cols - c0 : HF_COLUMN_BLOCK;
        hf_columns(&p->W_O, c0, o, c0, count, buf);
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
    const StTensor *qb = hf_layer_tensor(m, HF_Q_BIAS, layer),
                   *kb = hf_layer_tensor(m, HF_K_BIAS, layer);
    const StTensor *vb = hf_layer_tensor(m, HF_V_BIAS, layer),
                   *ob = hf_layer_tensor(m, HF_O_BIAS, layer);
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
bool hf_llama_attention(AttnParams *p, const HfModel *m, int layer, const Matrix *h)
{
    const HfConfig *c = &m->cfg;
    if (!p->X.data
        && !params_init_grouped(p, h->rows, h->rows, c->hidden, c->heads, c->kv_heads, c->head_dim))
        return false;
    bool ok = true;
    double *w = hf_layer_vector(m, HF_IN_NORM, layer, &ok);
    if (!ok) {
        params_free(p);
        return false;
    }
    block_rms_norm(&p->X, h, w, c->eps);
    free(w);
    memcpy(p->S.data, p->X.data, sizeof(double) * (size_t)h->rows * (size_t)h->cols);
    p->kv_given = c->kv_heads < c->heads;
    p->mask = MASK_CAUSAL;
    p->window = c->windowed[layer] ? c->sliding_window : 0; // this layer's, as hf_config.c reads it
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
bool hf_llama_mlp(Matrix *h, const HfModel *m, int layer)
{
    const HfConfig *c = &m->cfg;
    Matrix x = {0}, gate = {0}, up = {0}, down = {0};
    bool ok = true;
    double *norm = hf_layer_vector(m, HF_POST_NORM, layer, &ok);
    double *bg = hf_layer_vector(m, HF_GATE_BIAS, layer, &ok),
           *bu = hf_layer_vector(m, HF_UP_BIAS, layer, &ok);
    double *bd = hf_layer_vector(m, HF_DOWN_BIAS, layer, &ok);
    ok = ok && mat_init(&x, h->rows, h->cols) && mat_init(&gate, h->rows, c->intermediate)
         && mat_init(&up, h->rows, c->intermediate) && mat_init(&down, h->rows, c->hidden);
    if (ok) block_rms_norm(&x, h, norm, c->eps);
    // Each weight read a row at a time in its own dtype, never converted whole.
    ok = ok && hf_linear(&gate, &x, hf_layer_tensor(m, HF_GATE, layer), bg)
         && hf_linear(&up, &x, hf_layer_tensor(m, HF_UP, layer), bu);
    if (ok) block_swiglu(&gate, &up);
    ok = ok && hf_linear(&down, &gate, hf_layer_tensor(m, HF_DOWN, layer), bd);
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

bool hf_llama_embed(Matrix *h, const HfModel *m, const int *ids, int n, LessonError *err)
{
    (void)err;
    if (!mat_init(h, n, m->cfg.hidden)) return false;
    const StTensor *e = hf_model_tensor(m, HF_EMBED);
    for (int i = 0; i < n; i++)
        st_read(mat_row(h, i), e, (size_t)ids[i] * (size_t)m->cfg.hidden, (size_t)m->cfg.hidden);
    return true;
}
