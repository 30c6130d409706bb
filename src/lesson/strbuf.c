// A growable NUL-terminated text buffer shared by the lesson writer and the SVG writer, and the
// one writer of a JSON number (the lesson's --json and the command line's).
#include "lesson/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_put(StrBuf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void strbuf_puts(StrBuf *b, const char *s) { strbuf_put(b, s, strlen(s)); }

void strbuf_printf(StrBuf *b, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    strbuf_put(b, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

const char *strbuf_json_number_text(double v, char *out, size_t cap)
{
    if (isfinite(v)) snprintf(out, cap, "%.17g", v);
    else snprintf(out, cap, "null");
    return out;
}

void strbuf_json_number(StrBuf *b, double v)
{
    char num[STRBUF_NUMBER_CAP];
    strbuf_puts(b, strbuf_json_number_text(v, num, sizeof num));
}
