// The kill shim (kill_shim.h): the file calls stood in front of the system's, and the child
// processes.
#ifndef _WIN32
#define _GNU_SOURCE // RTLD_NEXT, mkdtemp
#endif
#include "kill_shim.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <process.h>
#include <windows.h>
#else
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#define CHILD_FLAG "--kill-shim-child"
#define KILLED_STATUS 137

// ---- the count of calls, and what to do at call k (from the environment the parent set) -------------

static int calls_made;

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v ? atoi(v) : 0;
}

static void die(void)
{
    fflush(NULL);
#ifdef _WIN32
    TerminateProcess(GetCurrentProcess(), KILLED_STATUS);
#else
    kill(getpid(), SIGKILL);
#endif
}

// Before call: true when this call must fail instead of being made.
static bool before_call(void)
{
    int at = env_int("MHA_KILL_AT"), when = env_int("MHA_KILL_WHEN"),
        second = env_int("MHA_KILL_AT2");
    if (!at) return false;
    ++calls_made;
    if (calls_made == at && when == KILL_SHIM_BEFORE) die();
    if (second && calls_made == second) die();
    return calls_made == at && when == KILL_SHIM_FAIL;
}

static void after_call(void)
{
    if (calls_made && calls_made == env_int("MHA_KILL_AT")
        && env_int("MHA_KILL_WHEN") == KILL_SHIM_AFTER)
        die();
}

#ifdef _WIN32
// The writer (platform_win32.c) calls these through their import pointers: here they point at
// these.
static FARPROC real_call(const char *name)
{
    return GetProcAddress(GetModuleHandleW(L"kernel32.dll"), name);
}

static BOOL WINAPI shim_move(LPCWSTR from, LPCWSTR to, DWORD flags)
{
    BOOL(WINAPI * real)
    (LPCWSTR, LPCWSTR, DWORD) =
        (BOOL(WINAPI *)(LPCWSTR, LPCWSTR, DWORD))(void (*)(void))real_call("MoveFileExW");
    if (before_call()) {
        SetLastError(ERROR_WRITE_FAULT);
        return FALSE;
    }
    BOOL r = real(from, to, flags);
    after_call();
    return r;
}

static BOOL WINAPI shim_link(LPCWSTR to, LPCWSTR from, LPSECURITY_ATTRIBUTES sa)
{
    BOOL(WINAPI * real)
    (LPCWSTR, LPCWSTR, LPSECURITY_ATTRIBUTES) = (BOOL(WINAPI *)(
        LPCWSTR, LPCWSTR, LPSECURITY_ATTRIBUTES))(void (*)(void))real_call("CreateHardLinkW");
    if (before_call()) {
        SetLastError(ERROR_WRITE_FAULT);
        return FALSE;
    }
    BOOL r = real(to, from, sa);
    after_call();
    return r;
}

static BOOL WINAPI shim_delete(LPCWSTR path)
{
    BOOL(WINAPI * real)
    (LPCWSTR) = (BOOL(WINAPI *)(LPCWSTR))(void (*)(void))real_call("DeleteFileW");
    if (before_call()) {
        SetLastError(ERROR_WRITE_FAULT);
        return FALSE;
    }
    BOOL r = real(path);
    after_call();
    return r;
}

BOOL(WINAPI *__imp_MoveFileExW)(LPCWSTR, LPCWSTR, DWORD) = shim_move;
BOOL(WINAPI *__imp_CreateHardLinkW)(LPCWSTR, LPCWSTR, LPSECURITY_ATTRIBUTES) = shim_link;
BOOL(WINAPI *__imp_DeleteFileW)(LPCWSTR) = shim_delete;
#else
int rename(const char *from, const char *to)
{
    int (*real)(const char *, const char *) =
        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    if (before_call()) {
        errno = EIO;
        return -1;
    }
    int r = real(from, to);
    after_call();
    return r;
}

int link(const char *from, const char *to)
{
    int (*real)(const char *, const char *) =
        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
    if (before_call()) {
        errno = EIO;
        return -1;
    }
    int r = real(from, to);
    after_call();
    return r;
}

int unlink(const char *path)
{
    int (*real)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    if (before_call()) {
        errno = EIO;
        return -1;
    }
    int r = real(path);
    after_call();
    return r;
}
#endif

// ---- the children --------------------------------------------------------------------------------------

void kill_shim_main(int argc, char **argv, int (*child)(const char *role, void *ctx), void *ctx)
{
    if (argc < 3 || strcmp(argv[1], CHILD_FLAG) != 0) return;
    if (!strcmp(argv[2], "exit")) exit(0); // kill_shim_dead_pid's
    calls_made = 0;
    int status = child(argv[2], ctx);
    fflush(NULL);
    exit(status);
}

void kill_shim_setenv(const char *name, const char *value)
{
#ifdef _WIN32
    _putenv_s(name, value);
#else
    setenv(name, value, 1);
#endif
}

static void set_env(const char *name, int value)
{
    char v[16];
    snprintf(v, sizeof v, "%d", value);
    kill_shim_setenv(name, v);
}

static void clear_env(void)
{
#ifdef _WIN32
    _putenv_s("MHA_KILL_AT", "");
    _putenv_s("MHA_KILL_AT2", "");
    _putenv_s("MHA_KILL_WHEN", "");
#else
    unsetenv("MHA_KILL_AT");
    unsetenv("MHA_KILL_AT2");
    unsetenv("MHA_KILL_WHEN");
#endif
}

int kill_shim_child(const char *self, const char *role, KillShimWhen when, int k, int k2)
{
    fflush(NULL);
    set_env("MHA_KILL_AT", k);
    set_env("MHA_KILL_AT2", k2);
    set_env("MHA_KILL_WHEN", (int)when);
    int status = -1;
#ifdef _WIN32
    intptr_t r = _spawnl(_P_WAIT, self, self, CHILD_FLAG, role, (char *)NULL);
    clear_env();
    if (r < 0) return -1;
    status = (int)r;
    return status == KILLED_STATUS ? 2 : status == 0 ? 0 : 1;
#else
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, CHILD_FLAG, role, (char *)NULL);
        _exit(126);
    }
    clear_env();
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
    if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGKILL ? 2 : 1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
#endif
}

long kill_shim_dead_pid(const char *self)
{
    fflush(NULL);
#ifdef _WIN32
    intptr_t h = _spawnl(_P_NOWAIT, self, self, CHILD_FLAG, "exit", (char *)NULL);
    if (h == -1) return -1;
    long pid = (long)GetProcessId((HANDLE)h);
    WaitForSingleObject((HANDLE)h, INFINITE);
    CloseHandle((HANDLE)h);
    return pid;
#else
    (void)self;
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    return pid > 0 && waitpid(pid, NULL, 0) == pid ? (long)pid : -1;
#endif
}

// ---- folders -------------------------------------------------------------------------------------------

bool kill_shim_tempdir(char *out, size_t cap, const char *prefix)
{
#ifdef _WIN32
    char base[MAX_PATH + 1];
    DWORD n = GetTempPathA(sizeof base, base);
    if (n == 0 || n > MAX_PATH) return false;
    for (int i = 0; i < 1000; i++) {
        snprintf(out, cap, "%s%s-%lu-%d", base, prefix, (unsigned long)GetCurrentProcessId(), i);
        for (char *p = out; *p; p++)
            if (*p == '\\') *p = '/';
        if (_mkdir(out) == 0) return true;
    }
    return false;
#else
    const char *t = getenv("TMPDIR");
    return snprintf(out, cap, "%s/%s-XXXXXX", t && *t ? t : "/tmp", prefix) < (int)cap
           && mkdtemp(out) != NULL;
#endif
}

void kill_shim_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    if (d) closedir(d);
#ifdef _WIN32
    _rmdir(dir);
#else
    rmdir(dir);
#endif
}
