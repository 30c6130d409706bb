// A growable NUL-terminated text buffer for writers that build a whole file in memory (lesson JSON,
// SVG). Allocation failure is sticky: later appends do nothing and `oom` stays set, so callers
// check once at the end.
#ifndef MHA_STRBUF_H
#define MHA_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *p; // the text so far, NUL-terminated (NULL until the first append); caller frees with
             // free()
    size_t len, cap;
    bool oom;
} StrBuf;

void strbuf_put(StrBuf *b, const char *s, size_t n);
void strbuf_puts(StrBuf *b, const char *s);
// Appends printf-formatted text (at most 511 bytes per call).
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void strbuf_printf(StrBuf *b, const char *fmt, ...);

// A number as every JSON the program writes has it: %.17g, or null where it is not finite (JSON has
// no infinity; masked scores are -inf). strbuf_json_number_text writes it into out (cap bytes,
// STRBUF_NUMBER_CAP is enough) and returns out; strbuf_json_number appends it.
#define STRBUF_NUMBER_CAP 32
const char *strbuf_json_number_text(double v, char *out, size_t cap);
void strbuf_json_number(StrBuf *b, double v);

#endif
