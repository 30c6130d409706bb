// Lesson format 1: JSON text -> a validated Lesson (tokens + AttnParams), or the first problem with its
// file, line:column (code points), JSON path and a message. cJSON parses; json_locate.c knows positions.
#include "lesson.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "platform/platform.h"
#include "core/utf8.h"
#include "json_locate.h"

// --- the validation context: the text, the error and the JSON path of the value being read ---

#define MAX_PATH 12

typedef struct {
    const char *key; // object member name, or NULL for an array element
    int index; // member position in its object (for json_locate) or array index
} PathSeg;

typedef struct {
    const char *text;
    size_t len;
    LessonError *err;
    PathSeg path[MAX_PATH];
    int depth;
    LessonReport *rep;    // NULL: stop at the first error (lesson_parse); else go on and collect them all
    bool emb_seeded[2];   // the embeddings (0) and the source's (1) were drawn {"random": {"seed": ...}}
    uint64_t emb_seed[2]; // and with that seed
    bool pytorch_unconfirmed; // PyTorch weights without "num_heads"
} Ctx;

static void push_key(Ctx *c, const char *key, int member)
{
    if (c->depth < MAX_PATH) c->path[c->depth] = (PathSeg){key, member};
    c->depth++;
}

static void push_index(Ctx *c, int i)
{
    if (c->depth < MAX_PATH) c->path[c->depth] = (PathSeg){NULL, i};
    c->depth++;
}

static void pop(Ctx *c) { c->depth--; }

static void append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    if (*used >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used = (*used + (size_t)n < cap) ? *used + (size_t)n : cap;
}

void lesson_report_add(LessonReport *r, const LessonError *e)
{
    if (e->warning) r->warnings++;
    else r->errors++;
    if (r->count >= LESSON_REPORT_MAX) return;
    LessonError *items = realloc(r->items, sizeof *items * (size_t)(r->count + 1));
    if (!items) return; // counted, not kept
    r->items = items;
    r->items[r->count++] = *e;
}

void lesson_report_free(LessonReport *r)
{
    if (!r) return;
    free(r->items);
    memset(r, 0, sizeof *r);
}

// Describes a problem at the current path into *e: at the value, or (at_key) at the key of the last member,
// whose name is then left out of the path because the message names it.
static void describe(Ctx *c, bool at_key, LessonError *e, const char *fmt, va_list ap)
{
    int depth = c->depth < MAX_PATH ? c->depth : MAX_PATH;
    int shown = at_key ? depth - 1 : depth;
    size_t used = 0;
    e->path[0] = '\0';
    for (int i = 0; i < shown; i++) {
        if (c->path[i].key)
            append(e->path, sizeof e->path, &used, "%s%s", used ? "." : "", c->path[i].key);
        else
            append(e->path, sizeof e->path, &used, "[%d]", c->path[i].index);
    }
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    int idx[MAX_PATH];
    for (int i = 0; i < depth; i++) idx[i] = c->path[i].index;
    size_t off;
    if (json_locate(c->text, c->len, idx, depth, at_key, &off)) {
        json_line_col(c->text, c->len, off, &e->line, &e->col);
    } else {
        e->line = 0;
        e->col = 0;
    }
}

// Records the error (and, when collecting, adds it to the report).
static bool fail_va(Ctx *c, bool at_key, const char *fmt, va_list ap)
{
    describe(c, at_key, c->err, fmt, ap);
    c->err->warning = false;
    if (c->rep) lesson_report_add(c->rep, c->err);
    return false;
}

// A warning at the current path (only when collecting a report): the lesson stays valid.
static void warn(Ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void warn(Ctx *c, const char *fmt, ...)
{
    if (!c->rep) return;
    LessonError w;
    memset(&w, 0, sizeof w);
    snprintf(w.file, sizeof w.file, "%s", c->err->file);
    va_list ap;
    va_start(ap, fmt);
    describe(c, false, &w, fmt, ap);
    va_end(ap);
    w.warning = true;
    lesson_report_add(c->rep, &w);
}

static bool fail(Ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_va(c, false, fmt, ap);
    va_end(ap);
    return false;
}

static bool fail_key(Ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_va(c, true, fmt, ap);
    va_end(ap);
    return false;
}

// Reports at a member of the top-level object (from anywhere below it).
static bool fail_top(Ctx *c, const char *key, int member, const char *fmt, ...)
{
    c->depth = 0;
    if (key) push_key(c, key, member);
    va_list ap;
    va_start(ap, fmt);
    fail_va(c, false, fmt, ap);
    va_end(ap);
    return false;
}

// --- small readers ---

static const char *plural(int n) { return n == 1 ? "" : "s"; }

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    if (cJSON_IsTrue(v)) return "true";
    if (cJSON_IsFalse(v)) return "false";
    if (cJSON_IsNull(v)) return "null";
    return "an unknown value";
}

// The shortest %g form that reads back as x ("2.5", "1e+20", "-3").
static const char *fmt_num(double x, char *buf, size_t cap)
{
    if (x == 0) {
        snprintf(buf, cap, "0");
    } else if (x == floor(x) && fabs(x) < 1e17) {
        snprintf(buf, cap, "%.0f", x);
    } else {
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(buf, cap, "%.*g", prec, x);
            if (strtod(buf, NULL) == x) break;
        }
    }
    return buf;
}

// A key for a message: at most 60 bytes, cut at a character boundary, control characters as '?'.
static const char *show_key(const char *key, char *buf, size_t cap)
{
    size_t n = 0, i = 0;
    for (; key[i] && i < 60 && n + 4 < cap; i++) buf[n++] = ((unsigned char)key[i] < 0x20) ? '?' : key[i];
    if (key[i]) {
        if (((unsigned char)key[i] & 0xC0) == 0x80) {
            // The cut fell inside a character: drop the part of it that was copied.
            while (n > 0 && ((unsigned char)buf[n - 1] & 0xC0) == 0x80) n--;
            if (n > 0) n--;
        }
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

// The first member named key (duplicates were already rejected by check_keys), and its position.
static const cJSON *member(const cJSON *obj, const char *key, int *index)
{
    int i = 0;
    for (const cJSON *ch = obj->child; ch; ch = ch->next, i++) {
        if (ch->string && strcmp(ch->string, key) == 0) {
            *index = i;
            return ch;
        }
    }
    *index = -1;
    return NULL;
}

// Rejects duplicate and unknown keys of obj (at the current path), in document order.
static bool check_keys(Ctx *c, const cJSON *obj, const char *const *allowed, const char *expected)
{
    char shown[80];
    int k = 0, d0 = c->depth;
    bool ok = true;
    for (const cJSON *ch = obj->child; ch; ch = ch->next, k++) {
        const char *name = ch->string ? ch->string : "";
        bool dup = false;
        int first = 0;
        for (const cJSON *p = obj->child; p != ch; p = p->next, first++) {
            if (p->string && strcmp(p->string, name) == 0) {
                int line = 0, col = 0;
                size_t off;
                int idx[MAX_PATH + 1];
                int depth = c->depth < MAX_PATH ? c->depth : MAX_PATH;
                for (int i = 0; i < depth; i++) idx[i] = c->path[i].index;
                idx[depth] = first;
                if (json_locate(c->text, c->len, idx, depth + 1, true, &off))
                    json_line_col(c->text, c->len, off, &line, &col);
                push_key(c, name, k);
                ok = fail_key(c, "duplicate key \"%s\" (first given at line %d, column %d)",
                              show_key(name, shown, sizeof shown), line, col);
                if (!c->rep) return false;
                c->depth = d0;
                dup = true;
                break;
            }
        }
        if (dup) continue;
        bool known = false;
        for (int a = 0; allowed[a]; a++) known = known || strcmp(allowed[a], name) == 0;
        if (!known) {
            push_key(c, name, k);
            ok = fail_key(c, "unknown key \"%s\" (expected %s)", show_key(name, shown, sizeof shown), expected);
            if (!c->rep) return false;
            c->depth = d0;
        }
    }
    return ok;
}

static bool get_number(Ctx *c, const cJSON *v, double *out)
{
    if (!cJSON_IsNumber(v)) return fail(c, "expected a number, got %s", type_name(v));
    if (!isfinite(v->valuedouble)) return fail(c, "number out of range");
    *out = v->valuedouble;
    return true;
}

// An integer in [min, max]. The path names the key, so messages read "heads: must be at least 1, got 0".
static bool get_int(Ctx *c, const cJSON *v, int min, int max, int *out)
{
    char num[40];
    if (!cJSON_IsNumber(v)) return fail(c, "expected a whole number, got %s", type_name(v));
    double x = v->valuedouble;
    if (!isfinite(x)) return fail(c, "number out of range");
    if (x != floor(x)) return fail(c, "must be a whole number, got %s", fmt_num(x, num, sizeof num));
    if (x < min) return fail(c, "must be at least %d, got %s", min, fmt_num(x, num, sizeof num));
    if (x > max) return fail(c, "must be at most %d, got %s", max, fmt_num(x, num, sizeof num));
    *out = (int)x;
    return true;
}

static bool get_seed(Ctx *c, const cJSON *v, uint64_t *out)
{
    char num[40];
    if (!cJSON_IsNumber(v)) return fail(c, "expected a whole number from 0 to 2^53 - 1, got %s", type_name(v));
    double x = v->valuedouble;
    if (!isfinite(x)) return fail(c, "number out of range");
    if (x < 0) return fail(c, "must not be negative, got %s", fmt_num(x, num, sizeof num));
    if (x != floor(x)) return fail(c, "must be a whole number, got %s", fmt_num(x, num, sizeof num));
    if (x > LESSON_MAX_SEED)
        return fail(c, "must be at most 9007199254740991 (2^53 - 1), got %s", fmt_num(x, num, sizeof num));
    *out = (uint64_t)x;
    return true;
}

// A standard deviation: finite and >= 0.
static bool get_std(Ctx *c, const cJSON *v, double *out)
{
    char num[40];
    if (!get_number(c, v, out)) return false;
    if (*out < 0) return fail(c, "must not be negative, got %s", fmt_num(*out, num, sizeof num));
    return true;
}

static bool get_string(Ctx *c, const cJSON *v, const char **out)
{
    if (!cJSON_IsString(v) || !v->valuestring) return fail(c, "expected a string, got %s", type_name(v));
    *out = v->valuestring;
    return true;
}

static char *dup_string(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static void free_strings(char **s, int n)
{
    if (!s) return;
    for (int i = 0; i < n; i++) free(s[i]);
    free(s);
}

// dst[0..count) = the numbers of the array v (at the current path); what names count in messages.
static bool read_vector(Ctx *c, const cJSON *v, double *dst, int count, const char *what)
{
    if (!cJSON_IsArray(v))
        return fail(c, "expected an array of %d number%s (%s), got %s", count, plural(count), what, type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != count) return fail(c, "expected %d number%s (%s), got %d", count, plural(count), what, got);
    int j = 0;
    for (const cJSON *x = v->child; x; x = x->next, j++) {
        push_index(c, j);
        if (!get_number(c, x, &dst[j])) return false;
        pop(c);
    }
    return true;
}

// m (already shaped) = the array of rows v; rows_what and cols_what name the sizes in messages.
static bool read_matrix(Ctx *c, const cJSON *v, Matrix *m, const char *rows_what, const char *cols_what)
{
    if (!cJSON_IsArray(v))
        return fail(c, "expected an array of %d row%s (%s), got %s", m->rows, plural(m->rows), rows_what, type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != m->rows) return fail(c, "expected %d row%s (%s), got %d", m->rows, plural(m->rows), rows_what, got);
    int r = 0, d0 = c->depth;
    bool ok = true;
    for (const cJSON *row = v->child; row; row = row->next, r++) {
        push_index(c, r);
        if (!read_vector(c, row, mat_row(m, r), m->cols, cols_what)) {
            if (!c->rep) return false;
            ok = false; // a report: the other rows are checked too
        }
        c->depth = d0;
    }
    return ok;
}

// --- tokens ---

// Byte length of the white-space character at p, or 0: the characters Python's str.split() splits on
// (ASCII \t \n \v \f \r, space, U+001C..U+001F, and Unicode's: U+0085, U+00A0, U+1680, U+2000..U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000), so "the\u00a0cat" is two tokens, as in NumPy-side tools.
static size_t space_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (p[0] == ' ' || (p[0] >= 0x09 && p[0] <= 0x0D) || (p[0] >= 0x1C && p[0] <= 0x1F)) return 1;
    if (p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0)) return 2;
    if (p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80) return 3; // U+1680
    if (p[0] == 0xE2 && p[1] == 0x80 &&
        ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF))
        return 3; // U+2000..U+200A, U+2028, U+2029, U+202F
    if (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F) return 3; // U+205F
    if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) return 3; // U+3000
    return 0;
}

// Splits s on white space into out[0..count) when out is not NULL; returns the number of words
// (or -1 when out of memory). The string is valid UTF-8 and NUL-terminated, so reading p[1], p[2] is safe.
static int split_words(const char *s, char **out)
{
    int n = 0;
    for (const char *p = s; *p;) {
        size_t w;
        while ((w = space_len(p)) > 0) p += w;
        const char *start = p;
        while (*p && space_len(p) == 0) p++;
        if (p > start) {
            if (out && !(out[n] = dup_string(start, (size_t)(p - start)))) return -1;
            n++;
        }
    }
    return n;
}

// Splits s into characters (clusters: a letter with its combining marks, an emoji with its modifiers and
// joined parts) into out[0..count) when out is not NULL, leaving out white space; returns the number of
// tokens (or -1 when out of memory). For sentences written without spaces (Chinese, Japanese, Thai).
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
        if (out && !(out[n] = dup_string(s + i, e - i))) return -1;
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

// "tokens" (non-empty strings) or "sentence" of obj (the current path: the top level or "source"), the
// sentence split as "split" says.
static bool read_tokens(Ctx *c, const cJSON *obj, char ***out, int *count)
{
    int ti, si, pi;
    const cJSON *t = member(obj, "tokens", &ti), *s = member(obj, "sentence", &si), *sp = member(obj, "split", &pi);
    if (t && s) {
        bool tokens_later = ti > si;
        push_key(c, tokens_later ? "tokens" : "sentence", tokens_later ? ti : si);
        return fail_key(c, "\"tokens\" and \"sentence\" both given; use one of them");
    }
    if (!t && !s) return fail(c, "missing required key \"tokens\" (or \"sentence\")");
    if (t && sp) {
        push_key(c, "split", pi);
        return fail_key(c, "\"split\" says how a \"sentence\" becomes tokens, and this lesson gives \"tokens\"; "
                           "remove \"split\"");
    }

    char **toks = NULL;
    int n;
    if (t) {
        push_key(c, "tokens", ti);
        if (!cJSON_IsArray(t)) return fail(c, "expected an array of strings, got %s", type_name(t));
        n = cJSON_GetArraySize(t);
        if (n == 0) return fail(c, "expected at least one token, got an empty array");
        if (n > LESSON_MAX_TOKENS) return fail(c, "too many tokens: %d (the limit is %d)", n, LESSON_MAX_TOKENS);
        int i = 0;
        for (const cJSON *x = t->child; x; x = x->next, i++) {
            push_index(c, i);
            const char *str = NULL;
            if (!get_string(c, x, &str)) return false;
            if (!str[0]) return fail(c, "empty token: every token needs at least one character");
            pop(c);
        }
        toks = calloc((size_t)n, sizeof *toks);
        if (!toks) return fail(c, "out of memory");
        i = 0;
        for (const cJSON *x = t->child; x; x = x->next, i++) {
            toks[i] = dup_string(x->valuestring, strlen(x->valuestring));
            if (!toks[i]) {
                free_strings(toks, n);
                return fail(c, "out of memory");
            }
        }
    } else {
        size_t how = 0;
        if (sp) {
            push_key(c, "split", pi);
            const char *name = NULL;
            if (!get_string(c, sp, &name)) return false;
            while (how < sizeof SPLITS / sizeof SPLITS[0] && strcmp(SPLITS[how].name, name) != 0) how++;
            if (how == sizeof SPLITS / sizeof SPLITS[0])
                return fail(c, "expected \"words\" (split on white space) or \"characters\" (for a sentence "
                               "written without spaces), got \"%s\"", name);
            pop(c);
        }
        push_key(c, "sentence", si);
        const char *str = NULL;
        if (!get_string(c, s, &str)) return false;
        n = SPLITS[how].split(str, NULL);
        if (n == 0) return fail(c, "no %s: the sentence is empty or only white space", SPLITS[how].unit);
        if (n > LESSON_MAX_TOKENS)
            return fail(c, "too many tokens: the sentence has %d %s (the limit is %d)", n, SPLITS[how].unit,
                        LESSON_MAX_TOKENS);
        toks = calloc((size_t)n, sizeof *toks);
        if (!toks || SPLITS[how].split(str, toks) < 0) {
            free_strings(toks, n);
            return fail(c, "out of memory");
        }
    }
    pop(c);
    *out = toks;
    *count = n;
    return true;
}

// --- embeddings ---

// out (rows, d_model) = the "embeddings" value v at the current path, explicit rows or {"random": ...}.
// *d_model < 0 when not given (explicit rows then set it). d_model_member is the position of the top-level
// "d_model" key, blamed when it disagrees with the rows (-1: the rows are blamed instead). rows_what
// names the row count in messages ("one per token", "one per source token").
static bool read_embeddings(Ctx *c, const cJSON *v, int rows, const char *rows_what, int *d_model, int d_model_member,
                            Matrix *out)
{
    if (cJSON_IsObject(v)) {
        static const char *const keys[] = {"random", NULL};
        static const char *const random_keys[] = {"seed", "std", NULL};
        if (!check_keys(c, v, keys, "random")) return false;
        int ri;
        const cJSON *r = member(v, "random", &ri);
        if (!r) return fail(c, "missing required key \"random\" (or give the rows of numbers)");
        push_key(c, "random", ri);
        if (!cJSON_IsObject(r)) return fail(c, "expected an object {\"seed\": S, \"std\": 1.0}, got %s", type_name(r));
        if (!check_keys(c, r, random_keys, "seed, std")) return false;
        int k;
        const cJSON *seed_v = member(r, "seed", &k);
        if (!seed_v) return fail(c, "missing required key \"seed\"");
        uint64_t seed;
        push_key(c, "seed", k);
        if (!get_seed(c, seed_v, &seed)) return false;
        pop(c);
        double std = 1.0;
        const cJSON *std_v = member(r, "std", &k);
        if (std_v) {
            push_key(c, "std", k);
            if (!get_std(c, std_v, &std)) return false;
            pop(c);
        }
        pop(c);
        if (*d_model < 0) return fail_top(c, NULL, 0, "missing required key \"d_model\" (random embeddings need it)");
        if (!mat_init(out, rows, *d_model)) return fail(c, "out of memory");
        Rng rng;
        rng_seed(&rng, seed);
        rng_normal_fill(&rng, 0.0, std, out->data, (size_t)rows * (size_t)*d_model);
        return true;
    }
    if (!cJSON_IsArray(v))
        return fail(c, "expected an array of rows (%s) or {\"random\": {...}}, got %s", rows_what, type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != rows) return fail(c, "expected %d row%s (%s), got %d", rows, plural(rows), rows_what, got);
    // Row lengths: when they all agree but differ from the given d_model, d_model is the one to blame.
    int first_len = -1;
    bool uniform = true;
    for (const cJSON *row = v->child; row; row = row->next) {
        int len = cJSON_IsArray(row) ? cJSON_GetArraySize(row) : -1;
        if (first_len < 0 && row == v->child) first_len = len;
        uniform = uniform && len >= 0 && len == first_len;
    }
    if (*d_model < 0) {
        push_index(c, 0);
        if (!cJSON_IsArray(v->child)) return fail(c, "expected an array of numbers, got %s", type_name(v->child));
        if (first_len == 0) return fail(c, "expected at least one number, got an empty row");
        if (first_len > LESSON_MAX_D_MODEL)
            return fail(c, "a row of %d numbers, but d_model can be at most %d", first_len, LESSON_MAX_D_MODEL);
        pop(c);
        *d_model = first_len;
    } else if (uniform && first_len != *d_model && d_model_member >= 0) {
        return fail_top(c, "d_model", d_model_member, "%d disagrees with the embeddings, whose rows have %d number%s",
                        *d_model, first_len, plural(first_len));
    }
    if (!mat_init(out, rows, *d_model)) return fail(c, "out of memory");
    return read_matrix(c, v, out, rows_what, "d_model");
}

// --- weights ---

// ms[0..heads) (each already shaped) = the array of matrices v.
static bool read_matrix_list(Ctx *c, const cJSON *v, Matrix *ms, int heads)
{
    const char *noun = heads == 1 ? "matrix" : "matrices";
    if (!cJSON_IsArray(v))
        return fail(c, "expected an array of %d %s (one per head), got %s", heads, noun, type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != heads) return fail(c, "expected %d %s (heads), got %d", heads, noun, got);
    int h = 0, d0 = c->depth;
    bool ok = true;
    for (const cJSON *x = v->child; x; x = x->next, h++) {
        push_index(c, h);
        if (!read_matrix(c, x, &ms[h], "d_model", "d_k")) {
            if (!c->rep) return false;
            ok = false;
        }
        c->depth = d0;
    }
    return ok;
}

// bs[0..heads) (each (1, d_k)) = the array of bias vectors v.
static bool read_bias_list(Ctx *c, const cJSON *v, Matrix *bs, int heads)
{
    if (!cJSON_IsArray(v))
        return fail(c, "expected an array of %d bias vector%s (one per head), got %s", heads, plural(heads),
                    type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != heads) return fail(c, "expected %d bias vector%s (heads), got %d", heads, plural(heads), got);
    int h = 0, d0 = c->depth;
    bool ok = true;
    for (const cJSON *x = v->child; x; x = x->next, h++) {
        push_index(c, h);
        if (!read_vector(c, x, bs[h].data, bs[h].cols, "d_k")) {
            if (!c->rep) return false;
            ok = false;
        }
        c->depth = d0;
    }
    return ok;
}

static bool read_weights_random(Ctx *c, const cJSON *r, AttnParams *p)
{
    static const char *const keys[] = {"seed", "qkv_std", "out_std", NULL};
    if (!cJSON_IsObject(r))
        return fail(c, "expected an object {\"seed\": S, \"qkv_std\": 1.0, \"out_std\": 1.0}, got %s", type_name(r));
    if (!check_keys(c, r, keys, "seed, qkv_std, out_std")) return false;
    int k;
    const cJSON *v = member(r, "seed", &k);
    if (!v) return fail(c, "missing required key \"seed\"");
    uint64_t seed;
    push_key(c, "seed", k);
    if (!get_seed(c, v, &seed)) return false;
    static const char *const whose[2] = {"the embeddings", "the source's embeddings"};
    for (int i = 0; i < 2; i++)
        if (c->emb_seeded[i] && c->emb_seed[i] == seed)
            warn(c,
                 "the same seed as %s (%.0f): both are drawn from one random stream that starts the same way, "
                 "so W_Q\xe2\x82\x80 is filled with the embeddings' own numbers in the same order (its rows repeat "
                 "them) and the attention is not what independent random weights give; give the weights "
                 "another seed",
                 whose[i], (double)seed);
    pop(c);
    double qkv_std = 1.0, out_std = 1.0;
    if ((v = member(r, "qkv_std", &k))) {
        push_key(c, "qkv_std", k);
        if (!get_std(c, v, &qkv_std)) return false;
        pop(c);
    }
    if ((v = member(r, "out_std", &k))) {
        push_key(c, "out_std", k);
        if (!get_std(c, v, &out_std)) return false;
        pop(c);
    }
    // One stream, like rng = default_rng(seed): per head W_Q, W_K, W_V, then W_O.
    Rng rng;
    rng_seed(&rng, seed);
    size_t qkv = (size_t)p->d_model * (size_t)p->d_k;
    for (int h = 0; h < p->heads; h++) {
        rng_normal_fill(&rng, 0.0, qkv_std, p->W_Q[h].data, qkv);
        rng_normal_fill(&rng, 0.0, qkv_std, p->W_K[h].data, qkv);
        rng_normal_fill(&rng, 0.0, qkv_std, p->W_V[h].data, qkv);
    }
    rng_normal_fill(&rng, 0.0, out_std, p->W_O.data, (size_t)p->W_O.rows * (size_t)p->W_O.cols);
    return true;
}

static bool read_weights_explicit(Ctx *c, const cJSON *w, AttnParams *p)
{
    static const char *const required[] = {"W_Q", "W_K", "W_V", "W_O"};
    for (int i = 0; i < 4; i++) {
        int k;
        if (!member(w, required[i], &k))
            return fail(c, "missing required key \"%s\" (explicit weights need W_Q, W_K, W_V and W_O)", required[i]);
    }
    Matrix *lists[3] = {p->W_Q, p->W_K, p->W_V};
    Matrix *biases[3] = {p->b_Q, p->b_K, p->b_V};
    static const char *const bias_names[3] = {"b_Q", "b_K", "b_V"};
    // Each matrix is checked on its own: in a report, a mistake in W_Q does not hide one in W_O.
    int d0 = c->depth;
    bool ok = true;
#define NEXT(read)                    \
    do {                              \
        if (!(read)) {                \
            if (!c->rep) return false; \
            ok = false;               \
        }                             \
        c->depth = d0;                \
    } while (0)
    for (int i = 0; i < 3; i++) {
        int k;
        const cJSON *v = member(w, required[i], &k);
        push_key(c, required[i], k);
        NEXT(read_matrix_list(c, v, lists[i], p->heads));
    }
    int k;
    const cJSON *v = member(w, "W_O", &k);
    push_key(c, "W_O", k);
    NEXT(read_matrix(c, v, &p->W_O, "heads * d_k", "d_model"));
    for (int i = 0; i < 3; i++) {
        if (!(v = member(w, bias_names[i], &k))) continue;
        push_key(c, bias_names[i], k);
        NEXT(read_bias_list(c, v, biases[i], p->heads));
    }
    if ((v = member(w, "b_O", &k))) {
        push_key(c, "b_O", k);
        NEXT(read_vector(c, v, p->b_O.data, p->d_model, "d_model"));
    }
#undef NEXT
    return ok;
}

// torch.nn.MultiheadAttention's state_dict: q = x Wq^T + bq with Wq the first d_model rows of
// in_proj_weight (then Wk, Wv); head i takes rows i*d_k .. (i+1)*d_k - 1 of each third, transposed.
static bool read_weights_pytorch(Ctx *c, const cJSON *t, AttnParams *p)
{
    static const char *const keys[] = {"in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias",
                                       "num_heads",      NULL};
    if (!cJSON_IsObject(t))
        return fail(c, "expected an object {\"in_proj_weight\": ..., \"out_proj_weight\": ...}, got %s", type_name(t));
    if (!check_keys(c, t, keys, "in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads"))
        return false;
    int d = p->d_model, dk = p->d_k;
    // A state_dict does not record the layer's num_heads; "num_heads" (optional) confirms "heads".
    int nk, num_heads = 0;
    const cJSON *nh = member(t, "num_heads", &nk);
    c->pytorch_unconfirmed = nh == NULL;
    if (nh) {
        push_key(c, "num_heads", nk);
        if (!get_int(c, nh, 1, LESSON_MAX_HEADS, &num_heads)) return false;
        if (num_heads != p->heads)
            return fail(c,
                        "the layer has num_heads %d but the lesson's \"heads\" is %d; heads must be the layer's "
                        "num_heads, or the heads split in_proj_weight differently and attend otherwise",
                        num_heads, p->heads);
        pop(c);
    }
    if (p->heads * dk != d)
        return fail(c, "the pytorch form needs heads * d_k == d_model, but %d * %d = %d and d_model is %d", p->heads,
                    dk, p->heads * dk, d);
    int k;
    if (!member(t, "in_proj_weight", &k)) return fail(c, "missing required key \"in_proj_weight\"");
    if (!member(t, "out_proj_weight", &k)) return fail(c, "missing required key \"out_proj_weight\"");

    Matrix in_w = {0}, in_b = {0}, out_w = {0};
    bool ok = mat_init(&in_w, 3 * d, d) && mat_init(&in_b, 1, 3 * d) && mat_init(&out_w, d, d);
    if (!ok) {
        ok = fail(c, "out of memory");
        goto done;
    }
    const cJSON *v = member(t, "in_proj_weight", &k);
    push_key(c, "in_proj_weight", k);
    if (!(ok = read_matrix(c, v, &in_w, "3 * d_model", "d_model"))) goto done;
    pop(c);
    if ((v = member(t, "in_proj_bias", &k))) {
        push_key(c, "in_proj_bias", k);
        if (!(ok = read_vector(c, v, in_b.data, 3 * d, "3 * d_model"))) goto done;
        pop(c);
    }
    v = member(t, "out_proj_weight", &k);
    push_key(c, "out_proj_weight", k);
    if (!(ok = read_matrix(c, v, &out_w, "d_model", "d_model"))) goto done;
    pop(c);
    if ((v = member(t, "out_proj_bias", &k))) {
        push_key(c, "out_proj_bias", k);
        if (!(ok = read_vector(c, v, p->b_O.data, d, "d_model"))) goto done;
        pop(c);
    }
    Matrix *W[3] = {p->W_Q, p->W_K, p->W_V};
    Matrix *B[3] = {p->b_Q, p->b_K, p->b_V};
    for (int part = 0; part < 3; part++) {
        for (int h = 0; h < p->heads; h++) {
            for (int j = 0; j < dk; j++) {
                int row = part * d + h * dk + j;
                for (int a = 0; a < d; a++) mat_set(&W[part][h], a, j, mat_get(&in_w, row, a));
                mat_set(&B[part][h], 0, j, mat_get(&in_b, 0, row));
            }
        }
    }
    for (int r = 0; r < d; r++)
        for (int col = 0; col < d; col++) mat_set(&p->W_O, r, col, mat_get(&out_w, col, r));
done:
    mat_free(&in_w);
    mat_free(&in_b);
    mat_free(&out_w);
    return ok;
}

static int weight_form(const char *key)
{
    if (strcmp(key, "random") == 0) return 0;
    if (strcmp(key, "pytorch") == 0) return 1;
    return 2;
}

// The "weights" value w (at the current path) into p (already shaped, zeroed).
static bool read_weights(Ctx *c, const cJSON *w, AttnParams *p)
{
    static const char *const keys[] = {"random", "pytorch", "W_Q", "W_K", "W_V", "W_O",
                                       "b_Q",    "b_K",     "b_V", "b_O", NULL};
    if (!cJSON_IsObject(w))
        return fail(c, "expected an object with \"random\", \"pytorch\" or W_Q, W_K, W_V, W_O, got %s", type_name(w));
    if (!check_keys(c, w, keys, "random, pytorch, or W_Q, W_K, W_V, W_O, b_Q, b_K, b_V, b_O")) return false;
    if (!w->child)
        return fail(c, "expected one of \"random\", \"pytorch\", or explicit W_Q, W_K, W_V, W_O, got an empty object");
    int form = weight_form(w->child->string);
    int k = 0;
    for (const cJSON *ch = w->child; ch; ch = ch->next, k++) {
        if (weight_form(ch->string) != form) {
            push_key(c, ch->string, k);
            return fail_key(c, "two weight forms at once: %s\"%s\" and %s\"%s\"; give exactly one",
                            form == 2 ? "explicit " : "", w->child->string,
                            weight_form(ch->string) == 2 ? "explicit " : "", ch->string);
        }
    }
    if (form == 2) return read_weights_explicit(c, w, p);
    const cJSON *v = member(w, form == 0 ? "random" : "pytorch", &k);
    push_key(c, form == 0 ? "random" : "pytorch", k);
    if (!(form == 0 ? read_weights_random(c, v, p) : read_weights_pytorch(c, v, p))) return false;
    pop(c);
    return true;
}

// --- questions: predict, then reveal ---

// A member of obj that must be there (fails naming it when it is not); pushes its key.
static const cJSON *need(Ctx *c, const cJSON *obj, const char *key)
{
    int k;
    const cJSON *v = member(obj, key, &k);
    if (!v) {
        fail(c, "missing required key \"%s\"", key);
        return NULL;
    }
    push_key(c, key, k);
    return v;
}

// "cell": [row, col], two whole numbers from 0 (their range is the model's: it knows the matrix).
static bool read_answer_cell(Ctx *c, const cJSON *ans, LessonQuestion *q)
{
    const cJSON *v = need(c, ans, "cell");
    if (!v) return false;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return fail(c, "expected [row, column] (two whole numbers from 0), got %s",
                    cJSON_IsArray(v) ? "an array of another length" : type_name(v));
    int *dst[2] = {&q->row, &q->col};
    int j = 0;
    for (const cJSON *x = v->child; x; x = x->next, j++) {
        push_index(c, j);
        if (!get_int(c, x, 0, 1 << 20, dst[j])) return false;
        pop(c);
    }
    pop(c);
    return true;
}

static bool read_answer_number(Ctx *c, const cJSON *ans, const char *key, double *out)
{
    const cJSON *v = need(c, ans, key);
    if (!v || !get_number(c, v, out)) return false;
    pop(c);
    return true;
}

// {"kind": "cell", "cell": [r, c], "among": "row" | "column" | "matrix", "pick": "max" | "min"}
static bool parse_cell_answer(Ctx *c, const cJSON *ans, LessonQuestion *q)
{
    int k;
    const cJSON *v;
    char shown[80];
    if ((v = member(ans, "among", &k))) {
        push_key(c, "among", k);
        const char *s = NULL;
        if (!cJSON_IsString(v)) return fail(c, "expected \"row\", \"column\" or \"matrix\", got %s", type_name(v));
        s = v->valuestring;
        if (strcmp(s, "column") == 0) q->among_column = true;
        else if (strcmp(s, "matrix") == 0) q->among_matrix = true;
        else if (strcmp(s, "row") != 0)
            return fail(c, "expected \"row\", \"column\" or \"matrix\", got \"%s\"", show_key(s, shown, sizeof shown));
        pop(c);
    }
    if ((v = member(ans, "pick", &k))) {
        push_key(c, "pick", k);
        if (!cJSON_IsString(v)) return fail(c, "expected \"max\" or \"min\", got %s", type_name(v));
        if (strcmp(v->valuestring, "min") == 0) q->pick_min = true;
        else if (strcmp(v->valuestring, "max") != 0)
            return fail(c, "expected \"max\" or \"min\", got \"%s\"", show_key(v->valuestring, shown, sizeof shown));
        pop(c);
    }
    return read_answer_cell(c, ans, q);
}

// {"kind": "value", "cell": [r, c], "value": x, "tolerance": t > 0}
static bool parse_value_answer(Ctx *c, const cJSON *ans, LessonQuestion *q)
{
    char num[40];
    if (!read_answer_cell(c, ans, q) || !read_answer_number(c, ans, "value", &q->value)) return false;
    int k;
    member(ans, "tolerance", &k);
    if (!read_answer_number(c, ans, "tolerance", &q->tolerance)) return false;
    if (!(q->tolerance > 0)) {
        push_key(c, "tolerance", k);
        return fail(c, "must be greater than 0 (a typed number is never exact), got %s",
                    fmt_num(q->tolerance, num, sizeof num));
    }
    return true;
}

// {"kind": "choice", "cell": [r, c], "choices": [x, y, ...], "correct": i}
static bool parse_choice_answer(Ctx *c, const cJSON *ans, LessonQuestion *q)
{
    if (!read_answer_cell(c, ans, q)) return false;
    const cJSON *v = need(c, ans, "choices");
    if (!v) return false;
    if (!cJSON_IsArray(v)) return fail(c, "expected an array of 2 to %d numbers, got %s", LESSON_MAX_CHOICES, type_name(v));
    int n = cJSON_GetArraySize(v);
    if (n < 2 || n > LESSON_MAX_CHOICES)
        return fail(c, "expected 2 to %d choices (keys 1 to %d pick them), got %d", LESSON_MAX_CHOICES,
                    LESSON_MAX_CHOICES, n);
    if (!read_vector(c, v, q->choices, n, "the choices")) return false;
    q->choice_count = n;
    pop(c);
    if (!(v = need(c, ans, "correct"))) return false;
    if (!get_int(c, v, 0, n - 1, &q->correct)) return false;
    pop(c);
    return true;
}

// The answer kinds: a row each {name, its keys, parse}; checking against the trace is model/questions.c.
static const struct {
    AnswerKind kind;
    const char *name;
    const char *const *keys;
    const char *expected;
    bool (*parse)(Ctx *c, const cJSON *ans, LessonQuestion *q);
} ANSWER_KINDS[ANSWER_KIND_COUNT] = {
    {ANSWER_CELL, "cell", (const char *const[]){"kind", "matrix", "cell", "among", "pick", NULL},
     "kind, matrix, cell, among, pick", parse_cell_answer},
    {ANSWER_VALUE, "value", (const char *const[]){"kind", "matrix", "cell", "value", "tolerance", NULL},
     "kind, matrix, cell, value, tolerance", parse_value_answer},
    {ANSWER_CHOICE, "choice", (const char *const[]){"kind", "matrix", "cell", "choices", "correct", NULL},
     "kind, matrix, cell, choices, correct", parse_choice_answer},
};

const char *lesson_answer_kind_name(AnswerKind k)
{
    return (int)k >= 0 && k < ANSWER_KIND_COUNT ? ANSWER_KINDS[k].name : "?";
}

void lesson_question_free(LessonQuestion *q)
{
    if (!q) return;
    free(q->stage);
    free(q->text);
    free(q->matrix);
    memset(q, 0, sizeof *q);
}

static void free_questions(LessonQuestion *qs, int n)
{
    for (int i = 0; qs && i < n; i++) lesson_question_free(&qs[i]);
    free(qs);
}

// One question object (the current path is its place in the list); heads < 1: not known (not checked).
static bool read_question(Ctx *c, const cJSON *v, int heads, LessonQuestion *q)
{
    static const char *const keys[] = {"stage", "head", "text", "answer", NULL};
    if (!cJSON_IsObject(v))
        return fail(c, "expected a question {\"stage\", \"text\", \"answer\", \"head\"}, got %s", type_name(v));
    int d0 = c->depth;
    if (!check_keys(c, v, keys, "stage, head, text, answer")) return false;
    c->depth = d0;
    const char *s = NULL;
    const cJSON *x = need(c, v, "stage");
    if (!x || !get_string(c, x, &s)) return false;
    if (!(q->stage = dup_string(s, strlen(s)))) return fail(c, "out of memory");
    pop(c);
    int k;
    if ((x = member(v, "head", &k))) {
        push_key(c, "head", k);
        if (!get_int(c, x, 0, LESSON_MAX_HEADS - 1, &q->head)) return false;
        if (heads > 0 && q->head >= heads)
            return fail(c, "the lesson has %d head%s (0 to %d), got %d", heads, plural(heads), heads - 1, q->head);
        pop(c);
    }
    if (!(x = need(c, v, "text")) || !get_string(c, x, &s)) return false;
    if (!s[0]) return fail(c, "empty question: write what the class should predict");
    if (!(q->text = dup_string(s, strlen(s)))) return fail(c, "out of memory");
    pop(c);
    const cJSON *ans = need(c, v, "answer");
    if (!ans) return false;
    if (!cJSON_IsObject(ans))
        return fail(c, "expected an answer {\"kind\": \"cell\", \"value\" or \"choice\", ...}, got %s", type_name(ans));
    const cJSON *kv = member(ans, "kind", &k);
    if (!kv) return fail(c, "missing required key \"kind\" (\"cell\", \"value\" or \"choice\")");
    push_key(c, "kind", k);
    if (!cJSON_IsString(kv)) return fail(c, "expected \"cell\", \"value\" or \"choice\", got %s", type_name(kv));
    int kind = -1;
    for (int i = 0; i < ANSWER_KIND_COUNT; i++)
        if (strcmp(kv->valuestring, ANSWER_KINDS[i].name) == 0) kind = i;
    char shown[80];
    if (kind < 0)
        return fail(c, "expected \"cell\", \"value\" or \"choice\", got \"%s\"", show_key(kv->valuestring, shown, sizeof shown));
    pop(c);
    q->kind = (AnswerKind)kind;
    int d1 = c->depth;
    if (!check_keys(c, ans, ANSWER_KINDS[kind].keys, ANSWER_KINDS[kind].expected)) return false;
    c->depth = d1;
    if ((x = member(ans, "matrix", &k))) {
        push_key(c, "matrix", k);
        if (!get_string(c, x, &s)) return false;
        if (!(q->matrix = dup_string(s, strlen(s)))) return fail(c, "out of memory");
        pop(c);
    }
    if (!ANSWER_KINDS[kind].parse(c, ans, q)) return false;
    c->depth = d0;
    return true;
}

// "questions": a list of question objects (optional). heads: the lesson's (< 1 when unknown).
static bool read_questions(Ctx *c, const cJSON *root, int heads, LessonQuestion **out, int *count)
{
    int k;
    const cJSON *v = member(root, "questions", &k);
    if (!v) return true;
    push_key(c, "questions", k);
    if (!cJSON_IsArray(v)) return fail(c, "expected an array of questions, got %s", type_name(v));
    int n = cJSON_GetArraySize(v);
    if (n > LESSON_MAX_QUESTIONS) return fail(c, "too many questions: %d (the limit is %d)", n, LESSON_MAX_QUESTIONS);
    LessonQuestion *qs = n ? calloc((size_t)n, sizeof *qs) : NULL;
    if (n && !qs) return fail(c, "out of memory");
    int i = 0, d0 = c->depth;
    bool ok = true;
    for (const cJSON *x = v->child; x; x = x->next, i++) {
        push_index(c, i);
        if (!read_question(c, x, heads, &qs[i])) {
            ok = false;
            if (!c->rep) break;
        }
        c->depth = d0;
    }
    if (!ok) {
        free_questions(qs, n);
        return false;
    }
    pop(c);
    *out = qs;
    *count = n;
    return true;
}

// --- the whole lesson ---

// What is built so far; freed as a whole on failure.
typedef struct {
    char *title, *notes, *language;
    char **tokens, **source_tokens;
    int n, m;
    Matrix X, S;
    AttnParams p;
    LessonQuestion *questions;
    int question_count;
    Matrix targets;
    bool trains;
    TrainSpec train;
} Build;

static void build_free(Build *b)
{
    free(b->title);
    free(b->notes);
    free(b->language);
    free_strings(b->tokens, b->n);
    free_strings(b->source_tokens, b->m);
    mat_free(&b->X);
    mat_free(&b->S);
    params_free(&b->p);
    free_questions(b->questions, b->question_count);
    mat_free(&b->targets);
    memset(b, 0, sizeof *b);
}

static bool optional_int(Ctx *c, const cJSON *root, const char *key, int max, int *out, int *member_index)
{
    const cJSON *v = member(root, key, member_index);
    if (!v) return true;
    push_key(c, key, *member_index);
    if (!get_int(c, v, 1, max, out)) return false;
    pop(c);
    return true;
}

// A string member of root: out NULL only checks it is a string; required names a missing one.
static bool read_string_member(Ctx *c, const cJSON *root, const char *key, bool required, char **out)
{
    int k;
    const char *str = NULL;
    const cJSON *v = member(root, key, &k);
    if (!v) return required ? fail(c, "missing required key \"%s\"", key) : true;
    push_key(c, key, k);
    if (!get_string(c, v, &str)) return false;
    if (out && !(*out = dup_string(str, strlen(str)))) return fail(c, "out of memory");
    pop(c);
    return true;
}

// "language": a language code (ISO 639 letters, then subtags: "es", "fr-CA", "zh-Hans", "zh_CN"); the window
// and the exports show their words in it when they have it (see model/i18n.h), else in the next choice.
static bool read_language(Ctx *c, const cJSON *root, char **out)
{
    int k;
    const cJSON *v = member(root, "language", &k);
    if (!v) return true;
    push_key(c, "language", k);
    const char *str = NULL;
    if (!get_string(c, v, &str)) return false;
    size_t i = 0, run = 0;
    while (((str[i] | 32) >= 'a' && (str[i] | 32) <= 'z')) i++;
    bool ok = i >= 2 && i <= 3;
    while (ok && str[i]) {
        if (str[i] != '-' && str[i] != '_') ok = false;
        i++;
        for (run = 0; (str[i] | 32) >= 'a' && (str[i] | 32) <= 'z' ? true : (str[i] >= '0' && str[i] <= '9'); i++) run++;
        if (run < 1 || run > 8) ok = false;
    }
    if (!ok) {
        char shown[80];
        snprintf(shown, sizeof shown, "%.60s%s", str, strlen(str) > 60 ? "..." : "");
        return fail(c, "expected a language code such as \"en\", \"es\", \"fr\" or \"zh\", got \"%s\"", shown);
    }
    if (out && !(*out = dup_string(str, strlen(str)))) return fail(c, "out of memory");
    pop(c);
    return true;
}

static bool read_mask(Ctx *c, const cJSON *root, bool cross, MaskKind *mask)
{
    int k;
    const cJSON *v = member(root, "mask", &k);
    if (!v) return true;
    push_key(c, "mask", k);
    if (!cJSON_IsString(v)) return fail(c, "expected \"none\" or \"causal\", got %s", type_name(v));
    char shown[80];
    if (strcmp(v->valuestring, "causal") == 0)
        *mask = MASK_CAUSAL;
    else if (strcmp(v->valuestring, "none") != 0)
        return fail(c, "expected \"none\" or \"causal\", got \"%s\"", show_key(v->valuestring, shown, sizeof shown));
    if (*mask == MASK_CAUSAL && cross)
        return fail(c, "\"causal\" masking is for self-attention only; it cannot be used with \"source\"");
    pop(c);
    return true;
}

// "scale": a positive number that multiplies the scores instead of 1/sqrt(d_k) (0 when absent: the default).
static bool read_scale(Ctx *c, const cJSON *root, double *scale)
{
    int k;
    const cJSON *v = member(root, "scale", &k);
    if (!v) return true;
    push_key(c, "scale", k);
    char num[40];
    if (!cJSON_IsNumber(v)) return fail(c, "expected a positive number (it multiplies the scores), got %s", type_name(v));
    if (!isfinite(v->valuedouble)) return fail(c, "number out of range");
    if (!(v->valuedouble > 0))
        return fail(c, "must be a positive number (it multiplies the scores instead of 1/\xe2\x88\x9a" "d_k), got %s",
                    fmt_num(v->valuedouble, num, sizeof num));
    *scale = v->valuedouble;
    pop(c);
    return true;
}

// "positions" ("none", "sinusoidal" or an n x d_model matrix) and "source.positions" (m x d_model, only
// beside an explicit "positions") into p, whose X and S hold the token embeddings.
static bool read_positions(Ctx *c, const cJSON *root, const cJSON *source, int source_member, AttnParams *p)
{
    int k, sk = -1;
    const cJSON *v = member(root, "positions", &k);
    const cJSON *sv = cJSON_IsObject(source) ? member(source, "positions", &sk) : NULL;
    PositionKind kind = POS_NONE;
    char shown[80];
    if (v) {
        push_key(c, "positions", k);
        if (cJSON_IsString(v)) {
            if (strcmp(v->valuestring, "sinusoidal") == 0)
                kind = POS_SINUSOIDAL;
            else if (strcmp(v->valuestring, "none") != 0)
                return fail(c, "expected \"none\", \"sinusoidal\" or %d row%s of %d numbers (one per token), got \"%s\"",
                            p->n, plural(p->n), p->d_model, show_key(v->valuestring, shown, sizeof shown));
        } else if (cJSON_IsArray(v))
            kind = POS_EXPLICIT;
        else
            return fail(c, "expected \"none\", \"sinusoidal\" or %d row%s of %d numbers (one per token), got %s", p->n,
                        plural(p->n), p->d_model, type_name(v));
        pop(c);
    }
    if (sv && kind != POS_EXPLICIT) {
        c->depth = 0;
        push_key(c, "source", source_member);
        push_key(c, "positions", sk);
        return fail(c, kind == POS_SINUSOIDAL
                           ? "not with \"positions\": \"sinusoidal\", which gives the source its own sinusoids"
                           : "the source's positions go with an explicit \"positions\" matrix for the queries");
    }
    if (kind == POS_NONE) return true;
    if (!params_set_positions(p, kind)) return fail(c, "out of memory");
    if (kind == POS_EXPLICIT) {
        push_key(c, "positions", k);
        if (!read_matrix(c, v, &p->P, "one per token", "d_model")) return false;
        pop(c);
        if (sv) {
            push_key(c, "source", source_member);
            push_key(c, "positions", sk);
            if (!read_matrix(c, sv, &p->P_S, "one per source token", "d_model")) return false;
            pop(c);
            pop(c);
        }
        params_apply_positions(p);
    }
    return true;
}

// {"random": {"seed": S}} embeddings: their seed (to warn when the weights share it).
static bool seeded(const cJSON *v, uint64_t *seed)
{
    const cJSON *r = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "random") : NULL;
    const cJSON *s = cJSON_IsObject(r) ? cJSON_GetObjectItemCaseSensitive(r, "seed") : NULL;
    if (!cJSON_IsNumber(s)) return false;
    *seed = (uint64_t)s->valuedouble;
    return true;
}

// "source": its tokens, and its embeddings when d_model is known (d_model < 0: skipped, already reported).
static bool read_source(Ctx *c, const cJSON *source, int source_member, int d_model, Build *b)
{
    static const char *const source_keys[] = {"tokens", "sentence", "split", "embeddings", "positions", NULL};
    push_key(c, "source", source_member);
    if (!cJSON_IsObject(source))
        return fail(c, "expected an object {\"tokens\" or \"sentence\", \"embeddings\"}, got %s", type_name(source));
    int d0 = c->depth;
    bool ok = check_keys(c, source, source_keys, "tokens, sentence, split, embeddings, positions");
    if (!ok && !c->rep) return false;
    c->depth = d0;
    if (!read_tokens(c, source, &b->source_tokens, &b->m)) return false;
    int k;
    const cJSON *v = member(source, "embeddings", &k);
    if (!v) return fail(c, "missing required key \"embeddings\"");
    if (d_model < 0) return false;
    push_key(c, "embeddings", k);
    if (!read_embeddings(c, v, b->m, "one per source token", &d_model, -1, &b->S)) return false;
    c->emb_seeded[1] = seeded(v, &c->emb_seed[1]);
    pop(c);
    pop(c);
    return ok;
}

// "train": {"task": ..., "sequences": N, "seed": S, "steps": K, "learning_rate": R} (all but the task
// optional). Needs self-attention, and the same embedding wherever a token repeats (the vocabulary is the
// lesson's distinct tokens).
static bool read_train(Ctx *c, const cJSON *t, Build *b)
{
    static const char *const keys[] = {"task", "sequences", "seed", "steps", "learning_rate", NULL};
    if (!cJSON_IsObject(t))
        return fail(c, "expected an object {\"task\": \"previous-token\", \"steps\": ...}, got %s", type_name(t));
    if (!check_keys(c, t, keys, "task, sequences, seed, steps, learning_rate")) return false;
    TrainSpec s = {TASK_PREVIOUS_TOKEN, TRAIN_DEFAULT_SEQUENCES, 0, TRAIN_DEFAULT_STEPS, TRAIN_DEFAULT_LEARNING_RATE};
    int k;
    const cJSON *v = member(t, "task", &k);
    if (!v) return fail(c, "missing required key \"task\" (previous-token, first-token or previous-and-first)");
    push_key(c, "task", k);
    char shown[80];
    if (!cJSON_IsString(v))
        return fail(c, "expected \"previous-token\", \"first-token\" or \"previous-and-first\", got %s", type_name(v));
    int task = 0;
    while (task < TASK_COUNT && strcmp(v->valuestring, train_task_key((TrainTask)task)) != 0) task++;
    if (task == TASK_COUNT)
        return fail(c, "expected \"previous-token\", \"first-token\" or \"previous-and-first\", got \"%s\"",
                    show_key(v->valuestring, shown, sizeof shown));
    s.task = (TrainTask)task;
    if (s.task == TASK_PREVIOUS_AND_FIRST && b->p.d_model < 2)
        return fail(c, "\"previous-and-first\" needs d_model of at least 2 (half for each token), got %d", b->p.d_model);
    pop(c);
    if ((v = member(t, "sequences", &k))) {
        push_key(c, "sequences", k);
        if (!get_int(c, v, 1, TRAIN_MAX_SEQUENCES, &s.sequences)) return false;
        pop(c);
    }
    if ((v = member(t, "seed", &k))) {
        push_key(c, "seed", k);
        if (!get_seed(c, v, &s.seed)) return false;
        pop(c);
    }
    if ((v = member(t, "steps", &k))) {
        push_key(c, "steps", k);
        if (!get_int(c, v, 1, TRAIN_MAX_STEPS, &s.steps)) return false;
        pop(c);
    }
    if ((v = member(t, "learning_rate", &k))) {
        push_key(c, "learning_rate", k);
        char num[40];
        if (!get_number(c, v, &s.learning_rate)) return false;
        if (!(s.learning_rate > 0 && s.learning_rate <= 1))
            return fail(c, "must be a number above 0 and at most 1, got %s", fmt_num(s.learning_rate, num, sizeof num));
        pop(c);
    }
    if (b->p.cross) return fail(c, "training is for self-attention only; this lesson has a \"source\"");
    double held = (double)s.sequences * b->n * b->p.d_model; // the targets the trainer keeps
    if (held > LESSON_MAX_TRACE_VALUES)
        return fail(c, "the training targets would hold %.0f numbers (sequences * n * d_model = %d * %d * %d); the limit "
                       "is %.0f: use fewer sequences",
                    held, s.sequences, b->n, b->p.d_model, LESSON_MAX_TRACE_VALUES);
    const Matrix *e = b->p.positions != POS_NONE ? &b->p.E : &b->p.X;
    for (int i = 0; i < b->n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(b->tokens[i], b->tokens[j]) == 0
                && memcmp(mat_row(e, i), mat_row(e, j), (size_t)e->cols * sizeof(double)) != 0)
                return fail(c,
                            "the token \"%s\" has two different embeddings (tokens %d and %d); training draws its "
                            "sequences from the lesson's distinct tokens, so each needs one embedding",
                            show_key(b->tokens[i], shown, sizeof shown), j, i);
    b->trains = true;
    b->train = s;
    return true;
}

// Reads and checks the whole lesson. lesson_parse stops at the first error; a report (c->rep) goes on with
// each part that does not depend on a broken one, in the same order, so its first error is the same.
static bool build_lesson(Ctx *c, const cJSON *root, Build *b)
{
    static const char *const top_keys[] = {"$schema", "title",  "notes", "language", "tokens",    "sentence",
                                           "split",   "embeddings", "d_model", "heads", "d_k", "mask", "source",
                                           "weights", "positions", "scale", "targets", "train", "questions", NULL};
    if (!cJSON_IsObject(root)) return fail(c, "expected a lesson object { ... }, got %s", type_name(root));
    bool all = c->rep != NULL, ok = true;
    // Each STEP is a check of its own: on failure lesson_parse returns, a report notes it and goes on.
#define STEP(check)                  \
    ((check) ? true                  \
             : (c->depth = 0, ok = false, all ? false : (stop = true, false)))
    bool stop = false;
#define STOP_IF_FAST \
    if (stop) return false
    STEP(check_keys(c, root, top_keys,
                    "$schema, title, notes, language, tokens, sentence, split, embeddings, d_model, heads, d_k, mask, "
                    "source, weights, positions, scale, targets, train, "
                    "questions"));
    STOP_IF_FAST;
    STEP(read_string_member(c, root, "$schema", false, NULL));
    STOP_IF_FAST;
    STEP(read_string_member(c, root, "title", true, &b->title));
    STOP_IF_FAST;
    STEP(read_string_member(c, root, "notes", false, &b->notes));
    STOP_IF_FAST;
    STEP(read_language(c, root, &b->language));
    STOP_IF_FAST;
    bool tokens_ok = STEP(read_tokens(c, root, &b->tokens, &b->n));
    STOP_IF_FAST;

    int d_model = -1, heads = 0, d_k = -1, d_model_member = -1, heads_member = -1, d_k_member = -1;
    bool d_model_ok = STEP(optional_int(c, root, "d_model", LESSON_MAX_D_MODEL, &d_model, &d_model_member));
    STOP_IF_FAST;
    bool heads_ok = member(root, "heads", &heads_member) != NULL;
    if (!heads_ok) STEP(fail(c, "missing required key \"heads\""));
    STOP_IF_FAST;
    if (heads_ok) heads_ok = STEP(optional_int(c, root, "heads", LESSON_MAX_HEADS, &heads, &heads_member));
    STOP_IF_FAST;
    bool d_k_ok = STEP(optional_int(c, root, "d_k", LESSON_MAX_D_K, &d_k, &d_k_member));
    STOP_IF_FAST;

    MaskKind mask = MASK_NONE;
    int source_member, k;
    const cJSON *source = member(root, "source", &source_member), *v;
    STEP(read_mask(c, root, source != NULL, &mask));
    STOP_IF_FAST;
    double scale = 0.0;
    STEP(read_scale(c, root, &scale));
    STOP_IF_FAST;

    // The embeddings need the tokens (their rows) and a valid d_model when one is given.
    bool embeddings_ok = false;
    if (!(v = member(root, "embeddings", &k))) STEP(fail(c, "missing required key \"embeddings\""));
    else if (tokens_ok && d_model_ok) {
        push_key(c, "embeddings", k);
        embeddings_ok = STEP(read_embeddings(c, v, b->n, "one per token", &d_model, d_model_member, &b->X));
        if (embeddings_ok) {
            pop(c);
            c->emb_seeded[0] = seeded(v, &c->emb_seed[0]);
        }
    }
    STOP_IF_FAST;

    // The shapes: d_model (given, or from the embeddings' rows), heads and d_k.
    bool shape_ok = d_model > 0 && heads_ok && d_k_ok;
    if (shape_ok && d_k < 0) {
        if (d_model % heads != 0)
            shape_ok = STEP(fail_top(c, "heads", heads_member, "%d does not divide d_model (%d); change heads or give d_k",
                                     heads, d_model));
        else
            d_k = d_model / heads;
    }
    STOP_IF_FAST;
    if (shape_ok) {
        double weight_values = 4.0 * heads * (double)d_k * d_model;
        if (weight_values > LESSON_MAX_WEIGHT_VALUES)
            shape_ok = STEP(fail(c,
                                 "the weights would hold %.0f numbers (4 * heads * d_k * d_model = 4 * %d * %d * %d); "
                                 "the limit is %.0f",
                                 weight_values, heads, d_k, d_model, LESSON_MAX_WEIGHT_VALUES));
    }
    STOP_IF_FAST;

    bool source_ok = true;
    if (source) source_ok = STEP(read_source(c, source, source_member, d_model_ok ? d_model : -1, b));
    else if (tokens_ok && embeddings_ok) {
        b->m = b->n;
        if (!(b->source_tokens = calloc((size_t)b->m, sizeof *b->source_tokens)) || !mat_copy(&b->S, &b->X))
            return fail(c, "out of memory");
        for (int i = 0; i < b->m; i++)
            if (!(b->source_tokens[i] = dup_string(b->tokens[i], strlen(b->tokens[i]))))
                return fail(c, "out of memory");
    }
    STOP_IF_FAST;

    // The trace's size, known from the sizes alone: refused before the weights are even allocated.
    if (shape_ok && tokens_ok && source_ok && b->n > 0 && b->m > 0) {
        double values = trace_values(b->n, b->m, d_model, heads, d_k);
        if (values > LESSON_MAX_TRACE_VALUES)
            shape_ok = STEP(fail_top(c, "heads", heads_member,
                                     "the trace would hold %.0f numbers (heads * (3*n*m + 2*(n + m)*d_k) + "
                                     "n*heads*d_k + n*d_model with n = %d, m = %d, heads = %d, d_k = %d, d_model = %d); "
                                     "the limit is %.0f: use fewer tokens or heads, or a smaller d_k",
                                     values, b->n, b->m, heads, d_k, d_model, LESSON_MAX_TRACE_VALUES));
    }
    STOP_IF_FAST;

    // The questions' form (their answers need the trace: model/questions.c checks those).
    STEP(read_questions(c, root, heads_ok ? heads : 0, &b->questions, &b->question_count));
    STOP_IF_FAST;

    if (!(v = member(root, "weights", &k))) {
        STEP(fail(c, "missing required key \"weights\""));
        return false;
    }
    if (!shape_ok) return false; // the weights' shapes are unknown: already reported
    // The weights' shapes need only d_model, heads and d_k: a report checks them even when the tokens or the
    // embeddings are broken (on a one-token stand-in).
    bool whole = ok && source_ok;
    if (!params_init(&b->p, whole ? b->n : 1, whole ? b->m : 1, d_model, heads, d_k)) return fail(c, "out of memory");
    b->p.mask = mask;
    b->p.cross = source != NULL;
    b->p.scale = scale;
    if (whole) { // the embeddings move into the params (same shapes)
        mat_free(&b->p.X);
        mat_free(&b->p.S);
        b->p.X = b->X;
        b->p.S = b->S;
        memset(&b->X, 0, sizeof b->X);
        memset(&b->S, 0, sizeof b->S);
    }
    push_key(c, "weights", k);
    if (!STEP(read_weights(c, v, &b->p))) return false;
    pop(c);
    if (whole && !STEP(read_positions(c, root, source, source_member, &b->p))) return false;
    if (whole && (v = member(root, "targets", &k))) {
        push_key(c, "targets", k);
        if (!mat_init(&b->targets, b->n, d_model)) return fail(c, "out of memory");
        if (!STEP(read_matrix(c, v, &b->targets, "one per token", "d_model"))) return false;
        pop(c);
    }
    if (whole && (v = member(root, "train", &k))) {
        push_key(c, "train", k);
        if (!STEP(read_train(c, v, b))) return false;
        pop(c);
    }
    if (ok && c->pytorch_unconfirmed) {
        c->depth = 0;
        push_key(c, "heads", heads_member);
        warn(c,
             "PyTorch weights cannot confirm these %d head%s: a state_dict does not record num_heads. \"heads\" "
             "must be the layer's num_heads (nn.MultiheadAttention(embed_dim, num_heads)); any other divisor of "
             "d_model loads as well but splits in_proj_weight into other heads and gives other attention. Add "
             "\"num_heads\": %d to \"pytorch\" to confirm it",
             heads, plural(heads), heads);
        pop(c);
    }
#undef STEP
#undef STOP_IF_FAST
    return ok;
}

void lesson_error_set_file(LessonError *err, const char *path)
{
    if (!path) path = "";
    size_t n = strlen(path), cap = sizeof err->file;
    if (n < cap) {
        memcpy(err->file, path, n + 1);
        return;
    }
    // Too long: "…" and the end of the path, from a character boundary, so the file's name is kept.
    const char *tail = path + n - (cap - 4);
    while (((unsigned char)*tail & 0xC0) == 0x80) tail++;
    snprintf(err->file, cap, "\xe2\x80\xa6%s", tail);
}

static void error_init(LessonError *err, const char *filename)
{
    memset(err, 0, sizeof *err);
    lesson_error_set_file(err, filename);
}

// Takes ownership of text (len bytes plus a NUL at text[len]): kept in the Lesson, or freed on failure.
// rep: NULL, or a report to collect every error and the warnings into (err is then scratch space).
static bool parse_owned(Lesson *out, char *text, size_t len, LessonError *err, LessonReport *rep)
{
    JsonSyntaxError syn;
    if (!json_check(text, len, &syn)) {
        if (syn.has_offset) json_line_col(text, len, syn.offset, &err->line, &err->col);
        snprintf(err->message, sizeof err->message, "%s", syn.message);
        if (rep) lesson_report_add(rep, err); // a syntax error stops everything: nothing after it can be read
        free(text);
        return false;
    }
    // len + 1: with require_null_terminated cJSON wants to see the NUL inside the buffer.
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    if (!root) {
        // json_check accepted it, so this is cJSON running out of memory (or disagreeing): say where it stopped.
        if (end && end >= text && (size_t)(end - text) <= len)
            json_line_col(text, len, (size_t)(end - text), &err->line, &err->col);
        snprintf(err->message, sizeof err->message, "cJSON could not parse the file here (out of memory?)");
        if (rep) lesson_report_add(rep, err);
        free(text);
        return false;
    }
    Ctx c;
    memset(&c, 0, sizeof c);
    c.text = text;
    c.len = len;
    c.err = err;
    c.rep = rep;
    Build b;
    memset(&b, 0, sizeof b);
    bool ok = build_lesson(&c, root, &b);
    cJSON_Delete(root);
    if (!ok) {
        build_free(&b);
        free(text);
        return false;
    }
    out->title = b.title;
    out->notes = b.notes;
    out->language = b.language;
    out->tokens = b.tokens;
    out->source_tokens = b.source_tokens;
    out->params = b.p;
    out->questions = b.questions;
    out->question_count = b.question_count;
    out->targets = b.targets;
    out->trains = b.trains;
    out->train = b.train;
    out->text = text;
    out->text_len = len;
    return true;
}

bool lesson_parse(Lesson *out, const char *text, size_t len, const char *filename, LessonError *err)
{
    memset(out, 0, sizeof *out);
    error_init(err, filename);
    if (len > LESSON_MAX_FILE_BYTES) {
        snprintf(err->message, sizeof err->message, "file is too large: %zu bytes (the limit is %u MiB)", len,
                 LESSON_MAX_FILE_BYTES / (1024u * 1024u));
        return false;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        snprintf(err->message, sizeof err->message, "out of memory");
        return false;
    }
    if (len) memcpy(copy, text, len);
    copy[len] = '\0';
    return parse_owned(out, copy, len, err, NULL);
}

bool lesson_parse_report(Lesson *out, const char *text, size_t len, const char *filename, LessonReport *rep)
{
    memset(out, 0, sizeof *out);
    memset(rep, 0, sizeof *rep);
    LessonError err;
    error_init(&err, filename);
    char *copy = len <= LESSON_MAX_FILE_BYTES ? malloc(len + 1) : NULL;
    if (!copy) {
        snprintf(err.message, sizeof err.message, len > LESSON_MAX_FILE_BYTES ? "file is too large: %zu bytes (the limit is %u MiB)" : "out of memory", len,
                 LESSON_MAX_FILE_BYTES / (1024u * 1024u));
        lesson_report_add(rep, &err);
        return false;
    }
    if (len) memcpy(copy, text, len);
    copy[len] = '\0';
    return parse_owned(out, copy, len, &err, rep);
}

static bool io_fail(LessonError *err, const char *what, int errnum)
{
    err->io = true;
    snprintf(err->message, sizeof err->message, "%s: %s", what, strerror(errnum));
    return false;
}

// The whole file (at most LESSON_MAX_FILE_BYTES) into *text (malloc'd, NUL-terminated), or an I/O error.
static bool read_file(const char *path, char **text, size_t *text_len, LessonError *err)
{
    // Only a regular file is read; a FIFO (or a device) at path never blocks the open (platform layer).
    PlatformStat st;
    bool opened;
    FILE *f = platform_open_regular(path, &st, &opened);
    if (!f && !opened) return io_fail(err, "cannot open the lesson", errno);
    if (!f && st.kind == PLATFORM_REGULAR) return io_fail(err, "cannot read the lesson", errno);
    if (!f && st.kind == PLATFORM_DIRECTORY) return io_fail(err, "cannot read the lesson", EISDIR);
    if (!f) {
        err->io = true;
        snprintf(err->message, sizeof err->message, "cannot read the lesson: not a regular file (%s)",
                 st.kind == PLATFORM_FIFO ? "a FIFO" : st.kind == PLATFORM_SOCKET ? "a socket" : "a device");
        return false;
    }
    if ((uintmax_t)st.size > LESSON_MAX_FILE_BYTES) {
        fclose(f);
        err->io = true;
        snprintf(err->message, sizeof err->message, "file is too large: %jd bytes (the limit is %u MiB)",
                 (intmax_t)st.size, LESSON_MAX_FILE_BYTES / (1024u * 1024u));
        return false;
    }
    // Read in chunks up to the limit + 1 byte, so a file that grows while it is read is bounded too.
    size_t cap = (size_t)st.size + 1, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        err->io = true;
        snprintf(err->message, sizeof err->message, "out of memory reading the lesson");
        return false;
    }
    for (;;) {
        if (len == cap) {
            size_t ncap = cap * 2 > (size_t)LESSON_MAX_FILE_BYTES + 1 ? (size_t)LESSON_MAX_FILE_BYTES + 1 : cap * 2;
            if (ncap <= cap) break; // limit + 1 bytes read: the size check below reports it
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                err->io = true;
                snprintf(err->message, sizeof err->message, "out of memory reading the lesson");
                return false;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    bool read_error = ferror(f) != 0;
    int e = errno;
    fclose(f);
    if (read_error) {
        free(buf);
        return io_fail(err, "cannot read the lesson", e ? e : EIO);
    }
    if (len > LESSON_MAX_FILE_BYTES) {
        free(buf);
        err->io = true;
        snprintf(err->message, sizeof err->message, "file is too large: more than %u MiB",
                 LESSON_MAX_FILE_BYTES / (1024u * 1024u));
        return false;
    }
    buf[len] = '\0';
    *text = buf;
    *text_len = len;
    return true;
}

bool lesson_load(Lesson *out, const char *path, LessonError *err)
{
    memset(out, 0, sizeof *out);
    error_init(err, path);
    char *text;
    size_t len;
    if (!read_file(path, &text, &len, err)) return false;
    return parse_owned(out, text, len, err, NULL);
}

bool lesson_load_report(Lesson *out, const char *path, LessonReport *rep)
{
    memset(out, 0, sizeof *out);
    memset(rep, 0, sizeof *rep);
    LessonError err;
    error_init(&err, path);
    char *text;
    size_t len;
    if (!read_file(path, &text, &len, &err)) {
        lesson_report_add(rep, &err);
        return false;
    }
    return parse_owned(out, text, len, &err, rep);
}

bool lesson_load_builtin(Lesson *out, LessonError *err)
{
    return lesson_parse(out, lesson_builtin_text, lesson_builtin_len, "<built-in>", err);
}

void lesson_free(Lesson *l)
{
    if (!l) return;
    free(l->title);
    free(l->notes);
    free(l->language);
    free_strings(l->tokens, l->params.n);
    free_strings(l->source_tokens, l->params.m);
    params_free(&l->params);
    free_questions(l->questions, l->question_count);
    mat_free(&l->targets);
    free(l->text);
    memset(l, 0, sizeof *l);
}

bool lesson_shuffle(Lesson *out, const Lesson *l, const int *perm)
{
    memset(out, 0, sizeof *out);
    const AttnParams *p = &l->params;
    out->title = dup_string(l->title, strlen(l->title));
    out->notes = l->notes ? dup_string(l->notes, strlen(l->notes)) : NULL;
    out->tokens = calloc((size_t)p->n, sizeof *out->tokens);
    out->source_tokens = calloc((size_t)p->m, sizeof *out->source_tokens);
    bool ok = out->title && (out->notes || !l->notes) && out->tokens && out->source_tokens;
    for (int i = 0; ok && i < p->n; i++)
        ok = (out->tokens[i] = dup_string(l->tokens[perm[i]], strlen(l->tokens[perm[i]]))) != NULL;
    for (int i = 0; ok && i < p->m; i++) {
        const char *t = p->cross ? l->source_tokens[i] : l->source_tokens[perm[i]];
        ok = (out->source_tokens[i] = dup_string(t, strlen(t))) != NULL;
    }
    if (ok && params_shuffle(&out->params, p, perm)) return true;
    out->params.n = p->n; // lesson_free frees as many tokens as there are
    out->params.m = p->m;
    lesson_free(out);
    return false;
}

const char *lesson_error_format(const LessonError *err, char *buf, size_t cap)
{
    if (!buf || cap == 0) return buf;
    size_t used = 0;
    buf[0] = '\0';
    append(buf, cap, &used, "%s", err->file[0] ? err->file : "<lesson>");
    if (err->line > 0) {
        append(buf, cap, &used, ":%d", err->line);
        if (err->col > 0) append(buf, cap, &used, ":%d", err->col);
    }
    append(buf, cap, &used, err->warning ? ": warning: " : ": error: ");
    if (err->path[0]) append(buf, cap, &used, "%s: ", err->path);
    append(buf, cap, &used, "%s", err->message);
    return buf;
}

// The line:column of the top-level key "key" of the lesson's text (left 0 when it is not there).
static void locate_top_key(const Lesson *l, const char *key, LessonError *e)
{
    if (!l->text) return;
    size_t klen = strlen(key);
    for (int i = 0;; i++) {
        size_t off;
        if (!json_locate(l->text, l->text_len, &i, 1, true, &off)) return;
        if (off + klen + 2 <= l->text_len && l->text[off] == '"' && strncmp(l->text + off + 1, key, klen) == 0 &&
            l->text[off + 1 + klen] == '"') {
            json_line_col(l->text, l->text_len, off, &e->line, &e->col);
            return;
        }
    }
}

int lesson_warn_trace(const Lesson *l, const Trace *t, const char *filename, LessonReport *rep)
{
    const AttnParams *p = &l->params;
    int rows = 0, hot = 0, first_h = -1, first_r = 0, first_c = 0, hot_heads = 0;
    for (int h = 0; h < p->heads && h < t->heads; h++) {
        const Matrix *w = &t->head[h].weights;
        bool head_hot = false;
        for (int i = 0; i < w->rows; i++) {
            int keys = p->mask == MASK_CAUSAL ? (i + 1 < w->cols ? i + 1 : w->cols) : w->cols;
            if (keys < 2) continue; // one key: the weight 1 is no saturation
            rows++;
            int best = 0;
            for (int j = 1; j < keys; j++)
                if (mat_get(w, i, j) > mat_get(w, i, best)) best = j;
            if (mat_get(w, i, best) < 0.99995) continue; // below 1.0000 at 4 decimals
            hot++;
            head_hot = true;
            if (first_h < 0) {
                first_h = h;
                first_r = i;
                first_c = best;
            }
        }
        hot_heads += head_hot;
    }
    if (hot == 0) return 0;
    LessonError e;
    memset(&e, 0, sizeof e);
    e.warning = true;
    snprintf(e.path, sizeof e.path, "weights");
    locate_top_key(l, "weights", &e);
    char shown[2][80];
    snprintf(e.message, sizeof e.message,
             "%d of %d softmax rows (in %d of %d head%s) saturate to one-hot at 4 decimals, e.g. head %d, query "
             "\"%s\": 1.0000 on \"%s\" and 0.0000 on every other key. The scaled scores of such a row lie so far "
             "apart that the softmax keeps only the largest; smaller embeddings or weights (std or qkv_std below "
             "1, or smaller numbers) give attention the class can compare",
             hot, rows, hot_heads, p->heads, plural(p->heads), first_h, show_key(l->tokens[first_r], shown[0], 80),
             show_key(l->source_tokens[first_c], shown[1], 80));
    lesson_error_set_file(&e, filename);
    lesson_report_add(rep, &e);
    return 1;
}

void lesson_locate(const Lesson *l, const char *path, LessonError *e)
{
    snprintf(e->path, sizeof e->path, "%s", path);
    e->line = e->col = 0;
    if (!l->text) return;
    cJSON *root = cJSON_ParseWithLength(l->text, l->text_len);
    if (!root) return;
    // Turns the names into member positions (json_locate walks positions), then finds the value.
    int idx[MAX_PATH], depth = 0;
    const cJSON *at = root;
    const char *p = path;
    bool ok = true;
    while (*p && ok && depth < MAX_PATH) {
        if (*p == '.') p++;
        if (*p == '[') {
            char *end;
            long i = strtol(p + 1, &end, 10);
            ok = *end == ']' && cJSON_IsArray(at) && i >= 0 && i < cJSON_GetArraySize(at);
            if (ok) {
                at = cJSON_GetArrayItem(at, (int)i);
                idx[depth++] = (int)i;
                p = end + 1;
            }
        } else {
            size_t n = strcspn(p, ".[");
            int k = 0;
            const cJSON *ch = cJSON_IsObject(at) ? at->child : NULL;
            for (; ch; ch = ch->next, k++)
                if (ch->string && strlen(ch->string) == n && strncmp(ch->string, p, n) == 0) break;
            ok = ch != NULL;
            if (ok) {
                at = ch;
                idx[depth++] = k;
                p += n;
            }
        }
    }
    size_t off;
    if (ok && !*p && json_locate(l->text, l->text_len, idx, depth, false, &off))
        json_line_col(l->text, l->text_len, off, &e->line, &e->col);
    cJSON_Delete(root);
}

bool lesson_train_vocabulary(const Lesson *l, Matrix *vocab, int *ids)
{
    const AttnParams *p = &l->params;
    const Matrix *e = p->positions != POS_NONE ? &p->E : &p->X;
    int count = 0;
    for (int i = 0; i < p->n; i++) {
        int j = 0;
        while (j < i && strcmp(l->tokens[i], l->tokens[j]) != 0) j++;
        ids[i] = j < i ? ids[j] : count++;
    }
    if (!mat_init(vocab, count, p->d_model)) return false;
    for (int i = 0; i < p->n; i++)
        memcpy(mat_row(vocab, ids[i]), mat_row(e, i), (size_t)p->d_model * sizeof(double));
    return true;
}

bool lesson_targets(const Lesson *l, Matrix *targets, bool *missing)
{
    memset(targets, 0, sizeof *targets);
    *missing = false;
    if (l->targets.data) return mat_copy(targets, &l->targets);
    if (!l->trains) {
        *missing = true;
        return false;
    }
    Matrix vocab = {0};
    int *ids = malloc((size_t)l->params.n * sizeof(int));
    bool ok = ids && lesson_train_vocabulary(l, &vocab, ids) && mat_init(targets, l->params.n, l->params.d_model);
    if (ok) train_targets(targets, l->train.task, &vocab, ids, l->params.n);
    free(ids);
    mat_free(&vocab);
    return ok;
}
