// Inside the platform layer (platform_write.c, platform_set.c): the journal of a set of files
// replaced all or nothing, and the copy and the temporaries' names that both use
// (platform_files.c). The public half (platform_sets_recover) is in platform.h.
#ifndef MHA_PLATFORM_SET_H
#define MHA_PLATFORM_SET_H

#include "platform/platform.h"

// --- platform_files.c ---
// name = a copy of the file at target, created exclusively (EEXIST when name is taken): a hard
// link, or the bytes where the file system has no links. false with errno.
bool platform_copy_file(const char *name, const char *target);
// Try k's temporary of kind ext for path, as the process pid names it (platform_temporary_name's
// rule).
bool platform_temporary_name_of(char *out, size_t cap, const char *path, long pid, const char *ext,
                                int k);

// --- platform_set.c ---
// One file of a set: its target, its temporary (the new bytes, written and flushed) and the copy of
// what is at the target (NULL when nothing is). All in one folder.
typedef struct {
    const char *path, *tmp, *old;
} PlatformSetFile;

// The commit point of a set in dir: its journal, complete and flushed, appears under its "new" name
// in one step. From then on a recovery finishes the switch (platform_sets_recover). Its path
// (malloc'd), or NULL with errno when it could not be written (then nothing is committed and the
// set must not be switched).
char *platform_set_commit(const char *dir, const PlatformSetFile *files, size_t count);
// A switch that failed midway is being put back: the journal renamed to "undo" in one step
// (*journal then names it), so that a recovery puts back the rest rather than finishing the switch.
// false when it cannot.
bool platform_set_undoing(char **journal);

#endif
