// BERT's WordPiece tokenizer (wordpiece.c): BertNormalizer, BertPreTokenizer, WordPiece, for
// tokenizer.c.
#ifndef MHA_WORDPIECE_H
#define MHA_WORDPIECE_H

#include "hf/tokenizer.h"

typedef struct {
    int *ids;
    int n, cap;
} WpIds;

// Appends id to l. false: no memory.
bool wp_push(WpIds *l, int id);
// The ids of a stretch of text with no added token in it (s, len bytes of UTF-8) appended to out:
// normalized, cut into words, each word by WordPiece. false with err (path: the tokenizer's file).
bool wordpiece_encode(const Tokenizer *t, const char *s, size_t len, WpIds *out, const char *path,
                      LessonError *err);

#endif
