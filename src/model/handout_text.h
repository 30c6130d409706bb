// The handout's words, for the PDF (render/export_handout.c) and the page's printed handout
// (web/index.html through the browser's print): its title page as lines and its answer key's
// entries, in the language of the catalogue. No drawing, no cairo.
#ifndef MHA_HANDOUT_TEXT_H
#define MHA_HANDOUT_TEXT_H

#include <stdbool.h>
#include "lesson/lesson.h"
#include "core/trace.h"

#define HANDOUT_LINE_MAX 2048
#define HANDOUT_ARITH_MAX 6

// The title page under the lesson's title: its tokens, its source tokens (cross-attention; else
// ""), its shapes, how many stages of which head and how many questions.
typedef enum {
    HANDOUT_TITLE_TOKENS,
    HANDOUT_TITLE_SOURCE,
    HANDOUT_TITLE_SHAPES,
    HANDOUT_TITLE_COUNTS,
    HANDOUT_TITLE_LINES
} HandoutTitleLine;
void handout_title_lines(const Lesson *L, int stages, int head,
                         char lines[HANDOUT_TITLE_LINES][HANDOUT_LINE_MAX]);

// The answer key's entry of the k-th question asked (from 0): its heading ("Question 2 of 3 (stage
// softmax, head 1)"), the question, the answer from the trace as --questions says it (or why there
// is none: answered false) and the arithmetic of the answer's cell, plain text.
typedef struct {
    char heading[300];
    const char *question;
    bool answered;
    char answer[1400];
    char arithmetic[HANDOUT_ARITH_MAX][256];
    int arithmetic_count;
} HandoutKeyEntry;
void handout_key_entry(const Lesson *L, const Trace *T, int k, HandoutKeyEntry *e);

#endif
