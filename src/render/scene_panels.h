// The panels over the board, each a room of its own: cost, comparison, shuffle, the scale slider
// and the training strip (scene_panels.c), the KV cache's size (scene_cache.c), RoPE
// (scene_rope.c), KV-cache decoding (scene_decode.c) and FlashAttention's tiles (scene_tiles.c).
#ifndef MHA_SCENE_PANELS_H
#define MHA_SCENE_PANELS_H

#include "render/scene_ctx.h"

void draw_cost(Ctx *c, int w, int h);
// The KV cache's size (Shift+K; scene_cache.c): a published shape's chart of bytes against tokens
// and the lesson's table, MHA, GQA, MQA and a window.
void draw_cache_size(Ctx *c, int x, int y, int w, int h);
// RoPE as a picture (key W; scene_rope.c): token rope_t's query pairs on circles before and after
// their turn, the frequencies θ_i over i beside the published bases, and a query and key moved
// together keeping their score.
void draw_rope(Ctx *c, int x, int y, int w, int h);
void draw_compare(Ctx *c, int x, int y, int w, int h);
void draw_shuffle(Ctx *c, int x, int y, int w, int h);
bool slider_shown(const Ctx *c);
int slider_height(const Ctx *c);
void draw_scale_slider(Ctx *c, int x, int y, int w, int h);
bool training_shown(const Ctx *c);
int training_height(const Ctx *c);
// The header's note once the weights shown are trained ("trained 20 steps · R reverts"), NULL
// otherwise.
const char *training_status(const Ctx *c, char *buf, size_t cap);
void draw_training(Ctx *c, int x, int y, int w, int h);

// KV-cache decoding (key G): the token generated, its query over the cache, the cache and the work
// saved.
void draw_decode(Ctx *c, int x, int y, int w, int h);
// FlashAttention's tiles (key B): the scores with the tile read, the running m, l and O; reports
// the tile count.
void draw_tiles(Ctx *c, int x, int y, int w, int h);

#endif
