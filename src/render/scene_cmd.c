// The scene's command list (what a frame draws, appended to by every room and by the exporter), the themes
// handed to it, and the number size every layout starts from.
#include "scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void scene_init(Scene *s) { memset(s, 0, sizeof *s); }

void scene_free(Scene *s)
{
    free(s->cmds);
    free(s->text);
    free(s->hits);
    memset(s, 0, sizeof *s);
}

void scene_clear(Scene *s)
{
    s->count = 0;
    s->text_len = 0;
    s->hit_count = 0;
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
        bool whole = c->kind == CMD_CLIP && (c->w == 0 || c->h == 0); // "everywhere again": no place to move
        int x = whole ? c->x : c->x + dx, y = whole ? c->y : c->y + dy;
        DrawCmd *d = c->kind == CMD_TEXT ? scene_push_text(dst, c->font, c->size, c->color, x, y, c->w, c->h, scene_text(src, c))
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

DrawCmd *scene_push_text(Scene *s, FontRole font, int size, Rgba color, int x, int y, int w, int h, const char *utf8)
{
    size_t len = strlen(utf8);
    if (s->oom || !grow((void **)&s->text, &s->text_cap, s->text_len + len + 1, 1)) {
        s->oom = true;
        return NULL;
    }
    DrawCmd *c = scene_push(s, CMD_TEXT, x, y, w, h, color);
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

// ---------------------------------------------------------------------------------------------------
// Themes and sizes

// Okabe-Ito blue for results; magenta for the focus (no colour map has it); reddish purple for edits.
const Theme THEME_LIGHT = {
    .bg = {234, 236, 240, 255}, .panel = {222, 226, 233, 255}, .ink = {24, 27, 34, 255}, .muted = {74, 80, 92, 255},
    .grid = {255, 255, 255, 255}, .empty = {226, 228, 232, 255}, .result = {0, 114, 178, 255},
    .focus = {232, 0, 190, 255}, .hatch = {150, 150, 156, 255}, .masked_bg = {208, 208, 212, 255},
    .banner_bg = {176, 32, 32, 255}, .white = {255, 255, 255, 255}, .edited = {120, 40, 200, 255},
    .status_bg = {0, 90, 140, 255}, .page_cell = {255, 255, 255, 255},
};
const Theme THEME_DARK = {
    .bg = {22, 24, 30, 255}, .panel = {40, 44, 54, 255}, .ink = {236, 238, 242, 255}, .muted = {170, 176, 188, 255},
    .grid = {90, 94, 104, 255}, .empty = {54, 58, 68, 255}, .result = {86, 180, 233, 255},
    .focus = {255, 60, 220, 255}, .hatch = {120, 124, 132, 255}, .masked_bg = {70, 72, 80, 255},
    .banner_bg = {176, 32, 32, 255}, .white = {255, 255, 255, 255}, .edited = {190, 120, 255, 255},
    .status_bg = {0, 90, 140, 255}, .page_cell = {60, 64, 74, 255},
};
const Theme THEME_PRINT = {
    .bg = {255, 255, 255, 255}, .panel = {240, 240, 240, 255}, .ink = {0, 0, 0, 255}, .muted = {70, 70, 70, 255},
    .grid = {120, 120, 120, 255}, .empty = {230, 230, 230, 255}, .result = {0, 0, 0, 255},
    .focus = {0, 0, 0, 255}, .hatch = {110, 110, 110, 255}, .masked_bg = {200, 200, 200, 255},
    .banner_bg = {0, 0, 0, 255}, .white = {255, 255, 255, 255}, .edited = {0, 0, 0, 255},
    .status_bg = {60, 60, 60, 255}, .page_cell = {255, 255, 255, 255},
};

int scene_number_font(int h)
{
    int f = (int)lround(h * 0.039);
    return f < 10 ? 10 : f;
}
