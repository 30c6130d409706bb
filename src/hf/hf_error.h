// The one way the real-model readers (safetensors, config.json, tokenizer.json, the forward pass)
// report a problem: a LessonError naming the file and the field or tensor, never an exit or a
// print; and the one way they read a JSON file (hf_error.c).
#ifndef MHA_HF_ERROR_H
#define MHA_HF_ERROR_H

#include <stddef.h>

#include "lesson/lesson.h"

#if defined(__GNUC__) || defined(__clang__)
#define HF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HF_PRINTF(a, b)
// The largest JSON file read (config.json, tokenizer.json, the index): Qwen2's tokenizer.json is
// 7 MB, Llama 3's 9 MB.
#define HF_MAX_JSON_BYTES (256u * 1024u * 1024u)
// The whole file at path, NUL-terminated (free it); NULL with err (path, the reason; err->io) when
// it cannot be read: absent, not a regular file (a folder, a FIFO, a device), unreadable, or more
// than HF_MAX_JSON_BYTES.
char *hf_read_file(const char *path, size_t *len, LessonError *err);
// text (len bytes, from path) as JSON; NULL with err naming path and the line:column of the first
// syntax error.
struct cJSON;
struct cJSON *hf_parse_json(const char *text, size_t len, const char *path, LessonError *err);

#endif

// Fills e: file (a path), field (the JSON key or the tensor's name; NULL: none), the message;
// returns false.
bool hf_fail(LessonError *e, const char *file, const char *field, const char *fmt, ...)
    HF_PRINTF(4, 5);
// The same for an I/O failure (a file absent, unreadable, not a regular file, changed while it
// was read): err->io set, exit status 1.
bool hf_fail_io(LessonError *e, const char *file, const char *field, const char *fmt, ...)
    HF_PRINTF(4, 5);

// The largest JSON file read (config.json, tokenizer.json, the index): Qwen2's tokenizer.json is
// 7 MB, Llama 3's 9 MB.
#define HF_MAX_JSON_BYTES (256u * 1024u * 1024u)
// The whole file at path, NUL-terminated (free it); NULL with err (path, the reason; err->io) when
// it cannot be read: absent, not a regular file (a folder, a FIFO, a device), unreadable, or more
// than HF_MAX_JSON_BYTES.
char *hf_read_file(const char *path, size_t *len, LessonError *err);
// text (len bytes, from path) as JSON; NULL with err naming path and the line:column of the first
// syntax error.
struct cJSON;
struct cJSON *hf_parse_json(const char *text, size_t len, const char *path, LessonError *err);

#endif
