// The scene: everything one frame shows (rectangles, lines, text, hatching, hover regions) as plain
// data, computed from the app state, the lesson and its trace. A backend (draw_sdl.c, or an
// exporter) draws it. No SDL here: text is measured through a TextMetrics callback so tests can use
// a fixed-width fake.
#ifndef MHA_SCENE_H
#define MHA_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include "model/explain.h"
#include "model/session.h"
#include "model/view.h"
#include "core/compare.h"
#include "lesson/lesson.h"
#include "render/colormap.h"

typedef enum { FONT_REGULAR = 0, FONT_BOLD, FONT_MONO, FONT_COUNT } FontRole;

// A place on the page: its top-left corner and its size in pixels (microui's mu_Rect).
typedef struct {
    int x, y, w, h;
} Box;

typedef enum {
    CMD_RECT, // filled rectangle
    CMD_FRAME, // rectangle outline, `thickness` pixels inside the rectangle
    CMD_LINE, // from (x, y) to (x + w, y + h), `thickness` pixels wide
    CMD_TEXT, // one line of UTF-8 text whose top-left is (x, y); w, h = its measured size
    CMD_HATCH, // diagonal hatching inside the rectangle (masked cells)
    CMD_CLIP, // later commands draw only inside the rectangle; w or h = 0: everywhere again
} DrawKind;

// What a draw command is, beyond its geometry: the SVG and PNG writers and the tests read it
// instead of guessing from positions and colours. ROLE_TILE: a cell of one of the overview's small
// heatmaps (a checkpoint's layer x head; cell.head the head, cell.row the layer); the SVG writer
// groups each heatmap's cells.
typedef enum {
    ROLE_CHROME = 0,
    ROLE_CELL,
    ROLE_NUMBER,
    ROLE_LABEL,
    ROLE_TITLE,
    ROLE_MARK,
    ROLE_TILE
} DrawRole;

typedef struct {
    DrawKind kind;
    int x, y, w, h;
    Rgba color;
    int thickness;
    FontRole font;
    int size; // font pixel size (CMD_TEXT)
    size_t text; // offset into Scene.text (CMD_TEXT)
    DrawRole role;
    CellRef
        cell; // ROLE_CELL and ROLE_NUMBER: the cell drawn; ROLE_TILE: the head and (row) the layer
} DrawCmd;

// The colours of a frame: one value handed to the scene (light for the window, print for greyscale
// slides, dark for dark rooms), never a repaint of a finished frame.
typedef struct {
    Rgba bg, panel, ink, muted, grid, empty, result, focus, hatch, masked_bg, banner_bg, white,
        edited, status_bg, page_cell, sheet, on_result;
} Theme;
extern const Theme THEME_LIGHT, THEME_DARK, THEME_PRINT;

// A rectangle that answers "what is under the pointer".
typedef struct {
    int x, y, w, h;
    CellRef cell; // MAT_NONE for a whole head panel in the all-heads grid
    int head; // the head panel (-1 when none)
} HitRegion;

// What a build measured of its lesson's numbers and labels, kept by the scene for the next build
// (see scene_keep_measures): the colour ranges of the range groups (0: not yet), each matrix's
// widest number and the widest labels of an axis at a label size.
typedef struct {
    double ranges[RANGE_COUNT];
    struct NumStats {
        MatId m;
        int head;
        double big;
        bool neg, ints, inf;
    } nums[48];
    int num_count;
    struct LabelWidth {
        int axis, size, count, w;
    } label_ws[24];
    int label_w_count;
} SceneMemo;

// A matrix as the scene drew it (the layout audit, --layout, and the tests read these): which
// matrix, its whole shape, the window of it shown, the box it took (title and labels included), its
// number size, and the equation term it stands for on the board (its equation and place; -1: a
// panel's, not the board's).
typedef struct {
    MatId mat;
    int head;
    int rows, cols; // the whole matrix
    int r0, nr, c0, nc; // the window shown
    int x, y, w, h; // the box: title, labels and cells
    int num_font; // the pixel size of its numbers
    bool result; // the stage's result (framed; hidden while a question waits)
    char title[96]; // its caption as drawn ("K₁ᴿ", "W₀ᴷ")
} SceneBox;

// A stage's board in parts (screens): at most this many.
#define SCENE_PARTS_MAX 64

// What fits on a board at the floor (digits of 2.6 % of the height), for the layout audit: each
// equation's matrices (operands, then the result) and whether they fit on one screen together, and
// each alone.
typedef struct {
    int neq;
    struct {
        int terms;
        MatId mat[24];
        int head[24];
        bool result[24];
        bool alone[24];
        bool together;
        bool product; // a product "A · B = C"
        bool operands_together; // its operands fit on one screen (A · B: K^T by rows, V^T under A)
    } eq[4];
} SceneFits;

typedef struct {
    DrawCmd *cmds;
    size_t count, cap;
    SceneBox *boxes; // every matrix drawn, in drawing order
    size_t box_count, box_cap;
    char *text; // all strings, NUL-separated (offsets stay valid as it grows)
    size_t text_len, text_cap;
    HitRegion *hits;
    size_t hit_count, hit_cap;
    int width, height;
    Rgba background;
    bool oom; // an allocation failed: the scene is incomplete
    int substeps; // the stage's equations are shown one at a time in this many sub-steps (1: all at
                  // once)
    int substep; // the one shown
    MatId part_result[SCENE_PARTS_MAX]; // the result each part shows (MAT_NONE: only inputs; one
                                        // part: none)
    int board_x, board_y, board_w, board_h;
    bool notes_more; // the notes shown go on past this page (N turns it: view_set_notes_more) //
                     // the board's area in the last window build (w 0: no board)
    int num_font; // the pixel size of the numbers on the board
    int pan_span_x, pan_span_y; // a zoomed board: pixels beyond the window (pan 0..1 covers them)
    double pan_x, pan_y; // ... the pan it was drawn at (the view's, or around its framed result)
    int tile_count; // the tiles panel: how many tiles the current head and block compute (0: not
                    // shown)
    int panel_fits; // a panel of two outputs (M, X): 1 when both fit whole at the floor in its
                    // room, 0 when not (-1: no such panel)
    int pair_parts; // ... in how many parts: 2 when the outputs fit whole only on a screen of their
                    // own (the patterns, then the outputs), else 1
    int decode_parts; // the decode panel: the parts of the token's step (2: q·K and A·V do not fit
                      // at once)
    // The softmax scale's slider (slider_w = 0: none shown): its track, and the head size whose
    // scales it spans (view_scale_min .. VIEW_SCALE_MAX on a log axis) with their stops
    // (view_scale_stops), which a press within a few pixels lands on.
    int slider_x, slider_y, slider_w, slider_h, slider_d_k;
    // The training strip's loss curve and checkpoint ticks (train_w = 0: none shown): steps 0 ..
    // train_steps from left to right, a press or a drag there picks the checkpoint nearest to the
    // step under the pointer.
    int train_x, train_y, train_w, train_h, train_steps;
    // The header's strip of stages (strip_n = 0: none shown): strip_n segments of strip_seg pixels,
    // strip_gap apart, from strip_x; a press on one goes to that stage (touch screens have no
    // PageDown).
    int strip_x, strip_y, strip_seg, strip_gap, strip_h, strip_n;
    SceneMemo memo; // what the last build measured (scene_build_ex)
    bool memo_kept; // the next build starts from it (scene_keep_measures)
} Scene;

// Measures text for the backend's fonts. Widths and heights in pixels for a font role and pixel
// size.
typedef struct {
    void *user;
    int (*text_width)(void *user, FontRole font, int size, const char *utf8);
    int (*line_height)(void *user, FontRole font, int size);
} TextMetrics;

// What to lay out: the whole window, or one part of it (for slide export).
typedef enum {
    SCENE_PART_WINDOW =
        0, // header, board (or all-heads grid), heatmap, explanation, footer, overlays
    SCENE_PART_BOARD, // the matrices of the current stage as the operation
    SCENE_PART_HEATMAP, // the current head's heatmap with its colour bar
    SCENE_PART_ALL_HEADS, // every head's heatmap in a grid with one colour bar
} ScenePart;

void scene_init(Scene *s);
void scene_free(Scene *s);
void scene_clear(Scene *s);
static inline const char *scene_text(const Scene *s, const DrawCmd *c) { return s->text + c->text; }

// Appending to a scene, for its layouts and for other producers of scenes (the slide exporter).
// When memory runs out they set s->oom and add nothing (scene_push and scene_push_text then return
// NULL).
DrawCmd *scene_push(Scene *s, DrawKind kind, int x, int y, int w, int h, Rgba color); // thickness 1
void scene_push_rect(Scene *s, int x, int y, int w, int h, Rgba color); // nothing when w or h <= 0
// One line of text in the box at (its top-left, its measured size); the text is copied into the
// scene.
DrawCmd *scene_push_text(Scene *s, FontRole font, int size, Rgba color, Box at, const char *utf8);
void scene_push_hit(Scene *s, int x, int y, int w, int h, CellRef cell, int head);
// Records a matrix drawn (see SceneBox).
void scene_push_box(Scene *s, const SceneBox *b);
// Every draw command of src moved by (dx, dy) appended to dst (texts copied; hit regions not). For
// pages made of other pages, such as a strip of heatmaps.
void scene_append(Scene *dst, const Scene *src, int dx, int dy);

// Lays out the whole window (w x h pixels) for state st. An error banner is drawn when banner is
// not NULL. Returns false when memory ran out (the scene may be partial).
bool scene_build(Scene *s, const ViewState *st, const Lesson *lesson, const Trace *trace, int w,
                 int h, const TextMetrics *tm, const char *banner);
// What the window shows beyond the lesson and its trace (every field may be NULL).
// The all-heads grid draws at most SCENE_GRID_MAX_CELLS cells (15 heads of 512 x 512 took
// 1 GB and 28 s as a PNG, and as many commands every frame in the window): every stride-th query
// and key of each head, each drawn over the stride x stride cells it stands for, and a line under
// the grid says so.
#define SCENE_GRID_MAX_CELLS (1024.0 * 1024.0)
// The largest lesson the tiles panel (key B) steps through (beyond it: --json --tiles).
#define SCENE_TILES_MAX_TOKENS TILES_SHEET_MAX_TOKENS
#define SCENE_TILES_MAX_DK TILES_SHEET_MAX_DK

typedef struct {
    const AttnParams *original; // the lesson as in its file: cells of lesson->params that differ
                                // are marked edited
    const Comparison *compare; // the single-head version of lesson->params, for PANEL_COMPARE
    const char *status; // one line saying what the last save, revert or export did
    bool slide; // a slide, not the window: no hints about the mouse or the keys
    const Theme *theme; // NULL: THEME_LIGHT
    const SessionShuffle
        *shuffle; // the lesson with its tokens reordered, for PANEL_SHUFFLE (NULL: not computed)
    // The question on screen (ViewState.quiz, .quiz_phase say where it is): a lesson's or the
    // automatic one.
    const LessonQuestion *question;
    const SessionTrain
        *train; // training on the lesson's task: a strip with the loss curve and the checkpoints
                // under the header while train->active (NULL or inactive: none)
    const int
        *edits; // the count of lesson->params' values that differ from original, when the caller
                // keeps it (session_edit_count); NULL: counted here (every weight compared)
    const TilesSheet *tiles; // PANEL_TILES at the view's step, made once by the caller
                             // (session_tiles); NULL, or made for another step: made here
    const struct CircuitPanel *circuit; // a lesson of layers (panel_circuit.h): the layer on the
                                        // board, PANEL_CIRCUIT (NULL: one layer)
} SceneExtras;

// What one build lays out: the view, the lesson and its trace, what the window shows beyond them,
// the page's size, the fonts' metrics, and the window's error banner; or, for a slide, one part of
// the window at a scale.
typedef struct {
    const ViewState *st;
    const Lesson *lesson;
    const Trace *trace;
    const SceneExtras *ex; // edit marks, the single-head comparison, a status line (NULL: none)
    int w, h; // the page in pixels
    const TextMetrics *tm;
    const char *banner; // the window's error banner (NULL: none)
    ScenePart part; // SCENE_PART_WINDOW (0): the whole window
    // A part's sizes times this (1.0 = as on a 1280x720 window; 0: from w x h); a window's follow
    // w x h.
    double scale;
} SceneRequest;

// scene_build as the request asks: with extras (the theme: light, dark, print, a theme whose bg
// has alpha 0 leaving the page transparent; the slide flag), or one part of the window.
bool scene_build_ex(Scene *s, const SceneRequest *rq);
// The next scene_build_ex of s starts from what the last one measured of the numbers and labels
// (colour ranges, widest numbers, widest labels): only when its lesson and trace are the same,
// unchanged (the window's second build of one frame, made because the pointer's cell moved). A big
// lesson's board costs half as much.
void scene_keep_measures(Scene *s);
// Adds a question on top of the window scene s just built for st (the window's "Quit? … not saved"
// with its answers): msg's first line as the title, the rest below, in a box over the dimmed board.
bool scene_add_confirm(Scene *s, const ViewState *st, const Lesson *lesson, const Trace *trace,
                       const TextMetrics *tm, const char *msg);
// The page a heatmap slide of matrix mat needs at this scale (1: a 1280x720 window's sizes): one
// head's (head >= 0) with every key and number whole, or every head's in a grid (head < 0) close to
// 16:9.
void scene_heatmap_page(const Lesson *lesson, const Trace *trace, MatId mat, int head, double scale,
                        const TextMetrics *tm, int *w, int *h);

// What fits at the floor on the board of a window scene just built for st (the layout audit's
// yardstick): false when the scene has no board (a panel, all heads).
bool scene_audit_fits(const Scene *built, const ViewState *st, const Lesson *lesson,
                      const Trace *trace, const TextMetrics *tm, SceneFits *fits);

// The scale on the slider at pixel column x when (x, y) is on the slider (a stop when within a
// quarter of the slider's height of it; the ends beyond the track); false when it is not.
bool scene_slider_at(const Scene *s, int x, int y, double *scale);
// The stage (its index in the lesson's stages) whose segment of the header's strip is at (x, y);
// false when (x, y) is on none.
bool scene_stage_at(const Scene *s, int x, int y, int *stage_index);

// The training step at pixel column x when (x, y) is on the training strip's curve or its
// checkpoint ticks (clamped to 0 .. the run's steps); false when it is not.
bool scene_train_at(const Scene *s, int x, int y, int *step);

// The topmost hit region under (x, y): fills *cell and *head; false when there is none.
bool scene_hit(const Scene *s, int x, int y, CellRef *cell, int *head);

// The value of one cell of a logical matrix (NAN when out of range). -INFINITY for masked cells.
double scene_cell_value(const Lesson *lesson, const Trace *trace, CellRef c);
// Rows and columns of a logical matrix.
void scene_mat_shape(const Lesson *lesson, MatId mat, int *rows, int *cols);

// How the cell was computed, as up to `max_lines` lines of plain text (UTF-8) written into lines[i]
// (each `cap` bytes). Returns the number of lines.
int scene_explain(const Lesson *lesson, const Trace *trace, CellRef c, char lines[][256],
                  int max_lines);

// "0.6111", "-1.2000", "−∞", "1": the 4-decimal form the seed prints (model_format_value).
void scene_format_value(double v, char *buf, size_t cap);

// The pixel size of the board's numbers in a window h pixels high at zoom 1: 3.9 % of the height,
// so that digits (0.73 of it) are above 2.6 % of the height, the back row's limit.
int scene_number_font(int h);
// The smallest size the board takes to show a matrix whole rather than windowed: digits of 2.6 % of
// h.
int scene_number_floor(int h);

// The caption under a heatmap's cells saying which sequence each axis is: "↓ queries    → keys", or
// for cross-attention "↓ queries: the target    → keys: the source" (brief: "↓ target   → source"),
// since the queries come from the target sentence and the keys from the source. A full-size heatmap
// shows the long form, else the brief one, when its width holds it (the all-heads grid has none).
const char *scene_heat_axes(const Lesson *L, bool brief);

// The window's help (its key overlay) as text, for the page's help dialog: row i's keys (col 0) or
// what they do (col 1), untranslated (TR them); row -1 col 0 its title. NULL past the end.
const char *scene_help_text(int i, int col);

#endif
