// Unicode's Normalization Form C (UAX #15), for tokenizer.json's NFC normalizer (Qwen2, Qwen3):
// each code point fully decomposed, the marks put in canonical order, then composed again; tables
// in unicode_nfc.c.
#ifndef MHA_NFC_H
#define MHA_NFC_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t cp;
    int n; // 2 to 4 code points
    uint32_t to[4]; // the full canonical decomposition
} NfcDecomp;

typedef struct {
    uint32_t first, second, composite;
} NfcPair;

typedef struct {
    uint32_t first, last;
    int ccc; // the canonical combining class, 1 to 254
} NfcClass;

extern const NfcDecomp NFC_DECOMP[];
extern const int NFC_DECOMP_COUNT;
extern const NfcPair NFC_COMPOSE[]; // sorted by (first, second)
extern const int NFC_COMPOSE_COUNT;
extern const NfcClass NFC_CCC[];
extern const int NFC_CCC_COUNT;

// The full canonical decomposition of c (Hangul syllables excepted: Unicode's formula makes
// theirs), or NULL when c decomposes to itself.
const NfcDecomp *nfc_decomposition(uint32_t c);

// The NFC form of s (len bytes of UTF-8; a malformed byte stays U+FFFD as utf8_decode reads it),
// malloc'd with a NUL after it and its length in *out_len; NULL when out of memory.
char *unicode_nfc(const char *s, size_t len, size_t *out_len);

#endif
