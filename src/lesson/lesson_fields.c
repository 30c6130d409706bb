// The lesson-field table: one row per setting of a lesson (its key, type, default, limits, JSON
// reader, and how a saved lesson, --json and --trace write it). Reading, checking, saving and
// printing iterate it; a new setting is a row here, its member in AttnConfig (core/params.h) and
// the code that uses it.
#include "lesson/lesson_fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "lesson/lesson_ctx.h"

typedef enum { FIELD_INT, FIELD_NUMBER, FIELD_OTHER } FieldType;

typedef struct LessonField LessonField;
// Writes the field's part of an output into o, or nothing when the output leaves it out (a default
// that is not written): the saved lesson's "\"window\": 2", --json's "\"window\": 2", --trace's
// "window = 2: ...". The driver adds the separators and indentation. p: the parameters written (a
// saved lesson's may be an edited copy of l->params).
typedef void (*FieldPut)(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f);

struct LessonField {
    const char *name; // the lesson's key and --json's
    FieldType
        type; // FIELD_INT (an int of AttnConfig), FIELD_NUMBER (a double), FIELD_OTHER (its own)
    size_t offset; // FIELD_INT, FIELD_NUMBER: where it lives in AttnConfig
    double def; // FIELD_INT, FIELD_NUMBER: the value when absent; written only when it differs
    double min, max; // FIELD_INT: the limits; FIELD_NUMBER: min < value <= max
    LessonFieldPart part; // when it is read (and a saved lesson writes it)
    bool required; // absent: "missing required key"
    bool always; // written even when it holds its default
    // The value v at its key (pushed; the driver pops it), or v NULL when the key is absent: then
    // the default. Reads into b->cfg (settings read before it are there: window reads the mask), or
    // fails at the path.
    bool (*read)(Ctx *c, const cJSON *v, Build *b, const LessonField *f);
    int save_at; // its place among the settings of its part of a saved lesson (1, 2, ...)
    FieldPut save, json, trace; // NULL: not written there
    bool trace_inline; // --trace: on the sizes line ("heads = 2") instead of a line of its own
};

// --- the types: an int or a double of AttnConfig ---

static int *cfg_int(AttnConfig *cfg, const LessonField *f)
{
    return (int *)((char *)cfg + f->offset);
}
static double *cfg_number(AttnConfig *cfg, const LessonField *f)
{
    return (double *)((char *)cfg + f->offset);
}
static double value_of(const AttnParams *p, const LessonField *f)
{
    const char *at = (const char *)&p->cfg + f->offset;
    return f->type == FIELD_INT ? *(const int *)at : *(const double *)at;
}
static bool written(const AttnParams *p, const LessonField *f)
{
    return f->always || value_of(p, f) != f->def;
}

static bool read_int(Ctx *c, const cJSON *v, Build *b, const LessonField *f)
{
    if (!v) {
        *cfg_int(&b->cfg, f) = (int)f->def;
        return true;
    }
    return lesson_get_int(c, v, (int)f->min, (int)f->max, cfg_int(&b->cfg, f));
}

static bool read_number(Ctx *c, const cJSON *v, Build *b, const LessonField *f)
{
    double x = f->def;
    char num[40], lo[40], hi[40];
    if (v && !lesson_get_number(c, v, &x)) return false;
    if (v && !(x > f->min && x <= f->max))
        return lesson_fail(
            c, "must be more than %s and at most %s, got %s", lesson_fmt_num(f->min, lo, sizeof lo),
            lesson_fmt_num(f->max, hi, sizeof hi), lesson_fmt_num(x, num, sizeof num));
    *cfg_number(&b->cfg, f) = x;
    return true;
}

// The type's reader: an int within [min, max], or a number with min < value <= max.
static bool read_value(Ctx *c, const cJSON *v, Build *b, const LessonField *f)
{
    return f->type == FIELD_INT ? read_int(c, v, b, f) : read_number(c, v, b, f);
}

static void put_buf(void *ctx, const char *bytes, size_t n) { strbuf_put((StrBuf *)ctx, bytes, n); }

// The shortest of %.15g, %.16g, %.17g that reads back to the same double (a saved lesson's
// numbers).
void lesson_put_number(StrBuf *o, double v)
{
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v && (v != 0.0 || signbit(strtod(tmp, NULL)) == signbit(v))) break;
    }
    strbuf_puts(o, tmp);
}

// A saved lesson's string: escaped as every JSON output of the program is (utf8_json_string).
void lesson_put_string(StrBuf *o, const char *s) { utf8_json_string(put_buf, o, s); }

void lesson_put_row(StrBuf *o, const double *v, int n)
{
    strbuf_puts(o, "[");
    for (int i = 0; i < n; i++) {
        if (i) strbuf_puts(o, ", ");
        lesson_put_number(o, v[i]);
    }
    strbuf_puts(o, "]");
}

static void save_value(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    if (!written(p, f)) return;
    strbuf_printf(o, "\"%s\": ", f->name);
    if (f->type == FIELD_INT) strbuf_printf(o, "%d", (int)value_of(p, f));
    else lesson_put_number(o, value_of(p, f));
}

static void json_value(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    if (!written(p, f)) return;
    strbuf_printf(o, "\"%s\": ", f->name);
    if (f->type == FIELD_INT) strbuf_printf(o, "%d", (int)value_of(p, f));
    else strbuf_json_number(o, value_of(p, f));
}

static void trace_value(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    if (!written(p, f)) return;
    if (f->type == FIELD_INT) strbuf_printf(o, "%s = %d", f->name, (int)value_of(p, f));
    else strbuf_printf(o, "%s = %.17g", f->name, value_of(p, f));
}

// --- the settings with readers and writers of their own ---

// "language": a language code (ISO 639 letters, then subtags: "es", "fr-CA", "zh-Hans", "zh_CN");
// the window and the exports show their words in it when they have it (see model/i18n.h), else in
// the next choice.
static bool read_language(Ctx *c, const cJSON *v, Build *b, const LessonField *f)
{
    (void)f;
    if (!v) return true;
    const char *str = NULL;
    if (!lesson_get_string(c, v, &str)) return false;
    size_t i = 0, run = 0;
    while (((str[i] | 32) >= 'a' && (str[i] | 32) <= 'z')) i++;
    bool ok = i >= 2 && i <= 3;
    while (ok && str[i]) {
        if (str[i] != '-' && str[i] != '_') ok = false;
        i++;
        for (run = 0;
             (str[i] | 32) >= 'a' && (str[i] | 32) <= 'z' ? true : (str[i] >= '0' && str[i] <= '9');
             i++)
            run++;
        if (run < 1 || run > 8) ok = false;
    }
    if (!ok) {
        char shown[80];
        snprintf(shown, sizeof shown, "%.60s%s", str, strlen(str) > 60 ? "..." : "");
        return lesson_fail(
            c, "expected a language code such as \"en\", \"es\", \"fr\" or \"zh\", got \"%s\"",
            shown);
    }
    if (!(b->l.language = lesson_dup_string(str, strlen(str))))
        return lesson_fail(c, "out of memory");
    return true;
}

static void save_language(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)p;
    (void)f;
    if (!l->language) return;
    strbuf_puts(o, "\"language\": ");
    utf8_json_string(put_buf, o, l->language);
}

// "mask": "none" or "causal" (self-attention only: b->cfg.cross is known from "source").
static bool read_mask(Ctx *c, const cJSON *v, Build *b, const LessonField *f)
{
    (void)f;
    b->cfg.mask = MASK_NONE;
    if (!v) return true;
    if (!cJSON_IsString(v))
        return lesson_fail(c, "expected \"none\" or \"causal\", got %s", lesson_type_name(v));
    char shown[80];
    if (strcmp(v->valuestring, "causal") == 0) b->cfg.mask = MASK_CAUSAL;
    else if (strcmp(v->valuestring, "none") != 0)
        return lesson_fail(c, "expected \"none\" or \"causal\", got \"%s\"",
                           lesson_show_key(v->valuestring, shown, sizeof shown));
    if (b->cfg.mask == MASK_CAUSAL && b->cfg.cross)
        return lesson_fail(
            c, "\"causal\" masking is for self-attention only; it cannot be used with \"source\"");
    return true;
}

static const char *mask_name(const AttnParams *p)
{
    return p->mask == MASK_CAUSAL ? "causal" : "none";
}

static void save_mask(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    if (p->mask == MASK_CAUSAL) strbuf_puts(o, "\"mask\": \"causal\"");
}

static void json_mask(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    strbuf_printf(o, "\"mask\": \"%s\"", mask_name(p));
}

static void trace_mask(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    strbuf_printf(o, "mask = %s", mask_name(p));
}

// "scale": a positive number that multiplies the scores instead of 1/sqrt(d_k) (0 when absent: the
// default).
static bool read_scale(Ctx *c, const cJSON *v, Build *b, const LessonField *f)
{
    (void)f;
    if (!v) return true;
    char num[40];
    if (!cJSON_IsNumber(v))
        return lesson_fail(c, "expected a positive number (it multiplies the scores), got %s",
                           lesson_type_name(v));
    if (!isfinite(v->valuedouble)) return lesson_fail(c, "number out of range");
    if (!(v->valuedouble > 0))
        return lesson_fail(
            c,
            "must be a positive number (it multiplies the scores instead of 1/\xe2\x88\x9a"
            "d_k), got %s",
            lesson_fmt_num(v->valuedouble, num, sizeof num));
    b->cfg.scale = v->valuedouble;
    return true;
}

static void trace_scale(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    if (p->scale > 0)
        strbuf_printf(
            o,
            "scale = %.17g: the scores are multiplied by it instead of divided by \xe2\x88\x9a%d",
            p->scale, p->d_k);
}

// A real model's rope_scaling, kept in a saved lesson (--save-lesson): ",\n    \"scaling\": {...}"
// (nothing when none).
static void rope_scaling_json(StrBuf *o, const RopeScale *s)
{
    if (s->kind == ROPE_SCALE_NONE) return;
    strbuf_puts(o, s->kind == ROPE_SCALE_LLAMA3
                       ? ",\n    \"scaling\": {\"type\": \"llama3\", \"factor\": "
                       : ",\n    \"scaling\": {\"type\": \"linear\", \"factor\": ");
    lesson_put_number(o, s->factor);
    if (s->kind == ROPE_SCALE_LLAMA3) {
        strbuf_puts(o, ", \"low_freq_factor\": ");
        lesson_put_number(o, s->low_freq_factor);
        strbuf_puts(o, ", \"high_freq_factor\": ");
        lesson_put_number(o, s->high_freq_factor);
        strbuf_puts(o, ", \"original_max_position_embeddings\": ");
        lesson_put_number(o, s->original_max);
    }
    strbuf_puts(o, "}");
}

// "rope": {"base", "pairs"} (shortest: the saved lesson's numbers, with the scaling; else
// --json's).
static void rope_json(StrBuf *o, const AttnParams *p, bool shortest)
{
    strbuf_puts(o, "\"rope\": {\"base\": ");
    if (shortest) lesson_put_number(o, p->rope_base);
    else strbuf_json_number(o, p->rope_base);
    strbuf_puts(o, p->rope == ROPE_INTERLEAVED ? ", \"pairs\": \"interleaved\""
                                               : ", \"pairs\": \"halves\"");
    if (shortest) rope_scaling_json(o, &p->rope_scale);
    strbuf_puts(o, "}");
}

static void save_rope(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    if (p->rope != ROPE_NONE) rope_json(o, p, true);
}

static void json_rope(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    if (p->rope == ROPE_NONE) return;
    rope_json(o, p, false);
    // --rope-shift K: every position also shifted by K (each head's Q_rot_shifted, ...,
    // scores_shifted)
    if (p->rope_shift > 0) strbuf_printf(o, ",\n  \"rope_shift\": %d", p->rope_shift);
}

static void trace_rope(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    if (p->rope != ROPE_NONE)
        strbuf_printf(
            o, "rope = base %.17g, pairs %s: Q and K rows turned by position * base^(-2j/d_k)",
            p->rope_base,
            p->rope == ROPE_INTERLEAVED ? "interleaved (2j, 2j+1)" : "halves (j, j+d_k/2)");
}

static void put_kv_heads(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    if (p->kv_given) strbuf_printf(o, "\"kv_heads\": %d", p->kv_heads);
}

static void trace_kv_heads(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    if (p->kv_given)
        strbuf_printf(o,
                      "kv_heads = %d: query head h reads K/V head h / %d; the KV cache holds "
                      "2*%d*%d = %d values per "
                      "token (2*%d*%d = %d with one K/V head per head)",
                      p->kv_heads, p->heads / p->kv_heads, p->kv_heads, p->d_k,
                      2 * p->kv_heads * p->d_k, p->heads, p->d_k, 2 * p->heads * p->d_k);
}

static void trace_window(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    if (p->window > 0)
        strbuf_printf(o, "window = %d: query i sees the keys j with i - %d < j <= i", p->window,
                      p->window);
}

// "positions" is read and saved with the matrices (lesson_matrices.c, lesson_write.c): it may be
// one.
static void trace_positions(StrBuf *o, const Lesson *l, const AttnParams *p, const LessonField *f)
{
    (void)l;
    (void)f;
    if (p->positions != POS_NONE)
        strbuf_printf(o, "positions = %s: X = E + P",
                      p->positions == POS_SINUSOIDAL ? "sinusoidal" : "explicit");
}

#define CFG(member) offsetof(AttnConfig, member)

// The rows, in the order they are read and --json and --trace print them. save_at: their order in a
// saved lesson (which writes the scale before the sizes, as it always did).
static const LessonField FIELDS[] = {
    {.name = "language",
     .type = FIELD_OTHER,
     .part = FIELDS_WITH_TITLE,
     .read = read_language,
     .save_at = 1,
     .save = save_language},
    {.name = "heads",
     .type = FIELD_INT,
     .offset = CFG(heads),
     .def = 0,
     .min = 1,
     .max = LESSON_MAX_HEADS,
     .part = FIELDS_WITH_SHAPE,
     .required = true,
     .always = true,
     .read = read_value,
     .save_at = 2,
     .save = save_value,
     .json = json_value,
     .trace = trace_value,
     .trace_inline = true},
    // d_k absent (-1): d_model / heads, worked out with the shapes (lesson.c).
    {.name = "d_k",
     .type = FIELD_INT,
     .offset = CFG(d_k),
     .def = -1,
     .min = 1,
     .max = LESSON_MAX_D_K,
     .part = FIELDS_WITH_SHAPE,
     .always = true,
     .read = read_value,
     .save_at = 3,
     .save = save_value,
     .json = json_value,
     .trace = trace_value,
     .trace_inline = true},
    {.name = "mask",
     .type = FIELD_OTHER,
     .part = FIELDS_WITH_SHAPE,
     .read = read_mask,
     .save_at = 4,
     .save = save_mask,
     .json = json_mask,
     .trace = trace_mask,
     .trace_inline = true},
    {.name = "positions",
     .type = FIELD_OTHER,
     .part = FIELDS_WITH_MATRICES,
     .trace = trace_positions},
    {.name = "scale",
     .type = FIELD_NUMBER,
     .offset = CFG(scale),
     .def = 0,
     .min = 0,
     .max = INFINITY,
     .part = FIELDS_WITH_SHAPE,
     .read = read_scale,
     .save_at = 1,
     .save = save_value,
     .json = json_value,
     .trace = trace_scale},
    {.name = "rope",
     .type = FIELD_OTHER,
     .part = FIELDS_WITH_SHAPE,
     .read = lesson_read_rope,
     .save_at = 7,
     .save = save_rope,
     .json = json_rope,
     .trace = trace_rope},
    {.name = "kv_heads",
     .type = FIELD_OTHER,
     .part = FIELDS_WITH_SHAPE,
     .read = lesson_read_kv_heads,
     .save_at = 6,
     .save = put_kv_heads,
     .json = put_kv_heads,
     .trace = trace_kv_heads},
    {.name = "window",
     .type = FIELD_INT,
     .offset = CFG(window),
     .def = 0,
     .min = 1,
     .max = LESSON_MAX_WINDOW,
     .part = FIELDS_WITH_SHAPE,
     .read = lesson_read_window,
     .save_at = 5,
     .save = save_value,
     .json = json_value,
     .trace = trace_window},
};
#define FIELD_COUNT ((int)(sizeof FIELDS / sizeof FIELDS[0]))

// --- reading ---

bool lesson_fields_read(Ctx *c, const cJSON *root, Build *b, LessonFieldPart part)
{
    bool all = true;
    for (int i = 0; i < FIELD_COUNT; i++) {
        const LessonField *f = &FIELDS[i];
        if (f->part != part || !f->read) continue;
        int k;
        const cJSON *v = lesson_member(root, f->name, &k);
        if (v) lesson_push_key(c, f->name, k);
        bool ok = f->read(c, v, b, f);
        if (ok && !v && f->required) ok = lesson_fail(c, "missing required key \"%s\"", f->name);
        else if (ok && v) lesson_pop(c);
        if (ok) continue;
        b->fields_bad |= 1ull << i;
        all = false;
        c->depth = 0;
        if (!c->rep) return false; // lesson_parse stops at the first error; a report goes on
    }
    return all;
}

bool lesson_field_ok(const Build *b, const char *name)
{
    for (int i = 0; i < FIELD_COUNT; i++)
        if (strcmp(FIELDS[i].name, name) == 0) return !(b->fields_bad >> i & 1u);
    return false;
}

int lesson_fields_keys(const char **keys, int count, int cap, char *expected, size_t expected_cap)
{
    for (int i = 0; i < FIELD_COUNT && count + 1 < cap; i++) {
        bool listed = false;
        for (int j = 0; j < count && !listed; j++) listed = strcmp(keys[j], FIELDS[i].name) == 0;
        if (listed) continue;
        keys[count++] = FIELDS[i].name;
        size_t used = strlen(expected);
        snprintf(expected + used, expected_cap - used, ", %s", FIELDS[i].name);
    }
    keys[count] = NULL;
    return count;
}

// --- writing ---

// f's part of an output, put into o between before and after when it writes anything.
static void put_field(StrBuf *o, FieldPut put, const Lesson *l, const AttnParams *p,
                      const LessonField *f, const char *before, const char *after)
{
    StrBuf one = {0};
    put(&one, l, p, f);
    if (one.len) {
        strbuf_puts(o, before);
        strbuf_put(o, one.p, one.len);
        strbuf_puts(o, after);
    }
    if (one.oom) o->oom = true;
    free(one.p);
}

void lesson_fields_save(StrBuf *o, const Lesson *l, const AttnParams *p, LessonFieldPart part)
{
    for (int at = 1; at <= FIELD_COUNT; at++)
        for (int i = 0; i < FIELD_COUNT; i++)
            if (FIELDS[i].part == part && FIELDS[i].save_at == at && FIELDS[i].save)
                put_field(o, FIELDS[i].save, l, p, &FIELDS[i], ",\n  ", "");
}

void lesson_fields_json(StrBuf *o, const Lesson *l)
{
    strbuf_printf(o, "  \"d_model\": %d,\n", l->params.d_model);
    for (int i = 0; i < FIELD_COUNT; i++)
        if (FIELDS[i].json) put_field(o, FIELDS[i].json, l, &l->params, &FIELDS[i], "  ", ",\n");
}

void lesson_fields_trace(StrBuf *o, const Lesson *l)
{
    const AttnParams *p = &l->params;
    strbuf_printf(o, "d_model = %d", p->d_model);
    for (int i = 0; i < FIELD_COUNT; i++)
        if (FIELDS[i].trace && FIELDS[i].trace_inline)
            put_field(o, FIELDS[i].trace, l, p, &FIELDS[i], ", ", "");
    strbuf_puts(o, p->cross ? ", cross-attention\n" : "\n");
    // The teaching switches, only when used (a lesson without them prints what it always printed).
    for (int i = 0; i < FIELD_COUNT; i++)
        if (FIELDS[i].trace && !FIELDS[i].trace_inline)
            put_field(o, FIELDS[i].trace, l, p, &FIELDS[i], "", "\n");
}
