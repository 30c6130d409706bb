// Writes an (edited) lesson as format-1 JSON, explicit form, and saves it beside the original without
// ever replacing it. Numbers use the shortest of %.15g, %.16g, %.17g that reads back to the same double.
#define _POSIX_C_SOURCE 200809L // rename(), stat()
#include "lesson_write.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    char *buf;
    size_t len, cap;
    bool oom;
} Out;

static void put(Out *o, const char *s, size_t n)
{
    if (o->oom) return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (o->len + n + 1 > cap) cap *= 2;
        char *p = realloc(o->buf, cap);
        if (!p) {
            o->oom = true;
            return;
        }
        o->buf = p;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void puts_(Out *o, const char *s) { put(o, s, strlen(s)); }

static void number(Out *o, double v)
{
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v && (v != 0.0 || signbit(strtod(tmp, NULL)) == signbit(v))) break;
    }
    puts_(o, tmp);
}

// A JSON string: quotes, backslashes and control characters escaped; UTF-8 passes through.
static void string(Out *o, const char *s)
{
    puts_(o, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': puts_(o, "\\\""); break;
        case '\\': puts_(o, "\\\\"); break;
        case '\n': puts_(o, "\\n"); break;
        case '\t': puts_(o, "\\t"); break;
        case '\r': puts_(o, "\\r"); break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                puts_(o, esc);
            } else
                put(o, (const char *)p, 1);
        }
    }
    puts_(o, "\"");
}

static void row(Out *o, const double *v, int n)
{
    puts_(o, "[");
    for (int i = 0; i < n; i++) {
        if (i) puts_(o, ", ");
        number(o, v[i]);
    }
    puts_(o, "]");
}

// A matrix as an array of rows, one row a line, indented by `ind` spaces.
static void matrix(Out *o, const Matrix *m, int ind)
{
    char pad[64];
    snprintf(pad, sizeof pad, "%*s", ind < 60 ? ind : 60, "");
    puts_(o, "[\n");
    for (int r = 0; r < m->rows; r++) {
        puts_(o, pad);
        puts_(o, "  ");
        row(o, mat_row(m, r), m->cols);
        puts_(o, r + 1 < m->rows ? ",\n" : "\n");
    }
    puts_(o, pad);
    puts_(o, "]");
}

static void tokens(Out *o, char **t, int n)
{
    puts_(o, "[");
    for (int i = 0; i < n; i++) {
        if (i) puts_(o, ", ");
        string(o, t[i]);
    }
    puts_(o, "]");
}

// "name": [h matrices]
static void per_head(Out *o, const char *name, const Matrix *ms, int heads)
{
    puts_(o, "    ");
    string(o, name);
    puts_(o, ": [\n");
    for (int h = 0; h < heads; h++) {
        puts_(o, "      ");
        matrix(o, &ms[h], 6);
        puts_(o, h + 1 < heads ? ",\n" : "\n");
    }
    puts_(o, "    ]");
}

// True when some value is not +0 (the loader fills absent biases with +0, so those need not be written).
static bool any_set(const Matrix *m)
{
    size_t n = (size_t)m->rows * (size_t)m->cols;
    for (size_t i = 0; i < n; i++)
        if (m->data[i] != 0.0 || signbit(m->data[i])) return true;
    return false;
}

static bool any_set_heads(const Matrix *ms, int heads)
{
    for (int h = 0; h < heads; h++)
        if (any_set(&ms[h])) return true;
    return false;
}

char *lesson_write_json(const Lesson *l, const AttnParams *p, const char *title_suffix, size_t *len)
{
    Out o = {0};
    char num[32];
    puts_(&o, "{\n  \"title\": ");
    const char *title = l->title ? l->title : "";
    size_t tl = strlen(title), sl = title_suffix ? strlen(title_suffix) : 0;
    if (sl && !(tl >= sl && strcmp(title + tl - sl, title_suffix) == 0)) {
        char *t = malloc(tl + sl + 1);
        if (!t) {
            free(o.buf);
            return NULL;
        }
        memcpy(t, title, tl);
        memcpy(t + tl, title_suffix, sl + 1);
        string(&o, t);
        free(t);
    } else
        string(&o, title);
    if (l->notes) {
        puts_(&o, ",\n  \"notes\": ");
        string(&o, l->notes);
    }
    puts_(&o, ",\n  \"tokens\": ");
    tokens(&o, l->tokens, p->n);
    puts_(&o, ",\n  \"embeddings\": ");
    matrix(&o, &p->X, 2);
    snprintf(num, sizeof num, "%d", p->heads);
    puts_(&o, ",\n  \"heads\": ");
    puts_(&o, num);
    snprintf(num, sizeof num, "%d", p->d_k);
    puts_(&o, ",\n  \"d_k\": ");
    puts_(&o, num);
    if (p->mask == MASK_CAUSAL) puts_(&o, ",\n  \"mask\": \"causal\"");
    if (p->cross) {
        puts_(&o, ",\n  \"source\": {\n    \"tokens\": ");
        tokens(&o, l->source_tokens, p->m);
        puts_(&o, ",\n    \"embeddings\": ");
        matrix(&o, &p->S, 4);
        puts_(&o, "\n  }");
    }
    puts_(&o, ",\n  \"weights\": {\n");
    per_head(&o, "W_Q", p->W_Q, p->heads);
    puts_(&o, ",\n");
    per_head(&o, "W_K", p->W_K, p->heads);
    puts_(&o, ",\n");
    per_head(&o, "W_V", p->W_V, p->heads);
    puts_(&o, ",\n    \"W_O\": ");
    matrix(&o, &p->W_O, 4);
    const char *bn[3] = {"b_Q", "b_K", "b_V"};
    const Matrix *bs[3] = {p->b_Q, p->b_K, p->b_V};
    for (int i = 0; i < 3; i++) {
        if (!any_set_heads(bs[i], p->heads)) continue;
        puts_(&o, ",\n    ");
        string(&o, bn[i]);
        puts_(&o, ": [");
        for (int h = 0; h < p->heads; h++) {
            if (h) puts_(&o, ", ");
            row(&o, bs[i][h].data, bs[i][h].cols);
        }
        puts_(&o, "]");
    }
    if (any_set(&p->b_O)) {
        puts_(&o, ",\n    \"b_O\": ");
        row(&o, p->b_O.data, p->b_O.cols);
    }
    puts_(&o, "\n  }\n}\n");
    if (o.oom) {
        free(o.buf);
        return NULL;
    }
    if (len) *len = o.len;
    return o.buf;
}

static void io_error(LessonError *err, const char *path, const char *what)
{
    memset(err, 0, sizeof *err);
    err->io = true;
    snprintf(err->file, sizeof err->file, "%s", path);
    snprintf(err->message, sizeof err->message, "%s: %s", what, strerror(errno));
}

bool lesson_write_file(const char *path, const char *text, size_t len, LessonError *err)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 5);
    if (!tmp) {
        errno = ENOMEM;
        io_error(err, path, "cannot save");
        return false;
    }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        io_error(err, tmp, "cannot create");
        free(tmp);
        return false;
    }
    bool ok = fwrite(text, 1, len, f) == len;
    ok = (fflush(f) == 0) && ok;
    int saved = errno;
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        errno = saved ? saved : errno;
        io_error(err, tmp, "cannot write");
        remove(tmp);
        free(tmp);
        return false;
    }
    if (rename(tmp, path) != 0) {
        io_error(err, path, "cannot rename the temporary file to");
        remove(tmp);
        free(tmp);
        return false;
    }
    free(tmp);
    return true;
}

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

bool lesson_edited_path(char *out, size_t cap, const char *original, const char *ours)
{
    const char *src = original ? original : "the-cat-sat.json";
    size_t n = strlen(src);
    // NAME: the path without a final ".json" (any other name keeps its whole self).
    if (n >= 5 && strcmp(src + n - 5, ".json") == 0) n -= 5;
    for (int k = 1; k < 1000; k++) {
        char suffix[32];
        if (k == 1) snprintf(suffix, sizeof suffix, "-edited.json");
        else snprintf(suffix, sizeof suffix, "-edited-%d.json", k);
        int w = snprintf(out, cap, "%.*s%s", (int)n, src, suffix);
        if (w < 0 || (size_t)w >= cap) return false;
        if (original && strcmp(out, original) == 0) continue;
        if (ours && strcmp(out, ours) == 0) return true;
        if (!exists(out)) return true;
    }
    return false;
}
