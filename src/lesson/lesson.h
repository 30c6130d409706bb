// Lesson format 1: a JSON lesson file -> a validated Lesson (tokens + AttnParams), or a positioned
// error. Parses from memory; lesson_load adds the file I/O. No SDL here.
#ifndef MHA_LESSON_H
#define MHA_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/trace.h"
#include "core/train.h"
#include "core/circuit_train.h"

#define LESSON_MAX_TOKENS 512
#define LESSON_MAX_D_MODEL 4096
#define LESSON_MAX_HEADS 64
#define LESSON_MAX_D_K 4096
#define LESSON_MAX_WINDOW (1 << 30)
// Memory is bounded by the sizes, checked before anything is allocated:
// - W_Q, W_K, W_V and W_O together hold 4 * heads * d_model * d_k numbers: at most 8 Mi (64 MiB;
// e.g. d_model
//   1024 with heads * d_k = 2048, or d_model 2048 with 16 heads of 64), so a two-line random lesson
//   cannot ask for 24 GiB;
// - the trace keeps trace_values(n, m, d_model, heads, d_k, rope) numbers (per head Q, K, V, the
// scores, scaled
//   scores, weights and Z, with RoPE the rotated and the shifted Q and K and the shifted scores;
//   the concat and the output): at most 12 Mi (96 MiB; e.g. 512 tokens with BERT-base's 12 heads of
//   64);
// - the embeddings X and S: (n + m) * d_model <= 1024 * 4096 numbers (32 MiB);
// - the file: 64 MiB, and its JSON tree at most JSON_MAX_VALUES values (3 M: 240 MB).
// The window at its worst holds the file's numbers, the edited copy and the single-head
// comparison's (3 * 96 MiB), two traces (192 MiB), and while the same lesson reloads its text and
// tree then a third trace and a new copy: 288 + 192 + max(64 + 240 + 96, 192 + 96) = 880 MiB, under
// 1 GB with SDL and fonts. What the program writes (a save, --train --out) is refused when it would
// exceed the file's two limits.
#define LESSON_MAX_WEIGHT_VALUES (8.0 * 1024.0 * 1024.0)
#define LESSON_MAX_TRACE_VALUES (12.0 * 1024.0 * 1024.0)
#define LESSON_MAX_FILE_BYTES (64u * 1024u * 1024u)
#define LESSON_MAX_FILE_VALUES 3000000 // JSON values in one file: json_locate.h's JSON_MAX_VALUES
#define LESSON_MAX_SEED 9007199254740991.0 // 2^53 - 1

typedef struct {
    bool io; // true for I/O failures (missing file, a directory, unreadable): exit status 1
    char file[512]; // as given by the caller ("<built-in>" for the embedded lesson); when longer,
                    // "…" and its end (lesson_error_set_file), so the file's name is always there
    int line, col; // 1-based; 0 when unknown
    char path[256]; // JSON field path, e.g. "weights.W_Q[1][3]"; "" for syntax errors
    char message[512]; // what was expected and what was found
    bool warning; // lesson_load_report: a warning, which does not make the lesson invalid
} LessonError;

// Predict-then-reveal questions ("questions": [...]). The lesson reads and checks their form;
// whether a stated answer is right is the model's business (model/questions.c), which needs the
// trace.
typedef enum { ANSWER_CELL = 0, ANSWER_VALUE, ANSWER_CHOICE, ANSWER_KIND_COUNT } AnswerKind;
#define LESSON_MAX_QUESTIONS 64
#define LESSON_MAX_CHOICES 9 // keys 1..9 pick them in the window

typedef struct {
    char *stage; // the stage's key as written ("softmax"); the model checks the lesson has it
    int head; // 0-based; 0 when not given
    char *text; // the question (UTF-8, any language)
    AnswerKind kind;
    char *matrix; // a matrix key ("weights"); NULL: the stage's first result
    int row, col; // "cell": the stated answer; "value", "choice": the cell asked about
    bool among_column; // "cell": the largest (smallest) of the cell's column instead of its row
    bool among_matrix; // "cell": ... of the whole matrix
    bool pick_min; // "cell": the smallest instead of the largest
    double value, tolerance; // "value": right when |trace - value| <= tolerance
    double
        choices[LESSON_MAX_CHOICES]; // "choice": the right one is the nearest to the cell's value
    int choice_count, correct; // correct: 0-based index into choices
    unsigned broken; // only in a report (lesson_parse_report): the LESSON_QUESTION_BROKEN_* fields
                     // found wrong
} LessonQuestion;
#define LESSON_QUESTION_BROKEN_STAGE 1u
#define LESSON_QUESTION_BROKEN_HEAD 2u
#define LESSON_QUESTION_BROKEN_TEXT 4u
#define LESSON_QUESTION_BROKEN_ANSWER 8u

// A lesson of layers over a vocabulary ("vocabulary", "token_embeddings", "unembedding", "weights"
// a list or "layers"): the stack that --json, --grad and --train compute (core/circuit.h). The
// Lesson's params then hold layer 0 on the lesson's tokens (X = E[tokens] + P), for what shows
// one layer.
typedef struct LessonCircuit {
    char **vocabulary; // [vocab]
    int vocab;
    int *ids; // [params.n] the tokens as indices into the vocabulary
    Circuit model; // the layers, E (vocab, d_model), P (n_ctx, d_model), U (d_model, vocab)
    PositionKind positions; // POS_EXPLICIT: learned (trained, written); else fixed (sinusoidal or
                            // none)
    bool trains; // a "train" section: the induction task
    CircuitTrainSpec train;
} LessonCircuit;

typedef struct {
    char *title;
    char *notes; // NULL when absent
    char *language; // "language": the class's language code ("es", "zh-Hans"); NULL when absent
    char **tokens; // [params.n] query tokens
    char **source_tokens; // [params.m]; for self-attention a copy of tokens
    // [params.n], [params.m]: 1 where the token occurs again among its tokens (its label gets a
    // subscript), found once when the lesson is made (a label looked up per frame compared all 512
    // tokens: 70% of a frame's time); NULL: not known (model_axis_label then compares).
    unsigned char *repeats, *source_repeats;
    AttnParams params;
    LessonQuestion *questions; // [question_count]; NULL when the lesson has none
    int question_count;
    Matrix targets; // (n, d_model) "targets": what the output should be (--grad's loss); empty when
                    // absent
    bool trains; // true when the lesson has a "train" section (then train holds its settings)
    TrainSpec train;
    LessonCircuit *circuit; // NULL for a lesson of one layer (format 1 as it always was)
    // The original text, kept so edits can be saved beside it (owned; NUL-terminated).
    char *text;
    size_t text_len;
} Lesson;

// Parses and validates a lesson from memory. filename is used only in errors.
// On success fills *out (free with lesson_free); on failure fills *err and leaves *out empty.
bool lesson_parse(Lesson *out, const char *text, size_t len, const char *filename,
                  LessonError *err);
// Reads path (at most LESSON_MAX_FILE_BYTES) then lesson_parse. I/O problems set err->io.
bool lesson_load(Lesson *out, const char *path, LessonError *err);
// The built-in lesson ("The cat sat", the same bytes as lessons/the-cat-sat.json).
bool lesson_load_builtin(Lesson *out, LessonError *err);
void lesson_free(Lesson *l);
// out = l with its tokens reordered: token i of out is token perm[i] of l (perm a permutation of
// 0..n-1), its embeddings with it, the positions staying where they are (params_shuffle); for
// self-attention the source tokens likewise. out has no text. Free with lesson_free. False when out
// of memory.
bool lesson_shuffle(Lesson *out, const Lesson *l, const int *perm);

// The training vocabulary of a lesson: its distinct tokens in order of first appearance (vocab, V
// rows of d_model: each one's token embedding E, without positions) and ids (n), the lesson's
// tokens as indices into it. Allocates vocab (free with mat_free). False when out of memory.
bool lesson_train_vocabulary(const Lesson *l, Matrix *vocab, int *ids);
// targets (n, d_model, allocated here; free with mat_free) = the lesson's "targets", or else the
// task's targets for the lesson's own tokens when it has a "train" section. False (and empty) when
// it has neither or memory ran out (*missing tells which).
bool lesson_targets(const Lesson *l, Matrix *targets, bool *missing);

// Everything --check says about a file: its errors and warnings, in the order found.
#define LESSON_REPORT_MAX 100 // items kept; more are only counted
typedef struct {
    LessonError *items; // [count], each with .warning set or not
    int count;
    int errors, warnings; // found, including those beyond LESSON_REPORT_MAX
} LessonReport;
void lesson_report_free(LessonReport *r);
// Counts e (an error or a warning) and keeps a copy while fewer than LESSON_REPORT_MAX are kept.
void lesson_report_add(LessonReport *r, const LessonError *e);

// Like lesson_parse, but after an error goes on with every part of the lesson that can still be
// checked on its own (the other top-level keys; the other rows, heads and matrices), so that one
// run names every independent mistake with its line:column and field; a value that depends on a
// broken one (the embeddings when the tokens are broken, the weights when heads is) is not checked.
// The first error is the one lesson_parse gives. Also adds warnings, which leave the lesson valid:
// the weights seeded like the embeddings; PyTorch weights without "num_heads" to confirm "heads".
// Fills *out (free it with lesson_free) and returns true when the lesson could be built: with no
// error, or with errors only in its questions' form (rep->errors > 0; each such question's wrong
// fields in .broken, so that --check still checks the rest of it against the trace:
// questions_check). *rep is filled either way: free it with lesson_report_free.
bool lesson_parse_report(Lesson *out, const char *text, size_t len, const char *filename,
                         LessonReport *rep);
// lesson_load's file reading, then lesson_parse_report. An I/O failure is the report's one error
// (.io).
bool lesson_load_report(Lesson *out, const char *path, LessonReport *rep);
// Does path hold a JSON Schema (valid JSON: an object whose "$schema" names a json-schema.org
// dialect, as lessons/lesson.schema.json does), which is no lesson? false otherwise: then rep holds
// the file's I/O or syntax error when it has one, or nothing (valid JSON of another kind: a lesson
// to check). *rep is filled either way: free it with lesson_report_free.
bool lesson_load_schema(const char *path, LessonReport *rep);

// Frees a circuit and what it owns (lesson_free calls it).
void lesson_circuit_free(LessonCircuit *c);

// The answer kinds' names as written in a lesson ("cell", "value", "choice").
const char *lesson_answer_kind_name(AnswerKind k);
// Frees what one question owns (the lesson frees its own; this is for questions made elsewhere).
void lesson_question_free(LessonQuestion *q);
// Positions an error at a field of the lesson's text: path like "questions[2].answer.cell" (member
// names and array indices). Sets e->path to path and e->line, e->col (0 when the text has no such
// field).
void lesson_locate(const Lesson *l, const char *path, LessonError *e);
// The same at the field's key ("weights" -> the line:column of its "weights": key).
void lesson_locate_key(const Lesson *l, const char *path, LessonError *e);
// A key, token or value for a message: at most 60 bytes, cut at a character boundary and marked
// "...", control characters as '?'. Returns buf.
const char *lesson_show_key(const char *key, char *buf, size_t cap);

// Sets err->file to path (NULL: ""), or to "…" and the end of path when it does not fit.
void lesson_error_set_file(LessonError *err, const char *path);

// "FILE:LINE:COL: error: PATH: MESSAGE" (line:col and path left out when unknown; "warning:" for a
// warning). Returns buf.
const char *lesson_error_format(const LessonError *err, char *buf, size_t cap);

extern const char lesson_builtin_text[];
extern const size_t lesson_builtin_len;

#endif
