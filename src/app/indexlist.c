// Comma-separated lists of indices on the command line (--shuffle, --ablate, --cell): each entry a
// whole number from 0, checked against the lesson.
#include "app/indexlist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static const char *plural(int n) { return n == 1 ? "" : "s"; }

// The next whole number from 0 of a comma-separated list at *s (advanced past it and its comma).
static bool next_index(const char **s, long *v)
{
    const char *p = *s;
    if (*p < '0' || *p > '9') return false;
    char *end;
    errno = 0;
    *v = strtol(p, &end, 10);
    if (errno || *v > 1000000) return false;
    if (*end == ',' && end[1]) end++;
    else if (*end) return false;
    *s = end;
    return true;
}

bool indexlist_parse_permutation(const char *text, int n, int *perm, char *msg, size_t cap)
{
    bool *seen = calloc((size_t)n, sizeof *seen);
    if (!seen) {
        snprintf(msg, cap, "out of memory");
        return false;
    }
    const char *s = text;
    int count = 0;
    long v;
    bool ok = true;
    while (ok && *s) {
        if (!next_index(&s, &v)) {
            snprintf(msg, cap,
                     "expects a reordering of the token positions such as 2,0,1, got '%s'", text);
            ok = false;
        } else if (v >= n) {
            snprintf(msg, cap, "position %ld does not exist: the lesson has %d token%s (0 to %d)",
                     v, n, plural(n), n - 1);
            ok = false;
        } else if (seen[v]) {
            snprintf(msg, cap, "position %ld is given twice in '%s'", v, text);
            ok = false;
        } else {
            seen[v] = true;
            perm[count++] = (int)v;
        }
    }
    if (ok && count != n) {
        snprintf(msg, cap, "expects all %d token positions (0 to %d) once each, got %d in '%s'", n,
                 n - 1, count, text);
        ok = false;
    }
    free(seen);
    return ok;
}

bool indexlist_parse_heads(const char *text, int heads, uint64_t *set, char *msg, size_t cap)
{
    const char *s = text;
    long v;
    *set = 0;
    if (!*s) {
        snprintf(msg, cap, "expects head numbers such as 0 or 0,2, got ''");
        return false;
    }
    while (*s) {
        if (!next_index(&s, &v)) {
            snprintf(msg, cap, "expects head numbers such as 0 or 0,2, got '%s'", text);
            return false;
        }
        if (v >= heads) {
            snprintf(msg, cap, "head %ld does not exist: the lesson has %d head%s (0 to %d)", v,
                     heads, plural(heads), heads - 1);
            return false;
        }
        *set |= (uint64_t)1 << v;
    }
    return true;
}

bool indexlist_parse_pair(const char *text, int *row, int *col)
{
    const char *s = text;
    long r, c;
    if (!next_index(&s, &r) || s == text || s[-1] != ',' || !next_index(&s, &c) || *s) return false;
    *row = (int)r;
    *col = (int)c;
    return true;
}
