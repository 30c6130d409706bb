// The pre-tokenizers' split of a text into pieces before BPE: the regex patterns of GPT-2, Llama 3
// and Qwen2, each written out as the ordered alternation (with its backtracking) that the regex
// engine runs.
#ifndef MHA_PRETOKENIZE_H
#define MHA_PRETOKENIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// PRETOK_METASPACE: SentencePiece's split, each piece from one "▁" up to the next (Metaspace with
// split true).
typedef enum {
    PRETOK_NONE = 0,
    PRETOK_GPT2,
    PRETOK_LLAMA3,
    PRETOK_QWEN2,
    PRETOK_METASPACE
} PretokKind;

// The pattern a tokenizer.json names ("Regex" of a Split), or false when it is none of the known
// ones.
bool pretok_from_pattern(const char *regex, PretokKind *out);
// How many code points of cp (n of them) from i the pattern's next match takes (at least 1;
// PRETOK_NONE: all).
int pretok_match(PretokKind k, const uint32_t *cp, int n, int i);

#endif
