// The view's events: a key, the pointer, the wheel, a press on a strip, each applied to the
// ViewState. A question and the stepping panels take their keys first; every other key goes to the
// key table (view_keys.c); the moves themselves are view.c's (view_moves.h). Nothing here draws.
#include "model/view.h"
#include "model/view_keys.h"
#include "model/view_moves.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool cell_eq(CellRef a, CellRef b)
{
    return a.mat == b.mat
           && (a.mat == MAT_NONE || (a.head == b.head && a.row == b.row && a.col == b.col));
}

// Submits the response given: the owner judges it (VIEW_REQ_ANSWER) and calls view_quiz_judged.
static bool quiz_submit(ViewState *s)
{
    s->quiz_phase = QUIZ_JUDGING;
    s->request = VIEW_REQ_ANSWER;
    return true; // something visible changed
}

// Skips the question waiting: the result shows; the question is asked again only when the walk
// goes back before it and comes forward again (view_walk.c).
static int quiz_skip(ViewState *s)
{
    if (s->quiz >= 0 && s->quiz < s->question_count)
        s->question_done[s->quiz] = s->question_skipped[s->quiz] = true;
    view_quiz_close(s);
    s->reveal = -1;
    return 1;
}

// A digit (1..9 or 0): picks a choice (QUIZ_KEYS) or is typed into the number (QUIZ_TYPE).
static int quiz_digit(ViewState *s, const ViewEvent *ev)
{
    QuizInput input = s->quiz_q.input;
    char *in = s->quiz_input;
    size_t len = strlen(in);
    if (input == QUIZ_KEYS) {
        int d = ev->key == VIEW_KEY_0 ? 0 : ev->digit;
        if (d < 1 || d > s->quiz_q.choices) return -1;
        s->quiz_choice = d - 1;
        quiz_submit(s);
        return 1;
    }
    if (input != QUIZ_TYPE) return -1;
    if (len + 1 < sizeof s->quiz_input) {
        in[len] = (char)(ev->key == VIEW_KEY_0 ? '0' : '0' + ev->digit);
        in[len + 1] = '\0';
    }
    return 1;
}

// The keys that edit a typed number: '.' or ',' (a decimal comma too) once, '-' first, Backspace.
// Without a typed answer '-' zooms out and Backspace steps back as usual; '.' and ',' are held.
static int quiz_edit(ViewState *s, ViewKey key)
{
    bool typed = s->quiz_q.input == QUIZ_TYPE;
    char *in = s->quiz_input;
    size_t len = strlen(in);
    if (key == VIEW_KEY_PERIOD || key == VIEW_KEY_COMMA) {
        if (!typed) return -1;
        if (!strchr(in, '.') && len + 1 < sizeof s->quiz_input) {
            in[len] = '.';
            in[len + 1] = '\0';
        }
        return 1;
    }
    if (key == VIEW_KEY_MINUS) {
        if (!typed) return 0; // zoom out
        if (len == 0) {
            in[0] = '-';
            in[1] = '\0';
        }
        return 1;
    }
    if (!typed) return 0; // Backspace: previous step
    if (len > 0) in[len - 1] = '\0';
    return 1;
}

// Enter: submits the typed number; one that does not read as a finite number changes nothing.
static int quiz_enter(ViewState *s, bool *changed)
{
    if (s->quiz_q.input != QUIZ_TYPE) return -1;
    const char *in = s->quiz_input;
    size_t len = strlen(in);
    char *end;
    double v = strtod(in, &end);
    if (len == 0 || *end != '\0' || !isfinite(v)) {
        *changed = false;
        return 1;
    }
    s->quiz_value = v;
    quiz_submit(s);
    return 1;
}

// Keys while a question waits for its answer. Returns 1 when the key was used, 0 when it acts as
// usual, and -1 when it is held back (it would show the hidden result, or leave the head asked
// about).
static int quiz_key(ViewState *s, const ViewEvent *ev, bool *changed)
{
    *changed = true;
    switch (ev->key) {
    case VIEW_KEY_RIGHT:
    case VIEW_KEY_SPACE:
    case VIEW_KEY_PAGEDOWN:
        // Next while a question waits: the question skipped (its result shows) on the same screen,
        // as Esc; the next press asks the stage's next question, and only then moves on (the class
        // never loses a question).
    case VIEW_KEY_ESCAPE: return quiz_skip(s); // skip
    case VIEW_KEY_DIGIT:
    case VIEW_KEY_0: return quiz_digit(s, ev);
    case VIEW_KEY_PERIOD:
    case VIEW_KEY_COMMA:
    case VIEW_KEY_MINUS:
    case VIEW_KEY_BACKSPACE: return quiz_edit(s, ev->key);
    case VIEW_KEY_ENTER: return quiz_enter(s, changed);
    case VIEW_KEY_LEFT:
    case VIEW_KEY_PAGEUP:
    case VIEW_KEY_HOME:
    case VIEW_KEY_END:
    case VIEW_KEY_UP:
    case VIEW_KEY_DOWN:
    case VIEW_KEY_H:
    case VIEW_KEY_F1:
    case VIEW_KEY_F:
    case VIEW_KEY_F11:
    case VIEW_KEY_Q:
    case VIEW_KEY_N:
    case VIEW_KEY_D:
    case VIEW_KEY_C:
    case VIEW_KEY_PLUS: return 0;
    default:
        return -1; // heads, views, panels, '.', exports, edits: not while the class is predicting
    }
}

// The decode and tiles panels step through their own sequence: the next / previous token or tile
// (→ Space . / ← Backspace ,), the first and last (Home, End); in the tiles panel ↑ ↓ change the
// block size. A token's step shown in parts (q·K, then A·V) is stepped through part by part; ← into
// the token before lands on its last part (the scene clamps it to the parts that token has). The
// rotation panel steps through the tokens likewise (whose query pairs turn). Returns whether the
// key was theirs (other keys act as everywhere: Tab changes head, Esc closes).
static bool panel_step_key(ViewState *s, const ViewEvent *ev)
{
    bool decode = s->panel == PANEL_DECODE, rope = s->panel == PANEL_ROPE;
    int *at = decode ? &s->decode_t : rope ? &s->rope_t : &s->tile, first = decode || rope ? 0 : 1;
    int last = decode || rope ? s->dims.n - 1 : s->tile_count,
        parts = decode && s->decode_parts > 1 ? s->decode_parts : 1;
    switch (ev->key) {
    case VIEW_KEY_RIGHT:
    case VIEW_KEY_SPACE:
    case VIEW_KEY_PERIOD:
    case VIEW_KEY_PAGEDOWN:
        if (decode && s->decode_part < parts - 1) s->decode_part++;
        else if (*at < last) ++*at, s->decode_part = 0;
        return true;
    case VIEW_KEY_LEFT:
    case VIEW_KEY_BACKSPACE:
    case VIEW_KEY_COMMA:
    case VIEW_KEY_PAGEUP:
        if (decode && s->decode_part > 0) s->decode_part--;
        else if (*at > first) --*at, s->decode_part = decode ? parts - 1 : 0;
        return true;
    case VIEW_KEY_HOME: *at = first, s->decode_part = 0; return true;
    case VIEW_KEY_END: *at = last > first ? last : first, s->decode_part = 0; return true;
    case VIEW_KEY_UP:
    case VIEW_KEY_DOWN: {
        if (decode || rope) return true;
        int most = s->dims.n > s->dims.m ? s->dims.n : s->dims.m;
        int b = s->tiles_block + (ev->key == VIEW_KEY_UP ? 1 : -1);
        s->tiles_block = b < 1 ? 1 : b > most ? most : b;
        s->tile = 1;
        return true;
    }
    default: return false;
    }
}

// The panels of two outputs (M, X) shown in two parts (the patterns, then the outputs whole): →
// Space . PageDown go to the outputs, ← Backspace , PageUp back, Home to the first part. Returns
// whether the key was theirs: past either end the keys act as they do on the panel in one part.
static bool pair_step_key(ViewState *s, const ViewEvent *ev)
{
    int parts = s->pair_parts > 1 ? s->pair_parts : 1;
    switch (ev->key) {
    case VIEW_KEY_RIGHT:
    case VIEW_KEY_SPACE:
    case VIEW_KEY_PERIOD:
    case VIEW_KEY_PAGEDOWN:
        if (s->pair_part >= parts - 1) return false;
        s->pair_part++;
        return true;
    case VIEW_KEY_LEFT:
    case VIEW_KEY_BACKSPACE:
    case VIEW_KEY_COMMA:
    case VIEW_KEY_PAGEUP:
        if (s->pair_part <= 0) return false;
        s->pair_part--;
        return true;
    case VIEW_KEY_HOME:
        if (s->pair_part == 0) return false;
        s->pair_part = 0;
        return true;
    default: return false;
    }
}

static bool handle_key(ViewState *s, const ViewEvent *ev)
{
    if (s->quiz_phase == QUIZ_ASKING && !s->help) {
        bool changed;
        int used = quiz_key(s, ev, &changed);
        if (used > 0) return changed;
        if (used < 0) return false;
    }
    bool shift = (ev->mods & VIEW_MOD_SHIFT) != 0;
    if (s->help) { // the help's pages turn with the keys that step the stages: the class's place
                   // stays
        switch (ev->key) {
        case VIEW_KEY_RIGHT:
        case VIEW_KEY_DOWN:
        case VIEW_KEY_PAGEDOWN:
        case VIEW_KEY_SPACE: s->help_page++; return true;
        case VIEW_KEY_LEFT:
        case VIEW_KEY_UP:
        case VIEW_KEY_PAGEUP:
        case VIEW_KEY_BACKSPACE: s->help_page--; return true;
        case VIEW_KEY_HOME: s->help_page = 0; return true;
        default: break;
        }
    }
    if (s->help && ev->key != VIEW_KEY_ESCAPE && ev->key != VIEW_KEY_Q && ev->key != VIEW_KEY_H
        && ev->key != VIEW_KEY_F1 && ev->key != VIEW_KEY_F && ev->key != VIEW_KEY_F11) {
        s->help = false; // any other key closes the overlay and acts
        handle_key(s, ev);
        return true;
    }
    // The cost overlay, like the help, closes on any other key, which then acts.
    if (s->panel == PANEL_COST && ev->key != VIEW_KEY_ESCAPE && ev->key != VIEW_KEY_Q
        && ev->key != VIEW_KEY_K && ev->key != VIEW_KEY_E && ev->key != VIEW_KEY_F
        && ev->key != VIEW_KEY_F11 && ev->key != VIEW_KEY_NONE) {
        s->panel = PANEL_NONE;
        handle_key(s, ev);
        return true;
    }
    if ((s->panel == PANEL_DECODE || s->panel == PANEL_TILES || s->panel == PANEL_ROPE)
        && panel_step_key(s, ev))
        return true;
    if ((s->panel == PANEL_COMPARE || s->panel == PANEL_SHUFFLE) && !shift && pair_step_key(s, ev))
        return true;
    return view_key_act(s, ev, shift); // the key table (view_keys.c)
}

bool view_handle(ViewState *s, const ViewEvent *ev)
{
    s->request = VIEW_REQ_NONE; // a request lives for one event
    s->request_delta = 0.0;
    switch (ev->kind) {
    case VIEW_EV_KEY: return handle_key(s, ev);
    case VIEW_EV_HOVER:
        if (cell_eq(s->hover, ev->cell)) return false;
        s->hover = ev->cell;
        return true;
    case VIEW_EV_CLICK:
        if (s->quiz_phase == QUIZ_ASKING && s->quiz_q.input == QUIZ_CLICK
            && ev->cell.mat == s->quiz_q.mat
            && (!mat_info(ev->cell.mat)->per_head || ev->cell.head == s->quiz_q.head)) {
            s->quiz_cell = ev->cell; // the class's prediction
            return quiz_submit(s);
        }
        if (ev->head >= 0 && s->view == VIEW_ALL_HEADS && ev->cell.mat == MAT_NONE) {
            s->head = ev->head < s->dims.heads ? ev->head : s->head;
            s->view = VIEW_ONE_HEAD;
            return true;
        }
        if (ev->cell.mat == MAT_NONE || cell_eq(s->pinned, ev->cell)) {
            bool had = s->pinned.mat != MAT_NONE;
            memset(&s->pinned, 0, sizeof s->pinned);
            return had;
        }
        s->pinned = ev->cell;
        return true;
    case VIEW_EV_WHEEL:
        if (ev->wheel == 0) return false;
        if (ev->mods & VIEW_MOD_CTRL)
            return view_set_zoom(s, ev->wheel > 0 ? s->zoom * 1.25 : s->zoom / 1.25);
        return view_request_edit(
            s, ev->wheel * ((ev->mods & VIEW_MOD_SHIFT) ? VIEW_EDIT_FINE : VIEW_EDIT_STEP));
    case VIEW_EV_DRAG:
        return view_request_edit(s, -ev->y * VIEW_EDIT_DRAG
                                        * ((ev->mods & VIEW_MOD_SHIFT) ? 0.1 : 1.0));
    case VIEW_EV_SCALE:
        if (!(ev->value > 0) || !isfinite(ev->value)) return false;
        s->request = VIEW_REQ_SCALE_SET;
        s->request_delta = ev->value;
        return true;
    case VIEW_EV_STAGE: {
        if (!isfinite(ev->value) || ev->value < 0 || ev->value >= s->stage_count) return false;
        int index = (int)ev->value;
        s->help = false; // a press on the strip closes the overlays, like a key
        if (s->panel == PANEL_COST) s->panel = PANEL_NONE;
        if (index
            == s->stage_index) { // the stage on screen: its next part, after the last its first
            s->substep = s->substep + 1 < s->substep_count ? s->substep + 1 : 0;
            s->reveal = s->quiz_phase == QUIZ_ASKING ? 0 : -1;
            memset(&s->pinned, 0, sizeof s->pinned);
            return true;
        }
        view_go_stage(s, index);
        if (s->quiz_phase == QUIZ_NONE)
            s->substep = 0; // chosen by its name: its first part, from either side
        s->walk_settle = true; // ... where a question due there is asked
        return true;
    }
    case VIEW_EV_TRAIN_SEEK:
        if (!(ev->value >= 0) || !isfinite(ev->value)) return false;
        s->request = VIEW_REQ_TRAIN_SEEK;
        s->request_delta = ev->value;
        return true;
    case VIEW_EV_PAN: // the board moves with the pointer: dragging right shows more of the left
        return view_pan(s, s->pan_span_x > 0 ? -(double)ev->x / s->pan_span_x : 0.0,
                        s->pan_span_y > 0 ? -(double)ev->y / s->pan_span_y : 0.0);
    case VIEW_EV_RESIZE:
        if (ev->x == s->width && ev->y == s->height) return false;
        s->width = ev->x;
        s->height = ev->y;
        return true;
    }
    return false;
}
