// The kill shim of the kill tests (test_save_kill, test_export_kill; issue 39): a child process
// that writes is killed right before, or right after, its k-th file call that changes a folder
// (rename, link, unlink on POSIX; MoveFileExW, CreateHardLinkW, DeleteFileW on Windows), or that
// call fails instead (EIO), so a test can look at what every kill point leaves. kill_shim.c stands
// its own definitions of those calls in front of the system's for the writer linked into the test:
// on Linux functions of the same name (the C library's reached through dlsym RTLD_NEXT), on Windows
// the import pointers the writer calls through (the real function from kernel32). A kill is SIGKILL
// / TerminateProcess: nothing of the writer runs after it.
#ifndef MHA_TEST_KILL_SHIM_H
#define MHA_TEST_KILL_SHIM_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { KILL_SHIM_BEFORE, KILL_SHIM_AFTER, KILL_SHIM_FAIL } KillShimWhen;

// In main, first: when this process is a child that kill_shim_child started (its arguments say so),
// runs child(role, ctx) with the shim armed and exits with its status (or is killed); else returns.
void kill_shim_main(int argc, char **argv, int (*child)(const char *role, void *ctx), void *ctx);

// Runs this program (self: argv[0]) again as a child in role, armed to be killed (or,
// KILL_SHIM_FAIL, to see the call fail) at its k-th call; a second kill at call k2 (0: none) so
// that a failure can be followed by a kill while it is being put right. Returns 0 when the child
// ended with status 0, 1 when it ended with another, 2 when it was killed, -1 when it could not be
// run.
int kill_shim_child(const char *self, const char *role, KillShimWhen when, int k, int k2);

// setenv, on every system (a child inherits it: how a test hands a child its folder).
void kill_shim_setenv(const char *name, const char *value);
// A fresh folder for a test (out, cap), under the system's temporary folder; false when none could
// be made.
bool kill_shim_tempdir(char *out, size_t cap, const char *prefix);
// Removes every file in dir, then dir itself.
void kill_shim_rmdir(const char *dir);
// The number of a process that has ended (for planting what a killed writer would leave).
long kill_shim_dead_pid(const char *self);

#endif
