// Colour maps for the heatmaps and matrix cells: viridis (default), cividis, greyscale for
// printing, and a diverging map for signed scores. Pure functions of a value; no SDL.
#ifndef MHA_COLORMAP_H
#define MHA_COLORMAP_H

#include <stdbool.h>

typedef struct {
    unsigned char r, g, b, a;
} Rgba;

#include "model/colormap_id.h"

const char *colormap_name(ColormapId map);

// t in [0, 1] (clamped; NaN gives 0) -> the map's colour, looked up like matplotlib's
// ListedColormap: index floor(t * 256) clipped to 255, channels rounded to 8 bits.
Rgba colormap_rgb(ColormapId map, double t);

// Diverging map for signed values: t = -1 -> blue, 0 -> near white, +1 -> orange (clamped).
// With COLORMAP_GREY the diverging map is grey too (white at 0, darker with |t|) so printouts stay
// clean.
Rgba colormap_diverging(ColormapId map, double t);

// Text colour (near black or white) that reads on the given background.
Rgba colormap_text_on(Rgba bg);

#endif
