// Internal to src/lesson: a small JSON scanner that knows byte positions, which cJSON does not
// keep. json_check finds the first syntax problem (exact offset + message); json_locate finds a
// value by path.
#ifndef MHA_JSON_LOCATE_H
#define MHA_JSON_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

// The deepest nesting accepted, the same as cJSON's CJSON_NESTING_LIMIT (a lesson needs 5 levels).
#define JSON_MAX_DEPTH 1000
// The most values (numbers, strings, literals, arrays and objects) a file may hold. cJSON keeps
// each in a node of 64 bytes (plus the allocator's 16), so this bounds the tree of any file to 240
// MB; a lesson with more numbers than this gives its large matrices as {"random": {...}}. A 64 MiB
// file of "0," would otherwise take 2.7 GB before any check could look at it. 3 M: a trained
// BERT-base-shaped lesson (its 2,359,296 weights written out, 52 MB) reads back; the writer refuses
// what would not (lesson_write_readable).
#define JSON_MAX_VALUES 3000000

typedef struct {
    size_t offset; // byte offset of the problem in the text
    bool has_offset; // false for whole-file problems (an empty file)
    char message[256];
} JsonSyntaxError;

// Checks text[0..len) is one strict RFC 8259 JSON value in valid UTF-8, with no byte order mark,
// no NUL bytes, no "\u0000", no unpaired surrogate escapes, nesting at most JSON_MAX_DEPTH, at most
// JSON_MAX_VALUES values and no number that overflows a double. Returns false with the first
// problem in *err. Never reads text[len].
bool json_check(const char *text, size_t len, JsonSyntaxError *err);

// Walks already-checked text along path[0..depth): at an object path[i] is the member's position
// (0 = first member, duplicates counted), at an array it is the element index. Sets *offset to the
// first byte of the value found, or of its key (the opening quote) when want_key and the last step
// is an object member. Returns false when the path does not match the text. Never reads text[len].
bool json_locate(const char *text, size_t len, const int *path, int depth, bool want_key,
                 size_t *offset);

// 1-based line and column of offset. Lines end at "\n", "\r\n" or a lone "\r"; the column counts
// code points (UTF-8 lead bytes), so "é" is one column and a tab is one column.
void json_line_col(const char *text, size_t len, size_t offset, int *line, int *col);

#endif
