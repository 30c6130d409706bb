// The layout context of one frame, which every room of the scene draws with (not an API: scene.h
// is): its inputs and sizes, the drawing primitives, the number floor and the series colours. Each
// room has its header (scene_text.h, scene_grid.h, scene_board.h, scene_heatmap.h, scene_model.h,
// scene_panels.h, scene_chrome.h) and calls only rooms below it.
#ifndef MHA_SCENE_CTX_H
#define MHA_SCENE_CTX_H

#include "render/scene.h"
#include "model/i18n.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// Explanation lines and labels are cut to their buffers on purpose (tokens can be long).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define SCENE_TIMES "\xc3\x97" // ×

// ---------------------------------------------------------------------------------------------------
// The layout context: one frame's inputs, sizes and what its parts tell each other.

typedef struct {
    Scene *s;
    const ViewState *st;
    const Lesson *L;
    const Trace *T;
    const TextMetrics *tm;
    const SceneExtras *ex; // never NULL (an empty one when the caller gave none)
    const Theme *th;
    double u; // chrome (header, footer, overlays): 1.0 on a 1280x720 window
    int num_font; // the board's numbers (and the heatmap's): legible from the back row, times the
                  // zoom
    int text_font; // sentences: the footer, the explanation of a cell
    int min_font; // nothing smaller is drawn
    // What the numbers and labels measure (colour ranges, widest numbers, widest labels), computed
    // on first use: one scan per matrix and frame, not one per layout tried (a 768 x 768 W^O is
    // 590,000 cells; 512 token labels measured for every layout cost a big lesson's frame). Carried
    // into the next build of the same lesson and trace when the caller says so
    // (scene_keep_measures).
    SceneMemo memo;
    int heat_cell_w,
        heat_cell_h; // a heatmap beside the board: cells no larger than the result's (0: any)
    int heat_grid_x, heat_grid_w; // where the last heatmap's cells went (for its colour bar)
    bool windowed; // the board drew a window of some matrix
    double least_share; // the smallest share of its cells a matrix drawn shows (1: all whole;
                        // draw_stage sets 1)
    bool window_result; // equation_part may window a result that does not fit whole (its inputs
                        // whole in runs)
    bool last_resort; // draw_stage found no layout that shows every matrix whole (window_result may
                      // be tried)
    int split_level; // parts before windows (plan_parts) down to this level (0: none; 2: inputs,
                     // then
                     // "= result"; 3: the inputs in runs; 4: as 3, with tight cells;
                     // 5: as 4, with compact rows)
    char caption[96], next[96]; // the sub-step on the board and the next one (for the hint line)
    int notes_lines; // the lesson's notes: at most this many lines (0: 9), the room reserved below
                     // the board
    bool heat_shown; // the heatmap went beside the board
    bool heat_floor; // a panel's heatmaps (M): token labels at the floor, or none where they do not
                     // fit
    CellRef focus; // the cell whose arithmetic is shown
    // input rows/columns that the focused cell was computed from (row or col -1: the whole band)
    CellRef lit[8];
    int lit_count;
} Ctx;

// A frame's sizes: the chrome's scale u (1.0: a 1280x720 window), the numbers' and the sentences'.
typedef struct {
    double u;
    int num_font, text_font;
} CtxSizes;

// A context for scene s and state st at these sizes: the light theme, no extras, the view's focused
// cell (none when out of range) and the bands it was computed from.
void ctx_init(Ctx *c, Scene *s, const ViewState *st, const Lesson *L, const Trace *T,
              const TextMetrics *tm, CtxSizes z);

// ---------------------------------------------------------------------------------------------------
// Drawing primitives (sizes in pixels; text measured by the caller's TextMetrics)

static inline int px(const Ctx *c, double v)
{
    int r = (int)lround(v * c->u);
    return r < 1 ? 1 : r;
}

static inline int text_w(const Ctx *c, FontRole f, int size, const char *t)
{
    return c->tm->text_width(c->tm->user, f, size, t);
}
static inline int line_h(const Ctx *c, FontRole f, int size)
{
    return c->tm->line_height(c->tm->user, f, size);
}

// Text whose top-left is (x, y). Returns its width.
static inline int text_at(Ctx *c, FontRole f, int size, Rgba color, int x, int y, const char *t)
{
    if (!t[0]) return 0;
    int w = text_w(c, f, size, t);
    return scene_push_text(c->s, f, size, color, (Box){x, y, w, line_h(c, f, size)}, t) ? w : 0;
}

typedef enum { LEFT, CENTER, RIGHT } Align;

// Text aligned horizontally in [r.x, r.x + r.w) and centred vertically in [r.y, r.y + r.h).
static inline int text_in(Ctx *c, FontRole f, int size, Rgba color, Box r, Align a, const char *t)
{
    int tw = text_w(c, f, size, t), th = line_h(c, f, size);
    int tx = a == LEFT ? r.x : a == CENTER ? r.x + (r.w - tw) / 2 : r.x + r.w - tw;
    return text_at(c, f, size, color, tx, r.y + (r.h - th) / 2, t);
}

static inline void rect(Ctx *c, int x, int y, int w, int h, Rgba color)
{
    scene_push_rect(c->s, x, y, w, h, color);
}

// A cell's fill, tagged with the cell it shows (the SVG writer and the tests read the tag).
static inline void cell_rect(Ctx *c, int x, int y, int w, int h, Rgba color, CellRef ref)
{
    if (w <= 0 || h <= 0) return;
    DrawCmd *d = scene_push(c->s, CMD_RECT, x, y, w, h, color);
    if (d) {
        d->role = ROLE_CELL;
        d->cell = ref;
    }
}

// Marks the last command pushed (a number's text) with its role and cell.
static inline void tag_last(Ctx *c, DrawRole role, CellRef ref)
{
    if (c->s->count == 0 || c->s->oom) return;
    c->s->cmds[c->s->count - 1].role = role;
    c->s->cmds[c->s->count - 1].cell = ref;
}

static inline void frame(Ctx *c, int x, int y, int w, int h, int t, Rgba color)
{
    if (w <= 0 || h <= 0) return;
    DrawCmd *cmd = scene_push(c->s, CMD_FRAME, x, y, w, h, color);
    if (cmd) cmd->thickness = t;
}

// Where a scene's lists end, to take back what a layout tried (scene_rewind).
typedef struct {
    size_t cmds, text, hits, boxes;
} SceneMark;
static inline SceneMark scene_mark(const Scene *s)
{
    return (SceneMark){s->count, s->text_len, s->hit_count, s->box_count};
}
static inline void scene_rewind(Scene *s, SceneMark m)
{
    s->count = m.cmds;
    s->text_len = m.text;
    s->hit_count = m.hits;
    s->box_count = m.boxes;
}

// The matrix table's row of the first matrix stage s fills (NULL: the stage fills none, as the
// input).
static inline const MatInfo *stage_result_info(Stage s)
{
    const StageInfo *si = stage_info(s);
    return si ? mat_info(si->results[0]) : NULL;
}

// ---------------------------------------------------------------------------------------------------
// Layout metrics and what every room draws with (scene_ctx.c)

// The smallest number size the back row reads at a preferred size of `base`: digits (0.729 of the
// size in the fonts shipped) of 2.6 % of the height, where the preferred size is 3.9 %.
int font_floor(int base);
// The smallest number size of a panel: the board's floor (scene_number_floor), never above the
// size the board uses now.
int ctx_number_floor(const Ctx *c);
// The colour of series g (a K/V head's band in the all-heads grid, a line of the cache chart): the
// Okabe-Ito colours, which colour-blind eyes tell apart; in greyscale ink and grey by turns.
Rgba scene_series_color(const Ctx *c, int g);
// A panel over the dimmed window (w x h), pw x ph at most 20 pixels short of it, centred: its place
// in *x, *y.
void draw_overlay(Ctx *c, int w, int h, int *pw, int *ph, int *x, int *y);

#endif
