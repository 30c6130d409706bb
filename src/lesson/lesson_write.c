// Writes an (edited) lesson as format-1 JSON, explicit form, and saves it beside the original
// without ever replacing it. Numbers use the shortest of %.15g, %.16g, %.17g that reads back to the
// same double.
#include "lesson/lesson_write.h"
#include "lesson/lesson_fields.h"
#include "lesson/json_locate.h"
#include "platform/platform.h"
#include "lesson/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void number(StrBuf *o, double v) { lesson_put_number(o, v); }

static void string(StrBuf *o, const char *s) { lesson_put_string(o, s); }
static void row(StrBuf *o, const double *v, int n) { lesson_put_row(o, v, n); }

// A matrix as an array of rows, one row a line, indented by `ind` spaces.
static void matrix(StrBuf *o, const Matrix *m, int ind)
{
    char pad[64];
    snprintf(pad, sizeof pad, "%*s", ind < 60 ? ind : 60, "");
    strbuf_puts(o, "[\n");
    for (int r = 0; r < m->rows; r++) {
        strbuf_puts(o, pad);
        strbuf_puts(o, "  ");
        row(o, mat_row(m, r), m->cols);
        strbuf_puts(o, r + 1 < m->rows ? ",\n" : "\n");
    }
    strbuf_puts(o, pad);
    strbuf_puts(o, "]");
}

static void tokens(StrBuf *o, char **t, int n)
{
    strbuf_puts(o, "[");
    for (int i = 0; i < n; i++) {
        if (i) strbuf_puts(o, ", ");
        string(o, t[i]);
    }
    strbuf_puts(o, "]");
}

// "name": [h matrices], ms[0], ms[stride], ... (stride > 1: one per K/V head, the group's first
// head's)
static void per_head(StrBuf *o, const char *name, const Matrix *ms, int heads, int stride)
{
    strbuf_puts(o, "    ");
    string(o, name);
    strbuf_puts(o, ": [\n");
    for (int h = 0; h < heads; h++) {
        strbuf_puts(o, "      ");
        matrix(o, &ms[h * stride], 6);
        strbuf_puts(o, h + 1 < heads ? ",\n" : "\n");
    }
    strbuf_puts(o, "    ]");
}

// True when some value is not +0 (the loader fills absent biases with +0, so those need not be
// written).
static bool any_set(const Matrix *m)
{
    size_t n = (size_t)m->rows * (size_t)m->cols;
    for (size_t i = 0; i < n; i++)
        if (m->data[i] != 0.0 || signbit(m->data[i])) return true;
    return false;
}

static bool any_set_heads(const Matrix *ms, int heads)
{
    for (int h = 0; h < heads; h++)
        if (any_set(&ms[h])) return true;
    return false;
}

// "questions": each as it was read, one per line (the stated answers as in the file: edited numbers
// may make one wrong, which --check then names).
static void questions(StrBuf *o, const Lesson *l)
{
    strbuf_puts(o, ",\n  \"questions\": [");
    for (int i = 0; i < l->question_count; i++) {
        const LessonQuestion *q = &l->questions[i];
        strbuf_puts(o, i ? ",\n    {\"stage\": " : "\n    {\"stage\": ");
        string(o, q->stage);
        strbuf_printf(o, ", \"head\": %d", q->head);
        strbuf_puts(o, ", \"text\": ");
        string(o, q->text);
        strbuf_puts(o, ",\n     \"answer\": {\"kind\": ");
        string(o, lesson_answer_kind_name(q->kind));
        if (q->matrix) {
            strbuf_puts(o, ", \"matrix\": ");
            string(o, q->matrix);
        }
        strbuf_printf(o, ", \"cell\": [%d, %d]", q->row, q->col);
        if (q->kind == ANSWER_CELL) {
            if (q->among_column || q->among_matrix)
                strbuf_puts(o, q->among_matrix ? ", \"among\": \"matrix\""
                                               : ", \"among\": \"column\"");
            if (q->pick_min) strbuf_puts(o, ", \"pick\": \"min\"");
        } else if (q->kind == ANSWER_VALUE) {
            strbuf_puts(o, ", \"value\": ");
            number(o, q->value);
            strbuf_puts(o, ", \"tolerance\": ");
            number(o, q->tolerance);
        } else {
            strbuf_puts(o, ", \"choices\": [");
            for (int k = 0; k < q->choice_count; k++) {
                if (k) strbuf_puts(o, ", ");
                number(o, q->choices[k]);
            }
            strbuf_printf(o, "], \"correct\": %d", q->correct);
        }
        strbuf_puts(o, "}}");
    }
    strbuf_puts(o, "\n  ]");
}

// "train": every setting written out, defaults included, so the file says how it was trained.
static void train_section(StrBuf *o, const TrainSpec *tr)
{
    strbuf_puts(o, ",\n  \"train\": {\"task\": ");
    string(o, train_task_key(tr->task));
    strbuf_printf(o, ", \"sequences\": %d, \"seed\": %llu, \"steps\": %d", tr->sequences,
                  (unsigned long long)tr->seed, tr->steps);
    strbuf_puts(o, ", \"learning_rate\": ");
    number(o, tr->learning_rate);
    strbuf_puts(o, "}");
}

// "weights": W_Q, W_K, W_V (one per K/V head), W_O, and the biases that are not all +0.
static void weights_section(StrBuf *o, const AttnParams *p)
{
    strbuf_puts(o, ",\n  \"weights\": {\n");
    int kv = p->heads / p->kv_heads; // W_K, W_V, b_K, b_V: one per K/V head
    per_head(o, "W_Q", p->W_Q, p->heads, 1);
    strbuf_puts(o, ",\n");
    per_head(o, "W_K", p->W_K, p->kv_heads, kv);
    strbuf_puts(o, ",\n");
    per_head(o, "W_V", p->W_V, p->kv_heads, kv);
    strbuf_puts(o, ",\n    \"W_O\": ");
    matrix(o, &p->W_O, 4);
    const char *bn[3] = {"b_Q", "b_K", "b_V"};
    const Matrix *bs[3] = {p->b_Q, p->b_K, p->b_V};
    for (int i = 0; i < 3; i++) {
        if (!any_set_heads(bs[i], p->heads)) continue;
        strbuf_puts(o, ",\n    ");
        string(o, bn[i]);
        strbuf_puts(o, ": [");
        for (int h = 0; h < (i ? p->kv_heads : p->heads); h++) {
            if (h) strbuf_puts(o, ", ");
            row(o, bs[i][h * (i ? kv : 1)].data, bs[i][h * (i ? kv : 1)].cols);
        }
        strbuf_puts(o, "]");
    }
    if (any_set(&p->b_O)) {
        strbuf_puts(o, ",\n    \"b_O\": ");
        row(o, p->b_O.data, p->b_O.cols);
    }
    strbuf_puts(o, "\n  }");
}

char *lesson_write_json(const Lesson *l, const AttnParams *p, const char *title_suffix, size_t *len)
{
    StrBuf o = {0};
    strbuf_puts(&o, "{\n  \"title\": ");
    const char *title = l->title ? l->title : "";
    size_t tl = strlen(title), sl = title_suffix ? strlen(title_suffix) : 0;
    if (sl && !(tl >= sl && strcmp(title + tl - sl, title_suffix) == 0)) {
        char *t = malloc(tl + sl + 1);
        if (!t) {
            free(o.p);
            return NULL;
        }
        memcpy(t, title, tl);
        memcpy(t + tl, title_suffix, sl + 1);
        string(&o, t);
        free(t);
    } else string(&o, title);
    if (l->notes) {
        strbuf_puts(&o, ",\n  \"notes\": ");
        string(&o, l->notes);
    }
    lesson_fields_save(&o, l, p, FIELDS_WITH_TITLE); // "language"
    strbuf_puts(&o, ",\n  \"tokens\": ");
    tokens(&o, l->tokens, p->n);
    strbuf_puts(&o, ",\n  \"embeddings\": ");
    matrix(&o, p->positions != POS_NONE ? &p->E : &p->X,
           2); // with positions the file holds E (X = E + P)
    if (p->positions == POS_SINUSOIDAL) strbuf_puts(&o, ",\n  \"positions\": \"sinusoidal\"");
    if (p->positions == POS_EXPLICIT) {
        strbuf_puts(&o, ",\n  \"positions\": ");
        matrix(&o, &p->P, 2);
    }
    lesson_fields_save(&o, l, p, FIELDS_WITH_SHAPE); // the settings: scale, heads, d_k, mask, ...
    if (p->cross) {
        strbuf_puts(&o, ",\n  \"source\": {\n    \"tokens\": ");
        tokens(&o, l->source_tokens, p->m);
        strbuf_puts(&o, ",\n    \"embeddings\": ");
        matrix(&o, p->positions != POS_NONE ? &p->E_S : &p->S, 4);
        if (p->positions == POS_EXPLICIT && any_set(&p->P_S)) {
            strbuf_puts(&o, ",\n    \"positions\": ");
            matrix(&o, &p->P_S, 4);
        }
        strbuf_puts(&o, "\n  }");
    }
    if (l->targets.data && l->targets.rows == p->n) {
        strbuf_puts(&o, ",\n  \"targets\": ");
        matrix(&o, &l->targets, 2);
    }
    if (l->trains) train_section(&o, &l->train);
    weights_section(&o, p);
    if (l->question_count > 0) questions(&o, l);
    strbuf_puts(&o, "\n}\n");
    if (o.oom) {
        free(o.p);
        return NULL;
    }
    if (len) *len = o.len;
    return o.p;
}

static void io_error(LessonError *err, const char *path, const char *what)
{
    memset(err, 0, sizeof *err);
    err->io = true;
    lesson_error_set_file(err, path);
    snprintf(err->message, sizeof err->message, "%s: %s", what, strerror(errno));
}

// What is at a target that is not a regular file, by PlatformKind.
static const char *const not_a_file[] = {
    [PLATFORM_DIRECTORY] = "a folder", [PLATFORM_LINK] = "a link",     [PLATFORM_FIFO] = "a FIFO",
    [PLATFORM_SOCKET] = "a socket",    [PLATFORM_DEVICE] = "a device",
};

static void target_error(LessonError *err, const char *path, const PlatformWriteFailure *f)
{
    if (f->error) {
        errno = f->error;
        io_error(err, path, "cannot check");
        return;
    }
    memset(err, 0, sizeof *err);
    err->io = true;
    lesson_error_set_file(err, path);
    snprintf(err->message, sizeof err->message,
             "is %s, not a regular file: only a regular file is replaced (never a link, a device "
             "or a FIFO); "
             "nothing was written",
             not_a_file[f->found] ? not_a_file[f->found] : "not a regular file");
}

bool lesson_write_target(const char *path, LessonError *err)
{
    bool exists;
    PlatformStat st;
    PlatformWriteFailure f = {PLATFORM_WRITE_TARGET, 0, 0, PLATFORM_REGULAR};
    if (platform_writer_target(path, &exists, &st, &f)) return true;
    target_error(err, path, &f);
    return false;
}

// A matrix of r rows of c numbers in the bounds: its numbers and arrays, at most 26 bytes a number
// ("-1.2345678901234567e-308, ") and 80 a row (indentation, brackets, line break).
static void bound_matrix(double *values, double *bytes, double r, double c)
{
    *values += r * c + r + 1;
    *bytes += r * c * 26 + r * 80 + 80;
}

void lesson_write_bound(const Lesson *l, const AttnParams *p, double *values, double *bytes)
{
    double d = p->d_model, hk = (double)p->heads * p->d_k;
    *values = 64;
    *bytes = 4096;
    bound_matrix(values, bytes, p->n, d); // the embeddings (X or E)
    if (p->positions == POS_EXPLICIT) bound_matrix(values, bytes, p->n, d); // P
    if (p->cross)
        bound_matrix(values, bytes, p->m, d * (p->positions == POS_EXPLICIT ? 2 : 1)); // S, P_S
    if (l->targets.data) bound_matrix(values, bytes, p->n, d);
    for (int w = 0; w < 3; w++) bound_matrix(values, bytes, d * p->heads, p->d_k); // W_Q, W_K, W_V
    bound_matrix(values, bytes, hk, d); // W_O
    bound_matrix(values, bytes, 4, hk > d ? hk : d); // the biases
    // Strings: each byte escaped at most 6-fold ("\u001f"); a question's fields.
    size_t text = strlen(l->title) + 16 + (l->notes ? strlen(l->notes) : 0)
                  + (l->language ? strlen(l->language) : 0);
    for (int i = 0; i < p->n; i++) text += strlen(l->tokens[i]) + 4;
    for (int i = 0; p->cross && i < p->m; i++) text += strlen(l->source_tokens[i]) + 4;
    *values += p->n + p->m + 40.0 * l->question_count;
    for (int i = 0; i < l->question_count; i++)
        text += strlen(l->questions[i].text) + strlen(l->questions[i].stage)
                + (l->questions[i].matrix ? strlen(l->questions[i].matrix) : 0);
    *bytes += 6.0 * (double)text + 1000.0 * l->question_count;
}

_Static_assert(LESSON_MAX_FILE_VALUES == JSON_MAX_VALUES, "one limit on a file's values");

bool lesson_write_readable(const char *text, size_t len, LessonError *err)
{
    JsonSyntaxError syn;
    bool too_large = len > LESSON_MAX_FILE_BYTES;
    // Only the limits: other text (not a lesson) is the caller's business.
    if (!too_large
        && (json_check(text, len, &syn) || strncmp(syn.message, "too many values", 15) != 0))
        return true;
    memset(err, 0, sizeof *err);
    err->io = true;
    if (too_large)
        snprintf(err->message, sizeof err->message,
                 "the lesson would be %.1f MiB, more than the %u MiB a lesson file may have, so "
                 "it could not be loaded again",
                 (double)len / (1024.0 * 1024.0), LESSON_MAX_FILE_BYTES / (1024u * 1024u));
    else
        snprintf(err->message, sizeof err->message,
                 "the lesson would hold more than %d numbers, strings, arrays and objects, the "
                 "most a lesson file may "
                 "hold, so it could not be loaded again",
                 JSON_MAX_VALUES);
    return false;
}

// How a temporary goes into place: over whatever regular file is there (lesson_write_file), only
// where nothing is (lesson_write_claim), or only over the caller's own file (lesson_write_own).
typedef enum { PUT_REPLACE, PUT_NEW, PUT_OWN } PutMode;

// Writes through a temporary and puts it in place as put says; *taken (when not NULL) tells that
// the name was another's (PUT_NEW, PUT_OWN).
static bool write_through_temporary(const char *path, const char *text, size_t len, PutMode put,
                                    bool (*ours)(const char *, void *), void *ctx, bool *taken,
                                    LessonError *err)
{
    if (taken) *taken = false;
    if (!lesson_write_readable(text, len, err)) {
        lesson_error_set_file(err, path);
        size_t n = strlen(err->message);
        snprintf(err->message + n, sizeof err->message - n, "; nothing was written");
        return false;
    }
    PlatformWriter *w = platform_writer_begin(NULL, &path, 1);
    PlatformWriteFailure f = {PLATFORM_WRITE_CREATE, 0, errno,
                              PLATFORM_REGULAR}; // errno: why begin failed
    bool ok = w && platform_writer_add(w, 0, text, len, &f)
              && (put == PUT_NEW   ? platform_writer_commit_new(w, 0, &f)
                  : put == PUT_OWN ? platform_writer_commit_own(w, 0, ours, ctx, &f)
                                   : platform_writer_commit(w, NULL, &f));
    if (taken)
        *taken = !ok && put != PUT_REPLACE && f.step == PLATFORM_WRITE_REPLACE && f.error == EEXIST;
    if (!ok) {
        errno = f.error;
        if (f.step == PLATFORM_WRITE_TARGET) target_error(err, path, &f);
        else if (f.step == PLATFORM_WRITE_CREATE || f.step == PLATFORM_WRITE_KEEP)
            io_error(err, path, "cannot create a temporary file beside");
        else if (f.step == PLATFORM_WRITE_WRITE)
            io_error(err, platform_writer_temporary(w, 0), "cannot write");
        else
            io_error(err, path,
                     put != PUT_REPLACE ? "cannot put the temporary file in place at"
                                        : "cannot rename the temporary file to");
    }
    platform_writer_close(w); // the temporary goes unless it is in place
    return ok;
}

bool lesson_write_file(const char *path, const char *text, size_t len, LessonError *err)
{
    return write_through_temporary(path, text, len, PUT_REPLACE, NULL, NULL, NULL, err);
}

bool lesson_write_claim(const char *path, const char *text, size_t len, bool *taken,
                        LessonError *err)
{
    return write_through_temporary(path, text, len, PUT_NEW, NULL, NULL, taken, err);
}

bool lesson_write_own(const char *path, const char *text, size_t len,
                      bool (*ours)(const char *at, void *ctx), void *ctx, bool *taken,
                      LessonError *err)
{
    return write_through_temporary(path, text, len, PUT_OWN, ours, ctx, taken, err);
}

// Anything at p, also a link (dangling or not): lstat, which never follows it.
static bool exists(const char *p)
{
    PlatformStat st;
    return platform_stat(p, false, &st);
}

// A plain file at p (not a link, not a folder): only then is a file this session saved before
// written over.
static bool is_plain_file(const char *p)
{
    PlatformStat st;
    return platform_stat(p, false, &st) && st.kind == PLATFORM_REGULAR;
}

bool lesson_edited_path(char *out, size_t cap, const char *original, const char *ours)
{
    const char *src = original ? original : "the-cat-sat.json";
    size_t n = strlen(src);
    // NAME: the path without a final ".json" (any other name keeps its whole self).
    if (n >= 5 && strcmp(src + n - 5, ".json") == 0) n -= 5;
    for (int k = 1; k < 1000; k++) {
        char suffix[32];
        if (k == 1) snprintf(suffix, sizeof suffix, "-edited.json");
        else snprintf(suffix, sizeof suffix, "-edited-%d.json", k);
        int w = snprintf(out, cap, "%.*s%s", (int)n, src, suffix);
        if (w < 0 || (size_t)w >= cap) return false;
        if (original && strcmp(out, original) == 0) continue;
        if (ours && strcmp(out, ours) == 0 && (is_plain_file(out) || !exists(out))) return true;
        if (!exists(out)) return true;
    }
    return false;
}

char *lesson_write_starter(const char *const *toks, int n, int heads, int d_model,
                           const char *schema, size_t *len)
{
    if (n < 1 || n > LESSON_MAX_TOKENS || heads < 1 || heads > LESSON_MAX_HEADS || d_model < 1
        || d_model > LESSON_MAX_D_MODEL || d_model % heads != 0)
        return NULL;
    int d_k = d_model / heads;
    Lesson l;
    memset(&l, 0, sizeof l);
    char title[] = "My lesson";
    char notes[1200];
    snprintf(
        notes, sizeof notes,
        "A starter lesson from mha-tracer --new: %d token%s, d_model %d, %d head%s of d_k %d. "
        "Change the title, "
        "the tokens and the numbers to what your class should see. Each row of embeddings is one "
        "token "
        "(d_model numbers). W_Q, W_K and W_V hold one d_model x d_k matrix per head; here head i "
        "reads "
        "dimensions i*d_k to (i+1)*d_k - 1 of the embeddings, so each head compares the tokens on "
        "its own "
        "features. W_O is (heads*d_k) x d_model. A token attends to the tokens whose keys point "
        "the same way "
        "as its query; scores a few units apart already give a clear winner. Check the file with "
        "mha-tracer --check after each change, or keep the window open: it reloads on save. These "
        "notes are "
        "shown on the first stage (N shows them again): replace them with what the class should "
        "notice.",
        n, n == 1 ? "" : "s", d_model, heads, heads == 1 ? "" : "s", d_k);
    l.title = title;
    l.notes = notes;
    l.tokens = (char **)toks;
    AttnParams p;
    if (!params_init(&p, n, n, d_model, heads, d_k)) return NULL;
    for (int i = 0; i < n;
         i++) { // one main dimension per token and half of the next: no two tokens alike
        mat_set(&p.X, i, i % d_model, 1.0);
        if (d_model > 1) mat_set(&p.X, i, (i + 1) % d_model, 0.5);
    }
    for (int h = 0; h < heads; h++)
        for (int j = 0; j < d_k; j++) {
            mat_set(&p.W_Q[h], h * d_k + j, j, 1.0);
            mat_set(&p.W_K[h], h * d_k + j, j, 1.0);
            mat_set(&p.W_V[h], h * d_k + j, j, 1.0);
        }
    for (int r = 0; r < d_model; r++) mat_set(&p.W_O, r, r, 1.0);
    size_t body_len = 0;
    char *body = lesson_write_json(&l, &p, NULL, &body_len);
    params_free(&p);
    if (!body || !schema) {
        if (body && len) *len = body_len;
        return body;
    }
    StrBuf o = {0};
    strbuf_puts(&o, "{\n  \"$schema\": ");
    string(&o, schema);
    strbuf_puts(&o, ",\n");
    strbuf_put(&o, body + 2, body_len - 2); // after "{\n"
    free(body);
    if (o.oom) {
        free(o.p);
        return NULL;
    }
    if (len) *len = o.len;
    return o.p;
}

bool lesson_write_new_file(const char *path, const char *text, size_t len, LessonError *err)
{
    int fd = platform_create_exclusive(path);
    if (fd < 0) {
        int e = errno;
        io_error(err, path, "cannot create the lesson");
        if (e == EEXIST)
            snprintf(err->message, sizeof err->message,
                     "already exists (a file or a link); a new lesson never replaces anything: "
                     "choose another name");
        return false;
    }
    bool ok = platform_write_sync_close(fd, text, len);
    if (!ok) {
        io_error(err, path, "cannot write the lesson");
        platform_remove(path); // ours: made by the exclusive open above
    }
    return ok;
}
