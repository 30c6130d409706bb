// The scene's entry points: one frame of the viewer (or one part of it, for a slide) laid out from
// the rooms (header, board and heatmap, panels, footer, overlays) into draw commands; the model's
// numbers. No SDL.
#include <limits.h>
#include "render/scene_board.h"
#include "render/scene_circuit.h"
#include "render/scene_chrome.h"
#include "render/scene_heatmap.h"
#include "render/scene_model.h"
#include "render/scene_panels.h"
#include "model/view.h"

// ---------------------------------------------------------------------------------------------------
// Numbers and names, as the model has them

void scene_format_value(double v, char *buf, size_t cap) { model_format_value(v, buf, cap); }
double scene_cell_value(const Lesson *L, const Trace *T, CellRef c)
{
    return model_cell_value(&L->params, T, c);
}
void scene_mat_shape(const Lesson *L, MatId m, int *rows, int *cols)
{
    model_mat_shape(&L->params, m, rows, cols);
}
int scene_explain(const Lesson *L, const Trace *T, CellRef c, char lines[][256], int max_lines)
{
    return model_explain(L, T, c, lines, max_lines, true);
}

// ---------------------------------------------------------------------------------------------------
// Entry points

static double window_scale(int w, int h)
{
    double sx = w / 1280.0, sy = h / 720.0;
    return sx < sy ? sx : sy;
}

bool scene_build(Scene *s, const ViewState *st, const Lesson *L, const Trace *T, int w, int h,
                 const TextMetrics *tm, const char *banner)
{
    SceneRequest rq = {
        .st = st, .lesson = L, .trace = T, .w = w, .h = h, .tm = tm, .banner = banner};
    return scene_build_ex(s, &rq);
}

// A zoomed board seen through the main area (x, y, w, h), its commands from cmds0 on: a text the
// edge cuts is left out (no fragment of a title or a number under the slider), and each edge beyond
// which the board goes on shows an arrow; the clip ends. Cells panned out of sight (hits from
// hits0) answer no hover.
static void zoom_edges(Ctx *c, size_t hits0, size_t cmds0, int x, int y, int w, int h)
{
    Scene *s = c->s;
    size_t keep = cmds0;
    for (size_t i = cmds0; i < s->count; i++) {
        const DrawCmd *d = &s->cmds[i];
        if (d->kind == CMD_TEXT
            && (d->x < x || d->y < y || d->x + d->w > x + w || d->y + d->h > y + h))
            continue;
        s->cmds[keep++] = s->cmds[i];
    }
    s->count = keep;
    // An arrow where the board goes on: left of a pan beyond 0, right of one short of 1, likewise
    // down.
    const struct {
        bool more;
        const char *arrow;
        int ax, ay; // where the chip's centre goes
    } EDGE[] = {
        {s->pan_span_x > 0 && s->pan_x > 0.0, "\xe2\x97\x80", x, y + h / 2},
        {s->pan_span_x > 0 && s->pan_x < 1.0, "\xe2\x96\xb6", x + w, y + h / 2},
        {s->pan_span_y > 0 && s->pan_y > 0.0, "\xe2\x96\xb2", x + w / 2, y},
        {s->pan_span_y > 0 && s->pan_y < 1.0, "\xe2\x96\xbc", x + w / 2, y + h},
    };
    int f = c->num_font * 2 / 3 > c->text_font ? c->text_font : c->num_font * 2 / 3,
        lh = line_h(c, FONT_BOLD, f);
    for (size_t k = 0; k < sizeof EDGE / sizeof EDGE[0]; k++) {
        if (!EDGE[k].more) continue;
        int aw = text_w(c, FONT_BOLD, f, EDGE[k].arrow) + f / 2, ah = lh + f / 4;
        int ax = EDGE[k].ax - aw / 2, ay = EDGE[k].ay - ah / 2;
        if (ax < x) ax = x;
        if (ax + aw > x + w) ax = x + w - aw;
        if (ay < y) ay = y;
        if (ay + ah > y + h) ay = y + h - ah;
        rect(c, ax, ay, aw, ah, c->th->result);
        text_in(c, FONT_BOLD, f, c->th->white, (Box){ax, ay, aw, ah}, CENTER, EDGE[k].arrow);
    }
    scene_push(s, CMD_CLIP, 0, 0, 0, 0, c->th->bg);
    for (size_t i = hits0; i < s->hit_count; i++) {
        HitRegion *r = &s->hits[i];
        int x0 = r->x > x ? r->x : x, y0 = r->y > y ? r->y : y;
        int x1 = r->x + r->w < x + w ? r->x + r->w : x + w;
        int y1 = r->y + r->h < y + h ? r->y + r->h : y + h;
        r->x = x0;
        r->y = y0;
        r->w = x1 > x0 ? x1 - x0 : 0;
        r->h = y1 > y0 ? y1 - y0 : 0;
    }
}

static int text_font_for(int h)
{
    int f = (int)lround(h * 0.03);
    return f < 11 ? 11 : f;
}

// The window's theme: dark (key D), print for the greyscale colour map, else light.
static const Theme *window_theme(const ViewState *st)
{
    return st->dark ? &THEME_DARK : st->colormap == COLORMAP_GREY ? &THEME_PRINT : &THEME_LIGHT;
}

void scene_keep_measures(Scene *s) { s->memo_kept = true; }

// A new page of w by h: the scene emptied, one part of one sub-step.
static void scene_start(Scene *s, int w, int h)
{
    scene_clear(s);
    s->width = w;
    s->height = h;
    s->substeps = 1;
    s->substep = 0;
    s->decode_parts = 1;
    s->panel_fits = -1;
    s->pair_parts = 1;
}

// A new window frame of w by h: as a page, and what the last frame laid out forgotten.
static void window_start(Scene *s, int w, int h)
{
    scene_start(s, w, h);
    s->pan_span_x = s->pan_span_y = 0;
    s->pan_x = s->pan_y = 0.5;
    s->slider_w = 0;
    s->train_w = 0;
    s->strip_n = 0;
    s->board_w = s->board_h = 0;
    s->notes_more = false;
}

// The strips under the header, from *y (moved under them), w wide: the softmax scale's slider and
// the training curve.
static void draw_strips(Ctx *c, int x, int w, int *y)
{
    if (slider_shown(c)) {
        int sh = slider_height(c);
        draw_scale_slider(c, x, *y, w, sh);
        *y += sh + c->num_font / 4;
    }
    if (training_shown(c)) {
        int th = training_height(c);
        draw_training(c, x, *y, w, th);
        *y += th + c->num_font / 4;
    }
}

// Below the board, a room of fixed height a stage: the explanation with the arithmetic line above
// it, or a question of the stage (footer_reserve), or the notes (key N) in their place. None of
// them moves the board.
typedef struct {
    bool question, asking, notes; // a question is up (and not answered yet); the notes are
    int room; // the room's height
    int footer_y, footer_h; // the footer's top and height
    int explain_y, explain_h; // the arithmetic line's; 0 high when the room leaves it no place
} FooterRoom;

// The room's height, fw wide: what the stage's footer and arithmetic line take with neither notes
// nor a question (nor a status: it shows in the room), or what the stage's questions reserve.
static int footer_base_room(Ctx *c, int fw, int explain_h)
{
    const ViewState *st = c->st;
    ViewState plain = *st;
    plain.notes = false;
    plain.quiz_phase = QUIZ_NONE;
    SceneExtras quiet_ex =
        *c->ex; // the room does not depend on a status either (it shows in the room)
    quiet_ex.status = NULL;
    quiet_ex.original = NULL;
    const SceneExtras *given = c->ex;
    c->ex = &quiet_ex;
    c->st = &plain;
    int reserve = footer_reserve(c, fw, explain_h > 0 ? c->num_font / 4 + explain_h : 0),
        base_h = draw_footer(c, 0, 0, fw, false);
    c->st = st;
    c->ex = given;
    int room = base_h + (explain_h > 0 ? c->num_font / 4 + explain_h : 0);
    if (reserve > room) room = reserve;
    return room;
}

// The room under the board, fw wide: its height, where the footer and the arithmetic line go.
static void footer_room(Ctx *c, int fw, FooterRoom *fr)
{
    const ViewState *st = c->st;
    int h = c->s->height;
    fr->question = c->ex->question && st->quiz_phase != QUIZ_NONE && st->panel != PANEL_COMPARE
                   && st->panel != PANEL_SHUFFLE;
    fr->asking = fr->question
                 && st->quiz_phase != QUIZ_REVEALED; // answered: the answer's arithmetic shows too
    fr->notes = st->notes && c->L->notes && c->L->notes[0] && !fr->question
                && (st->panel == PANEL_NONE
                    || st->panel == PANEL_COST); // the cost panel lies over the board
    bool quiet = st->panel == PANEL_COMPARE || st->panel == PANEL_SHUFFLE
                 || st->panel == PANEL_DECODE || st->panel == PANEL_TILES
                 || st->panel == PANEL_CACHE || st->panel == PANEL_ROPE
                 || st->panel == PANEL_OVERVIEW || st->panel == PANEL_CIRCUIT;
    fr->explain_h = quiet ? 0 : explain_height(c, fw);
    fr->room = footer_base_room(c, fw, fr->explain_h);
    if (fr->notes) {
        c->notes_lines = fr->room / line_h(c, FONT_REGULAR, c->text_font);
        if (c->notes_lines < 1) c->notes_lines = 1;
    }
    fr->footer_h = draw_footer(c, 0, 0, fw, false);
    if (fr->footer_h > fr->room)
        fr->room = fr->footer_h; // an automatic question (P) taller than the stage's room
    // Answered: the answer's arithmetic above the question's box where the room holds both.
    if (fr->question && !fr->asking && fr->footer_h + c->num_font / 4 + fr->explain_h > fr->room)
        fr->asking = true;
    fr->footer_y = h - c->num_font / 4 - (fr->notes || fr->asking ? fr->room : fr->footer_h);
    if (fr->notes || fr->asking) fr->explain_h = 0;
    fr->explain_y = fr->footer_y - c->num_font / 4 - fr->explain_h;
}

// Everything drawn since cmds0, hits0 and boxes0 moved by (dx, dy).
static void scene_shift(Scene *s, size_t cmds0, size_t hits0, size_t boxes0, int dx, int dy)
{
    for (size_t i = cmds0; i < s->count; i++) s->cmds[i].x += dx, s->cmds[i].y += dy;
    for (size_t i = hits0; i < s->hit_count; i++) s->hits[i].x += dx, s->hits[i].y += dy;
    for (size_t i = boxes0; i < s->box_count; i++) s->boxes[i].x += dx, s->boxes[i].y += dy;
    s->board_x += dx, s->board_y += dy;
}

// Where the board goes on one axis of a window [lo, lo + room): its matrices and numbers [u0, u1)
// centred when they fit; else the result [r0, r1) whole, at the window's end when more of
// the board lies before it (its inputs then stay in view), at its start otherwise; larger than the
// window, its start at the window's; clear of the edges' arrows by margin where it can. Returns the
// shift.
static int follow_axis(int lo, int room, int u0, int u1, int r0, int r1, int margin)
{
    if (u1 - u0 <= room) return lo + (room - (u1 - u0)) / 2 - u0;
    if (r1 - r0 > room) return lo - r0;
    if (r1 - r0 > room - 2 * margin) margin = 0;
    return r0 - u0 > u1 - r1 ? lo + room - margin - r1 : lo + margin - r0;
}

// A zoomed board laid out at (*ox, *oy) in vw x vh, seen through win: moved so that the class sees
// its framed result (the first result drawn since boxes0) whole with as much of the board's other
// matrices and numbers as fits (follow_axis); the board's edges never inside the window.
static void follow_result(Ctx *c, size_t cmds0, size_t hits0, size_t boxes0, Box win, int vw,
                          int vh, int *ox, int *oy)
{
    Scene *s = c->s;
    int f = c->num_font * 2 / 3 > c->text_font ? c->text_font : c->num_font * 2 / 3,
        margin = line_h(c, FONT_BOLD, f) + f / 4; // an edge's arrow (zoom_edges)
    const SceneBox *r = NULL;
    int u[4] = {INT_MAX, INT_MAX, INT_MIN, INT_MIN}; // every matrix's box: x0, y0, x1, y1
    for (size_t i = boxes0; i < s->box_count; i++) {
        const SceneBox *b = &s->boxes[i];
        if (b->result && !r) r = b;
        if (b->x < u[0]) u[0] = b->x;
        if (b->y < u[1]) u[1] = b->y;
        if (b->x + b->w > u[2]) u[2] = b->x + b->w;
        if (b->y + b->h > u[3]) u[3] = b->y + b->h;
    }
    for (size_t i = cmds0; i < s->count; i++) { // and every number drawn (the heatmap's too)
        const DrawCmd *d = &s->cmds[i];
        if (d->kind != CMD_TEXT || d->role != ROLE_NUMBER) continue;
        if (d->x < u[0]) u[0] = d->x;
        if (d->y < u[1]) u[1] = d->y;
        if (d->x + d->w > u[2]) u[2] = d->x + d->w;
        if (d->y + d->h > u[3]) u[3] = d->y + d->h;
    }
    if (!r) return;
    int nx = *ox + follow_axis(win.x, win.w, u[0], u[2], r->x, r->x + r->w, margin),
        ny = *oy + follow_axis(win.y, win.h, u[1], u[3], r->y, r->y + r->h, margin);
    int lo_x = win.x - (vw > win.w ? vw - win.w : 0), lo_y = win.y - (vh > win.h ? vh - win.h : 0);
    nx = nx > win.x ? win.x : nx < lo_x ? lo_x : nx;
    ny = ny > win.y ? win.y : ny < lo_y ? lo_y : ny;
    scene_shift(s, cmds0, hits0, boxes0, nx - *ox, ny - *oy);
    *ox = nx, *oy = ny;
}

// The board in the main area (x, y, w, h), zoomed: laid out zoom times larger, the window showing
// the part the pan points at, or (until the class pans) the framed result.
static void draw_zoomed_board(Ctx *c, int x, int y, int w, int h)
{
    Scene *s = c->s;
    const ViewState *st = c->st;
    double zoom = st->zoom > 0.0 ? st->zoom : 1.0;
    int vw = (int)lround(w * zoom), vh = (int)lround(h * zoom);
    int ox = x - (int)lround((vw - w) * (zoom > 1.0 ? st->pan_x : 0.5));
    int oy = y - (int)lround((vh - h) * (zoom > 1.0 ? st->pan_y : 0.5));
    s->pan_span_x = vw > w ? vw - w : 0;
    s->pan_span_y = vh > h ? vh - h : 0;
    if (zoom < 1.0) {
        s->pan_span_x = s->pan_span_y = 0;
        vw = w;
        vh = h;
        ox = x;
        oy = y;
    }
    c->num_font = (int)lround(c->num_font * zoom);
    if (c->num_font < 8) c->num_font = 8;
    s->num_font = c->num_font;
    size_t hits0 = s->hit_count, cmds0 = s->count, boxes0 = s->box_count;
    if (zoom > 1.0) scene_push(s, CMD_CLIP, x, y, w, h, c->th->bg);
    size_t drawn0 = s->count;
    s->board_x = ox, s->board_y = oy, s->board_w = vw, s->board_h = vh;
    if (st->view == VIEW_ALL_HEADS) draw_all_heads(c, ox, oy, vw, vh);
    else draw_stage(c, ox, oy, vw, vh);
    if (zoom > 1.0 && st->pan_follow)
        follow_result(c, drawn0, hits0, boxes0, (Box){x, y, w, h}, vw, vh, &ox, &oy);
    s->pan_x = s->pan_span_x > 0 ? (double)(x - ox) / s->pan_span_x : 0.5;
    s->pan_y = s->pan_span_y > 0 ? (double)(y - oy) / s->pan_span_y : 0.5;
    if (zoom > 1.0) { zoom_edges(c, hits0, cmds0, x, y, w, h); }
    c->num_font = scene_number_font(s->height);
}

// The panels that stand in for the board, and what draws each.
static const struct {
    ViewPanel panel;
    void (*draw)(Ctx *c, int x, int y, int w, int h);
} MAIN_PANELS[] = {
    {PANEL_COMPARE, draw_compare}, {PANEL_SHUFFLE, draw_shuffle},   {PANEL_DECODE, draw_decode},
    {PANEL_TILES, draw_tiles},     {PANEL_OVERVIEW, draw_overview}, {PANEL_CACHE, draw_cache_size},
    {PANEL_ROPE, draw_rope},       {PANEL_CIRCUIT, draw_circuit},
};

// The main area (x, y, w, h): the panel that stands in for the board, else the board.
static void draw_main(Ctx *c, int x, int y, int w, int h)
{
    for (size_t k = 0; k < sizeof MAIN_PANELS / sizeof MAIN_PANELS[0]; k++)
        if (c->st->panel == MAIN_PANELS[k].panel) {
            MAIN_PANELS[k].draw(c, x, y, w, h);
            return;
        }
    draw_zoomed_board(c, x, y, w, h);
}

// The context of a build as the request asks, at sizes z.
static void ctx_for(Ctx *c, Scene *s, const SceneRequest *rq, CtxSizes z)
{
    ctx_init(c, s, rq->st, rq->lesson, rq->trace, rq->tm, z);
    if (rq->ex) c->ex = rq->ex;
}

// The page w x h filled with the background of the extras' theme, else of c's.
static void fill_page(Ctx *c, int w, int h)
{
    if (c->ex->theme) c->th = c->ex->theme;
    c->s->background = c->th->bg;
    rect(c, 0, 0, w, h, c->th->bg);
}

// The whole window: header, strips, footer, the main area, the overlays.
static bool build_window(Scene *s, const SceneRequest *rq)
{
    const ViewState *st = rq->st;
    const char *banner = rq->banner;
    int w = rq->w, h = rq->h;
    window_start(s, w, h);
    Ctx c;
    ctx_for(&c, s, rq, (CtxSizes){window_scale(w, h), scene_number_font(h), text_font_for(h)});
    if (s->memo_kept)
        c.memo = s->memo; // the same lesson and trace as the last build (scene_keep_measures)
    s->memo_kept = false;
    c.th = window_theme(st);
    fill_page(&c, w, h);
    int margin = c.num_font * 2 / 3;
    int y = c.num_font / 4; // a banner goes over the header at the end: it never moves the board
    // The header is measured first and drawn last: its strip names the sub-step the board chose.
    int hh = 0, header_y = y;
    SceneMark mark = scene_mark(s);
    draw_header(&c, margin, y, w - 2 * margin, &hh);
    scene_rewind(s, mark);
    y += hh + c.num_font / 4;
    draw_strips(&c, margin, w - 2 * margin, &y);
    FooterRoom fr;
    footer_room(&c, w - 2 * margin, &fr);
    draw_footer(&c, margin, fr.footer_y, w - 2 * margin, true);
    int main_h = h - c.num_font / 4 - fr.room - c.num_font / 3 - y;
    if (main_h > 0) draw_main(&c, margin, y, w - 2 * margin, main_h);
    draw_header(&c, margin, header_y, w - 2 * margin, &hh);
    if (banner && banner[0]) {
        int bh = header_y + hh;
        draw_banner(&c, w, banner, &bh);
    }
    if (fr.explain_h > 0)
        draw_explain(&c, margin, fr.explain_y, w - 2 * margin, fr.explain_h); // names the sub-step
    if (st->panel == PANEL_COST) draw_cost(&c, w, h);
    if (st->help) draw_help(&c, w, h);
    s->memo = c.memo;
    return !s->oom;
}

bool scene_add_confirm(Scene *s, const ViewState *st, const Lesson *L, const Trace *T,
                       const TextMetrics *tm, const char *msg)
{
    Ctx c;
    ctx_init(&c, s, st, L, T, tm,
             (CtxSizes){window_scale(s->width, s->height), scene_number_font(s->height),
                        text_font_for(s->height)});
    c.th = window_theme(st);
    draw_confirm(&c, s->width, s->height, msg);
    return !s->oom;
}

// One part of the window, for a slide: the board, the heatmap or every head's heatmaps.
static bool build_part(Scene *s, const SceneRequest *rq)
{
    const ViewState *st = rq->st;
    const Lesson *L = rq->lesson;
    int w = rq->w, h = rq->h;
    double u = rq->scale > 0.0 ? rq->scale : window_scale(w, h);
    scene_start(s, w, h);
    Ctx c;
    ctx_for(&c, s, rq,
            (CtxSizes){u, scene_number_font((int)lround(720 * u)),
                       text_font_for((int)lround(720 * u))});
    fill_page(&c, w, h);
    int m8 = px(&c, 8);
    MatId m = model_stage_heatmap(&L->params, view_stage(st));
    if (m == MAT_NONE) m = MAT_WEIGHTS;
    switch (rq->part) {
    case SCENE_PART_BOARD: draw_board(&c, m8, m8, w - 2 * m8, h - 2 * m8); break;
    case SCENE_PART_HEATMAP: {
        int bar = colorbar_width(&c, m);
        int gy, gh,
            tt =
                scene_page_title(&c, m8, m8, w - 2 * m8, true); // a slide: the lesson's title first
        HeatRequest rq = {m,
                          st->head,
                          group_range(&c, m),
                          {m8, m8 + tt, w - bar - 3 * m8, h - 2 * m8 - tt},
                          false,
                          false,
                          NULL};
        draw_heatmap(&c, &rq, &gy, &gh);
        draw_colorbar(&c, m, group_range(&c, m), w - bar - m8, gy, bar, gh);
        break;
    }
    case SCENE_PART_ALL_HEADS: {
        ViewState all = *st;
        if (model_stage_heatmap(&L->params, view_stage(st)) == MAT_NONE)
            all.stage_index = all.stage_count - 1;
        c.st = &all;
        draw_heads_page(&c, m8, m8, w - 2 * m8, h - 2 * m8);
        c.st = st;
        break;
    }
    default: break;
    }
    return !s->oom;
}

bool scene_build_ex(Scene *s, const SceneRequest *rq)
{
    return rq->part == SCENE_PART_WINDOW ? build_window(s, rq) : build_part(s, rq);
}

bool scene_audit_fits(const Scene *built, const ViewState *st, const Lesson *L, const Trace *T,
                      const TextMetrics *tm, SceneFits *fits)
{
    memset(fits, 0, sizeof *fits);
    if (built->board_w <= 0 || built->board_h <= 0) return false;
    Scene tmp;
    scene_init(&tmp);
    tmp.width = built->width; // the label floor reads the height
    tmp.height = built->height;
    Ctx c;
    double zoom = st->zoom > 0.0 ? st->zoom : 1.0;
    ctx_init(&c, &tmp, st, L, T, tm,
             (CtxSizes){window_scale(built->width, built->height), scene_number_font(built->height),
                        text_font_for(built->height)});
    c.num_font = (int)lround(c.num_font * zoom);
    scene_board_fits(&c, built->board_w, built->board_h, fits);
    scene_free(&tmp);
    return true;
}
