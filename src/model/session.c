// The document behind the window (see session.h): load, watch, edit, revert, save, compare, export
// data. The file's time stamp from the platform layer; no SDL, no printing.
#include "model/session.h"
#include "model/session_ctx.h"
#include "model/rope_shift.h"
#include "model/retrace.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lesson/lesson_write.h"
#include "platform/platform.h"

// path for a message: whole when shorter than cap, else "…" and its end (from a character
// boundary), so the file's name is kept. Returns path or buf.
static const char *path_tail(const char *path, char *buf, size_t cap)
{
    size_t n = strlen(path);
    if (n < cap) return path;
    const char *tail = path + n - (cap - 4);
    while (((unsigned char)*tail & 0xC0) == 0x80) tail++;
    snprintf(buf, cap, "\xe2\x80\xa6%s", tail);
    return buf;
}

void session_init(Session *s)
{
    memset(s, 0, sizeof *s);
    s->stamp.size = -1;
}

void session_free(Session *s)
{
    retrace_free(&s->rt);
    session_drop_training(s);
    session_circuit_drop(s);
    session_beside_free(s);
    session_drop_comparison(s);
    if (s->loaded) {
        trace_free(&s->trace);
        params_free(&s->edit);
        lesson_free(&s->lesson);
    }
    session_init(s);
}

// The watch hashes a file's bytes when its time stamp cannot tell a change: a file of at most this
// size always (cheap), a larger one while a write in the same tick of a coarse clock (1 s on ext2,
// 2 s on FAT) could still come: until STAMP_TICK_S seconds past its modification time.
#define STAMP_HASH_ALWAYS (1024 * 1024)
#define STAMP_TICK_S 3

// path's stamp (followed through a link; follow false: the file at path itself), without its hash.
static bool stamp_of(const char *path, bool follow, SessionStamp *out)
{
    PlatformStat st;
    if (!platform_stat(path, follow, &st)) return false;
    *out = (SessionStamp){st.mtime_sec, st.mtime_nsec,        st.size, st.device, st.file_id, 0,
                          false,        (long long)time(NULL)};
    return st.kind == PLATFORM_REGULAR || follow;
}

static bool stamp_same(const SessionStamp *a, const SessionStamp *b)
{
    return a->sec == b->sec && a->nsec == b->nsec && a->size == b->size && a->device == b->device
           && a->file_id == b->file_id;
}

// Could the bytes of the file with stamp st have changed, without a new stamp, after it was looked
// at?
static bool stamp_blind(const SessionStamp *st, long long looked)
{
    return st->size <= STAMP_HASH_ALWAYS || looked < st->sec + STAMP_TICK_S;
}

// The hash of path's bytes into st (hashed false when it cannot be read: a new stamp is then looked
// for).
static void stamp_hash(const char *path, SessionStamp *st)
{
    long long n = 0;
    st->looked = (long long)time(NULL); // before the read: a write during it is seen next time
    st->hashed = platform_file_hash(path, &st->hash, &n);
}

static bool adopt_lesson(Session *s, Lesson l, const char *path, SessionError *err);

// Loads path (NULL: the built-in lesson), traces it and makes it the lesson held; the watch is the
// caller's.
static bool load_document(Session *s, const char *path, SessionError *err)
{
    Lesson l;
    LessonError lerr;
    memset(&lerr, 0, sizeof lerr);
    bool ok = path ? lesson_load(&l, path, &lerr) : lesson_load_builtin(&l, &lerr);
    if (!ok) {
        char msg[sizeof err->message];
        set_error(err, lesson_error_format(&lerr, msg, sizeof msg));
        s->load_errors++;
        return false;
    }
    return adopt_lesson(s, l, path, err);
}

// l (taken over: freed on failure) traced and made the lesson held; path names it in errors (NULL:
// built in).
static bool adopt_lesson(Session *s, Lesson l, const char *path, SessionError *err)
{
    Trace t;
    TraceError terr;
    if (!trace_run(&t, &l.params, &terr)) {
        char shown[512];
        if (err)
            snprintf(err->message, sizeof err->message, "%s: %s",
                     path ? path_tail(path, shown, sizeof shown) : "<built-in>", terr.message);
        lesson_free(&l);
        s->load_errors++;
        return false;
    }
    AttnParams edit;
    if (!params_copy(&edit, &l.params)) {
        set_error(err, "out of memory");
        trace_free(&t);
        lesson_free(&l);
        s->load_errors++;
        return false;
    }
    retrace_free(&s->rt); // (an edit of the last lesson still being traced is dropped with it)
    session_drop_comparison(s);
    session_drop_training(s); // the trainer belongs to the lesson it started on
    session_circuit_drop(s); // ... as do the layers' run and trainer
    if (s->loaded) {
        trace_free(&s->trace);
        params_free(&s->edit);
        lesson_free(&s->lesson);
    }
    // Another file: its edits are saved next to it under a fresh name.
    if (!(path && s->path[0] && strcmp(path, s->path) == 0)) s->saved[0] = '\0';
    s->lesson = l;
    s->edit = edit;
    s->trace = t;
    s->loaded = true;
    s->edit_count = 0; // the file's own values
    set_error(err, "");
    if (!session_circuit_adopt(s, err)) { // shown as its first layer; never saved as one
        s->load_errors++;
        return false;
    }
    s->loads++;
    return true;
}

bool session_load(Session *s, const char *path, SessionError *err)
{
    if (path && strlen(path) >= sizeof s->path) {
        char shown[512];
        if (err)
            snprintf(err->message, sizeof err->message, "%s: the path is too long",
                     path_tail(path, shown, sizeof shown));
        s->load_errors++;
        return false;
    }
    // Looked at before it is read: a change while it loads is seen by the next poll.
    SessionStamp stamp = {0, 0, -1, 0, 0, 0, false, 0};
    if (path && !stamp_of(path, true, &stamp)) stamp.size = -1;
    if (path && stamp.size >= 0 && stamp_blind(&stamp, stamp.looked)) stamp_hash(path, &stamp);
    if (!load_document(s, path, err)) return false;
    snprintf(s->path, sizeof s->path, "%s", path ? path : "");
    s->stamp = stamp;
    return true;
}

bool session_take_lesson(Session *s, Lesson *l, const char *name, SessionError *err)
{
    Lesson taken = *l;
    memset(l, 0, sizeof *l);
    if (!adopt_lesson(s, taken, name, err)) return false;
    s->path[0] = '\0'; // nothing to watch: the lesson was made, not read from a file
    s->saved[0] = '\0';
    memset(&s->stamp, 0, sizeof s->stamp);
    s->stamp.size = -1;
    return true;
}

SessionWatch session_poll(Session *s, SessionError *err)
{
    SessionStamp now;
    if (!s->path[0] || !stamp_of(s->path, true, &now))
        return SESSION_SAME; // missing: being replaced by an editor
    if (stamp_same(&now, &s->stamp)) {
        // The same stamp: the same bytes, unless a coarse clock hides a second write (then compare
        // hashes).
        if (!stamp_blind(&s->stamp, s->stamp.looked)) return SESSION_SAME;
        stamp_hash(s->path, &now);
        if (!now.hashed || (s->stamp.hashed && now.hash == s->stamp.hash)) {
            s->stamp.looked = now.hashed ? now.looked : s->stamp.looked;
            return SESSION_SAME;
        }
    } else if (stamp_blind(&now, now.looked)) {
        stamp_hash(s->path, &now);
    }
    s->stamp = now;
    s->watch_changes++;
    return load_document(s, s->path, err) ? SESSION_RELOADED : SESSION_RELOAD_FAILED;
}

Lesson session_shown(const Session *s)
{
    Lesson shown = s->lesson;
    shown.params = s->edit;
    return shown;
}

bool session_edit(Session *s, CellRef c, double delta, SessionError *err)
{
    set_error(err, "");
    double *ref = s->loaded ? view_param_ref(&s->edit, c) : NULL;
    if (!ref) return false;
    if (s->lesson.circuit) { // an edit of one layer would not reach the layers after it
        set_error(err, "a lesson of layers is not edited in the window: its weights change by "
                       "training (T), its numbers in its file");
        return false;
    }
    double old = *ref, v = round((old + delta) * 1e4) / 1e4;
    if (v == 0.0) v = 0.0; // no -0 from rounding
    if (!view_param_set(&s->edit, c, v)) {
        set_error(err, "the value must be a finite number");
        return false;
    }
    if (s->retrace_async && retrace_edit(&s->rt, &s->edit, c, old)) return true;
    if (!session_retrace(s, err)) {
        view_param_set(&s->edit, c, old);
        return false;
    }
    return true;
}

int session_edit_count(const Session *s)
{
    if (s->loaded && s->circuit.on) return session_circuit_edited(s) ? 1 : 0; // trained weights
    return s->loaded ? s->edit_count : 0;
}

int session_revert(Session *s, SessionError *err)
{
    set_error(err, "");
    if (!s->loaded) return 0;
    if (s->circuit.on) return session_circuit_revert(s, err);
    (void)session_settle(s, err); // (an edit undone meanwhile is reverted anyway)
    AttnParams p;
    Trace t;
    TraceError terr;
    if (!params_copy(&p, &s->lesson.params)) {
        set_error(err, "out of memory");
        return -1;
    }
    if (!trace_run(&t, &p,
                   &terr)) { // only out of memory: the file's values traced when it was loaded
        params_free(&p);
        set_error(err, terr.message);
        return -1;
    }
    int n = session_edit_count(s);
    params_free(&s->edit);
    trace_free(&s->trace);
    s->edit = p;
    s->trace = t;
    session_drop_comparison(s);
    s->edit_count = 0;
    return n;
}

// Is the file at `at` the one this session saved last (at s->saved): the same file (not moved away
// and another put there, e.g. by a second window), the same stamp and the same bytes (not edited by
// hand)? `at` may be where the writer moved it for the look (lesson_write_own): a rename keeps all
// of these.
static bool saved_file_is_ours(const char *at, void *ctx)
{
    const Session *s = ctx;
    SessionStamp now;
    if (!s->saved[0] || !s->saved_as.hashed || !stamp_of(at, false, &now)
        || !stamp_same(&now, &s->saved_as))
        return false;
    stamp_hash(at, &now);
    return now.hashed && now.hash == s->saved_as.hash;
}

static bool saved_still_ours(const Session *s) { return saved_file_is_ours(s->saved, (void *)s); }

// FNV-1a over the bits of a matrix's values, continuing from f.
static uint64_t matrix_fingerprint(uint64_t f, const Matrix *m)
{
    const unsigned char *b = (const unsigned char *)m->data;
    size_t bytes = m->data ? (size_t)m->rows * (size_t)m->cols * sizeof(double) : 0;
    for (size_t k = 0; k < bytes; k++) f = (f ^ b[k]) * 1099511628211u;
    return f;
}

// A fingerprint of every editable value (view_param_ref's cells: X, S, each head's W_Q, W_K, W_V,
// and W_O).
static uint64_t values_fingerprint(const AttnParams *p)
{
    uint64_t f = matrix_fingerprint(matrix_fingerprint(14695981039346656037u, &p->X), &p->S);
    for (int h = 0; h < p->heads; h++)
        f = matrix_fingerprint(matrix_fingerprint(matrix_fingerprint(f, &p->W_Q[h]), &p->W_K[h]),
                               &p->W_V[h]);
    return matrix_fingerprint(f, &p->W_O);
}

// ... of a lesson of layers: every weight shown.
static uint64_t circuit_fingerprint(const Session *s)
{
    Circuit *c = (Circuit *)&s->circuit.cur;
    Matrix **m = malloc((size_t)circuit_matrix_cap(c) * sizeof *m);
    uint64_t f = 14695981039346656037u;
    int n = m ? circuit_matrices(m, c, true) : 0;
    for (int i = 0; i < n; i++) f = matrix_fingerprint(f, m[i]);
    free(m);
    return f;
}

static uint64_t shown_fingerprint(const Session *s)
{
    return s->circuit.on ? circuit_fingerprint(s) : values_fingerprint(&s->edit);
}

bool session_unsaved(const Session *s)
{
    if (s->circuit.on)
        return session_circuit_edited(s)
               && (!s->saved[0] || circuit_fingerprint(s) != s->saved_values);
    if (session_edit_count(s) == 0) return false; // the file holds these values
    return !s->saved[0] || values_fingerprint(&s->edit) != s->saved_values;
}

bool session_save(Session *s, char *out, size_t cap, SessionError *err)
{
    if (session_settle(s, err) == SESSION_RETRACE_FAILED)
        return false; // the values saved are traced ones
    set_error(err, "");
    if (!s->loaded) {
        set_error(err, "no lesson to save");
        return false;
    }
    if (s->lesson.circuit && !s->circuit.on) { // written as one layer it would lose the others
        set_error(err, "the layers of this lesson could not be run: it is not saved");
        return false;
    }
    size_t len = 0;
    char *text = s->circuit.on ? session_circuit_json(s, &len)
                               : lesson_write_json(&s->lesson, &s->edit, " (edited)", &len);
    if (!text) {
        set_error(err, "out of memory");
        return false;
    }
    // Over this session's own file only while it is still that file; a new name is claimed
    // exclusively, so two windows saving at once never both take it: the one that finds it taken
    // takes the next.
    char path[sizeof s->saved];
    const char *ours = saved_still_ours(s) ? s->saved : NULL;
    LessonError lerr;
    memset(&lerr, 0, sizeof lerr);
    bool ok = false, taken = true, named = true;
    for (int tries = 0; !ok && taken && named && tries < 1000; tries++) {
        named = lesson_edited_path(path, sizeof path, s->path[0] ? s->path : NULL, ours);
        if (named && ours
            && strcmp(path, ours) == 0) { // judged again as it is replaced: no gap for another save
            ok = lesson_write_own(path, text, len, saved_file_is_ours, s, &taken, &lerr);
            if (!ok && taken) ours = NULL; // another's by now: this save takes a free name
        } else if (named) {
            ok = lesson_write_claim(path, text, len, &taken, &lerr);
        }
    }
    uint64_t hash = platform_hash(PLATFORM_HASH_START, text, len);
    free(text);
    if (!ok) {
        if (!named || taken) set_error(err, "no free name for the edited lesson");
        else if (err)
            snprintf(err->message, sizeof err->message, "%s: %s", lerr.file, lerr.message);
        return false;
    }
    if (!stamp_of(path, false, &s->saved_as)) s->saved_as.size = -1;
    s->saved_as.hash = hash;
    s->saved_as.hashed = s->saved_as.size == (long long)len;
    snprintf(s->saved, sizeof s->saved, "%s", path);
    s->saved_values = shown_fingerprint(s);
    if (out && cap > 0) snprintf(out, cap, "%s", path);
    return true;
}

bool session_compare(Session *s, SessionError *err)
{
    set_error(err, "");
    if (!s->loaded || s->cmp_state != SESSION_CMP_NONE) return true;
    TraceError terr;
    if (!compare_run(&s->cmp, &s->edit, &terr)) {
        s->cmp_state = SESSION_CMP_FAILED;
        set_error(err, terr.message);
        return false;
    }
    s->cmp_state = SESSION_CMP_READY;
    return true;
}

const Comparison *session_comparison(const Session *s)
{
    return s->cmp_state == SESSION_CMP_READY ? &s->cmp : NULL;
}

bool session_toggle_head(Session *s, int h, SessionError *err)
{
    set_error(err, "");
    if (!s->loaded || h < 0 || h >= s->edit.heads || h >= ATTN_MAX_ABLATED_HEADS) return false;
    if (s->circuit.on) return session_circuit_toggle(s, h, err);
    uint64_t was = s->edit.ablated;
    s->edit.ablated ^= (uint64_t)1 << h;
    if (session_retrace(s, err)) return true;
    s->edit.ablated = was;
    return false;
}

bool session_set_scale(Session *s, double scale, SessionError *err)
{
    set_error(err, "");
    if (!s->loaded) return false;
    if (!isfinite(scale) || scale < 0) {
        set_error(err, "the scale must be a positive number");
        return false;
    }
    if (scale == 1.0 / sqrt((double)s->edit.d_k))
        scale = 0.0; // the default: the division the file's trace ran
    if (s->circuit.on) return session_circuit_rescale(s, scale, err);
    double was = s->edit.scale;
    s->edit.scale = scale;
    if (session_retrace(s, err)) return true;
    s->edit.scale = was;
    return false;
}

bool session_rope_shift(Session *s, int dir, SessionError *err)
{
    set_error(err, "");
    if (!s->loaded || s->edit.rope == ROPE_NONE) return false;
    int was = s->edit.rope_shift;
    s->edit.rope_shift = model_rope_shift_step(was, dir);
    if (session_retrace(s, err)) return true;
    s->edit.rope_shift = was;
    return false;
}

double session_scale(const Session *s) { return s->loaded ? params_scale(&s->edit) : 0.0; }

bool session_shuffle(Session *s, int k, SessionError *err)
{
    set_error(err, "");
    if (!s->loaded || (s->shuf_state != SESSION_CMP_NONE && s->shuf_k == k)) return true;
    if (s->lesson.circuit) { // its shuffled copy would hold one layer of the lesson
        if (err)
            snprintf(err->message, sizeof err->message,
                     "the shuffle test reorders the tokens of a lesson of one layer; this lesson "
                     "has %d layers",
                     s->lesson.circuit->model.layers);
        s->shuf_state = SESSION_CMP_FAILED;
        s->shuf_k = k;
        return false;
    }
    session_drop_shuffle(s);
    s->shuf_k = k;
    int n = s->edit.n;
    SessionShuffle *x = &s->shuf;
    memset(x, 0, sizeof *x);
    x->perm = malloc(sizeof *x->perm * (size_t)n);
    Lesson shown = session_shown(s);
    TraceError terr;
    bool ok = x->perm != NULL;
    if (ok) view_shuffle_perm(k, n, x->perm);
    ok = ok && lesson_shuffle(&x->lesson, &shown, x->perm);
    if (ok && !trace_run(&x->trace, &x->lesson.params, &terr)) {
        lesson_free(&x->lesson);
        set_error(err, terr.message);
        ok = false;
    } else if (!ok) set_error(err, "out of memory");
    if (!ok) {
        free(x->perm);
        memset(x, 0, sizeof *x);
        s->shuf_state = SESSION_CMP_FAILED;
        return false;
    }
    x->difference = trace_shuffle_difference(&s->trace, &x->trace, x->perm);
    x->same = trace_shuffle_same(&s->trace, x->difference);
    s->shuf_state = SESSION_CMP_READY;
    return true;
}

const SessionShuffle *session_shuffled(const Session *s)
{
    return s->shuf_state == SESSION_CMP_READY ? &s->shuf : NULL;
}

bool session_tiles(Session *s, int head, int block, int tile)
{
    if (!s->loaded) return true;
    if (s->tiles_ready && tiles_sheet_is_for(&s->tiles, &s->trace, head, block, tile)) return true;
    Lesson shown = session_shown(s);
    s->tiles_ready = tiles_sheet_make(&s->tiles, &shown, &s->trace, head, block, tile);
    return s->tiles_ready;
}

const TilesSheet *session_tiled(const Session *s) { return s->tiles_ready ? &s->tiles : NULL; }

void session_export(const Session *s, bool board, SessionExport *out)
{
    memset(out, 0, sizeof *out);
    out->board = board;
    out->lesson_path = s->path[0] ? s->path : NULL;
    out->shown = session_shown(s);
    out->trace = &s->trace;
    out->original = &s->lesson.params;
    out->compare = session_comparison(s);
}
