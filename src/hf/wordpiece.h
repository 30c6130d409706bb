// BERT's WordPiece tokenizer (wordpiece.c): BertNormalizer, BertPreTokenizer, WordPiece, for
// tokenizer.c.
#ifndef MHA_WORDPIECE_H
#define MHA_WORDPIECE_H

#include "hf/tokenizer.h"

// The ids of a stretch of text with no added token in it (s, len bytes of UTF-8) appended to out:
// normalized, cut into words, each word by WordPiece. false with err (path: the tokenizer's file).
bool wordpiece_encode(const Tokenizer *t, const char *s, size_t len, IdList *out, const char *path,
                      LessonError *err);

#endif
