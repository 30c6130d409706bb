// Slide export, the files (export_files.c): which files are ours and may be replaced, and writing
// an export's files into a folder all or nothing, through the platform's writer.
#ifndef MHA_EXPORT_FILES_H
#define MHA_EXPORT_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include "render/export_png.h"
#include "render/scene.h"

// The longest path and file name this exporter writes (POSIX's usual PATH_MAX and NAME_MAX, on
// every system).
enum { EXPORT_PATH_MAX = 4096, EXPORT_NAME_MAX = 255 };

// True when the first bytes of a file (n of them, up to 64 KiB is enough) are an export of ours: a
// PNG with our text chunk, or an SVG with our comment. Other files are never replaced.
bool export_bytes_are_ours(const unsigned char *head, size_t n);

// One file to write: its name inside the directory and its bytes.
typedef struct {
    const char *name;
    const unsigned char *data;
    size_t size;
} ExportFile;

// Writing files into a directory all or nothing, one file at a time (so an export never holds more
// than one image's bytes):
// - export_writer_begin checks everything that can be checked before a byte is written: the
// directory
//   (created when create_dir; one level), that every path fits (PATH_MAX) and that every target is
//   absent or a regular file exported by us, and not one that cannot be replaced (another user's
//   file in a sticky directory). It removes the temporaries of ours that an export killed midway
//   left behind
//   (".NAME.PID.tmp" and ".NAME.PID.old", or a later try's ".NAME.PID-K.tmp", of a process that no
//   longer runs, for the names of this export).
// - export_writer_add writes file i's bytes to a fresh temporary beside its target (the platform's
// writer:
//   exclusive creation, never through a link; written and synced).
// - export_writer_commit keeps a copy of every target it replaces (a hard link, or a copy where the
// file
//   system has none), renames the temporaries into place, and when a rename fails puts every file
//   already replaced back as it was (and removes the new ones). Then the copies go and the
//   directory is synced.
// - export_writer_abort (after any failure, or instead of commit) removes every temporary.
typedef struct ExportWriter ExportWriter;
ExportWriter *export_writer_begin(const char *dir, bool create_dir, const char *const *names,
                                  size_t count, ExportError *err);
bool export_writer_add(ExportWriter *w, size_t i, const unsigned char *data, size_t size,
                       ExportError *err);
// Frees w either way.
bool export_writer_commit(ExportWriter *w, ExportError *err);
void export_writer_abort(ExportWriter *w);

// The size of an export before a byte is written: an SVG is text, one element per cell,
// so a big lesson's heatmaps (512 tokens, 15 heads: an all-heads grid of 3.9 M cells) would fill a
// disk. Its bytes are estimated from its scene, an upper bound (export_svg_estimate); a PNG is
// bounded by its pixels (EXPORT_MAX_PIXELS). An export whose SVGs would pass EXPORT_MAX_SVG_BYTES
// together, or one of them EXPORT_MAX_SVG_FILE_BYTES, is refused.
#define EXPORT_MAX_SVG_BYTES 512e6
#define EXPORT_MAX_SVG_FILE_BYTES 64e6
// At least the bytes svg_encode writes for s with a title of title_len bytes.
double export_svg_estimate(const Scene *s, size_t title_len);
// Adds one SVG's estimate (named name, without the folder) to *total and keeps the largest in
// *largest and its name in largest_name (cap bytes). False (err: a bad request, exit 2) once the
// total or one file passes its cap, the message with the estimate, the caps and what to do instead;
// nothing is written then.
bool export_svg_budget(double bytes, const char *name, double *total, double *largest,
                       char *largest_name, size_t cap, ExportError *err);

// The same for files already in memory: begin, add each, commit.
bool export_write_files(const char *dir, bool create_dir, const ExportFile *files, size_t count,
                        ExportError *err);

#endif
