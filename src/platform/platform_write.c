// Writing files all or nothing, the same on every system (compiled with platform_posix.c or
// platform_win32.c, over their calls): the temporaries a dead process left cleaned, and the writer
// of a set of files whose commit puts every replaced file back when one rename fails, over regular
// files only, keeping their permissions, or puts a new file only where nothing is. A set of files
// in one folder switches at one commit point, its journal (platform_set.c); the small pieces both
// use (write-sync-close, the temporaries' names, a copy) are platform_files.c's. Used by the lesson
// save, --train --out and the exports.
#include "platform/platform.h"
#include "platform/platform_set.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------
// Temporaries: ".NAME.PID.EXT", then ".NAME.PID-K.EXT" (platform_temporary_name)

// Is entry a temporary of one of names, left by a process that is gone? Its name's index, -1 when
// not; *old: a ".old" (a copy of the file at the name, kept while the name was being replaced).
static int stale_temporary(const char *entry, const char *const *names, size_t count, bool *old)
{
    if (entry[0] != '.') return -1;
    for (size_t i = 0; i < count; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(entry + 1, names[i], n) != 0 || entry[1 + n] != '.') continue;
        const char *p = entry + 2 + n, *digits = p;
        while (*p >= '0' && *p <= '9') p++;
        if (p == digits || p - digits > 10) continue;
        if (*p == '-') { // a later try: "-K"
            const char *k = ++p;
            while (*p >= '0' && *p <= '9') p++;
            if (p == k || p - k > 2) continue;
        }
        if (strcmp(p, ".tmp") != 0 && strcmp(p, ".old") != 0) continue;
        long pid = strtol(digits, NULL, 10);
        if (pid <= 0 || pid == platform_pid()) continue;
        if (platform_process_alive(pid)) continue; // still running (or not ours to ask)
        *old = strcmp(p, ".old") == 0;
        return (int)i;
    }
    return -1;
}

// A dead writer's ".old" at path, the copy of the file at target: removed when target holds a file
// (the old copy was kept only until the new one was in place); put back at target when nothing is
// there (a writer of an earlier version, killed between moving the file aside and putting the new
// one in place, left it as the only copy). Never removed while it may be the only copy.
static void recover_old(const char *path, const char *target)
{
    PlatformStat sb;
    if (platform_stat(target, false, &sb)) {
        platform_remove(path);
        return;
    }
    if (errno != ENOENT) return;
    if (platform_copy_file(target, path))
        platform_remove(path); // a link, else the bytes; exclusive
}

void platform_temporaries_clean(const char *dir, const char *const *names, size_t count)
{
    PlatformDir *d = platform_dir_open(dir);
    if (!d) return;
    const char *e;
    long long me = platform_user();
    while ((e = platform_dir_next(d)) != NULL) {
        bool old = false;
        int which = stale_temporary(e, names, count, &old);
        if (which < 0) continue;
        size_t cap = strlen(dir) + strlen(e) + strlen(names[which]) + 2;
        char *path = malloc(cap), *target = malloc(cap);
        PlatformStat sb;
        if (path && target && platform_path_join(path, cap, dir, e)
            && platform_path_join(target, cap, dir, names[which]) && platform_stat(path, false, &sb)
            && sb.kind == PLATFORM_REGULAR && sb.owner == me) {
            if (old) recover_old(path, target);
            else platform_remove(path); // the new bytes of a write that never took place
        }
        free(path);
        free(target);
    }
    platform_dir_close(d);
}

// Calls make(name, arg) with the tries of path's temporaries of kind ext until one is not taken
// (make fails with EEXIST while a name is). Returns the name that worked (malloc'd), or NULL with
// errno.
static char *fresh_temporary(const char *path, const char *ext,
                             bool (*make)(const char *name, void *arg), void *arg)
{
    size_t cap = strlen(path) + 48;
    char *name = malloc(cap);
    if (!name) {
        errno = ENOMEM;
        return NULL;
    }
    for (int k = 0; k < PLATFORM_TEMPORARY_TRIES; k++) {
        platform_temporary_name(name, cap, path, ext, k); // fits: cap has room for the longest
        if (make(name, arg)) return name;
        if (errno != EEXIST) break;
    }
    int e = errno;
    free(name);
    errno = e;
    return NULL;
}

// ---------------------------------------------------------------------------------------------------
// The writer

typedef struct {
    char *path; // the target
    char *tmp; // the new bytes (NULL until added)
    char *old; // the copy of the file replaced (NULL unless kept)
    bool renamed; // tmp is in place at path
} WriterFile;

struct PlatformWriter {
    size_t count;
    WriterFile *files;
    char *dir; // the folder of every file (begun with one), else NULL
    char *journal; // the set's journal while it is being switched (platform_set.c), else NULL
};

static void failure(PlatformWriteFailure *fail, PlatformWriteStep step, size_t i, int error)
{
    if (!fail) return;
    fail->step = step;
    fail->index = i;
    fail->error = error;
}

// The folder of path ("." for a bare name) into out.
static void folder_of(char *out, size_t cap, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, cap, ".");
    else if (slash == path) snprintf(out, cap, "/");
    else snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

// Removes the temporaries that writers killed midway left for path (a kill -9 during --train
// --out).
static void clean_beside(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    folder_of(dir, sizeof dir, path);
    if (*name) platform_temporaries_clean(dir, &name, 1);
}

bool platform_writer_target(const char *path, bool *exists, PlatformStat *st,
                            PlatformWriteFailure *fail)
{
    *exists = platform_stat(path, false, st);
    if (!*exists && errno == ENOENT) return true;
    if (*exists && st->kind == PLATFORM_REGULAR) return true;
    failure(fail, PLATFORM_WRITE_TARGET, 0, *exists ? 0 : errno);
    if (fail) fail->found = *exists ? st->kind : PLATFORM_REGULAR;
    return false;
}

PlatformWriter *platform_writer_begin(const char *dir, const char *const *names, size_t count)
{
    PlatformWriter *w = calloc(1, sizeof *w);
    if (!w || !(w->files = calloc(count ? count : 1, sizeof *w->files))) {
        free(w);
        errno = ENOMEM;
        return NULL;
    }
    w->count = count;
    if (dir && !(w->dir = malloc(strlen(dir) + 1))) {
        platform_writer_close(w);
        errno = ENOMEM;
        return NULL;
    }
    if (dir) memcpy(w->dir, dir, strlen(dir) + 1);
    for (size_t i = 0; i < count; i++) {
        size_t cap = (dir ? strlen(dir) + 1 : 0) + strlen(names[i]) + 1;
        char *path = malloc(cap);
        if (!path) {
            platform_writer_close(w);
            errno = ENOMEM;
            return NULL;
        }
        if (dir) platform_path_join(path, cap, dir, names[i]);
        else memcpy(path, names[i], cap);
        w->files[i].path = path;
        if (!dir) clean_beside(path);
    }
    if (dir)
        platform_temporaries_clean(dir, names, count); // one pass over the folder for all of them
    return w;
}

const char *platform_writer_path(const PlatformWriter *w, size_t i)
{
    return i < w->count ? w->files[i].path : NULL;
}

const char *platform_writer_temporary(const PlatformWriter *w, size_t i)
{
    return i < w->count ? w->files[i].tmp : NULL;
}

static bool create_fd(const char *name, void *fd)
{
    *(int *)fd = platform_create_exclusive(name);
    return *(int *)fd >= 0;
}

bool platform_writer_add(PlatformWriter *w, size_t i, const void *data, size_t len,
                         PlatformWriteFailure *fail)
{
    if (i >= w->count || w->files[i].tmp) {
        failure(fail, PLATFORM_WRITE_CREATE, i, EINVAL);
        return false;
    }
    bool exists;
    PlatformStat st;
    if (!platform_writer_target(w->files[i].path, &exists, &st, fail)) {
        if (fail) fail->index = i;
        return false;
    }
    int fd = -1;
    if (!(w->files[i].tmp = fresh_temporary(w->files[i].path, "tmp", create_fd, &fd))) {
        failure(fail, PLATFORM_WRITE_CREATE, i, errno);
        return false;
    }
    // From here on the temporary is ours to remove (made by the exclusive open). A private file
    // stays so.
    if (exists && !platform_set_mode(fd, st.mode)) {
        int e = errno;
        platform_close(fd);
        failure(fail, PLATFORM_WRITE_WRITE, i, e);
        return false;
    }
    if (!platform_write_sync_close(fd, data, len)) {
        failure(fail, PLATFORM_WRITE_WRITE, i, errno);
        return false;
    }
    return true;
}

// fresh_temporary's maker of a copy: name = a copy of the file at target.
static bool copy_to(const char *name, void *target) { return platform_copy_file(name, target); }

// The set's journal, when it has one: files in one folder, more than one (platform_set.c).
static bool journal_begin(PlatformWriter *w, PlatformWriteFailure *fail)
{
    if (!w->dir || w->count < 2) return true;
    PlatformSetFile *set = calloc(w->count, sizeof *set);
    if (set) {
        for (size_t i = 0; i < w->count; i++)
            set[i] = (PlatformSetFile){w->files[i].path, w->files[i].tmp, w->files[i].old};
        w->journal = platform_set_commit(w->dir, set, w->count);
    }
    int e = set ? errno : ENOMEM;
    free(set);
    if (w->journal) return true;
    failure(fail, PLATFORM_WRITE_JOURNAL, 0, e);
    return false;
}

// A rename failed at file i: every file before it is put back as it was, the new ones removed (the
// journal first says so, for a recovery should this be killed midway).
static void put_back(PlatformWriter *w, size_t i)
{
    if (w->journal) platform_set_undoing(&w->journal);
    for (size_t j = 0; j < i; j++) {
        WriterFile *g = &w->files[j];
        bool back = g->old ? platform_replace(g->old, g->path) : platform_remove(g->path) == 0;
        if (back && g->old) {
            free(g->old);
            g->old = NULL;
        }
    }
}

// The journal goes (the switch is done or put back), after the renames reached the disk.
static void journal_end(PlatformWriter *w)
{
    if (!w->journal) return;
    platform_sync_dir(w->dir);
    platform_remove(w->journal);
    platform_sync_dir(w->dir);
    free(w->journal);
    w->journal = NULL;
}

bool platform_writer_commit(PlatformWriter *w, const bool *keep, PlatformWriteFailure *fail)
{
    for (size_t i = 0; i < w->count; i++)
        if (!w->files[i].tmp || w->files[i].renamed) {
            failure(fail, PLATFORM_WRITE_WRITE, i, EINVAL);
            return false;
        }
    for (size_t i = 0; keep && i < w->count; i++) {
        if (!keep[i]) continue;
        if (!(w->files[i].old =
                  fresh_temporary(w->files[i].path, "old", copy_to, w->files[i].path))) {
            failure(fail, PLATFORM_WRITE_KEEP, i, errno);
            return false;
        }
    }
    if (!journal_begin(w, fail)) return false;
    for (size_t i = 0; i < w->count; i++) {
        WriterFile *f = &w->files[i];
        if (platform_replace(f->tmp, f->path)) {
            f->renamed = true;
            continue;
        }
        int e = errno;
        put_back(w, i);
        journal_end(w);
        failure(fail, PLATFORM_WRITE_REPLACE, i, e);
        return false;
    }
    char dir[4096] = "", prev[4096] = "";
    for (size_t i = 0; i < w->count; i++) {
        WriterFile *f = &w->files[i];
        folder_of(dir, sizeof dir, f->path);
        if (strcmp(dir, prev) != 0) platform_sync_dir(dir); // the renames themselves reach the disk
        memcpy(prev, dir, sizeof prev);
    }
    // The new set is in place: the copies of the old go, then the journal (a kill between: the
    // recovery removes the copies left).
    for (size_t i = 0; i < w->count; i++) {
        WriterFile *f = &w->files[i];
        if (f->old) platform_remove(f->old);
        free(f->old);
        f->old = NULL;
    }
    journal_end(w);
    return true;
}

bool platform_writer_commit_new(PlatformWriter *w, size_t i, PlatformWriteFailure *fail)
{
    WriterFile *f = i < w->count ? &w->files[i] : NULL;
    if (!f || w->count != 1 || !f->tmp || f->renamed) {
        failure(fail, PLATFORM_WRITE_WRITE, i, EINVAL);
        return false;
    }
    if (!platform_copy_file(f->path, f->tmp)) { // EEXIST: the name is taken
        failure(fail, PLATFORM_WRITE_REPLACE, i, errno);
        return false;
    }
    platform_remove(f->tmp);
    f->renamed = true;
    char dir[4096];
    folder_of(dir, sizeof dir, f->path);
    platform_sync_dir(dir);
    return true;
}

// The folder of f flushed: f is in place.
static bool in_place(WriterFile *f)
{
    f->renamed = true;
    char dir[4096];
    folder_of(dir, sizeof dir, f->path);
    platform_sync_dir(dir);
    return true;
}

// No exchange (not Linux, or a file system without it): the file at the target is judged where it
// is, then the new one is renamed over it in one step. The name holds a whole file at every
// instant, the old one and then the new one, and nothing is ever moved aside: a kill at any point
// leaves one of them at the name and at most the temporary beside it (which the next writer
// removes). What this gives up beside the exchange: a file another writer puts at the name between
// the look and the rename (microseconds) is replaced too.
static bool commit_own_in_place(WriterFile *f, size_t i, bool (*ours)(const char *, void *),
                                void *ctx, PlatformWriteFailure *fail)
{
    PlatformStat st;
    if (!platform_stat(f->path, false, &st)) {
        int e = errno;
        if (e == ENOENT
            && platform_copy_file(f->path, f->tmp)) { // nothing there: the name claimed (exclusive)
            platform_remove(f->tmp);
            return in_place(f);
        }
        failure(fail, PLATFORM_WRITE_REPLACE, i, e == ENOENT ? errno : e);
        return false;
    }
    if (st.kind != PLATFORM_REGULAR || !ours(f->path, ctx)) {
        failure(fail, PLATFORM_WRITE_REPLACE, i,
                EEXIST); // another's file: it stays, this save goes elsewhere
        return false;
    }
    if (!platform_replace(f->tmp, f->path)) {
        failure(fail, PLATFORM_WRITE_REPLACE, i, errno);
        return false;
    }
    return in_place(f);
}

bool platform_writer_commit_own(PlatformWriter *w, size_t i,
                                bool (*ours)(const char *at, void *ctx), void *ctx,
                                PlatformWriteFailure *fail)
{
    WriterFile *f = i < w->count ? &w->files[i] : NULL;
    if (!f || w->count != 1 || !f->tmp || f->renamed || !ours) {
        failure(fail, PLATFORM_WRITE_WRITE, i, EINVAL);
        return false;
    }
    if (!platform_exchange(f->tmp, f->path)) {
        if (errno == ENOENT)
            return platform_writer_commit_new(w, i, fail); // nothing there: claimed
        if (errno == ENOSYS) return commit_own_in_place(f, i, ours, ctx, fail);
        failure(fail, PLATFORM_WRITE_REPLACE, i, errno);
        return false;
    }
    // The new file is at the target, what was there at f->tmp.
    if (ours(f->tmp, ctx)) {
        platform_remove(f->tmp);
        return in_place(f);
    }
    if (platform_exchange(
            f->tmp, f->path)) { // put back; the new file, at its temporary again, goes on close
        failure(fail, PLATFORM_WRITE_REPLACE, i, EEXIST);
        return false;
    }
    // Cannot swap back (the folder changed under it): the other file stays at the temporary's name,
    // never removed by this writer; the new one is in place.
    int e = errno;
    free(f->tmp);
    f->tmp = NULL;
    failure(fail, PLATFORM_WRITE_REPLACE, i, e);
    return false;
}

void platform_writer_close(PlatformWriter *w)
{
    if (!w) return;
    for (size_t i = 0; i < w->count; i++) {
        WriterFile *f = &w->files[i];
        if (f->tmp && !f->renamed) platform_remove(f->tmp);
        if (f->old) platform_remove(f->old);
        free(f->path);
        free(f->tmp);
        free(f->old);
    }
    free(w->journal); // NULL: every commit ends its journal

    free(w->dir);
    free(w->files);
    free(w);
}
