// What the exporter's own files share (export.c, export_png.c, export_files.c) and nobody else uses: the
// error setter, the limits on the paths written, the PNG's mark and the missing-font note of the renderer.
#ifndef MHA_EXPORT_INTERNAL_H
#define MHA_EXPORT_INTERNAL_H

#include "export.h"

// The longest path and file name this exporter writes (POSIX's usual PATH_MAX and NAME_MAX, on every system).
enum { EXPORT_PATH_MAX = 4096, EXPORT_NAME_MAX = 255 };

// Fills err (when not NULL): io (exit status 1) or not (2), and the message.
void export_fail(ExportError *err, bool io, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

// A PNG of ours, from its first bytes (head, hn) and its last (tail, tn): it starts with IHDR, carries our
// "Software: mha-tracer" chunk with a correct CRC right after it, and ends with IEND.
bool export_png_is_ours(const unsigned char *head, size_t hn, const unsigned char *tail, size_t tn);

// The first character no font showed in what x drew, as a sentence ("" when every one had a font).
const char *export_missing(Exporter *x);

#endif
