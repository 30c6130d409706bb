// Slide export, the lowest room (export_png.c): the offscreen renderer (SDL's software renderer and
// the fonts), a scene as PNG bytes in memory with our chunk, and what every room of the exporter
// shares: the page's background, the size limits, the error.
#ifndef MHA_EXPORT_PNG_H
#define MHA_EXPORT_PNG_H

#include <stdbool.h>
#include <stddef.h>
#include "render/scene.h"

// The page, as a Theme handed to the scene: white is the light theme on a white page (the print
// theme with the grey colour map), dark the dark theme, transparent the light theme on a page of
// alpha 0 (RGBA PNG).
typedef enum { EXPORT_BG_WHITE = 0, EXPORT_BG_TRANSPARENT, EXPORT_BG_DARK } ExportBackground;

#define EXPORT_MAX_SIDE 16384 // pixels: larger images are laid out smaller (fewer numbers) instead
// Pixels in one image (56 M: a 512-token all-heads grid is 52 M): rendering takes 8 bytes a pixel
// at its peak (the target and the read-back; the texture goes before the RGB copy is made), so one
// image never needs more than about 450 MB, and an export holds one image at a time. A larger page
// (a board at
// --scale 8) is laid out at the largest scale that fits.
#define EXPORT_MAX_PIXELS 56.0e6

typedef struct {
    bool io; // an I/O failure (exit status 1); false: bad request or invalid input (2)
    char message[1200]; // what went wrong, naming the file
} ExportError;

// Bytes in memory (malloc'd; free with export_buffer_free).
typedef struct {
    unsigned char *data;
    size_t size, cap;
} ExportBuffer;
void export_buffer_free(ExportBuffer *b);

// The offscreen renderer: SDL's software renderer and the fonts. Needs no display and no SDL_Init.
typedef struct Exporter Exporter;
Exporter *export_open(const char *font_dir, ExportError *err);
void export_close(Exporter *x);
TextMetrics export_metrics(Exporter *x);

// Renders the scene and encodes it as PNG (RGB, or RGBA for a transparent background) with the text
// chunk "Software: mha-tracer". Deterministic: the same scene gives the same bytes.
bool export_png_encode(Exporter *x, const Scene *s, ExportBackground background, ExportBuffer *out,
                       ExportError *err);

// For the exporter's own files (export.c, export_files.c):
// Fills err (when not NULL): io (exit status 1) or not (2), and the message.
void export_fail(ExportError *err, bool io, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
// A PNG of ours, from its first bytes (head, hn) and its last (tail, tn): it starts with IHDR,
// carries our "Software: mha-tracer" chunk with a correct CRC right after it, and ends with IEND.
bool export_png_is_ours(const unsigned char *head, size_t hn, const unsigned char *tail, size_t tn);
// The first character no font showed in what x drew, as a sentence ("" when every one had a font).
const char *export_missing(Exporter *x);

#endif
