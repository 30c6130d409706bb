// Tests the session (src/model/session.h) with no window: the built-in lesson and a file load; an
// edit changes the trace and is counted, a non-finite value is refused; revert gives back the
// file's trace bit for bit; save writes NAME-edited.json atomically (no temporary left), again to
// the same file, and it reloads with the edited values and the marked title; the file watch sees a
// rewrite, keeps the last good lesson through a broken one and reloads the fixed one; a failed load
// changes nothing; the comparison is computed on demand and dropped by an edit; the export data
// points at what is shown.
#define _POSIX_C_SOURCE 200809L // mkdtemp
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lesson/lesson_write.h"
#include "model/session.h"
#include "model/stages.h"
#include "read_all.h"

static char dir[256];

static bool same_matrix(const Matrix *a, const Matrix *b)
{
    size_t n = (size_t)a->rows * (size_t)a->cols;
    return a->rows == b->rows && a->cols == b->cols
           && (n == 0 || memcmp(a->data, b->data, n * sizeof(double)) == 0);
}

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

// The number of entries in dir whose name contains part.
static int count_in_dir(const char *part)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strstr(e->d_name, part)) n++;
    if (d) closedir(d);
    return n;
}

static void test_builtin(void)
{
    Session s;
    session_init(&s);
    SessionError err;
    CHECK(session_load(&s, NULL, &err), "the built-in lesson loads: %s", err.message);
    CHECK(s.loaded && s.path[0] == '\0', "nothing watched for the built-in lesson");
    CHECK(strcmp(s.lesson.title, "The cat sat") == 0, "title %s", s.lesson.title);
    CHECK(session_poll(&s, &err) == SESSION_SAME, "no watch, no change");
    SessionExport x;
    session_export(&s, true, &x);
    CHECK(x.board && x.lesson_path == NULL, "export of the built-in lesson: no file");
    session_free(&s);
}

static void test_edit_revert_save(const char *lesson)
{
    Session s;
    session_init(&s);
    SessionError err;
    CHECK(!session_load(&s, "/nonexistent/lesson.json", &err) && err.message[0],
          "a missing file does not load");
    CHECK(!s.loaded && s.load_errors == 1, "and nothing is held");
    char long_path[1400];
    memset(long_path, 'd', sizeof long_path);
    snprintf(long_path + 1300, 100, "/the-long-lesson.json");
    Session other;
    session_init(&other);
    CHECK(!session_load(&other, long_path, &err)
              && strstr(err.message, "d/the-long-lesson.json: the path is too long"),
          "a path too long is named by its end: %.80s", err.message);
    session_free(&other);
    if (!session_load(&s, lesson, &err)) {
        CHECK(false, "the lesson loads: %s", err.message);
        return;
    }
    CHECK(strcmp(s.path, lesson) == 0, "the file is watched");
    CHECK(session_edit_count(&s) == 0, "no edits after a load");
    Trace original;
    TraceError terr;
    CHECK(trace_run(&original, &s.lesson.params, &terr), "trace of the file");

    // The comparison: computed on demand, dropped by an edit.
    CHECK(session_comparison(&s) == NULL, "no comparison before it is asked for");
    CHECK(session_compare(&s, &err) && session_comparison(&s) != NULL,
          "the comparison is computed");

    CellRef wk = {MAT_WK, 1, 1, 0};
    double before = *view_param_ref(&s.edit, wk);
    CHECK(session_edit(&s, wk, 0.5, &err), "edit W_K of head 1: %s", err.message);
    double want = round((before + 0.5) * 1e4) / 1e4;
    CHECK(*view_param_ref(&s.edit, wk) == want, "the value is %.17g, not %.17g",
          *view_param_ref(&s.edit, wk), want);
    CHECK(session_edit_count(&s) == 1, "one edit, got %d", session_edit_count(&s));
    CHECK(!same_matrix(&s.trace.output, &original.output), "the output follows the edit");
    CHECK(same_matrix(&s.trace.head[0].weights, &original.head[0].weights), "head 0 does not");
    CHECK(session_comparison(&s) == NULL, "the edit drops the comparison");
    CHECK(!session_edit(&s, wk, INFINITY, &err) && err.message[0], "an infinite value is refused");
    CHECK(*view_param_ref(&s.edit, wk) == want && session_edit_count(&s) == 1,
          "and changes nothing");
    CHECK(!session_edit(&s, (CellRef){MAT_SCORES, 0, 0, 0}, 1.0, &err) && err.message[0] == '\0',
          "scores are not editable (and that is no error)");
    Lesson shown = session_shown(&s);
    CHECK(shown.title == s.lesson.title && shown.params.W_K == s.edit.W_K,
          "shown: the file's title, the edits");

    CHECK(session_revert(&s, &err) == 1, "revert reports one edit");
    CHECK(session_edit_count(&s) == 0, "no edits after revert");
    CHECK(same_matrix(&s.trace.output, &original.output), "the file's output again, bit for bit");
    CHECK(session_revert(&s, &err) == 0, "nothing left to revert");

    // Save: NAME-edited.json beside the lesson, through a temporary file; again to the same file.
    CHECK(session_edit(&s, wk, -0.25, &err), "edit again");
    char out[1200], out2[1200], want_path[600];
    snprintf(want_path, sizeof want_path, "%s/lesson-edited.json", dir);
    CHECK(session_save(&s, out, sizeof out, &err), "save: %s", err.message);
    CHECK(strcmp(out, want_path) == 0, "saved as %s, not %s", out, want_path);
    CHECK(count_in_dir(".tmp") == 0, "no temporary file left");
    CHECK(session_edit(&s, wk, 0.125, &err), "one more edit");
    CHECK(chmod(out, 0600) == 0, "the teacher makes the save private");
    CHECK(session_save(&s, out2, sizeof out2, &err) && strcmp(out2, out) == 0,
          "saved over the same file: %s", out2);
    struct stat sb;
    CHECK(stat(out2, &sb) == 0 && (sb.st_mode & 0777) == 0600,
          "Ctrl+S keeps a private file private: %03o",
          (unsigned)(sb.st_mode & 0777)); // issue 27, item 7
    CHECK(count_in_dir("edited") == 1, "one edited file in the directory");

    Lesson saved;
    LessonError lerr;
    if (lesson_load(&saved, out, &lerr)) {
        CHECK(strstr(saved.title, "(edited)") != NULL, "the saved title is marked: %s",
              saved.title);
        CHECK(same_matrix(&saved.params.W_K[1], &s.edit.W_K[1]),
              "the saved W_K of head 1 is the edited one");
        CHECK(same_matrix(&saved.params.W_Q[0], &s.edit.W_Q[0]), "and W_Q of head 0 unchanged");
        lesson_free(&saved);
    } else {
        CHECK(false, "the saved lesson loads: %s", lerr.message);
    }
    SessionExport x;
    session_export(&s, false, &x);
    CHECK(!x.board && x.lesson_path && strcmp(x.lesson_path, lesson) == 0,
          "export: the lesson's file");
    CHECK(x.trace == &s.trace && x.original == &s.lesson.params && x.shown.params.W_K == s.edit.W_K,
          "export: what is shown, against the file's values");

    // The saved file loads into the session as a lesson of its own: no edits, and its own fresh
    // save name.
    CHECK(session_load(&s, out, &err), "the saved file loads into the session: %s", err.message);
    CHECK(session_edit_count(&s) == 0 && s.saved[0] == '\0', "no edits, nothing saved yet for it");
    CHECK(s.loads == 2, "two loads, got %ld", s.loads);
    trace_free(&original);
    session_free(&s);
}

static void test_watch(const char *lesson, const char *text)
{
    Session s;
    session_init(&s);
    SessionError err;
    if (!session_load(&s, lesson, &err)) {
        CHECK(false, "the lesson loads: %s", err.message);
        return;
    }
    CHECK(session_poll(&s, &err) == SESSION_SAME, "unchanged file, no reload");
    // A rewrite with another title (and so another size: seen even where time stamps are coarse).
    const char *at = strstr(text, "\"title\"");
    const char *q1 = at ? strchr(at + 7, '"') : NULL, *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
    if (!q2) {
        CHECK(false, "the lesson has a title");
        session_free(&s);
        return;
    }
    size_t len = strlen(text);
    char *renamed = malloc(len + 64);
    snprintf(renamed, len + 64, "%.*s\"Watched and renamed%s", (int)(q1 - text), text, q2);
    CHECK(write_text(lesson, renamed), "rewrite the lesson");
    CHECK(session_poll(&s, &err) == SESSION_RELOADED, "the rewrite is seen: %s", err.message);
    CHECK(strcmp(s.lesson.title, "Watched and renamed") == 0, "the new title: %s", s.lesson.title);
    CHECK(s.watch_changes == 1, "one change seen");
    CHECK(session_poll(&s, &err) == SESSION_SAME, "and only once");

    CHECK(session_edit(&s, (CellRef){MAT_X, 0, 0, 0}, 0.1, &err), "an edit before the file breaks");
    CHECK(write_text(lesson, "{\"title\": \"Broken\", \"tokens\": [\"a\"],\n  \"heads\": oops}\n"),
          "break the lesson");
    CHECK(session_poll(&s, &err) == SESSION_RELOAD_FAILED, "the broken file is seen");
    CHECK(strstr(err.message, "lesson.json:2:") != NULL, "the error has its position: %s",
          err.message);
    CHECK(strcmp(s.lesson.title, "Watched and renamed") == 0, "the last good lesson stays");
    CHECK(session_edit_count(&s) == 1, "with its edit");
    CHECK(strcmp(s.path, lesson) == 0, "the broken file is still watched");
    CHECK(s.load_errors == 1 && s.watch_changes == 2, "one failed reload, two changes");

    CHECK(write_text(lesson, text), "fix the lesson");
    CHECK(session_poll(&s, &err) == SESSION_RELOADED, "the fixed file reloads: %s", err.message);
    CHECK(strcmp(s.lesson.title, "Watched and renamed") != 0, "with its own title: %s",
          s.lesson.title);
    CHECK(session_edit_count(&s) == 0, "a reload drops the edits");

    // A lesson that is gone (being replaced) is looked at again later: no change, no error.
    CHECK(unlink(lesson) == 0, "remove the lesson");
    CHECK(session_poll(&s, &err) == SESSION_SAME, "a missing file is no change");
    CHECK(write_text(lesson, renamed), "the lesson is back");
    CHECK(session_poll(&s, &err) == SESSION_RELOADED, "and is loaded again");

    // Replaced by a FIFO with no writer: refused at once (an alarm ends the test if the read
    // blocks), the last good lesson stays.
    CHECK(unlink(lesson) == 0 && mkfifo(lesson, 0600) == 0, "the lesson becomes a FIFO");
    alarm(20);
    CHECK(session_poll(&s, &err) == SESSION_RELOAD_FAILED, "the FIFO is seen and refused");
    alarm(0);
    CHECK(strstr(err.message, "lesson.json") && strstr(err.message, "not a regular file"),
          "the error says why: %s", err.message);
    CHECK(s.loaded && strcmp(s.lesson.title, "Watched and renamed") == 0,
          "the last good lesson stays");
    CHECK(unlink(lesson) == 0 && write_text(lesson, text), "a regular file again");
    CHECK(session_poll(&s, &err) == SESSION_RELOADED, "and it reloads: %s", err.message);
    free(renamed);
    session_free(&s);
}

// Ctrl+S with links planted: the file this session saved is replaced by a link to the original, and
// a link at its old fixed temporary name points at a file elsewhere. The save goes to a fresh file;
// neither target changes.
static void test_save_links(const char *lesson, const char *text)
{
    Session s;
    session_init(&s);
    SessionError err;
    if (!session_load(&s, lesson, &err)) {
        CHECK(false, "the lesson loads: %s", err.message);
        return;
    }
    CellRef wk = {MAT_WK, 0, 0, 0};
    char first[1200], second[1200], tmp[1300], victim[600];
    CHECK(session_edit(&s, wk, 0.5, &err) && session_save(&s, first, sizeof first, &err),
          "first save: %s", err.message);
    snprintf(tmp, sizeof tmp, "%s.tmp", first);
    snprintf(victim, sizeof victim, "%s/victim.txt", dir);
    CHECK(write_text(victim, "VICTIM"), "a file to protect");
    CHECK(unlink(first) == 0 && symlink(lesson, first) == 0 && symlink(victim, tmp) == 0,
          "links planted");
    CHECK(session_edit(&s, wk, 0.5, &err), "edit");
    CHECK(session_save(&s, second, sizeof second, &err), "save with links planted: %s",
          err.message);
    CHECK(strcmp(second, first) != 0, "a fresh name, not the link: %s", second);
    size_t len = 0;
    char *now = read_all(lesson, &len);
    CHECK(now && strcmp(now, text) == 0, "the original lesson is unchanged");
    free(now);
    now = read_all(victim, &len);
    CHECK(now && strcmp(now, "VICTIM") == 0, "the file behind the temporary link is unchanged");
    free(now);
    CHECK(count_in_dir(".tmp") == 1, "only the planted link has .tmp in its name");
    unlink(first), unlink(tmp), unlink(second), unlink(victim);
    session_free(&s);
}

// The file rewritten in place with a title of the same length, its modification time put back to
// the one it had (a file system whose clock ticks once a second or two: ext2, FAT): the same stamp
// and size, other bytes. Every round's rewrite is seen (issue 27 item 9).
static void test_watch_coarse(const char *lesson, const char *text)
{
    static const char *const TITLES[] = {"\"title\": \"Coarse AAAA\"",
                                         "\"title\": \"Coarse BBBB\""};
    const char *at = strstr(text, "\"title\"");
    const char *q1 = at ? strchr(at + 7, '"') : NULL, *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
    if (!q2) {
        CHECK(false, "the lesson has a title");
        return;
    }
    size_t len = strlen(text), head = (size_t)(at - text), tail = len - (size_t)(q2 + 1 - text);
    char *body = malloc(len + 64);
    struct timespec tick[2] = {{0, 0},
                               {(time_t)time(NULL), 0}}; // a whole second, as a coarse clock gives
    tick[0] = tick[1];
    snprintf(body, len + 64, "%.*s%s%s", (int)head, text, TITLES[0], q2 + 1);
    CHECK(write_text(lesson, body) && utimensat(AT_FDCWD, lesson, tick, 0) == 0,
          "the lesson at a whole second");
    Session s;
    session_init(&s);
    SessionError err;
    CHECK(session_load(&s, lesson, &err), "the lesson loads: %s", err.message);
    int seen = 0, rounds = 20;
    for (int r = 1; r <= rounds; r++) {
        snprintf(body, len + 64, "%.*s%s%s", (int)head, text, TITLES[r % 2], q2 + 1);
        FILE *f = fopen(lesson, "r+b"); // in place: the same file, the same size
        bool ok = f
                  && fwrite(body, 1, head + strlen(TITLES[r % 2]) + tail, f)
                         == head + strlen(TITLES[r % 2]) + tail;
        ok = f && fclose(f) == 0 && ok;
        CHECK(ok && utimensat(AT_FDCWD, lesson, tick, 0) == 0,
              "round %d: rewritten, its time put back", r);
        seen += session_poll(&s, &err) == SESSION_RELOADED
                && strstr(s.lesson.title, r % 2 ? "BBBB" : "AAAA");
        CHECK(session_poll(&s, &err) == SESSION_SAME, "round %d: seen once", r);
    }
    CHECK(seen == rounds, "%d of %d rewrites of the same size in the same second seen", seen,
          rounds);
    free(body);
    session_free(&s);
}

// W_K[0][0][0] of the lesson at path (NAN when it does not load).
static double saved_wk(const char *path)
{
    Lesson l;
    LessonError lerr;
    if (!lesson_load(&l, path, &lerr)) return NAN;
    double v = mat_get(&l.params.W_K[0], 0, 0);
    lesson_free(&l);
    return v;
}

// Two processes with the same lesson save their edits at the same moment (released together by a
// pipe, each its own edit), round after round: two files, each holding its own edit (issue 27 item
// 6).
static void test_save_race(const char *lesson)
{
    int rounds = 30, lost = 0;
    for (int r = 0; r < rounds; r++) {
        int go[2], back[2];
        if (pipe(go) != 0 || pipe(back) != 0) {
            CHECK(false, "pipes");
            return;
        }
        pid_t kid[2];
        for (int k = 0; k < 2; k++) {
            kid[k] = fork();
            if (kid[k] != 0) continue;
            Session s;
            session_init(&s);
            SessionError err;
            char out[1200] = "", c;
            bool ok = session_load(&s, lesson, &err)
                      && session_edit(&s, (CellRef){MAT_WK, 0, 0, 0}, k + 1.0, &err);
            ok = write(back[1], "r", 1) == 1 && ok; // ready
            ok = read(go[0], &c, 1) == 1 && ok; // and released with the other one
            ok = ok && session_save(&s, out, sizeof out, &err);
            dprintf(back[1], "%d %s\n", k, ok ? out : "-");
            _exit(ok ? 0 : 1);
        }
        char c[2];
        size_t ready = 0;
        ssize_t got1;
        while (ready < 2 && (got1 = read(back[0], c + ready, 2 - ready)) > 0) ready += (size_t)got1;
        CHECK(ready == 2, "both ready");
        CHECK(write(go[1], "gg", 2) == 2, "both released");
        close(go[1]);
        close(back[1]);
        int st[2];
        for (int k = 0; k < 2; k++) waitpid(kid[k], &st[k], 0);
        char buf[2600] = "";
        size_t got = 0;
        ssize_t n;
        while (got < sizeof buf - 1 && (n = read(back[0], buf + got, sizeof buf - 1 - got)) > 0)
            got += (size_t)n;
        close(go[0]);
        close(back[0]);
        char path[2][1200] = {"", ""};
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
            int k = -1;
            char p[1200];
            if (sscanf(line, "%d %1199s", &k, p) == 2 && k >= 0 && k < 2)
                snprintf(path[k], sizeof path[k], "%s", p);
        }
        double base = 0;
        Lesson l;
        LessonError lerr;
        if (lesson_load(&l, lesson, &lerr)) {
            base = mat_get(&l.params.W_K[0], 0, 0);
            lesson_free(&l);
        }
        bool both = strcmp(path[0], path[1]) != 0;
        for (int k = 0; k < 2; k++)
            both = both && fabs(saved_wk(path[k]) - round((base + k + 1.0) * 1e4) / 1e4) < 1e-12;
        lost += !both;
        if (!both) fprintf(stderr, "round %d: saved to '%s' and '%s'\n", r, path[0], path[1]);
        for (int k = 0; k < 2; k++)
            if (path[k][0]) unlink(path[k]);
    }
    CHECK(lost == 0, "%d of %d rounds lost a save", lost, rounds);
}

// A window counts its file by what it is, not by its name: its first save moved away by the teacher
// and another window's save at that name, the first window's next save goes elsewhere; the same
// with the other's bytes identical to its own (issue 27 item 6).
static void test_save_ownership(const char *lesson)
{
    for (int same = 0; same < 2; same++) {
        Session a, b;
        session_init(&a);
        session_init(&b);
        SessionError err;
        char pa[1200], pb[1200], pa2[1200], moved[1300];
        CHECK(session_load(&a, lesson, &err) && session_load(&b, lesson, &err), "two windows: %s",
              err.message);
        CHECK(session_save(&a, pa, sizeof pa, &err), "the first window saves: %s", err.message);
        snprintf(moved, sizeof moved, "%s.moved", pa);
        CHECK(rename(pa, moved) == 0, "the teacher moves it away");
        if (!same) session_edit(&b, (CellRef){MAT_WK, 0, 0, 0}, 2.0, &err);
        CHECK(session_save(&b, pb, sizeof pb, &err) && strcmp(pb, pa) == 0,
              "the other window saves there: %s", pb);
        size_t n0 = 0, n1 = 0;
        char *before = read_all(pb, &n0);
        session_edit(&a, (CellRef){MAT_WK, 0, 0, 0}, 1.0, &err);
        CHECK(session_save(&a, pa2, sizeof pa2, &err), "the first window saves again: %s",
              err.message);
        char *after = read_all(pb, &n1);
        CHECK(strcmp(pa2, pb) != 0, "%s: not over the other window's file (%s)",
              same ? "same bytes" : "other bytes", pa2);
        CHECK(before && after && n0 == n1 && memcmp(before, after, n0) == 0,
              "the other window's file is as it saved it");
        free(before);
        free(after);
        unlink(pa2), unlink(pb), unlink(moved);
        session_free(&a);
        session_free(&b);
    }
}

// Issue 14 in the session: a head switched off and on, the scale moved and back to its default (the
// same bits as the file's trace), and the shuffle test with and without positions.
static void test_teaching(void)
{
    Session s;
    session_init(&s);
    SessionError err;
    char path[1024];
    snprintf(path, sizeof path, "%s/lessons/the-dog-bit-the-man.json", MHA_SOURCE_DIR);
    if (!session_load(&s, path, &err)) {
        CHECK(false, "dog lesson loads: %s", err.message);
        return;
    }
    Matrix before;
    CHECK(mat_copy(&before, &s.trace.output), "copy");
    CHECK(session_toggle_head(&s, 1, &err) && params_ablated(&s.edit, 1)
              && s.trace.full_output.data,
          "head 1 off: %s", err.message);
    CHECK(mat_max_abs_diff(&s.trace.full_output, &before) == 0.0,
          "the output with every head is the one before");
    CHECK(!session_toggle_head(&s, 2, &err), "there is no head 2");
    CHECK(session_toggle_head(&s, 1, &err) && !s.edit.ablated
              && mat_max_abs_diff(&s.trace.output, &before) == 0.0,
          "head 1 on again: the same output");
    // With positions the class edits E; X = E + P follows, and the trace with it.
    CellRef e01 = {MAT_E, 0, 0, 1};
    CHECK(session_edit(&s, e01, 0.5, &err) && mat_get(&s.edit.E, 0, 1) == 0.5
              && mat_get(&s.edit.X, 0, 1) == 0.5 + mat_get(&s.edit.P, 0, 1)
              && mat_get(&s.edit.S, 0, 1) == mat_get(&s.edit.X, 0, 1),
          "an edit of E moves X and S: %s", err.message);
    CHECK(!session_edit(&s, (CellRef){MAT_X, 0, 0, 1}, 0.5, &err),
          "X itself is computed, not edited");
    CHECK(session_revert(&s, &err) == 1 && mat_max_abs_diff(&s.trace.output, &before) == 0.0,
          "revert");
    CHECK(session_set_scale(&s, 1.0, &err) && s.edit.scale == 1.0 && session_scale(&s) == 1.0,
          "scale 1");
    CHECK(mat_get(&s.trace.head[0].scaled, 1, 2) == mat_get(&s.trace.head[0].scores, 1, 2),
          "scaled = scores at 1");
    size_t len = 0;
    char *saved = lesson_write_json(&s.lesson, &s.edit, " (edited)", &len); // what Ctrl+S writes
    CHECK(saved && strstr(saved, "\"scale\": 1,") && strstr(saved, "\"positions\": \"sinusoidal\""),
          "the saved lesson keeps the scale and the positions");
    free(saved);
    CHECK(session_set_scale(&s, 1.0 / sqrt(2.0), &err) && s.edit.scale == 0.0,
          "the stop 1/sqrt(d_k) is the default");
    CHECK(mat_max_abs_diff(&s.trace.output, &before) == 0.0,
          "back at the default: the file's bits");
    CHECK(!session_set_scale(&s, -1, &err) && s.edit.scale == 0.0, "a negative scale is refused");
    // The shuffle: with positions the rows change; the reversed tokens.
    CHECK(session_shuffle(&s, 0, &err) && session_shuffled(&s), "shuffle: %s", err.message);
    const SessionShuffle *x = session_shuffled(&s);
    CHECK(x && !x->same && x->difference > 0.1 && strcmp(x->lesson.tokens[0], "man") == 0,
          "with positions the rows change");
    // Reordering 7 of 5 tokens swaps tokens 1 and 4: "the man bit the dog".
    CHECK(session_shuffle(&s, 7, &err) && (x = session_shuffled(&s))
              && strcmp(x->lesson.tokens[1], "man") == 0 && strcmp(x->lesson.tokens[4], "dog") == 0
              && !x->same,
          "the man bit the dog: the rows change");
    CHECK(session_toggle_head(&s, 0, &err) && !session_shuffled(&s),
          "a change of the parameters drops the shuffle");
    mat_free(&before);
    // Without positions (the mat lesson): only moved.
    snprintf(path, sizeof path, "%s/lessons/the-cat-sat-on-the-mat.json", MHA_SOURCE_DIR);
    if (session_load(&s, path, &err) && session_shuffle(&s, 0, &err)) {
        x = session_shuffled(&s);
        CHECK(x->same && x->difference < 1e-12, "without positions the rows only move (%g)",
              x->difference);
    } else CHECK(false, "mat lesson shuffle: %s", err.message);
    session_free(&s);
}

// Issue 27: with retrace_async an edit's trace runs on a worker: the value changes at once, the
// trace shown is the previous one until session_retrace_poll shows the new one (the same bits as a
// trace here), edits made meanwhile are traced together, and an edit whose trace fails is undone.
static void test_retrace_async(void)
{
    Session s, sync;
    session_init(&s);
    session_init(&sync);
    SessionError err;
    CHECK(session_load(&s, NULL, &err) && session_load(&sync, NULL, &err),
          "the built-in lesson loads: %s", err.message);
    s.retrace_async = true;
    CellRef wk = {MAT_WK, 1, 1, 0}, wq = {MAT_WQ, 0, 0, 1};
    Trace before;
    TraceError terr;
    CHECK(trace_run(&before, &s.edit, &terr), "trace");
    CHECK(session_edit(&s, wk, 0.5, &err) && session_edit(&s, wq, -0.25, &err), "two edits: %s",
          err.message);
    CHECK(session_edit(&sync, wk, 0.5, &err) && session_edit(&sync, wq, -0.25, &err),
          "the same, traced here");
    CHECK(*view_param_ref(&s.edit, wk) == *view_param_ref(&sync.edit, wk),
          "the value changes at once");
    CHECK(session_retrace_busy(&s), "the trace runs on the worker");
    CHECK(same_matrix(&s.trace.output, &before.output), "until it is shown, the previous trace");
    int polls = 0;
    SessionRetracePoll r = SESSION_RETRACE_IDLE;
    while ((r = session_retrace_poll(&s, &err)) == SESSION_RETRACE_IDLE && session_retrace_busy(&s))
        polls++;
    CHECK(r == SESSION_RETRACE_SHOWN && !session_retrace_busy(&s), "shown (%d polls): %s", polls,
          err.message);
    CHECK(same_matrix(&s.trace.output, &sync.trace.output)
              && same_matrix(&s.trace.head[1].weights, &sync.trace.head[1].weights),
          "the same bits as the trace here");
    CHECK(session_edit_count(&s) == 2, "two edits counted, got %d", session_edit_count(&s));
    // An edit whose trace overflows: undone when it ends.
    CellRef x = {MAT_X, 0, 0, 0};
    double was = *view_param_ref(&s.edit, x);
    CHECK(session_edit(&s, x, 1e300, &err), "a huge value is taken at once");
    CHECK(session_settle(&s, &err) == SESSION_RETRACE_FAILED && err.message[0],
          "its trace fails: %s", err.message);
    CHECK(*view_param_ref(&s.edit, x) == was && same_matrix(&s.trace.output, &sync.trace.output),
          "and it is undone");
    // A save waits for the trace: what is saved was traced.
    CHECK(session_edit(&s, wk, 0.5, &err) && session_settle(&s, &err) == SESSION_RETRACE_SHOWN,
          "settled: %s", err.message);
    trace_free(&before);
    session_free(&s);
    session_free(&sync);
}

// A lesson of layers has attention only: its residual add and next token say so (no norm, no
// MLP), layer by layer: x_{l+1} = x_l + MHA_l(x_l), logits = x_L U.
static void test_circuit_texts(void)
{
    Session s;
    session_init(&s);
    SessionError err;
    char path[1024], f[512], x[1024];
    snprintf(path, sizeof path, "%s/lessons/induction-heads.json", MHA_SOURCE_DIR);
    if (!session_load(&s, path, &err)) {
        CHECK(false, "induction-heads loads: %s", err.message);
        return;
    }
    CHECK(session_circuit_layers(&s) == 2 && session_circuit_shown(&s) == 0, "two layers, 0 shown");
    stage_info(STAGE_RESIDUAL)->formula(&s.edit, 0, f, sizeof f);
    stage_info(STAGE_RESIDUAL)->explain(&s.edit, x, sizeof x);
    CHECK(strcmp(f, "h\xe2\x80\xb2 = x_1 = x_0 + MHA_0(x_0)") == 0, "layer 0's add: %s", f);
    CHECK(strstr(x, "x_1 = x_0 + MHA_0(x_0)") && strstr(x, "layer 1 reads this sum")
              && !strstr(x, "The MLP"),
          "layer 0's add explained: %s", x);
    CHECK(session_circuit_layer(&s, 1, &err), "layer 1: %s", err.message);
    stage_info(STAGE_RESIDUAL)->explain(&s.edit, x, sizeof x);
    CHECK(strstr(x, "x_2 = x_1 + MHA_1(x_1)") && strstr(x, "x_2, the last stream"),
          "layer 1's add explained: %s", x);
    stage_info(STAGE_NEXT)->formula(&s.edit, 0, f, sizeof f);
    stage_info(STAGE_NEXT)->explain(&s.edit, x, sizeof x);
    CHECK(strcmp(f, "p = softmax(x_2 U)") == 0, "the next token's formula: %s", f);
    CHECK(strstr(x, "logits are x_2 U") && strstr(x, "no final norm and no MLP"),
          "the next token explained: %s", x);
    session_free(&s);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/mha-session-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char src[1024], lesson[600];
    snprintf(src, sizeof src, "%s/lessons/the-cat-sat-on-the-mat.json", MHA_SOURCE_DIR);
    snprintf(lesson, sizeof lesson, "%s/lesson.json", dir);
    size_t len = 0;
    char *text = read_all(src, &len);
    CHECK(text != NULL, "read %s", src);
    if (text && write_text(lesson, text)) {
        test_builtin();
        test_edit_revert_save(lesson);
        test_save_links(lesson, text);
        test_save_race(lesson);
        test_save_ownership(lesson);
        CHECK(write_text(lesson, text), "restore the lesson");
        test_watch(lesson, text);
        test_watch_coarse(lesson, text);
    }
    free(text);
    test_teaching();
    test_circuit_texts();
    test_retrace_async();
    // Clean up the temporary directory.
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[900];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    if (d) closedir(d);
    rmdir(dir);
    return check_report("test_session");
}
