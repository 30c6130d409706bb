// A set of files replaced all or nothing: the journal that names a set and its one
// commit point, and the recovery that finishes (or undoes) the switch of a set whose writer was
// killed. Used by platform_writer_commit (platform_write.c) for a set of files in one folder; the
// same on every system.
#include "platform/platform_set.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The journal: ".mha-tracer-set.PID[-K].EXT" in the set's folder. EXT "tmp" while it is written,
// "new" once it is complete (the commit point: from here the new set is the one), "undo" while a
// failed switch is being put back. Its lines: a first line, then per file
// "TARGET\tTEMPORARY\tCOPY\n" (file names in the folder, COPY empty when nothing was at the
// target), then "end\n": a journal without its end line (a copy cut short where the file system has
// no links) commits nothing.
#define SET_BASE "mha-tracer-set"
#define SET_FIRST "mha-tracer set 1\n"
#define SET_END "end\n"
#define SET_MAX_BYTES (64L << 20)

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool set_path(char *out, size_t cap, const char *dir, long pid, int k, const char *ext)
{
    size_t n = strlen(dir);
    char try_k[16] = "";
    if (k > 0) snprintf(try_k, sizeof try_k, "-%d", k);
    int len = snprintf(out, cap, "%s%s." SET_BASE ".%ld%s.%s", dir,
                       n && dir[n - 1] == '/' ? "" : "/", pid, try_k, ext);
    return len >= 0 && (size_t)len < cap;
}

static bool append(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t c = (*cap + n + 1) * 2;
        char *b = realloc(*buf, c);
        if (!b) return false;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return true;
}

// The journal's text for the set, malloc'd.
static char *journal_text(const PlatformSetFile *files, size_t count, size_t *len)
{
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    bool ok = append(&buf, len, &cap, SET_FIRST);
    for (size_t i = 0; ok && i < count; i++)
        ok = append(&buf, len, &cap, base_name(files[i].path)) && append(&buf, len, &cap, "\t")
             && append(&buf, len, &cap, base_name(files[i].tmp)) && append(&buf, len, &cap, "\t")
             && append(&buf, len, &cap, files[i].old ? base_name(files[i].old) : "")
             && append(&buf, len, &cap, "\n");
    if (ok) ok = append(&buf, len, &cap, SET_END);
    if (!ok) {
        free(buf);
        errno = ENOMEM;
        return NULL;
    }
    return buf;
}

char *platform_set_commit(const char *dir, const PlatformSetFile *files, size_t count)
{
    size_t len;
    char *text = journal_text(files, count, &len);
    if (!text) return NULL;
    char tmp[4096], done[4096];
    int fd = -1, k = 0, e = 0;
    for (; k < PLATFORM_TEMPORARY_TRIES; k++) {
        if (!set_path(tmp, sizeof tmp, dir, platform_pid(), k, "tmp")) break;
        if ((fd = platform_create_exclusive(tmp)) >= 0 || errno != EEXIST) break;
    }
    e = errno;
    bool ok = fd >= 0 && platform_write_sync_close(fd, text, len);
    if (fd >= 0 && !ok) e = errno;
    free(text);
    // The commit point: the complete journal appears under its "new" name in one step (a hard link,
    // or an exclusive copy that counts only once its end line is in).
    if (ok
        && !(ok = set_path(done, sizeof done, dir, platform_pid(), k, "new")
                  && platform_copy_file(done, tmp)))
        e = errno;
    if (fd >= 0) platform_remove(tmp);
    if (!ok) {
        errno = e ? e : ENAMETOOLONG;
        return NULL;
    }
    platform_sync_dir(dir);
    char *out = malloc(strlen(done) + 1);
    if (out) memcpy(out, done, strlen(done) + 1);
    else platform_remove(done); // cannot say where it is: not committed after all
    if (!out) errno = ENOMEM;
    return out;
}

bool platform_set_undoing(char **journal)
{
    size_t n = strlen(*journal);
    char *undo = n >= 4 && strcmp(*journal + n - 4, ".new") == 0 ? malloc(n + 2) : NULL;
    if (!undo) return false;
    snprintf(undo, n + 2, "%.*s.undo", (int)(n - 4), *journal);
    if (!platform_replace(*journal, undo)) {
        free(undo);
        return false;
    }
    free(*journal);
    *journal = undo;
    return true;
}

// ---------------------------------------------------------------------------------------------------
// Recovery

// A plain file of this user at path (never a link)?
static bool mine(const char *path)
{
    PlatformStat st;
    return platform_stat(path, false, &st) && st.kind == PLATFORM_REGULAR
           && st.owner == platform_user();
}

// Is name one of target's temporaries of kind ext by the process pid?
static bool temporary_of(const char *name, const char *target, long pid, const char *ext)
{
    char want[4096];
    for (int k = 0; k < PLATFORM_TEMPORARY_TRIES; k++) {
        if (!platform_temporary_name_of(want, sizeof want, target, pid, ext, k)) return false;
        if (strcmp(name, want) == 0) return true;
    }
    return false;
}

// A journal line's three names, checked: a plain name for the target (no folder, not hidden) and
// the writer's own temporary and copy of it; anything else is not acted on.
static bool entry_parse(char *line, long pid, char **target, char **tmp, char **old)
{
    char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2) return false;
    *t1 = *t2 = '\0';
    *target = line;
    *tmp = t1 + 1;
    *old = t2 + 1;
    if (!**target || **target == '.' || strpbrk(*target, "/\\:")) return false;
    return temporary_of(*tmp, *target, pid, "tmp")
           && (!**old || temporary_of(*old, *target, pid, "old"));
}

typedef struct {
    const char *dir;
    PlatformSetOurs ours;
    void *ctx;
} Recovery;

// May the recovery put a file at path? Nothing there, or a plain file of ours.
static bool replaceable(const Recovery *r, const char *path)
{
    PlatformStat st;
    if (!platform_stat(path, false, &st)) return errno == ENOENT;
    return st.kind == PLATFORM_REGULAR && r->ours(path, r->ctx);
}

// One file of a committed set: its temporary, where still there, goes in place; the copy of the old
// goes.
static void finish_file(const Recovery *r, const char *target, const char *tmp, const char *old)
{
    if (mine(tmp)) {
        if (!replaceable(r, target) || !platform_replace(tmp, target)) platform_remove(tmp);
    }
    if (old && mine(old)) platform_remove(old);
}

// One file of a set being put back: a temporary still there was never in place (it goes); else the
// new file is at the target, and the copy of the old goes back over it (or, where nothing was, it
// goes).
static void undo_file(const Recovery *r, const char *target, const char *tmp, const char *old)
{
    if (mine(tmp)) {
        platform_remove(tmp);
        if (old && mine(old)) platform_remove(old);
        return;
    }
    if (old && mine(old)) {
        if (!replaceable(r, target) || !platform_replace(old, target)) platform_remove(old);
    } else if (!old && mine(target) && r->ours(target, r->ctx)) {
        platform_remove(target);
    }
}

static char *read_journal(const char *path)
{
    PlatformStat st;
    if (!platform_stat(path, false, &st) || st.kind != PLATFORM_REGULAR
        || st.owner != platform_user() || st.size > SET_MAX_BYTES)
        return NULL;
    FILE *f = platform_fopen_nofollow(path);
    if (!f) return NULL;
    char *buf = malloc((size_t)st.size + 1);
    size_t n = buf ? fread(buf, 1, (size_t)st.size, f) : 0;
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    size_t fl = sizeof SET_FIRST - 1, el = sizeof SET_END - 1;
    if (n < fl + el || memcmp(buf, SET_FIRST, fl) != 0 || strcmp(buf + n - el, SET_END) != 0
        || buf[n - el - 1] != '\n' || strlen(buf) != n) {
        free(buf);
        return NULL;
    }
    buf[n - el] = '\0';
    return buf;
}

// Plays a dead writer's journal at path (forward when committed, back when undoing), then removes
// it.
static void replay(const Recovery *r, const char *path, long pid, bool forward)
{
    char *text = read_journal(path);
    char *line = text ? text + sizeof SET_FIRST - 1 : NULL;
    while (line && *line) {
        char *nl = strchr(line, '\n'), *target, *tmp, *old;
        if (!nl) break;
        *nl = '\0';
        char tp[4096], tt[4096], to[4096];
        if (entry_parse(line, pid, &target, &tmp, &old)
            && platform_path_join(tp, sizeof tp, r->dir, target)
            && platform_path_join(tt, sizeof tt, r->dir, tmp)
            && platform_path_join(to, sizeof to, r->dir, old)) {
            if (forward) finish_file(r, tp, tt, *old ? to : NULL);
            else undo_file(r, tp, tt, *old ? to : NULL);
        }
        line = nl + 1;
    }
    free(text);
    platform_sync_dir(r->dir);
    platform_remove(path);
    platform_sync_dir(r->dir);
}

// Is entry a journal of a writer that is gone? Its process number and kind ("tmp", "new" or
// "undo").
static bool dead_journal(const char *entry, long *pid, const char **ext)
{
    const char *p = entry;
    if (strncmp(p, "." SET_BASE ".", sizeof SET_BASE + 1) != 0) return false;
    p += sizeof SET_BASE + 1;
    char *end;
    *pid = strtol(p, &end, 10);
    if (end == p || *pid <= 0 || end - p > 10) return false;
    p = end;
    if (*p == '-') {
        strtol(p + 1, &end, 10);
        if (end == p + 1 || end - p > 3) return false;
        p = end;
    }
    if (strcmp(p, ".tmp") && strcmp(p, ".new") && strcmp(p, ".undo")) return false;
    *ext = p + 1;
    return *pid != platform_pid() && !platform_process_alive(*pid);
}

void platform_sets_recover(const char *dir, PlatformSetOurs ours, void *ctx)
{
    PlatformDir *d = platform_dir_open(dir);
    if (!d) return;
    // The names first: the replay changes the folder being read.
    char **found = NULL;
    size_t n = 0;
    const char *e;
    while ((e = platform_dir_next(d)) != NULL) {
        long pid;
        const char *ext;
        if (!dead_journal(e, &pid, &ext)) continue;
        char **f = realloc(found, (n + 1) * sizeof *found);
        if (!f) break;
        found = f;
        if ((found[n] = malloc(strlen(e) + 1)) != NULL) memcpy(found[n++], e, strlen(e) + 1);
    }
    platform_dir_close(d);
    Recovery r = {dir, ours, ctx};
    for (size_t i = 0; i < n; i++) {
        long pid;
        const char *ext;
        char path[4096];
        if (dead_journal(found[i], &pid, &ext)
            && platform_path_join(path, sizeof path, dir, found[i]) && mine(path)) {
            if (!strcmp(ext, "tmp")) platform_remove(path); // never complete: commits nothing
            else replay(&r, path, pid, !strcmp(ext, "new"));
        }
        free(found[i]);
    }
    free(found);
}
