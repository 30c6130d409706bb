// Writing a lesson back out: an (edited) lesson as format-1 JSON with explicit embeddings and
// weights, numbers in the shortest form that reads back to the same double, so a saved lesson
// traces bit-identically.
#ifndef MHA_LESSON_WRITE_H
#define MHA_LESSON_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include "lesson/lesson.h"

// The lesson l with the parameters p (the same sizes as l->params, e.g. an edited copy) as JSON
// text: title (with title_suffix appended unless it already ends with it; NULL: none), notes,
// tokens, source, mask, d_k, explicit embeddings, W_Q/W_K/W_V/W_O, the biases that are not all +0,
// and the questions. Returns a NUL-terminated malloc'd string (the caller frees it with free()) and
// its length in *len, or NULL when out of memory.
char *lesson_write_json(const Lesson *l, const AttnParams *p, const char *title_suffix,
                        size_t *len);

// Would lesson_load's limits let text back in? At most LESSON_MAX_FILE_BYTES bytes and
// JSON_MAX_VALUES values (what lesson_write_json makes of a big lesson with explicit weights can be
// more). false with err filled (err->io = true, no file named; the message says which limit) when
// not: lesson_write_file and lesson_write_claim refuse such text ("...; nothing was written").
bool lesson_write_readable(const char *text, size_t len, LessonError *err);

// Upper bounds of what lesson_write_json(l, p, ...) holds: *values JSON values, *bytes bytes (from
// the sizes, without writing it). Within both limits the lesson is readable; beyond them it may
// still be (write it and ask lesson_write_readable).
void lesson_write_bound(const Lesson *l, const AttnParams *p, double *values, double *bytes);

// Writes len bytes of text to path with the platform's writer: through a fresh temporary beside it
// (".NAME.PID.tmp", or ".NAME.PID-K.tmp" when that is taken; created exclusively: a file or a link
// already at that name is never opened, let alone followed), fsync, then rename, so a reader never
// sees half a file. Only a regular file at path is replaced, and it keeps its permission bits (a
// private file stays private); a link, a device, a FIFO, a socket or a folder there is refused.
// Temporaries that a killed writer left for path are removed first. On failure returns false and
// fills err (err->io = true); no temporary is left behind.
bool lesson_write_file(const char *path, const char *text, size_t len, LessonError *err);
// lesson_write_file where nothing is at path, never replacing anything: the whole file appears at
// path in one step (platform_writer_commit_new), or nothing does. When something is already there
// (another window saved under that name a moment before), returns false with *taken true (err
// filled), the name untouched.
bool lesson_write_claim(const char *path, const char *text, size_t len, bool *taken,
                        LessonError *err);
// lesson_write_file over the caller's own earlier file only: what is at path is judged by
// ours(where it is, ctx) and replaced in one step (platform_writer_commit_own: swapped out and
// judged where the system has the exchange, so nothing can put another file there between the look
// and the replacement; judged in place and renamed over elsewhere, so the name always holds a whole
// file). Not the caller's (or the name freed and claimed by another writer meanwhile): false with
// *taken true, that file where it was. Nothing at path: claimed as lesson_write_claim.
bool lesson_write_own(const char *path, const char *text, size_t len,
                      bool (*ours)(const char *at, void *ctx), void *ctx, bool *taken,
                      LessonError *err);
// Would lesson_write_file accept path as a target (nothing there, or a regular file)? false with
// err filled (err->io = true) as lesson_write_file would: checked before long work whose result
// goes there.
bool lesson_write_target(const char *path, LessonError *err);

// Where to save the edited version of the lesson at `original` (NULL: the built-in lesson, saved in
// the working directory as "the-cat-sat-edited.json"): "DIR/NAME-edited.json", or
// "NAME-edited-2.json",
// "-3" ... when anything is there (a link, even a dangling one, counts) unless it is `ours` (the
// file this session saved before; NULL: none) and still a plain file, not a link. Never returns the
// original's own path. Returns false when no name fits in cap.
bool lesson_edited_path(char *out, size_t cap, const char *original, const char *ours);

// A starter lesson for `mha-tracer --new`: the tokens, d_model numbers per token and heads heads of
// d_k = d_model / heads, all explicit and small (each token one main dimension and half of the
// next; each head reads its own d_k dimensions; W^O the identity), notes telling the teacher what
// to change, and
// "$schema": schema first when schema is not NULL. heads must divide d_model. Returns malloc'd JSON
// text (its length in *len) that lesson_parse accepts, or NULL when out of memory or the sizes are
// out of range.
char *lesson_write_starter(const char *const *tokens, int n, int heads, int d_model,
                           const char *schema, size_t *len);

// Creates path and writes text into it, never replacing anything: the file must not exist
// (exclusive creation; a symbolic link there, even a dangling one, counts as existing and is not
// followed). On a failed write the half-written file is removed. On failure fills err (err->io =
// true).
bool lesson_write_new_file(const char *path, const char *text, size_t len, LessonError *err);

#endif
