// Slide export: heatmap images (one per head, and all heads in a grid) and whole-stage boards as
// PNG (offscreen, SDL's software renderer: export_png.c) and SVG (svg.h), laid out by the scene
// exactly as the window lays them out (export.c). Encoding to memory is separate from the file I/O
// (export_files.c).
#ifndef MHA_EXPORT_H
#define MHA_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "model/view.h"
#include "lesson/lesson.h"
#include "render/colormap.h"
#include "render/export_files.h"
#include "render/scene.h"

enum { EXPORT_PNG = 1, EXPORT_SVG = 2 }; // ExportRequest.formats: a bit set

typedef enum {
    EXPORT_WHAT_HEATMAPS =
        1, // one image per head of a score/weight matrix, plus all heads in a grid
    EXPORT_WHAT_BOARD = 2, // the whole screen of a stage, as the window shows it
    EXPORT_WHAT_ALL = 3,
    // The panels, each a slide as the window shows it (one kind per export), named after the panel:
    EXPORT_WHAT_DECODE = 4, // key G: one slide per generated token (NAME-decode-headH-tokenT)
    EXPORT_WHAT_TILES =
        8, // key B: one slide per tile of block x block (NAME-tiles-blockB-headH-tileK)
    EXPORT_WHAT_COST = 16, // key K: the cost table over the stage's board (NAME-cost)
    EXPORT_WHAT_COMPARE = 32, // key M: one head vs the lesson's heads (NAME-compare)
    EXPORT_WHAT_SHUFFLE =
        64, // key X: the tokens reversed beside the lesson (NAME-shuffle-reversed)
    EXPORT_WHAT_ALL_HEADS = 128, // key A: the all-heads view of the stage (NAME-stageNN-KEY-heads)
    EXPORT_WHAT_CACHE =
        256, // Shift+K: the KV cache's size, MHA, GQA, MQA and a window (NAME-cache-size)
    EXPORT_WHAT_ROTATION =
        512, // W: RoPE as a picture, the last token's pairs turned (NAME-rotation[-headH])
    EXPORT_WHAT_OVERVIEW =
        1024, // Shift+A, --model only: every layer x every head's weights (NAME-overview)
    // One PDF of the lesson for a class (export_handout.c): title, every part of every stage of the
    // head, its questions before their answers, the panels it uses, an answer key
    // (NAME-handout-headH.pdf; NAME-handout-notes-headH.pdf in notes style).
    EXPORT_WHAT_HANDOUT = 2048,
    // U, a lesson of layers: the circuit panel as the request's view shows it (NAME-circuit); the
    // command line trains the lesson first (and the lesson --beside names, its loss over it).
    EXPORT_WHAT_CIRCUIT = 4096,
} ExportWhat;

// The handout's pages: a 16:9 page per screen, or A4 with two boards a page and their explanation.
typedef enum { EXPORT_HANDOUT_SLIDES = 0, EXPORT_HANDOUT_NOTES } ExportHandoutStyle;
#define EXPORT_WHAT_PANELS                                                                         \
    (EXPORT_WHAT_DECODE | EXPORT_WHAT_TILES | EXPORT_WHAT_COST | EXPORT_WHAT_COMPARE               \
     | EXPORT_WHAT_SHUFFLE | EXPORT_WHAT_ALL_HEADS | EXPORT_WHAT_CACHE | EXPORT_WHAT_ROTATION      \
     | EXPORT_WHAT_OVERVIEW | EXPORT_WHAT_CIRCUIT)

#define EXPORT_ALL_STAGES (-1)
#define EXPORT_SCALE_MIN 0.25
#define EXPORT_SCALE_MAX 8.0

typedef struct {
    const char *dir; // where the files go (must exist unless create_dir; its parent must exist)
    bool create_dir; // make dir (one level) when it is missing: the window's exports/
    const char *font_dir; // DejaVuSans.ttf, DejaVuSans-Bold.ttf, DejaVuSansMono.ttf
    const char
        *name; // file name prefix, e.g. "the-cat-sat"; NULL or "": made from the lesson title
    unsigned formats; // EXPORT_PNG | EXPORT_SVG
    ExportWhat what;
    // A Stage or EXPORT_ALL_STAGES. Heatmaps: STAGE_SCORES (raw scores), STAGE_SCALE (scaled),
    // STAGE_MASK (masked scores, causal lessons) or STAGE_SOFTMAX and later (weights); earlier
    // stages have no heatmap (an error for EXPORT_WHAT_HEATMAPS, skipped for EXPORT_WHAT_ALL).
    int stage;
    double scale; // 1.0 = the sizes of a 1280x720 window; 2.0 (the default) for a 1080p slide
    ExportBackground background;
    ColormapId colormap;
    int head; // the head a board shows (0 .. heads - 1; another head is a bad request)
    // The cell a board pins (row, column from 0; -1: the stage's first result cell): in the first
    // result matrix of the stage that has it. A single stage without it is a bad request; with
    // EXPORT_ALL_STAGES the stages without it pin their first cell. A board whose cell was asked
    // for names it.
    int cell_row, cell_col;
    // Boards of a stage shown in parts (Q, then K, then V; the output, then Δ without switched-off
    // heads): false, its first part as NAME (one file per stage); true, one slide per part,
    // NAME-part1, NAME-part2 …
    bool parts;
    // A board from the view (export_from_view; Shift+E): the handout of its head (every stage,
    // slides style: NAME-handout-headH.pdf) beside its slides, in the same write, all or nothing.
    // Ignored where no PDF writer is built in (the board alone).
    bool with_handout;
    int block; // EXPORT_WHAT_TILES: the tiles' block size (1 .. n; 0: the window's default)
    ExportHandoutStyle handout_style; // EXPORT_WHAT_HANDOUT (formats and scale do not apply)
    // What the window shows beyond the lesson (edit marks against the file, the single-head
    // comparison), for boards; NULL: nothing. Its status line and hints never reach a slide.
    const SceneExtras *view;
    // Called from the thread running the export after each file is made (done of total files), and
    // once with done 0 before the first; returning false stops the export (nothing is written, err
    // says "stopped"). NULL: none (the window's worker shows its progress through it).
    bool (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    // EXPORT_WHAT_HANDOUT without a PDF (the page prints it): each page of the handout in order as
    // an SVG document (svg, size bytes; page from 1, label as the PDF's page label), no file
    // written; returning false stops. NULL: the PDF.
    bool (*handout_page)(void *ctx, int page, const char *label, const char *svg, size_t size);
    void *handout_page_ctx;
} ExportRequest;

// The request the command line starts from: heatmaps of the weights, PNG, scale 2, white, viridis,
// head 0, the first cell.
void export_request_defaults(ExportRequest *r);

// The files an export wrote, in the order they were made (paths as dir/name).
typedef struct {
    char **paths;
    size_t count;
    // The first character no font on this computer shows, as a sentence to print ("no font on this
    // computer shows 猫 (U+732B) — install a CJK font such as fonts-noto-cjk"); "" when every
    // character had a font.
    char missing[256];
} ExportResult;
void export_result_free(ExportResult *r);

// Makes every image the request asks for, then writes them (see export_write_files). On failure
// nothing new is left in the directory and *out is empty. Free *out with export_result_free.
bool export_run(const ExportRequest *req, const Lesson *lesson, const Trace *trace,
                ExportResult *out, ExportError *err);

// The window's E and Shift+E. board false: the heatmap of what is on screen (the current head's, or
// the all-heads grid in that view) for the stage shown (weights before the scores exist); board
// true: the whole screen of the current stage as it is (hover, pinned cell, sub-step and colormap
// included, no help overlay, no hints about the mouse or keys), or of the panel open (G, B, K, M,
// X), named after the panel. req gives dir, create_dir, font_dir, name, formats, scale, background
// and view; what, stage, head and colormap come from st. lesson and trace are what the window shows
// (with its edits). The first path of *out is the one to show. File names sort in lesson order:
// NAME-stageNN-KEY-heatmap-headH and NAME-stageNN-KEY-heatmap-heads for heatmaps (NN: the first
// stage showing it; KEY: the matrix's key, "weights"), and NAME-stageNN-KEY-headH for boards (KEY:
// the stage's key; "-heads" in the all-heads view; no head part when the lesson has one head)
// followed by the pinned cell, "-weights-row1-col2", when one is pinned, so that nothing overwrites
// a different picture. A panel's board is named after the panel: NAME-decode-headH-tokenT,
// NAME-tiles-blockB- headH-tileK, NAME-cost, NAME-compare, NAME-shuffle-reversed or
// NAME-shuffle-swap-I-J (no head part in a one-head lesson; T and K from 1, as the panel counts
// them).
bool export_from_view(const ExportRequest *req, bool board, const ViewState *st,
                      const Lesson *lesson, const Trace *trace, ExportResult *out,
                      ExportError *err);

// "exports" beside the lesson file (path NULL: in the working directory). Returns out.
char *export_default_dir(const char *lesson_path, char *out, size_t cap);
// The file name prefix: the lesson file's name without ".json" as a slug
// ("lessons/the-cat-sat.json" -> "the-cat-sat"), or the title's slug for the built-in lesson (path
// NULL); a lesson of layers' layer L > 0 adds "-layerL" ("induction-heads-layer1"). Returns out.
char *export_name_for(const char *lesson_path, const Lesson *lesson, char *out, size_t cap);

// ---------------------------------------------------------------------------------------------------
// Lower layers, for the window and the tests

// Letters (any script's, as UTF-8; ASCII and Latin-1 capitals in lower case) and digits joined by
// '-' (at most 60 bytes, never half a letter): "The cat sat" -> "the-cat-sat", "Leçon 1" ->
// "leçon-1". "lesson" when nothing is left.
void export_slug(const char *title, char *out, size_t cap);

// What a heatmap image shows.
typedef struct {
    MatId mat; // MAT_SCORES, MAT_SCALED, MAT_MASKED or MAT_WEIGHTS
    int head; // the head, or -1 for all heads in a grid
    double scale;
    ColormapId colormap;
    ExportBackground background;
} HeatmapSpec;

// The heatmap matrix a stage shows (MAT_NONE before the scores) and its file-name word ("weights"
// ...).
MatId export_stage_matrix(Stage stage, const Lesson *lesson);
const char *export_matrix_key(MatId mat);

// One heatmap of a strip: a lesson, its trace and the caption above it (e.g. "step 40").
typedef struct {
    const Lesson *lesson;
    const Trace *trace;
    const char *caption;
} StripFrame;

// Lays out a heatmap image with the scene (scene_build_ex: SCENE_PART_HEATMAP for one head,
// SCENE_PART_ALL_HEADS for head -1), as the window draws it: a title, every token labelled, the
// numbers at the board's size when they fit the cells, a colour bar. The page size follows from the
// lesson (its sizes, tokens and widest number) and the scale (s->width, s->height); a scale of 2
// gives exactly twice the size of scale 1. Each cell is a CMD_RECT tagged ROLE_CELL with its cell,
// under a HitRegion (head, row, col). Returns false when memory ran out, or the lesson has no stage
// showing spec->mat or no such head.
bool export_build_heatmap(Scene *s, const HeatmapSpec *spec, const Lesson *lesson,
                          const Trace *trace, const TextMetrics *tm);

// A film strip to make: the frames in order, what each heatmap shows, the folder (made, one level,
// when create_dir), the fonts' folder and the file's name without ".png".
typedef struct {
    const StripFrame *frames;
    size_t count;
    HeatmapSpec spec;
    const char *dir, *font_dir, *name;
    bool create_dir;
} StripRequest;

// A film strip: the heatmap rq->spec shows of each frame, side by side in order, each under its
// caption, as one PNG "DIR/NAME.png" (written all or nothing, never over a file that is not ours).
// path (cap bytes) gets the file's path. False with err filled on failure.
bool export_heatmap_strip(const StripRequest *rq, char *path, size_t cap, ExportError *err);

// The window's screen for state st (its stage and head) at 1280x720 times scale, laid out with the
// theme of the background. Returns false when memory ran out.
bool export_build_board(Scene *s, const ViewState *st, const Lesson *lesson, const Trace *trace,
                        double scale, ExportBackground background, const TextMetrics *tm);

#endif
