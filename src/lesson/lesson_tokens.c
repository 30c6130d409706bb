// A lesson's tokens: the "tokens" list, or a "sentence" split into words (on Unicode white space)
// or into characters (clusters, for a sentence written without spaces).
#include "lesson/lesson_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

// Byte length of the white-space character at p, or 0: the characters Python's str.split() splits
// on (ASCII \t \n \v \f \r, space, U+001C..U+001F, and Unicode's: U+0085, U+00A0, U+1680,
// U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), so "the\u00a0cat" is two tokens, as in
// NumPy-side tools.
static size_t space_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (p[0] == ' ' || (p[0] >= 0x09 && p[0] <= 0x0D) || (p[0] >= 0x1C && p[0] <= 0x1F)) return 1;
    if (p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0)) return 2;
    if (p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80) return 3; // U+1680
    if (p[0] == 0xE2 && p[1] == 0x80
        && ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF))
        return 3; // U+2000..U+200A, U+2028, U+2029, U+202F
    if (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F) return 3; // U+205F
    if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) return 3; // U+3000
    return 0;
}

// Splits s on white space into out[0..count) when out is not NULL; returns the number of words
// (or -1 when out of memory). The string is valid UTF-8 and NUL-terminated, so reading p[1], p[2]
// is safe.
static int split_words(const char *s, char **out)
{
    int n = 0;
    for (const char *p = s; *p;) {
        size_t w;
        while ((w = space_len(p)) > 0) p += w;
        const char *start = p;
        while (*p && space_len(p) == 0) p++;
        if (p > start) {
            if (out && !(out[n] = lesson_dup_string(start, (size_t)(p - start)))) return -1;
            n++;
        }
    }
    return n;
}

// Splits s into characters (clusters: a letter with its combining marks, an emoji with its
// modifiers and joined parts) into out[0..count) when out is not NULL, leaving out white space;
// returns the number of tokens (or -1 when out of memory). For sentences written without spaces
// (Chinese, Japanese, Thai).
static int split_chars(const char *s, char **out)
{
    int n = 0;
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        size_t w = space_len(s + i);
        if (w > 0) {
            i += w;
            continue;
        }
        size_t e = utf8_cluster_end(s, len, i);
        if (out && !(out[n] = lesson_dup_string(s + i, e - i))) return -1;
        n++;
        i = e;
    }
    return n;
}

// How a sentence becomes tokens: the value of "split" (the first is the default).
static const struct {
    const char *name;
    int (*split)(const char *s, char **out);
    const char *unit; // in messages: "the sentence has 600 words"
} SPLITS[] = {
    {"words", split_words, "words"},
    {"characters", split_chars, "characters"},
};

// "tokens" (t, the member at ti): an array of 1 to LESSON_MAX_TOKENS non-empty strings, copied into
// *out.
static bool read_token_list(Ctx *c, const cJSON *t, int ti, char ***out, int *count)
{
    lesson_push_key(c, "tokens", ti);
    if (!cJSON_IsArray(t))
        return lesson_fail(c, "expected an array of strings, got %s", lesson_type_name(t));
    int n = cJSON_GetArraySize(t);
    if (n == 0) return lesson_fail(c, "expected at least one token, got an empty array");
    if (n > LESSON_MAX_TOKENS)
        return lesson_fail(c, "too many tokens: %d (the limit is %d)", n, LESSON_MAX_TOKENS);
    int i = 0;
    for (const cJSON *x = t->child; x; x = x->next, i++) {
        lesson_push_index(c, i);
        const char *str = NULL;
        if (!lesson_get_string(c, x, &str)) return false;
        if (!str[0]) return lesson_fail(c, "empty token: every token needs at least one character");
        lesson_pop(c);
    }
    char **toks = calloc((size_t)n, sizeof *toks);
    if (!toks) return lesson_fail(c, "out of memory");
    i = 0;
    for (const cJSON *x = t->child; x; x = x->next, i++) {
        toks[i] = lesson_dup_string(x->valuestring, strlen(x->valuestring));
        if (!toks[i]) {
            lesson_free_strings(toks, n);
            return lesson_fail(c, "out of memory");
        }
    }
    lesson_pop(c);
    *out = toks;
    *count = n;
    return true;
}

// "sentence" (s, the member at si) split into *out as "split" (sp, at pi; NULL: words) says.
static bool read_sentence(Ctx *c, const cJSON *s, int si, const cJSON *sp, int pi, char ***out,
                          int *count)
{
    size_t how = 0;
    if (sp) {
        lesson_push_key(c, "split", pi);
        const char *name = NULL;
        if (!lesson_get_string(c, sp, &name)) return false;
        while (how < sizeof SPLITS / sizeof SPLITS[0] && strcmp(SPLITS[how].name, name) != 0) how++;
        if (how == sizeof SPLITS / sizeof SPLITS[0])
            return lesson_fail(
                c,
                "expected \"words\" (split on white space) or \"characters\" (for a sentence "
                "written without spaces), got \"%s\"",
                name);
        lesson_pop(c);
    }
    lesson_push_key(c, "sentence", si);
    const char *str = NULL;
    if (!lesson_get_string(c, s, &str)) return false;
    int n = SPLITS[how].split(str, NULL);
    if (n == 0)
        return lesson_fail(c, "no %s: the sentence is empty or only white space", SPLITS[how].unit);
    if (n > LESSON_MAX_TOKENS)
        return lesson_fail(c, "too many tokens: the sentence has %d %s (the limit is %d)", n,
                           SPLITS[how].unit, LESSON_MAX_TOKENS);
    char **toks = calloc((size_t)n, sizeof *toks);
    if (!toks || SPLITS[how].split(str, toks) < 0) {
        lesson_free_strings(toks, n);
        return lesson_fail(c, "out of memory");
    }
    lesson_pop(c);
    *out = toks;
    *count = n;
    return true;
}

// "tokens" (non-empty strings) or "sentence" of obj (the current path: the top level or "source"),
// the sentence split as "split" says.
bool lesson_read_tokens(Ctx *c, const cJSON *obj, char ***out, int *count)
{
    int ti, si, pi;
    const cJSON *t = lesson_member(obj, "tokens", &ti), *s = lesson_member(obj, "sentence", &si),
                *sp = lesson_member(obj, "split", &pi);
    if (t && s) {
        bool tokens_later = ti > si;
        lesson_push_key(c, tokens_later ? "tokens" : "sentence", tokens_later ? ti : si);
        return lesson_fail_key(c, "\"tokens\" and \"sentence\" both given; use one of them");
    }
    if (!t && !s) return lesson_fail(c, "missing required key \"tokens\" (or \"sentence\")");
    if (t && sp) {
        lesson_push_key(c, "split", pi);
        return lesson_fail_key(
            c,
            "\"split\" says how a \"sentence\" becomes tokens, and this lesson gives \"tokens\"; "
            "remove \"split\"");
    }
    if (t) return read_token_list(c, t, ti, out, count);
    return read_sentence(c, s, si, sp, pi, out, count);
}
