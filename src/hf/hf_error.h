// The one way the real-model readers (safetensors, config.json, tokenizer.json, the forward pass)
// report a problem: a LessonError naming the file and the field or tensor, never an exit or a
// print.
#ifndef MHA_HF_ERROR_H
#define MHA_HF_ERROR_H

#include "lesson/lesson.h"

#if defined(__GNUC__) || defined(__clang__)
#define HF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HF_PRINTF(a, b)
#endif

// Fills e: file (a path), field (the JSON key or the tensor's name; NULL: none), the message;
// returns false.
bool hf_fail(LessonError *e, const char *file, const char *field, const char *fmt, ...)
    HF_PRINTF(4, 5);
// The same for an I/O failure (a file absent, unreadable, not a regular file, changed while it
// was read): err->io set, exit status 1.
bool hf_fail_io(LessonError *e, const char *file, const char *field, const char *fmt, ...)
    HF_PRINTF(4, 5);

#endif
