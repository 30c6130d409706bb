// The tokenizers' two containers: a map from strings to ints (open addressing, FNV-1a; the
// vocabulary, the merges) and a growable list of token ids.
#ifndef MHA_HF_STRMAP_H
#define MHA_HF_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char **keys; // [cap] owned strings, NULL where empty
    int *values; // [cap]
    size_t cap, used;
} StrMap;

// An empty map with room for about `expected` keys. false: no memory.
bool strmap_init(StrMap *m, size_t expected);
void strmap_free(StrMap *m);
// Adds key (n bytes) -> value; a key already there keeps its value (replace false) or takes the
// new one (replace true). false: no memory.
bool strmap_put(StrMap *m, const char *key, size_t n, int value, bool replace);
// The value of key (n bytes), or -1.
int strmap_get(const StrMap *m, const char *key, size_t n);
// The map's own copy of key (n bytes), or NULL.
const char *strmap_key(const StrMap *m, const char *key, size_t n);

typedef struct {
    int *ids;
    int n, cap;
} IdList;

// Room for one more item in *items (n of them, *cap allocated, each size bytes): doubled, plus
// `first`, when full. false: no memory (*items as it was).
bool list_reserve(void **items, int n, int *cap, size_t size, int first);
// Appends id to l. false: no memory.
bool idlist_push(IdList *l, int id);

#endif
