// A Scene as SVG text: real <rect> cells and <text> labels that slide programs can edit and search,
// no raster inside. Pure: writes into memory, no SDL and no files.
#ifndef MHA_SVG_H
#define MHA_SVG_H

#include <stddef.h>
#include "render/scene.h"

// The comment near the top that marks an SVG as an export of ours (files with it may be replaced).
#define SVG_MARK "<!-- mha-tracer export -->"

// Encodes the scene (s->width x s->height). title becomes the <title> element (NULL: none).
// Commands with alpha 0 are left out (a transparent background). Cells (a CMD_RECT at the place of
// a HitRegion with a cell) get class="cell" and data-head, data-row, data-col. Returns a
// NUL-terminated malloc'd string (free it) and its length in *size, or NULL when memory ran out.
// The same scene gives the same bytes.
char *svg_encode(const Scene *s, const char *title, size_t *size);

#endif
