// Lesson format 1: JSON text -> a validated Lesson (tokens + AttnParams), or the first problem with
// its file, line:column (code points), JSON path and a message: the top level (which part is read
// when), the file's reading, free, shuffle and the error line. Each part is read in its room
// (lesson_ctx.h lists them).
#include "lesson/lesson.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/json_locate.h"
#include "lesson/lesson_ctx.h"
#include "platform/platform.h"

// --- the whole lesson ---

static void build_free(Build *b)
{
    free(b->l.title);
    free(b->l.notes);
    free(b->l.language);
    lesson_free_strings(b->l.tokens, b->n);
    lesson_free_strings(b->l.source_tokens, b->m);
    mat_free(&b->X);
    mat_free(&b->S);
    params_free(&b->l.params);
    lesson_free_questions(b->l.questions, b->l.question_count);
    mat_free(&b->l.targets);
    lesson_circuit_free(b->l.circuit);
    memset(b, 0, sizeof *b);
}

// A whole number from 1 to max at key (left as it is when absent); *member_index its place (-1:
// absent).
static bool optional_int(Ctx *c, const cJSON *root, const char *key, int max, int *out,
                         int *member_index)
{
    lesson_member(root, key, member_index);
    return lesson_optional_int(c, root, key, 1, max, out);
}

// A string member of root: out NULL only checks it is a string; required names a missing one.
static bool read_string_member(Ctx *c, const cJSON *root, const char *key, bool required,
                               char **out)
{
    int k;
    const char *str = NULL;
    const cJSON *v = lesson_member(root, key, &k);
    if (!v) return required ? lesson_fail(c, "missing required key \"%s\"", key) : true;
    lesson_push_key(c, key, k);
    if (!lesson_get_string(c, v, &str)) return false;
    if (out && !(*out = lesson_dup_string(str, strlen(str))))
        return lesson_fail(c, "out of memory");
    lesson_pop(c);
    return true;
}

// "source": its tokens, and its embeddings when d_model is known (d_model < 0: skipped, already
// reported).
static bool read_source(Ctx *c, const cJSON *source, int source_member, int d_model, Build *b)
{
    static const char *const source_keys[] = {"tokens",     "sentence",  "split",
                                              "embeddings", "positions", NULL};
    lesson_push_key(c, "source", source_member);
    if (!cJSON_IsObject(source))
        return lesson_fail(
            c, "expected an object {\"tokens\" or \"sentence\", \"embeddings\"}, got %s",
            lesson_type_name(source));
    int d0 = c->depth;
    bool ok =
        lesson_check_keys(c, source, source_keys, "tokens, sentence, split, embeddings, positions");
    if (!ok && !c->rep) return false;
    c->depth = d0;
    if (!lesson_read_tokens(c, source, &b->l.source_tokens, &b->m)) return false;
    int k;
    const cJSON *v = lesson_member(source, "embeddings", &k);
    if (!v) return lesson_fail(c, "missing required key \"embeddings\"");
    if (d_model < 0) return false;
    lesson_push_key(c, "embeddings", k);
    if (!lesson_read_embeddings(c, v, b->m, "one per source token", &d_model, -1, &b->S))
        return false;
    c->emb_seeded[1] = lesson_embeddings_seed(v, &c->emb_seed[1]);
    lesson_pop(c);
    lesson_pop(c);
    return ok;
}

// The top level's keys, in the order "unknown key" lists them, then the field table's other rows:
// keys (NULL ended, at least TOP_KEYS + 64 entries) and the same as text for the message
// (expected).
#define TOP_KEYS 22
static void top_level_keys(const char **keys, char *expected, size_t cap)
{
    static const char *const top_keys[TOP_KEYS] = {
        "$schema", "title",      "notes",     "language", "tokens", "sentence",
        "split",   "embeddings", "d_model",   "heads",    "d_k",    "mask",
        "source",  "weights",    "positions", "scale",    "rope",   "kv_heads",
        "window",  "targets",    "train",     "questions"};
    memcpy(keys, top_keys, sizeof top_keys);
    snprintf(expected, cap,
             "$schema, title, notes, language, tokens, sentence, split, embeddings, d_model, "
             "heads, d_k, "
             "mask, source, weights, positions, scale, rope, kv_heads, window, targets, train, "
             "questions");
    lesson_fields_keys(keys, TOP_KEYS, TOP_KEYS + 64, expected, cap);
}

// d_k not given: d_model / heads, which heads must divide (the error at "heads").
static bool derive_d_k(Ctx *c, Build *b, int d_model, int heads_member)
{
    int heads = b->cfg.heads;
    if (d_model % heads != 0)
        return lesson_fail_top(c, "heads", heads_member,
                               "%d does not divide d_model (%d); change heads or give d_k", heads,
                               d_model);
    b->cfg.d_k = d_model / heads;
    return true;
}

// RoPE's even d_k, then the weights' size (4 * heads * d_k * d_model numbers at most
// LESSON_MAX_WEIGHT_VALUES).
static bool check_shape(Ctx *c, const Build *b, int d_model, int rope_member)
{
    int heads = b->cfg.heads, d_k = b->cfg.d_k;
    if (!lesson_check_rope_d_k(c, b->cfg.rope, rope_member, d_k)) return false;
    double weight_values = 4.0 * heads * (double)d_k * d_model;
    if (weight_values > LESSON_MAX_WEIGHT_VALUES)
        return lesson_fail(
            c,
            "the weights would hold %.0f numbers (4 * heads * d_k * d_model = 4 * %d * %d * %d); "
            "the limit is %.0f",
            weight_values, heads, d_k, d_model, LESSON_MAX_WEIGHT_VALUES);
    return true;
}

// The trace's size, known from the sizes alone: refused before the weights are even allocated (at
// "heads").
static bool check_trace_size(Ctx *c, const Build *b, int d_model, int heads_member)
{
    int heads = b->cfg.heads, d_k = b->cfg.d_k;
    bool rope_on = b->cfg.rope
                   != ROPE_NONE; // then the rotated and the shifted Q and K, and the shifted scores
    double values = trace_values(b->n, b->m, d_model, heads, d_k, rope_on);
    if (values <= LESSON_MAX_TRACE_VALUES) return true;
    return lesson_fail_top(
        c, "heads", heads_member,
        "the trace would hold %.0f numbers (heads * (%s*n*m + %s*(n + m)*d_k) + "
        "n*heads*d_k + n*d_model with n = %d, m = %d, heads = %d, d_k = %d, d_model = %d%s); "
        "the limit is %.0f: use fewer tokens or heads, or a smaller d_k",
        values, rope_on ? "4" : "3", rope_on ? "4" : "2", b->n, b->m, heads, d_k, d_model,
        rope_on ? "; with RoPE Q and K are kept rotated and shifted too" : "",
        LESSON_MAX_TRACE_VALUES);
}

// Self-attention: the keys and values come from the tokens themselves (copies). false when out of
// memory.
static bool self_source(Build *b)
{
    b->m = b->n;
    if (!(b->l.source_tokens = calloc((size_t)b->m, sizeof *b->l.source_tokens))
        || !mat_copy(&b->S, &b->X))
        return false;
    for (int i = 0; i < b->m; i++)
        if (!(b->l.source_tokens[i] = lesson_dup_string(b->l.tokens[i], strlen(b->l.tokens[i]))))
            return false;
    return true;
}

static void warn_pytorch_heads(Ctx *c, int heads, int heads_member)
{
    c->depth = 0;
    lesson_push_key(c, "heads", heads_member);
    lesson_warn(
        c,
        "PyTorch weights cannot confirm these %d head%s: a state_dict does not record num_heads. "
        "\"heads\" "
        "must be the layer's num_heads (nn.MultiheadAttention(embed_dim, num_heads)); any other "
        "divisor of "
        "d_model loads as well but splits in_proj_weight into other heads and gives other "
        "attention. Add "
        "\"num_heads\": the layer's own (layer.num_heads, which need not be %d) to \"pytorch\" to "
        "confirm it",
        heads, plural(heads), heads);
    lesson_pop(c);
}

// The lesson's matrices once their shapes are known: the weights (w, the member at k), and for a
// whole lesson (whole: its tokens and embeddings read; else a one-token stand-in) its positions,
// targets and "train".
static bool read_matrices(Ctx *c, const cJSON *root, const cJSON *w, int k, Build *b, bool whole,
                          int d_model, int source_member)
{
    const cJSON *v, *source = whole ? lesson_member(root, "source", &source_member) : NULL;
    if (!params_init_grouped(&b->l.params, whole ? b->n : 1, whole ? b->m : 1, d_model,
                             b->cfg.heads, b->cfg.kv_heads, b->cfg.d_k))
        return lesson_fail(c, "out of memory");
    b->l.params.cfg = b->cfg;
    if (whole) { // the embeddings move into the params (same shapes)
        mat_free(&b->l.params.X);
        mat_free(&b->l.params.S);
        b->l.params.X = b->X;
        b->l.params.S = b->S;
        memset(&b->X, 0, sizeof b->X);
        memset(&b->S, 0, sizeof b->S);
    }
    lesson_push_key(c, "weights", k);
    if (!lesson_read_weights(c, w, &b->l.params)) return false;
    lesson_pop(c);
    if (whole && !lesson_read_positions(c, root, source, source_member, &b->l.params)) return false;
    if (whole && (v = lesson_member(root, "targets", &k))) {
        lesson_push_key(c, "targets", k);
        if (!mat_init(&b->l.targets, b->n, d_model)) return lesson_fail(c, "out of memory");
        if (!lesson_read_matrix(c, v, &b->l.targets, "one per token", "d_model")) return false;
        lesson_pop(c);
    }
    if (whole && (v = lesson_member(root, "train", &k))) {
        lesson_push_key(c, "train", k);
        if (!lesson_read_train(c, v, b)) return false;
        lesson_pop(c);
    }
    return true;
}

// What build_lesson knows so far: how its steps went, which parts read well, the shapes and the
// members' places.
typedef struct {
    Ctx *c;
    bool all, ok,
        stop; // all: a report, that goes on past a failed step; ok: none failed; stop: return
    bool tokens_ok, d_model_ok, heads_ok, d_k_ok, kv_ok, embeddings_ok, shape_ok, source_ok;
    int d_model, d_model_member, heads_member, rope_member, source_member;
    int heads, d_k; // the settings as read, before d_k is derived
    const cJSON *source;
} Progress;

// Each step is a check of its own: on failure lesson_parse returns (g->stop), a report notes it and
// goes on. Returns passed.
static bool step(Progress *g, bool passed)
{
    if (passed) return true;
    g->c->depth = 0;
    g->ok = false;
    if (g->all) return false;
    g->stop = true;
    return false;
}

// The members read before the shapes: the keys, "$schema", "title", "notes", "language", the tokens
// and d_model. False when lesson_parse stops.
static bool read_head(Progress *g, const cJSON *root, Build *b)
{
    Ctx *c = g->c;
    const char *keys[TOP_KEYS + 64];
    char expected[1024];
    top_level_keys(keys, expected, sizeof expected);
    step(g, lesson_check_keys(c, root, keys, expected));
    if (g->stop) return false;
    step(g, read_string_member(c, root, "$schema", false, NULL));
    if (g->stop) return false;
    step(g, read_string_member(c, root, "title", true, &b->l.title));
    if (g->stop) return false;
    step(g, read_string_member(c, root, "notes", false, &b->l.notes));
    if (g->stop) return false;
    step(g, lesson_fields_read(c, root, b, FIELDS_WITH_TITLE)); // "language"
    if (g->stop) return false;
    g->tokens_ok = step(g, lesson_read_tokens(c, root, &b->l.tokens, &b->n));
    if (g->stop) return false;
    g->d_model_ok = step(
        g, optional_int(c, root, "d_model", LESSON_MAX_D_MODEL, &g->d_model, &g->d_model_member));
    return !g->stop;
}

// The settings (the field table's rows: heads, d_k, mask, scale, rope, kv_heads, window, ...) into
// b->cfg, then the embeddings, which need the tokens (their rows) and a valid d_model when one is
// given. False when lesson_parse stops.
static bool read_settings(Progress *g, const cJSON *root, Build *b)
{
    Ctx *c = g->c;
    int k;
    const cJSON *v;
    g->source = lesson_member(root, "source", &g->source_member);
    b->cfg.cross = g->source != NULL;
    step(g, lesson_fields_read(c, root, b, FIELDS_WITH_SHAPE));
    if (g->stop) return false;
    g->heads_ok =
        lesson_field_ok(b, "heads") && lesson_member(root, "heads", &g->heads_member) != NULL;
    g->d_k_ok = lesson_field_ok(b, "d_k");
    g->kv_ok = lesson_field_ok(b, "kv_heads");
    g->heads = b->cfg.heads;
    g->d_k = b->cfg.d_k;
    lesson_member(root, "rope", &g->rope_member);

    g->embeddings_ok = false;
    if (!(v = lesson_member(root, "embeddings", &k)))
        step(g, lesson_fail(c, "missing required key \"embeddings\""));
    else if (g->tokens_ok && g->d_model_ok) {
        lesson_push_key(c, "embeddings", k);
        g->embeddings_ok = step(g, lesson_read_embeddings(c, v, b->n, "one per token", &g->d_model,
                                                          g->d_model_member, &b->X));
        if (g->embeddings_ok) {
            lesson_pop(c);
            c->emb_seeded[0] = lesson_embeddings_seed(v, &c->emb_seed[0]);
        }
    }
    return !g->stop;
}

// The shapes: d_model (given, or from the embeddings' rows), heads and d_k; the source; the trace's
// size. False when lesson_parse stops.
static bool read_shapes(Progress *g, Build *b)
{
    Ctx *c = g->c;
    g->shape_ok = g->d_model > 0 && g->heads_ok && g->d_k_ok;
    if (g->shape_ok && g->d_k < 0)
        g->shape_ok = step(g, derive_d_k(c, b, g->d_model, g->heads_member));
    if (g->stop) return false;
    if (g->shape_ok)
        g->shape_ok = g->kv_ok && step(g, check_shape(c, b, g->d_model, g->rope_member));
    if (g->stop) return false;

    g->source_ok = true;
    if (g->source)
        g->source_ok = step(
            g, read_source(c, g->source, g->source_member, g->d_model_ok ? g->d_model : -1, b));
    else if (g->tokens_ok && g->embeddings_ok && !self_source(b))
        return lesson_fail(c, "out of memory");
    if (g->stop) return false;

    // The trace's size, known from the sizes alone: refused before the weights are even allocated.
    if (g->shape_ok && g->tokens_ok && g->source_ok && b->n > 0 && b->m > 0)
        g->shape_ok = step(g, check_trace_size(c, b, g->d_model, g->heads_member));
    return !g->stop;
}

// Reads and checks the whole lesson. lesson_parse stops at the first error; a report (c->rep) goes
// on with each part that does not depend on a broken one, in the same order, so its first error is
// the same.
static bool build_lesson(Ctx *c, const cJSON *root, Build *b)
{
    if (!cJSON_IsObject(root))
        return lesson_fail(c, "expected a lesson object { ... }, got %s", lesson_type_name(root));
    Progress g = {.c = c, .all = c->rep != NULL, .ok = true, .d_model = -1};
    g.d_model_member = g.heads_member = g.rope_member = g.source_member = -1;
    if (!read_head(&g, root, b) || !read_settings(&g, root, b) || !read_shapes(&g, b)) return false;

    // The questions' form (their answers need the trace: model/questions.c checks those).
    // A report keeps them, broken or not, and builds the lesson if nothing else is wrong (--check
    // then checks their answers against the trace); lesson_parse stops.
    if (!lesson_read_questions(c, root, g.heads_ok ? g.heads : 0, &b->l.questions,
                               &b->l.question_count)) {
        c->depth = 0;
        if (!g.all) return false;
    }
    int k;
    const cJSON *v = lesson_member(root, "weights", &k);
    if (!v) {
        step(&g, lesson_fail(c, "missing required key \"weights\""));
        return false;
    }
    if (!g.shape_ok) return false; // the weights' shapes are unknown: already reported
    // The weights' shapes need only d_model, heads and d_k: a report checks them even when the
    // tokens or the embeddings are broken (on a one-token stand-in).
    if (!read_matrices(c, root, v, k, b, g.ok && g.source_ok, g.d_model, g.source_member)) {
        c->depth = 0;
        return false;
    }
    if (g.ok && c->pytorch_unconfirmed) warn_pytorch_heads(c, g.heads, g.heads_member);
    return g.ok;
}

static void error_init(LessonError *err, const char *filename)
{
    memset(err, 0, sizeof *err);
    lesson_error_set_file(err, filename);
}

// Takes ownership of text (len bytes plus a NUL at text[len]): kept in the Lesson, or freed on
// failure. rep: NULL, or a report to collect every error and the warnings into (err is then scratch
// space). Is text valid JSON? Otherwise err (and rep, when not NULL) holds the first syntax error
// and its place.
static bool syntax_ok(const char *text, size_t len, LessonError *err, LessonReport *rep)
{
    JsonSyntaxError syn;
    if (json_check(text, len, &syn)) return true;
    if (syn.has_offset) json_line_col(text, len, syn.offset, &err->line, &err->col);
    snprintf(err->message, sizeof err->message, "%s", syn.message);
    if (rep)
        lesson_report_add(rep,
                          err); // a syntax error stops everything: nothing after it can be read
    return false;
}

static void mark_repeats(Lesson *l);

static bool parse_owned(Lesson *out, char *text, size_t len, LessonError *err, LessonReport *rep)
{
    if (!syntax_ok(text, len, err, rep)) {
        free(text);
        return false;
    }
    // len + 1: with require_null_terminated cJSON wants to see the NUL inside the buffer.
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    if (!root) {
        // json_check accepted it, so this is cJSON running out of memory (or disagreeing): say
        // where it stopped.
        if (end && end >= text && (size_t)(end - text) <= len)
            json_line_col(text, len, (size_t)(end - text), &err->line, &err->col);
        snprintf(err->message, sizeof err->message,
                 "cJSON could not parse the file here (out of memory?)");
        if (rep) lesson_report_add(rep, err);
        free(text);
        return false;
    }
    Ctx c;
    memset(&c, 0, sizeof c);
    c.text = text;
    c.len = len;
    c.err = err;
    c.rep = rep;
    Build b;
    memset(&b, 0, sizeof b);
    int vk;
    bool ok = cJSON_IsObject(root) && lesson_member(root, "vocabulary", &vk)
                  ? lesson_build_circuit(&c, root, &b)
                  : build_lesson(&c, root, &b);
    cJSON_Delete(root);
    if (!ok) {
        build_free(&b);
        free(text);
        return false;
    }
    *out = b.l;
    mark_repeats(out);
    out->text = text;
    out->text_len = len;
    return true;
}

bool lesson_parse(Lesson *out, const char *text, size_t len, const char *filename, LessonError *err)
{
    memset(out, 0, sizeof *out);
    error_init(err, filename);
    if (len > LESSON_MAX_FILE_BYTES) {
        snprintf(err->message, sizeof err->message,
                 "file is too large: %zu bytes (the limit is %u MiB)", len,
                 LESSON_MAX_FILE_BYTES / (1024u * 1024u));
        return false;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        snprintf(err->message, sizeof err->message, "out of memory");
        return false;
    }
    if (len) memcpy(copy, text, len);
    copy[len] = '\0';
    return parse_owned(out, copy, len, err, NULL);
}

bool lesson_parse_report(Lesson *out, const char *text, size_t len, const char *filename,
                         LessonReport *rep)
{
    memset(out, 0, sizeof *out);
    memset(rep, 0, sizeof *rep);
    LessonError err;
    error_init(&err, filename);
    char *copy = len <= LESSON_MAX_FILE_BYTES ? malloc(len + 1) : NULL;
    if (!copy) {
        snprintf(err.message, sizeof err.message,
                 len > LESSON_MAX_FILE_BYTES ? "file is too large: %zu bytes (the limit is %u MiB)"
                                             : "out of memory",
                 len, LESSON_MAX_FILE_BYTES / (1024u * 1024u));
        lesson_report_add(rep, &err);
        return false;
    }
    if (len) memcpy(copy, text, len);
    copy[len] = '\0';
    return parse_owned(out, copy, len, &err, rep);
}

static bool io_fail(LessonError *err, const char *what, int errnum)
{
    err->io = true;
    snprintf(err->message, sizeof err->message, "%s: %s", what, strerror(errnum));
    return false;
}

// The whole file (at most LESSON_MAX_FILE_BYTES) into *text (malloc'd, NUL-terminated), or an I/O
// error.
static bool read_file(const char *path, char **text, size_t *text_len, LessonError *err)
{
    // Only a regular file is read; a FIFO (or a device) at path never blocks the open (platform
    // layer).
    PlatformStat st;
    bool opened;
    FILE *f = platform_open_regular(path, &st, &opened);
    if (!f && !opened) return io_fail(err, "cannot open the lesson", errno);
    if (!f && st.kind == PLATFORM_REGULAR) return io_fail(err, "cannot read the lesson", errno);
    if (!f && st.kind == PLATFORM_DIRECTORY) return io_fail(err, "cannot read the lesson", EISDIR);
    if (!f) {
        err->io = true;
        snprintf(err->message, sizeof err->message,
                 "cannot read the lesson: not a regular file (%s)",
                 st.kind == PLATFORM_FIFO     ? "a FIFO"
                 : st.kind == PLATFORM_SOCKET ? "a socket"
                                              : "a device");
        return false;
    }
    if ((uintmax_t)st.size > LESSON_MAX_FILE_BYTES) {
        fclose(f);
        err->io = true;
        snprintf(err->message, sizeof err->message,
                 "file is too large: %jd bytes (the limit is %u MiB)", (intmax_t)st.size,
                 LESSON_MAX_FILE_BYTES / (1024u * 1024u));
        return false;
    }
    // Read in chunks up to the limit + 1 byte, so a file that grows while it is read is bounded
    // too.
    size_t cap = (size_t)st.size + 1, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        err->io = true;
        snprintf(err->message, sizeof err->message, "out of memory reading the lesson");
        return false;
    }
    for (;;) {
        if (len == cap) {
            size_t ncap = cap * 2 > (size_t)LESSON_MAX_FILE_BYTES + 1
                              ? (size_t)LESSON_MAX_FILE_BYTES + 1
                              : cap * 2;
            if (ncap <= cap) break; // limit + 1 bytes read: the size check below reports it
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                err->io = true;
                snprintf(err->message, sizeof err->message, "out of memory reading the lesson");
                return false;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    bool read_error = ferror(f) != 0;
    int e = errno;
    fclose(f);
    if (read_error) {
        free(buf);
        return io_fail(err, "cannot read the lesson", e ? e : EIO);
    }
    if (len > LESSON_MAX_FILE_BYTES) {
        free(buf);
        err->io = true;
        snprintf(err->message, sizeof err->message, "file is too large: more than %u MiB",
                 LESSON_MAX_FILE_BYTES / (1024u * 1024u));
        return false;
    }
    buf[len] = '\0';
    *text = buf;
    *text_len = len;
    return true;
}

bool lesson_load(Lesson *out, const char *path, LessonError *err)
{
    memset(out, 0, sizeof *out);
    error_init(err, path);
    char *text;
    size_t len;
    if (!read_file(path, &text, &len, err)) return false;
    return parse_owned(out, text, len, err, NULL);
}

// A fresh report and err for path, then read_file; its failure is the report's one error.
static bool read_reported(const char *path, char **text, size_t *len, LessonError *err,
                          LessonReport *rep)
{
    memset(rep, 0, sizeof *rep);
    error_init(err, path);
    if (read_file(path, text, len, err)) return true;
    lesson_report_add(rep, err);
    return false;
}

bool lesson_load_report(Lesson *out, const char *path, LessonReport *rep)
{
    memset(out, 0, sizeof *out);
    LessonError err;
    char *text;
    size_t len;
    return read_reported(path, &text, &len, &err, rep) && parse_owned(out, text, len, &err, rep);
}

bool lesson_load_schema(const char *path, LessonReport *rep)
{
    LessonError err;
    char *text;
    size_t len;
    if (!read_reported(path, &text, &len, &err, rep)) return false;
    bool schema = false;
    if (syntax_ok(text, len, &err, rep)) {
        cJSON *root = cJSON_ParseWithLength(text, len);
        const cJSON *dialect = cJSON_GetObjectItemCaseSensitive(root, "$schema");
        const char *d = cJSON_IsObject(root) && cJSON_IsString(dialect) ? dialect->valuestring : "";
        schema = strncmp(d, "https://json-schema.org/", 24) == 0
                 || strncmp(d, "http://json-schema.org/", 23) == 0;
        cJSON_Delete(root);
    }
    free(text);
    return schema;
}

bool lesson_load_builtin(Lesson *out, LessonError *err)
{
    return lesson_parse(out, lesson_builtin_text, lesson_builtin_len, "<built-in>", err);
}

// repeats of tokens (n of them): 1 where a token occurs again. NULL when out of memory (labels
// compare then).
static unsigned char *find_repeats(char *const *tokens, int n)
{
    unsigned char *r = tokens && n > 0 ? calloc((size_t)n, 1) : NULL;
    for (int i = 0; r && i < n; i++)
        if (!r[i]) // (a token marked already: its earlier twin marked every later one)
            for (int j = i + 1; j < n; j++)
                if (tokens[i] && tokens[j] && strcmp(tokens[i], tokens[j]) == 0) r[i] = r[j] = 1;
    return r;
}

static void mark_repeats(Lesson *l)
{
    l->repeats = find_repeats(l->tokens, l->params.n);
    l->source_repeats = find_repeats(l->source_tokens, l->params.m);
}

void lesson_free(Lesson *l)
{
    if (!l) return;
    free(l->repeats);
    free(l->source_repeats);
    free(l->title);
    free(l->notes);
    free(l->language);
    lesson_free_strings(l->tokens, l->params.n);
    lesson_free_strings(l->source_tokens, l->params.m);
    params_free(&l->params);
    lesson_free_questions(l->questions, l->question_count);
    mat_free(&l->targets);
    lesson_circuit_free(l->circuit);
    free(l->text);
    memset(l, 0, sizeof *l);
}

bool lesson_shuffle(Lesson *out, const Lesson *l, const int *perm)
{
    memset(out, 0, sizeof *out);
    const AttnParams *p = &l->params;
    out->title = lesson_dup_string(l->title, strlen(l->title));
    out->notes = l->notes ? lesson_dup_string(l->notes, strlen(l->notes)) : NULL;
    out->tokens = calloc((size_t)p->n, sizeof *out->tokens);
    out->source_tokens = calloc((size_t)p->m, sizeof *out->source_tokens);
    bool ok = out->title && (out->notes || !l->notes) && out->tokens && out->source_tokens;
    for (int i = 0; ok && i < p->n; i++)
        ok = (out->tokens[i] = lesson_dup_string(l->tokens[perm[i]], strlen(l->tokens[perm[i]])))
             != NULL;
    for (int i = 0; ok && i < p->m; i++) {
        const char *t = p->cross ? l->source_tokens[i] : l->source_tokens[perm[i]];
        ok = (out->source_tokens[i] = lesson_dup_string(t, strlen(t))) != NULL;
    }
    if (ok && params_shuffle(&out->params, p, perm)) {
        mark_repeats(out);
        return true;
    }
    out->params.n = p->n; // lesson_free frees as many tokens as there are
    out->params.m = p->m;
    lesson_free(out);
    return false;
}

const char *lesson_error_format(const LessonError *err, char *buf, size_t cap)
{
    if (!buf || cap == 0) return buf;
    size_t used = 0;
    buf[0] = '\0';
    lesson_append(buf, cap, &used, "%s", err->file[0] ? err->file : "<lesson>");
    if (err->line > 0) {
        lesson_append(buf, cap, &used, ":%d", err->line);
        if (err->col > 0) lesson_append(buf, cap, &used, ":%d", err->col);
    }
    lesson_append(buf, cap, &used, err->warning ? ": warning: " : ": error: ");
    if (err->path[0]) lesson_append(buf, cap, &used, "%s: ", err->path);
    lesson_append(buf, cap, &used, "%s", err->message);
    return buf;
}

void lesson_error_set_file(LessonError *err, const char *path)
{
    if (!path) path = "";
    size_t n = strlen(path), cap = sizeof err->file;
    if (n < cap) {
        memcpy(err->file, path, n + 1);
        return;
    }
    // Too long: "…" and the end of the path, from a character boundary, so the file's name is kept.
    const char *tail = path + n - (cap - 4);
    while (((unsigned char)*tail & 0xC0) == 0x80) tail++;
    snprintf(err->file, cap, "\xe2\x80\xa6%s", tail);
}
