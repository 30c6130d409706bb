// Tests lesson_write: every shipped lesson written out in the explicit form loads back to a
// bit-identical trace (also after an edit), strings are escaped, the file is written through a
// temporary over a regular file only (keeping its mode; dead writers' temporaries cleaned), and the
// edited file's name never replaces the original nor a file this session did not write.
#define _XOPEN_SOURCE 700 // S_IFMT and its kinds
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "lesson/lesson.h"
#include "lesson/lesson_write.h"

static bool same_matrix(const Matrix *a, const Matrix *b)
{
    if (a->rows != b->rows || a->cols != b->cols) return false;
    size_t n = (size_t)a->rows * (size_t)a->cols;
    return n == 0 || memcmp(a->data, b->data, n * sizeof(double)) == 0;
}

static bool same_trace(const Trace *a, const Trace *b)
{
    if (a->heads != b->heads) return false;
    for (int h = 0; h < a->heads; h++) {
        const HeadTrace *x = &a->head[h], *y = &b->head[h];
        if (!same_matrix(&x->Q, &y->Q) || !same_matrix(&x->K, &y->K) || !same_matrix(&x->V, &y->V)
            || !same_matrix(&x->scores, &y->scores) || !same_matrix(&x->scaled, &y->scaled)
            || !same_matrix(&x->weights, &y->weights) || !same_matrix(&x->Z, &y->Z))
            return false;
    }
    return same_matrix(&a->concat, &b->concat) && same_matrix(&a->output, &b->output);
}

// Writes l with params p, parses it back and compares the traces bit for bit.
static void round_trip(const char *what, const Lesson *l, const AttnParams *p)
{
    size_t len = 0;
    char *text = lesson_write_json(l, p, " (edited)", &len);
    CHECK(text != NULL && len == strlen(text), "%s: written", what);
    if (!text) return;
    Lesson back;
    LessonError err;
    if (!lesson_parse(&back, text, len, what, &err)) {
        char buf[1200];
        CHECK(false, "%s: the written lesson parses: %s", what,
              lesson_error_format(&err, buf, sizeof buf));
        free(text);
        return;
    }
    Trace t1, t2;
    TraceError terr;
    CHECK(trace_run(&t1, p, &terr), "%s: trace of the original", what);
    CHECK(trace_run(&t2, &back.params, &terr), "%s: trace of the written lesson", what);
    CHECK(same_trace(&t1, &t2), "%s: the written lesson traces bit-identically", what);
    CHECK(same_matrix(&p->X, &back.params.X) && same_matrix(&p->W_O, &back.params.W_O),
          "%s: X and W_O identical", what);
    CHECK(back.params.mask == p->mask && back.params.cross == p->cross && back.params.d_k == p->d_k,
          "%s: mask, cross, d_k", what);
    CHECK(back.params.positions == p->positions && back.params.scale == p->scale,
          "%s: positions and scale kept", what);
    if (p->positions != POS_NONE)
        CHECK(same_matrix(&p->E, &back.params.E) && same_matrix(&p->P, &back.params.P)
                  && (!p->cross
                      || (same_matrix(&p->E_S, &back.params.E_S)
                          && same_matrix(&p->P_S, &back.params.P_S))),
              "%s: E, P (and the source's) identical", what);
    CHECK(strstr(back.title, " (edited)") != NULL, "%s: title marked (edited): %s", what,
          back.title);
    CHECK(strstr(back.title, " (edited) (edited)") == NULL, "%s: suffix not doubled", what);
    CHECK((l->notes == NULL) == (back.notes == NULL)
              && (!l->notes || strcmp(l->notes, back.notes) == 0),
          "%s: notes kept", what);
    CHECK((l->language == NULL) == (back.language == NULL)
              && (!l->language || strcmp(l->language, back.language) == 0),
          "%s: language kept", what);
    for (int i = 0; i < p->n; i++)
        CHECK(strcmp(l->tokens[i], back.tokens[i]) == 0, "%s: token %d", what, i);
    for (int i = 0; i < p->m; i++)
        CHECK(strcmp(l->source_tokens[i], back.source_tokens[i]) == 0, "%s: source token %d", what,
              i);
    // The questions come back as they were read (their every field).
    CHECK(back.question_count == l->question_count, "%s: %d questions, got %d", what,
          l->question_count, back.question_count);
    for (int i = 0; i < l->question_count && i < back.question_count; i++) {
        const LessonQuestion *a = &l->questions[i], *b = &back.questions[i];
        bool same = !strcmp(a->stage, b->stage) && !strcmp(a->text, b->text) && a->head == b->head
                    && a->kind == b->kind && (a->matrix == NULL) == (b->matrix == NULL)
                    && (!a->matrix || !strcmp(a->matrix, b->matrix)) && a->row == b->row
                    && a->col == b->col && a->among_column == b->among_column
                    && a->among_matrix == b->among_matrix && a->pick_min == b->pick_min
                    && a->value == b->value && a->tolerance == b->tolerance
                    && a->choice_count == b->choice_count && a->correct == b->correct
                    && !memcmp(a->choices, b->choices, sizeof a->choices);
        CHECK(same, "%s: question %d written back as it was", what, i);
    }
    trace_free(&t1);
    trace_free(&t2);
    lesson_free(&back);
    free(text);
}

static void test_lesson(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MHA_SOURCE_DIR, rel);
    Lesson l;
    LessonError err;
    if (!lesson_load(&l, path, &err)) {
        CHECK(false, "%s loads: %s", rel, err.message);
        return;
    }
    round_trip(rel, &l, &l.params);
    // An edited copy: one weight and one embedding changed to values with many digits.
    AttnParams e;
    CHECK(params_copy(&e, &l.params), "%s: copy", rel);
    mat_set(&e.W_K[e.heads - 1], 0, 0, 0.1 + 0.2);
    if (e.positions != POS_NONE) { // the file holds E; X = E + P follows it
        mat_set(&e.E, 0, e.d_model - 1, -1.0 / 3.0);
        params_apply_positions(&e);
    } else {
        mat_set(&e.X, 0, e.d_model - 1, -1.0 / 3.0);
        if (!e.cross) mat_set(&e.S, 0, e.d_model - 1, -1.0 / 3.0);
    }
    char what[1100];
    snprintf(what, sizeof what, "%s edited", rel);
    round_trip(what, &l, &e);
    params_free(&e);
    lesson_free(&l);
}

static void test_strings(void)
{
    const char *src = "{\"title\": \"Quote \\\" and \\\\ and \\u0001 and caf\xc3\xa9\", \"notes\": "
                      "\"line\\nbreak\\ttab\","
                      " \"tokens\": [\"a\\\"b\", \"\xe2\x9c\x93\"], \"embeddings\": [[1, -0.0], "
                      "[1e-300, 1e300]], \"heads\": 1,"
                      " \"weights\": {\"W_Q\": [[[1, 0], [0, 1]]], \"W_K\": [[[1, 0], [0, 1]]], "
                      "\"W_V\": [[[1, 0], [0, 1]]],"
                      " \"W_O\": [[1, 0], [0, 1]], \"b_V\": [[0, 0.5]]}}";
    Lesson l, back;
    LessonError err;
    CHECK(lesson_parse(&l, src, strlen(src), "strings", &err), "the string lesson parses: %s",
          err.message);
    size_t len;
    char *text = lesson_write_json(&l, &l.params, NULL, &len);
    CHECK(text && lesson_parse(&back, text, len, "written", &err), "written strings parse back: %s",
          err.message);
    if (text) {
        CHECK(strcmp(back.title, l.title) == 0,
              "title with quote, backslash, control char and UTF-8 kept");
        CHECK(strcmp(back.notes, "line\nbreak\ttab") == 0, "notes kept");
        CHECK(strcmp(back.tokens[0], "a\"b") == 0 && strcmp(back.tokens[1], "\xe2\x9c\x93") == 0,
              "tokens kept");
        CHECK(mat_get(&back.params.b_V[0], 0, 1) == 0.5, "b_V written");
        CHECK(strstr(text, "b_Q") == NULL && strstr(text, "b_O") == NULL, "zero biases left out");
        CHECK(mat_get(&back.params.X, 1, 1) == 1e300 && mat_get(&back.params.X, 1, 0) == 1e-300,
              "extremes exact");
        lesson_free(&back);
    }
    free(text);
    lesson_free(&l);
    // The one escaping rule of every JSON output (issue 37): DEL, a C1 control (CSI) and a bidi
    // override are written escaped in a saved lesson as in --json, and read back as they were.
    const char *odd =
        "{\"title\": \"del \\u007f csi \\u009b rlo \\u202e end\", \"tokens\": [\"a\", \"b\"], "
        "\"embeddings\": [[1, 0], [0, 1]], \"heads\": 1, \"weights\": {\"random\": {\"seed\": 1}}}";
    CHECK(lesson_parse(&l, odd, strlen(odd), "odd", &err), "the odd title parses: %s", err.message);
    text = lesson_write_json(&l, &l.params, NULL, &len);
    CHECK(text && strstr(text, "\"del \\u007f csi \\u009b rlo \\u202e end\""),
          "DEL, C1 and RLO escaped in the saved lesson");
    CHECK(text && lesson_parse(&back, text, len, "written", &err)
              && strcmp(back.title, l.title) == 0,
          "the escaped title reads back the same");
    if (text) lesson_free(&back);
    free(text);
    lesson_free(&l);
}

static void test_files(void)
{
    char dir[] = "/tmp/mha-write-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    char orig[256], out[512], first[512];
    snprintf(orig, sizeof orig, "%s/lesson.json", dir);
    LessonError err;
    CHECK(lesson_write_file(orig, "{}", 2, &err), "write a file: %s", err.message);
    CHECK(lesson_edited_path(out, sizeof out, orig, NULL), "a name for the edited lesson");
    char want[512];
    snprintf(want, sizeof want, "%s/lesson-edited.json", dir);
    CHECK(strcmp(out, want) == 0, "NAME-edited.json beside the original, got %s", out);
    snprintf(first, sizeof first, "%s", out);
    CHECK(lesson_write_file(first, "x", 1, &err), "save the edited lesson");
    CHECK(lesson_edited_path(out, sizeof out, orig, first) && strcmp(out, first) == 0,
          "our own file is saved over again");
    CHECK(lesson_edited_path(out, sizeof out, orig, NULL), "another session");
    snprintf(want, sizeof want, "%s/lesson-edited-2.json", dir);
    CHECK(strcmp(out, want) == 0, "a file that is not ours is kept: NAME-edited-2.json, got %s",
          out);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", first);
    CHECK(access(tmp, F_OK) != 0, "no temporary file left behind");
    CHECK(lesson_edited_path(out, sizeof out, NULL, NULL)
              && strncmp(out, "the-cat-sat-edited", 18) == 0 && !strchr(out, '/'),
          "the built-in lesson saves in the working directory: %s", out);
    char bad[600];
    snprintf(bad, sizeof bad, "%s/missing-dir/x.json", dir);
    CHECK(!lesson_write_file(bad, "x", 1, &err) && err.io, "an unwritable place is an I/O error");
    remove(first);
    remove(orig);
    rmdir(dir);
}

static bool file_is(const char *path, const char *want)
{
    char buf[256];
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, want) == 0;
}

// Links planted where the save writes: at the old fixed temporary name (pointing outside the
// folder) and at the edited name (pointing at the original). Neither is followed; the original is
// never replaced.
static void test_links(void)
{
    char dir[] = "/tmp/mha-write-XXXXXX", outside_dir[] = "/tmp/mha-outside-XXXXXX";
    CHECK(mkdtemp(dir) != NULL && mkdtemp(outside_dir) != NULL, "temporary directories");
    char orig[256], outside[256], edited[256], old_tmp[256], out[512];
    snprintf(orig, sizeof orig, "%s/lesson.json", dir);
    snprintf(outside, sizeof outside, "%s/victim.txt", outside_dir);
    snprintf(edited, sizeof edited, "%s/lesson-edited.json", dir);
    snprintf(old_tmp, sizeof old_tmp, "%s/lesson-edited.json.tmp", dir);
    LessonError err;
    CHECK(lesson_write_new_file(orig, "ORIGINAL", 8, &err)
              && lesson_write_new_file(outside, "OUTSIDE", 7, &err),
          "files");
    CHECK(symlink(orig, edited) == 0 && symlink(outside, old_tmp) == 0, "links planted");
    CHECK(lesson_edited_path(out, sizeof out, orig, NULL) && strcmp(out, edited) != 0,
          "a link at NAME-edited.json is not a free name: %s", out);
    CHECK(lesson_edited_path(out, sizeof out, orig, edited) && strcmp(out, edited) != 0,
          "nor is it ours once it is a link: %s", out);
    // Written straight at the link's name: refused, the link stays as it was, nothing is written
    // through it.
    struct stat sb;
    CHECK(!lesson_write_file(edited, "EDITED", 6, &err) && err.io
              && strstr(err.message, "is a link"),
          "a save at a link's name is refused: %s", err.message);
    CHECK(lstat(edited, &sb) == 0 && S_ISLNK(sb.st_mode) && file_is(orig, "ORIGINAL"),
          "the link is left alone");
    CHECK(unlink(edited) == 0 && lesson_write_file(edited, "EDITED", 6, &err),
          "save where the link was: %s", err.message);
    char tmp2[300];
    snprintf(tmp2, sizeof tmp2, "%s/lesson-edited-2.json.tmp", dir);
    CHECK(symlink(outside, tmp2) == 0, "a link at the next temporary name");
    CHECK(lesson_write_file(out, "EDITED2", 7, &err), "save at the next name: %s", err.message);
    CHECK(file_is(orig, "ORIGINAL"), "the original lesson is unchanged");
    CHECK(file_is(outside, "OUTSIDE"), "the file outside the folder is unchanged");
    CHECK(lstat(edited, &sb) == 0 && S_ISREG(sb.st_mode) && file_is(edited, "EDITED"),
          "a fresh file at the name");
    CHECK(file_is(out, "EDITED2"), "the next name holds its save");
    // A link planted at this process's own temporary name (".NAME.PID.tmp"): the writer takes the
    // next try
    // (".NAME.PID-1.tmp"), the link is left alone and nothing is written through it.
    char own_tmp[600], next_tmp[600];
    snprintf(own_tmp, sizeof own_tmp, "%s/.lesson-edited.json.%ld.tmp", dir, (long)getpid());
    snprintf(next_tmp, sizeof next_tmp, "%s/.lesson-edited.json.%ld-1.tmp", dir, (long)getpid());
    CHECK(symlink(outside, own_tmp) == 0, "a link at our own temporary name");
    CHECK(lesson_write_file(edited, "EDITED3", 7, &err), "save past the planted temporary: %s",
          err.message);
    CHECK(file_is(edited, "EDITED3") && file_is(outside, "OUTSIDE"),
          "saved, nothing written through the link");
    CHECK(lstat(own_tmp, &sb) == 0 && S_ISLNK(sb.st_mode) && access(next_tmp, F_OK) != 0,
          "the planted link stays, the next try's temporary is gone");
    unlink(own_tmp);
    CHECK(lstat(old_tmp, &sb) == 0 && S_ISLNK(sb.st_mode),
          "the planted temporary link is left alone");
    DIR *d = opendir(dir);
    int left = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            left++;
    }
    if (d) closedir(d);
    CHECK(left == 0, "no temporary left behind (%d)", left);
    unlink(orig), unlink(edited), unlink(old_tmp), unlink(tmp2), unlink(out), unlink(outside);
    rmdir(dir), rmdir(outside_dir);
}

// What may be replaced (issue 27, item 7): only a regular file, and it keeps its permission bits. A
// FIFO, a folder and links (to a file, to /proc/self/fd/1) are refused, each left as it was.
static void test_targets(void)
{
    char dir[] = "/tmp/mha-target-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    char fifo[300], folder[300], to_fd[300], priv[300], group[300];
    snprintf(fifo, sizeof fifo, "%s/fifo.json", dir);
    snprintf(folder, sizeof folder, "%s/folder.json", dir);
    snprintf(to_fd, sizeof to_fd, "%s/stdout.json", dir);
    snprintf(priv, sizeof priv, "%s/private.json", dir);
    snprintf(group, sizeof group, "%s/group.json", dir);
    CHECK(mkfifo(fifo, 0644) == 0 && mkdir(folder, 0755) == 0
              && symlink("/proc/self/fd/1", to_fd) == 0,
          "a FIFO, a folder and a link planted");
    const struct {
        const char *path, *says;
        mode_t kind;
    } refused[] = {{fifo, "is a FIFO", S_IFIFO},
                   {folder, "is a folder", S_IFDIR},
                   {to_fd, "is a link", S_IFLNK}};
    LessonError err;
    struct stat sb;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK(!lesson_write_file(refused[i].path, "{}", 2, &err) && err.io
                  && strstr(err.message, refused[i].says),
              "%s refused: %s", refused[i].path, err.message);
        CHECK(!lesson_write_target(refused[i].path, &err) && strstr(err.message, refused[i].says),
              "%s refused up front: %s", refused[i].path, err.message);
        CHECK(lstat(refused[i].path, &sb) == 0 && (sb.st_mode & S_IFMT) == refused[i].kind,
              "%s left as it was", refused[i].path);
    }
    CHECK(lesson_write_target(priv, &err), "nothing there: a target");
    const struct {
        const char *path;
        mode_t mode;
    } kept[] = {{priv, 0600}, {group, 0640}};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        CHECK(lesson_write_new_file(kept[i].path, "A", 1, &err)
                  && chmod(kept[i].path, kept[i].mode) == 0,
              "a file");
        CHECK(lesson_write_target(kept[i].path, &err)
                  && lesson_write_file(kept[i].path, "B", 1, &err),
              "a regular file is replaced: %s", err.message);
        CHECK(lstat(kept[i].path, &sb) == 0 && S_ISREG(sb.st_mode)
                  && (sb.st_mode & 0777) == kept[i].mode && file_is(kept[i].path, "B"),
              "%s keeps mode %03o: %03o", kept[i].path, (unsigned)kept[i].mode,
              (unsigned)(sb.st_mode & 0777));
    }
    unlink(fifo), rmdir(folder), unlink(to_fd), unlink(priv), unlink(group);
    rmdir(dir);
}

// Temporaries of a writer killed midway (issue 27, item 8: kill -9 during --train) go with the next
// write to the same target; those of a live process, and of other targets, stay.
static void test_leftovers(void)
{
    char dir[] = "/tmp/mha-left-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    pid_t child = fork();
    if (child == 0) _exit(0);
    CHECK(child > 0 && waitpid(child, NULL, 0) == child, "a process that is gone");
    char out[300], dead[400], dead_k[400], dead_old[400], live[400], other[400];
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(dead, sizeof dead, "%s/.out.json.%ld.tmp", dir, (long)child);
    snprintf(dead_k, sizeof dead_k, "%s/.out.json.%ld-3.tmp", dir, (long)child);
    snprintf(dead_old, sizeof dead_old, "%s/.out.json.%ld.old", dir, (long)child);
    snprintf(live, sizeof live, "%s/.out.json.%ld.tmp", dir, (long)getppid());
    snprintf(other, sizeof other, "%s/.other.json.%ld.tmp", dir, (long)child);
    const char *planted[] = {dead, dead_k, dead_old, live, other};
    LessonError err;
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++)
        CHECK(lesson_write_new_file(planted[i], "LEFT", 4, &err), "planted %s", planted[i]);
    CHECK(lesson_write_file(out, "{}", 2, &err), "a write to out.json: %s", err.message);
    CHECK(access(dead, F_OK) != 0 && access(dead_k, F_OK) != 0 && access(dead_old, F_OK) != 0,
          "the dead writer's temporaries are gone");
    CHECK(file_is(live, "LEFT") && file_is(other, "LEFT"),
          "a live process's and another target's stay");
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++) unlink(planted[i]);
    unlink(out);
    rmdir(dir);
}

// Replacing the session's own earlier save (issue 27, item 3 of the review): what is at the name is
// taken away and judged in the same step as the replacement. The judge sees the file that would be
// replaced: when another file was put there since (the teacher moved the save away, another window
// saved there), it is refused and that file stays, its bytes, identity and mode; the judge's own
// file is replaced, its mode kept, nothing left beside it. Nothing at the name: claimed.
typedef struct {
    const char *expect; // the bytes the judge calls its own
    int calls;
    char seen[64];
} Judge;

static bool judge(const char *at, void *ctx)
{
    Judge *j = ctx;
    j->calls++;
    FILE *f = fopen(at, "rb");
    size_t n = f ? fread(j->seen, 1, sizeof j->seen - 1, f) : 0;
    j->seen[n] = '\0';
    if (f) fclose(f);
    return strcmp(j->seen, j->expect) == 0;
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static void test_own(void)
{
    char dir[] = "/tmp/mha-own-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    char path[300], moved[300];
    snprintf(path, sizeof path, "%s/lesson-edited.json", dir);
    snprintf(moved, sizeof moved, "%s/moved.json", dir);
    LessonError err;
    bool taken = true;
    CHECK(lesson_write_file(path, "MINE", 4, &err) && chmod(path, 0600) == 0, "the first save");
    // The save moved away, another window's at its name: refused, the other's file untouched.
    CHECK(rename(path, moved) == 0 && lesson_write_file(path, "THEIRS", 6, &err),
          "another file at the name");
    struct stat before, after;
    CHECK(stat(path, &before) == 0, "stat");
    Judge j = {"MINE", 0, ""};
    CHECK(!lesson_write_own(path, "NEW", 3, judge, &j, &taken, &err) && taken,
          "not ours: refused as taken");
    CHECK(j.calls == 1 && strcmp(j.seen, "THEIRS") == 0, "the judge saw the file at the name (%s)",
          j.seen);
    CHECK(stat(path, &after) == 0 && after.st_ino == before.st_ino && file_is(path, "THEIRS"),
          "the other file is where it was, the same file");
    CHECK(entries(dir) == 2, "nothing left beside it (%d entries)", entries(dir));
    // Its own file: replaced, its mode kept.
    CHECK(unlink(path) == 0 && rename(moved, path) == 0, "the save back");
    j = (Judge){"MINE", 0, ""};
    CHECK(lesson_write_own(path, "NEW", 3, judge, &j, &taken, &err) && !taken, "ours: replaced: %s",
          err.message);
    CHECK(j.calls == 1 && file_is(path, "NEW") && stat(path, &after) == 0
              && (after.st_mode & 0777) == 0600,
          "the new bytes, mode 0600 kept (%o)", (unsigned)(after.st_mode & 0777));
    CHECK(entries(dir) == 1, "nothing left beside it (%d entries)", entries(dir));
    // Nothing at the name: claimed, no judge asked.
    CHECK(unlink(path) == 0, "gone");
    j = (Judge){"MINE", 0, ""};
    CHECK(lesson_write_own(path, "NEW2", 4, judge, &j, &taken, &err) && j.calls == 0
              && file_is(path, "NEW2"),
          "nothing there: claimed");
    // A link put at the name is never written through: refused before anything is taken.
    CHECK(unlink(path) == 0 && symlink(moved, path) == 0, "a link at the name");
    CHECK(!lesson_write_own(path, "NEW3", 4, judge, &j, &taken, &err), "a link: refused");
    struct stat ls;
    CHECK(lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode) && access(moved, F_OK) != 0,
          "the link stays, nothing followed");
    unlink(path);
    rmdir(dir);
}

// What is written can be read back (issue 27 item 4): text over a lesson file's limits
// (LESSON_MAX_FILE_VALUES values, LESSON_MAX_FILE_BYTES bytes) is refused by the writers, nothing
// written; at the limit it is written.
static void test_readable(void)
{
    char dir[] = "/tmp/mha-readable-XXXXXX", path[64];
    if (!mkdtemp(dir)) {
        CHECK(false, "mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/big.json", dir);
    for (long extra = 0; extra < 2; extra++) {
        long values = LESSON_MAX_FILE_VALUES + extra; // the array and values - 1 zeros
        size_t len = 0, cap = (size_t)values * 2 + 8;
        char *t = malloc(cap);
        if (!t) return;
        t[len++] = '[';
        for (long i = 1; i < values; i++)
            len += (size_t)snprintf(t + len, cap - len, i > 1 ? ",0" : "0");
        t[len++] = ']';
        LessonError err;
        bool taken = false, wrote = lesson_write_file(path, t, len, &err);
        CHECK(wrote == (extra == 0), "%ld values: %s", values, wrote ? "written" : err.message);
        if (extra) {
            CHECK(strstr(err.message, "more than 3000000 numbers")
                      && strstr(err.message, "could not be loaded again")
                      && strstr(err.message, "nothing was written") && access(path, F_OK) != 0,
                  "refused, nothing written: %s", err.message);
            CHECK(!lesson_write_claim(path, t, len, &taken, &err) && !taken
                      && access(path, F_OK) != 0,
                  "a claim too");
        }
        unlink(path);
        free(t);
    }
    char *huge = malloc((size_t)LESSON_MAX_FILE_BYTES + 2);
    if (huge) {
        memset(huge, ' ', (size_t)LESSON_MAX_FILE_BYTES + 1);
        huge[0] = '0';
        LessonError err;
        CHECK(!lesson_write_file(path, huge, (size_t)LESSON_MAX_FILE_BYTES + 1, &err)
                  && strstr(err.message, "MiB a lesson file may have") && access(path, F_OK) != 0,
              "a file over 64 MiB is refused: %s", err.message);
        free(huge);
    }
    rmdir(dir);
}

int main(void)
{
    const char *lessons[] = {"lessons/the-cat-sat.json",
                             "lessons/the-cat-sat-on-the-mat.json",
                             "lessons/causal-decoder.json",
                             "lessons/cross-attention.json",
                             "lessons/pytorch-layer.json",
                             "lessons/thinking-machines.json",
                             "lessons/paper-base.json",
                             "tests/good/explicit-biases.json",
                             "tests/good/d_k-explicit.json",
                             "lessons/the-dog-bit-the-man.json",
                             "lessons/the-cat-sat-on-the-mat-positions.json",
                             "tests/good/positions-explicit-cross.json",
                             "tests/good/positions-sinusoidal-cross.json",
                             "lessons/mao-zuo-zai-dianzi-shang.json",
                             "lessons/jalasat-al-qitta.json"};
    for (size_t i = 0; i < sizeof lessons / sizeof lessons[0]; i++) test_lesson(lessons[i]);
    test_strings();
    test_files();
    test_links();
    test_targets();
    test_leftovers();
    test_own();
    test_readable();
    return check_report("test_lesson_write");
}
