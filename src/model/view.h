// The viewer's state machine: which stage, head, view, zoom, hover and sub-step are shown.
// Input arrives as a small ViewEvent (not SDL events) so every key is testable without a window. No
// SDL here.
#ifndef MHA_VIEW_H
#define MHA_VIEW_H

#include <stdbool.h>
#include "core/trace.h"
#include "hf/layer_stream.h"
#include "model/colormap_id.h"
#include "model/matrices.h"
#include "model/stages.h"

// Keys the viewer reacts to, independent of any window system: one for each KEY row of
// src/model/keys.def (what each does, its help line and its key code are there).
typedef enum {
    VIEW_KEY_NONE = 0,
#define KEY_HELP(keys, text)
#define KEY(name, mods, action, code) VIEW_KEY_##name,
#define KEY_ALSO(name, code)
#include "model/keys.def"
} ViewKey;

// The help overlay's lines (keys.def's KEY_HELP rows in this build; the page's differ in a few).
enum {
    VIEW_HELP_ROWS = 0
#define KEY_HELP(keys, text) +1
#define KEY(name, mods, action, code)
#define KEY_ALSO(name, code)
#include "model/keys.def"
};

enum { VIEW_MOD_SHIFT = 1, VIEW_MOD_CTRL = 2 };

typedef enum { VIEW_ONE_HEAD = 0, VIEW_ALL_HEADS } ViewMode;

// What the window shows on top of (or instead of) the stage.
typedef enum {
    PANEL_NONE = 0,
    PANEL_COST, // the cost figures for h = 1 and the lesson's h (an overlay, key K)
    PANEL_COMPARE, // one head of h·d_k beside the h heads: patterns and outputs (key M)
    PANEL_SHUFFLE, // the lesson with its tokens reordered beside the original: the outputs (key X)
    PANEL_DECODE, // generation with a KV cache: token decode_t's query over the cache, the work
                  // saved (key G)
    PANEL_TILES, // FlashAttention: tile `tile` of tiles_block x tiles_block, the running m, l, O
                 // (key B)
    PANEL_CACHE, // the KV cache's size: MHA, GQA, MQA and a window, published shapes and the lesson
                 // (Shift+K)
    PANEL_ROPE, // RoPE as a picture: token rope_t's query pairs turned, the frequencies, a moved
                // pair (key W)
    PANEL_OVERVIEW, // a checkpoint's every layer x every head: small attention patterns (Shift+A,
                    // --model only)
    PANEL_CIRCUIT, // a lesson of layers: training's curves, both layers' patterns, each head
                   // switched off, the K-composition (key U)
} ViewPanel;

// Something the state machine asks its owner to do with the lesson (it holds no parameters itself).
typedef enum {
    VIEW_REQ_NONE = 0,
    VIEW_REQ_EDIT, // add ViewState.request_delta to the pinned cell's value
    VIEW_REQ_REVERT, // back to the values in the file
    VIEW_REQ_SAVE, // save the edited lesson beside the original
    VIEW_REQ_EXPORT, // export the heatmap of the view as slides (PNG and SVG)
    VIEW_REQ_EXPORT_BOARD, // export the whole board of the current stage as slides
    VIEW_REQ_EXPORT_HANDOUT, // export the lesson's handout (one PDF) for the head shown
    VIEW_REQ_ANSWER, // judge the response to the question (quiz_cell / quiz_value / quiz_choice):
                     // view_quiz_judged
    VIEW_REQ_AUTO_QUESTION, // make an automatic question (from quiz_auto_count) and view_quiz_ask
                            // it
    VIEW_REQ_ABLATE, // switch head ViewState.head off, or on again
    VIEW_REQ_SCALE, // move the softmax scale request_delta steps (view_scale_step)
    VIEW_REQ_SCALE_SET, // set the softmax scale to request_delta (from the slider)
    VIEW_REQ_TRAIN, // T: start, pause or resume training
    VIEW_REQ_TRAIN_SHOW, // J / L: the checkpoint request_delta (-1 / +1) away
    VIEW_REQ_TRAIN_RESET, // Z: back to step 0
    VIEW_REQ_TRAIN_EXPORT, // V: the checkpoints' heatmaps as slides
    VIEW_REQ_TRAIN_SEEK, // the checkpoint nearest to step request_delta (a press or drag on the
                         // strip)
    VIEW_REQ_QUIT_HINT, // Esc with nothing open to close: say how to quit (Esc never quits)
    VIEW_REQ_ROPE_SHIFT, // S: every position shifted to the next stop (request_delta +1) or back
                         // (-1)
    VIEW_REQ_LAYER, // a lesson of layers: the layer request_delta (+1 / -1) away on the board; the
                    // walk (→ past the last stage, ← before the first) asks it with
                    // request_walk: the owner then shows that layer's first (last) stage
} ViewRequest;

// Predict, then reveal: a question on screen goes from asked (its result hidden) to judged and
// revealed.
typedef enum { QUIZ_NONE = 0, QUIZ_ASKING, QUIZ_JUDGING, QUIZ_REVEALED } QuizPhase;

// How the class answers a question (a column of the answer kinds' table, model/questions.c).
typedef enum {
    QUIZ_CLICK = 0, // a click on a cell of the matrix asked about
    QUIZ_TYPE, // a number typed (digits, '.', '-', Backspace), then Enter
    QUIZ_KEYS, // a key 1 .. choices
} QuizInput;

// What the state machine needs to know of a question (the rest is the model's: model/questions.h).
typedef struct {
    Stage stage;
    int head;
    QuizInput input;
    MatId
        mat; // the matrix asked about: QUIZ_CLICK takes a click on one of its cells (of this head)
    int choices; // QUIZ_KEYS: how many (keys 1..choices)
} ViewQuestion;

#define VIEW_MAX_QUESTIONS LESSON_MAX_QUESTIONS
#define VIEW_QUIZ_AUTO (-2) // ViewState.quiz: the automatic question (key P)

// Value steps of an edit: arrow keys and wheel notches, with Shift for fine steps; a drag per
// pixel.
#define VIEW_EDIT_STEP 0.1
#define VIEW_EDIT_FINE 0.01
#define VIEW_EDIT_DRAG 0.01

typedef enum {
    VIEW_EV_KEY, // key, mods, digit
    VIEW_EV_HOVER, // cell under the pointer (mat == MAT_NONE when none); the backend does the hit
                   // test
    VIEW_EV_CLICK, // cell clicked: pins (or unpins) its explanation; a click on a head in the grid
                   // selects it
    VIEW_EV_WHEEL, // wheel > 0: zoom in (with VIEW_MOD_CTRL) or next stage
    VIEW_EV_RESIZE, // x, y = new size in pixels
    VIEW_EV_DRAG, // the pointer moved y pixels (down > 0) with the button held after a click on the
                  // pinned cell
    VIEW_EV_PAN, // the pointer moved (x, y) pixels with the button held on no cell: a zoomed board
                 // follows it
    VIEW_EV_SCALE, // the scale slider pressed or dragged: value = the scale at the pointer
    VIEW_EV_TRAIN_SEEK, // the training strip pressed or dragged: value = the step under the pointer
    VIEW_EV_STAGE, // a stage's segment of the header's strip pressed: value = its index (the
                   // current one: its next sub-step, else back to its first)
} ViewEventKind;

typedef struct {
    ViewEventKind kind;
    ViewKey key;
    unsigned mods;
    int digit; // VIEW_KEY_DIGIT: 1..9
    CellRef cell; // HOVER, CLICK
    int head; // CLICK in the all-heads grid: the head clicked (-1 otherwise)
    int wheel;
    int x, y; // RESIZE; DRAG: y = pixels moved
    double
        value; // SCALE: the softmax scale asked for; TRAIN_SEEK: the step; STAGE: the stage's index
} ViewEvent;

// Sizes of the lesson, all the state machine needs from it.
typedef struct {
    int n, m, d_model, heads, d_k;
    bool causal;
    bool positions; // the lesson adds positions: the Positions stage (E + P = X) is shown
    bool rope; // the lesson turns Q and K (RoPE): the Rotation stage is shown
    const LayerStream
        *stream; // a checkpoint's layer: the norm, residual and next-token stages (NULL: none)
    int layers, layer; // a lesson of layers: how many (0 or 1: one) and the one on the board
} ViewDims;

#define VIEW_ZOOM_MIN 0.5
#define VIEW_ZOOM_MAX 4.0
#define VIEW_PAN_STEP                                                                              \
    0.2 // arrows move a zoomed board by this fraction of what lies outside the window

// ViewState.substep asked for as "the part that shows the stage's result i" (VIEW_SUBSTEP_RESULT +
// i): a stage of several equations may show each in several parts (inputs, then "= result"), each
// alike.
#define VIEW_SUBSTEP_RESULT 2000
#define VIEW_PARTS_MAX 64 // as SCENE_PARTS_MAX

typedef struct {
    ViewDims dims;
    Stage stages[STAGE_COUNT]; // the stages of this lesson, in order (STAGE_MASK only when causal)
    int stage_count;
    int stage_index; // into stages
    int head;
    ViewMode view;
    double zoom; // 1.0 = fit; +/- steps of 1.25: the board itself grows, the window pans over it
    double pan_x,
        pan_y; // where a zoomed board is seen: 0 = left/top edge .. 1 = right/bottom (0.5 centred)
    bool pan_follow; // a zoomed board is seen around its framed result (+ and - set it, a pan ends
                     // it; the scene reports the pan it took, view_set_pan_used)
    int substep; // the part shown when the stage shows its equations in parts (0 when it shows
                 // all); VIEW_SUBSTEP_RESULT + i until the scene has found the part of result i
    int substep_count; // how many the last frame had (the scene decides; the owner reports it back)
    bool part_map; // part_result below holds the scene's map of the parts (view_set_parts)
    MatId part_result[VIEW_PARTS_MAX]; // ... the result each part shows (MAT_NONE: inputs only)
    int pan_span_x, pan_span_y; // pixels of a zoomed board outside the window in the last frame
                                // (pan 0..1 spans it)
    bool notes; // the lesson's notes shown (key N)
    int notes_page; // ... their page (N turns to the next while there is one, then hides them)
    bool notes_more; // the scene's word: a page follows the one shown (view_set_notes_more)
    bool dark; // the dark theme (key D); the greyscale colour map prints on the print theme
    ColormapId colormap;
    bool help; // key overlay shown
    int help_page; // its page (the scene wraps it to the pages there are: any integer)
    bool fullscreen;
    bool quit; // Q: the owner quits (asking first when edits would be lost)
    int reveal; // -1: the whole result; else how many result cells are filled
    CellRef hover; // under the pointer
    CellRef pinned; // clicked; wins over hover
    int width, height; // window size in pixels
    ViewPanel panel;
    ViewRequest request; // set by view_handle, carried out and cleared (VIEW_REQ_NONE) by the owner
    double request_delta; // VIEW_REQ_EDIT: how much to add
    bool request_walk; // VIEW_REQ_LAYER: asked by the walk (the next layer from its first stage)
    // Questions: the lesson's (asked when their stage is reached, once each until answered or
    // skipped)
    ViewQuestion questions[VIEW_MAX_QUESTIONS];
    int question_count;
    bool question_done[VIEW_MAX_QUESTIONS];
    bool question_skipped[VIEW_MAX_QUESTIONS]; // ... skipped: asked again once the walk goes back
                                               // before it (or Home) and comes forward again
    int walk_head; // a question moved the board to its head from this one (-1: none): the next →
                   // comes back to it
    int walk_part; // ... at this part of the stage (the one the question stood in front of)
    int walk_parts; // ... of this many (the class's head's parts: another head's may differ)
    bool walk_settle; // a stage reached going forward: view_walk_settle asks a question due there
    int quiz; // the question on screen: an index into questions, VIEW_QUIZ_AUTO, or -1
    ViewQuestion quiz_q; // ... and what it is
    QuizPhase quiz_phase;
    char quiz_input[24]; // "value": the number typed so far
    CellRef quiz_cell; // the response: the cell clicked ("cell"),
    double quiz_value; // the number typed ("value"),
    int quiz_choice; // the choice pressed, from 0 ("choice")
    bool quiz_right; // QUIZ_REVEALED: the verdict
    unsigned quiz_auto_count; // automatic questions asked so far: the next one's counter
    int shuffle; // the reordering the shuffle panel shows (view_shuffle_perm), from 0
    int decode_t; // the decode panel: the token generated (0 .. n-1)
    int decode_part; // ... the part of its step shown, from 0 (q·K then A·V where both do not fit
                     // at once)
    int decode_parts; // ... of how many (the scene reports it back: view_set_decode_parts)
    int pair_part; // the panels of two outputs (M, X): the part shown, from 0 (the patterns, then
                   // the two outputs whole on a screen of their own where they do not fit beside,
                   // or each output alone where even that is too small)
    int pair_parts; // ... of how many (the scene reports it back: view_set_pair_parts)
    int tile; // the tiles panel: the tiles computed so far, from 1 (the mask's skipped not counted)
    int tile_count; // ... of how many (the scene reports it back: view_set_tiles)
    int tiles_block; // ... in blocks of this many queries and keys (1 .. n; default 2)
    int rope_t; // the rotation panel: the token whose query pairs turn (0 .. n-1; opened at the
                // token of the cell pointed at, else the last)
} ViewState;

// Sets a fresh state for a lesson of these sizes: first stage, head 0, one-head view, zoom 1,
// viridis.
void view_init(ViewState *s, const ViewDims *dims);
// A lesson (re)loaded: keeps stage (by kind when possible), head, view, zoom and colormap where
// they still fit.
void view_set_dims(ViewState *s, const ViewDims *dims);
ViewDims view_dims_from_params(const AttnParams *p);
// Another layer of a lesson of layers on the board (dims its sizes, dims->layer it): dir 0 keeps
// the stage where the layer has it (Y); +1 starts at its first stage, -1 at its last stage's last
// part (the walk: → past the end of a layer, ← before its start).
void view_enter_layer(ViewState *s, const ViewDims *dims, int dir);

// The owner reports what the last frame showed: the stage's sub-steps and the one shown (clamped).
void view_set_substeps(ViewState *s, int count, int shown);
// ... with the result each part shows (count of them; MAT_NONE: the part shows inputs only): the
// reveal, the questions and "the part of result i" follow this map instead of assuming equal parts
// per result.
void view_set_parts(ViewState *s, int count, int shown, const MatId *part_result);
// ... then, once the parts are known, asks the question due on a stage just reached (→ shows the
// parts of the class's head in order and asks each question before the part that shows its
// result: model/view_walk.c). Returns true when it asked one: the owner builds the scene again.
bool view_walk_settle(ViewState *s);
// ... whether the notes shown have another page (N turns to it instead of hiding them).
void view_set_notes_more(ViewState *s, bool more);
// ... and how far a zoomed board reaches beyond the window, in pixels (for panning with the
// pointer).
void view_set_pan_span(ViewState *s, int span_x, int span_y);
// ... and the pan it drew a zoomed board at while following its result (kept, so that an arrow
// or a drag moves on from what the class sees).
void view_set_pan_used(ViewState *s, double pan_x, double pan_y);

// The owner reports how many tiles the tiles panel computes for the current head and block (clamps
// tile).
void view_set_tiles(ViewState *s, int count);
// ... and in how many parts the decode panel shows the current token's step (clamps decode_part).
void view_set_decode_parts(ViewState *s, int count);
// ... and in how many parts the compare or shuffle panel shows its outputs (clamps pair_part).
void view_set_pair_parts(ViewState *s, int count);

// Applies one event. Returns true when something visible changed (the caller redraws then).
bool view_handle(ViewState *s, const ViewEvent *ev);

// The help overlay's line `row` (0 .. VIEW_HELP_ROWS - 1, keys.def's order): its keys (col 0) or
// what they do (col 1), untranslated (N_: TR it where it is drawn). NULL past the end.
const char *view_help_text(int row, int col);

Stage view_stage(const ViewState *s);
// Cells the current stage fills, in reveal order (0 for the input stage).
int view_reveal_total(const ViewState *s);
// The result cell at position k of the reveal order (k < view_reveal_total).
CellRef view_reveal_cell(const ViewState *s, int k);
// True when the result cell is already filled (always true when not revealing).
bool view_cell_revealed(const ViewState *s, CellRef c);
// The cell whose arithmetic is explained: pinned, else hovered, else the last revealed cell.
CellRef view_focus_cell(const ViewState *s);

// The lesson's questions (count at most VIEW_MAX_QUESTIONS; more are ignored): none asked or
// answered yet.
void view_set_questions(ViewState *s, const ViewQuestion *qs, int count);
// Asks question q (index: into the lesson's questions, or VIEW_QUIZ_AUTO): its stage and head on
// screen, one head, the result hidden until the class answers.
void view_quiz_ask(ViewState *s, const ViewQuestion *q, int index);
// The owner judged the response (VIEW_REQ_ANSWER): marks it right or wrong, pins `answer` (its
// arithmetic shows) and fills the result cell by cell through `through` ('.' goes on from there).
void view_quiz_judged(ViewState *s, bool right, CellRef answer, CellRef through);
// Reordering number k of n tokens into perm[0..n): 0 reverses them; then each swap of two tokens
// (i, j), i < j, in order (k = 1: tokens 0 and 1 ...), then around again. Token i of the shuffled
// lesson is token perm[i].
void view_shuffle_perm(int k, int n, int *perm);
// How many reorderings view_shuffle_perm has for n tokens (1 + n(n-1)/2; 1 for one token).
int view_shuffle_count(int n);

// The softmax scale a step of the slider away: dir steps of 2^(1/4) (fine: 2^(1/16)) up or down,
// from 1/(4 d_k) to 4, landing on each stop it would pass over (1/d_k, 1/sqrt(d_k) and 1) instead
// of jumping it.
double view_scale_step(double scale, int d_k, double dir, bool fine);
#define VIEW_SCALE_MAX 4.0
// The slider's ends for a head size: 1/(4 d_k) and VIEW_SCALE_MAX.
double view_scale_min(int d_k);
// The scale's stops for a head size, from the smallest: 1/d_k, 1/sqrt(d_k) (the default) and 1 (the
// same stop three times when d_k = 1). The keys land on them, the slider marks them.
#define VIEW_SCALE_STOPS 3
void view_scale_stops(int d_k, double stops[VIEW_SCALE_STOPS]);

// Live editing. The editable cells are the embeddings (X, and S for cross-attention) and the
// weights W_Q, W_K, W_V of each head and W_O.
bool view_mat_editable(MatId m);
// The parameter that cell c of p stands for (NULL when c is not editable or out of range).
double *view_param_ref(AttnParams *p, CellRef c);
// Sets cell c of p to v; for self-attention an edit of X is made to S too (S is X's copy).
// Returns false (p unchanged) when c is not editable or v is not finite.
bool view_param_set(AttnParams *p, CellRef c, double v);
// True when cell c of cur differs (in any bit) from the same cell of orig.
bool view_param_edited(const AttnParams *orig, const AttnParams *cur, CellRef c);
// How many editable values of cur differ from orig.
int view_param_edit_count(const AttnParams *orig, const AttnParams *cur);

#endif
