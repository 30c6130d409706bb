// Heatmaps (scene_heatmap.c): one head's, every head's in a grid, their colour bars and the slide
// of every head's.
#ifndef MHA_SCENE_HEATMAP_H
#define MHA_SCENE_HEATMAP_H

#include "render/scene_ctx.h"

// Vertical colour bar with its range; (x, y, w, h) is the whole bar including its labels.
void draw_colorbar(Ctx *c, MatId m, double range, int x, int y, int w, int h);
// The bar and its widest label (the range's ends, as draw_colorbar writes them).
int colorbar_width(const Ctx *c, MatId m);
// One head's heatmap to draw: which, its colour scale, its room and how.
typedef struct {
    MatId mat;
    int head;
    double range; // the colour scale: |value| that reaches the ends
    Box box; // the room of the title, the labels and the cells
    bool compact; // a panel of the all-heads grid: smaller texts, every stride-th cell
    bool selected; // the head shown: framed in the grid
    const char *title; // instead of "Head 0 · attention weights A₀" (NULL: that)
} HeatRequest;
// One head's heatmap as asked; *grid_y and *grid_h say where its cells went (for the colour bar).
void draw_heatmap(Ctx *c, const HeatRequest *rq, int *grid_y, int *grid_h);
// The columns of the all-heads grid in w x h pixels: the number that gives the largest cells (the
// slide pages choose their size by it).
int heat_grid_cols(const AttnParams *p, double w, double h);
// The stride of the all-heads grid's sample (SCENE_GRID_MAX_CELLS, scene.h); 1: every cell.
int heat_grid_stride(const AttnParams *p);
// A slide's first line: the lesson's title (bold) at (x, y), cut to w; returns its height (0,
// nothing drawn, in the window or for a lesson without a title). Draws when `draw`.
int scene_page_title(Ctx *c, int x, int y, int w, bool draw);
// Every head's heatmap of m in a grid that fills (x, y, w, h), with one colour bar at the right.
void draw_heads_grid(Ctx *c, MatId m, int x, int y, int w, int h);
// The stage's heatmap for every head (a sentence before the scores).
// ... as a slide: the lesson's title, a heading, the grid and the axes' caption (scene_heatmap.c).
void draw_heads_page(Ctx *c, int x, int y, int w, int h);
void draw_all_heads(Ctx *c, int x, int y, int w, int h);

#endif
