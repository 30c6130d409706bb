// The SDL backend of the scene: fills, frames, hatching and cached text textures. Nothing here
// decides layout; it draws what the scene (scene.h, its rooms scene*.c) computed.
#include "render/draw_sdl.h"

#include <SDL_ttf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/utf8.h"
#include "model/i18n.h"
#include "platform/fontfind.h"
#include "render/textrun.h"

#define FONT_SLOTS 160
#define FONT_MARGIN 64 // fonts one line of text can need (its role font and fallbacks, bold or not)
#define CACHE_SLOTS 8192 // power of two
#define CACHE_HIGH_WATER 4096 // above this, textures unused in the last frame are dropped
#define WIDTH_SLOTS 16384 // measured widths (scene_build asks for the same strings every frame)
#define FALLBACK_MAX 24 // fonts found on the system for characters DejaVu lacks
#define FILE_MAX (FONT_COUNT + FALLBACK_MAX)
#define RUN_MAX 96 // runs of one font, script and direction in one line of text

// A font file: the three DejaVu files (indices FONT_REGULAR .. FONT_MONO), then the fallbacks in
// the order found.
typedef struct {
    char path[1024];
    int index; // the face in a collection (.ttc)
    int fixed_h; // > 0: a font of bitmap strikes only (colour emoji), glyphs this high, scaled to
                 // the line
    bool color; // a colour (emoji) font
} FontFile;

typedef struct {
    int file; // a FontFile
    int size; // 0 for a bitmap font (one size)
    bool bold; // a fallback drawn emboldened for FONT_BOLD
    TTF_Font *font;
} FontSlot;

typedef struct {
    char *text; // NULL: empty slot
    FontRole role;
    int size;
    Rgba color;
    SDL_Texture *tex;
    int w, h;
    int top; // where the texture starts above the text's box (<= 0: a glyph reaching above it)
    unsigned frame; // last frame it was drawn in
} TextEntry;

typedef struct {
    char *text;
    FontRole role;
    int size;
    int w;
} WidthEntry;

struct DrawSdl {
    SDL_Renderer *r;
    FontFile files[FILE_MAX];
    int file_count;
    FontFind *find;
    TextFontMemo cps; // which file shows a code point in a role
    FontSlot fonts[FONT_SLOTS];
    int font_count;
    TextEntry *cache;
    size_t cached;
    WidthEntry *widths;
    size_t width_count;
    unsigned frame;
};

static const char *const FILES[FONT_COUNT] = {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf",
                                              "DejaVuSansMono.ttf"};

static TTF_Font *file_get(DrawSdl *d, int file, int size, bool bold)
{
    if (size < 4) size = 4;
    if (size > 400) size = 400;
    if (d->files[file].fixed_h > 0) size = 0;
    for (int i = 0; i < d->font_count; i++)
        if (d->fonts[i].file == file && d->fonts[i].size == size && d->fonts[i].bold == bold)
            return d->fonts[i].font;
    if (d->font_count == FONT_SLOTS) return NULL; // fonts_trim keeps room for one line's fonts
    TTF_Font *f = TTF_OpenFontIndex(d->files[file].path, size ? size : 16, d->files[file].index);
    if (!f) return NULL;
    if (bold) TTF_SetFontStyle(f, TTF_STYLE_BOLD);
    d->fonts[d->font_count++] = (FontSlot){file, size, bold, f};
    return f;
}

// Many zoom levels visited: start again. Only between lines of text, as a line holds the fonts it
// opened.
static void fonts_trim(DrawSdl *d)
{
    if (d->font_count <= FONT_SLOTS - FONT_MARGIN) return;
    for (int i = 0; i < d->font_count; i++) TTF_CloseFont(d->fonts[i].font);
    d->font_count = 0;
}

static TTF_Font *font_get(DrawSdl *d, FontRole role, int size)
{
    return file_get(d, (int)role, size, false);
}

// Does the file show cp? (fontfind's check, with a font opened for the question only)
static bool file_covers(void *user, const char *path, int index, uint32_t cp)
{
    (void)user;
    TTF_Font *f = TTF_OpenFontIndex(path, 16, index);
    if (!f) return false;
    bool yes = TTF_GlyphIsProvided32(f, cp) != 0;
    TTF_CloseFont(f);
    return yes;
}

// Adds a fallback file; a font of bitmap strikes only (same height at any size) is scaled when
// drawn.
static int file_add(DrawSdl *d, const char *path, int index)
{
    if (d->file_count == FILE_MAX) return -1;
    FontFile *ff = &d->files[d->file_count];
    snprintf(ff->path, sizeof ff->path, "%s", path);
    ff->index = index;
    TTF_Font *a = TTF_OpenFontIndex(path, 10, index), *b = TTF_OpenFontIndex(path, 40, index);
    int ha = a ? TTF_FontHeight(a) : 0, hb = b ? TTF_FontHeight(b) : 0;
    if (a) TTF_CloseFont(a);
    if (b) TTF_CloseFont(b);
    if (!a || !b) return -1;
    ff->fixed_h = ha == hb ? ha : 0;
    ff->color = ff->fixed_h > 0 || strstr(path, "Emoji") || strstr(path, "emoji");
    return d->file_count++;
}

// What textrun_font_for's questions are asked of: the files, at the size being drawn.
typedef struct {
    DrawSdl *d;
    int size;
} FontAsk;

static bool ask_shows(void *user, int font, uint32_t cp)
{
    FontAsk *a = user;
    TTF_Font *f = file_get(a->d, font, a->size, false);
    return f && TTF_GlyphIsProvided32(f, cp);
}

static bool ask_color(void *user, int font) { return ((FontAsk *)user)->d->files[font].color; }

static const char *ask_path(void *user, int font) { return ((FontAsk *)user)->d->files[font].path; }

static int ask_add(void *user, const char *path, int index)
{
    return file_add(((FontAsk *)user)->d, path, index);
}

// The file that shows a code point in a role: textrun_font_for's choice, as the PDF's.
static const TextFontOps FONT_OPS = {ask_shows, ask_color, ask_path, ask_add, file_covers};
_Static_assert(FILE_MAX <= TEXT_FONT_FILES, "the files fit textrun_font_for's list");

const char *draw_sdl_missing(DrawSdl *d) { return textrun_memo_missing(&d->cps); }

// Text a single font draws as it always did: ASCII, or one left-to-right run in the role's DejaVu.
static bool text_simple(const char *t)
{
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        if (*p >= 0x80) return false;
    return true;
}

// The runs of t in visual order; 0 when t is for the role's font alone (then draw it in one call).
static int text_runs(DrawSdl *d, FontRole role, int size, const char *t, TextRun *runs)
{
    if (text_simple(t)) return 0;
    FontAsk a = {d, size};
    TextFontAsk ask = {&FONT_OPS, &a, (int)role, FONT_COUNT, &d->file_count, d->find, &d->cps};
    int n = textrun_split(t, textrun_font_of, &ask, runs, RUN_MAX, NULL);
    if (n <= 0 || (n == 1 && runs[0].font == (int)role && !runs[0].rtl)) return 0;
    return n;
}

// The font of one run, set to its direction and script; *k the scale of a bitmap font (1
// otherwise).
static TTF_Font *run_font(DrawSdl *d, FontRole role, int size, const TextRun *r, double *k)
{
    bool fallback = r->font >= FONT_COUNT;
    TTF_Font *f = file_get(d, r->font, size, fallback && role == FONT_BOLD);
    *k = 1.0;
    if (!f) return NULL;
    TTF_SetFontDirection(f, r->rtl ? TTF_DIRECTION_RTL : TTF_DIRECTION_LTR);
    TTF_SetFontScriptName(
        f, strcmp(r->script, "Zyyy") == 0 || strcmp(r->script, "Zinh") == 0 ? "Zzzz" : r->script);
    if (fallback && d->files[r->font].fixed_h > 0) {
        TTF_Font *base = font_get(d, role, size);
        *k = base ? (double)TTF_FontHeight(base) / d->files[r->font].fixed_h : 1.0;
    }
    return f;
}

// The role's own font as SDL_ttf leaves it (left to right, the script guessed), for text_simple
// text.
static TTF_Font *plain_font(DrawSdl *d, FontRole role, int size)
{
    TTF_Font *f = font_get(d, role, size);
    if (f) {
        TTF_SetFontDirection(f, TTF_DIRECTION_LTR);
        TTF_SetFontScriptName(f, "Zzzz");
    }
    return f;
}

// The width of t drawn in runs (the same sum text_render makes; a text of marks alone is its
// label).
static bool text_size(DrawSdl *d, FontRole role, int size, const char *t, int *w)
{
    char label[64];
    if (textrun_mark_label(t, label, sizeof label)) t = label;
    TextRun runs[RUN_MAX];
    int n = text_runs(d, role, size, t, runs), h = 0;
    if (n == 0) {
        TTF_Font *f = plain_font(d, role, size);
        return f && TTF_SizeUTF8(f, t, w, &h) == 0;
    }
    *w = 0;
    char sub[1024];
    for (int i = 0; i < n; i++) {
        double k;
        TTF_Font *f = run_font(d, role, size, &runs[i], &k);
        int rw = 0;
        snprintf(sub, sizeof sub, "%.*s", (int)runs[i].len, t + runs[i].start);
        if (!f) return false;
        if (TTF_SizeUTF8(f, sub, &rw, &h) != 0)
            rw = 0; // a run of marks alone (SDL_ttf: "zero width")
        *w += (int)lround(rw * k);
    }
    return true;
}

// A bitmap shrunk by averaging the source pixels under each target pixel (colour weighted by
// alpha).
static SDL_Surface *shrink(SDL_Surface *src, int w, int h)
{
    SDL_Surface *s = SDL_ConvertSurfaceFormat(src, SDL_PIXELFORMAT_ARGB8888, 0);
    SDL_Surface *o = w > 0 && h > 0
                         ? SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888)
                         : NULL;
    if (!s || !o) {
        SDL_FreeSurface(s);
        SDL_FreeSurface(o);
        return NULL;
    }
    for (int y = 0; y < h; y++) {
        int y0 = y * s->h / h, y1 = (y + 1) * s->h / h;
        if (y1 <= y0) y1 = y0 + 1;
        Uint32 *out = (Uint32 *)((Uint8 *)o->pixels + (size_t)y * (size_t)o->pitch);
        for (int x = 0; x < w; x++) {
            int x0 = x * s->w / w, x1 = (x + 1) * s->w / w;
            if (x1 <= x0) x1 = x0 + 1;
            double sa = 0, sr = 0, sg = 0, sb = 0;
            int cnt = 0;
            for (int yy = y0; yy < y1 && yy < s->h; yy++) {
                const Uint32 *row =
                    (const Uint32 *)((const Uint8 *)s->pixels + (size_t)yy * (size_t)s->pitch);
                for (int xx = x0; xx < x1 && xx < s->w; xx++) {
                    Uint32 p = row[xx];
                    double a = p >> 24;
                    sa += a;
                    sr += a * (p >> 16 & 255);
                    sg += a * (p >> 8 & 255);
                    sb += a * (p & 255);
                    cnt++;
                }
            }
            Uint32 A = cnt ? (Uint32)lround(sa / cnt) : 0;
            Uint32 R = sa > 0 ? (Uint32)lround(sr / sa) : 0,
                   G = sa > 0 ? (Uint32)lround(sg / sa) : 0,
                   B = sa > 0 ? (Uint32)lround(sb / sa) : 0;
            out[x] = A << 24 | R << 16 | G << 8 | B;
        }
    }
    SDL_FreeSurface(s);
    return o;
}

// A line that shows nothing (every run of it zero width): transparent, one pixel wide, a line high.
static SDL_Surface *text_blank(TTF_Font *base)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, 1, base ? TTF_FontHeight(base) : 1, 32,
                                                    SDL_PIXELFORMAT_ARGB8888);
    if (s) SDL_FillRect(s, NULL, 0);
    return s;
}

// Does f draw t with no width at all? (SDL_ttf then fails to render it: "Text has zero width".)
static bool text_zero_width(TTF_Font *f, const char *t)
{
    int w = 0, h = 0;
    return TTF_SizeUTF8(f, t, &w, &h) != 0 || w <= 0;
}

// t rendered: in one call for text_simple text, else run by run (each shaped in its font, script
// and direction, in visual order) on one line whose baseline is the role font's. A run of marks
// alone is left out, and a text of marks alone is drawn as its label (textrun_mark_label). The line
// is as tall as its runs reach, above and below the role font's line (*top: how far above, <= 0),
// so nothing a run draws below the line box is cut (an underscore after Chinese text at 12 px,
// Arabic descenders).
static SDL_Surface *text_render(DrawSdl *d, FontRole role, int size, const char *t, SDL_Color c,
                                int *top)
{
    *top = 0;
    char label[64];
    if (textrun_mark_label(t, label, sizeof label)) t = label;
    TextRun runs[RUN_MAX];
    int n = text_runs(d, role, size, t, runs);
    if (n == 0) {
        TTF_Font *f = plain_font(d, role, size);
        if (f && text_zero_width(f, t)) return text_blank(f);
        return f ? TTF_RenderUTF8_Blended(f, t, c) : NULL;
    }
    TTF_Font *base = font_get(d, role, size);
    if (!base) return NULL;
    SDL_Surface *parts[RUN_MAX];
    int ys[RUN_MAX], total = 0, height = TTF_FontHeight(base), asc = TTF_FontAscent(base);
    char sub[1024];
    bool ok = true;
    for (int i = 0; i < n; i++) {
        double k;
        TTF_Font *f = run_font(d, role, size, &runs[i], &k);
        snprintf(sub, sizeof sub, "%.*s", (int)runs[i].len, t + runs[i].start);
        parts[i] = NULL;
        if (f && text_zero_width(f, sub)) continue;
        SDL_Surface *p = f ? TTF_RenderUTF8_Blended(f, sub, c) : NULL;
        if (p && k != 1.0) {
            SDL_Surface *q = shrink(p, (int)lround(p->w * k), (int)lround(p->h * k));
            SDL_FreeSurface(p);
            p = q;
        }
        parts[i] = p;
        if (!p) ok = false;
        else {
            ys[i] = k != 1.0 ? (height - p->h) / 2 : asc - TTF_FontAscent(f);
            total += p->w;
        }
    }
    if (ok && total == 0) return text_blank(base);
    int lo = 0, hi = height;
    for (int i = 0; i < n && ok; i++) {
        if (!parts[i]) continue;
        if (ys[i] < lo) lo = ys[i];
        if (ys[i] + parts[i]->h > hi) hi = ys[i] + parts[i]->h;
    }
    SDL_Surface *out =
        ok ? SDL_CreateRGBSurfaceWithFormat(0, total, hi - lo, 32, SDL_PIXELFORMAT_ARGB8888) : NULL;
    if (out) SDL_FillRect(out, NULL, 0);
    *top = lo;
    int x = 0;
    for (int i = 0; i < n; i++) {
        if (!parts[i]) continue;
        if (out) {
            SDL_SetSurfaceBlendMode(parts[i], SDL_BLENDMODE_NONE);
            SDL_Rect dst = {x, ys[i] - lo, parts[i]->w, parts[i]->h};
            SDL_BlitSurface(parts[i], NULL, out, &dst);
        }
        x += parts[i]->w;
        SDL_FreeSurface(parts[i]);
    }
    return out;
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
    int w = 0;
    fonts_trim(d);
    if (!text_size(d, role, size, t, &w)) return (int)strlen(t) * size / 2;
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
    fonts_trim(d);
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
    if (d && textrun_memo_init(&d->cps)) d->find = fontfind_open();
    if (!d || !d->cache || !d->widths || !d->cps.slots || !d->find) {
        snprintf(err, cap, "out of memory");
        if (d) free(d->cache);
        if (d) free(d->widths);
        if (d) textrun_memo_free(&d->cps);
        if (d) fontfind_close(d->find);
        free(d);
        return NULL;
    }
    d->r = r;
    for (int i = 0; i < FONT_COUNT; i++) {
        snprintf(d->files[i].path, sizeof d->files[i].path, "%s/%s", font_dir, FILES[i]);
        d->file_count++;
        if (!font_get(d, (FontRole)i, 18)) {
            snprintf(err, cap, "cannot open font %s: %s", d->files[i].path, TTF_GetError());
            draw_sdl_destroy(d);
            return NULL;
        }
    }
    return d;
}

static void cache_clear(DrawSdl *d, bool keep_recent)
{
    // Rebuild the table with only the entries drawn in the last frame (open addressing needs a
    // rehash).
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
    textrun_memo_free(&d->cps);
    fontfind_close(d->find);
    free(d);
}

size_t draw_sdl_cached(const DrawSdl *d) { return d->cached; }

static TextEntry *text_get(DrawSdl *d, const char *t, FontRole role, int size, Rgba color)
{
    size_t mask = CACHE_SLOTS - 1, i = hash_key(t, role, size, color) & mask;
    for (;;) {
        TextEntry *e = &d->cache[i];
        if (!e->text) break;
        if (e->role == role && e->size == size && memcmp(&e->color, &color, sizeof color) == 0
            && strcmp(e->text, t) == 0) {
            e->frame = d->frame;
            return e;
        }
        i = (i + 1) & mask;
    }
    if (d->cached >= CACHE_SLOTS * 3 / 4)
        return NULL; // full within one frame: draw nothing rather than thrash
    SDL_Color c = {color.r, color.g, color.b, color.a};
    fonts_trim(d);
    int top = 0;
    SDL_Surface *surf = text_render(d, role, size, t, c, &top);
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
    *e = (TextEntry){copy, role, size, color, tex, w, h, top, d->frame};
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

// Sets colour c for fills. An opaque colour is drawn without blending: blending with alpha 255
// gives the same pixels (src * 255 / 255 + dst * 0), but SDL's software renderer then blends every
// pixel one by one instead of filling rows, which was most of a software redraw.
static void pen_fill(Pen *p, Rgba c)
{
    SDL_BlendMode b = c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND;
    if (!p->known || b != p->blend) SDL_SetRenderDrawBlendMode(p->r, b);
    if (!p->known || memcmp(&c, &p->color, sizeof c) != 0) set_color(p->r, c);
    p->color = c;
    p->blend = b;
    p->known = true;
}

// Sets colour c with blending, as every draw used before (lines and hatching keep SDL's blended
// path).
static void pen_blend(Pen *p, Rgba c)
{
    if (!p->known || p->blend != SDL_BLENDMODE_BLEND)
        SDL_SetRenderDrawBlendMode(p->r, SDL_BLENDMODE_BLEND);
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
            while (n < RUN && i + 1 < s->count && s->cmds[i + 1].kind == CMD_RECT
                   && memcmp(&s->cmds[i + 1].color, &c->color, sizeof c->color) == 0) {
                const DrawCmd *nx = &s->cmds[++i];
                rc[n++] = (SDL_Rect){nx->x, nx->y, nx->w, nx->h};
            }
            pen_fill(&pen, c->color);
            SDL_RenderFillRects(r, rc, n);
            break;
        }
        case CMD_FRAME: {
            int t = c->thickness < 1 ? 1 : c->thickness;
            SDL_Rect e[4] = {{c->x, c->y, c->w, t},
                             {c->x, c->y + c->h - t, c->w, t},
                             {c->x, c->y, t, c->h},
                             {c->x + c->w - t, c->y, t, c->h}};
            pen_fill(&pen, c->color);
            SDL_RenderFillRects(r, e, 4);
            break;
        }
        case CMD_LINE:
            pen_blend(&pen, c->color);
            for (int k = 0; k < (c->thickness < 1 ? 1 : c->thickness); k++)
                SDL_RenderDrawLine(r, c->x + (c->h ? k : 0), c->y + (c->h ? 0 : k),
                                   c->x + c->w + (c->h ? k : 0), c->y + c->h + (c->h ? 0 : k));
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
            SDL_Rect dst = {c->x, c->y + e->top, e->w, e->h};
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
