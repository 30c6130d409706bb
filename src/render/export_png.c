// Slide export, the PNG half: the offscreen renderer (SDL's software renderer and the fonts), the
// scene drawn into a surface, encoded to memory with our "Software: mha-tracer" chunk, and that
// chunk recognised again.
#include "render/export_png.h"

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/draw_sdl.h"

void export_fail(ExportError *err, bool io, const char *fmt, ...)
{
    if (!err) return;
    err->io = io;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

void export_buffer_free(ExportBuffer *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

struct Exporter {
    SDL_Surface
        *base; // 1x1: a software renderer needs a surface; images are drawn into target textures
    SDL_Renderer *ren;
    DrawSdl *draw;
    bool ttf;
};

Exporter *export_open(const char *font_dir, ExportError *err)
{
    Exporter *x = calloc(1, sizeof *x);
    if (!x) {
        export_fail(err, true, "out of memory");
        return NULL;
    }
    if (TTF_Init() != 0) {
        export_fail(err, true, "cannot start SDL_ttf: %s", TTF_GetError());
        free(x);
        return NULL;
    }
    x->ttf = true;
    x->base = SDL_CreateRGBSurfaceWithFormat(0, 1, 1, 32, SDL_PIXELFORMAT_ARGB8888);
    if (x->base) x->ren = SDL_CreateSoftwareRenderer(x->base);
    if (!x->ren) {
        export_fail(err, true, "cannot create the offscreen renderer: %s", SDL_GetError());
        export_close(x);
        return NULL;
    }
    char msg[600];
    x->draw = draw_sdl_create(x->ren, font_dir ? font_dir : ".", msg, sizeof msg);
    if (!x->draw) {
        export_fail(err, true, "%s", msg);
        export_close(x);
        return NULL;
    }
    return x;
}

void export_close(Exporter *x)
{
    if (!x) return;
    draw_sdl_destroy(x->draw);
    if (x->ren) SDL_DestroyRenderer(x->ren);
    if (x->base) SDL_FreeSurface(x->base);
    if (x->ttf) TTF_Quit();
    free(x);
}

TextMetrics export_metrics(Exporter *x) { return draw_sdl_metrics(x->draw); }

// An SDL_RWops that appends to an ExportBuffer (IMG_SavePNG_RW writes through it).
static bool buf_reserve(ExportBuffer *b, size_t need)
{
    if (need <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < need) cap *= 2;
    unsigned char *p = realloc(b->data, cap);
    if (!p) return false;
    b->data = p;
    b->cap = cap;
    return true;
}

typedef struct {
    ExportBuffer *b;
    size_t pos;
} MemOut;

static Sint64 mem_size(SDL_RWops *rw)
{
    return (Sint64)((MemOut *)rw->hidden.unknown.data1)->b->size;
}

static Sint64 mem_seek(SDL_RWops *rw, Sint64 off, int whence)
{
    MemOut *m = rw->hidden.unknown.data1;
    Sint64 base = whence == RW_SEEK_SET   ? 0
                  : whence == RW_SEEK_CUR ? (Sint64)m->pos
                                          : (Sint64)m->b->size;
    if (base + off < 0) return SDL_SetError("seek before the start");
    m->pos = (size_t)(base + off);
    return (Sint64)m->pos;
}

static size_t mem_read(SDL_RWops *rw, void *ptr, size_t size, size_t n)
{
    (void)rw;
    (void)ptr;
    (void)size;
    (void)n;
    return 0;
}

static size_t mem_write(SDL_RWops *rw, const void *ptr, size_t size, size_t n)
{
    MemOut *m = rw->hidden.unknown.data1;
    size_t bytes = size * n;
    if (size && bytes / size != n) return 0;
    if (!buf_reserve(m->b, m->pos + bytes)) {
        SDL_SetError("out of memory");
        return 0;
    }
    if (m->pos > m->b->size) memset(m->b->data + m->b->size, 0, m->pos - m->b->size);
    memcpy(m->b->data + m->pos, ptr, bytes);
    m->pos += bytes;
    if (m->pos > m->b->size) m->b->size = m->pos;
    return n;
}

static int mem_close(SDL_RWops *rw)
{
    SDL_FreeRW(rw);
    return 0;
}

static unsigned long crc32_png(const unsigned char *p, size_t n)
{
    unsigned long c = 0xFFFFFFFFUL;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320UL & (0UL - (c & 1UL)));
    }
    return c ^ 0xFFFFFFFFUL;
}

static void be32(unsigned char *p, unsigned long v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static const unsigned char PNG_SIG[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
static const char SOFTWARE_TEXT[] = "Software\0mha-tracer"; // keyword, NUL, text (tEXt chunk data)
#define SOFTWARE_LEN (sizeof SOFTWARE_TEXT - 1)

// Inserts the tEXt chunk "Software: mha-tracer" right after IHDR (so it is found in the first
// bytes).
static bool png_add_text(ExportBuffer *b)
{
    if (b->size < 33 || memcmp(b->data, PNG_SIG, 8) != 0 || memcmp(b->data + 12, "IHDR", 4) != 0)
        return false;
    size_t chunk = 12 + SOFTWARE_LEN, at = 33;
    if (!buf_reserve(b, b->size + chunk)) return false;
    memmove(b->data + at + chunk, b->data + at, b->size - at);
    unsigned char *c = b->data + at;
    be32(c, SOFTWARE_LEN);
    memcpy(c + 4, "tEXt", 4);
    memcpy(c + 8, SOFTWARE_TEXT, SOFTWARE_LEN);
    be32(c + 8 + SOFTWARE_LEN, crc32_png(c + 4, 4 + SOFTWARE_LEN));
    b->size += chunk;
    return true;
}

// Draws the scene offscreen into a new surface as it will be saved: RGB24, or ARGB8888 with
// straight (not premultiplied) alpha for a transparent background. NULL on failure (err filled).
static SDL_Surface *render_surface(Exporter *x, const Scene *s, ExportBackground background,
                                   ExportError *err)
{
    int w = s->width, h = s->height;
    if (w <= 0 || h <= 0 || w > EXPORT_MAX_SIDE || h > EXPORT_MAX_SIDE
        || (double)w * h > 1.25 * EXPORT_MAX_PIXELS) {
        export_fail(err, false, "image size %dx%d is out of range", w, h);
        return NULL;
    }
    bool transparent = background == EXPORT_BG_TRANSPARENT;
    SDL_Texture *tex =
        SDL_CreateTexture(x->ren, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_TARGET, w, h);
    SDL_Surface *img = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    bool ok = tex && img && SDL_SetRenderTarget(x->ren, tex) == 0;
    if (ok) {
        // Starting from 0 alpha, SDL's blending keeps premultiplied colours; they are undone below.
        Rgba bg = transparent ? (Rgba){0, 0, 0, 0} : s->background;
        SDL_SetRenderDrawBlendMode(x->ren, SDL_BLENDMODE_NONE);
        SDL_SetRenderDrawColor(x->ren, bg.r, bg.g, bg.b, transparent ? 0 : 255);
        SDL_RenderClear(x->ren);
        ok = draw_sdl_scene(x->draw, s);
        if (ok)
            ok = SDL_RenderReadPixels(x->ren, NULL, SDL_PIXELFORMAT_ARGB8888, img->pixels,
                                      img->pitch)
                 == 0;
        SDL_SetRenderTarget(x->ren, NULL);
    }
    if (tex) SDL_DestroyTexture(tex);
    if (!ok) {
        export_fail(err, true, "cannot render a %dx%d image: %s", w, h, SDL_GetError());
        if (img) SDL_FreeSurface(img);
        return NULL;
    }
    if (!transparent) {
        SDL_Surface *rgb =
            SDL_ConvertSurfaceFormat(img, SDL_PIXELFORMAT_RGB24, 0); // no alpha channel in the file
        SDL_FreeSurface(img);
        if (!rgb) export_fail(err, true, "cannot convert the image: %s", SDL_GetError());
        return rgb;
    }
    for (int yy = 0; yy < h; yy++) {
        Uint32 *row = (Uint32 *)((Uint8 *)img->pixels + (size_t)yy * (size_t)img->pitch);
        for (int xx = 0; xx < w; xx++) {
            Uint32 p = row[xx], a = p >> 24;
            if (a == 0) row[xx] = 0;
            else if (a < 255) {
                Uint32 r = (((p >> 16) & 0xFF) * 255 + a / 2) / a,
                       g = (((p >> 8) & 0xFF) * 255 + a / 2) / a,
                       b = ((p & 0xFF) * 255 + a / 2) / a;
                row[xx] = a << 24 | (r > 255 ? 255 : r) << 16 | (g > 255 ? 255 : g) << 8
                          | (b > 255 ? 255 : b);
            }
        }
    }
    return img;
}

// PNG bytes of a surface, with our text chunk.
static bool encode_surface(SDL_Surface *img, ExportBuffer *out, char *msg, size_t cap)
{
    memset(out, 0, sizeof *out);
    MemOut m = {out, 0};
    SDL_RWops *rw = SDL_AllocRW();
    if (rw)
        *rw = (SDL_RWops){.size = mem_size,
                          .seek = mem_seek,
                          .read = mem_read,
                          .write = mem_write,
                          .close = mem_close,
                          .type = SDL_RWOPS_UNKNOWN,
                          .hidden.unknown.data1 = &m};
    bool ok = rw && IMG_SavePNG_RW(img, rw, 0) == 0;
    if (rw) SDL_FreeRW(rw);
    if (ok) ok = png_add_text(out);
    if (!ok) {
        snprintf(msg, cap, "cannot encode PNG: %s", rw ? SDL_GetError() : "out of memory");
        export_buffer_free(out);
    }
    return ok;
}

bool export_png_encode(Exporter *x, const Scene *s, ExportBackground background, ExportBuffer *out,
                       ExportError *err)
{
    memset(out, 0, sizeof *out);
    SDL_Surface *img = render_surface(x, s, background, err);
    if (!img) return false;
    char msg[300];
    bool ok = encode_surface(img, out, msg, sizeof msg);
    SDL_FreeSurface(img);
    if (!ok) export_fail(err, true, "%s", msg);
    return ok;
}

const char *export_missing(Exporter *x) { return draw_sdl_missing(x->draw); }

static unsigned long get32(const unsigned char *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

static const unsigned char PNG_IEND[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};

bool export_png_is_ours(const unsigned char *head, size_t hn, const unsigned char *tail, size_t tn)
{
    if (hn < 33 + 12 + SOFTWARE_LEN || memcmp(head, PNG_SIG, 8) != 0 || get32(head + 8) != 13
        || memcmp(head + 12, "IHDR", 4) != 0)
        return false;
    const unsigned char *c = head + 33; // the chunk after IHDR: ours
    if (get32(c) != SOFTWARE_LEN || memcmp(c + 4, "tEXt", 4) != 0
        || memcmp(c + 8, SOFTWARE_TEXT, SOFTWARE_LEN) != 0
        || get32(c + 8 + SOFTWARE_LEN) != crc32_png(c + 4, 4 + SOFTWARE_LEN))
        return false;
    return tn >= sizeof PNG_IEND
           && memcmp(tail + tn - sizeof PNG_IEND, PNG_IEND, sizeof PNG_IEND) == 0;
}
