// The window's input: SDL's keys, pointer, wheel, window and drop events translated into the view's own events
// (ViewEvent, src/model/view.h), with the drags (a cell's value, the board's pan, the scale slider, the training
// strip) they start.
#include <string.h>

#include "gui_private.h"
#include "platform/platform.h"

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
    switch (k) {
    case SDLK_RIGHT: return VIEW_KEY_RIGHT;
    case SDLK_LEFT: return VIEW_KEY_LEFT;
    case SDLK_SPACE: return VIEW_KEY_SPACE;
    case SDLK_BACKSPACE: return VIEW_KEY_BACKSPACE;
    case SDLK_PAGEDOWN: return VIEW_KEY_PAGEDOWN;
    case SDLK_PAGEUP: return VIEW_KEY_PAGEUP;
    case SDLK_DOWN: return VIEW_KEY_DOWN;
    case SDLK_UP: return VIEW_KEY_UP;
    case SDLK_HOME: return VIEW_KEY_HOME;
    case SDLK_END: return VIEW_KEY_END;
    case SDLK_PERIOD:
    case SDLK_KP_PERIOD: return VIEW_KEY_PERIOD;
    case SDLK_COMMA:
    case SDLK_KP_COMMA: return VIEW_KEY_COMMA;
    case SDLK_TAB: return VIEW_KEY_TAB;
    case SDLK_a: return VIEW_KEY_A;
    case SDLK_f: return VIEW_KEY_F;
    case SDLK_F11: return VIEW_KEY_F11;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS: return VIEW_KEY_PLUS;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: return VIEW_KEY_MINUS;
    case SDLK_0:
    case SDLK_KP_0: return VIEW_KEY_0;
    case SDLK_h: return VIEW_KEY_H;
    case SDLK_F1: return VIEW_KEY_F1;
    case SDLK_ESCAPE: return VIEW_KEY_ESCAPE;
    case SDLK_q: return VIEW_KEY_Q;
    case SDLK_c: return VIEW_KEY_C;
    case SDLK_k: return VIEW_KEY_K;
    case SDLK_m: return VIEW_KEY_M;
    case SDLK_r: return VIEW_KEY_R;
    case SDLK_s: return VIEW_KEY_S;
    case SDLK_e: return VIEW_KEY_E;
    case SDLK_n: return VIEW_KEY_N;
    case SDLK_d: return VIEW_KEY_D;
    case SDLK_p: return VIEW_KEY_P;
    case SDLK_RETURN:
    case SDLK_KP_ENTER: return VIEW_KEY_ENTER;
    case SDLK_o: return VIEW_KEY_O;
    case SDLK_LEFTBRACKET: return VIEW_KEY_LEFTBRACKET;
    case SDLK_RIGHTBRACKET: return VIEW_KEY_RIGHTBRACKET;
    case SDLK_x: return VIEW_KEY_X;
    case SDLK_g: return VIEW_KEY_G;
    case SDLK_b: return VIEW_KEY_B;
    case SDLK_t: return VIEW_KEY_T;
    case SDLK_j: return VIEW_KEY_J;
    case SDLK_l: return VIEW_KEY_L;
    case SDLK_z: return VIEW_KEY_Z;
    case SDLK_v: return VIEW_KEY_V;
    default: return VIEW_KEY_NONE;
    }
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

// A drag along a strip (the training's checkpoints, the scale slider): while the button is held, the value
// under the pointer (hit) as an event of kind; released, the drag (*active) ends. Returns true to redraw.
// The event the window is to carry out (gui.c dispatches it): returns false, as nothing is redrawn yet.
static bool emit(GuiInput *out, const ViewEvent *ev)
{
    out->event = *ev;
    out->has_event = true;
    return false;
}

static bool drag_along(GuiInput *out, bool *active, Uint32 buttons, bool hit, ViewEventKind kind, double value)
{
    if (!(buttons & SDL_BUTTON_LMASK)) {
        *active = false;
        return false;
    }
    if (!hit) return false;
    ViewEvent ev = {.kind = kind, .head = -1, .value = value};
    return emit(out, &ev);
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
    case SDL_KEYDOWN: {
        ev.kind = VIEW_EV_KEY;
        ev.key = map_key(e->key.keysym.sym, &ev.digit);
        if (e->key.keysym.mod & KMOD_SHIFT) ev.mods |= VIEW_MOD_SHIFT;
        if (e->key.keysym.mod & KMOD_CTRL) ev.mods |= VIEW_MOD_CTRL;
        if (ev.key == VIEW_KEY_NONE) return false;
        return emit(out, &ev);
    }
    case SDL_MOUSEMOTION: {
        int x, y, head;
        to_pixels(g, e->motion.x, e->motion.y, &x, &y);
        g->mouse_x = x;
        g->mouse_y = y;
        g->mouse_in = true;
        if (g->panning) { // a zoomed board follows the pointer
            if (!(e->motion.state & SDL_BUTTON_LMASK)) g->panning = false;
            else if (x != g->pan_x || y != g->pan_y) {
                ev.kind = VIEW_EV_PAN;
                ev.x = x - g->pan_x;
                ev.y = y - g->pan_y;
                g->pan_x = x;
                g->pan_y = y;
                return emit(out, &ev);
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
                ev.kind = VIEW_EV_DRAG;
                ev.y = y - g->drag_y;
                if (SDL_GetModState() & KMOD_SHIFT) ev.mods |= VIEW_MOD_SHIFT;
                g->drag_y = y;
                g->dragged = true;
                return emit(out, &ev);
            }
            return false;
        }
        ev.kind = VIEW_EV_HOVER;
        if (!scene_hit(&g->scene, x, y, &ev.cell, &head)) ev.cell.mat = MAT_NONE;
        return view_handle(&g->st, &ev);
    }
    case SDL_MOUSEBUTTONDOWN: {
        if (e->button.button != SDL_BUTTON_LEFT) return false;
        int x, y;
        to_pixels(g, e->button.x, e->button.y, &x, &y);
        double v;
        int step;
        int stage_index;
        if (scene_stage_at(&g->scene, x, y, &stage_index)) { // a press on the header's strip of stages: go there
            ev.kind = VIEW_EV_STAGE;
            ev.value = stage_index;
            return emit(out, &ev);
        }
        if (scene_train_at(&g->scene, x, y, &step)) { // a press on the training strip: that checkpoint; a drag follows
            g->seeking = true;
            ev.kind = VIEW_EV_TRAIN_SEEK;
            ev.value = step;
            return emit(out, &ev);
        }
        if (scene_slider_at(&g->scene, x, y, &v)) { // a press on the slider: that scale, and a drag follows
            g->sliding = true;
            ev.kind = VIEW_EV_SCALE;
            ev.value = v;
            return emit(out, &ev);
        }
        ev.kind = VIEW_EV_CLICK;
        if (!scene_hit(&g->scene, x, y, &ev.cell, &ev.head)) {
            ev.cell.mat = MAT_NONE;
            ev.head = -1;
        }
        if (ev.cell.mat == MAT_NONE && ev.head < 0 && g->st.zoom > 1.0) { // on the page of a zoomed board: pan
            g->panning = true;
            g->pan_x = x;
            g->pan_y = y;
        }
        CellRef p = g->st.pinned;
        bool on_pinned = ev.cell.mat != MAT_NONE && ev.cell.mat == p.mat && ev.cell.head == p.head &&
                         ev.cell.row == p.row && ev.cell.col == p.col;
        if (view_mat_editable(ev.cell.mat)) {
            g->dragging = true; // a press on a weight or embedding pins it and may drag its value
            g->dragged = false;
            g->drag_y = y;
            g->press_was_pinned = on_pinned;
            if (on_pinned) return false; // released without moving: unpins (below)
        }
        return emit(out, &ev);
    }
    case SDL_MOUSEBUTTONUP: {
        if (e->button.button == SDL_BUTTON_LEFT) g->panning = g->sliding = g->seeking = false;
        if (e->button.button != SDL_BUTTON_LEFT || !g->dragging) return false;
        g->dragging = false;
        if (g->dragged) return false;
        int x, y;
        to_pixels(g, e->button.x, e->button.y, &x, &y);
        ev.kind = VIEW_EV_CLICK;
        if (!scene_hit(&g->scene, x, y, &ev.cell, &ev.head)) return false;
        // A second click on the pinned cell (press and release without a drag) unpins it.
        if (!g->press_was_pinned) return false;
        return emit(out, &ev);
    }
    case SDL_MOUSEWHEEL:
        ev.kind = VIEW_EV_WHEEL;
        ev.wheel = e->wheel.y;
        if (SDL_GetModState() & KMOD_CTRL) ev.mods |= VIEW_MOD_CTRL;
        if (SDL_GetModState() & KMOD_SHIFT) ev.mods |= VIEW_MOD_SHIFT;
        return emit(out, &ev);
    case SDL_WINDOWEVENT:
        switch (e->window.event) {
        case SDL_WINDOWEVENT_LEAVE:
            g->mouse_in = false;
            ev.kind = VIEW_EV_HOVER;
            return view_handle(&g->st, &ev);
        case SDL_WINDOWEVENT_SIZE_CHANGED:
        case SDL_WINDOWEVENT_RESIZED:
        case SDL_WINDOWEVENT_EXPOSED:
        case SDL_WINDOWEVENT_SHOWN:
        case SDL_WINDOWEVENT_RESTORED:
        case SDL_WINDOWEVENT_MAXIMIZED: return true;
        default: return false;
        }
    case SDL_DROPFILE: {
        char *file = e->drop.file;
        if (!file) return false;
        platform_path_normalize(file); // Windows: C:/x/y.json, so its edits are saved beside it
        g->flash[0] = '\0';             // the last lesson's "Exported …" does not belong on the next one
        out->drop_file = file;           // gui.c loads it and frees it with SDL_free
        return true;
    }
    case SDL_DROPTEXT: // dragged text, not a file: nothing to open, but the string is ours to free
        SDL_free(e->drop.file);
        return false;
    case SDL_RENDER_TARGETS_RESET:
    case SDL_RENDER_DEVICE_RESET: return true;
    default: return false;
    }
}
