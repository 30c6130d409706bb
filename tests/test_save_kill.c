// A save killed at every step (issue 39, item 5): the second Ctrl+S replaces the session's own
// earlier save (lesson_write_own); where the atomic exchange is missing (macOS, Windows, Linux file
// systems without renameat2's exchange; forced here by MHA_TEST_NO_EXCHANGE=1), the fallback must
// keep a whole copy under the real name at every instant, and the next writer must never delete a
// ".old" that is the only copy. A child process saves and is killed right before, or right after,
// its k-th call of rename, link or unlink (the kill shim, kill_shim.c: on Windows MoveFileExW,
// CreateHardLinkW and DeleteFileW, where the save always takes the fallback), for k = 1, 2, ...
// until a save runs to its end; after each kill the name must hold the old bytes or the new ones,
// and the next save must succeed with nothing left beside it. Then the same on the exchange's path
// (Linux).
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/lesson/lesson_write.h"
#include "check.h"
#include "kill_shim.h"

// ---- helpers ------------------------------------------------------------------------------------------

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

// The entries of dir other than . and .. (names joined into list, cap bytes).
static int entries(const char *dir, char *list, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    list[0] = '\0';
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        n++;
        size_t len = strlen(list);
        snprintf(list + len, cap - len, "%s ", e->d_name);
    }
    if (d) closedir(d);
    return n;
}

typedef struct {
    const char *a, *b; // bytes the judge calls the caller's own (b may be NULL)
} Own;

static bool judge(const char *at, void *ctx)
{
    const Own *o = ctx;
    return file_is(at, o->a) || (o->b && file_is(at, o->b));
}

static const char OLD[] = "{\"title\": \"first save\"}", NEW[] = "{\"title\": \"second save\"}",
                  NEXT[] = "{\"title\": \"third save\"}";

static const char *self;

// The child: the second save, into the folder the parent named.
static int child_save(const char *role, void *ctx)
{
    (void)role;
    (void)ctx;
    char path[4096];
    snprintf(path, sizeof path, "%s/lesson-edited.json", getenv("MHA_KILL_TEST_DIR"));
    Own own = {OLD, NULL};
    bool taken = false;
    LessonError err;
    return lesson_write_own(path, NEW, strlen(NEW), judge, &own, &taken, &err) ? 0 : 1;
}

// One run of the second save killed before or after (when) call k. Returns true when the child was
// killed (false: it ended).
static bool killed_save(const char *dir, const char *path, int k, KillShimWhen when,
                        const char *how)
{
    const char *at = when == KILL_SHIM_BEFORE ? "before" : "after";
    int r = kill_shim_child(self, "save", when, k, 0);
    CHECK(r >= 0, "%s: the saving child", how);
    char list[1024];
    if (r != 2) {
        CHECK(r == 0, "%s: the save ran to its end and succeeded", how);
        CHECK(file_is(path, NEW), "%s: the new save is at the name", how);
        CHECK(entries(dir, list, sizeof list) == 1, "%s: nothing beside it: %s", how, list);
        return false;
    }
    // The name holds a whole file at every instant: the old save or the new one.
    CHECK(file_is(path, OLD) || file_is(path, NEW),
          "%s, killed %s call %d: the name holds neither save whole", how, at, k);
    // The next save (the teacher presses Ctrl+S again) succeeds, and the temporaries go.
    Own next = {OLD, NEW};
    bool taken = false;
    LessonError err;
    CHECK(lesson_write_own(path, NEXT, strlen(NEXT), judge, &next, &taken, &err)
              && file_is(path, NEXT),
          "%s, killed %s call %d: the next save: %s", how, at, k, err.message);
    CHECK(entries(dir, list, sizeof list) == 1, "%s, killed %s call %d: left beside the save: %s",
          how, at, k, list);
    return true;
}

static void kill_at_every_step(const char *how)
{
    char dir[1024];
    CHECK(kill_shim_tempdir(dir, sizeof dir, "mha-save-kill"), "temporary directory");
    kill_shim_setenv("MHA_KILL_TEST_DIR", dir);
    char path[1100];
    snprintf(path, sizeof path, "%s/lesson-edited.json", dir);
    int kills = 0;
    for (int w = 0; w < 2; w++)
        for (int k = 1; k < 50; k++) {
            LessonError err;
            unlink(path);
            CHECK(lesson_write_file(path, OLD, strlen(OLD), &err), "the first save: %s",
                  err.message);
            if (!killed_save(dir, path, k, w ? KILL_SHIM_AFTER : KILL_SHIM_BEFORE, how)) break;
            kills++;
        }
    printf("%s: killed at %d steps of the second save, then it ran to its end\n", how, kills);
    CHECK(kills >= 1, "%s: the save was killed at least once", how);
    kill_shim_rmdir(dir);
}

// What a writer of an earlier version could leave when killed between moving the file aside and
// putting the new one in place: no file at the name, the only copy at ".NAME.PID.old". The next
// writer puts it back: a claim (only where nothing is) finds the name taken by it, and the bytes
// are the teacher's.
static void only_copy_kept(void)
{
    char dir[1024];
    CHECK(kill_shim_tempdir(dir, sizeof dir, "mha-save-old"), "temporary directory");
    long child = kill_shim_dead_pid(self);
    CHECK(child > 0, "a process that is gone");
    char path[1100], old[1200];
    snprintf(path, sizeof path, "%s/lesson-edited.json", dir);
    snprintf(old, sizeof old, "%s/.lesson-edited.json.%ld.old", dir, child);
    FILE *f = fopen(old, "wb");
    CHECK(f && fputs(OLD, f) >= 0 && fclose(f) == 0, "planted %s", old);
    bool taken = false;
    LessonError err;
    CHECK(!lesson_write_claim(path, NEW, strlen(NEW), &taken, &err) && taken,
          "the claim finds the name taken by the put-back copy");
    CHECK(file_is(path, OLD), "the only copy is back at its name");
    CHECK(access(old, F_OK) != 0, "and no longer beside it");
    // With a file at the name, a dead writer's ".old" is a second copy: it goes.
    f = fopen(old, "wb");
    CHECK(f && fputs(OLD, f) >= 0 && fclose(f) == 0, "planted %s again", old);
    CHECK(lesson_write_file(path, NEW, strlen(NEW), &err) && file_is(path, NEW), "a save: %s",
          err.message);
    CHECK(access(old, F_OK) != 0, "the second copy went");
    kill_shim_rmdir(dir);
}

int main(int argc, char **argv)
{
    self = argv[0];
    kill_shim_main(argc, argv, child_save, NULL);
    kill_shim_setenv("MHA_TEST_NO_EXCHANGE", "1");
    kill_at_every_step("without the exchange (macOS, Windows, most file systems' fallback)");
    only_copy_kept();
#ifndef _WIN32 // Windows has no exchange: the fallback above is its only path
    kill_shim_setenv("MHA_TEST_NO_EXCHANGE", "0");
    kill_at_every_step("with the exchange where the system has it");
#endif
    return check_report("test_save_kill");
}
