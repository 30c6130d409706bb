// The Win32 half of the platform layer: threads, UTF-16 file calls, MoveFileExW with write-through,
// the program's path. UTF-8 names in, converted to UTF-16 for every call.
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include "platform/platform.h"

#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <shellapi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wchar.h>

// UTF-8 -> UTF-16 (malloc'd), or NULL with errno.
static wchar_t *wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    if (n <= 0) {
        errno = EINVAL;
        return NULL;
    }
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
    return w;
}

// UTF-16 -> UTF-8 into out; false when it does not fit.
static bool narrow(const wchar_t *w, char *out, size_t cap)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)(cap > INT_MAX ? INT_MAX : cap), NULL,
                                NULL);
    if (n <= 0) {
        errno = ENAMETOOLONG;
        return false;
    }
    return true;
}

static void set_errno_from(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME: errno = ENOENT; break;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION: errno = EACCES; break;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: errno = EEXIST; break;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: errno = ENOSPC; break;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY: errno = ENOMEM; break;
    case ERROR_DIRECTORY: errno = ENOTDIR; break;
    default: errno = EIO;
    }
}

// --- threads ---
struct PlatformThread {
    HANDLE h;
    int (*fn)(void *);
    void *arg;
};

static unsigned __stdcall thread_main(void *p)
{
    PlatformThread *t = p;
    t->fn(t->arg);
    return 0;
}

PlatformThread *platform_thread_start(int (*fn)(void *), void *arg)
{
    PlatformThread *t = malloc(sizeof *t);
    if (!t) return NULL;
    t->fn = fn;
    t->arg = arg;
    uintptr_t h = _beginthreadex(NULL, 0, thread_main, t, 0, NULL);
    if (!h) {
        free(t);
        return NULL;
    }
    t->h = (HANDLE)h;
    return t;
}

void platform_thread_join(PlatformThread *t)
{
    if (!t) return;
    WaitForSingleObject(t->h, INFINITE);
    CloseHandle(t->h);
    free(t);
}

int platform_cpu_count(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwNumberOfProcessors < 1      ? 1
           : si.dwNumberOfProcessors > 1024 ? 1024
                                            : (int)si.dwNumberOfProcessors;
}

void platform_tune_allocator(void) {} // the Windows heap keeps freed blocks by itself

// --- what is at a path ---
// 100 ns ticks since 1601 -> seconds and nanoseconds since 1970.
static void file_time(FILETIME ft, long long *sec, long long *nsec)
{
    unsigned long long t =
        ((unsigned long long)ft.dwHighDateTime << 32 | ft.dwLowDateTime) - 116444736000000000ULL;
    *sec = (long long)(t / 10000000ULL);
    *nsec = (long long)(t % 10000000ULL) * 100;
}

bool platform_stat(const char *path, bool follow, PlatformStat *st)
{
    wchar_t *w = wide(path);
    if (!w) return false;
    WIN32_FILE_ATTRIBUTE_DATA a;
    BOOL ok = GetFileAttributesExW(w, GetFileExInfoStandard, &a);
    if (!ok) {
        set_errno_from(GetLastError());
        free(w);
        return false;
    }
    if ((a.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) && follow) {
        // The target's facts: open it (following the link) and ask the handle.
        HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                               OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
        BY_HANDLE_FILE_INFORMATION info;
        if (h == INVALID_HANDLE_VALUE || !GetFileInformationByHandle(h, &info)) {
            set_errno_from(GetLastError());
            if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
            free(w);
            return false;
        }
        CloseHandle(h);
        a.dwFileAttributes = info.dwFileAttributes & ~(DWORD)FILE_ATTRIBUTE_REPARSE_POINT;
        a.ftLastWriteTime = info.ftLastWriteTime;
        a.nFileSizeHigh = info.nFileSizeHigh;
        a.nFileSizeLow = info.nFileSizeLow;
    }
    free(w);
    st->kind = (a.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ? PLATFORM_LINK
               : (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)   ? PLATFORM_DIRECTORY
               : (a.dwFileAttributes & FILE_ATTRIBUTE_DEVICE)      ? PLATFORM_DEVICE
                                                                   : PLATFORM_REGULAR;
    st->size = (long long)((unsigned long long)a.nFileSizeHigh << 32 | a.nFileSizeLow);
    st->owner = 1; // no owners to tell apart, nor root: see platform_user
    st->sticky = false;
    st->mode = 0;
    st->device = st->file_id = 0; // not asked: the watch and the save compare the bytes as well
    file_time(a.ftLastWriteTime, &st->mtime_sec, &st->mtime_nsec);
    return true;
}

// --- reading ---
FILE *platform_fopen(const char *path, const char *mode)
{
    wchar_t *w = wide(path), *m = wide(mode);
    FILE *f = w && m ? _wfopen(w, m) : NULL;
    free(w);
    free(m);
    return f;
}

bool platform_map_file(const char *path, PlatformMap *m)
{
    memset(m, 0, sizeof *m);
    wchar_t *w = wide(path);
    HANDLE f = w ? CreateFileW(w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
                               FILE_ATTRIBUTE_NORMAL, NULL)
                 : INVALID_HANDLE_VALUE;
    free(w);
    LARGE_INTEGER size;
    if (f == INVALID_HANDLE_VALUE || !GetFileSizeEx(f, &size)
        || (unsigned long long)size.QuadPart > SIZE_MAX) {
        if (f != INVALID_HANDLE_VALUE) CloseHandle(f);
        errno = ENOENT;
        return false;
    }
    m->size = (size_t)size.QuadPart;
    if (m->size > 0) {
        HANDLE map = CreateFileMappingW(f, NULL, PAGE_READONLY, 0, 0, NULL);
        const void *p = map ? MapViewOfFile(map, FILE_MAP_READ, 0, 0, 0) : NULL;
        if (!p) {
            if (map) CloseHandle(map);
            CloseHandle(f);
            memset(m, 0, sizeof *m);
            errno = EIO;
            return false;
        }
        m->data = p;
        m->handle = map;
    }
    CloseHandle(f); // the view keeps the file
    return true;
}

bool platform_map_faulted(const PlatformMap *m)
{
    (void)m; // Windows refuses to shorten a file while a view of it is mapped
    return false;
}

void platform_unmap_file(PlatformMap *m)
{
    if (m->data) UnmapViewOfFile(m->data);
    if (m->handle) CloseHandle((HANDLE)m->handle);
    memset(m, 0, sizeof *m);
}

FILE *platform_fopen_nofollow(const char *path)
{
    PlatformStat st;
    if (platform_stat(path, false, &st) && st.kind == PLATFORM_LINK) {
        errno = ELOOP;
        return NULL;
    }
    return platform_fopen(path, "rb");
}

// --- folders ---
struct PlatformDir {
    HANDLE h;
    bool first;
    WIN32_FIND_DATAW data;
    char name[MAX_PATH * 4];
};

PlatformDir *platform_dir_open(const char *path)
{
    size_t n = strlen(path);
    char *pattern = malloc(n + 3);
    if (!pattern) return NULL;
    snprintf(pattern, n + 3, "%s%s*", path,
             n && (path[n - 1] == '/' || path[n - 1] == '\\') ? "" : "/");
    wchar_t *w = wide(pattern);
    free(pattern);
    PlatformDir *d = w ? calloc(1, sizeof *d) : NULL;
    if (!d) {
        free(w);
        return NULL;
    }
    d->h = FindFirstFileW(w, &d->data);
    free(w);
    if (d->h == INVALID_HANDLE_VALUE) {
        set_errno_from(GetLastError());
        free(d);
        return NULL;
    }
    d->first = true;
    return d;
}

const char *platform_dir_next(PlatformDir *d)
{
    if (!d->first && !FindNextFileW(d->h, &d->data)) return NULL;
    d->first = false;
    if (!narrow(d->data.cFileName, d->name, sizeof d->name)) d->name[0] = '\0';
    return d->name;
}

void platform_dir_close(PlatformDir *d)
{
    if (!d) return;
    FindClose(d->h);
    free(d);
}

FILE *platform_open_regular(const char *path, PlatformStat *st, bool *opened)
{
    st->kind = PLATFORM_REGULAR;
    *opened = false;
    if (!platform_stat(path, true, st)) {
        if (errno != ENOENT) *opened = true; // there, but its facts could not be read
        st->kind = PLATFORM_REGULAR;
        return NULL;
    }
    *opened = true;
    if (st->kind != PLATFORM_REGULAR) return NULL;
    FILE *f = platform_fopen(path, "rb");
    if (!f) *opened = false;
    return f;
}

// --- writing all or nothing ---
int platform_create_exclusive(const char *path)
{
    wchar_t *w = wide(path);
    if (!w) return -1;
    // CREATE_NEW never opens what exists, a link included (it fails with ERROR_FILE_EXISTS).
    HANDLE h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        set_errno_from(GetLastError());
        return -1;
    }
    int fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
    if (fd < 0) {
        CloseHandle(h);
        errno = EMFILE;
    }
    return fd;
}

bool platform_write_all(int fd, const void *data, size_t len)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    const char *p = data;
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return false;
    }
    while (len > 0) {
        DWORD chunk = len > (1u << 30) ? (1u << 30) : (DWORD)len, w = 0;
        if (!WriteFile(h, p, chunk, &w, NULL) || w == 0) {
            set_errno_from(GetLastError());
            return false;
        }
        p += w;
        len -= w;
    }
    return true;
}

bool platform_sync_close(int fd)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    bool ok = h != INVALID_HANDLE_VALUE && FlushFileBuffers(h);
    if (!ok) set_errno_from(GetLastError());
    int saved = errno;
    if (_close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    errno = saved;
    return ok;
}

bool platform_close(int fd) { return _close(fd) == 0; }

bool platform_set_mode(
    int fd, unsigned mode) // no POSIX permission bits to copy: the new file is the user's
{
    (void)fd;
    (void)mode;
    return true;
}

bool platform_link(const char *from, const char *to)
{
    wchar_t *a = wide(from), *b = wide(to);
    BOOL ok = a && b && CreateHardLinkW(b, a, NULL);
    if (a && b && !ok) set_errno_from(GetLastError());
    free(a);
    free(b);
    return ok;
}

bool platform_replace(const char *from, const char *to)
{
    wchar_t *a = wide(from), *b = wide(to);
    BOOL ok = a && b && MoveFileExW(a, b, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
    if (a && b && !ok) set_errno_from(GetLastError());
    free(a);
    free(b);
    return ok;
}

bool platform_exchange(const char *a, const char *b)
{
    (void)a, (void)b;
    errno = ENOSYS; // no exchange of two names: the writer judges the file in place, then renames
                    // over it
    return false;
}

int platform_remove(const char *path)
{
    wchar_t *w = wide(path);
    BOOL ok = w && DeleteFileW(w);
    if (w && !ok) set_errno_from(GetLastError());
    free(w);
    return ok ? 0 : -1;
}

bool platform_mkdir(const char *path)
{
    wchar_t *w = wide(path);
    BOOL ok = w && CreateDirectoryW(w, NULL);
    if (w && !ok) set_errno_from(GetLastError());
    free(w);
    return ok;
}

void platform_sync_dir(const char *dir) { (void)dir; }

// --- the process ---
long platform_pid(void) { return (long)GetCurrentProcessId(); }

bool platform_process_alive(long pid)
{
    if (pid <= 0) return false;
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
    if (!h) return GetLastError() != ERROR_INVALID_PARAMETER; // no such process: gone
    DWORD code = 0;
    BOOL ok = GetExitCodeProcess(h, &code);
    CloseHandle(h);
    return !ok || code == STILL_ACTIVE;
}

long long platform_user(void) { return 1; }

uint64_t platform_time_ns(void)
{
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    return ((uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime) * 100u;
}

// Backslashes to '/', which Windows accepts too and the rest of the program expects.
static void forward_slashes(char *s)
{
    for (; *s; s++)
        if (*s == '\\') *s = '/';
}

bool platform_exe_path(char *out, size_t cap)
{
    wchar_t buf[32768];
    DWORD n = GetModuleFileNameW(NULL, buf, sizeof buf / sizeof buf[0]);
    if (n == 0 || n >= sizeof buf / sizeof buf[0]) return false;
    if (!narrow(buf, out, cap)) return false;
    forward_slashes(out);
    return true;
}

bool platform_realpath(const char *path, char *out, size_t cap)
{
    wchar_t *w = wide(path);
    if (!w) return false;
    DWORD attr = GetFileAttributesW(w);
    if (attr == INVALID_FILE_ATTRIBUTES) {
        set_errno_from(GetLastError());
        free(w);
        return false;
    }
    wchar_t buf[32768];
    DWORD n = GetFullPathNameW(w, sizeof buf / sizeof buf[0], buf, NULL);
    free(w);
    if (n == 0 || n >= sizeof buf / sizeof buf[0]) {
        errno = ENAMETOOLONG;
        return false;
    }
    if (!narrow(buf, out, cap)) return false;
    forward_slashes(out);
    return true;
}

void platform_console_attach(void)
{
    // Bytes as they are: "\n" stays one byte, so --json and --trace print what they print on Linux.
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
    // A GUI-subsystem program has no console: when started from one (cmd, PowerShell), write to it.
    // A stream already redirected to a file or a pipe stays where it is.
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE), err = GetStdHandle(STD_ERROR_HANDLE);
    bool need_out = out == NULL || out == INVALID_HANDLE_VALUE,
         need_err = err == NULL || err == INVALID_HANDLE_VALUE;
    if (!need_out && !need_err) return;
    if (!AttachConsole(ATTACH_PARENT_PROCESS)) return;
    if (need_out && freopen("CONOUT$", "wb", stdout)) setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (need_err && freopen("CONOUT$", "wb", stderr)) setvbuf(stderr, NULL, _IONBF, 0);
}

void platform_path_normalize(char *path) { forward_slashes(path); }

bool platform_path_absolute(const char *path)
{
    if (!path) return false;
    if (path[0] == '/' || path[0] == '\\') return true;
    bool drive = (path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z');
    return drive && path[1] == ':' && (path[2] == '/' || path[2] == '\\');
}

char **platform_utf8_argv(int argc, char **argv)
{
    int n = 0;
    wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!w || n != argc) {
        if (w) LocalFree(w);
        return argv;
    }
    char **out = calloc((size_t)n + 1, sizeof *out);
    for (int i = 0; out && i < n; i++) {
        int len = WideCharToMultiByte(CP_UTF8, 0, w[i], -1, NULL, 0, NULL, NULL);
        out[i] = len > 0 ? malloc((size_t)len) : NULL;
        if (!out[i]) {
            LocalFree(w);
            return argv; // what was made stays: the program is about to run with argv as it was
        }
        WideCharToMultiByte(CP_UTF8, 0, w[i], -1, out[i], len, NULL, NULL);
    }
    LocalFree(w);
    return out ? out : argv;
}
