// A Hugging Face checkpoint's config.json as the forward pass reads it (llama2.c's Config: the
// model's settings apart from its weights). The fields are rows of one table (hf_config.c); the
// families a row each.
#ifndef MHA_HF_CONFIG_H
#define MHA_HF_CONFIG_H

#include <stdbool.h>
#include "hf/hf_error.h"
#include "lesson/lesson.h"

typedef enum {
    HF_ARCH_LLAMA,
    HF_ARCH_GPT2,
    HF_ARCH_BERT,
    HF_ARCH_COUNT
} HfArch; // whose forward pass the model follows

#define HF_MAX_LAYERS 1000 // num_hidden_layers' limit

typedef struct {
    char model_type[32]; // "llama", "mistral", "qwen2", "gpt2", "bert"
    HfArch arch;
    int hidden; // hidden_size
    int heads; // num_attention_heads
    int kv_heads; // num_key_value_heads (default: heads)
    int head_dim; // head_dim (default: hidden / heads)
    int layers; // num_hidden_layers
    int intermediate; // intermediate_size
    int vocab; // vocab_size
    int sliding_window; // the window of the layers that have one (0: none): mistral's every
                        // layer, qwen2's with use_sliding_window those layer_types or
                        // max_window_layers make sliding
    bool windowed[HF_MAX_LAYERS]; // [layers] which layers attend through sliding_window
    int positions; // gpt2: n_positions, bert: max_position_embeddings: the learned positions (the
                   // longest text)
    int type_vocab; // bert: type_vocab_size (the text is all type 0)
    double eps; // rms_norm_eps (gpt2: layer_norm_epsilon, bert: layer_norm_eps)
    double rope_theta; // rope_theta
    RopeScale rope_scale; // rope_scaling of type linear or llama3 (none: zero)
    double rope_dynamic; // rope_scaling of type dynamic: its factor (0: none); the base grows past
    int rope_max_positions; // max_position_embeddings (dynamic only: the length past which it
                            // grows)
    bool tie; // tie_word_embeddings: lm_head is embed_tokens
    bool attn_bias; // attention_bias: q, k, v and o projections with biases (llama)
    bool qkv_bias; // q, k and v with biases (qwen2 always; llama with attention_bias)
    bool mlp_bias; // mlp_bias (llama)
    bool scale_attn; // gpt2's scale_attn_weights: the scores divided by sqrt(head_dim) (llama:
                     // always)
} HfConfig;

// Reads config.json's text (path for errors). false with err naming config.json and the field.
bool hf_config_parse(HfConfig *c, const char *text, size_t len, const char *path, LessonError *err);
// Reads DIR/config.json.
bool hf_config_load(HfConfig *c, const char *dir, LessonError *err);

#endif
