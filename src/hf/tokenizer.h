// A Hugging Face tokenizer from tokenizer.json: BPE over bytes (GPT-2, Llama 3, Qwen2: the
// ByteLevel map and a pre-tokenizer pattern) or over characters with byte fallback (Llama 2,
// TinyLlama, Mistral: "▁" for spaces, <0xNN> tokens), merges by rank, the added tokens and the
// special tokens the post-processor adds.
#ifndef MHA_TOKENIZER_H
#define MHA_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include "lesson/lesson.h"
#include "hf/pretokenize.h"
#include "hf/strmap.h"

// The most special tokens a post-processor adds before the text, and after it.
#define HF_MAX_SPECIAL 4
// U+2581 "▁": SentencePiece's space.
#define TOKENIZER_SP_SPACE "\xe2\x96\x81"

typedef struct {
    int size; // ids 0 .. size-1
    char *
        *token; // [size] each id's string as the vocabulary stores it (NULL: no token has that id)
    unsigned char
        *added; // [size] 1 for an added token (matched in the text as it is, shown as it is)
    int *added_ids; // [nadded] the added tokens' ids
    int nadded;
    StrMap vocab; // token string -> id
    StrMap merges; // "left\x01right" -> rank
    PretokKind pretok;
    bool byte_level; // the ByteLevel map: each byte is one printable code point (GPT-2's
                     // bytes_to_unicode)
    bool byte_fallback; // a piece not in the vocabulary becomes its bytes' <0xNN> tokens
    bool ignore_merges; // a whole piece in the vocabulary is taken as it is (Llama 3)
    bool sp_spaces; // "▁" for every space (SentencePiece style: a Replace normalizer or Metaspace)
    bool sp_prepend; // "▁" before the text (a Prepend normalizer, or Metaspace's prepend_scheme)
    bool sp_first_only; // ... before the first stretch only, not after an added token
                        // (prepend_scheme "first")
    bool split_digits; // the Digits pre-tokenizer (individual_digits): each digit a piece of its
                       // own first
    bool nfc; // the NFC normalizer (nfc.c)
    bool wordpiece; // a WordPiece model (BERT): wordpiece.c encodes the text
    bool bert_clean, bert_chinese, bert_strip,
        bert_lower; // BertNormalizer's clean_text, handle_chinese_chars,
                    // strip_accents, lowercase
    char wp_prefix[16]; // WordPiece's continuing_subword_prefix ("##")
    int wp_max_chars; // max_input_chars_per_word: a longer word is the unknown token
    char source[1024]; // the file it was read from: DIR/tokenizer.json, DIR/vocab.json or
                       // DIR/vocab.txt
    int unk; // the unknown token's id, or -1
    int prefix[HF_MAX_SPECIAL], nprefix; // what the post-processor adds before the text (bos),
    int suffix[HF_MAX_SPECIAL], nsuffix; // and after it
} Tokenizer;

// Parses tokenizer.json's text (path for errors). false with err naming the file and the field.
bool tokenizer_parse(Tokenizer *t, const char *text, size_t len, const char *path,
                     LessonError *err);
// DIR/tokenizer.json; without it GPT-2's DIR/vocab.json and merges.txt, or BERT's DIR/vocab.txt
// (with tokenizer_config.json when there is one).
bool tokenizer_load(Tokenizer *t, const char *dir, LessonError *err);
// The older files alone (tokenizer_files.c); source (cap bytes) = the file that names the tokens.
bool tokenizer_load_files(Tokenizer *t, const char *dir, char *source, size_t cap,
                          LessonError *err);
void tokenizer_free(Tokenizer *t);
// The ids of text (UTF-8), special tokens included, into *ids (malloc'd: free it) and *n. false
// with err (file "tokenizer.json" of dir) when a piece has no token.
bool tokenizer_encode(const Tokenizer *t, const char *text, int **ids, int *n, const char *path,
                      LessonError *err);
// The same, stopping once the ids are more than max (max > 0): false with err ("more than max
// tokens") then, in time bounded by max rather than the text's length where the text allows.
bool tokenizer_encode_max(const Tokenizer *t, const char *text, int max, int **ids, int *n,
                          const char *path, LessonError *err);
// The token as the class reads it (malloc'd: free it): its text, a space shown as "▁", a newline as
// "↵", a tab as "⇥", a byte that is no whole character as <0xNN>. NULL when out of memory.
char *tokenizer_display(const Tokenizer *t, int id);
// The id of the vocabulary's token s (n bytes), or -1.
int tokenizer_vocab_id(const Tokenizer *t, const char *s, size_t n);

#endif
