// The scene's command list (what a frame draws, appended to by every room of the layout and by the
// exporter), the themes handed to it, and the number size every layout starts from.
#include "render/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void scene_init(Scene *s) { memset(s, 0, sizeof *s); }

void scene_free(Scene *s)
{
    free(s->cmds);
    free(s->text);
    free(s->hits);
    free(s->boxes);
    memset(s, 0, sizeof *s);
}

void scene_clear(Scene *s)
{
    s->count = 0;
    s->text_len = 0;
    s->hit_count = 0;
    s->box_count = 0;
    s->oom = false;
}

static bool grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *p = realloc(*buf, n * elem);
    if (!p) return false;
    *buf = p;
    *cap = n;
    return true;
}

DrawCmd *scene_push(Scene *s, DrawKind kind, int x, int y, int w, int h, Rgba color)
{
    if (s->oom || !grow((void **)&s->cmds, &s->cap, s->count + 1, sizeof(DrawCmd))) {
        s->oom = true;
        return NULL;
    }
    DrawCmd *c = &s->cmds[s->count++];
    *c = (DrawCmd){.kind = kind, .x = x, .y = y, .w = w, .h = h, .color = color, .thickness = 1};
    return c;
}

void scene_append(Scene *dst, const Scene *src, int dx, int dy)
{
    for (size_t i = 0; i < src->count; i++) {
        const DrawCmd *c = &src->cmds[i];
        bool whole =
            c->kind == CMD_CLIP && (c->w == 0 || c->h == 0); // "everywhere again": no place to move
        int x = whole ? c->x : c->x + dx, y = whole ? c->y : c->y + dy;
        DrawCmd *d = c->kind == CMD_TEXT
                         ? scene_push_text(dst, c->font, c->size, c->color, (Box){x, y, c->w, c->h},
                                           scene_text(src, c))
                         : scene_push(dst, c->kind, x, y, c->w, c->h, c->color);
        if (!d) return;
        d->thickness = c->thickness;
        d->font = c->font;
        d->size = c->size;
        d->role = c->role;
        d->cell = c->cell;
    }
}

void scene_push_rect(Scene *s, int x, int y, int w, int h, Rgba color)
{
    if (w > 0 && h > 0) scene_push(s, CMD_RECT, x, y, w, h, color);
}

DrawCmd *scene_push_text(Scene *s, FontRole font, int size, Rgba color, Box at, const char *utf8)
{
    size_t len = strlen(utf8);
    if (s->oom || !grow((void **)&s->text, &s->text_cap, s->text_len + len + 1, 1)) {
        s->oom = true;
        return NULL;
    }
    DrawCmd *c = scene_push(s, CMD_TEXT, at.x, at.y, at.w, at.h, color);
    if (!c) return NULL;
    c->font = font;
    c->size = size;
    c->text = s->text_len;
    memcpy(s->text + s->text_len, utf8, len + 1);
    s->text_len += len + 1;
    return c;
}

void scene_push_hit(Scene *s, int x, int y, int w, int h, CellRef cell, int head)
{
    if (s->oom || !grow((void **)&s->hits, &s->hit_cap, s->hit_count + 1, sizeof(HitRegion))) {
        s->oom = true;
        return;
    }
    s->hits[s->hit_count++] = (HitRegion){x, y, w, h, cell, head};
}

void scene_push_box(Scene *s, const SceneBox *b)
{
    if (s->oom || !grow((void **)&s->boxes, &s->box_cap, s->box_count + 1, sizeof(SceneBox))) {
        s->oom = true;
        return;
    }
    s->boxes[s->box_count++] = *b;
}

// ---------------------------------------------------------------------------------------------------
// Themes and sizes

// The themes as one table: a row a colour, a column a theme (light for the window, dark for dark
// rooms, print for greyscale slides). Okabe-Ito blue for results; magenta for the focus (no colour
// map has it); reddish purple for edits; `sheet` under the overlays (help, cost); `on_result` for
// text on a result-coloured fill. All opaque. Every text reads at 4.5:1 at least on what it is
// drawn on (tests/test_contrast.c measures it): the light page and panel are light enough for the
// blue, the dark theme's sheet is dark under its light ink.
#define THEME_COLOURS(X)                                                                           \
    /*  colour     light            dark             print */                                      \
    X(bg, 246, 247, 250, 22, 24, 30, 255, 255, 255)                                                \
    X(panel, 238, 240, 244, 40, 44, 54, 240, 240, 240)                                             \
    X(ink, 24, 27, 34, 236, 238, 242, 0, 0, 0)                                                     \
    X(muted, 74, 80, 92, 170, 176, 188, 70, 70, 70)                                                \
    X(grid, 255, 255, 255, 90, 94, 104, 120, 120, 120)                                             \
    X(empty, 226, 228, 232, 54, 58, 68, 230, 230, 230)                                             \
    X(result, 0, 114, 178, 86, 180, 233, 0, 0, 0)                                                  \
    X(focus, 232, 0, 190, 255, 60, 220, 0, 0, 0)                                                   \
    X(hatch, 150, 150, 156, 120, 124, 132, 110, 110, 110)                                          \
    X(masked_bg, 208, 208, 212, 70, 72, 80, 200, 200, 200)                                         \
    X(banner_bg, 176, 32, 32, 176, 32, 32, 0, 0, 0)                                                \
    X(white, 255, 255, 255, 255, 255, 255, 255, 255, 255)                                          \
    X(edited, 120, 40, 200, 150, 80, 220, 0, 0, 0)                                                 \
    X(status_bg, 0, 90, 140, 0, 90, 140, 60, 60, 60)                                               \
    X(page_cell, 255, 255, 255, 60, 64, 74, 255, 255, 255)                                         \
    X(sheet, 255, 255, 255, 40, 44, 54, 255, 255, 255)                                             \
    X(on_result, 255, 255, 255, 22, 24, 30, 255, 255, 255)

#define THEME_LIGHT_COLOUR(name, r, g, b, r2, g2, b2, r3, g3, b3) .name = {r, g, b, 255},
#define THEME_DARK_COLOUR(name, r1, g1, b1, r, g, b, r3, g3, b3) .name = {r, g, b, 255},
#define THEME_PRINT_COLOUR(name, r1, g1, b1, r2, g2, b2, r, g, b) .name = {r, g, b, 255},
const Theme THEME_LIGHT = {THEME_COLOURS(THEME_LIGHT_COLOUR)};
const Theme THEME_DARK = {THEME_COLOURS(THEME_DARK_COLOUR)};
const Theme THEME_PRINT = {THEME_COLOURS(THEME_PRINT_COLOUR)};

int scene_number_font(int h)
{
    int f = (int)lround(h * 0.039);
    return f < 10 ? 10 : f;
}
