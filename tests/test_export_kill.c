// An export set killed at every step (issue 39): `--export … --parts all`, `--what board` and the
// window's E / Shift+E write a set of files through export_write_files. A child exports a new set
// over an old one and is killed right before, or right after, its k-th rename, link or unlink (the
// kill shim, kill_shim.c; on Windows MoveFileExW, CreateHardLinkW, DeleteFileW), for k = 1, 2, ...
// until it runs to its end; and a child whose k-th rename fails (the set is put back) is killed at
// each call of putting it back. After each kill: every name holds a whole file (old bytes or new,
// or nothing where the old set had none); the next export into the folder (its first step, the
// recovery) leaves exactly the old set or exactly the new one, bytes compared, with the teacher's
// own file beside them untouched and nothing else left; and that export then succeeds.
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/render/export_files.h"
#include "../src/render/svg.h"
#include "check.h"
#include "kill_shim.h"

#define SET_FILES 4
// The old set has the first three names; the new set all four (a file that the old set did not
// have).
static const char *const NAMES[SET_FILES] = {"deck-stage01-input.svg", "deck-stage02-scores.svg",
                                             "deck-stage03-softmax.svg",
                                             "deck-stage03-softmax-part2.svg"};
#define OLD_FILES 3
static const char TEACHER[] = "notes.txt", TEACHER_TEXT[] = "the teacher's notes\n";

static const char *self;

// An SVG as svg.c starts and ends one (export_files.c's test of ours), different per set and file.
static char *svg_bytes(const char *set, int i)
{
    char *b = malloc(512);
    snprintf(
        b, 512,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" SVG_MARK
        "\n<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"10\" height=\"10\">"
        "<title>%s set, file %d</title></svg>\n",
        set, i);
    return b;
}

static bool export_set(const char *dir, const char *set, int count, ExportError *err)
{
    ExportFile files[SET_FILES];
    char *bytes[SET_FILES];
    for (int i = 0; i < count; i++) {
        bytes[i] = svg_bytes(set, i);
        files[i] = (ExportFile){NAMES[i], (const unsigned char *)bytes[i], strlen(bytes[i])};
    }
    bool ok = export_write_files(dir, true, files, (size_t)count, err);
    for (int i = 0; i < count; i++) free(bytes[i]);
    return ok;
}

// The child: the new set over the old one.
static int child_export(const char *role, void *ctx)
{
    (void)role;
    (void)ctx;
    ExportError err;
    return export_set(getenv("MHA_KILL_TEST_DIR"), "new", SET_FILES, &err) ? 0 : 1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *b = malloc(4096);
    size_t n = fread(b, 1, 4095, f);
    fclose(f);
    b[n] = '\0';
    return b;
}

// File i of dir holds the bytes of set (NULL: nothing is there)?
static bool holds(const char *dir, int i, const char *set)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, NAMES[i]);
    char *got = slurp(path);
    if (!set || !got) {
        free(got);
        return !set && !got;
    }
    char *want = svg_bytes(set, i);
    bool same = strcmp(got, want) == 0;
    free(got);
    free(want);
    return same;
}

// The whole set: "old" (the first three files, and nothing at the fourth name) or "new".
static bool is_set(const char *dir, const char *set)
{
    bool old = !strcmp(set, "old");
    for (int i = 0; i < SET_FILES; i++)
        if (!holds(dir, i, old && i >= OLD_FILES ? NULL : set)) return false;
    return true;
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static bool teacher_intact(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, TEACHER);
    char *got = slurp(path);
    bool ok = got && !strcmp(got, TEACHER_TEXT);
    free(got);
    return ok;
}

// The folder as before the export: the old set and the teacher's file, nothing else.
static void fresh_folder(const char *dir)
{
    kill_shim_rmdir(dir);
    ExportError err;
    CHECK(export_set(dir, "old", OLD_FILES, &err), "the old set: %s", err.message);
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, TEACHER);
    FILE *f = fopen(path, "wb");
    CHECK(f && fputs(TEACHER_TEXT, f) >= 0 && fclose(f) == 0, "the teacher's file");
}

typedef struct {
    int kills, mixed, old,
        new_; // kills; of them, names part old part new before the recovery; then old or new
} Tally;

// What one kill left: whole files at the names; after the next export's recovery, one set whole.
static void judge_kill(const char *dir, const char *how, int k, Tally *t)
{
    t->kills++;
    bool whole = true, any_new = false, any_old = false;
    for (int i = 0; i < SET_FILES; i++) {
        bool n = holds(dir, i, "new"),
             o = i < OLD_FILES ? holds(dir, i, "old") : holds(dir, i, NULL);
        whole = whole && (n || o);
        any_new = any_new || (n && !o);
        any_old = any_old || (o && !n);
    }
    CHECK(whole, "%s call %d: a name holds a file of neither set whole", how, k);
    t->mixed += any_new && any_old;
    // The next export into the folder: its first step finishes (or puts back) the set; here it
    // checks only.
    ExportError err;
    ExportWriter *w = export_writer_begin(dir, false, NAMES, SET_FILES, &err);
    CHECK(w != NULL, "%s call %d: the next export begins: %s", how, k, err.message);
    if (w) export_writer_abort(w);
    bool old = is_set(dir, "old"), new_ = is_set(dir, "new");
    CHECK(old || new_,
          "%s call %d: after the recovery the folder holds neither the old set nor the new one",
          how, k);
    t->old += old;
    t->new_ += new_;
    CHECK(teacher_intact(dir), "%s call %d: the teacher's file changed", how, k);
    CHECK(entries(dir) == (new_ ? SET_FILES : OLD_FILES) + 1,
          "%s call %d: %d entries left (temporaries, copies?)", how, k, entries(dir));
    // ... and that export, run to its end, writes its set.
    CHECK(export_set(dir, "next", SET_FILES, &err) && is_set(dir, "next")
              && entries(dir) == SET_FILES + 1,
          "%s call %d: the next export: %s", how, k, err.message);
}

// Killed before or after each call of the export, until it runs to its end.
static int kill_at_every_step(const char *dir, KillShimWhen when, Tally *t)
{
    const char *how = when == KILL_SHIM_BEFORE ? "killed before" : "killed after";
    for (int k = 1; k < 200; k++) {
        fresh_folder(dir);
        int r = kill_shim_child(self, "export", when, k, 0);
        CHECK(r >= 0, "%s call %d: the exporting child", how, k);
        if (r == 2) {
            judge_kill(dir, how, k, t);
            continue;
        }
        CHECK(r == 0 && is_set(dir, "new") && teacher_intact(dir) && entries(dir) == SET_FILES + 1,
              "%s: the export ran to its end: the new set, nothing beside it (%d entries)", how,
              entries(dir));
        printf("%s: killed at %d calls of the export, then it ran to its end\n", how, k - 1);
        CHECK(k > SET_FILES, "%s: the export was killed at each of its renames at least", how);
        return k - 1;
    }
    CHECK(false, "%s: the export never ran to its end", how);
    return 0;
}

// Entries in dir once the next export began (and stopped): what a run left that no recovery
// removes.
static int entries_after_begin(const char *dir)
{
    ExportError err;
    ExportWriter *w = export_writer_begin(dir, false, NAMES, SET_FILES, &err);
    if (w) export_writer_abort(w);
    return entries(dir);
}

// The k-th call (of calls) fails: a failing rename puts the set back, a failing link is made up by
// a copy of the bytes, a failing removal leaves a copy that the next export removes. Then a kill at
// each later call.
static void fail_then_kill(const char *dir, int calls, Tally *t)
{
    int back = 0, through = 0;
    for (int k = 1; k <= calls; k++) {
        fresh_folder(dir);
        int r = kill_shim_child(self, "export", KILL_SHIM_FAIL, k, 0);
        CHECK(r == 0 || r == 1, "call %d failing: the export ends (%d)", k, r);
        const char *set = r == 0 ? "new" : "old";
        CHECK(is_set(dir, set) && teacher_intact(dir),
              "call %d failing: the export %s, yet not the %s set", k,
              r == 0 ? "succeeded" : "failed", set);
        CHECK(entries_after_begin(dir) == (r == 0 ? SET_FILES : OLD_FILES) + 1,
              "call %d failing: %d entries left after the next export's clean", k, entries(dir));
        back += r == 1;
        through += r == 0;
        for (int k2 = k + 1; k2 <= calls + 1; k2++) {
            fresh_folder(dir);
            r = kill_shim_child(self, "export", KILL_SHIM_FAIL, k, k2);
            if (r != 2) break;
            char how[64];
            snprintf(how, sizeof how, "call %d failed, then killed before", k);
            judge_kill(dir, how, k2, t);
        }
    }
    printf("one call failing, at each of %d: %d exports failed and put the old set back, %d went "
           "through; each "
           "then killed at every later call\n",
           calls, back, through);
    CHECK(back >= SET_FILES, "the export failed at each of its renames at least");
}

int main(int argc, char **argv)
{
    self = argv[0];
    kill_shim_main(argc, argv, child_export, NULL);
    char dir[1024];
    CHECK(kill_shim_tempdir(dir, sizeof dir, "mha-export-kill"), "temporary directory");
    kill_shim_setenv("MHA_KILL_TEST_DIR", dir);
    Tally t = {0};
    int calls = kill_at_every_step(dir, KILL_SHIM_BEFORE, &t);
    kill_at_every_step(dir, KILL_SHIM_AFTER, &t);
    fail_then_kill(dir, calls, &t);
    printf("%d kills: %d left names part old, part new until the next export; after its recovery "
           "%d the old set, "
           "%d the new one, bytes compared\n",
           t.kills, t.mixed, t.old, t.new_);
    CHECK(t.kills > 0 && t.old > 0 && t.new_ > 0, "kills on both sides of the commit point");
    kill_shim_rmdir(dir);
    return check_report("test_export_kill");
}
