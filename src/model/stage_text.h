// The stage on screen as text (the board's title, formula, explanation and matrices, numbers
// rounded as the board rounds them), for those who cannot see the board: the page's text view (HTML
// tables with token headers), the window's clipboard key and --trace --stage (tab-separated). Built
// from the tables of stages and matrices and the view state, so it follows every step, head,
// reveal, edit and question. No SDL.
#ifndef MHA_STAGE_TEXT_H
#define MHA_STAGE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include "lesson/strbuf.h"
#include "model/view.h"

// What the text is made from: the view (stage, head, sub-step, reveal, question, focused cell), the
// lesson shown (its edits and trained weights included) and its trace.
typedef struct {
    const ViewState *st;
    const Lesson *L;
    const Trace *T;
} StageTextSrc;

// One matrix of the stage: its caption "A₀: attention weights, 3 × 3, head 0 of 2" (the board's
// notation:
// '^' raises what follows it) and its size.
typedef struct {
    MatId mat;
    int head;
    int rows, cols;
    char name[64]; // "A₀"
    char caption[256];
} StageTable;

// The pieces of text, in order; a sink receives each (the HTML and the tab-separated writers are
// two sinks).
typedef enum {
    STAGE_TEXT_TITLE, // "Softmax A = softmax(S′)"
    STAGE_TEXT_FORMULA, // the header's formula, for the stage's head
    STAGE_TEXT_WHERE, // "head 0 (1 of 2) · part 1 of 2 on the board"
    STAGE_TEXT_EXPLAIN, // the board's sentences under the equations
    STAGE_TEXT_PART, // what one row of the board computes, before its matrices: "the queries Q"
    STAGE_TEXT_HIDDEN, // the note that "?" stands for a cell not shown yet (only when one is)
    STAGE_TEXT_CELL_TITLE, // the focused cell: "A₀ [cat, sat] = 0.4683"
    STAGE_TEXT_CELL, // ... and each line of its arithmetic
} StageTextKind;

typedef struct {
    void *ctx;
    void (*text)(void *ctx, StageTextKind kind, const char *text);
    void (*table)(void *ctx, const StageTextSrc *src, const StageTable *t);
} StageTextSink;

// Sends the stage's pieces to the sink, in order: title, formula, where, explanation, then each row
// of the board (its caption, then each of its matrices not yet given), the hidden-cells note, and
// the focused cell.
void stage_text_walk(const StageTextSrc *src, const StageTextSink *sink);
// The table of matrix m of head `head` (its name, caption and size), when the lesson has it; false
// otherwise.
bool stage_text_table(const StageTextSrc *src, MatId m, int head, StageTable *t);
// The label of row (or column) i of t: a token, or a dimension's index.
void stage_text_label(const StageTextSrc *src, const StageTable *t, bool row, int i, char *buf,
                      size_t cap);
// Cell (r, c) of t as the board shows it ("0.6111", "−∞"), or "?" while the reveal or a question
// hides it. Returns false for a hidden cell.
bool stage_text_value(const StageTextSrc *src, const StageTable *t, int r, int c, char *buf,
                      size_t cap);
// Text in the board's notation as plain text: a raised T becomes "ᵀ"; any other raised part keeps
// its '^'
// ("W₀^Q", "10000^(2i/d)"), a convention a screen reader reads out and a spreadsheet keeps.
void stage_text_plain(const char *in, char *out, size_t cap);

// The whole stage as the page's HTML (a fragment: headings, paragraphs and tables with captions and
// <th scope> headers, text escaped; each number cell carries data-mat, data-head, data-row,
// data-col). False when out of memory.
bool stage_text_html(StrBuf *out, const StageTextSrc *src);
// Appends text escaped for HTML; in the board's notation ('^' raises: <sup>) when math.
void stage_text_html_put(StrBuf *b, const char *text, bool math);
// The whole stage as tab-separated text: one line per piece, each matrix a header line of column
// labels then one line per row (its label, its cells), a blank line after it; pastes into a
// spreadsheet.
bool stage_text_tsv(StrBuf *out, const StageTextSrc *src);
// One line saying where the view is: "Softmax, head 1 of 2, part 1 of 2" (for the page's
// announcements).
void stage_text_status(const StageTextSrc *src, char *buf, size_t cap);

// A view of stage s and head `head` of lesson p, whole (no reveal, no question), for --trace
// --stage: false when the lesson has no such stage or head.
bool stage_text_view(ViewState *st, const AttnParams *p, Stage s, int head);

#endif
