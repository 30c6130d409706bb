// The window: SDL events -> ViewEvent -> ViewState, scene_build -> draw_sdl, redrawn only when something changed.
// Also finds the assets, watches the open lesson file, loads dropped lessons and shows their errors, and
// carries out live edits (an editable copy of the parameters, re-traced after each change), revert and save,
// and exports the view as slides (E, Shift+E). Environment: MHA_TRACER_STATS=1 prints frame times and the time
// to the first frame; MHA_TRACER_FRAME_FILE=PATH appends one line per frame presented (see report_frame), so
// tests wait for the program and not the clock; MHA_TRACER_FRAME_TITLE=1 puts the frame count in the title;
// MHA_TRACER_STORM=COUNT:SEED runs the event storm test (see "The event storm" below).
#define _POSIX_C_SOURCE 200809L // stat() and st_mtim
#include "gui.h"

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/compare.h"
#include "../lesson/lesson.h"
#include "../lesson/lesson_write.h"
#include "../render/draw_sdl.h"
#include "../render/export.h"
#include "../render/scene.h"
#include "../model/view.h"

#ifndef MHA_SOURCE_ASSETS
#define MHA_SOURCE_ASSETS ""
#endif
#ifndef MHA_INSTALL_ASSETS
#define MHA_INSTALL_ASSETS ""
#endif

#define WATCH_MS 500
#define FLASH_MS 4000 // how long "Exported ..." stays in the header

// Everything the window owns; one per gui_run, passed around instead of globals.
typedef struct {
    SDL_Window *win;
    SDL_Renderer *ren;
    DrawSdl *draw;
    TextMetrics tm;
    Scene scene;
    ViewState st;
    Lesson lesson;          // as in the file: what R reverts to
    AttnParams edit;        // the editable copy the trace is computed from
    Trace trace;
    bool have_lesson;
    Comparison cmp;         // the single-head version of edit (computed when the comparison is shown)
    bool have_cmp, cmp_stale;
    char saved[1100];       // the file this session saved the edits to ("" when none): saved over again
    char status[2000];      // what the last save or revert did, shown on screen ("" when none)
    char edit_error[1300];  // why the last edit, save or export failed ("" when none)
    char flash[2200];       // what the last export wrote, shown until flash_until ("" when none)
    Uint32 flash_until;
    bool dragging, dragged; // the left button is held on the pinned editable cell
    bool press_was_pinned;  // the press was on the cell already pinned
    int drag_y;
    char path[1024];        // the watched file ("" for the built-in lesson)
    struct timespec mtime;
    long long size;
    char banner[1200];      // error of the last failed load ("" when none)
    bool fullscreen_applied;
    bool stats;             // MHA_TRACER_STATS=1: frame times on stderr
    char assets[1024];
    int mouse_x, mouse_y;   // last pointer position in pixels
    bool mouse_in;
    long loads, errors;     // lessons loaded; errors put in a banner (for the storm's summary)
    long watch_reloads;     // changes of the watched file seen
    long frames;
    FILE *frame_file;       // MHA_TRACER_FRAME_FILE: one line per frame presented (NULL: off)
    bool frame_title;       // MHA_TRACER_FRAME_TITLE=1: "[frame N]" at the end of the title
    int small_w, small_h, big_w, big_h; // the smallest and largest frames drawn (by area)
} Gui;

static bool file_exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

// The assets directory: next to the program (../share/mha-tracer/assets, as installed), then the source
// tree the program was built from, then the install prefix.
static bool find_assets(char *out, size_t cap)
{
    char probe[1200];
    char *base = SDL_GetBasePath();
    if (base) {
        const char *rel[] = {"../share/mha-tracer/assets", "assets", "../assets"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(probe, sizeof probe, "%s%s/fonts/DejaVuSans.ttf", base, rel[i]);
            if (file_exists(probe)) {
                snprintf(out, cap, "%s%s", base, rel[i]);
                SDL_free(base);
                return true;
            }
        }
        SDL_free(base);
    }
    const char *fixed[] = {MHA_SOURCE_ASSETS, MHA_INSTALL_ASSETS};
    for (size_t i = 0; i < 2; i++) {
        if (!fixed[i][0]) continue;
        snprintf(probe, sizeof probe, "%s/fonts/DejaVuSans.ttf", fixed[i]);
        if (file_exists(probe)) {
            snprintf(out, cap, "%s", fixed[i]);
            return true;
        }
    }
    return false;
}

static bool file_stamp(const char *path, struct timespec *mt, long long *size)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return false;
    *mt = sb.st_mtim;
    *size = (long long)sb.st_size;
    return true;
}

static void set_title(Gui *g)
{
    char t[600], count[40] = "";
    if (g->frame_title) snprintf(count, sizeof count, " [frame %ld]", g->frames);
    snprintf(t, sizeof t, "mha-tracer \xe2\x80\x94 %s%s", g->have_lesson && g->lesson.title ? g->lesson.title : "",
             count);
    if (g->win) SDL_SetWindowTitle(g->win, t);
}

// Loads a lesson (path NULL: the built-in one) and runs its trace. On success replaces the shown lesson;
// on failure keeps the last good one and fills the banner. Returns true on success.
static bool load_lesson_counted(Gui *g, const char *path);
static bool load_lesson(Gui *g, const char *path)
{
    bool ok = load_lesson_counted(g, path);
    if (ok) g->loads++;
    else g->errors++;
    return ok;
}

static bool load_lesson_counted(Gui *g, const char *path)
{
    Lesson l;
    LessonError err;
    memset(&err, 0, sizeof err);
    bool ok = path ? lesson_load(&l, path, &err) : lesson_load_builtin(&l, &err);
    if (!ok) {
        char msg[1100];
        lesson_error_format(&err, msg, sizeof msg);
        snprintf(g->banner, sizeof g->banner, "%s   (still showing the last good lesson)", msg);
        return false;
    }
    Trace t;
    TraceError terr;
    if (!trace_run(&t, &l.params, &terr)) {
        snprintf(g->banner, sizeof g->banner, "%s: %s   (still showing the last good lesson)", path ? path : "<built-in>",
                 terr.message);
        lesson_free(&l);
        return false;
    }
    AttnParams edit;
    if (!params_copy(&edit, &l.params)) {
        snprintf(g->banner, sizeof g->banner, "out of memory   (still showing the last good lesson)");
        trace_free(&t);
        lesson_free(&l);
        return false;
    }
    ViewDims dims = view_dims_from_params(&l.params);
    if (g->have_lesson) {
        trace_free(&g->trace);
        params_free(&g->edit);
        lesson_free(&g->lesson);
        view_set_dims(&g->st, &dims);
    } else {
        int w = g->st.width, h = g->st.height;
        view_init(&g->st, &dims);
        g->st.width = w;
        g->st.height = h;
    }
    // Another file: the edits of this session are saved next to it under a fresh name.
    if (!(path && g->path[0] && strcmp(path, g->path) == 0)) g->saved[0] = '\0';
    g->lesson = l;
    g->edit = edit;
    g->trace = t;
    g->have_lesson = true;
    g->cmp_stale = true;
    g->status[0] = '\0';
    g->edit_error[0] = '\0';
    g->banner[0] = '\0';
    set_title(g);
    return true;
}

// The red banner for a failed edit, save or export (counted for the event storm's summary).
static void show_error(Gui *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void show_error(Gui *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->edit_error, sizeof g->edit_error, fmt, ap);
    va_end(ap);
    g->errors++;
}

static void watch(Gui *g, const char *path)
{
    if (!path) {
        g->path[0] = '\0';
        return;
    }
    snprintf(g->path, sizeof g->path, "%s", path);
    if (!file_stamp(g->path, &g->mtime, &g->size)) g->size = -1;
}

// Polls the watched file; reloads it when its time stamp or size changed. Returns true when the screen changes.
static bool poll_watch(Gui *g)
{
    if (!g->path[0]) return false;
    struct timespec mt;
    long long size;
    if (!file_stamp(g->path, &mt, &size)) return false; // being replaced by an editor: try again later
    if (mt.tv_sec == g->mtime.tv_sec && mt.tv_nsec == g->mtime.tv_nsec && size == g->size) return false;
    g->mtime = mt;
    g->size = size;
    g->watch_reloads++;
    load_lesson(g, g->path);
    return true;
}

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

static const char *panel_key(ViewPanel p)
{
    return p == PANEL_COST ? "cost" : p == PANEL_COMPARE ? "compare" : "none";
}

// MHA_TRACER_FRAME_FILE: after each frame presented, one line
//   frame N stage=KEY substep=S substeps=C head=H reveal=R zoom=Z w=W h=H view=one|all
//         panel=none|cost|compare help=0|1 banner=0|1 note=0|1
// N counts from 1; S is the sub-step of the stage shown (0 .. C-1); H counts heads from 0, as the screen and
// the file names do; R is the number of result cells revealed (-1: all); banner: an error is shown; note: an
// export note is in the header. The line goes out with one flush, and its last field has a one-character
// value, so a reader can tell a complete line from one still being written.
static void report_frame(Gui *g, int w, int h)
{
    if (g->frame_title) set_title(g);
    if (!g->frame_file) return;
    // The frame goes to the X server before it is reported (pumping flushes the connection): a screenshot
    // taken after the line is read shows it.
    SDL_PumpEvents();
    const ViewState *st = &g->st;
    fprintf(g->frame_file,
            "frame %ld stage=%s substep=%d substeps=%d head=%d reveal=%d zoom=%.3f w=%d h=%d view=%s panel=%s help=%d "
            "banner=%d note=%d\n",
            g->frames, stage_key(view_stage(st)), st->substep, st->substep_count, st->head, st->reveal, st->zoom, w, h,
            st->view == VIEW_ALL_HEADS ? "all" : "one", panel_key(st->panel), st->help ? 1 : 0,
            g->banner[0] || g->edit_error[0] ? 1 : 0, g->flash[0] ? 1 : 0);
    fflush(g->frame_file);
}

static void build_scene(Gui *g, int w, int h)
{
    Lesson shown = g->lesson; // the file's tokens and title with the edited numbers
    shown.params = g->edit;
    SceneExtras ex = {.original = &g->lesson.params,
                      .compare = g->have_cmp && !g->cmp_stale ? &g->cmp : NULL,
                      .status = g->flash[0] ? g->flash : g->status[0] ? g->status : NULL};
    const char *banner = g->banner[0] ? g->banner : g->edit_error[0] ? g->edit_error : NULL;
    scene_build_ex(&g->scene, &g->st, &shown, &g->trace, &ex, w, h, &g->tm, banner);
    view_set_substeps(&g->st, g->scene.substeps, g->scene.substep); // the keys step through what was shown
}

// Builds the scene and presents it: one frame per change.
static void redraw(Gui *g)
{
    int w, h;
    SDL_GetRendererOutputSize(g->ren, &w, &h);
    g->st.width = w;
    g->st.height = h;
    if (g->st.panel == PANEL_COMPARE && (g->cmp_stale || !g->have_cmp)) {
        if (g->have_cmp) compare_free(&g->cmp);
        TraceError terr;
        g->have_cmp = compare_run(&g->cmp, &g->edit, &terr);
        g->cmp_stale = false;
        if (!g->have_cmp) show_error(g, "%s", terr.message);
    }
    Uint64 t0 = SDL_GetPerformanceCounter();
    build_scene(g, w, h);
    // The layout may have moved under a still pointer: what it points at now is the hover. The scene is built
    // again before anything is presented, so no frame shows the stale hover.
    ViewEvent hover = {.kind = VIEW_EV_HOVER, .head = -1};
    int head;
    if (g->mouse_in && !scene_hit(&g->scene, g->mouse_x, g->mouse_y, &hover.cell, &head)) hover.cell.mat = MAT_NONE;
    if (view_handle(&g->st, &hover)) build_scene(g, w, h);
    Uint64 t1 = SDL_GetPerformanceCounter();
    Rgba bg = g->scene.background;
    SDL_SetRenderDrawColor(g->ren, bg.r, bg.g, bg.b, 255);
    SDL_RenderClear(g->ren);
    draw_sdl_scene(g->draw, &g->scene);
    Uint64 t2 = SDL_GetPerformanceCounter();
    SDL_RenderPresent(g->ren);
    Uint64 t3 = SDL_GetPerformanceCounter();
    g->frames++;
    if (g->frames == 1 || (long)w * h < (long)g->small_w * g->small_h) g->small_w = w, g->small_h = h;
    if ((long)w * h > (long)g->big_w * g->big_h) g->big_w = w, g->big_h = h;
    report_frame(g, w, h);
    if (g->stats) {
        double f = 1000.0 / (double)SDL_GetPerformanceFrequency();
        fprintf(stderr, "frame %dx%d stage=%s view=%s: scene %.2f ms, draw %.2f ms, present %.2f ms, total %.2f ms, "
                        "%zu commands, %zu cached texts\n",
                w, h, stage_key(view_stage(&g->st)), g->st.view == VIEW_ALL_HEADS ? "all" : "one", (double)(t1 - t0) * f,
                (double)(t2 - t1) * f, (double)(t3 - t2) * f, (double)(t3 - t0) * f, g->scene.count,
                draw_sdl_cached(g->draw));
    }
}

// Adds delta to the pinned cell (rounded to 4 decimals, as shown) and re-traces; an edit that makes the
// trace fail is undone and the reason shown in the banner.
static void apply_edit(Gui *g, double delta)
{
    CellRef c = g->st.pinned;
    double *ref = view_param_ref(&g->edit, c);
    if (!ref) return;
    double old = *ref, v = round((old + delta) * 1e4) / 1e4;
    if (v == 0.0) v = 0.0; // no -0 from rounding
    if (!view_param_set(&g->edit, c, v)) {
        show_error(g, "Edit undone: the value must be a finite number");
        return;
    }
    Trace t;
    TraceError terr;
    if (!trace_run(&t, &g->edit, &terr)) {
        view_param_set(&g->edit, c, old);
        show_error(g, "Edit undone: %s", terr.message);
        return;
    }
    trace_free(&g->trace);
    g->trace = t;
    g->cmp_stale = true;
    g->edit_error[0] = '\0';
    g->status[0] = '\0';
}

static void revert(Gui *g)
{
    AttnParams p;
    Trace t;
    TraceError terr;
    if (!params_copy(&p, &g->lesson.params)) return;
    if (!trace_run(&t, &p, &terr)) { // cannot happen: the file's values traced when it was loaded
        params_free(&p);
        return;
    }
    int n = view_param_edit_count(&g->lesson.params, &g->edit);
    params_free(&g->edit);
    trace_free(&g->trace);
    g->edit = p;
    g->trace = t;
    g->cmp_stale = true;
    g->edit_error[0] = '\0';
    snprintf(g->status, sizeof g->status, n ? "Reverted %d edited value%s to the file" : "Nothing to revert: no value is edited",
             n, n == 1 ? "" : "s");
}

static void save(Gui *g)
{
    char out[1100], shown[1800];
    if (!lesson_edited_path(out, sizeof out, g->path[0] ? g->path : NULL, g->saved[0] ? g->saved : NULL)) {
        show_error(g, "Not saved: no free name for the edited lesson");
        return;
    }
    size_t len = 0;
    char *text = lesson_write_json(&g->lesson, &g->edit, " (edited)", &len);
    LessonError err;
    if (!text) {
        show_error(g, "Not saved: out of memory");
        return;
    }
    if (!lesson_write_file(out, text, len, &err)) {
        show_error(g, "Not saved: %s: %s", err.file, err.message);
        free(text);
        return;
    }
    free(text);
    snprintf(g->saved, sizeof g->saved, "%s", out);
    // "Saved as NAME-edited.json in DIR": the file name first, so it survives if the line must be cut.
    char cwd[600] = ".";
    const char *slash = strrchr(out, '/');
    if (slash) snprintf(shown, sizeof shown, "%s in %.*s", slash + 1, (int)(slash - out), out);
    else snprintf(shown, sizeof shown, "%s in %s", out, getcwd(cwd, sizeof cwd) ? cwd : ".");
    int n = view_param_edit_count(&g->lesson.params, &g->edit);
    snprintf(g->status, sizeof g->status, "Saved %d edit%s as %s", n, n == 1 ? "" : "s", shown);
    g->edit_error[0] = '\0';
}

// E and Shift+E: the heatmap of the view, or the whole board of the stage, as PNG and SVG in exports/ beside
// the lesson (the working directory for the built-in one), as the window shows it (edits included). The
// header names the file for FLASH_MS; a failure goes to the banner.
static void export_view(Gui *g, bool board)
{
    ExportRequest req;
    export_request_defaults(&req);
    char dir[1100], name[128], fonts[1100];
    const char *lp = g->path[0] ? g->path : NULL;
    export_default_dir(lp, dir, sizeof dir);
    snprintf(fonts, sizeof fonts, "%s/fonts", g->assets);
    Lesson shown = g->lesson; // the file's tokens and title with the edited numbers
    shown.params = g->edit;
    SceneExtras ex = {.original = &g->lesson.params, .compare = g->have_cmp && !g->cmp_stale ? &g->cmp : NULL};
    req.dir = dir;
    req.create_dir = true;
    req.font_dir = fonts;
    req.name = export_name_for(lp, &g->lesson, name, sizeof name);
    req.formats = EXPORT_PNG | EXPORT_SVG;
    req.view = &ex;
    ExportResult res;
    ExportError err;
    if (!export_from_view(&req, board, &g->st, &shown, &g->trace, &res, &err)) {
        show_error(g, "Not exported: %s", err.message);
        g->flash[0] = '\0';
        return;
    }
    // "Exported NAME.png and .svg to DIR": the file name first, so it survives if the line must be cut.
    const char *first = res.count > 0 ? res.paths[0] : "";
    const char *slash = strrchr(first, '/');
    const char *file = slash ? slash + 1 : first;
    char where[1800], cwd[600];
    if (dir[0] == '/') snprintf(where, sizeof where, "%s", dir);
    else snprintf(where, sizeof where, "%s/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", dir);
    size_t stem = strlen(file) > 4 ? strlen(file) - 4 : strlen(file); // without ".png"
    snprintf(g->flash, sizeof g->flash, "Exported %.*s.png%s to %s", (int)stem, file, res.count > 1 ? " and .svg" : "",
             where);
    g->flash_until = SDL_GetTicks() + FLASH_MS;
    g->edit_error[0] = '\0';
    export_result_free(&res);
}

// Passes one event to the state machine and carries out what it asks for. Returns true to redraw.
static bool dispatch(Gui *g, const ViewEvent *ev)
{
    bool changed = view_handle(&g->st, ev);
    switch (g->st.request) {
    case VIEW_REQ_EDIT: apply_edit(g, g->st.request_delta); break;
    case VIEW_REQ_REVERT: revert(g); break;
    case VIEW_REQ_SAVE: save(g); break;
    case VIEW_REQ_EXPORT: export_view(g, false); break;
    case VIEW_REQ_EXPORT_BOARD: export_view(g, true); break;
    default: break;
    }
    g->st.request = VIEW_REQ_NONE;
    return changed;
}

// Translates one SDL event; returns true when the screen must be redrawn.
static bool handle_event(Gui *g, const SDL_Event *e)
{
    ViewEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.head = -1;
    switch (e->type) {
    case SDL_QUIT: g->st.quit = true; return false;
    case SDL_KEYDOWN: {
        ev.kind = VIEW_EV_KEY;
        ev.key = map_key(e->key.keysym.sym, &ev.digit);
        if (e->key.keysym.mod & KMOD_SHIFT) ev.mods |= VIEW_MOD_SHIFT;
        if (e->key.keysym.mod & KMOD_CTRL) ev.mods |= VIEW_MOD_CTRL;
        if (ev.key == VIEW_KEY_NONE) return false;
        return dispatch(g, &ev);
    }
    case SDL_MOUSEMOTION: {
        int x, y, head;
        to_pixels(g, e->motion.x, e->motion.y, &x, &y);
        g->mouse_x = x;
        g->mouse_y = y;
        g->mouse_in = true;
        if (g->dragging) { // vertical drag on the pinned cell changes its value
            if (!(e->motion.state & SDL_BUTTON_LMASK)) g->dragging = false;
            else if (y != g->drag_y) {
                ev.kind = VIEW_EV_DRAG;
                ev.y = y - g->drag_y;
                if (SDL_GetModState() & KMOD_SHIFT) ev.mods |= VIEW_MOD_SHIFT;
                g->drag_y = y;
                g->dragged = true;
                return dispatch(g, &ev);
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
        ev.kind = VIEW_EV_CLICK;
        if (!scene_hit(&g->scene, x, y, &ev.cell, &ev.head)) {
            ev.cell.mat = MAT_NONE;
            ev.head = -1;
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
        return dispatch(g, &ev);
    }
    case SDL_MOUSEBUTTONUP: {
        if (e->button.button != SDL_BUTTON_LEFT || !g->dragging) return false;
        g->dragging = false;
        if (g->dragged) return false;
        int x, y;
        to_pixels(g, e->button.x, e->button.y, &x, &y);
        ev.kind = VIEW_EV_CLICK;
        if (!scene_hit(&g->scene, x, y, &ev.cell, &ev.head)) return false;
        // A second click on the pinned cell (press and release without a drag) unpins it.
        if (!g->press_was_pinned) return false;
        return dispatch(g, &ev);
    }
    case SDL_MOUSEWHEEL:
        ev.kind = VIEW_EV_WHEEL;
        ev.wheel = e->wheel.y;
        if (SDL_GetModState() & KMOD_CTRL) ev.mods |= VIEW_MOD_CTRL;
        if (SDL_GetModState() & KMOD_SHIFT) ev.mods |= VIEW_MOD_SHIFT;
        return dispatch(g, &ev);
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
        if (load_lesson(g, file)) watch(g, file);
        SDL_free(file);
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

// ---------------------------------------------------------------------------------------------------
// The event storm (a test, issue 6): MHA_TRACER_STORM=COUNT:SEED pushes COUNT seeded random events through
// handle_event, as if a class of students had the mouse and the keyboard: every bound key and others, with
// modifiers, pointer moves, clicks (half of them on cells), the wheel, window sizes from 1x1 to 8000x5000,
// drops of the files listed in MHA_TRACER_STORM_DROPS (colon-separated, good and bad) and of text. The
// lesson opened on the command line is rewritten three times (valid -> broken at COUNT/3, -> valid at
// 2·COUNT/3, -> broken at the end) and each change is waited for until the file watch has seen it. Q, Esc
// and quit are never sent, so the storm runs to the end; then one line of counts goes to stderr and the
// window goes on as usual.

enum { SK_KEY, SK_KEYUP, SK_TEXT, SK_MOTION, SK_BUTTON, SK_WHEEL, SK_RESIZE, SK_WINDOW, SK_DROP_GOOD, SK_DROP_BAD,
       SK_DROP_TEXT, SK_KINDS };
static const char *const STORM_KIND[SK_KINDS] = {"keys", "keyups", "text", "motion", "buttons", "wheel",
                                                 "resizes", "window", "drops-ok", "drops-bad", "drop-text"};

typedef struct {
    long count, sent;
    uint64_t rng;
    long kinds[SK_KINDS];
    char **drops;           // the files it may drop (SDL_strdup'd into each event)
    int ndrops;
    char target[1024];      // the lesson rewritten mid-run ("" when the window opened the built-in one)
    char *original;         // its bytes at the start
    size_t original_len;
    int phase;              // rewrites done (0..3)
    bool await_drop;        // the target was dropped; the rewrite follows once the drop is handled
    long await_reloads;     // waiting for the watch to see a rewrite: the value of watch_reloads to exceed
    Uint32 await_until;
    long rewrites, rewrites_seen, exports;
    Uint32 started;
    bool done;
} Storm;

static uint64_t storm_next(Storm *s)
{
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ULL); // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static int storm_int(Storm *s, int n) { return n > 0 ? (int)(storm_next(s) % (uint64_t)n) : 0; }

static bool read_all(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *p = realloc(buf, cap *= 2);
            if (!p) free(buf);
            buf = p;
        }
    }
    fclose(f);
    if (!buf) return false;
    *out = buf;
    *len = n;
    return true;
}

static void write_bytes(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, len, f);
    fclose(f);
}

// Reads MHA_TRACER_STORM (and _DROPS); false when there is no storm to run.
static bool storm_init(Storm *s, const char *lesson_path)
{
    memset(s, 0, sizeof *s);
    const char *spec = getenv("MHA_TRACER_STORM");
    unsigned long long seed = 1;
    long count = 0;
    if (!spec || sscanf(spec, "%ld:%llu", &count, &seed) < 1 || count <= 0) return false;
    s->count = count;
    s->rng = seed;
    const char *list = getenv("MHA_TRACER_STORM_DROPS");
    if (list && list[0]) {
        int n = 1;
        for (const char *p = list; *p; p++) n += *p == ':';
        s->drops = calloc((size_t)n, sizeof *s->drops);
        const char *p = list;
        for (int i = 0; s->drops && i < n; i++) {
            const char *end = strchr(p, ':');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            s->drops[s->ndrops] = malloc(len + 1);
            if (!s->drops[s->ndrops]) break;
            memcpy(s->drops[s->ndrops], p, len);
            s->drops[s->ndrops++][len] = '\0';
            p = end ? end + 1 : p + len;
        }
    }
    if (lesson_path && read_all(lesson_path, &s->original, &s->original_len))
        snprintf(s->target, sizeof s->target, "%s", lesson_path);
    s->started = SDL_GetTicks();
    return true;
}

static void storm_free(Storm *s)
{
    for (int i = 0; i < s->ndrops; i++) free(s->drops[i]);
    free(s->drops);
    free(s->original);
    memset(s, 0, sizeof *s);
}

static const SDL_Keycode STORM_KEYS[] = {
    SDLK_RIGHT, SDLK_LEFT, SDLK_UP, SDLK_DOWN, SDLK_SPACE, SDLK_BACKSPACE, SDLK_PAGEDOWN, SDLK_PAGEUP, SDLK_HOME,
    SDLK_END, SDLK_PERIOD, SDLK_COMMA, SDLK_KP_PERIOD, SDLK_KP_COMMA, SDLK_1, SDLK_2, SDLK_3, SDLK_4, SDLK_5, SDLK_6,
    SDLK_7, SDLK_8, SDLK_9, SDLK_KP_1, SDLK_KP_9, SDLK_TAB, SDLK_a, SDLK_f, SDLK_F11, SDLK_PLUS, SDLK_EQUALS,
    SDLK_KP_PLUS, SDLK_MINUS, SDLK_KP_MINUS, SDLK_0, SDLK_KP_0, SDLK_h, SDLK_F1, SDLK_c, SDLK_k, SDLK_m, SDLK_r,
    SDLK_s, SDLK_e,
};

static void storm_key(Gui *g, Storm *s, SDL_Event *e)
{
    SDL_Keycode k;
    int pick = storm_int(s, 100);
    if (pick < 75) {
        k = STORM_KEYS[storm_int(s, (int)(sizeof STORM_KEYS / sizeof STORM_KEYS[0]))];
    } else if (pick < 90) {
        k = (SDL_Keycode)(' ' + storm_int(s, 95)); // printable ASCII
    } else {
        k = (SDL_Keycode)(storm_next(s) & (storm_int(s, 2) ? 0x400001FFu : 0xFFFFFFFFu)); // anything, scancode keys too
    }
    if (k == SDLK_q || k == SDLK_ESCAPE || k == SDLK_AC_BACK) k = SDLK_RIGHT; // the storm must not end itself
    // E and Shift+E write two images each: now and then, not one key in forty.
    if (k == SDLK_e && storm_int(s, 8) != 0) k = SDLK_PERIOD;
    static const Uint16 MODS[] = {KMOD_NONE, KMOD_NONE, KMOD_NONE, KMOD_LSHIFT, KMOD_RSHIFT, KMOD_LCTRL, KMOD_RCTRL,
                                  KMOD_LALT, KMOD_LSHIFT | KMOD_LCTRL, KMOD_LGUI, KMOD_CAPS | KMOD_NUM, 0xFFFF};
    bool up = storm_int(s, 5) == 0;
    if (k == SDLK_e && !up) s->exports++;
    e->type = up ? SDL_KEYUP : SDL_KEYDOWN;
    e->key.windowID = SDL_GetWindowID(g->win);
    e->key.state = up ? SDL_RELEASED : SDL_PRESSED;
    e->key.repeat = (Uint8)(storm_int(s, 4) == 0);
    e->key.keysym.sym = k;
    e->key.keysym.scancode = SDL_GetScancodeFromKey(k);
    e->key.keysym.mod = MODS[storm_int(s, (int)(sizeof MODS / sizeof MODS[0]))];
    s->kinds[up ? SK_KEYUP : SK_KEY]++;
}

// A point in the window, on a cell of the scene half of the time.
static void storm_point(Gui *g, Storm *s, int *x, int *y)
{
    int w, h;
    SDL_GetWindowSize(g->win, &w, &h);
    if (g->scene.hit_count > 0 && storm_int(s, 2)) {
        const HitRegion *r = &g->scene.hits[storm_int(s, (int)g->scene.hit_count)];
        int pw, ph; // scene pixels -> window coordinates
        SDL_GetRendererOutputSize(g->ren, &pw, &ph);
        int px = r->x + storm_int(s, r->w > 0 ? r->w : 1), py = r->y + storm_int(s, r->h > 0 ? r->h : 1);
        *x = pw > 0 ? (int)((long long)px * w / pw) : px;
        *y = ph > 0 ? (int)((long long)py * h / ph) : py;
        return;
    }
    *x = storm_int(s, w + 200) - 100; // outside now and then
    *y = storm_int(s, h + 200) - 100;
}

static void storm_resize(Gui *g, Storm *s, SDL_Event *e)
{
    static const int SIZES[][2] = {{1, 1}, {50, 30}, {2, 700}, {700, 2}, {640, 400}, {1280, 720}, {1920, 1080},
                                   {8000, 5000}, {3840, 2160}, {333, 777}};
    int i = storm_int(s, (int)(sizeof SIZES / sizeof SIZES[0]) + 1), w, h;
    if (i < (int)(sizeof SIZES / sizeof SIZES[0])) {
        w = SIZES[i][0];
        h = SIZES[i][1];
    } else {
        w = 1 + storm_int(s, 2500);
        h = 1 + storm_int(s, 1500);
    }
    SDL_SetWindowSize(g->win, w, h); // the window manager (or X) may refuse: the event says it anyway
    e->type = SDL_WINDOWEVENT;
    e->window.windowID = SDL_GetWindowID(g->win);
    e->window.event = storm_int(s, 2) ? SDL_WINDOWEVENT_RESIZED : SDL_WINDOWEVENT_SIZE_CHANGED;
    e->window.data1 = w;
    e->window.data2 = h;
    s->kinds[SK_RESIZE]++;
}

static void storm_drop(Gui *g, Storm *s, SDL_Event *e, const char *path, int kind)
{
    e->type = kind == SK_DROP_TEXT ? SDL_DROPTEXT : SDL_DROPFILE;
    e->drop.windowID = SDL_GetWindowID(g->win);
    e->drop.file = SDL_strdup(path);
    s->kinds[kind]++;
}

// One random event (not yet pushed).
static void storm_event(Gui *g, Storm *s, SDL_Event *e)
{
    memset(e, 0, sizeof *e);
    e->common.timestamp = SDL_GetTicks();
    int r = storm_int(s, 1000);
    if (r < 380) {
        storm_key(g, s, e);
    } else if (r < 420) {
        e->type = SDL_TEXTINPUT;
        e->text.windowID = SDL_GetWindowID(g->win);
        for (int i = 0, n = 1 + storm_int(s, 8); i < n; i++) e->text.text[i] = (char)(1 + storm_int(s, 255));
        s->kinds[SK_TEXT]++;
    } else if (r < 640) {
        int x, y;
        storm_point(g, s, &x, &y);
        e->type = SDL_MOUSEMOTION;
        e->motion.windowID = SDL_GetWindowID(g->win);
        e->motion.x = x;
        e->motion.y = y;
        e->motion.xrel = storm_int(s, 41) - 20;
        e->motion.yrel = storm_int(s, 41) - 20;
        e->motion.state = storm_int(s, 3) ? SDL_BUTTON_LMASK : 0; // drags, mostly
        s->kinds[SK_MOTION]++;
    } else if (r < 820) {
        int x, y;
        storm_point(g, s, &x, &y);
        bool down = storm_int(s, 2);
        e->type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
        e->button.windowID = SDL_GetWindowID(g->win);
        e->button.button = (Uint8)(storm_int(s, 4) ? SDL_BUTTON_LEFT : 1 + storm_int(s, 5));
        e->button.state = down ? SDL_PRESSED : SDL_RELEASED;
        e->button.clicks = (Uint8)(1 + storm_int(s, 3));
        e->button.x = x;
        e->button.y = y;
        s->kinds[SK_BUTTON]++;
    } else if (r < 920) {
        static const SDL_Keymod WMODS[] = {KMOD_NONE, KMOD_NONE, KMOD_LSHIFT, KMOD_LCTRL, KMOD_LCTRL | KMOD_LSHIFT};
        SDL_SetModState(WMODS[storm_int(s, 5)]); // the wheel reads the modifiers from SDL
        e->type = SDL_MOUSEWHEEL;
        e->wheel.windowID = SDL_GetWindowID(g->win);
        e->wheel.x = storm_int(s, 3) - 1;
        e->wheel.y = storm_int(s, 10) == 0 ? storm_int(s, 201) - 100 : storm_int(s, 7) - 3;
        e->wheel.direction = storm_int(s, 2) ? SDL_MOUSEWHEEL_FLIPPED : SDL_MOUSEWHEEL_NORMAL;
        s->kinds[SK_WHEEL]++;
    } else if (r < 950) {
        storm_resize(g, s, e);
    } else if (r < 975) {
        static const Uint8 WEV[] = {SDL_WINDOWEVENT_SHOWN, SDL_WINDOWEVENT_HIDDEN, SDL_WINDOWEVENT_EXPOSED,
                                    SDL_WINDOWEVENT_MINIMIZED, SDL_WINDOWEVENT_MAXIMIZED, SDL_WINDOWEVENT_RESTORED,
                                    SDL_WINDOWEVENT_ENTER, SDL_WINDOWEVENT_LEAVE, SDL_WINDOWEVENT_FOCUS_GAINED,
                                    SDL_WINDOWEVENT_FOCUS_LOST, SDL_WINDOWEVENT_MOVED};
        e->type = storm_int(s, 8) ? SDL_WINDOWEVENT : SDL_RENDER_TARGETS_RESET;
        e->window.windowID = SDL_GetWindowID(g->win);
        e->window.event = WEV[storm_int(s, (int)sizeof WEV)];
        s->kinds[SK_WINDOW]++;
    } else if (s->ndrops > 0 && r < 995) {
        // Good or bad: whether it loads. While the target is broken (phase 1) no good file may take the
        // watch from it, so a good pick becomes a missing file.
        const char *path = s->drops[storm_int(s, s->ndrops)];
        Lesson probe;
        LessonError lerr;
        bool good = lesson_load(&probe, path, &lerr);
        if (good) lesson_free(&probe);
        if (good && s->phase == 1) {
            path = "/nonexistent/storm.json";
            good = false;
        }
        storm_drop(g, s, e, path, good ? SK_DROP_GOOD : SK_DROP_BAD);
    } else {
        storm_drop(g, s, e, "dragged text, not a file", SK_DROP_TEXT);
    }
}

// A rewrite of the target: drop it first (so it is the watched file), then change it once the drop is handled.
static const char STORM_BROKEN[] = "{\"title\": \"Broken by the storm\", \"tokens\": [\"a\"],\n  \"heads\": oops}\n";

static void storm_rewrite(Gui *g, Storm *s)
{
    if (strcmp(g->path, s->target) != 0) return; // the target could not be opened: nothing to watch
    s->phase++;
    if (s->phase == 2) write_bytes(s->target, s->original, s->original_len);
    else if (s->phase == 1) write_bytes(s->target, s->original, s->original_len / 2); // cut in the middle
    else write_bytes(s->target, STORM_BROKEN, sizeof STORM_BROKEN - 1);
    s->rewrites++;
    s->await_reloads = g->watch_reloads;
    s->await_until = SDL_GetTicks() + 5000;
}

// Pushes the next batch; returns true while the storm goes on.
static bool storm_step(Gui *g, Storm *s)
{
    if (s->done) return false;
    if (s->await_until) { // a rewrite is waiting for the file watch
        if (g->watch_reloads > s->await_reloads) s->rewrites_seen++;
        else if (!SDL_TICKS_PASSED(SDL_GetTicks(), s->await_until)) return true;
        s->await_until = 0;
    }
    if (s->await_drop) {
        s->await_drop = false;
        storm_rewrite(g, s);
        return true;
    }
    // The rewrites, at a third, two thirds and the end. Phase 2 (broken -> valid) needs no drop: the broken
    // file is still the watched one, because random drops of good files are held back while it is broken.
    long due = s->phase == 0 ? s->count / 3 : s->phase == 1 ? 2 * s->count / 3 : s->count;
    if (s->target[0] && s->phase < 3 && s->sent >= due) {
        if (s->phase == 1) {
            storm_rewrite(g, s);
        } else {
            SDL_Event e;
            memset(&e, 0, sizeof e);
            storm_drop(g, s, &e, s->target, SK_DROP_GOOD);
            if (SDL_PushEvent(&e) != 1) SDL_free(e.drop.file);
            s->await_drop = true;
        }
        return true;
    }
    if (s->sent >= s->count) {
        s->done = true;
        return false;
    }
    for (int i = 0; i < 16 && s->sent < s->count; i++) {
        SDL_Event e;
        storm_event(g, s, &e);
        if (SDL_PushEvent(&e) != 1 && (e.type == SDL_DROPFILE || e.type == SDL_DROPTEXT)) SDL_free(e.drop.file);
        s->sent++;
    }
    return true;
}

static void storm_report(Gui *g, const Storm *s, long loads0, long errors0)
{
    char kinds[600] = "";
    for (int k = 0; k < SK_KINDS; k++)
        snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), " %s=%ld", STORM_KIND[k], s->kinds[k]);
    fprintf(stderr,
            "storm: events=%ld%s rewrites=%ld rewrites_seen=%ld watch_reloads=%ld loads=%ld errors_shown=%ld "
            "exports=%ld frames=%ld sizes=%dx%d..%dx%d time_ms=%lu title=\"%s\"\n",
            s->sent, kinds, s->rewrites, s->rewrites_seen, g->watch_reloads, g->loads - loads0, g->errors - errors0,
            s->exports, g->frames, g->small_w, g->small_h, g->big_w, g->big_h, (unsigned long)(SDL_GetTicks() - s->started),
            g->have_lesson && g->lesson.title ? g->lesson.title : "");
}

static void set_icon(Gui *g)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/mha-tracer.png", g->assets);
    SDL_Surface *icon = IMG_Load(p);
    if (icon) {
        SDL_SetWindowIcon(g->win, icon);
        SDL_FreeSurface(icon);
    }
}

static void gui_free(Gui *g)
{
    scene_free(&g->scene);
    draw_sdl_destroy(g->draw);
    if (g->ren) SDL_DestroyRenderer(g->ren);
    if (g->win) SDL_DestroyWindow(g->win);
    if (g->have_cmp) compare_free(&g->cmp);
    if (g->have_lesson) {
        trace_free(&g->trace);
        params_free(&g->edit);
        lesson_free(&g->lesson);
    }
    if (g->frame_file) fclose(g->frame_file);
    TTF_Quit();
    SDL_Quit();
}

// Milliseconds since t0 on the monotonic clock (for MHA_TRACER_STATS).
static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

int gui_run(const GuiOptions *opt)
{
    struct timespec t_entry; // start to first frame, measured from here (main's work before is the CLI's)
    clock_gettime(CLOCK_MONOTONIC, &t_entry);
    Gui *g = calloc(1, sizeof *g);
    if (!g) return 1;
    scene_init(&g->scene);
    g->st.width = 1280;
    g->st.height = 720;
    const char *stats = getenv("MHA_TRACER_STATS");
    g->stats = stats && stats[0] == '1';
    const char *frame_title = getenv("MHA_TRACER_FRAME_TITLE");
    g->frame_title = frame_title && frame_title[0] == '1';
    // The first lesson must be valid: there is no last good lesson to fall back on.
    if (!load_lesson(g, opt->lesson_path)) {
        fprintf(stderr, "mha-tracer: %s\n", g->banner);
        free(g);
        return 2;
    }
    watch(g, opt->lesson_path);
    if (!find_assets(g->assets, sizeof g->assets)) {
        fprintf(stderr, "mha-tracer: cannot find the assets directory (fonts)\n");
        trace_free(&g->trace);
        params_free(&g->edit);
        lesson_free(&g->lesson);
        free(g);
        return 1;
    }
    const char *frame_path = getenv("MHA_TRACER_FRAME_FILE");
    if (frame_path && frame_path[0] && !(g->frame_file = fopen(frame_path, "a"))) {
        fprintf(stderr, "mha-tracer: cannot open MHA_TRACER_FRAME_FILE %s: %s\n", frame_path, strerror(errno));
        gui_free(g);
        free(g);
        return 1;
    }
    SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0");
    double lesson_ms = ms_since(&t_entry);
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0 || TTF_Init() != 0) {
        fprintf(stderr, "mha-tracer: cannot start SDL: %s\n", SDL_GetError());
        gui_free(g);
        free(g);
        return 1;
    }
    double sdl_ms = ms_since(&t_entry) - lesson_ms;
    Uint32 flags = SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI;
    if (opt->fullscreen) flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
    g->win = SDL_CreateWindow("mha-tracer", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, 1280, 720, flags);
    if (g->win) g->ren = SDL_CreateRenderer(g->win, -1, SDL_RENDERER_ACCELERATED);
    if (g->win && !g->ren) g->ren = SDL_CreateRenderer(g->win, -1, SDL_RENDERER_SOFTWARE);
    char err[512] = "", font_dir[1100];
    snprintf(font_dir, sizeof font_dir, "%s/fonts", g->assets);
    if (g->ren) g->draw = draw_sdl_create(g->ren, font_dir, err, sizeof err);
    if (!g->win || !g->ren || !g->draw) {
        fprintf(stderr, "mha-tracer: cannot open the window: %s\n", g->draw || !g->ren ? SDL_GetError() : err);
        gui_free(g);
        free(g);
        return 1;
    }
    SDL_SetWindowMinimumSize(g->win, 640, 400);
    g->tm = draw_sdl_metrics(g->draw);
    g->st.fullscreen = opt->fullscreen;
    g->fullscreen_applied = opt->fullscreen;
    set_title(g);
    set_icon(g);
    SDL_EventState(SDL_DROPFILE, SDL_ENABLE);
    double window_ms = ms_since(&t_entry) - lesson_ms - sdl_ms;
    bool first_frame = true;

    Storm storm;
    bool storming = storm_init(&storm, opt->lesson_path);
    long loads0 = g->loads, errors0 = g->errors;
    if (storming) SDL_SetWindowMinimumSize(g->win, 1, 1); // as under a window manager that ignores the minimum

    bool dirty = true;
    Uint32 next_watch = SDL_GetTicks() + WATCH_MS;
    while (!g->st.quit) {
        if (g->st.fullscreen != g->fullscreen_applied) {
            SDL_SetWindowFullscreen(g->win, g->st.fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
            g->fullscreen_applied = g->st.fullscreen;
            dirty = true;
        }
        if (dirty) {
            redraw(g);
            dirty = false;
            if (first_frame && g->stats)
                fprintf(stderr, "first_frame_ms=%.1f lesson_ms=%.1f sdl_init_ms=%.1f window_ms=%.1f (from gui_run)\n",
                        ms_since(&t_entry), lesson_ms, sdl_ms, window_ms);
            first_frame = false;
        }
        if (storming && !storm_step(g, &storm)) {
            storm_report(g, &storm, loads0, errors0);
            storm_free(&storm);
            storming = false;
            SDL_SetModState(KMOD_NONE); // the wheel reads these: no Ctrl left held by the storm
            SDL_SetWindowMinimumSize(g->win, 640, 400);
            SDL_SetWindowSize(g->win, 1280, 720);
            dirty = true;
        }
        // Idle means idle: block until an event arrives, the file watch is due or the export note expires.
        Uint32 now = SDL_GetTicks(), wake = next_watch;
        if (g->flash[0] && SDL_TICKS_PASSED(wake, g->flash_until)) wake = g->flash_until;
        int wait = SDL_TICKS_PASSED(now, wake) ? 0 : (int)(wake - now);
        if (storming) wait = storm.await_until && wait > 10 ? 10 : 0; // the storm's events are queued already
        SDL_Event e;
        if (SDL_WaitEventTimeout(&e, wait)) {
            dirty |= handle_event(g, &e);
            while (!g->st.quit && SDL_PollEvent(&e)) dirty |= handle_event(g, &e);
        }
        if (g->flash[0] && SDL_TICKS_PASSED(SDL_GetTicks(), g->flash_until)) {
            g->flash[0] = '\0';
            dirty = true;
        }
        if (SDL_TICKS_PASSED(SDL_GetTicks(), next_watch)) {
            dirty |= poll_watch(g);
            next_watch = SDL_GetTicks() + WATCH_MS;
        }
    }
    if (storming) storm_free(&storm); // quit before the storm ended
    gui_free(g);
    free(g);
    return 0;
}
