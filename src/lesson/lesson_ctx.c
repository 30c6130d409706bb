// The lesson's validation context: the JSON path being read, problems (errors and warnings)
// positioned at it by line:column, and the typed readers (numbers, whole numbers, seeds, strings,
// vectors, matrices) on it.
#include "lesson/lesson_ctx.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/json_locate.h"

void lesson_push_key(Ctx *c, const char *key, int member)
{
    if (c->depth < MAX_PATH) c->path[c->depth] = (PathSeg){key, member};
    c->depth++;
}

void lesson_push_index(Ctx *c, int i)
{
    if (c->depth < MAX_PATH) c->path[c->depth] = (PathSeg){NULL, i};
    c->depth++;
}

void lesson_pop(Ctx *c) { c->depth--; }

const cJSON *lesson_need(Ctx *c, const cJSON *obj, const char *key)
{
    return lesson_need_hint(c, obj, key, NULL);
}

const cJSON *lesson_need_hint(Ctx *c, const cJSON *obj, const char *key, const char *hint)
{
    int k;
    const cJSON *v = lesson_member(obj, key, &k);
    if (!v) {
        lesson_fail(c, "missing required key \"%s\"%s%s%s", key, hint ? " (" : "", hint ? hint : "",
                    hint ? ")" : "");
        return NULL;
    }
    lesson_push_key(c, key, k);
    return v;
}

const cJSON *lesson_enter(Ctx *c, const cJSON *obj, const char *key)
{
    int k;
    const cJSON *v = lesson_member(obj, key, &k);
    if (v) lesson_push_key(c, key, k);
    return v;
}

void lesson_append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    if (*used >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used = (*used + (size_t)n < cap) ? *used + (size_t)n : cap;
}

// Describes a problem at the current path into *e: at the value, or (at_key) at the key of the last
// member, whose name is then left out of the path because the message names it.
static void describe(Ctx *c, bool at_key, LessonError *e, const char *fmt, va_list ap)
{
    int depth = c->depth < MAX_PATH ? c->depth : MAX_PATH;
    int shown = at_key ? depth - 1 : depth;
    size_t used = 0;
    e->path[0] = '\0';
    for (int i = 0; i < shown; i++) {
        if (c->path[i].key)
            lesson_append(e->path, sizeof e->path, &used, "%s%s", used ? "." : "", c->path[i].key);
        else lesson_append(e->path, sizeof e->path, &used, "[%d]", c->path[i].index);
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
void lesson_warn(Ctx *c, const char *fmt, ...)
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

bool lesson_fail(Ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_va(c, false, fmt, ap);
    va_end(ap);
    return false;
}

bool lesson_fail_key(Ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_va(c, true, fmt, ap);
    va_end(ap);
    return false;
}

// Reports at a member of the top-level object (from anywhere below it).
bool lesson_fail_top(Ctx *c, const char *key, int member, const char *fmt, ...)
{
    c->depth = 0;
    if (key) lesson_push_key(c, key, member);
    va_list ap;
    va_start(ap, fmt);
    fail_va(c, false, fmt, ap);
    va_end(ap);
    return false;
}

// --- small readers ---

const char *lesson_type_name(const cJSON *v)
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
const char *lesson_fmt_num(double x, char *buf, size_t cap)
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
const char *lesson_show_key(const char *key, char *buf, size_t cap)
{
    size_t n = 0, i = 0;
    for (; key[i] && i < 60 && n + 4 < cap; i++)
        buf[n++] = ((unsigned char)key[i] < 0x20) ? '?' : key[i];
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
const cJSON *lesson_member(const cJSON *obj, const char *key, int *index)
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
bool lesson_check_keys(Ctx *c, const cJSON *obj, const char *const *allowed, const char *expected)
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
                lesson_push_key(c, name, k);
                ok = lesson_fail_key(c, "duplicate key \"%s\" (first given at line %d, column %d)",
                                     lesson_show_key(name, shown, sizeof shown), line, col);
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
            lesson_push_key(c, name, k);
            ok = lesson_fail_key(c, "unknown key \"%s\" (expected %s)",
                                 lesson_show_key(name, shown, sizeof shown), expected);
            if (!c->rep) return false;
            c->depth = d0;
        }
    }
    return ok;
}

bool lesson_get_number(Ctx *c, const cJSON *v, double *out)
{
    if (!cJSON_IsNumber(v)) return lesson_fail(c, "expected a number, got %s", lesson_type_name(v));
    if (!isfinite(v->valuedouble)) return lesson_fail(c, "number out of range");
    *out = v->valuedouble;
    return true;
}

// An integer in [min, max]. The path names the key, so messages read "heads: must be at least 1,
// got 0".
bool lesson_get_int(Ctx *c, const cJSON *v, int min, int max, int *out)
{
    char num[40];
    if (!cJSON_IsNumber(v))
        return lesson_fail(c, "expected a whole number, got %s", lesson_type_name(v));
    double x = v->valuedouble;
    if (!isfinite(x)) return lesson_fail(c, "number out of range");
    if (x != floor(x))
        return lesson_fail(c, "must be a whole number, got %s", lesson_fmt_num(x, num, sizeof num));
    if (x < min)
        return lesson_fail(c, "must be at least %d, got %s", min,
                           lesson_fmt_num(x, num, sizeof num));
    if (x > max)
        return lesson_fail(c, "must be at most %d, got %s", max,
                           lesson_fmt_num(x, num, sizeof num));
    *out = (int)x;
    return true;
}

bool lesson_get_seed(Ctx *c, const cJSON *v, uint64_t *out)
{
    char num[40];
    if (!cJSON_IsNumber(v))
        return lesson_fail(c, "expected a whole number from 0 to 2^53 - 1, got %s",
                           lesson_type_name(v));
    double x = v->valuedouble;
    if (!isfinite(x)) return lesson_fail(c, "number out of range");
    if (x < 0)
        return lesson_fail(c, "must not be negative, got %s", lesson_fmt_num(x, num, sizeof num));
    if (x != floor(x))
        return lesson_fail(c, "must be a whole number, got %s", lesson_fmt_num(x, num, sizeof num));
    if (x > LESSON_MAX_SEED)
        return lesson_fail(c, "must be at most 9007199254740991 (2^53 - 1), got %s",
                           lesson_fmt_num(x, num, sizeof num));
    *out = (uint64_t)x;
    return true;
}

// A standard deviation: finite and >= 0.
bool lesson_get_std(Ctx *c, const cJSON *v, double *out)
{
    char num[40];
    if (!lesson_get_number(c, v, out)) return false;
    if (*out < 0)
        return lesson_fail(c, "must not be negative, got %s",
                           lesson_fmt_num(*out, num, sizeof num));
    return true;
}

bool lesson_get_string(Ctx *c, const cJSON *v, const char **out)
{
    if (!cJSON_IsString(v) || !v->valuestring)
        return lesson_fail(c, "expected a string, got %s", lesson_type_name(v));
    *out = v->valuestring;
    return true;
}

char *lesson_dup_string(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

void lesson_free_strings(char **s, int n)
{
    if (!s) return;
    for (int i = 0; i < n; i++) free(s[i]);
    free(s);
}

// dst[0..count) = the numbers of the array v (at the current path); what names count in messages.
bool lesson_read_vector(Ctx *c, const cJSON *v, double *dst, int count, const char *what)
{
    if (!cJSON_IsArray(v))
        return lesson_fail(c, "expected an array of %d number%s (%s), got %s", count, plural(count),
                           what, lesson_type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != count)
        return lesson_fail(c, "expected %d number%s (%s), got %d", count, plural(count), what, got);
    int j = 0;
    for (const cJSON *x = v->child; x; x = x->next, j++) {
        lesson_push_index(c, j);
        if (!lesson_get_number(c, x, &dst[j])) return false;
        lesson_pop(c);
    }
    return true;
}

// m (already shaped) = the array of rows v; rows_what and cols_what name the sizes in messages.
bool lesson_read_matrix(Ctx *c, const cJSON *v, Matrix *m, const char *rows_what,
                        const char *cols_what)
{
    if (!cJSON_IsArray(v))
        return lesson_fail(c, "expected an array of %d row%s (%s), got %s", m->rows,
                           plural(m->rows), rows_what, lesson_type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != m->rows)
        return lesson_fail(c, "expected %d row%s (%s), got %d", m->rows, plural(m->rows), rows_what,
                           got);
    int r = 0, d0 = c->depth;
    bool ok = true;
    for (const cJSON *row = v->child; row; row = row->next, r++) {
        lesson_push_index(c, r);
        if (!lesson_read_vector(c, row, mat_row(m, r), m->cols, cols_what)) {
            if (!c->rep) return false;
            ok = false; // a report: the other rows are checked too
        }
        c->depth = d0;
    }
    return ok;
}

bool lesson_optional_int(Ctx *c, const cJSON *obj, const char *key, int min, int max, int *out)
{
    const cJSON *v = lesson_enter(c, obj, key);
    return !v || (lesson_get_int(c, v, min, max, out) && (lesson_pop(c), true));
}

bool lesson_optional_seed(Ctx *c, const cJSON *obj, const char *key, uint64_t *out)
{
    const cJSON *v = lesson_enter(c, obj, key);
    return !v || (lesson_get_seed(c, v, out) && (lesson_pop(c), true));
}

bool lesson_optional_std(Ctx *c, const cJSON *obj, const char *key, double *out)
{
    const cJSON *v = lesson_enter(c, obj, key);
    return !v || (lesson_get_std(c, v, out) && (lesson_pop(c), true));
}
