// Small file pieces of the platform layer, the same on every system (over platform_posix.c's or
// platform_win32.c's calls): bytes written, synced and closed; a path joined; the temporaries'
// names; a copy of a file; the hash of what a file holds. Below the writer of files all or nothing
// (platform_write.c) and the journal of its sets (platform_set.c), which both use them.
#include "platform/platform.h"
#include "platform/platform_set.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool platform_write_sync_close(int fd, const void *data, size_t len)
{
    if (!platform_write_all(fd, data, len)) {
        int saved = errno;
        platform_close(fd);
        errno = saved;
        return false;
    }
    return platform_sync_close(fd);
}

bool platform_path_join(char *out, size_t cap, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    int len = snprintf(out, cap, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
    return len >= 0 && (size_t)len < cap;
}

// ---------------------------------------------------------------------------------------------------
// Temporaries: ".NAME.PID.EXT", then ".NAME.PID-K.EXT"

bool platform_temporary_name_of(char *out, size_t cap, const char *path, long pid, const char *ext,
                                int k)
{
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    char try_k[16] = "";
    if (k > 0) snprintf(try_k, sizeof try_k, "-%d", k);
    int len = snprintf(out, cap, "%.*s.%s.%ld%s.%s", (int)dl, path, path + dl, pid, try_k, ext);
    return len >= 0 && (size_t)len < cap;
}

bool platform_temporary_name(char *out, size_t cap, const char *path, const char *ext, int k)
{
    return platform_temporary_name_of(out, cap, path, platform_pid(), ext, k);
}

// ---------------------------------------------------------------------------------------------------
// A copy: a hard link, or the bytes where the file system has no links

bool platform_copy_file(const char *name, const char *target)
{
    if (platform_link(target, name)) return true;
    if (errno == EEXIST) return false;
    FILE *in = platform_fopen_nofollow(target);
    if (!in) return false;
    int out = platform_create_exclusive(name);
    bool ok = out >= 0;
    unsigned char buf[65536];
    size_t r = 0;
    while (ok && (r = fread(buf, 1, sizeof buf, in)) > 0) ok = platform_write_all(out, buf, r);
    if (ok) ok = !ferror(in);
    int e = errno;
    fclose(in);
    if (out >= 0 && ok) {
        ok = platform_sync_close(out);
        e = errno;
    } else if (out >= 0) {
        platform_close(out);
    }
    if (!ok && out >= 0) platform_remove(name);
    errno = e;
    return ok;
}

// ---------------------------------------------------------------------------------------------------
// What a file holds

uint64_t platform_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * UINT64_C(1099511628211);
    return h;
}

bool platform_file_hash(const char *path, uint64_t *hash, long long *size)
{
    PlatformStat st;
    bool opened;
    FILE *in = platform_open_regular(path, &st, &opened);
    if (!in) {
        if (opened && st.kind != PLATFORM_REGULAR) errno = EINVAL;
        return false;
    }
    unsigned char buf[65536];
    uint64_t h = PLATFORM_HASH_START;
    long long n = 0;
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, in)) > 0) {
        h = platform_hash(h, buf, r);
        n += (long long)r;
    }
    bool ok = !ferror(in);
    int e = errno;
    fclose(in);
    errno = e;
    if (ok) {
        *hash = h;
        *size = n;
    }
    return ok;
}
