// The Unicode classes the tokenizers' pre-tokenizer patterns use: \p{L}, \p{N} (generated tables,
// unicode_classes.c) and \s (White_Space).
#ifndef MHA_UNICODE_CLASSES_H
#define MHA_UNICODE_CLASSES_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint32_t first, last;
} UnicodeRange;

extern const UnicodeRange UNICODE_LETTERS[];
extern const int UNICODE_LETTERS_COUNT;
extern const UnicodeRange UNICODE_NUMBERS[];
extern const int UNICODE_NUMBERS_COUNT;

bool unicode_is_letter(uint32_t cp); // \p{L}
bool unicode_is_number(uint32_t cp); // \p{N}
bool unicode_is_space(uint32_t cp); // \s: the White_Space property

#endif
