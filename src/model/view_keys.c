// What each key does in the view: one small function per key (or the request it hands the session),
// the table from key to action that view_handle dispatches through and the help's lines, both made
// from src/model/keys.def (where the keys' codes and help text are). Which keys a help page, a
// panel or a question takes first is view_events.c's.
#include "model/view_keys.h"
#include "model/i18n.h"
#include "model/view_moves.h"

#include <string.h>

// S alone (RoPE lessons): every position one stop further (Shift: back), shown where it shows: at
// the rotate stage, unless the scores stage (which shows the shifted scores too) is on screen.
static bool rope_shift_key(ViewState *s, bool back)
{
    if (!s->dims.rope || s->panel != PANEL_NONE || s->quiz_phase == QUIZ_ASKING
        || s->quiz_phase == QUIZ_JUDGING)
        return false; // a question first: it asks about the lesson's own positions
    s->request = VIEW_REQ_ROPE_SHIFT;
    s->request_delta = back ? -1.0 : 1.0;
    Stage at = view_stage(s);
    if (at != STAGE_ROTATE && at != STAGE_SCORES)
        for (int i = 0; i < s->stage_count; i++)
            if (s->stages[i] == STAGE_ROTATE) view_go_stage(s, i);
    // The part that shows what the shift changes: the turned queries, or at the scores the shifted
    // scores (their second row; with the shift back at 0 the scene takes the last there is, the
    // scores).
    s->substep = VIEW_SUBSTEP_RESULT + (view_stage(s) == STAGE_SCORES ? 1 : 0);
    return true;
}

// --- what each key does: one small function per key (or a request the session carries out) ---
// keys.def's ACT(function) names them. shift: Shift is held (finer steps, the other direction, the
// other panel), when the key's row says its action reads Shift.

static bool key_up(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev;
    double step = shift ? VIEW_EDIT_FINE : VIEW_EDIT_STEP;
    return view_request_edit(s, step) || view_pan(s, 0.0, -VIEW_PAN_STEP)
           || (s->zoom <= 1.0 && view_step_stage(s, -1));
}

static bool key_down(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev;
    double step = shift ? VIEW_EDIT_FINE : VIEW_EDIT_STEP;
    return view_request_edit(s, -step) || view_pan(s, 0.0, VIEW_PAN_STEP)
           || (s->zoom <= 1.0 && view_step_stage(s, 1));
}

// The notes, page by page, then hidden.
static bool key_notes(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    if (s->notes && s->notes_more) {
        s->notes_page++;
        s->notes_more = false;
    } else {
        s->notes = !s->notes;
        s->notes_page = 0;
    }
    return true;
}

// A switch turned over; the key did something.
static bool toggle(bool *on)
{
    *on = !*on;
    return true;
}

static bool key_dark(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return toggle(&s->dark);
}

static bool key_cost(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev;
    if (shift) s->panel = s->panel == PANEL_CACHE ? PANEL_NONE : PANEL_CACHE; // the KV cache's size
    else s->panel = s->panel == PANEL_COST ? PANEL_NONE : PANEL_COST;
    return true;
}

static bool key_compare(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    s->panel = s->panel == PANEL_COMPARE ? PANEL_NONE : PANEL_COMPARE;
    s->pair_part = 0; // opened on the patterns
    memset(&s->hover, 0, sizeof s->hover);
    return true;
}

static bool key_s(ViewState *s, const ViewEvent *ev, bool shift) // S: RoPE's shift; Ctrl+S: save
{
    if (!(ev->mods & VIEW_MOD_CTRL)) return rope_shift_key(s, shift);
    s->request = VIEW_REQ_SAVE;
    return true;
}

static bool key_export(ViewState *s, const ViewEvent *ev, bool shift) // E, Shift+E, Ctrl+E
{
    s->request = ev->mods & VIEW_MOD_CTRL ? VIEW_REQ_EXPORT_HANDOUT
                 : shift                  ? VIEW_REQ_EXPORT_BOARD
                                          : VIEW_REQ_EXPORT;
    return true;
}

static bool key_right(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return s->zoom > 1.0 ? view_pan(s, VIEW_PAN_STEP, 0.0) : view_step_stage(s, 1);
}

static bool key_left(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return s->zoom > 1.0 ? view_pan(s, -VIEW_PAN_STEP, 0.0) : view_step_stage(s, -1);
}

static bool key_next(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return view_step_stage(s, 1);
}
static bool key_back(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return view_step_stage(s, -1);
}
static bool key_home(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return view_go_stage(s, 0);
}
static bool key_end(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return view_go_stage(s, s->stage_count - 1);
}
static bool key_part_next(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return view_sub_step(s, +1);
}
static bool key_part_back(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return view_sub_step(s, -1);
}

static bool key_digit(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)shift;
    bool changed = view_set_head(s, ev->digit - 1);
    if (ev->digit >= 1 && ev->digit <= s->dims.heads && s->view != VIEW_ONE_HEAD) {
        s->view = VIEW_ONE_HEAD;
        changed = true;
    }
    return changed;
}

static bool key_tab(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev;
    int h = s->dims.heads;
    if (h <= 1) return false;
    return view_set_head(s, (s->head + (shift ? h - 1 : 1)) % h);
}

// What the board shows changed: the cell pointed at and the pinned one are let go. Returns true
// (the key did something).
static bool let_go(ViewState *s)
{
    memset(&s->hover, 0, sizeof s->hover);
    memset(&s->pinned, 0, sizeof s->pinned);
    return true;
}

// A: all heads at once / one head; Shift+A: a checkpoint's every layer x every head (nothing for a
// lesson).
static bool key_all_heads(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev;
    if (shift) {
        if (!s->dims.stream) return false;
        s->panel = s->panel == PANEL_OVERVIEW ? PANEL_NONE : PANEL_OVERVIEW;
        return true;
    }
    s->view = s->view == VIEW_ALL_HEADS ? VIEW_ONE_HEAD : VIEW_ALL_HEADS;
    return let_go(s);
}

static bool key_fullscreen(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return toggle(&s->fullscreen);
}

static bool key_zoom_in(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return view_set_zoom(s, s->zoom * 1.25);
}
static bool key_zoom_out(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    return view_set_zoom(s, s->zoom / 1.25);
}
static bool key_zoom_reset(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    s->pan_x = s->pan_y = 0.5;
    return view_set_zoom(s, 1.0) || true;
}

static bool key_help(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    s->help = !s->help;
    s->help_page = 0;
    return true;
}

static bool key_auto_question(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    if (s->dims.n < 1 || s->stage_count < 1) return false;
    s->quiz_auto_count++;
    s->request = VIEW_REQ_AUTO_QUESTION;
    return true;
}

// Closes one thing per press and never quits.
static bool key_escape(ViewState *s, const ViewEvent *ev, bool shift)
{ // (a class would lose its place)
    (void)ev, (void)shift;
    if (s->help) s->help = false;
    else if (s->quiz_phase == QUIZ_REVEALED) view_quiz_close(s); // the verdict first
    else if (s->panel != PANEL_NONE) s->panel = PANEL_NONE;
    else if (s->pinned.mat != MAT_NONE) memset(&s->pinned, 0, sizeof s->pinned);
    else if (s->zoom != 1.0) s->pan_x = s->pan_y = 0.5, s->zoom = 1.0, s->pan_follow = true;
    else s->request = VIEW_REQ_QUIT_HINT;
    return true;
}

static bool key_quit(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    s->quit = true;
    return true;
}

static bool key_colormap(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    s->colormap = (ColormapId)((s->colormap + 1) % COLORMAP_COUNT);
    return true;
}

// J, L: the training's checkpoints.
static bool key_checkpoint(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)shift;
    s->request = VIEW_REQ_TRAIN_SHOW;
    s->request_delta = ev->key == VIEW_KEY_L ? 1.0 : -1.0;
    return true;
}

static bool key_scale(ViewState *s, const ViewEvent *ev, bool shift) // [ and ]: the softmax scale
{
    s->request = VIEW_REQ_SCALE;
    s->request_delta = (ev->key == VIEW_KEY_RIGHTBRACKET ? 1.0 : -1.0) * (shift ? 0.25 : 1.0);
    return true;
}

// Y / Shift+Y: the next / previous layer of a lesson of layers (the owner shows it).
static bool key_layer(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev;
    int to = s->dims.layer + (shift ? -1 : 1);
    if (s->dims.layers < 2 || to < 0 || to >= s->dims.layers) return false;
    s->request = VIEW_REQ_LAYER;
    s->request_delta = shift ? -1 : 1;
    s->request_walk = false;
    return true;
}

// Opens the panel want, or closes it when it is open (let_go).
static bool toggle_panel(ViewState *s, ViewPanel want)
{
    s->panel = s->panel == want ? PANEL_NONE : want;
    return let_go(s);
}

// U: the circuit panel of a lesson of layers, or back to the board.
static bool key_circuit_panel(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    if (s->dims.layers < 2) return false;
    return toggle_panel(s, PANEL_CIRCUIT);
}

// G: decoding, B: the tiles.
static bool key_stepping_panel(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)shift;
    return toggle_panel(s, ev->key == VIEW_KEY_G ? PANEL_DECODE : PANEL_TILES);
}

static bool key_shuffle(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev;
    if (shift) { // the next reordering (opening the panel if it is closed)
        if (s->panel == PANEL_SHUFFLE)
            s->shuffle = (s->shuffle + 1) % view_shuffle_count(s->dims.n);
        s->panel = PANEL_SHUFFLE;
    } else {
        s->panel = s->panel == PANEL_SHUFFLE ? PANEL_NONE : PANEL_SHUFFLE;
        s->pair_part = 0; // opened on its first part
    }
    memset(&s->hover, 0, sizeof s->hover);
    return true;
}

// W (RoPE lessons): the rotation panel, at the token of the cell pointed at when its rows are the
// queries (or the keys, which sit at the same positions in self-attention), else at the last token;
// W again closes it.
static bool key_rope_panel(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    if (!s->dims.rope) return false;
    if (s->panel == PANEL_ROPE) {
        s->panel = PANEL_NONE;
        return true;
    }
    CellRef at = view_focus_cell(s);
    const MatInfo *mi = at.mat != MAT_NONE ? mat_info(at.mat) : NULL;
    int token = s->dims.n - 1;
    if (mi && (mi->row_axis == AXIS_QUERY || mi->row_axis == AXIS_KEY) && at.row < s->dims.n)
        token = at.row;
    else if (mi && (mi->col_axis == AXIS_QUERY || mi->col_axis == AXIS_KEY) && at.col < s->dims.n)
        token = at.col;
    s->rope_t = token > 0 ? token : 0;
    s->panel = PANEL_ROPE;
    memset(&s->hover, 0, sizeof s->hover);
    return true;
}

// A KEY row of keys.def: its handler, or (act NULL) the request it hands the session (none: a
// question's key, which view_events.c takes).
typedef struct {
    ViewKey key;
    unsigned mods; // the modifiers (VIEW_MOD_*) the action reads
    bool (*act)(ViewState *s, const ViewEvent *ev, bool shift);
    ViewRequest request;
} KeyAction;

static const KeyAction KEY_ACTIONS[] = {
#define ACT(function) .act = function
#define REQ(name) .request = VIEW_REQ_##name
#define NO_ACT .act = NULL
#define KEY_HELP(keys, text)
#define KEY(name, mods_read, action, code) {.key = VIEW_KEY_##name, .mods = (mods_read), action},
#define KEY_ALSO(name, code)
#include "model/keys.def"
#undef ACT
#undef REQ
#undef NO_ACT
};

bool view_key_act(ViewState *s, const ViewEvent *ev, bool shift)
{
    for (size_t i = 0; i < sizeof KEY_ACTIONS / sizeof KEY_ACTIONS[0]; i++) {
        const KeyAction *k = &KEY_ACTIONS[i];
        if (k->key != ev->key) continue;
        ViewEvent own = *ev; // the action sees only the modifiers its row says it reads
        own.mods &= k->mods;
        if (k->act) return k->act(s, &own, shift && (k->mods & VIEW_MOD_SHIFT));
        if (k->request == VIEW_REQ_NONE) return false; // a question's key (view_events.c)
        s->request = k->request;
        return true;
    }
    return false;
}

// The help overlay's lines, in keys.def's order.
static const char *const HELP[][2] = {
#define KEY_HELP(keys, text) {keys, text},
#define KEY(name, mods, action, code)
#define KEY_ALSO(name, code)
#include "model/keys.def"
};

const char *view_help_text(int row, int col)
{
    if (row < 0 || row >= VIEW_HELP_ROWS || col < 0 || col > 1) return NULL;
    return HELP[row][col];
}
