// The keys of the attention today's models use: "rope" (rotary position embeddings), "kv_heads"
// (grouped- and multi-query attention) and "window" (a sliding causal window), read and checked at
// their fields.
#include "lesson/lesson_ctx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ROPE_DEFAULT_BASE 10000.0

// "rope"'s "scaling" (a real model's rope_scaling, kept by --save-lesson): {"type": "linear",
// "factor": F} or
// {"type": "llama3", "factor", "low_freq_factor", "high_freq_factor",
// "original_max_position_embeddings"}, each a positive number, high_freq_factor above
// low_freq_factor.
static bool read_rope_scaling(Ctx *c, const cJSON *rope, RopeScale *scale)
{
    static const char *const keys[] = {
        "type", "factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings",
        NULL};
    const cJSON *v = lesson_enter(c, rope, "scaling");
    if (!v) return true;
    if (!cJSON_IsObject(v))
        return lesson_fail(
            c, "expected {\"type\": \"linear\" or \"llama3\", \"factor\": F, ...}, got %s",
            lesson_type_name(v));
    if (!lesson_check_keys(
            c, v, keys,
            "type, factor, low_freq_factor, high_freq_factor, original_max_position_embeddings"))
        return false;
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "type"));
    bool llama3 = type && strcmp(type, "llama3") == 0;
    if (!type || (!llama3 && strcmp(type, "linear") != 0)) {
        lesson_enter(c, v, "type");
        return lesson_fail(c, "expected \"linear\" or \"llama3\"");
    }
    double x[4] = {0};
    for (int k = 0; k < (llama3 ? 4 : 1); k++) {
        const cJSON *j = lesson_enter(c, v, keys[k + 1]);
        if (!j) {
            lesson_push_key(c, keys[k + 1], -1);
            return lesson_fail(c, "missing: a positive number (\"%s\" scaling needs it)", type);
        }
        if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) || !(j->valuedouble > 0))
            return lesson_fail(c, "expected a positive number, got %s", lesson_type_name(j));
        x[k] = j->valuedouble;
        lesson_pop(c);
    }
    if (llama3 && !(x[2] > x[1])) {
        lesson_enter(c, v, "high_freq_factor");
        return lesson_fail(c, "must be greater than low_freq_factor");
    }
    *scale = (RopeScale){llama3 ? ROPE_SCALE_LLAMA3 : ROPE_SCALE_LINEAR, x[0], x[1], x[2], x[3]};
    lesson_pop(c);
    return true;
}

// "rope" (v: its value, NULL when absent): true (base 10000, pairs "halves"), false, or {"base": B,
// "pairs": "halves" | "interleaved", "scaling"}.
bool lesson_read_rope(Ctx *c, const cJSON *v, Build *b, const LessonField *f)
{
    (void)f;
    static const char *const keys[] = {"base", "pairs", "scaling", NULL};
    b->cfg.rope = ROPE_NONE;
    b->cfg.rope_base = ROPE_DEFAULT_BASE;
    b->cfg.rope_scale = (RopeScale){0};
    if (!v) return true;
    if (cJSON_IsBool(v)) {
        if (cJSON_IsTrue(v)) b->cfg.rope = ROPE_HALVES;
        return true;
    }
    if (!cJSON_IsObject(v))
        return lesson_fail(c,
                           "expected true, false or {\"base\": 10000, \"pairs\": \"halves\" or "
                           "\"interleaved\"}, got %s",
                           lesson_type_name(v));
    if (!lesson_check_keys(c, v, keys, "base, pairs, scaling")) return false;
    if (!read_rope_scaling(c, v, &b->cfg.rope_scale)) return false;
    RopeKind kind = ROPE_HALVES;
    const cJSON *base = lesson_enter(c, v, "base");
    if (base) {
        char num[40];
        if (!cJSON_IsNumber(base))
            return lesson_fail(c,
                               "expected a positive number (theta_j = 1 / base^(2j/d_k)), got %s",
                               lesson_type_name(base));
        if (!isfinite(base->valuedouble)) return lesson_fail(c, "number out of range");
        if (!(base->valuedouble > 0))
            return lesson_fail(c, "must be a positive number (theta_j = 1 / base^(2j/d_k)), got %s",
                               lesson_fmt_num(base->valuedouble, num, sizeof num));
        b->cfg.rope_base = base->valuedouble;
        lesson_pop(c);
    }
    const cJSON *pairs = lesson_enter(c, v, "pairs");
    if (pairs) {
        char shown[80];
        if (!cJSON_IsString(pairs))
            return lesson_fail(c, "expected \"halves\" or \"interleaved\", got %s",
                               lesson_type_name(pairs));
        if (strcmp(pairs->valuestring, "interleaved") == 0) kind = ROPE_INTERLEAVED;
        else if (strcmp(pairs->valuestring, "halves") != 0)
            return lesson_fail(c,
                               "expected \"halves\" (pairs j, j + d_k/2) or \"interleaved\" (pairs "
                               "2j, 2j + 1), got \"%s\"",
                               lesson_show_key(pairs->valuestring, shown, sizeof shown));
        lesson_pop(c);
    }
    b->cfg.rope = kind;
    return true;
}

// RoPE turns pairs of numbers: d_k must be even. At "rope" (member), since it is what needs the
// pairs.
bool lesson_check_rope_d_k(Ctx *c, RopeKind rope, int member, int d_k)
{
    if (rope == ROPE_NONE || d_k % 2 == 0) return true;
    return lesson_fail_top(
        c, "rope", member,
        "needs an even d_k (RoPE turns the numbers of each head two by two), but d_k is %d", d_k);
}

// "kv_heads": G from 1 to heads, dividing heads (b->cfg.heads 0: not known, already reported);
// heads when absent. kv_given: the lesson names it.
bool lesson_read_kv_heads(Ctx *c, const cJSON *v, Build *b, const LessonField *f)
{
    (void)f;
    int heads = b->cfg.heads;
    b->cfg.kv_heads = heads;
    b->cfg.kv_given = v != NULL;
    if (!v) return true;
    int g = 0;
    if (!lesson_get_int(c, v, 1, LESSON_MAX_HEADS, &g)) return false;
    if (heads > 0 && g > heads)
        return lesson_fail(
            c, "must be at most heads (%d), got %d: each K/V head serves one or more query heads",
            heads, g);
    if (heads > 0 && heads % g != 0)
        return lesson_fail(
            c, "%d does not divide heads (%d): each K/V head serves the same number of query heads",
            g, heads);
    b->cfg.kv_heads = g;
    return true;
}

// "window": W >= 1, with "mask": "causal" only; 0 when absent.
bool lesson_read_window(Ctx *c, const cJSON *v, Build *b, const LessonField *f)
{
    (void)f;
    b->cfg.window = 0;
    if (!v) return true;
    int w = 0;
    if (!lesson_get_int(c, v, 1, LESSON_MAX_WINDOW, &w)) return false;
    if (b->cfg.mask != MASK_CAUSAL)
        return lesson_fail(c,
                           "a sliding window needs \"mask\": \"causal\" (query i sees the keys j "
                           "with i - %d < j <= i)",
                           w);
    b->cfg.window = w;
    return true;
}
