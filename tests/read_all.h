// Test helper: a whole file into a NUL-terminated buffer (caller frees); NULL when it cannot be
// read.
#ifndef MHA_TEST_READ_ALL_H
#define MHA_TEST_READ_ALL_H

#include <stdio.h>
#include <stdlib.h>

static inline char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) {
        buf[n] = '\0';
        if (len) *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

#endif
