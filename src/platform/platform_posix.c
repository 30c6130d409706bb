// The POSIX half of the platform layer (Linux, macOS, the BSDs): pthreads, open/fsync/rename,
// lstat.
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE // st_mtimespec, _NSGetExecutablePath
#else
#define _XOPEN_SOURCE 700 // POSIX.1-2008 with realpath
#endif
#if defined(__linux__)
#define _DEFAULT_SOURCE // syscall: renameat2's exchange
#endif
#include "platform/platform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif
#if defined(__EMSCRIPTEN_PTHREADS__)
#include <emscripten/threading.h>
#endif

struct PlatformThread {
    pthread_t id;
    int (*fn)(void *);
    void *arg;
};

#if !defined(__EMSCRIPTEN__)
static void *thread_main(void *p)
{
    PlatformThread *t = p;
    t->fn(t->arg);
    return NULL;
}
#endif

PlatformThread *platform_thread_start(int (*fn)(void *), void *arg)
{
#if defined(__EMSCRIPTEN__)
    // The page: none (its callers then do the work themselves, in slices between frames). With
    // threads its workers are the trace's pool (platform_run_jobs), made at load; one taken here
    // would leave a trace without, and a worker made later starts only once the main thread yields.
    (void)fn;
    (void)arg;
    return NULL;
#else
    PlatformThread *t = malloc(sizeof *t);
    if (!t) return NULL;
    t->fn = fn;
    t->arg = arg;
    if (pthread_create(&t->id, NULL, thread_main, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
#endif
}

void platform_thread_join(PlatformThread *t)
{
    if (!t) return;
    pthread_join(t->id, NULL);
    free(t);
}

int platform_cpu_count(void)
{
#if defined(__EMSCRIPTEN_PTHREADS__)
    // The browser's or Node's count of cores, at most the pool's workers (CMakeLists.txt) and the
    // caller.
    int n = emscripten_num_logical_cores();
    return n < 1 ? 1 : n > MHA_WEB_POOL + 1 ? MHA_WEB_POOL + 1 : n;
#elif defined(_SC_NPROCESSORS_ONLN) && !defined(__EMSCRIPTEN__)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
#else
    return 1;
#endif
}

void platform_tune_allocator(void)
{
#if defined(__GLIBC__)
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

static void fill(PlatformStat *st, const struct stat *sb)
{
    st->kind = S_ISREG(sb->st_mode)    ? PLATFORM_REGULAR
               : S_ISDIR(sb->st_mode)  ? PLATFORM_DIRECTORY
               : S_ISLNK(sb->st_mode)  ? PLATFORM_LINK
               : S_ISFIFO(sb->st_mode) ? PLATFORM_FIFO
               : S_ISSOCK(sb->st_mode) ? PLATFORM_SOCKET
                                       : PLATFORM_DEVICE;
    st->size = (long long)sb->st_size;
    st->owner = (long long)sb->st_uid;
    st->sticky = (sb->st_mode & S_ISVTX) != 0;
    st->mode = (unsigned)(sb->st_mode & 0777);
#if defined(__APPLE__)
    st->mtime_sec = (long long)sb->st_mtimespec.tv_sec;
    st->mtime_nsec = (long long)sb->st_mtimespec.tv_nsec;
#else
    st->mtime_sec = (long long)sb->st_mtim.tv_sec;
    st->mtime_nsec = (long long)sb->st_mtim.tv_nsec;
#endif
    st->device = (unsigned long long)sb->st_dev;
    st->file_id = (unsigned long long)sb->st_ino;
}

bool platform_stat(const char *path, bool follow, PlatformStat *st)
{
    struct stat sb;
    if ((follow ? stat(path, &sb) : lstat(path, &sb)) != 0) return false;
    fill(st, &sb);
    return true;
}

FILE *platform_fopen(const char *path, const char *mode) { return fopen(path, mode); }

// Bus errors in a mapped file that shrank: the mappings (start, end) are kept here; the handler
// maps a page of zeros over a faulting page of one of them, so the read goes on, and keeps the page
// for platform_map_faulted. A fault elsewhere gets the handler that was there before.
enum { BUS_MAPS = 256, BUS_KEPT = 64 };
static struct {
    uintptr_t start, end;
} bus_maps[BUS_MAPS];
static uintptr_t bus_pages[BUS_KEPT];
static int bus_count;
static long bus_page_size = 4096;
static struct sigaction bus_previous;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;

static void bus_handler(int sig, siginfo_t *info, void *ctx)
{
    (void)sig, (void)ctx;
    uintptr_t at = (uintptr_t)info->si_addr, page = at & ~(uintptr_t)(bus_page_size - 1);
    bool ours = false;
    for (int i = 0; i < BUS_MAPS && !ours; i++)
        ours = at >= __atomic_load_n(&bus_maps[i].start, __ATOMIC_SEQ_CST)
               && at < __atomic_load_n(&bus_maps[i].end, __ATOMIC_SEQ_CST);
    if (ours
        && mmap((void *)page, (size_t)bus_page_size, PROT_READ,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
               != MAP_FAILED) {
        int k = __atomic_fetch_add(&bus_count, 1, __ATOMIC_SEQ_CST);
        if (k < BUS_KEPT) __atomic_store_n(&bus_pages[k], page, __ATOMIC_SEQ_CST);
        return;
    }
    sigaction(SIGBUS, &bus_previous, NULL); // not ours: the fault comes again, to the one before
}

static void bus_install(void)
{
#ifndef __EMSCRIPTEN__
    long size = sysconf(_SC_PAGESIZE);
    if (size > 0) bus_page_size = size;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = bus_handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &bus_previous);
#else
    (void)bus_handler; // the page maps no file: nothing to serve, the handler is compiled for the
                       // same code
#endif
}

// Adds [start, start + size) to the mappings the handler serves (size 0: removes start's).
static void bus_register(const void *start, size_t size)
{
    pthread_once(&bus_once, bus_install);
    pthread_mutex_lock(&bus_lock);
    uintptr_t a = (uintptr_t)start;
    for (int i = 0; i < BUS_MAPS; i++) {
        uintptr_t s = __atomic_load_n(&bus_maps[i].start, __ATOMIC_SEQ_CST);
        if (size && s == 0) {
            __atomic_store_n(&bus_maps[i].end, a + size, __ATOMIC_SEQ_CST);
            __atomic_store_n(&bus_maps[i].start, a, __ATOMIC_SEQ_CST);
            break;
        }
        if (!size && s == a) { // its faults forgotten too: the addresses may be mapped again
            uintptr_t end = __atomic_load_n(&bus_maps[i].end, __ATOMIC_SEQ_CST);
            for (int k = 0; k < BUS_KEPT; k++) {
                uintptr_t p = __atomic_load_n(&bus_pages[k], __ATOMIC_SEQ_CST);
                if (p + (uintptr_t)bus_page_size > a && p < end)
                    __atomic_store_n(&bus_pages[k], 0, __ATOMIC_SEQ_CST);
            }
            __atomic_store_n(&bus_maps[i].start, 0, __ATOMIC_SEQ_CST);
            __atomic_store_n(&bus_maps[i].end, 0, __ATOMIC_SEQ_CST);
            break;
        }
    }
    pthread_mutex_unlock(&bus_lock);
}

bool platform_map_faulted(const PlatformMap *m)
{
    int n = __atomic_load_n(&bus_count, __ATOMIC_SEQ_CST);
    uintptr_t a = (uintptr_t)m->data;
    for (int k = 0; k < n && k < BUS_KEPT; k++) {
        uintptr_t p = __atomic_load_n(&bus_pages[k], __ATOMIC_SEQ_CST);
        if (m->data && p && p + (uintptr_t)bus_page_size > a && p < a + m->size) return true;
    }
    return false;
}

bool platform_map_file(const char *path, PlatformMap *m)
{
    memset(m, 0, sizeof *m);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); // never blocking on a FIFO
    if (fd < 0) return false;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0
        || (uint64_t)st.st_size > SIZE_MAX) {
        int e = errno;
        close(fd);
        errno = e ? e : EISDIR;
        return false;
    }
    m->size = (size_t)st.st_size;
    if (m->size > 0) {
        void *p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            memset(m, 0, sizeof *m);
            errno = e;
            return false;
        }
        m->data = p;
        bus_register(p, m->size);
    }
    close(fd); // the mapping keeps the file
    return true;
}

void platform_unmap_file(PlatformMap *m)
{
    if (m->data) {
        bus_register(m->data, 0);
        munmap((void *)m->data, m->size);
    }
    memset(m, 0, sizeof *m);
}

FILE *platform_fopen_nofollow(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

struct PlatformDir {
    DIR *d;
};

PlatformDir *platform_dir_open(const char *path)
{
    PlatformDir *p = malloc(sizeof *p);
    if (!p) return NULL;
    if (!(p->d = opendir(path))) {
        int e = errno;
        free(p);
        errno = e;
        return NULL;
    }
    return p;
}

const char *platform_dir_next(PlatformDir *p)
{
    struct dirent *e = readdir(p->d);
    return e ? e->d_name : NULL;
}

void platform_dir_close(PlatformDir *p)
{
    if (!p) return;
    closedir(p->d);
    free(p);
}

FILE *platform_open_regular(const char *path, PlatformStat *st, bool *opened)
{
    // O_NONBLOCK: a FIFO (or a device) at path must not block the open; blocking mode is restored
    // for a file.
    st->kind = PLATFORM_REGULAR;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    *opened = fd >= 0;
    if (fd < 0) return NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    fill(st, &sb);
    if (st->kind != PLATFORM_REGULAR) {
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

bool platform_set_mode(int fd, unsigned mode) { return fchmod(fd, (mode_t)mode) == 0; }

int platform_create_exclusive(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

bool platform_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return false;
        }
        p += w;
        len -= (size_t)w;
    }
    return true;
}

bool platform_sync_close(int fd)
{
    bool ok = fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    errno = saved;
    return ok;
}

bool platform_close(int fd) { return close(fd) == 0; }

bool platform_link(const char *from, const char *to) { return link(from, to) == 0; }

bool platform_replace(const char *from, const char *to) { return rename(from, to) == 0; }

bool platform_exchange(const char *a, const char *b)
{
    // The tests of the other systems' path (tests/test_save_kill.c): as if the exchange were
    // missing.
    const char *none = getenv("MHA_TEST_NO_EXCHANGE");
    if (none && none[0] == '1') {
        errno = ENOSYS;
        return false;
    }
#if defined(__linux__) && defined(SYS_renameat2)
    // renameat2(RENAME_EXCHANGE) by its number: glibc before 2.28 has no wrapper. A file system
    // without the exchange (EINVAL) is one without the call.
    if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 1u << 1 /* RENAME_EXCHANGE */) == 0)
        return true;
    if (errno == EINVAL || errno == EOPNOTSUPP) errno = ENOSYS;
    return false;
#else
    (void)a, (void)b;
    errno = ENOSYS;
    return false;
#endif
}

int platform_remove(const char *path) { return unlink(path); }

bool platform_mkdir(const char *path) { return mkdir(path, 0777) == 0; }

void platform_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

long platform_pid(void) { return (long)getpid(); }

bool platform_process_alive(long pid)
{
    return pid > INT_MAX || kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

long long platform_user(void) { return (long long)geteuid(); }

uint64_t platform_time_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (uint64_t)time(NULL) * UINT64_C(1000000000);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

bool platform_exe_path(char *out, size_t cap)
{
#if defined(__APPLE__)
    char buf[PATH_MAX];
    uint32_t size = sizeof buf;
    return _NSGetExecutablePath(buf, &size) == 0 && platform_realpath(buf, out, cap);
#else
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0 || (size_t)n >= cap) return false;
    buf[n] = '\0';
    memcpy(out, buf, (size_t)n + 1);
    return true;
#endif
}

bool platform_realpath(const char *path, char *out, size_t cap)
{
    char buf[PATH_MAX];
    if (!realpath(path, buf)) return false;
    if (strlen(buf) >= cap) {
        errno = ENAMETOOLONG;
        return false;
    }
    strcpy(out, buf);
    return true;
}

void platform_console_attach(void) {}

void platform_path_normalize(char *path) { (void)path; }

bool platform_path_absolute(const char *path) { return path && path[0] == '/'; }

char **platform_utf8_argv(int argc, char **argv)
{
    (void)argc;
    return argv;
}
