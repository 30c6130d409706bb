// Draws a Scene with SDL_Renderer + SDL_ttf onto any renderer (a window, or a software renderer on
// an SDL_Surface for export). Keeps the fonts and a cache of rendered text textures between frames.
#ifndef MHA_DRAW_SDL_H
#define MHA_DRAW_SDL_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>
#include "render/scene.h"

typedef struct DrawSdl DrawSdl;

// Opens the fonts (DejaVuSans.ttf, DejaVuSans-Bold.ttf, DejaVuSansMono.ttf) from font_dir for
// renderer r. TTF_Init must have been called. Returns NULL and fills err on failure. Free with
// draw_sdl_destroy.
DrawSdl *draw_sdl_create(SDL_Renderer *r, const char *font_dir, char *err, size_t cap);
void draw_sdl_destroy(DrawSdl *d);

// Text metrics backed by the real fonts, for scene_build.
TextMetrics draw_sdl_metrics(DrawSdl *d);

// Draws every command of the scene (does not clear or present). Returns false when a texture
// failed.
bool draw_sdl_scene(DrawSdl *d, const Scene *s);

// The first character that no font on this computer shows, as one sentence for the user ("no font
// on this computer shows 猫 (U+732B) — install a CJK font such as fonts-noto-cjk"); "" while every
// character drawn or measured had a font. Characters DejaVu lacks are drawn with fonts found on the
// system (fontfind.h).
const char *draw_sdl_missing(DrawSdl *d);

// Number of text textures in the cache (for tests and the frame-time report).
size_t draw_sdl_cached(const DrawSdl *d);

#endif
