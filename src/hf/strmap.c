// The tokenizers' string -> int map and id list (strmap.h).
#include "hf/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

// The slot of key (n bytes) in m: its own, or the empty one where it would go.
static size_t map_slot(const StrMap *m, const char *key, size_t n)
{
    size_t i = (size_t)(hash_bytes(key, n) & (m->cap - 1));
    while (m->keys[i] && !(strlen(m->keys[i]) == n && memcmp(m->keys[i], key, n) == 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

bool strmap_init(StrMap *m, size_t expected)
{
    m->cap = 16;
    while (m->cap < 2 * expected + 16) m->cap *= 2;
    m->used = 0;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->values = calloc(m->cap, sizeof *m->values);
    return m->keys && m->values;
}

void strmap_free(StrMap *m)
{
    for (size_t i = 0; m->keys && i < m->cap; i++) free(m->keys[i]);
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

// Twice the slots, every key moved to its new one. false: no memory.
static bool map_grow(StrMap *m)
{
    StrMap g = {calloc(2 * m->cap, sizeof *g.keys), calloc(2 * m->cap, sizeof *g.values),
                2 * m->cap, m->used};
    if (!g.keys || !g.values) {
        free(g.keys);
        free(g.values);
        return false;
    }
    for (size_t k = 0; k < m->cap; k++)
        if (m->keys[k]) {
            size_t at = map_slot(&g, m->keys[k], strlen(m->keys[k]));
            g.keys[at] = m->keys[k], g.values[at] = m->values[k];
        }
    free(m->keys);
    free(m->values);
    *m = g;
    return true;
}

bool strmap_put(StrMap *m, const char *key, size_t n, int value, bool replace)
{
    size_t i = map_slot(m, key, n);
    if (m->keys[i]) {
        if (replace) m->values[i] = value;
        return true;
    }
    if (2 * (m->used + 1) > m->cap) {
        if (!map_grow(m)) return false;
        i = map_slot(m, key, n);
    }
    if (!(m->keys[i] = malloc(n + 1))) return false;
    memcpy(m->keys[i], key, n);
    m->keys[i][n] = '\0';
    m->values[i] = value;
    m->used++;
    return true;
}

int strmap_get(const StrMap *m, const char *key, size_t n)
{
    if (!m->cap) return -1;
    size_t i = map_slot(m, key, n);
    return m->keys[i] ? m->values[i] : -1;
}

const char *strmap_key(const StrMap *m, const char *key, size_t n)
{
    return m->cap ? m->keys[map_slot(m, key, n)] : NULL;
}

bool list_reserve(void **items, int n, int *cap, size_t size, int first)
{
    if (n < *cap) return true;
    int want = 2 * *cap + first;
    void *g = realloc(*items, size * (size_t)want);
    if (!g) return false;
    *items = g;
    *cap = want;
    return true;
}

bool idlist_push(IdList *l, int id)
{
    void *items = l->ids;
    if (!list_reserve(&items, l->n, &l->cap, sizeof *l->ids, 16)) return false;
    l->ids = items;
    l->ids[l->n++] = id;
    return true;
}
