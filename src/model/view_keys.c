// What each key does in the view: one small function per key (or the request it hands the session)
// and the table from key to action that view_handle dispatches through. The keys' SDL codes, names
// and help text are the window's (src/app/gui_input.c's KEYS table); which keys a help page or a
// question takes first is view.c's.
#include "model/view_keys.h"

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

// --- what each key does: one small function per key (or a request the session carries out), and the table ---
// The keys' names, SDL codes and help text are the window's (src/app/gui_input.c's KEYS table);
// this is the view's side. shift: Shift is held (finer steps, the other direction, the other
// panel).

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

static bool key_dark(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    s->dark = !s->dark;
    return true;
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
    memset(&s->hover, 0, sizeof s->hover);
    memset(&s->pinned, 0, sizeof s->pinned);
    return true;
}

static bool key_fullscreen(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev, (void)shift;
    s->fullscreen = !s->fullscreen;
    return true;
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
    else if (s->zoom != 1.0) s->pan_x = s->pan_y = 0.5, s->zoom = 1.0;
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

// G: decoding, B: the tiles.
static bool key_stepping_panel(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)shift;
    ViewPanel want = ev->key == VIEW_KEY_G ? PANEL_DECODE : PANEL_TILES;
    s->panel = s->panel == want ? PANEL_NONE : want;
    memset(&s->hover, 0, sizeof s->hover);
    memset(&s->pinned, 0, sizeof s->pinned);
    return true;
}

static bool key_shuffle(ViewState *s, const ViewEvent *ev, bool shift)
{
    (void)ev;
    if (shift) { // the next reordering (opening the panel if it is closed)
        if (s->panel == PANEL_SHUFFLE)
            s->shuffle = (s->shuffle + 1) % view_shuffle_count(s->dims.n);
        s->panel = PANEL_SHUFFLE;
    } else s->panel = s->panel == PANEL_SHUFFLE ? PANEL_NONE : PANEL_SHUFFLE;
    memset(&s->hover, 0, sizeof s->hover);
    return true;
}

// A key: its handler, or (act NULL) the request it hands the session.
typedef struct {
    ViewKey key;
    bool (*act)(ViewState *s, const ViewEvent *ev, bool shift);
    ViewRequest request;
} KeyAction;

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

static const KeyAction KEY_ACTIONS[] = {
    {.key = VIEW_KEY_UP, .act = key_up},
    {.key = VIEW_KEY_DOWN, .act = key_down},
    {.key = VIEW_KEY_N, .act = key_notes},
    {.key = VIEW_KEY_D, .act = key_dark},
    {.key = VIEW_KEY_K, .act = key_cost},
    {.key = VIEW_KEY_M, .act = key_compare},
    {.key = VIEW_KEY_R, .request = VIEW_REQ_REVERT},
    {.key = VIEW_KEY_S, .act = key_s},
    {.key = VIEW_KEY_E, .act = key_export},
    {.key = VIEW_KEY_RIGHT, .act = key_right},
    {.key = VIEW_KEY_LEFT, .act = key_left},
    {.key = VIEW_KEY_SPACE, .act = key_next},
    {.key = VIEW_KEY_PAGEDOWN, .act = key_next},
    {.key = VIEW_KEY_BACKSPACE, .act = key_back},
    {.key = VIEW_KEY_PAGEUP, .act = key_back},
    {.key = VIEW_KEY_HOME, .act = key_home},
    {.key = VIEW_KEY_END, .act = key_end},
    {.key = VIEW_KEY_PERIOD, .act = key_part_next},
    {.key = VIEW_KEY_COMMA, .act = key_part_back},
    {.key = VIEW_KEY_DIGIT, .act = key_digit},
    {.key = VIEW_KEY_TAB, .act = key_tab},
    {.key = VIEW_KEY_A, .act = key_all_heads},
    {.key = VIEW_KEY_F, .act = key_fullscreen},
    {.key = VIEW_KEY_F11, .act = key_fullscreen},
    {.key = VIEW_KEY_PLUS, .act = key_zoom_in},
    {.key = VIEW_KEY_MINUS, .act = key_zoom_out},
    {.key = VIEW_KEY_0, .act = key_zoom_reset},
    {.key = VIEW_KEY_H, .act = key_help},
    {.key = VIEW_KEY_F1, .act = key_help},
    {.key = VIEW_KEY_P, .act = key_auto_question},
    {.key = VIEW_KEY_ESCAPE, .act = key_escape},
    {.key = VIEW_KEY_Q, .act = key_quit},
    {.key = VIEW_KEY_C, .act = key_colormap},
    {.key = VIEW_KEY_O, .request = VIEW_REQ_ABLATE},
    {.key = VIEW_KEY_T, .request = VIEW_REQ_TRAIN},
    {.key = VIEW_KEY_J, .act = key_checkpoint},
    {.key = VIEW_KEY_L, .act = key_checkpoint},
    {.key = VIEW_KEY_Z, .request = VIEW_REQ_TRAIN_RESET},
    {.key = VIEW_KEY_V, .request = VIEW_REQ_TRAIN_EXPORT},
    {.key = VIEW_KEY_LEFTBRACKET, .act = key_scale},
    {.key = VIEW_KEY_RIGHTBRACKET, .act = key_scale},
    {.key = VIEW_KEY_G, .act = key_stepping_panel},
    {.key = VIEW_KEY_B, .act = key_stepping_panel},
    {.key = VIEW_KEY_W, .act = key_rope_panel},
    {.key = VIEW_KEY_X, .act = key_shuffle},
};

bool view_key_act(ViewState *s, const ViewEvent *ev, bool shift)
{
    for (size_t i = 0; i < sizeof KEY_ACTIONS / sizeof KEY_ACTIONS[0]; i++) {
        if (KEY_ACTIONS[i].key != ev->key) continue;
        if (KEY_ACTIONS[i].act) return KEY_ACTIONS[i].act(s, ev, shift);
        s->request = KEY_ACTIONS[i].request;
        return true;
    }
    return false;
}
