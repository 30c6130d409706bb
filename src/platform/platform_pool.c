// Worker threads kept from one parallel run to the next (platform_run_jobs): a trace split over the
// cores no longer starts and joins a thread for each of its parts. POSIX threads or Win32, chosen
// here.
#if !defined(_WIN32)
#define _XOPEN_SOURCE 700
#endif
#include "platform/platform.h"

#include <stdint.h>

#if defined(_WIN32)
#include <windows.h>
#include <process.h>
typedef SRWLOCK PoolLock;
typedef CONDITION_VARIABLE PoolCond;
#define POOL_LOCK_INIT SRWLOCK_INIT
#define POOL_COND_INIT CONDITION_VARIABLE_INIT
static void pool_lock(PoolLock *l) { AcquireSRWLockExclusive(l); }
static void pool_unlock(PoolLock *l) { ReleaseSRWLockExclusive(l); }
static bool pool_try_lock(PoolLock *l) { return TryAcquireSRWLockExclusive(l) != 0; }
static void pool_wait(PoolCond *c, PoolLock *l) { SleepConditionVariableSRW(c, l, INFINITE, 0); }
static void pool_wake_all(PoolCond *c) { WakeAllConditionVariable(c); }
static void pool_wake_one(PoolCond *c) { WakeConditionVariable(c); }
#else
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
typedef pthread_mutex_t PoolLock;
typedef pthread_cond_t PoolCond;
#define POOL_LOCK_INIT PTHREAD_MUTEX_INITIALIZER
#define POOL_COND_INIT PTHREAD_COND_INITIALIZER
static void pool_lock(PoolLock *l) { pthread_mutex_lock(l); }
static void pool_unlock(PoolLock *l) { pthread_mutex_unlock(l); }
static bool pool_try_lock(PoolLock *l) { return pthread_mutex_trylock(l) == 0; }
static void pool_wait(PoolCond *c, PoolLock *l) { pthread_cond_wait(c, l); }
static void pool_wake_all(PoolCond *c) { pthread_cond_broadcast(c); }
static void pool_wake_one(PoolCond *c) { pthread_cond_signal(c); }
#endif

enum { POOL_MAX = 16 }; // workers 1 .. POOL_MAX-1 (job 0 runs on the caller)

static PoolLock pool_use = POOL_LOCK_INIT; // held by the one caller whose jobs the workers run
static PoolLock pool_mutex = POOL_LOCK_INIT;
static PoolCond pool_go = POOL_COND_INIT, pool_done = POOL_COND_INIT;
static int pool_workers; // workers 1 .. pool_workers are running
static unsigned pool_round; // one more for each run
static unsigned pool_seen[POOL_MAX]; // the last round each worker looked at
static int (*pool_fn)(void *);
static char *pool_base;
static size_t pool_size;
static int pool_count, pool_pending; // jobs 1 .. pool_count-1 go to workers; how many are not done
static bool pool_quit;

static void worker_loop(int idx)
{
    pool_lock(&pool_mutex);
    for (;;) {
        while (pool_seen[idx] == pool_round && !pool_quit) pool_wait(&pool_go, &pool_mutex);
        if (pool_quit) break;
        pool_seen[idx] = pool_round;
        if (idx >= pool_count) continue; // not needed this round
        int (*fn)(void *) = pool_fn;
        void *arg = pool_base + (size_t)idx * pool_size;
        pool_unlock(&pool_mutex);
        fn(arg);
        pool_lock(&pool_mutex);
        if (--pool_pending == 0) pool_wake_one(&pool_done);
    }
    pool_unlock(&pool_mutex);
}

#if defined(_WIN32)
static unsigned __stdcall worker_main(void *arg)
{
    worker_loop((int)(intptr_t)arg);
    return 0;
}
// Win32 ends the workers with the process (nothing to free).
static bool worker_start(int idx)
{
    uintptr_t h = _beginthreadex(NULL, 0, worker_main, (void *)(intptr_t)idx, 0, NULL);
    if (!h) return false;
    CloseHandle((HANDLE)h);
    return true;
}
static bool pool_usable(void) { return true; }
#else
static pthread_t pool_ids[POOL_MAX];
static pid_t pool_pid; // the workers belong to this process (a fork's child has none)
static void *worker_main(void *arg)
{
    worker_loop((int)(intptr_t)arg);
    return NULL;
}
// At exit the workers end and are joined (so memory checkers see every thread's memory given back).
static void pool_shutdown(void)
{
    pool_lock(&pool_mutex);
    pool_quit = true;
    pool_wake_all(&pool_go);
    int n = pool_workers;
    pool_unlock(&pool_mutex);
    for (int i = 1; i <= n; i++) pthread_join(pool_ids[i], NULL);
}
static bool worker_start(int idx)
{
    static bool registered;
    if (!registered) {
        if (atexit(pool_shutdown) != 0) return false;
        registered = true;
    }
    return pthread_create(&pool_ids[idx], NULL, worker_main, (void *)(intptr_t)idx) == 0;
}
static bool pool_usable(void)
{
    if (pool_workers > 0 && pool_pid != getpid())
        return false; // forked: the workers stayed in the parent
    pool_pid = getpid();
    return !pool_quit;
}
#endif

// The old way, when the workers are busy with another caller's jobs (or count is beyond them): a
// thread started for each job but the first, joined at the end (or the job run here when none
// starts).
static void run_on_new_threads(int (*fn)(void *), char *base, size_t size, int count)
{
    PlatformThread *threads[POOL_MAX] = {NULL};
    for (int i = 1; i < count && i < POOL_MAX; i++)
        threads[i] = platform_thread_start(fn, base + (size_t)i * size);
    fn(base);
    for (int i = 1; i < count; i++) {
        if (i < POOL_MAX && threads[i]) platform_thread_join(threads[i]);
        else fn(base + (size_t)i * size);
    }
}

void platform_run_jobs(int (*fn)(void *), void *jobs, size_t size, int count)
{
    char *base = jobs;
    if (count < 1) return;
    if (count == 1) {
        fn(base);
        return;
    }
    if (count > POOL_MAX || !pool_try_lock(&pool_use)) {
        run_on_new_threads(fn, base, size, count);
        return;
    }
    pool_lock(&pool_mutex);
    if (!pool_usable()) {
        pool_unlock(&pool_mutex);
        pool_unlock(&pool_use);
        run_on_new_threads(fn, base, size, count);
        return;
    }
    while (pool_workers < count - 1) {
        pool_seen[pool_workers + 1] = pool_round;
        if (!worker_start(pool_workers + 1)) break;
        pool_workers++;
    }
    int pooled =
        count - 1 < pool_workers ? count - 1 : pool_workers; // jobs 1 .. pooled on the workers
    pool_fn = fn;
    pool_base = base;
    pool_size = size;
    pool_count = pooled + 1;
    pool_pending = pooled;
    pool_round++;
    pool_wake_all(&pool_go);
    pool_unlock(&pool_mutex);
    fn(base);
    for (int i = pooled + 1; i < count; i++)
        fn(base + (size_t)i * size); // workers that could not start
    pool_lock(&pool_mutex);
    while (pool_pending > 0) pool_wait(&pool_done, &pool_mutex);
    pool_unlock(&pool_mutex);
    pool_unlock(&pool_use);
}
