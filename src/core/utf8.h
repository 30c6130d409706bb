// UTF-8 text as the board needs it: code points, grapheme-ish clusters (a base with its combining
// marks, variation selectors, emoji modifiers and ZWJ sequences) and each code point's script and
// direction. C11 only: the lesson loader splits sentences with it and the renderer shapes text runs
// with it.
#ifndef MHA_UTF8_H
#define MHA_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// What a code point does in a line of text.
typedef enum {
    UCLASS_NEUTRAL =
        0, // spaces, punctuation, symbols, emoji: take the direction of their neighbours
    UCLASS_STRONG, // letters of a script with a direction
    UCLASS_NUMBER, // digits (also sub- and superscript digits): always laid out left to right
    UCLASS_MARK, // combining marks, variation selectors, emoji modifiers: belong to the code point
                 // before
    UCLASS_JOINER, // U+200D ZERO WIDTH JOINER: joins the code points on both sides into one cluster
    UCLASS_ISOLATE, // U+2066..U+2068 (LRI, RLI, FSI): what follows, up to U+2069 (PDI), is laid out
                    // on its own
    UCLASS_POP, // U+2069 POP DIRECTIONAL ISOLATE
} UClass;

typedef struct {
    UClass cls;
    bool rtl; // a strong right-to-left letter (Arabic, Hebrew, ...)
    bool emoji; // a pictograph (wants a colour emoji font)
    char script[5]; // ISO 15924 tag for shaping ("Latn", "Arab", "Hani", ...); "Zyyy" when common
} UInfo;

// Decodes the code point at s[*i] and advances *i past it. Malformed bytes decode as U+FFFD, one
// byte each.
uint32_t utf8_decode(const char *s, size_t len, size_t *i);

// Writes cp as UTF-8 into out (room for 4 bytes) and returns the count: 1 to 4 bytes (cp below
// 0x110000; a surrogate is written as its 3 bytes, as it comes).
size_t utf8_encode(uint32_t cp, char *out);

// The offset of the first byte of s (len bytes) that is not well-formed UTF-8 (Unicode's table
// 3-7: no overlong form, no surrogate U+D800..U+DFFF, nothing past U+10FFFF, no sequence cut
// short), or len when all of it is.
size_t utf8_invalid_at(const char *s, size_t len);

// What code point cp is (a fixed table of Unicode blocks; unknown ones are neutral, script "Zyyy").
UInfo utf8_info(uint32_t cp);

// The end of the cluster that starts at byte i of s (len bytes): the code point there, the marks
// and variation selectors after it, a ZWJ with the code point it joins, a pair of regional
// indicators (a flag).
size_t utf8_cluster_end(const char *s, size_t len, size_t i);

// Does s hold a right-to-left paragraph? (its first strong letter outside isolates is right to
// left)
bool utf8_is_rtl(const char *s);

// Invisible formatting characters (isolates, marks of direction, joiners): never a glyph of any
// font.
bool utf8_invisible(uint32_t cp);

// Does cp reorder or break a line where a terminal shows it? Unicode's bidi controls (Bidi_Control:
// the marks ALM U+061C, LRM U+200E, RLM U+200F, the embeddings and overrides U+202A..U+202E, the
// isolates U+2066..U+2069) and the line and paragraph separators (U+2028, U+2029): the program
// prints them escaped
// ("Trojan Source" lines).
bool utf8_reorders(uint32_t cp);

// The one way the program writes a JSON string (--json, --decode, --tiles, --grad, --layout, saved
// lessons): in quotes, with " and \\ escaped, \n \r \t, the other C0 controls and DEL as \u00XX,
// the C1 controls and the code points that reorder text (utf8_reorders) as \uXXXX; all other UTF-8
// as it is. The pieces go to put(ctx, bytes, n) in order.
typedef void (*Utf8JsonPut)(void *ctx, const char *bytes, size_t n);
void utf8_json_string(Utf8JsonPut put, void *ctx, const char *s);

#endif
