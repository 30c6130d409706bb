// The window's input: SDL's keys, pointer, wheel, window and drop events translated into the view's
// own events (ViewEvent, src/model/view.h), with the drags (a cell's value, the board's pan, the
// scale slider, the training strip) they start.
#include <string.h>

#include "app/gui_private.h"
#include "platform/platform.h"

// The window's keys: SDL's key code of each KEY and KEY_ALSO row of src/model/keys.def (the one
// place where those SDLK_ names are expanded); a key not there is ignored. 1 to 9 (and the
// keypad's) are VIEW_KEY_DIGIT with their value, by their range (map_key). What each key does is
// the view's (src/model/view_keys.c), its help line the table's too.
static const struct {
    SDL_Keycode sym;
    ViewKey key;
} KEYS[] = {
#define KEY_HELP(keys, text)
#define KEY(name, mods, action, code) {code, VIEW_KEY_##name},
#define KEY_ALSO(name, code) {code, VIEW_KEY_##name},
#include "model/keys.def"
};

// An SDL key as the view knows it (VIEW_KEY_NONE: one it ignores); *digit for 1 to 9.
static ViewKey map_key(SDL_Keycode k, int *digit)
{
    *digit = 0;
    if (k >= SDLK_1 && k <= SDLK_9) {
        *digit = (int)(k - SDLK_1) + 1;
        return VIEW_KEY_DIGIT;
    }
    if (k >= SDLK_KP_1 && k <= SDLK_KP_9) {
        *digit = (int)(k - SDLK_KP_1) + 1;
        return VIEW_KEY_DIGIT;
    }
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (KEYS[i].sym == k && k != SDLK_UNKNOWN)
            return KEYS[i].key; // (UNKNOWN: no code of its own)
    return VIEW_KEY_NONE;
}

// Ctrl+C (the stage's numbers to the clipboard): the window's own key, before the view sees it.
bool gui_input_is_copy(const SDL_Event *e)
{
    int digit;
    return e->type == SDL_KEYDOWN && map_key(e->key.keysym.sym, &digit) == VIEW_KEY_C
           && (e->key.keysym.mod & KMOD_CTRL);
}

// Window coordinates -> drawable pixels (HiDPI).
static void to_pixels(Gui *g, int x, int y, int *px, int *py)
{
    int ww, wh, pw, ph;
    SDL_GetWindowSize(g->win, &ww, &wh);
    SDL_GetRendererOutputSize(g->ren, &pw, &ph);
    *px = ww > 0 ? x * pw / ww : x;
    *py = wh > 0 ? y * ph / wh : y;
}

// The event the window is to carry out (gui.c dispatches it): returns false, as nothing is redrawn
// yet.
static bool emit(GuiInput *out, const ViewEvent *ev)
{
    out->event = *ev;
    out->has_event = true;
    return false;
}

// A drag along a strip (the training's checkpoints, the scale slider): while the button is held,
// the value under the pointer (hit) as an event of kind; released, the drag (*active) ends. Returns
// true to redraw.
static bool drag_along(GuiInput *out, bool *active, Uint32 buttons, bool hit, ViewEventKind kind,
                       double value)
{
    if (!(buttons & SDL_BUTTON_LMASK)) {
        *active = false;
        return false;
    }
    if (!hit) return false;
    ViewEvent ev = {.kind = kind, .head = -1, .value = value};
    return emit(out, &ev);
}

// A key: the view's key with its Shift and Ctrl; a key not in KEYS is ignored.
static bool key_down(const SDL_Event *e, GuiInput *out, ViewEvent *ev)
{
    ev->kind = VIEW_EV_KEY;
    ev->key = map_key(e->key.keysym.sym, &ev->digit);
    if (e->key.keysym.mod & KMOD_SHIFT) ev->mods |= VIEW_MOD_SHIFT;
    if (e->key.keysym.mod & KMOD_CTRL) ev->mods |= VIEW_MOD_CTRL;
    if (ev->key == VIEW_KEY_NONE) return false;
    return emit(out, ev);
}

// The pointer moved to (x, y) with the button held on a drag (*g's panning, seeking, sliding or
// dragging): the drag's event, or its end when the button is up. *handled false: no drag is on.
static bool drag_motion(Gui *g, const SDL_Event *e, int x, int y, GuiInput *out, ViewEvent *ev,
                        bool *handled)
{
    *handled = true;
    if (g->panning) { // a zoomed board follows the pointer
        if (!(e->motion.state & SDL_BUTTON_LMASK)) g->panning = false;
        else if (x != g->pan_x || y != g->pan_y) {
            ev->kind = VIEW_EV_PAN;
            ev->x = x - g->pan_x;
            ev->y = y - g->pan_y;
            g->pan_x = x;
            g->pan_y = y;
            return emit(out, ev);
        }
        return false;
    }
    if (g->seeking) { // the checkpoint follows the pointer along the training strip
        int step = 0;
        bool hit = scene_train_at(&g->scene, x, g->scene.train_y, &step);
        return drag_along(out, &g->seeking, e->motion.state, hit, VIEW_EV_TRAIN_SEEK, step);
    }
    if (g->sliding) { // the scale slider follows the pointer
        double v = 0;
        bool hit = scene_slider_at(&g->scene, x, g->scene.slider_y, &v);
        return drag_along(out, &g->sliding, e->motion.state, hit, VIEW_EV_SCALE, v);
    }
    if (g->dragging) { // vertical drag on the pinned cell changes its value
        if (!(e->motion.state & SDL_BUTTON_LMASK)) g->dragging = false;
        else if (y != g->drag_y) {
            ev->kind = VIEW_EV_DRAG;
            ev->y = y - g->drag_y;
            if (SDL_GetModState() & KMOD_SHIFT) ev->mods |= VIEW_MOD_SHIFT;
            g->drag_y = y;
            g->dragged = true;
            return emit(out, ev);
        }
        return false;
    }
    *handled = false;
    return false;
}

// The pointer moved: a drag goes on, else the cell under it is the hover.
static bool mouse_motion(Gui *g, const SDL_Event *e, GuiInput *out, ViewEvent *ev)
{
    int x, y, head;
    to_pixels(g, e->motion.x, e->motion.y, &x, &y);
    g->mouse_x = x;
    g->mouse_y = y;
    g->mouse_in = true;
    bool handled;
    bool redraw = drag_motion(g, e, x, y, out, ev, &handled);
    if (handled) return redraw;
    ev->kind = VIEW_EV_HOVER;
    if (!scene_hit(&g->scene, x, y, &ev->cell, &head)) ev->cell.mat = MAT_NONE;
    return view_handle(&g->st, ev);
}

// A press at (x, y) on one of the strips (the header's stages, the training's checkpoints, the
// scale slider): what it asks, and the drag it starts. *handled false: it was on none of them.
static bool press_on_strip(Gui *g, int x, int y, GuiInput *out, ViewEvent *ev, bool *handled)
{
    double v;
    int step;
    int stage_index;
    *handled = true;
    if (scene_stage_at(&g->scene, x, y,
                       &stage_index)) { // a press on the header's strip of stages: go there
        ev->kind = VIEW_EV_STAGE;
        ev->value = stage_index;
        return emit(out, ev);
    }
    if (scene_train_at(&g->scene, x, y,
                       &step)) { // a press on the training strip: that checkpoint; a drag follows
        g->seeking = true;
        ev->kind = VIEW_EV_TRAIN_SEEK;
        ev->value = step;
        return emit(out, ev);
    }
    if (scene_slider_at(&g->scene, x, y,
                        &v)) { // a press on the slider: that scale, and a drag follows
        g->sliding = true;
        ev->kind = VIEW_EV_SCALE;
        ev->value = v;
        return emit(out, ev);
    }
    *handled = false;
    return false;
}

// The left button pressed: a strip's value, else a click on the cell under it, which may start a
// pan (a zoomed board's page) or a drag of an editable cell's value.
static bool mouse_down(Gui *g, const SDL_Event *e, GuiInput *out, ViewEvent *ev)
{
    if (e->button.button != SDL_BUTTON_LEFT) return false;
    int x, y;
    to_pixels(g, e->button.x, e->button.y, &x, &y);
    bool handled;
    bool redraw = press_on_strip(g, x, y, out, ev, &handled);
    if (handled) return redraw;
    ev->kind = VIEW_EV_CLICK;
    if (!scene_hit(&g->scene, x, y, &ev->cell, &ev->head)) {
        ev->cell.mat = MAT_NONE;
        ev->head = -1;
    }
    if (ev->cell.mat == MAT_NONE && ev->head < 0
        && g->st.zoom > 1.0) { // on the page of a zoomed board: pan
        g->panning = true;
        g->pan_x = x;
        g->pan_y = y;
    }
    CellRef p = g->st.pinned;
    bool on_pinned = ev->cell.mat != MAT_NONE && ev->cell.mat == p.mat && ev->cell.head == p.head
                     && ev->cell.row == p.row && ev->cell.col == p.col;
    if (view_mat_editable(ev->cell.mat)) {
        g->dragging = true; // a press on a weight or embedding pins it and may drag its value
        g->dragged = false;
        g->drag_y = y;
        g->press_was_pinned = on_pinned;
        if (on_pinned) return false; // released without moving: unpins (below)
    }
    return emit(out, ev);
}

// The left button released: the drags end; a press on the pinned cell without a drag unpins it.
static bool mouse_up(Gui *g, const SDL_Event *e, GuiInput *out, ViewEvent *ev)
{
    if (e->button.button == SDL_BUTTON_LEFT) g->panning = g->sliding = g->seeking = false;
    if (e->button.button != SDL_BUTTON_LEFT || !g->dragging) return false;
    g->dragging = false;
    if (g->dragged) return false;
    int x, y;
    to_pixels(g, e->button.x, e->button.y, &x, &y);
    ev->kind = VIEW_EV_CLICK;
    if (!scene_hit(&g->scene, x, y, &ev->cell, &ev->head)) return false;
    // A second click on the pinned cell (press and release without a drag) unpins it.
    if (!g->press_was_pinned) return false;
    return emit(out, ev);
}

// The window left, resized, shown again: the hover ends, or the screen is redrawn.
static bool window_event(Gui *g, const SDL_Event *e, ViewEvent *ev)
{
    switch (e->window.event) {
    case SDL_WINDOWEVENT_LEAVE:
        g->mouse_in = false;
        ev->kind = VIEW_EV_HOVER;
        return view_handle(&g->st, ev);
    case SDL_WINDOWEVENT_SIZE_CHANGED:
    case SDL_WINDOWEVENT_RESIZED:
    case SDL_WINDOWEVENT_EXPOSED:
    case SDL_WINDOWEVENT_SHOWN:
    case SDL_WINDOWEVENT_RESTORED:
    case SDL_WINDOWEVENT_MAXIMIZED: return true;
    default: return false;
    }
}

// A file dropped on the window: gui.c loads it and frees it with SDL_free.
static bool drop_file(Gui *g, const SDL_Event *e, GuiInput *out)
{
    char *file = e->drop.file;
    if (!file) return false;
    platform_path_normalize(file); // Windows: C:/x/y.json, so its edits are saved beside it
    g->flash[0] = '\0'; // the last lesson's "Exported …" does not belong on the next one
    out->drop_file = file;
    return true;
}

// Translates one SDL event; returns true when the screen must be redrawn.
bool gui_input_translate(Gui *g, const SDL_Event *e, GuiInput *out)
{
    memset(out, 0, sizeof *out);
    ViewEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.head = -1;
    switch (e->type) {
    case SDL_QUIT:
        out->quit = true; // gui.c asks first when edits would be lost
        return true;
    case SDL_KEYDOWN: return key_down(e, out, &ev);
    case SDL_MOUSEMOTION: return mouse_motion(g, e, out, &ev);
    case SDL_MOUSEBUTTONDOWN: return mouse_down(g, e, out, &ev);
    case SDL_MOUSEBUTTONUP: return mouse_up(g, e, out, &ev);
    case SDL_MOUSEWHEEL:
        ev.kind = VIEW_EV_WHEEL;
        ev.wheel = e->wheel.y;
        if (SDL_GetModState() & KMOD_CTRL) ev.mods |= VIEW_MOD_CTRL;
        if (SDL_GetModState() & KMOD_SHIFT) ev.mods |= VIEW_MOD_SHIFT;
        return emit(out, &ev);
    case SDL_WINDOWEVENT: return window_event(g, e, &ev);
    case SDL_DROPFILE: return drop_file(g, e, out);
    case SDL_DROPTEXT: // dragged text, not a file: nothing to open, but the string is ours to free
        SDL_free(e->drop.file);
        return false;
    case SDL_RENDER_TARGETS_RESET:
    case SDL_RENDER_DEVICE_RESET: return true;
    default: return false;
    }
}
