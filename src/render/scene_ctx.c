// The layout context of one frame: its inputs and sizes, the focused cell and the input bands it
// lights; the number floor, the series colours and the overlay panel that the rooms above share.
#include "render/scene_ctx.h"
#include "model/view.h"

// The input bands that light up for a focused cell: the cell, and what it was computed from (the
// matrix table's `from`).
static void light_inputs(Ctx *c)
{
    CellRef f = c->focus;
    c->lit_count = 0;
    if (f.mat == MAT_NONE) return;
    c->lit[c->lit_count++] = f;
    c->lit_count +=
        model_mat_inputs(&c->L->params, f, c->lit + 1, (int)(sizeof c->lit / sizeof c->lit[0]) - 1);
}

static const SceneExtras NO_EXTRAS = {.original = NULL};

void ctx_init(Ctx *c, Scene *s, const ViewState *st, const Lesson *L, const Trace *T,
              const TextMetrics *tm, CtxSizes z)
{
    double u = z.u;
    int num_font = z.num_font, text_font = z.text_font;
    memset(c, 0, sizeof *c);
    c->ex = &NO_EXTRAS;
    c->th = &THEME_LIGHT;
    c->s = s;
    c->st = st;
    c->L = L;
    c->T = T;
    c->tm = tm;
    c->u = u < 0.4 ? 0.4 : u;
    c->num_font = num_font < 8 ? 8 : num_font;
    c->text_font = text_font < 10 ? 10 : text_font;
    c->min_font = 10;
    c->focus = view_focus_cell(st);
    if (c->focus.mat != MAT_NONE && isnan(model_cell_value(&L->params, T, c->focus)))
        c->focus.mat = MAT_NONE;
    light_inputs(c);
    s->num_font = c->num_font;
}

// A panel over the dimmed window: the room's primitive that the help, the cost panel and the
// question before quitting share (scene_ctx.h).
void draw_overlay(Ctx *c, int w, int h, int *pw, int *ph, int *x, int *y)
{
    if (*pw > w - 20) *pw = w - 20;
    if (*ph > h - 20) *ph = h - 20;
    *x = (w - *pw) / 2;
    *y = (h - *ph) / 2;
    rect(c, 0, 0, w, h, (Rgba){20, 22, 28, 150});
    rect(c, *x, *y, *pw, *ph, c->th->sheet);
    frame(c, *x, *y, *pw, *ph, px(c, 2), c->th->result);
}

int font_floor(int base) { return (int)ceil(base * (0.026 / 0.039) / 0.729); }
int scene_number_floor(int h) { return font_floor(scene_number_font(h)); }

int ctx_number_floor(const Ctx *c)
{
    int f = scene_number_floor(c->s->height);
    return f < c->num_font ? f : c->num_font;
}

Rgba scene_series_color(const Ctx *c, int g)
{
    static const Rgba OKABE_ITO[] = {{0, 114, 178, 255}, {230, 159, 0, 255},   {0, 158, 115, 255},
                                     {213, 94, 0, 255},  {204, 121, 167, 255}, {86, 180, 233, 255},
                                     {240, 228, 66, 255}};
    if (c->st->colormap == COLORMAP_GREY) return g % 2 ? c->th->muted : c->th->ink;
    return OKABE_ITO[g % (int)(sizeof OKABE_ITO / sizeof OKABE_ITO[0])];
}
