// The SDL backend of the scene: fills, frames, hatching and cached text textures. Nothing here decides
// layout; it draws what scene.c computed.
#include "draw_sdl.h"

#include <SDL_ttf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT_SLOTS 96
#define CACHE_SLOTS 8192        // power of two
#define CACHE_HIGH_WATER 4096   // above this, textures unused in the last frame are dropped
#define WIDTH_SLOTS 16384       // measured widths (scene_build asks for the same strings every frame)

typedef struct {
    FontRole role;
    int size;
    TTF_Font *font;
} FontSlot;

typedef struct {
    char *text;          // NULL: empty slot
    FontRole role;
    int size;
    Rgba color;
    SDL_Texture *tex;
    int w, h;
    unsigned frame;      // last frame it was drawn in
} TextEntry;

typedef struct {
    char *text;
    FontRole role;
    int size;
    int w;
} WidthEntry;

struct DrawSdl {
    SDL_Renderer *r;
    char paths[FONT_COUNT][1024];
    FontSlot fonts[FONT_SLOTS];
    int font_count;
    TextEntry *cache;
    size_t cached;
    WidthEntry *widths;
    size_t width_count;
    unsigned frame;
};

static const char *const FILES[FONT_COUNT] = {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf"};

static TTF_Font *font_get(DrawSdl *d, FontRole role, int size)
{
    if (size < 4) size = 4;
    if (size > 400) size = 400;
    for (int i = 0; i < d->font_count; i++)
        if (d->fonts[i].role == role && d->fonts[i].size == size) return d->fonts[i].font;
    if (d->font_count == FONT_SLOTS) { // many zoom levels visited: start again
        for (int i = 0; i < d->font_count; i++) TTF_CloseFont(d->fonts[i].font);
        d->font_count = 0;
    }
    TTF_Font *f = TTF_OpenFont(d->paths[role], size);
    if (!f) return NULL;
    d->fonts[d->font_count++] = (FontSlot){role, size, f};
    return f;
}

static uint64_t hash_key(const char *t, FontRole role, int size, Rgba c)
{
    uint64_t h = UINT64_C(1469598103934665603); // FNV-1a, 64 bits
    const uint64_t prime = UINT64_C(1099511628211);
    for (const unsigned char *p = (const unsigned char *)t; *p; p++) h = (h ^ *p) * prime;
    h = (h ^ (uint64_t)role) * prime;
    h = (h ^ (uint64_t)size) * prime;
    h = (h ^ ((uint64_t)c.r << 24 | (uint64_t)c.g << 16 | (uint64_t)c.b << 8 | c.a)) * prime;
    return h;
}

static int measure(void *user, FontRole role, int size, const char *t)
{
    DrawSdl *d = user;
    if (!t[0]) return 0;
    Rgba none = {0, 0, 0, 0};
    size_t mask = WIDTH_SLOTS - 1, i = hash_key(t, role, size, none) & mask;
    for (;;) {
        WidthEntry *e = &d->widths[i];
        if (!e->text) break;
        if (e->role == role && e->size == size && strcmp(e->text, t) == 0) return e->w;
        i = (i + 1) & mask;
    }
    TTF_Font *f = font_get(d, role, size);
    int w = 0, h = 0;
    if (!f || TTF_SizeUTF8(f, t, &w, &h) != 0) return (int)strlen(t) * size / 2;
    if (d->width_count > WIDTH_SLOTS / 2) { // full enough: forget all widths
        for (size_t k = 0; k < WIDTH_SLOTS; k++) free(d->widths[k].text);
        memset(d->widths, 0, WIDTH_SLOTS * sizeof(WidthEntry));
        d->width_count = 0;
        i = hash_key(t, role, size, none) & mask;
    }
    char *copy = malloc(strlen(t) + 1);
    if (copy) {
        strcpy(copy, t);
        d->widths[i] = (WidthEntry){copy, role, size, w};
        d->width_count++;
    }
    return w;
}

static int line_height(void *user, FontRole role, int size)
{
    DrawSdl *d = user;
    TTF_Font *f = font_get(d, role, size);
    return f ? TTF_FontHeight(f) : size + size / 4;
}

TextMetrics draw_sdl_metrics(DrawSdl *d)
{
    TextMetrics tm = {d, measure, line_height};
    return tm;
}

DrawSdl *draw_sdl_create(SDL_Renderer *r, const char *font_dir, char *err, size_t cap)
{
    DrawSdl *d = calloc(1, sizeof *d);
    if (d) d->cache = calloc(CACHE_SLOTS, sizeof(TextEntry));
    if (d) d->widths = calloc(WIDTH_SLOTS, sizeof(WidthEntry));
    if (!d || !d->cache || !d->widths) {
        snprintf(err, cap, "out of memory");
        if (d) free(d->cache);
        if (d) free(d->widths);
        free(d);
        return NULL;
    }
    d->r = r;
    for (int i = 0; i < FONT_COUNT; i++) {
        snprintf(d->paths[i], sizeof d->paths[i], "%s/%s", font_dir, FILES[i]);
        if (!font_get(d, (FontRole)i, 18)) {
            snprintf(err, cap, "cannot open font %s: %s", d->paths[i], TTF_GetError());
            draw_sdl_destroy(d);
            return NULL;
        }
    }
    return d;
}

static void cache_clear(DrawSdl *d, bool keep_recent)
{
    // Rebuild the table with only the entries drawn in the last frame (open addressing needs a rehash).
    TextEntry *old = d->cache;
    TextEntry *fresh = keep_recent ? calloc(CACHE_SLOTS, sizeof(TextEntry)) : NULL;
    d->cached = 0;
    for (size_t i = 0; i < CACHE_SLOTS; i++) {
        TextEntry *e = &old[i];
        if (!e->text) continue;
        if (fresh && e->frame == d->frame) {
            size_t j = hash_key(e->text, e->role, e->size, e->color) & (CACHE_SLOTS - 1);
            while (fresh[j].text) j = (j + 1) & (CACHE_SLOTS - 1);
            fresh[j] = *e;
            d->cached++;
        } else {
            free(e->text);
            if (e->tex) SDL_DestroyTexture(e->tex);
        }
    }
    if (fresh) {
        free(old);
        d->cache = fresh;
    } else {
        memset(old, 0, CACHE_SLOTS * sizeof(TextEntry));
    }
}

void draw_sdl_destroy(DrawSdl *d)
{
    if (!d) return;
    if (d->cache) {
        cache_clear(d, false);
        free(d->cache);
    }
    if (d->widths) {
        for (size_t k = 0; k < WIDTH_SLOTS; k++) free(d->widths[k].text);
        free(d->widths);
    }
    for (int i = 0; i < d->font_count; i++) TTF_CloseFont(d->fonts[i].font);
    free(d);
}

size_t draw_sdl_cached(const DrawSdl *d) { return d->cached; }

static TextEntry *text_get(DrawSdl *d, const char *t, FontRole role, int size, Rgba color)
{
    size_t mask = CACHE_SLOTS - 1, i = hash_key(t, role, size, color) & mask;
    for (;;) {
        TextEntry *e = &d->cache[i];
        if (!e->text) break;
        if (e->role == role && e->size == size && memcmp(&e->color, &color, sizeof color) == 0 && strcmp(e->text, t) == 0) {
            e->frame = d->frame;
            return e;
        }
        i = (i + 1) & mask;
    }
    if (d->cached >= CACHE_SLOTS * 3 / 4) return NULL; // full within one frame: draw nothing rather than thrash
    TTF_Font *f = font_get(d, role, size);
    if (!f) return NULL;
    SDL_Color c = {color.r, color.g, color.b, color.a};
    SDL_Surface *surf = TTF_RenderUTF8_Blended(f, t, c);
    if (!surf) return NULL;
    SDL_Texture *tex = SDL_CreateTextureFromSurface(d->r, surf);
    int w = surf->w, h = surf->h;
    SDL_FreeSurface(surf);
    char *copy = malloc(strlen(t) + 1);
    if (!tex || !copy) {
        if (tex) SDL_DestroyTexture(tex);
        free(copy);
        return NULL;
    }
    strcpy(copy, t);
    TextEntry *e = &d->cache[i];
    *e = (TextEntry){copy, role, size, color, tex, w, h, d->frame};
    d->cached++;
    return e;
}

static void set_color(SDL_Renderer *r, Rgba c) { SDL_SetRenderDrawColor(r, c.r, c.g, c.b, c.a); }

// The draw state last given to the renderer, so runs of commands in one colour do not set it again.
typedef struct {
    SDL_Renderer *r;
    Rgba color;
    SDL_BlendMode blend;
    bool known;
} Pen;

// Sets colour c for fills. An opaque colour is drawn without blending: blending with alpha 255 gives the
// same pixels (src * 255 / 255 + dst * 0), but SDL's software renderer then blends every pixel one by one
// instead of filling rows, which was most of a software redraw.
static void pen_fill(Pen *p, Rgba c)
{
    SDL_BlendMode b = c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND;
    if (!p->known || b != p->blend) SDL_SetRenderDrawBlendMode(p->r, b);
    if (!p->known || memcmp(&c, &p->color, sizeof c) != 0) set_color(p->r, c);
    p->color = c;
    p->blend = b;
    p->known = true;
}

// Sets colour c with blending, as every draw used before (lines and hatching keep SDL's blended path).
static void pen_blend(Pen *p, Rgba c)
{
    if (!p->known || p->blend != SDL_BLENDMODE_BLEND) SDL_SetRenderDrawBlendMode(p->r, SDL_BLENDMODE_BLEND);
    if (!p->known || memcmp(&c, &p->color, sizeof c) != 0) set_color(p->r, c);
    p->color = c;
    p->blend = SDL_BLENDMODE_BLEND;
    p->known = true;
}

static void hatch(Pen *p, const DrawCmd *c)
{
    SDL_Renderer *r = p->r;
    SDL_Rect clip = {c->x, c->y, c->w, c->h};
    SDL_Rect old;
    SDL_bool had = SDL_RenderIsClipEnabled(r);
    SDL_RenderGetClipRect(r, &old);
    SDL_RenderSetClipRect(r, &clip);
    pen_blend(p, c->color);
    int step = c->h / 4 > 5 ? c->h / 4 : 5;
    if (step > 14) step = 14;
    for (int k = -c->h; k < c->w; k += step) {
        SDL_RenderDrawLine(r, c->x + k, c->y + c->h, c->x + k + c->h, c->y);
        SDL_RenderDrawLine(r, c->x + k + 1, c->y + c->h, c->x + k + c->h + 1, c->y);
    }
    SDL_RenderSetClipRect(r, had ? &old : NULL);
}

bool draw_sdl_scene(DrawSdl *d, const Scene *s)
{
    SDL_Renderer *r = d->r;
    bool ok = true;
    d->frame++;
    Pen pen = {r, {0, 0, 0, 0}, SDL_BLENDMODE_BLEND, false};
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        switch (c->kind) {
        case CMD_RECT: {
            // A run of consecutive rectangles in one colour goes to the renderer in one call.
            enum { RUN = 64 };
            SDL_Rect rc[RUN];
            int n = 0;
            rc[n++] = (SDL_Rect){c->x, c->y, c->w, c->h};
            while (n < RUN && i + 1 < s->count && s->cmds[i + 1].kind == CMD_RECT &&
                   memcmp(&s->cmds[i + 1].color, &c->color, sizeof c->color) == 0) {
                const DrawCmd *nx = &s->cmds[++i];
                rc[n++] = (SDL_Rect){nx->x, nx->y, nx->w, nx->h};
            }
            pen_fill(&pen, c->color);
            SDL_RenderFillRects(r, rc, n);
            break;
        }
        case CMD_FRAME: {
            int t = c->thickness < 1 ? 1 : c->thickness;
            SDL_Rect e[4] = {{c->x, c->y, c->w, t}, {c->x, c->y + c->h - t, c->w, t}, {c->x, c->y, t, c->h},
                             {c->x + c->w - t, c->y, t, c->h}};
            pen_fill(&pen, c->color);
            SDL_RenderFillRects(r, e, 4);
            break;
        }
        case CMD_LINE:
            pen_blend(&pen, c->color);
            for (int k = 0; k < (c->thickness < 1 ? 1 : c->thickness); k++)
                SDL_RenderDrawLine(r, c->x + (c->h ? k : 0), c->y + (c->h ? 0 : k), c->x + c->w + (c->h ? k : 0),
                                   c->y + c->h + (c->h ? 0 : k));
            break;
        case CMD_HATCH: hatch(&pen, c); break;
        case CMD_CLIP: {
            SDL_Rect clip = {c->x, c->y, c->w, c->h};
            SDL_RenderSetClipRect(r, c->w > 0 && c->h > 0 ? &clip : NULL);
            break;
        }
        case CMD_TEXT: {
            TextEntry *e = text_get(d, scene_text(s, c), c->font, c->size, c->color);
            if (!e) {
                ok = false;
                break;
            }
            SDL_Rect dst = {c->x, c->y, e->w, e->h};
            SDL_RenderCopy(r, e->tex, NULL, &dst);
            break;
        }
        }
    }
    SDL_RenderSetClipRect(r, NULL);
    // Leave the renderer blending, as callers (and the next frame) expect.
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    if (d->cached > CACHE_HIGH_WATER) cache_clear(d, true);
    return ok;
}
