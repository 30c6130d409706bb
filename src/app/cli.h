// The command line's printing: a trace as aligned text (--trace), as JSON (--json), and the
// single-head comparison (--compare).
#ifndef MHA_CLI_H
#define MHA_CLI_H

#include <stdio.h>
#include "core/compare.h"
#include "lesson/lesson.h"

// What the command line adds to a trace: the tokens' reordering (--shuffle) and how the output
// changed.
typedef struct {
    const int *shuffle; // NULL, or the permutation the lesson was shuffled with (lesson_shuffle)
    double shuffle_difference; // trace_shuffle_difference against the unshuffled lesson
    bool shuffle_same; // trace_shuffle_same: the rows only moved
    Matrix shuffle_original; // (n, d_model) the unshuffled lesson's output, row i its row perm[i]
                             // (the caller's)
    int tiles; // > 0: --tiles B: head_json (cli_json_tiles) adds each head's "tiles" to --json
    // More of a head's object in --json, after its matrices (NULL: none): writes `"key": value`
    // without a comma.
    void (*head_json)(FILE *out, const Lesson *l, const Trace *t, int h, int tiles);
    // More top-level keys after "source_tokens" (NULL: none): writes `"key": value,` lines
    // (--model's "token_ids" and "next_token"), with top_ctx.
    void (*top_json)(FILE *out, const void *top_ctx);
    const void *top_ctx;
} CliExtra;

// Every stage of every head, then concat and output, rounded to 4 decimals and labelled with
// tokens, then the cost section (cli_print_cost).
void cli_print_trace(FILE *out, const Lesson *l, const Trace *t);
// ... with the shuffle's section at the end (x may be NULL: cli_print_trace).
void cli_print_trace_ex(FILE *out, const Lesson *l, const Trace *t, const CliExtra *x);
// "==== Cost ====" and the document's rows for h = 1 (d_k = heads·d_k) and h = the lesson's heads.
void cli_print_cost(FILE *out, const AttnParams *p);
// The single head's attention pattern next to the h heads' patterns, both outputs and the cost
// rows. t is the lesson's (multi-head) trace, c its comparison (compare_run).
void cli_print_compare(FILE *out, const Lesson *l, const Trace *t, const Comparison *c);
// Largest |the single head's score - the sum of the heads' scores| (before scaling and the mask);
// *big the largest |score| of the heads (at least 1). --compare calls a gap of 1e-9 * big rounding.
double cli_compare_score_gap(const Trace *t, const Comparison *c, double *big);
// The lines under --compare's header for a lesson of several heads (cli_compare.c): what the single
// head is, RoPE, the K/V heads, the mask, the scores' sum with its measured gap, the switched-off
// heads and the cost.
void cli_print_compare_claims(FILE *out, const AttnParams *p, const Trace *t, const Comparison *c);
// The whole trace as one JSON object, numbers with 17 significant digits; masked scores are null.
void cli_print_json(FILE *out, const Lesson *l, const Trace *t);
// --questions: one block per question of the lesson: its number, stage and head, the question, how
// the class answers, the answer computed from the trace and whether the lesson states it. Errors (a
// question that does not fit the lesson, a wrong stated answer) go to err as "FILE:LINE:COL: error:
// ..." lines. Returns the number of such errors.
int cli_print_questions(FILE *out, FILE *err, const Lesson *l, const Trace *t,
                        const char *filename);
// ... with "shuffle" and "shuffle_largest_difference" (x may be NULL: cli_print_json). Lessons with
// positions, "scale" or ablated heads add "token_embeddings", "positions" (and the source's),
// "scale", "ablated".
void cli_print_json_ex(FILE *out, const Lesson *l, const Trace *t, const CliExtra *x);
// --grad (cli_grad.c): {"loss": L, "grad": {"embeddings", ["source_embeddings",] "W_Q", "W_K",
// "W_V", "b_Q", "b_K", "b_V", "W_O", "b_O"}} with 17 significant digits; g as attn_backward fills
// it (X: dL/dE, S: dL/dE_S).
void cli_print_grad(FILE *out, double loss, const AttnParams *g);
// May cli_print_grad print loss and g? false when a number is infinite or not a number, with why
// (cap bytes) naming the first such key (e.g. "grad.W_Q[0][1][2]") and the largest of targets (n,
// d_model).
bool cli_grad_check(double loss, const AttnParams *g, const Matrix *targets, char *why, size_t cap);
// --json --decode: the lesson generated token by token with a KV cache, one object per step with
// what the step adds (see cli_decode.c and docs/decode-and-tiles.md); streamed, so the memory is
// the caches'.
// False, before a byte is printed, with why (cap bytes) when the output would pass the limit --json
// keeps (*usage true: exit 2) or memory ran out (*usage false).
bool cli_print_decode(FILE *out, const Lesson *l, char *why, size_t cap, bool *usage);
// How many numbers --json --decode prints for p (at most LESSON_MAX_TRACE_VALUES, or it refuses).
double cli_decode_values(const AttnParams *p);
// May --json --tiles `block` print? false with why: the output would pass the limit --json keeps
// (naming a block that fits), or a running sum of the tiles overflows (naming the cell); *usage
// false: no memory.
bool cli_tiles_check(const Lesson *l, const Trace *t, int block, char *why, size_t cap,
                     bool *usage);
// --json --tiles B: head h's "tiles" object (FlashAttention's online softmax in blocks of B) inside
// its object (after cli_tiles_check).
void cli_json_tiles(FILE *out, const Lesson *l, const Trace *t, int h, int block);
// A number in every JSON the command line prints, onto a stream: %.17g, and null for what is not
// finite (masked scores, -inf; the printers check first that nothing else is): the lesson's
// writer's (strbuf_json_number_text).
void cli_json_number(FILE *out, double v);
// The JSON writers cli.c uses, for cli_decode.c: a string, a row of numbers, "key": [[rows]] (last:
// no comma).
void cli_json_string(FILE *out, const char *s);
void cli_json_row(FILE *out, const double *row, int count);
void cli_json_matrix(FILE *out, const char *key, const Matrix *m, const char *indent, bool last);
// "  \"KEY\": [\"a\", \"b\"],\n": a list of strings (tokens, words) on one line.
void cli_json_tokens(FILE *out, const char *key, char *const *tokens, int count);
// A --json's opening: {, "title" and "notes" (null when it has none), each line ending in a comma.
void cli_json_title_notes(FILE *out, const Lesson *l);
// A matrix in --grad's compact form, on one line: [[...], [...]].
void cli_json_matrix_compact(FILE *out, const Matrix *m);
// --trace --stage: stage `stage` (a Stage; -1: every stage of the lesson) of head `head` as the
// board shows it, tab-separated (stage_text_tsv). Returns how many stages it printed (0: the lesson
// has no such stage), -1 when the head is out of range or memory ran out.
int cli_print_stage(FILE *out, const Lesson *l, const Trace *t, int stage, int head);
// printf for one line of human-readable text (fmt ends with "\n"): control characters in the result
// (C0, DEL, C1, a newline inside, bytes that are not UTF-8) are printed escaped, as \x1b or \u009b.
void cli_line(FILE *out, const char *fmt, ...);
// Flushes standard output: EXIT_OK, or EXIT_IO after saying it could not be written (a full disk, a
// closed pipe).
int cli_finish_stdout(void);

#endif
