// The OS calls, one header for POSIX (platform_posix.c) and Win32 (platform_win32.c): a second
// thread, files written all or nothing (platform_write.c, over those calls), folders, what is at a
// path, modification stamps, the program's own path. Paths are UTF-8 everywhere; the Win32 half
// converts them to UTF-16. Failures set errno, as POSIX calls do.
#ifndef MHA_PLATFORM_H
#define MHA_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// --- threads ---
typedef struct PlatformThread PlatformThread;
// Starts fn(arg) on a new thread; NULL when none could be started (the caller then runs fn itself).
PlatformThread *platform_thread_start(int (*fn)(void *), void *arg);
// Waits for the thread to end and frees it.
void platform_thread_join(PlatformThread *t);
// Runs fn(jobs + i * size) for i = 0 .. count-1 and returns when all are done: job 0 on this
// thread, the others on worker threads kept from one call to the next (platform_pool.c; started the
// first time they are needed, ended at exit). When another thread is using the workers, each job
// gets a thread of its own (platform_thread_start); a job whose thread cannot start runs here.
void platform_run_jobs(int (*fn)(void *), void *jobs, size_t size, int count);
// The processors online (at least 1; 1 where threads cannot start, as in the browser).
int platform_cpu_count(void);
// The C library's allocator told to keep freed memory for the next trace rather than hand it back
// to the system at once (glibc: M_TRIM_THRESHOLD 256 MiB; a trace frees and allocates the same
// matrices again, and returning them costs each new trace page faults and zeroed pages:
// bert-base 13.0 -> 11.1 ms). And M_MMAP_THRESHOLD 4 MiB: setting the first turns off glibc's
// sliding mmap threshold, so every block of 128 KiB or more (a BERT head's 128 x 128 scores) was
// mapped anew and faulted in page by page on every trace (720 page faults a bert-base trace;
// bert-base 10.0 -> 8.9 ms, bert-long 70 -> 54 ms). Not higher: at 32 MiB a training step got 4 %
// slower (a larger block, zeroed from the heap instead of fresh pages). Nothing elsewhere. Called
// once at the start of main, before any thread.
void platform_tune_allocator(void);

// --- what is at a path ---
typedef enum {
    PLATFORM_REGULAR,
    PLATFORM_DIRECTORY,
    PLATFORM_LINK, // a symbolic link (or a Windows reparse point), seen only without following
    PLATFORM_FIFO,
    PLATFORM_SOCKET,
    PLATFORM_DEVICE,
} PlatformKind;

typedef struct {
    PlatformKind kind;
    long long size;
    long long mtime_sec, mtime_nsec; // last modification
    long long owner; // the owning user (POSIX uid; on Windows every file is the user's own)
    bool sticky; // a folder where only owners may replace files (POSIX S_ISVTX)
    unsigned mode; // the permission bits (POSIX st_mode & 0777; 0 on Windows)
    unsigned long long device,
        file_id; // which file it is (POSIX st_dev and st_ino; 0 on Windows): a file
                 // put in its place (a save through a temporary) is another
} PlatformStat;

// What is at path, following a link (follow) or not (like lstat). false with errno (ENOENT: nothing
// there).
bool platform_stat(const char *path, bool follow, PlatformStat *st);

// --- reading ---
// fopen with a UTF-8 name (mode as fopen's; always add "b" for bytes).
FILE *platform_fopen(const char *path, const char *mode);
// Opens path for reading bytes, never through a link at path and never blocking on a FIFO. NULL
// with errno.
FILE *platform_fopen_nofollow(const char *path);

// --- a file mapped into memory, read only (safetensors checkpoints: gigabytes never copied) ---
typedef struct {
    const unsigned char *data; // size bytes; NULL for an empty file
    size_t size;
    void *handle; // the system's own (Win32: the mapping); NULL on POSIX
} PlatformMap;
// Maps the regular file at path for reading. false with errno (EISDIR, ENOENT, ...) and *m empty.
bool platform_map_file(const char *path, PlatformMap *m);
void platform_unmap_file(PlatformMap *m);
// Did a read of m find its file shorter than when it was mapped (a download finishing, a sync
// tool)? POSIX raises a bus error there; the program's handler puts a page of zeros in its place,
// so the read goes on, and remembers the page for this question. Windows refuses to shorten a
// mapped file: always false there.
bool platform_map_faulted(const PlatformMap *m);

// --- folders ---
typedef struct PlatformDir PlatformDir;
// The names in a folder (".", ".." included or not), or NULL with errno.
PlatformDir *platform_dir_open(const char *path);
// The next name (UTF-8, valid until the next call), or NULL at the end.
const char *platform_dir_next(PlatformDir *d);
void platform_dir_close(PlatformDir *d);
// Opens path for reading ("rb") only if it is a regular file, never blocking on a FIFO or a device.
// On NULL, *st says how far it got: errno set and st->kind PLATFORM_REGULAR when the open or a read
// of the file's facts failed; st->kind anything else when something other than a file is there.
// *opened is false when the open itself failed.
FILE *platform_open_regular(const char *path, PlatformStat *st, bool *opened);

// --- writing all or nothing: the OS calls ---
// Creates path exclusively for writing bytes (never an existing file, never through a link). fd or
// -1.
int platform_create_exclusive(const char *path);
// Writes all len bytes to fd. false with errno.
bool platform_write_all(int fd, const void *data, size_t len);
// Flushes fd to the disk and closes it (closed in any case). false with errno (the first
// failure's).
bool platform_sync_close(int fd);
// Closes fd without flushing it (a file about to be removed). false with errno.
bool platform_close(int fd);
// Gives the file at fd the permission bits mode (POSIX fchmod; nothing on Windows). false with
// errno.
bool platform_set_mode(int fd, unsigned mode);
// A second name for the file at from (a hard link); false with errno (EEXIST when to exists).
bool platform_link(const char *from, const char *to);
// Puts the file from in place of to in one step: rename (POSIX) / MoveFileExW with REPLACE_EXISTING
// and WRITE_THROUGH. A link at to is replaced, never written through.
bool platform_replace(const char *from, const char *to);
// Swaps the files at a and b in one step (Linux: renameat2 with RENAME_EXCHANGE). false with errno:
// ENOENT when either is missing, ENOSYS where the system or the file system has no exchange (every
// other system).
bool platform_exchange(const char *a, const char *b);
// Removes a file (unlink). 0 or -1.
int platform_remove(const char *path);
// Creates one folder (a missing parent is an error).
bool platform_mkdir(const char *path);
// Makes the renames in dir reach the disk (POSIX: fsync of the folder; nothing on Windows, where
// the write-through move already did).
void platform_sync_dir(const char *dir);

// --- writing all or nothing: the writer (platform_write.c, the same on every system) ---
// Writes all len bytes, flushes, closes (closed in any case). false with errno (the first
// failure's).
bool platform_write_sync_close(int fd, const void *data, size_t len);
// "dir/name" into out ('/' added unless dir ends with one); false when it does not fit cap.
bool platform_path_join(char *out, size_t cap, const char *dir, const char *name);

// The writer's temporaries are hidden files beside their target, named after it and this process:
// "DIR/.NAME.PID.tmp" holds the new bytes, "DIR/.NAME.PID.old" a copy of the file it replaces; when
// such a name is taken (a file left by an earlier process of the same number, a link planted
// there), the next try is "DIR/.NAME.PID-K.tmp", K = 1 .. PLATFORM_TEMPORARY_TRIES - 1. What is
// there is never opened.
#define PLATFORM_TEMPORARY_TRIES 100
// The name of try k (0 .. PLATFORM_TEMPORARY_TRIES - 1) for path, ext "tmp" or "old"; false when it
// does not fit cap. The last try is the longest name.
bool platform_temporary_name(char *out, size_t cap, const char *path, const char *ext, int k);
// Removes from dir the temporaries of a writer killed midway: those named after one of names (count
// of them) by a process that no longer runs, when they are plain files of this user. A ".old" is
// removed only when a file is at its name; where none is, it was the only copy and is put back at
// the name instead. platform_writer_begin does it for its targets.
void platform_temporaries_clean(const char *dir, const char *const *names, size_t count);

// Writing a set of files, each through a temporary beside it, so that a set switches at one instant
// (see platform_writer_commit: a reader sees each file old or new, whole; the set is whole on
// disk): begin (the temporaries that killed writers left for these targets go; nothing else is
// touched), add each file's bytes (a fresh temporary, created exclusively, written and flushed,
// with the permission bits of the file it replaces), commit (the renames), close. Only a regular
// file is replaced: a link, a device, a FIFO, a socket or a folder at a target is refused
// (PLATFORM_WRITE_TARGET).
typedef struct PlatformWriter PlatformWriter;

typedef enum {
    PLATFORM_WRITE_CREATE = 1, // a temporary could not be created
    PLATFORM_WRITE_WRITE, // its bytes could not be written or flushed
    PLATFORM_WRITE_KEEP, // a copy of a file to be replaced could not be kept (nothing was replaced)
    PLATFORM_WRITE_REPLACE, // a rename failed; every target already replaced was put back as it was
    PLATFORM_WRITE_TARGET, // something other than a regular file is at the target (see found), or
                           // its facts could not be read (error)
    PLATFORM_WRITE_JOURNAL, // the set's journal could not be written (nothing was replaced)
} PlatformWriteStep;

typedef struct {
    PlatformWriteStep step;
    size_t index; // the file it happened to
    int error; // errno (0 for TARGET when something is there)
    PlatformKind found; // TARGET: what is at the target
} PlatformWriteFailure;

// May a writer put a file at path? Yes when nothing is there (*exists false) or a regular file is
// (*exists true, *st its facts); no (false, *fail filled: TARGET, index 0) for anything else.
bool platform_writer_target(const char *path, bool *exists, PlatformStat *st,
                            PlatformWriteFailure *fail);

// count files at dir/names[i] (dir NULL: names are paths). The names are copied. NULL with errno.
PlatformWriter *platform_writer_begin(const char *dir, const char *const *names, size_t count);
// Where file i goes.
const char *platform_writer_path(const PlatformWriter *w, size_t i);
// File i's temporary, NULL until platform_writer_add created one.
const char *platform_writer_temporary(const PlatformWriter *w, size_t i);
// Writes file i's bytes to a fresh temporary. false with *fail filled (TARGET, CREATE or WRITE;
// fail may be NULL).
bool platform_writer_add(PlatformWriter *w, size_t i, const void *data, size_t len,
                         PlatformWriteFailure *fail);
// Renames every temporary into place (each file must have been added). keep[i] (keep NULL: all
// false) says a file is at target i that a failed rename must put back: a copy of it is kept first
// (a hard link, or the bytes where the file system has none); without it a failed commit removes
// the new file there. Then the copies go and the folders are flushed. false with *fail filled
// (KEEP, JOURNAL or REPLACE). A set (more than one file, begun with a folder) switches at one
// commit point: before any rename, its journal (".mha-tracer-set.PID.new": each target, its
// temporary and its copy) appears complete in one step; it goes when every rename is done. A kill
// before that point leaves the old set (the next writer's clean removes the temporaries), after it
// the new set complete on disk, some of it still under the temporaries' names until
// platform_sets_recover finishes the switch.
bool platform_writer_commit(PlatformWriter *w, const bool *keep, PlatformWriteFailure *fail);
// Puts file i (added, the only one of w) at its target only if nothing is there, in one step: a
// hard link from its temporary (the bytes copied into an exclusively created file where the file
// system has no links), so two writers choosing one free name never both get it. false with *fail
// filled (REPLACE; error EEXIST when something is at the target: nothing there was touched).
bool platform_writer_commit_new(PlatformWriter *w, size_t i, PlatformWriteFailure *fail);
// Puts file i (added, the only one of w) in place of a file that must be the caller's own (its
// earlier save). With the exchange (Linux), no moment between the look and the replacement: what is
// at the target is swapped with the new file in one step, ours(where it now is, ctx) judges it, and
// only a file ours accepts is removed; any other is swapped back. Without it (every other system,
// and file systems without the exchange) ours judges the file where it is and the new one is
// renamed over it: the name holds a whole file at every instant, nothing is ever moved aside, a
// kill leaves the old file or the new one (a file another writer puts there in the microseconds
// between the look and the rename is replaced too). Not ours: the call fails with REPLACE and
// EEXIST, as it does when the name was free and another writer claims it meanwhile. Nothing at the
// target: claimed as platform_writer_commit_new. false with *fail filled.
bool platform_writer_commit_own(PlatformWriter *w, size_t i,
                                bool (*ours)(const char *at, void *ctx), void *ctx,
                                PlatformWriteFailure *fail);
// Finishes the sets whose writers were killed in dir: a dead writer's committed journal is played
// forward (each temporary still there renamed over its target, when the target is absent or a plain
// file that ours(path, ctx) accepts, else removed; the copies of the old removed), a journal of a
// switch being put back is played back (the copies renamed over the targets), an incomplete one
// only removed. Only plain files of this user named as that writer names its temporaries are
// touched; a live writer's journal is left.
typedef bool (*PlatformSetOurs)(const char *at, void *ctx);
void platform_sets_recover(const char *dir, PlatformSetOurs ours, void *ctx);
// Removes every temporary and copy still there (after a failure; nothing after a commit) and frees
// w.
void platform_writer_close(PlatformWriter *w);

// --- what a file holds ---
// A 64-bit hash of bytes (FNV-1a), continued from h (start with PLATFORM_HASH_START).
#define PLATFORM_HASH_START UINT64_C(1469598103934665603)
uint64_t platform_hash(uint64_t h, const void *data, size_t len);
// The hash of the bytes of the regular file at path (followed through a link; never blocking on a
// FIFO) and their count. false with errno.
bool platform_file_hash(const char *path, uint64_t *hash, long long *size);

// --- the process ---
long platform_pid(void);
// Is process pid running (or not ours to ask about)? false only when it is known to be gone.
bool platform_process_alive(long pid);
// This process's user, as PlatformStat.owner counts them (0: root, who may replace anything).
long long platform_user(void);
// Nanoseconds of the wall clock (for unique temporary names, not for measuring).
uint64_t platform_time_ns(void);
// The running program's file, absolute, or false.
bool platform_exe_path(char *out, size_t cap);
// The absolute path of an existing path with links resolved (realpath), '/' as separator; false
// with errno.
bool platform_realpath(const char *path, char *out, size_t cap);
// Whether path is absolute: it starts at '/' (and on Windows also at a drive, C:/ or C:\, or at a
// backslash, a share), so it is shown as it is, not after the working directory.
bool platform_path_absolute(const char *path);
// Windows: stdout and stderr write bytes (binary mode) and, for a GUI-subsystem program, reach the
// console it was started from, if any and unless they are already redirected. Nothing elsewhere.
void platform_console_attach(void);
// Windows: backslashes in path become '/' (Windows takes both; the rest of the program splits paths
// at '/'). Nothing elsewhere, where a backslash is a character of a name.
void platform_path_normalize(char *path);
// Command-line arguments as UTF-8 (Windows: from the UTF-16 command line; elsewhere argv itself).
// The array lives until the program ends.
char **platform_utf8_argv(int argc, char **argv);

#endif
