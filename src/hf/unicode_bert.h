// What BERT's normalizer and pre-tokenizer read of Unicode (generated tables, unicode_bert.c):
// punctuation, the "other" categories clean_text drops, the marks strip_accents drops and
// lowercase (strip_accents' NFD is nfc.h's).
#ifndef MHA_UNICODE_BERT_H
#define MHA_UNICODE_BERT_H

#include <stdbool.h>
#include <stdint.h>

#include "hf/unicode_classes.h"

typedef struct {
    uint32_t cp;
    int n; // 0 to 3 code points
    uint32_t to[3];
} UnicodeMap;

extern const UnicodeRange UNICODE_PUNCT[];
extern const int UNICODE_PUNCT_COUNT;
extern const UnicodeRange UNICODE_OTHER[];
extern const int UNICODE_OTHER_COUNT;
extern const UnicodeRange UNICODE_MARK_MN[];
extern const int UNICODE_MARK_MN_COUNT;
extern const UnicodeMap UNICODE_LOWER[];
extern const int UNICODE_LOWER_COUNT;

bool unicode_in(const UnicodeRange *r, int count, uint32_t cp);
// The entry of cp in a sorted map, or NULL (cp maps to itself).
const UnicodeMap *unicode_map(const UnicodeMap *m, int count, uint32_t cp);

#endif
