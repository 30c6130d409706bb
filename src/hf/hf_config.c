// config.json -> HfConfig: one row per field (its key, kind, default, limits), one row per
// model_type.
#include "hf/hf_config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "hf/hf_error.h"
#include "platform/platform.h"

typedef enum { F_INT, F_NUM, F_BOOL } FieldKind;

typedef struct {
    const char *key;
    unsigned arch; // the families that read it (bits of HfArch)
    FieldKind kind;
    size_t offset;
    bool required;
    double dflt; // when absent and not required (F_INT -1: set from the other fields, check_config)
    double min, max;
} ConfigField;

#define AT(f) offsetof(HfConfig, f)
#define LLAMA (1u << HF_ARCH_LLAMA)
#define GPT2 (1u << HF_ARCH_GPT2)
#define BERT (1u << HF_ARCH_BERT)
static const ConfigField FIELDS[] = {
    {"hidden_size", LLAMA | BERT, F_INT, AT(hidden), true, 0, 1, 65536},
    {"num_attention_heads", LLAMA | BERT, F_INT, AT(heads), true, 0, 1, 64},
    {"num_key_value_heads", LLAMA, F_INT, AT(kv_heads), false, -1, 1, 64},
    {"head_dim", LLAMA, F_INT, AT(head_dim), false, -1, 2, 4096},
    {"num_hidden_layers", LLAMA | BERT, F_INT, AT(layers), true, 0, 1, 1000},
    {"intermediate_size", LLAMA | BERT, F_INT, AT(intermediate), true, 0, 1, 1048576},
    {"vocab_size", LLAMA | GPT2 | BERT, F_INT, AT(vocab), true, 0, 1, 16777216},
    {"rms_norm_eps", LLAMA, F_NUM, AT(eps), false, 1e-6, 0, 1},
    {"rope_theta", LLAMA, F_NUM, AT(rope_theta), false, 10000, 1, 1e12},
    {"tie_word_embeddings", LLAMA, F_BOOL, AT(tie), false, 0, 0, 1},
    {"attention_bias", LLAMA, F_BOOL, AT(attn_bias), false, 0, 0, 1},
    {"mlp_bias", LLAMA, F_BOOL, AT(mlp_bias), false, 0, 0, 1},
    // GPT2Config's names and defaults
    {"n_embd", GPT2, F_INT, AT(hidden), true, 0, 1, 65536},
    {"n_head", GPT2, F_INT, AT(heads), true, 0, 1, 64},
    {"n_layer", GPT2, F_INT, AT(layers), true, 0, 1, 1000},
    {"n_inner", GPT2, F_INT, AT(intermediate), false, -1, 1, 1048576},
    {"n_positions", GPT2, F_INT, AT(positions), true, 0, 1, 1048576},
    {"layer_norm_epsilon", GPT2, F_NUM, AT(eps), false, 1e-5, 0, 1},
    {"tie_word_embeddings", GPT2, F_BOOL, AT(tie), false, 1, 0, 1},
    {"scale_attn_weights", GPT2, F_BOOL, AT(scale_attn), false, 1, 0, 1},
    // BertConfig's names and defaults
    {"max_position_embeddings", BERT, F_INT, AT(positions), false, 512, 1, 1048576},
    {"type_vocab_size", BERT, F_INT, AT(type_vocab), false, 2, 1, 1048576},
    {"layer_norm_eps", BERT, F_NUM, AT(eps), false, 1e-12, 0, 1},
};
#undef BERT
#undef LLAMA
#undef GPT2
#undef AT

static bool read_field(HfConfig *c, const ConfigField *f, const cJSON *root, const char *path,
                       LessonError *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, f->key);
    if (!strcmp(f->key, "rope_theta") && !j) // transformers 5 keeps it in rope_parameters
        j = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "rope_parameters"), "rope_theta");
    char *at = (char *)c + f->offset;
    if (!j || cJSON_IsNull(j)) {
        if (f->required)
            return hf_fail(err, path, f->key, "missing: the model's %s is needed", f->key);
        if (f->kind == F_INT) *(int *)at = (int)f->dflt;
        else if (f->kind == F_NUM) *(double *)at = f->dflt;
        else *(bool *)at = f->dflt != 0;
        return true;
    }
    if (f->kind == F_BOOL) {
        if (!cJSON_IsBool(j)) return hf_fail(err, path, f->key, "expected true or false");
        *(bool *)at = cJSON_IsTrue(j);
        return true;
    }
    double v = cJSON_IsNumber(j) ? j->valuedouble : -1e300;
    if (!cJSON_IsNumber(j) || !(v >= f->min && v <= f->max)
        || (f->kind == F_INT && v != (double)(long long)v))
        return hf_fail(err, path, f->key, "expected %s from %g to %g",
                       f->kind == F_INT ? "a whole number" : "a number", f->min, f->max);
    if (f->kind == F_INT) *(int *)at = (int)v;
    else *(double *)at = v;
    return true;
}

// The one value a field may have for the forward pass followed here (NULL or absent: fine too).
static bool only(const cJSON *root, const char *key, const char *const *allowed, const char *path,
                 const char *why, LessonError *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!j || cJSON_IsNull(j)) return true;
    for (int i = 0; allowed[i]; i++)
        if (cJSON_IsString(j) && strcmp(j->valuestring, allowed[i]) == 0) return true;
    return hf_fail(err, path, key, "%s", why);
}

// GPT-2: the MLP 4 * n_embd wide unless n_inner says, GELU's tanh form, the unembedding tied.
static bool check_gpt2(HfConfig *c, const cJSON *root, const char *path, LessonError *err)
{
    static const char *const GELU[] = {"gelu_new", "gelu_pytorch_tanh", NULL};
    c->kv_heads = c->heads;
    if (c->intermediate < 0) c->intermediate = 4 * c->hidden;
    if (c->hidden % c->heads != 0)
        return hf_fail(err, path, "n_head", "%d heads do not divide n_embd %d", c->heads,
                       c->hidden);
    c->head_dim = c->hidden / c->heads;
    c->qkv_bias = c->attn_bias = c->mlp_bias = true;
    if (!c->tie)
        return hf_fail(err, path, "tie_word_embeddings",
                       "gpt2's unembedding is its wte: only true is followed");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "scale_attn_by_inverse_layer_idx")))
        return hf_fail(err, path, "scale_attn_by_inverse_layer_idx", "true is not followed yet");
    return only(root, "activation_function", GELU, path,
                "only GELU's tanh form (\"gelu_new\") is followed for gpt2", err);
}

// BERT: every head d = hidden / heads wide, biases everywhere, the exact (erf) GELU, absolute
// positions, an encoder.
static bool check_bert(HfConfig *c, const cJSON *root, const char *path, LessonError *err)
{
    static const char *const GELU[] = {"gelu", NULL}, *const ABSOLUTE[] = {"absolute", NULL};
    c->kv_heads = c->heads;
    if (c->hidden % c->heads != 0)
        return hf_fail(err, path, "num_attention_heads", "%d heads do not divide hidden_size %d",
                       c->heads, c->hidden);
    c->head_dim = c->hidden / c->heads;
    c->qkv_bias = c->attn_bias = c->mlp_bias = c->scale_attn = true;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "is_decoder")))
        return hf_fail(err, path, "is_decoder",
                       "BERT as a decoder is not followed: only the encoder");
    return only(root, "hidden_act", GELU, path, "only \"gelu\" (erf's GELU) is followed for bert",
                err)
           && only(root, "position_embedding_type", ABSOLUTE, path,
                   "only \"absolute\" positions are followed", err);
}

// rope_scaling's types (modeling_rope_utils.py's ROPE_INIT_FUNCTIONS that are followed) and the
// numbers each needs, in RopeScale's order: factor, low_freq_factor, high_freq_factor,
// original_max_position_embeddings.
static const struct {
    const char *type;
    RopeScaleKind kind;
    bool dynamic; // dynamic NTK: the base grows for a text longer than max_position_embeddings
    const char *keys[4];
} ROPE_TYPES[] = {
    {"default", ROPE_SCALE_NONE, false, {NULL}},
    {"linear", ROPE_SCALE_LINEAR, false, {"factor", NULL}},
    {"dynamic", ROPE_SCALE_NONE, true, {"factor", NULL}},
    {"llama3",
     ROPE_SCALE_LLAMA3,
     false,
     {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}},
};

// rope_scaling: null, or one of ROPE_TYPES with its numbers (each positive); others refused by
// name.
static bool read_rope_scaling(HfConfig *c, const cJSON *root, const char *path, LessonError *err)
{
    const cJSON *scaling = cJSON_GetObjectItemCaseSensitive(root, "rope_scaling");
    if (!scaling || cJSON_IsNull(scaling)) { // transformers 5: rope_parameters holds the type too
        scaling = cJSON_GetObjectItemCaseSensitive(root, "rope_parameters");
        const char *type =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(scaling, "rope_type"));
        if (!type || strcmp(type, "default") == 0) return true;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(scaling, "rope_type");
    if (!type)
        type =
            cJSON_GetObjectItemCaseSensitive(scaling, "type"); // its name before transformers 4.43
    int row = -1;
    for (int i = 0; cJSON_IsString(type) && i < (int)(sizeof ROPE_TYPES / sizeof ROPE_TYPES[0]);
         i++)
        if (strcmp(type->valuestring, ROPE_TYPES[i].type) == 0) row = i;
    if (row < 0) {
        char shown[64];
        return hf_fail(
            err, path, "rope_scaling.rope_type",
            "%s%s%s is not followed: default, linear, dynamic or llama3",
            cJSON_IsString(type) ? "\"" : "",
            cJSON_IsString(type) ? lesson_show_key(type->valuestring, shown, sizeof shown) : "none",
            cJSON_IsString(type) ? "\"" : "");
    }
    double v[4] = {0};
    for (int k = 0; k < 4 && ROPE_TYPES[row].keys[k]; k++) {
        const cJSON *j = cJSON_GetObjectItemCaseSensitive(scaling, ROPE_TYPES[row].keys[k]);
        char field[80];
        snprintf(field, sizeof field, "rope_scaling.%s", ROPE_TYPES[row].keys[k]);
        if (!cJSON_IsNumber(j) || !(j->valuedouble > 0) || !(j->valuedouble < 1e12))
            return hf_fail(err, path, field, "%s for rope_type \"%s\": a positive number",
                           j ? "not valid" : "missing", ROPE_TYPES[row].type);
        v[k] = j->valuedouble;
    }
    c->rope_scale = (RopeScale){ROPE_TYPES[row].kind, v[0], v[1], v[2], v[3]};
    if (c->rope_scale.kind == ROPE_SCALE_LLAMA3 && !(v[2] > v[1]))
        return hf_fail(err, path, "rope_scaling.high_freq_factor",
                       "must be greater than low_freq_factor (%g), got %g", v[1], v[2]);
    if (ROPE_TYPES[row].dynamic) {
        const cJSON *max = cJSON_GetObjectItemCaseSensitive(root, "max_position_embeddings");
        c->rope_dynamic = v[0];
        c->rope_max_positions = 2048; // LlamaConfig's default
        if (max && (!cJSON_IsNumber(max) || max->valuedouble < 1 || max->valuedouble > 1e9))
            return hf_fail(err, path, "max_position_embeddings", "a whole number from 1");
        if (max) c->rope_max_positions = (int)max->valuedouble;
    }
    return true;
}

// Llama and its kin: heads and K/V heads, the head size, SiLU, RoPE scaling.
static bool check_llama(HfConfig *c, const cJSON *root, const char *path, LessonError *err)
{
    static const char *const SILU[] = {"silu", NULL};
    c->scale_attn = true;
    if (c->kv_heads < 0) c->kv_heads = c->heads;
    if (c->head_dim < 0) {
        if (c->hidden % c->heads != 0)
            return hf_fail(err, path, "num_attention_heads",
                           "%d heads do not divide hidden_size %d", c->heads, c->hidden);
        c->head_dim = c->hidden / c->heads;
    }
    if (c->heads % c->kv_heads != 0)
        return hf_fail(err, path, "num_key_value_heads", "%d K/V heads do not divide the %d heads",
                       c->kv_heads, c->heads);
    if (c->head_dim % 2 != 0)
        return hf_fail(err, path, "head_dim", "RoPE turns pairs: head_dim %d is odd", c->head_dim);
    if (!only(root, "hidden_act", SILU, path, "only \"silu\" (SwiGLU) is followed", err))
        return false;
    return read_rope_scaling(c, root, path, err);
}

// Which layers of a family attend through a sliding window.
typedef enum {
    WINDOW_NONE, // none (llama: LlamaConfig has no sliding_window)
    WINDOW_ALL, // every layer, when sliding_window is a number (mistral: MistralAttention)
    WINDOW_QWEN2, // with use_sliding_window, the layers layer_types names "sliding_attention", or
                  // without it those from max_window_layers on (Qwen2Attention)
} WindowKind;

// The families by model_type: the forward pass each follows, what it adds, and what its fields say
// together.
static const struct {
    const char *model_type;
    HfArch arch;
    bool qkv_bias; // q, k, v biases whatever attention_bias says (qwen2)
    WindowKind window;
    bool (*check)(HfConfig *c, const cJSON *root, const char *path, LessonError *err);
} FAMILIES[] = {
    {"llama", HF_ARCH_LLAMA, false, WINDOW_NONE, check_llama},
    {"mistral", HF_ARCH_LLAMA, false, WINDOW_ALL, check_llama},
    {"qwen2", HF_ARCH_LLAMA, true, WINDOW_QWEN2, check_llama},
    {"gpt2", HF_ARCH_GPT2, false, WINDOW_NONE, check_gpt2},
    {"bert", HF_ARCH_BERT, false, WINDOW_NONE, check_bert},
};

// A whole number from lo to hi at key, or absent/null (*v = dflt). false with err otherwise.
static bool whole_or(const cJSON *root, const char *key, int dflt, int lo, int hi, int *v,
                     const char *path, LessonError *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, key);
    *v = dflt;
    if (!j || cJSON_IsNull(j)) return true;
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= lo && j->valuedouble <= hi)
        || j->valuedouble != (double)(long long)j->valuedouble)
        return hf_fail(err, path, key, "expected a whole number from %d to %d", lo, hi);
    *v = (int)j->valuedouble;
    return true;
}

// layer_types (transformers 4.53 on): one entry per layer, "full_attention" or
// "sliding_attention"; absent: windowed from max_window_layers on.
static bool read_layer_types(HfConfig *c, const cJSON *root, const char *path, LessonError *err)
{
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(root, "layer_types");
    int from;
    if (!types || cJSON_IsNull(types)) {
        if (!whole_or(root, "max_window_layers", 28, 0, 1 << 30, &from, path, err)) return false;
        for (int l = 0; l < c->layers; l++) c->windowed[l] = l >= from;
        return true;
    }
    if (!cJSON_IsArray(types) || cJSON_GetArraySize(types) != c->layers)
        return hf_fail(err, path, "layer_types", "expected a list of %d entries, one per layer",
                       c->layers);
    int l = 0;
    for (const cJSON *j = types->child; j; j = j->next, l++) {
        const char *t = cJSON_GetStringValue(j);
        if (!t || (strcmp(t, "full_attention") != 0 && strcmp(t, "sliding_attention") != 0)) {
            char field[64];
            snprintf(field, sizeof field, "layer_types[%d]", l);
            return hf_fail(err, path, field,
                           "only \"full_attention\" and \"sliding_attention\" are followed");
        }
        c->windowed[l] = strcmp(t, "sliding_attention") == 0;
    }
    return true;
}

// sliding_window and which layers it applies to, as the family's attention reads them.
static bool read_window(HfConfig *c, WindowKind kind, const cJSON *root, const char *path,
                        LessonError *err)
{
    if (kind == WINDOW_NONE) return true;
    int w;
    if (!whole_or(root, "sliding_window", 0, 1, 1 << 30, &w, path, err)) return false;
    const cJSON *use = cJSON_GetObjectItemCaseSensitive(root, "use_sliding_window");
    if (kind == WINDOW_QWEN2 && use && !cJSON_IsBool(use) && !cJSON_IsNull(use))
        return hf_fail(err, path, "use_sliding_window", "expected true or false");
    if (kind == WINDOW_QWEN2 && !cJSON_IsTrue(use)) w = 0; // Qwen2Config: None without it
    c->sliding_window = w;
    if (kind == WINDOW_ALL || w == 0) {
        for (int l = 0; l < c->layers; l++) c->windowed[l] = w > 0;
        return true;
    }
    return read_layer_types(c, root, path, err);
}

// Keys that change a family's forward pass in transformers and are not followed here: refused by
// name unless absent, null or their neutral value.
static const struct {
    const char *key;
    unsigned arch;
    double neutral;
} UNFOLLOWED[] = {
    {"partial_rotary_factor", 1u << HF_ARCH_LLAMA, 1.0}, // modeling_rope_utils: RoPE on a part
};

static bool refuse_unfollowed(const HfConfig *c, const cJSON *root, const char *path,
                              LessonError *err)
{
    for (size_t i = 0; i < sizeof UNFOLLOWED / sizeof UNFOLLOWED[0]; i++) {
        const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, UNFOLLOWED[i].key);
        if (!(UNFOLLOWED[i].arch & 1u << c->arch) || !j || cJSON_IsNull(j)) continue;
        if (!cJSON_IsNumber(j) || j->valuedouble != UNFOLLOWED[i].neutral)
            return hf_fail(err, path, UNFOLLOWED[i].key,
                           "changes the forward pass and is not followed here (only %g is)",
                           UNFOLLOWED[i].neutral);
    }
    return true;
}

// The family of model_type; -1 with err when it is none read here.
static int family_of(const cJSON *root, const char *path, LessonError *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    for (int i = 0; cJSON_IsString(type) && i < (int)(sizeof FAMILIES / sizeof FAMILIES[0]); i++)
        if (strcmp(type->valuestring, FAMILIES[i].model_type) == 0) return i;
    char shown[64];
    hf_fail(err, path, "model_type",
            "%s%s%s: the families read are llama, mistral, qwen2, gpt2 and bert",
            cJSON_IsString(type) ? "unknown model_type \"" : "missing",
            cJSON_IsString(type) ? lesson_show_key(type->valuestring, shown, sizeof shown) : "",
            cJSON_IsString(type) ? "\"" : "");
    return -1;
}

bool hf_config_parse(HfConfig *c, const char *text, size_t len, const char *path, LessonError *err)
{
    memset(c, 0, sizeof *c);
    cJSON *root = hf_parse_json(text, len, path, err);
    if (!root) return false;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return hf_fail(err, path, NULL, "not a JSON object");
    }
    int family = family_of(root, path, err);
    bool ok = family >= 0;
    if (ok) {
        snprintf(c->model_type, sizeof c->model_type, "%s", FAMILIES[family].model_type);
        c->arch = FAMILIES[family].arch;
    }
    for (size_t i = 0; ok && i < sizeof FIELDS / sizeof FIELDS[0]; i++)
        if (FIELDS[i].arch & 1u << c->arch) ok = read_field(c, &FIELDS[i], root, path, err);
    if (ok) ok = FAMILIES[family].check(c, root, path, err);
    if (ok && c->arch == HF_ARCH_LLAMA) c->qkv_bias = FAMILIES[family].qkv_bias || c->attn_bias;
    if (ok) ok = read_window(c, FAMILIES[family].window, root, path, err);
    if (ok) ok = refuse_unfollowed(c, root, path, err);
    cJSON_Delete(root);
    return ok;
}

bool hf_config_load(HfConfig *c, const char *dir, LessonError *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/config.json", dir);
    size_t len = 0;
    char *text = hf_read_file(path, &len, err);
    if (!text) return false;
    bool ok = hf_config_parse(c, text, len, path, err);
    free(text);
    return ok;
}
