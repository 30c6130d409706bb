// Tests src/hf/hf_config: config.json of each family read with Hugging Face's defaults (llama,
// mistral, qwen2, gpt2, bert; transformers 5's rope_parameters), and every field that cannot be
// followed refused by name.
#include <string.h>
#include "check.h"
#include "hf/hf_config.h"

static bool parse(HfConfig *c, const char *json, LessonError *err)
{
    return hf_config_parse(c, json, strlen(json), "config.json", err);
}

// A config that must be refused naming field.
static void refused(const char *json, const char *field)
{
    HfConfig c;
    LessonError err;
    bool ok = parse(&c, json, &err);
    CHECK(!ok && strcmp(err.path, field) == 0 && strcmp(err.file, "config.json") == 0,
          "%s: %s (expected %s)", json, ok ? "accepted" : err.path, field);
}

#define LLAMA                                                                                      \
    "\"hidden_size\": 64, \"num_attention_heads\": 4, \"num_hidden_layers\": 2, "                  \
    "\"intermediate_size\": 96, "                                                                  \
    "\"vocab_size\": 100"
#define GPT2                                                                                       \
    "\"model_type\": \"gpt2\", \"n_embd\": 48, \"n_head\": 3, \"n_layer\": 2, \"n_positions\": "   \
    "32, \"vocab_size\": 90"

static void test_defaults(void)
{
    HfConfig c;
    LessonError err;
    CHECK(parse(&c, "{\"model_type\": \"llama\", " LLAMA "}", &err), "%s", err.message);
    CHECK(c.arch == HF_ARCH_LLAMA && c.kv_heads == 4 && c.head_dim == 16 && c.eps == 1e-6
              && c.rope_theta == 10000 && !c.tie && !c.qkv_bias && c.scale_attn,
          "llama's defaults");
    CHECK(parse(&c,
                "{\"model_type\": \"qwen2\", \"num_key_value_heads\": 2, \"tie_word_embeddings\": "
                "true, " LLAMA "}",
                &err),
          "%s", err.message);
    CHECK(c.qkv_bias && !c.attn_bias && c.kv_heads == 2 && c.tie, "qwen2: q, k, v biases");
    CHECK(parse(&c, "{\"model_type\": \"mistral\", \"sliding_window\": 8, " LLAMA "}", &err), "%s",
          err.message);
    CHECK(c.sliding_window == 8, "mistral's window %d", c.sliding_window);
    CHECK(parse(&c, "{\"model_type\": \"mistral\", \"sliding_window\": null, " LLAMA "}", &err)
              && c.sliding_window == 0,
          "no window");
    CHECK(parse(&c, "{\"model_type\": \"llama\", \"sliding_window\": 8, " LLAMA "}", &err)
              && c.sliding_window == 0,
          "llama has no window");
    CHECK(
        parse(&c,
              "{\"model_type\": \"llama\", \"rope_parameters\": {\"rope_theta\": 500000.0}, " LLAMA
              "}",
              &err)
            && c.rope_theta == 500000.0,
        "transformers 5's rope_parameters");
    CHECK(parse(&c,
                "{\"model_type\": \"llama\", \"rope_scaling\": {\"rope_type\": \"default\"}, " LLAMA
                "}",
                &err),
          "plain RoPE under rope_scaling");
    CHECK(parse(&c,
                "{\"model_type\": \"llama\", \"rope_scaling\": {\"rope_type\": \"llama3\", "
                "\"factor\": 32.0, "
                "\"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, "
                "\"original_max_position_embeddings\": 8192}, " LLAMA "}",
                &err)
              && c.rope_scale.kind == ROPE_SCALE_LLAMA3 && c.rope_scale.factor == 32.0
              && c.rope_scale.original_max == 8192,
          "Llama 3.2's rope_scaling: %s", err.message);
    CHECK(parse(&c,
                "{\"model_type\": \"llama\", \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": "
                "2.0}, " LLAMA "}",
                &err)
              && c.rope_scale.kind == ROPE_SCALE_NONE && c.rope_dynamic == 2.0
              && c.rope_max_positions == 2048,
          "dynamic under the old key, max_position_embeddings' default: %s", err.message);
    CHECK(parse(&c, "{\"model_type\": \"llama\", \"head_dim\": 32, " LLAMA "}", &err)
              && c.head_dim == 32,
          "head_dim of its own");
    CHECK(parse(&c, "{" GPT2 ", \"n_inner\": null}", &err), "%s", err.message);
    CHECK(c.arch == HF_ARCH_GPT2 && c.intermediate == 192 && c.head_dim == 16 && c.kv_heads == 3
              && c.tie && c.eps == 1e-5 && c.positions == 32 && c.qkv_bias && c.attn_bias
              && c.mlp_bias && c.scale_attn,
          "gpt2's defaults");
    CHECK(parse(&c, "{\"model_type\": \"bert\", \"hidden_act\": \"gelu\", " LLAMA "}", &err), "%s",
          err.message);
    CHECK(c.arch == HF_ARCH_BERT && c.positions == 512 && c.type_vocab == 2 && c.eps == 1e-12
              && c.head_dim == 16 && c.kv_heads == 4 && c.qkv_bias && c.attn_bias && c.mlp_bias
              && c.scale_attn,
          "bert's defaults");
}

static void test_refused(void)
{
    refused("{" LLAMA "}", "model_type");
    refused("{\"model_type\": \"falcon\", " LLAMA "}", "model_type");
    refused("{\"model_type\": \"llama\", \"hidden_size\": 64}", "num_attention_heads");
    refused("{\"model_type\": \"llama\", \"num_key_value_heads\": 3, " LLAMA "}",
            "num_key_value_heads");
    refused("{\"model_type\": \"llama\", \"hidden_act\": \"gelu\", " LLAMA "}", "hidden_act");
    refused("{\"model_type\": \"llama\", \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": "
            "8}, " LLAMA "}",
            "rope_scaling.low_freq_factor");
    refused("{\"model_type\": \"llama\", \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": "
            "8}, " LLAMA "}",
            "rope_scaling.rope_type");
    refused("{\"model_type\": \"llama\", \"rope_scaling\": {\"type\": \"linear\"}, " LLAMA "}",
            "rope_scaling.factor");
    refused("{\"model_type\": \"llama\", \"rms_norm_eps\": \"small\", " LLAMA "}", "rms_norm_eps");
    refused("{\"model_type\": \"llama\", \"tie_word_embeddings\": 1, " LLAMA "}",
            "tie_word_embeddings");
    refused("{\"model_type\": \"llama\", \"head_dim\": 15, " LLAMA "}", "head_dim");
    refused("{\"model_type\": \"llama\", \"vocab_size\": 2.5, \"hidden_size\": 64, "
            "\"num_attention_heads\": 4, "
            "\"num_hidden_layers\": 2, \"intermediate_size\": 96}",
            "vocab_size");
    refused("{" GPT2 ", \"activation_function\": \"relu\"}", "activation_function");
    refused("{" GPT2 ", \"tie_word_embeddings\": false}", "tie_word_embeddings");
    refused("{\"model_type\": \"gpt2\", \"n_embd\": 50, \"n_head\": 3, \"n_layer\": 2, "
            "\"n_positions\": 32, "
            "\"vocab_size\": 90}",
            "n_head");
    refused("{\"model_type\": \"bert\", \"hidden_act\": \"relu\", " LLAMA "}", "hidden_act");
    refused("{\"model_type\": \"bert\", \"position_embedding_type\": \"relative_key\", " LLAMA "}",
            "position_embedding_type");
    refused("{\"model_type\": \"bert\", \"is_decoder\": true, " LLAMA "}", "is_decoder");
    refused("{\"model_type\": \"bert\", \"layer_norm_eps\": 2, " LLAMA "}", "layer_norm_eps");
    refused("[]", "");
}

int main(void)
{
    test_defaults();
    test_refused();
    return check_report("test_model_hf_config");
}
