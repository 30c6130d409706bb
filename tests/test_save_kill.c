// A save killed at every step (issue 39, item 5): the second Ctrl+S replaces the session's own earlier save
// (lesson_write_own); where the atomic exchange is missing (macOS, Windows, Linux file systems without
// renameat2's exchange; forced here by MHA_TEST_NO_EXCHANGE=1), the fallback must keep a whole copy under the
// real name at every instant, and the next writer must never delete a ".old" that is the only copy. A child
// process saves and is killed (SIGKILL) right before, or right after, its k-th call of rename, link or unlink (this program's
// own definitions of the three stand in front of the C library's for the writer linked into it), for
// k = 1, 2, ... until a save runs to its end; after each kill the name must hold the old bytes or the new
// ones, and the next save must succeed with nothing left beside it. Then the same on the exchange's path.
#define _GNU_SOURCE // RTLD_NEXT
#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/lesson/lesson_write.h"
#include "check.h"

// ---- the kill hooks: before or after the MHA_KILL_AT-th call of these (in a child that set it), SIGKILL --

static int calls_made;

static void before_call(void)
{
    const char *k = getenv("MHA_KILL_AT"), *when = getenv("MHA_KILL_WHEN");
    if (k && ++calls_made == atoi(k) && when && !strcmp(when, "before")) kill(getpid(), SIGKILL);
}

static void after_call(void)
{
    const char *k = getenv("MHA_KILL_AT"), *when = getenv("MHA_KILL_WHEN");
    if (k && calls_made == atoi(k) && when && !strcmp(when, "after")) kill(getpid(), SIGKILL);
}

int rename(const char *from, const char *to)
{
    int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    before_call();
    int r = real(from, to);
    after_call();
    return r;
}

int link(const char *from, const char *to)
{
    int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
    before_call();
    int r = real(from, to);
    after_call();
    return r;
}

int unlink(const char *path)
{
    int (*real)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    before_call();
    int r = real(path);
    after_call();
    return r;
}

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

// One run of the second save killed before or after (when) call k. Returns true when the child was killed
// (false: it ended).
static bool killed_save(const char *dir, const char *path, int k, const char *when, const char *how)
{
    pid_t child = fork();
    if (child == 0) {
        char num[16];
        snprintf(num, sizeof num, "%d", k);
        setenv("MHA_KILL_AT", num, 1);
        setenv("MHA_KILL_WHEN", when, 1);
        Own own = {OLD, NULL};
        bool taken = false;
        LessonError err;
        _exit(lesson_write_own(path, NEW, strlen(NEW), judge, &own, &taken, &err) ? 0 : 1);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child, "%s: the saving child", how);
    bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    char list[1024];
    if (!killed) {
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: the save ran to its end and succeeded", how);
        CHECK(file_is(path, NEW), "%s: the new save is at the name", how);
        CHECK(entries(dir, list, sizeof list) == 1, "%s: nothing beside it: %s", how, list);
        return false;
    }
    // The name holds a whole file at every instant: the old save or the new one.
    CHECK(file_is(path, OLD) || file_is(path, NEW), "%s, killed %s call %d: the name holds neither save whole", how,
          when, k);
    // The next save (the teacher presses Ctrl+S again) succeeds, and the temporaries go.
    Own next = {OLD, NEW};
    bool taken = false;
    LessonError err;
    CHECK(lesson_write_own(path, NEXT, strlen(NEXT), judge, &next, &taken, &err) && file_is(path, NEXT),
          "%s, killed %s call %d: the next save: %s", how, when, k, err.message);
    CHECK(entries(dir, list, sizeof list) == 1, "%s, killed %s call %d: left beside the save: %s", how, when, k, list);
    return true;
}

static void kill_at_every_step(const char *how)
{
    char dir[] = "/tmp/mha-save-kill-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    char path[300];
    snprintf(path, sizeof path, "%s/lesson-edited.json", dir);
    int kills = 0;
    for (int w = 0; w < 2; w++)
        for (int k = 1; k < 50; k++) {
            LessonError err;
            unlink(path);
            CHECK(lesson_write_file(path, OLD, strlen(OLD), &err), "the first save: %s", err.message);
            if (!killed_save(dir, path, k, w ? "after" : "before", how)) break;
            kills++;
        }
    printf("%s: killed at %d steps of the second save, then it ran to its end\n", how, kills);
    CHECK(kills >= 1, "%s: the save was killed at least once", how);
    unlink(path);
    rmdir(dir);
}

// What a writer of an earlier version could leave when killed between moving the file aside and putting
// the new one in place: no file at the name, the only copy at ".NAME.PID.old". The next writer puts it back:
// a claim (only where nothing is) finds the name taken by it, and the bytes are the teacher's.
static void only_copy_kept(void)
{
    char dir[] = "/tmp/mha-save-old-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    pid_t child = fork();
    if (child == 0) _exit(0);
    CHECK(child > 0 && waitpid(child, NULL, 0) == child, "a process that is gone");
    char path[300], old[400];
    snprintf(path, sizeof path, "%s/lesson-edited.json", dir);
    snprintf(old, sizeof old, "%s/.lesson-edited.json.%ld.old", dir, (long)child);
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
    CHECK(lesson_write_file(path, NEW, strlen(NEW), &err) && file_is(path, NEW), "a save: %s", err.message);
    CHECK(access(old, F_OK) != 0, "the second copy went");
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    setenv("MHA_TEST_NO_EXCHANGE", "1", 1);
    kill_at_every_step("without the exchange (macOS, Windows, most file systems' fallback)");
    only_copy_kept();
    unsetenv("MHA_TEST_NO_EXCHANGE");
    kill_at_every_step("with the exchange where the system has it");
    return check_report("test_save_kill");
}
