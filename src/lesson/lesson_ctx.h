// Private to src/lesson: the validation context (the text, the error or report, the JSON path of
// the value being read), the lesson as built so far, and the readers the lesson's rooms share. Not
// for other layers.
#ifndef MHA_LESSON_CTX_H
#define MHA_LESSON_CTX_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lesson/lesson.h"
#include "lesson/lesson_fields.h"

#if defined(__GNUC__)
#define LESSON_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define LESSON_PRINTF(f, a)
// lesson_circuit.c: a lesson of layers over a vocabulary (root has "vocabulary"), into b: its
// circuit, and b->l.params as layer 0 on the lesson's tokens.
bool lesson_build_circuit(Ctx *c, const cJSON *root, Build *b);

#endif

#define MAX_PATH 12

typedef struct {
    const char *key; // object member name, or NULL for an array element
    int index; // member position in its object (for json_locate) or array index
} PathSeg;

typedef struct {
    const char *text;
    size_t len;
    LessonError *err;
    PathSeg path[MAX_PATH];
    int depth;
    LessonReport
        *rep; // NULL: stop at the first error (lesson_parse); else go on and collect them all
    bool emb_seeded[2]; // the embeddings (0) and the source's (1) were drawn {"random": {"seed":
                        // ...}}
    uint64_t emb_seed[2]; // and with that seed
    bool pytorch_unconfirmed; // PyTorch weights without "num_heads"
} Ctx;

// What is built so far; freed as a whole on failure.
typedef struct {
    // The lesson's parts built so far (its params allocated once the sizes are known), moved into
    // the Lesson as one when all is read; the reader adds the text and the repeats.
    Lesson l;
    int n, m;
    Matrix X, S;
    AttnConfig cfg; // the settings as read (lesson_fields.c), copied into l.params once allocated
    uint64_t fields_bad; // bit i: row i of the field table was given and is wrong
} Build;

static inline const char *plural(int n) { return n == 1 ? "" : "s"; }

// --- the path (lesson_ctx.c): a member's key and its position in its object, or an array index ---
void lesson_push_key(Ctx *c, const char *key, int member);
void lesson_push_index(Ctx *c, int i);
void lesson_pop(Ctx *c);
// The member key of obj when it is there, with its key pushed (lesson_pop it once read); NULL when
// absent.
const cJSON *lesson_enter(Ctx *c, const cJSON *obj, const char *key);
// The same for a member that must be there: NULL after failing with "missing required key" when it
// is not.
const cJSON *lesson_need(Ctx *c, const cJSON *obj, const char *key);
// The same, the message saying what the key is for in parentheses after it (hint NULL: nothing).
const cJSON *lesson_need_hint(Ctx *c, const cJSON *obj, const char *key, const char *hint);

// --- problems at the current path: each returns false (a warning only goes into a report) ---
bool lesson_fail(Ctx *c, const char *fmt, ...) LESSON_PRINTF(2, 3);
// At the key of the last member, whose name then is left out of the path because the message names
// it.
bool lesson_fail_key(Ctx *c, const char *fmt, ...) LESSON_PRINTF(2, 3);
// At a member of the top-level object (key NULL: the object itself), from anywhere below it.
bool lesson_fail_top(Ctx *c, const char *key, int member, const char *fmt, ...) LESSON_PRINTF(4, 5);
void lesson_warn(Ctx *c, const char *fmt, ...) LESSON_PRINTF(2, 3);

// --- text for messages ---
// vsnprintf at buf + *used, *used advanced (at most to cap).
void lesson_append(char *buf, size_t cap, size_t *used, const char *fmt, ...) LESSON_PRINTF(4, 5);
const char *lesson_type_name(const cJSON *v); // "a string", "an array", ...
const char *lesson_fmt_num(double x, char *buf, size_t cap);
char *lesson_dup_string(const char *s, size_t n);
void lesson_free_strings(char **s, int n);

// --- typed readers of the value v at the current path ---
const cJSON *lesson_member(const cJSON *obj, const char *key, int *index);
bool lesson_check_keys(Ctx *c, const cJSON *obj, const char *const *allowed, const char *expected);
bool lesson_get_number(Ctx *c, const cJSON *v, double *out);
bool lesson_get_int(Ctx *c, const cJSON *v, int min, int max, int *out);
bool lesson_get_seed(Ctx *c, const cJSON *v, uint64_t *out);
bool lesson_get_std(Ctx *c, const cJSON *v, double *out);
bool lesson_get_string(Ctx *c, const cJSON *v, const char **out);
// Optional members of obj read as lesson_get_int / _seed / _std read them; *out is left as it is
// when absent.
bool lesson_optional_int(Ctx *c, const cJSON *obj, const char *key, int min, int max, int *out);
bool lesson_optional_seed(Ctx *c, const cJSON *obj, const char *key, uint64_t *out);
bool lesson_optional_std(Ctx *c, const cJSON *obj, const char *key, double *out);
bool lesson_read_vector(Ctx *c, const cJSON *v, double *dst, int count, const char *what);
bool lesson_read_matrix(Ctx *c, const cJSON *v, Matrix *m, const char *rows_what,
                        const char *cols_what);

// --- the lesson's parts, each in its room ---
// lesson_tokens.c: "tokens", or "sentence" split as "split" says, of obj (the top level or
// "source").
bool lesson_read_tokens(Ctx *c, const cJSON *obj, char ***out, int *count);
// lesson_matrices.c: the embeddings, the weights (random, explicit, PyTorch) and the positions.
bool lesson_read_embeddings(Ctx *c, const cJSON *v, int rows, const char *rows_what, int *d_model,
                            int d_model_member, Matrix *out);
bool lesson_read_weights(Ctx *c, const cJSON *w, AttnParams *p);
bool lesson_read_positions(Ctx *c, const cJSON *root, const cJSON *source, int source_member,
                           AttnParams *p);
bool lesson_embeddings_seed(const cJSON *v, uint64_t *seed);
// lesson_questions.c: "questions" (heads < 1: not known yet, not checked).
bool lesson_read_questions(Ctx *c, const cJSON *root, int heads, LessonQuestion **out, int *count);
void lesson_free_questions(LessonQuestion *qs, int n);
// lesson_fields.c: the lesson-field table. Reads the rows of one part from root into b->cfg (and
// b->language), each at its key, in the table's order: lesson_parse stops at the first error, a
// report goes on with the next row. lesson_field_ok: row name was absent or read well.
bool lesson_fields_read(Ctx *c, const cJSON *root, Build *b, LessonFieldPart part);
bool lesson_field_ok(const Build *b, const char *name);
// Appends to keys[0..count) (cap entries with the NULL that ends them) the rows not there, and ",
// name" for each to expected: the top level's keys. Returns the new count.
int lesson_fields_keys(const char **keys, int count, int cap, char *expected, size_t expected_cap);
// lesson_modern.c: the readers of the rows "rope", "kv_heads" (reads b->cfg.heads: 0 when unknown)
// and "window" (needs the causal mask), and the check that d_k is even with RoPE (at "rope", its
// place member).
typedef struct LessonField LessonField;
bool lesson_read_rope(Ctx *c, const cJSON *v, Build *b, const LessonField *f);
bool lesson_read_kv_heads(Ctx *c, const cJSON *v, Build *b, const LessonField *f);
bool lesson_read_window(Ctx *c, const cJSON *v, Build *b, const LessonField *f);
bool lesson_check_rope_d_k(Ctx *c, RopeKind rope, int member, int d_k);
// lesson_train.c: the "train" section t.
bool lesson_read_train(Ctx *c, const cJSON *t, Build *b);

// lesson_circuit.c: a lesson of layers over a vocabulary (root has "vocabulary"), into b: its
// circuit, and b->l.params as layer 0 on the lesson's tokens.
bool lesson_build_circuit(Ctx *c, const cJSON *root, Build *b);

#endif
