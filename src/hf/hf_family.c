// The families the checkpoint reader follows, a row each: the name of every tensor it reads by its
// part in the model (Hugging Face's state-dict names, after the model's prefix), the shape the
// config gives it, when it is read, the norms, the config keys named in errors and the steps.
#include "hf/hf_arch.h"

// Llama and its kin (mistral, qwen2): modeling_llama.py's LlamaForCausalLM.
#define LLAMA_LAYER(part) "model.layers.%d." part
static const char *const NO_PREFIX[] = {"", NULL};
// GPT2Model's own checkpoints name the tensors bare ("h.0.ln_1.weight"), GPT2LMHeadModel's
// "transformer.h.0...".
static const char *const GPT2_PREFIXES[] = {"", "transformer.", NULL};
// BertModel's own checkpoints name the tensors bare ("embeddings…"), BertForMaskedLM's and the
// others' "bert.…".
static const char *const BERT_PREFIXES[] = {"", "bert.", NULL};
#define BERT_LAYER(part) "encoder.layer.%d." part

const HfArchOps HF_FAMILIES[HF_ARCH_COUNT] = {
    [HF_ARCH_LLAMA] =
        {.model_rows = {[HF_EMBED] = {"model.embed_tokens.weight", D_VOCAB, D_HIDDEN, NEED_ALWAYS},
                        [HF_FINAL_NORM] = {"model.norm.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
                        [HF_LM_HEAD] = {"lm_head.weight", D_VOCAB, D_HIDDEN, NEED_UNTIED}},
         .layer_rows =
             {[HF_IN_NORM] = {LLAMA_LAYER("input_layernorm.weight"), D_HIDDEN, D_NONE, NEED_ALWAYS},
              [HF_Q] = {LLAMA_LAYER("self_attn.q_proj.weight"), D_Q, D_HIDDEN, NEED_ALWAYS},
              [HF_Q_BIAS] = {LLAMA_LAYER("self_attn.q_proj.bias"), D_Q, D_NONE, NEED_QKV_BIAS},
              [HF_K] = {LLAMA_LAYER("self_attn.k_proj.weight"), D_KV, D_HIDDEN, NEED_ALWAYS},
              [HF_K_BIAS] = {LLAMA_LAYER("self_attn.k_proj.bias"), D_KV, D_NONE, NEED_QKV_BIAS},
              [HF_V] = {LLAMA_LAYER("self_attn.v_proj.weight"), D_KV, D_HIDDEN, NEED_ALWAYS},
              [HF_V_BIAS] = {LLAMA_LAYER("self_attn.v_proj.bias"), D_KV, D_NONE, NEED_QKV_BIAS},
              [HF_O] = {LLAMA_LAYER("self_attn.o_proj.weight"), D_HIDDEN, D_Q, NEED_ALWAYS},
              [HF_O_BIAS] = {LLAMA_LAYER("self_attn.o_proj.bias"), D_HIDDEN, D_NONE, NEED_O_BIAS},
              [HF_POST_NORM] = {LLAMA_LAYER("post_attention_layernorm.weight"), D_HIDDEN, D_NONE,
                                NEED_ALWAYS},
              [HF_GATE] = {LLAMA_LAYER("mlp.gate_proj.weight"), D_INTER, D_HIDDEN, NEED_ALWAYS},
              [HF_GATE_BIAS] = {LLAMA_LAYER("mlp.gate_proj.bias"), D_INTER, D_NONE, NEED_MLP_BIAS},
              [HF_UP] = {LLAMA_LAYER("mlp.up_proj.weight"), D_INTER, D_HIDDEN, NEED_ALWAYS},
              [HF_UP_BIAS] = {LLAMA_LAYER("mlp.up_proj.bias"), D_INTER, D_NONE, NEED_MLP_BIAS},
              [HF_DOWN] = {LLAMA_LAYER("mlp.down_proj.weight"), D_HIDDEN, D_INTER, NEED_ALWAYS},
              [HF_DOWN_BIAS] = {LLAMA_LAYER("mlp.down_proj.bias"), D_HIDDEN, D_NONE,
                                NEED_MLP_BIAS}},
         .prefixes = NO_PREFIX,
         .embed = hf_llama_embed,
         .attention = hf_llama_attention,
         .mlp = hf_llama_mlp,
         .final_norm = NORM_RMS,
         .unembedding = HF_EMBED,
         .unembedding_untied = HF_LM_HEAD,
         .layers_key = "num_hidden_layers",
         .positions_key = NULL,
         .input_norm = "input_layernorm, an RMSNorm",
         .norm = NORM_RMS},
    [HF_ARCH_GPT2] =
        {.model_rows = {[HF_EMBED] = {"wte.weight", D_VOCAB, D_HIDDEN, NEED_ALWAYS},
                        [HF_POSITIONS] = {"wpe.weight", D_POSITIONS, D_HIDDEN, NEED_ALWAYS},
                        [HF_FINAL_NORM] = {"ln_f.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
                        [HF_FINAL_NORM_BIAS] = {"ln_f.bias", D_HIDDEN, D_NONE, NEED_ALWAYS}},
         .layer_rows = {[HF_IN_NORM] = {"h.%d.ln_1.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
                        [HF_IN_NORM_BIAS] = {"h.%d.ln_1.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
                        [HF_QKV] = {"h.%d.attn.c_attn.weight", D_HIDDEN, D_QKV, NEED_ALWAYS},
                        [HF_QKV_BIAS] = {"h.%d.attn.c_attn.bias", D_QKV, D_NONE, NEED_ALWAYS},
                        [HF_O] = {"h.%d.attn.c_proj.weight", D_Q, D_HIDDEN, NEED_ALWAYS},
                        [HF_O_BIAS] = {"h.%d.attn.c_proj.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
                        [HF_POST_NORM] = {"h.%d.ln_2.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
                        [HF_POST_NORM_BIAS] = {"h.%d.ln_2.bias", D_HIDDEN, D_NONE, NEED_ALWAYS},
                        [HF_UP] = {"h.%d.mlp.c_fc.weight", D_HIDDEN, D_INTER, NEED_ALWAYS},
                        [HF_UP_BIAS] = {"h.%d.mlp.c_fc.bias", D_INTER, D_NONE, NEED_ALWAYS},
                        [HF_DOWN] = {"h.%d.mlp.c_proj.weight", D_INTER, D_HIDDEN, NEED_ALWAYS},
                        [HF_DOWN_BIAS] = {"h.%d.mlp.c_proj.bias", D_HIDDEN, D_NONE, NEED_ALWAYS}},
         .prefixes = GPT2_PREFIXES,
         .embed = hf_gpt2_embed,
         .attention = hf_gpt2_attention,
         .mlp = hf_gpt2_mlp,
         .final_norm = NORM_LAYER,
         .unembedding = HF_EMBED,
         .unembedding_untied = HF_EMBED,
         .layers_key = "n_layer",
         .positions_key = "n_positions",
         .input_norm = "ln_1, a LayerNorm",
         .norm = NORM_LAYER},
    [HF_ARCH_BERT] =
        {.model_rows =
             {[HF_EMBED] = {"embeddings.word_embeddings.weight", D_VOCAB, D_HIDDEN, NEED_ALWAYS},
              [HF_POSITIONS] = {"embeddings.position_embeddings.weight", D_POSITIONS, D_HIDDEN,
                                NEED_ALWAYS},
              [HF_TYPES] = {"embeddings.token_type_embeddings.weight", D_TYPES, D_HIDDEN,
                            NEED_ALWAYS},
              [HF_EMBED_NORM] = {"embeddings.LayerNorm.weight", D_HIDDEN, D_NONE, NEED_ALWAYS},
              [HF_EMBED_NORM_BIAS] = {"embeddings.LayerNorm.bias", D_HIDDEN, D_NONE, NEED_ALWAYS}},
         .layer_rows =
             {[HF_Q] = {BERT_LAYER("attention.self.query.weight"), D_HIDDEN, D_HIDDEN, NEED_ALWAYS},
              [HF_Q_BIAS] = {BERT_LAYER("attention.self.query.bias"), D_HIDDEN, D_NONE,
                             NEED_ALWAYS},
              [HF_K] = {BERT_LAYER("attention.self.key.weight"), D_HIDDEN, D_HIDDEN, NEED_ALWAYS},
              [HF_K_BIAS] = {BERT_LAYER("attention.self.key.bias"), D_HIDDEN, D_NONE, NEED_ALWAYS},
              [HF_V] = {BERT_LAYER("attention.self.value.weight"), D_HIDDEN, D_HIDDEN, NEED_ALWAYS},
              [HF_V_BIAS] = {BERT_LAYER("attention.self.value.bias"), D_HIDDEN, D_NONE,
                             NEED_ALWAYS},
              [HF_O] = {BERT_LAYER("attention.output.dense.weight"), D_HIDDEN, D_HIDDEN,
                        NEED_ALWAYS},
              [HF_O_BIAS] = {BERT_LAYER("attention.output.dense.bias"), D_HIDDEN, D_NONE,
                             NEED_ALWAYS},
              [HF_POST_NORM] = {BERT_LAYER("attention.output.LayerNorm.weight"), D_HIDDEN, D_NONE,
                                NEED_ALWAYS},
              [HF_POST_NORM_BIAS] = {BERT_LAYER("attention.output.LayerNorm.bias"), D_HIDDEN,
                                     D_NONE, NEED_ALWAYS},
              [HF_UP] = {BERT_LAYER("intermediate.dense.weight"), D_INTER, D_HIDDEN, NEED_ALWAYS},
              [HF_UP_BIAS] = {BERT_LAYER("intermediate.dense.bias"), D_INTER, D_NONE, NEED_ALWAYS},
              [HF_DOWN] = {BERT_LAYER("output.dense.weight"), D_HIDDEN, D_INTER, NEED_ALWAYS},
              [HF_DOWN_BIAS] = {BERT_LAYER("output.dense.bias"), D_HIDDEN, D_NONE, NEED_ALWAYS},
              [HF_OUT_NORM] = {BERT_LAYER("output.LayerNorm.weight"), D_HIDDEN, D_NONE,
                               NEED_ALWAYS},
              [HF_OUT_NORM_BIAS] = {BERT_LAYER("output.LayerNorm.bias"), D_HIDDEN,
                                    D_NONE, NEED_ALWAYS}},
         .prefixes = BERT_PREFIXES,
         .embed = hf_bert_embed,
         .attention = hf_bert_attention,
         .mlp = hf_bert_mlp,
         .final_norm = NORM_NONE,
         .unembedding = HF_MODEL_TENSORS,
         .unembedding_untied = HF_MODEL_TENSORS,
         .layers_key = "num_hidden_layers",
         .positions_key = "max_position_embeddings",
         .input_norm = "none: BERT's layer input is the previous layer's output, already normed "
                       "after its residual add",
         .norm = NORM_NONE},
};
