// What the scene's rooms share (not an API: scene.h is): the layout context of one frame, its
// drawing primitives, the matrix boxes and board rows, and the functions one room calls in another.
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
    char caption[48], next[48]; // the sub-step on the board and the next one (for the hint line)
    int notes_lines; // the lesson's notes: at most this many lines (0: 9), the room reserved below
                     // the board
    bool heat_shown; // the heatmap went beside the board
    CellRef focus; // the cell whose arithmetic is shown
    // input rows/columns that the focused cell was computed from (row or col -1: the whole band)
    CellRef lit[8];
    int lit_count;
} Ctx;

// A context for scene s and state st at chrome scale u (1.0: a 1280x720 window) and these font
// sizes: the light theme, no extras, the view's focused cell (none when out of range) and the bands
// it was computed from.
void ctx_init(Ctx *c, Scene *s, const ViewState *st, const Lesson *L, const Trace *T,
              const TextMetrics *tm, double u, int num_font, int text_font);

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
    return scene_push_text(c->s, f, size, color, x, y, w, line_h(c, f, size), t) ? w : 0;
}

typedef enum { LEFT, CENTER, RIGHT } Align;

// Text aligned horizontally in [x, x + w) and centred vertically in [y, y + h).
static inline int text_in(Ctx *c, FontRole f, int size, Rgba color, int x, int y, int w, int h,
                          Align a, const char *t)
{
    int tw = text_w(c, f, size, t), th = line_h(c, f, size);
    int tx = a == LEFT ? x : a == CENTER ? x + (w - tw) / 2 : x + w - tw;
    return text_at(c, f, size, color, tx, y + (h - th) / 2, t);
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
// Matrix boxes (scene_grid.c) and the board's rows of them (scene_board.c)

// One matrix on the board: which, the window of it shown and its cell sizes.
typedef struct {
    MatId mat;
    int head;
    bool result; // this step's result: framed and tagged
    int rows, cols; // the whole matrix
    int r0, nr, c0, nc; // the window shown
    int cell_w, cell_h;
    int label_w; // the row-label column
    double range; // the colour scale: |value| that reaches the ends (shared by its range group)
    bool probabilities; // 0..1 on the sequential map
    const char *title; // instead of the matrix's name (NULL: its name)
    int side_w; // a column right of the cells: each softmax row's entropy in bits (0: none)
    bool positions; // every row label with its position ("mat₅"), not only a repeated token's (a
                    // rolling buffer's rows: the decode panel)
} MatBox;

// The board's sizes at its number font.
typedef struct {
    int num_font, label_font, title_font, op_font;
    int title_h, col_label_h, foot_h;
    int gap; // between a matrix and its neighbour
    bool narrow; // cells as wide as their numbers: long token labels are abbreviated instead
    bool tight; // less air in the cells and a narrower label column: a matrix whole rather than
                // windowed
    bool whole_labels; // with tight: the label column stays as wide as its labels (only the cells
                       // lose air)
    bool compact; // ... and less air above and below the numbers (split_level 5)
    bool share_rows; // a matrix right of another across an operator, with the same rows, gives its
                     // row labels to the left one's (the board's last style: an equation together
                     // rather than split)
    bool no_col_labels; // the column labels are the box's above (the decode panel): col_label_h
                        // only clears a result's frame
} GridStyle;

// A term of a board row: a matrix, or an operator between matrices.
typedef struct {
    bool is_op;
    MatBox box;
    char op[24];
} BoardTerm;

// One row of the board: its terms from left to right ("A · B = R").
typedef struct {
    BoardTerm t[TERM_MAX];
    int count;
} BoardRow;

#define BOARD_ROWS (EQ_MAX * 2)

// The board as drawn: its rows, and the sub-step shown.
typedef struct {
    BoardRow rows[BOARD_ROWS];
    int count;
    bool narrow; // cells as wide as their numbers: long column labels cut
    bool
        falk; // one product "A · B = C" in Falk's scheme: B above C, A left of C (rows[0] holds it)
    char caption[48], next[48]; // one sub-step shown: what it computes, and what the next one does
} Arrangement;

// ---------------------------------------------------------------------------------------------------
// Notation text (scene_text.c)

// Copies t into buf, cut (with "…") so it measures at most max_w.
void fit_text(const Ctx *c, FontRole f, int size, const char *t, int max_w, char *buf, size_t cap);
// A token label cut to max_w keeps its subscript index ("was…₁₁"): two cut "was" must stay apart.
void fit_label(const Ctx *c, FontRole f, int size, const char *t, int max_w, char *buf, size_t cap);
// Word-wraps t (in the board's notation: '^' raises) into lines no wider than w from (x, y);
// returns the height used (at most max_lines); draws when `draw`.
int wrap_text(Ctx *c, FontRole f, int size, Rgba color, int x, int y, int w, int max_lines,
              const char *t, bool draw);
// ... the lines from line `skip` on (a page of max_lines; nothing cut): *more says whether lines
// follow.
int wrap_text_page(Ctx *c, FontRole f, int size, Rgba color, int x, int y, int w, int skip,
                   int max_lines, const char *t, bool draw, bool *more);
// The width of t in the board's notation, and t drawn with its top-left at (x, y) (returns the
// width).
int math_w(const Ctx *c, FontRole f, int size, const char *t);
int math_at(Ctx *c, FontRole f, int size, Rgba color, int x, int y, const char *t);

// ---------------------------------------------------------------------------------------------------
// Cells and matrix boxes (scene_grid.c)

double cell_value(const Ctx *c, CellRef r);
// The colour range of m's range group (computed once a frame).
double group_range(const Ctx *c, MatId m);
// The fill of a cell of m holding v, on a scale whose ends are +-range.
Rgba cell_color(const Ctx *c, MatId m, double v, double range);
// Whether m's values are probabilities, 0..1 on the sequential map (the matrix table's range
// group).
bool prob_matrix(MatId m);
void grid_style(const Ctx *c, GridStyle *g);
// The whole of matrix m (of a head) in a box, cells wide enough for its numbers and labels.
void box_init(const Ctx *c, const GridStyle *g, MatBox *b, MatId m, int head, bool result);
bool box_windowed(const MatBox *b);
// The label of row `row` of b as draw_matrix writes it (with its position when b->positions).
void box_row_label(const Ctx *c, const MatBox *b, int row, char *buf, size_t cap);
int box_width(const GridStyle *g, const MatBox *b);
int box_height(const GridStyle *g, const MatBox *b);
// Where the window of a matrix starts: around the focused cell, or the row/column the focus reads.
void box_follow(const Ctx *c, MatBox *b);
// Draws one matrix with its title, labels and cells; (x, y) is the top-left of the box.
void draw_matrix(Ctx *c, const GridStyle *g, const MatBox *b, int x, int y);

// ---------------------------------------------------------------------------------------------------
// The board and the stage's main area (scene_board.c)

int op_width(const Ctx *c, const GridStyle *g, const char *op);
int row_width(const Ctx *c, const GridStyle *g, const BoardRow *r);
// Shrinks the windows of the widest and tallest matrices until the arrangement fits (down to 1 x
// 1).
void window_to_fit(const Ctx *c, const GridStyle *g, Arrangement *a, int w, int h);
// The stage's equations in (x, y, w, h), in sub-steps or windows when they do not fit.
void draw_board(Ctx *c, int x, int y, int w, int h);
// scene_model.c: a checkpoint's layer's next-token stage as a bar chart (in place of its board).
void draw_next_chart(Ctx *c, int x, int y, int w, int h);
// ... and the overview of every layer's heads (PANEL_OVERVIEW, key W).
void draw_overview(Ctx *c, int x, int y, int w, int h);
// What the floor allows on a board of w x h (the layout audit checks the plan against it).
void scene_board_fits(Ctx *c, int w, int h, SceneFits *fits);
// The board and, where there is room, the stage's heatmap beside it, at the largest legible size.
void draw_stage(Ctx *c, int x, int y, int w, int h);

// ---------------------------------------------------------------------------------------------------
// Heatmaps (scene_heatmap.c)

// Vertical colour bar with its range; (x, y, w, h) is the whole bar including its labels.
void draw_colorbar(Ctx *c, MatId m, double range, int x, int y, int w, int h);
// The bar and its widest label (the range's ends, as draw_colorbar writes them).
int colorbar_width(const Ctx *c, MatId m);
// One head's heatmap in (x, y, w, h); *grid_y and *grid_h say where its cells went (for the colour
// bar).
void draw_heatmap(Ctx *c, MatId m, int head, double range, int x, int y, int w, int h, bool compact,
                  bool selected, int *grid_y, int *grid_h, const char *title_text);
// The columns of the all-heads grid in w x h pixels: the number that gives the largest cells (the
// slide pages choose their size by it).
int heat_grid_cols(const AttnParams *p, double w, double h);
// The stride of the all-heads grid's sample (SCENE_GRID_MAX_CELLS, scene.h); 1: every cell.
int heat_grid_stride(const AttnParams *p);
// A slide's first line: the lesson's title (bold) at (x, y), cut to w; returns its height (0,
// nothing drawn, in the window or for a lesson without a title). Draws when `draw`.
int scene_page_title(Ctx *c, int x, int y, int w, bool draw);
// Every head's heatmap of m in a grid that fills (x, y, w, h), with one colour bar at the right.
void draw_heads_grid(Ctx *c, MatId m, int x, int y, int w, int h);
// The stage's heatmap for every head (a sentence before the scores).
// ... as a slide: the lesson's title, a heading, the grid and the axes' caption (scene_heatmap.c).
void draw_heads_page(Ctx *c, int x, int y, int w, int h);
void draw_all_heads(Ctx *c, int x, int y, int w, int h);

// ---------------------------------------------------------------------------------------------------
// The text around the board (scene_chrome.c)

// Header: the stage's name, formula and head, the strip of stages, the status line; *height its
// height.
void draw_header(Ctx *c, int x, int y, int w, int *height);
// The room of draw_explain on a w wide board.
int explain_height(const Ctx *c, int w);
void draw_explain(Ctx *c, int x, int y, int w, int h);
// The footer (the stage's explanation, the notes, a question); returns its height, draws when
// `draw`.
int draw_footer(Ctx *c, int x, int y, int w, bool draw);
// The footer's room whatever it shows (the explanation, the stage's questions asked, and answered
// with revealed_extra more for the arithmetic line above them): its height.
int footer_reserve(Ctx *c, int w, int revealed_extra);
// A panel over the dimmed window (w x h), pw x ph at most 20 pixels short of it, centred: its place
// in *x, *y.
void draw_overlay(Ctx *c, int w, int h, int *pw, int *ph, int *x, int *y);
void draw_help(Ctx *c, int w, int h);
void draw_confirm(Ctx *c, int w, int h, const char *msg);
// A red message over the header (*height: the room it may take in, the height it took out).
void draw_banner(Ctx *c, int w, const char *msg, int *height);

// ---------------------------------------------------------------------------------------------------
// Panels (scene_panels.c)

void draw_cost(Ctx *c, int w, int h);
// The KV cache's size (Shift+K; scene_cache.c): a published shape's chart of bytes against tokens
// and the lesson's table, MHA, GQA, MQA and a window.
void draw_cache_size(Ctx *c, int x, int y, int w, int h);
// RoPE as a picture (key W; scene_rope.c): token rope_t's query pairs on circles before and after
// their turn, the frequencies θ_i over i beside the published bases, and a query and key moved
// together keeping their score.
void draw_rope(Ctx *c, int x, int y, int w, int h);
// The colour of series g (a K/V head's band in the all-heads grid, a line of the cache chart): the
// Okabe-Ito colours, which colour-blind eyes tell apart; in greyscale ink and grey by turns.
Rgba scene_series_color(const Ctx *c, int g);
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

// ---------------------------------------------------------------------------------------------------
// Today's attention computed another way (scene_decode.c; the tiles panel scene_tiles.c)

// KV-cache decoding (key G): the token generated, its query over the cache, the cache and the work
// saved.
void draw_decode(Ctx *c, int x, int y, int w, int h);
// FlashAttention's tiles (key B): the scores with the tile read, the running m, l and O; reports
// the tile count.
void draw_tiles(Ctx *c, int x, int y, int w, int h);
// What the footer says under the decode and tiles panels (a message id), NULL for other panels.
const char *panel_footer_text(ViewPanel panel);

#endif
