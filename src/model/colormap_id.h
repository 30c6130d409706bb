// Which colour map the view uses: part of the view state (model), drawn by render/colormap.c.
#ifndef MHA_COLORMAP_ID_H
#define MHA_COLORMAP_ID_H

// The sequential maps a teacher can cycle through (key C). All are colour-blind safe.
typedef enum { COLORMAP_VIRIDIS = 0, COLORMAP_CIVIDIS, COLORMAP_GREY, COLORMAP_COUNT } ColormapId;

#endif
