// A checkpoint's layer (scene_model.c): its next-token stage as a bar chart, in place of its board,
// and the overview of every layer's heads.
#ifndef MHA_SCENE_MODEL_H
#define MHA_SCENE_MODEL_H

#include "render/scene_ctx.h"

// The next-token stage as a bar chart in (x, y, w, h).
void draw_next_chart(Ctx *c, int x, int y, int w, int h);
// The overview of every layer's heads (PANEL_OVERVIEW, key W).
void draw_overview(Ctx *c, int x, int y, int w, int h);

#endif
