// The window: SDL events -> ViewEvent -> ViewState, scene_build -> draw_sdl, redrawn only when
// something changed. The document (the lesson, its edits, the file watch, revert, save:
// src/model/session.h) is a Session; the window finds the assets, polls the watch, loads dropped
// lessons, shows errors in the banner and the results of saves and exports in the header, and
// exports the view as slides (E, Shift+E). Environment: MHA_TRACER_STATS=1 prints frame times and
// the time to the first frame; MHA_TRACER_FRAME_FILE=PATH appends one line per frame presented (see
// gui_report_frame, gui_report.c), so tests wait for the program and not the clock;
// MHA_TRACER_FRAME_TITLE=1 puts the frame count in the title. A GuiDriver (gui.h) may run inside
// the loop: the event storm of tests/gui_storm.c; the product has none.
#include "app/gui.h"
#include "app/gui_export.h"
#include "app/gui_private.h"
#include "model/i18n.h"

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/panel_circuit.h"
#include "model/questions.h"
#include "model/session.h"
#include "model/stage_text.h"
#include "app/cli.h" // cli_line: messages to the terminal with control characters escaped
#include "model/view.h"
#include "render/draw_sdl.h"
#include "render/export.h"
#include "render/scene.h"
#include "platform/platform.h"

#ifndef MHA_SOURCE_ASSETS
#define MHA_SOURCE_ASSETS ""
#endif
#ifndef MHA_INSTALL_ASSETS
#define MHA_INSTALL_ASSETS ""
#endif

#define WATCH_MS 500

#define GUI_TRAIN_POLL_MS                                                                          \
    5 // while the worker trains: how often the loop looks whether it has finished
#define GUI_EXPORT_POLL_MS 30 // while the worker exports: how often the loop looks at its progress

#ifdef __EMSCRIPTEN__
static void gui_turn(Gui *g, bool block);
// The page's bar above the board (web/index.html asks for them through mha_web_bar_text): in the
// language of the interface, like every string the window shows.
static const char *const WEB_BAR[] = {
    N_("Lesson"),
    N_("Open lesson\xe2\x80\xa6"),
    N_("Open a lesson file (.json) from this computer; or drop one on the page"),
    N_("H: keys \xc2\xb7 E: download the heatmap \xc2\xb7 Ctrl+S: download your edits"),
    N_("The arrow keys and letters choose a lesson; Enter opens it"), // 4: the menu's description
};
#include "app/gui_web.inc"
#endif

static bool file_exists(const char *p)
{
    PlatformStat st;
    return platform_stat(p, true, &st);
}

// The assets directory: next to the program (../share/mha-tracer/assets, as installed), then the
// source tree the program was built from, then the install prefix.
bool gui_find_assets(char *out, size_t cap)
{
    char probe[1200];
    char *base = SDL_GetBasePath();
    if (base) {
        const char *rel[] = {"../share/mha-tracer/assets", "assets", "../assets",
                             "../Resources/assets"};
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

static void build_scene(Gui *g, int w, int h)
{
    Lesson shown = session_shown(&g->doc); // the file's tokens and title with the edited numbers
    // A question on screen asks about the lesson's own positions: the board shows them, not the
    // shift (key S).
    if (g->st.quiz_phase == QUIZ_ASKING || g->st.quiz_phase == QUIZ_JUDGING)
        shown.params.rope_shift = 0;
    char busy[2600];
    bool recomputing = session_retrace_busy(&g->doc);
    if (g->xjob.busy) gui_export_progress_line(g, busy, sizeof busy);
    else if (recomputing) // the board shows the edited value beside the results of the values
                          // before it
        snprintf(busy, sizeof busy, "%s",
                 TR("Recomputing the stages after the edit\xe2\x80\xa6 (the results shown are the "
                    "previous ones)"));
    int edits = session_edit_count(&g->doc);
    CircuitPanel circuit;
    panel_circuit_make(&circuit, &g->doc);
    SceneExtras ex = {.original = &g->doc.lesson.params,
                      .circuit = &circuit,
                      .edits = &edits,
                      .compare = session_comparison(&g->doc),
                      .shuffle = session_shuffled(&g->doc),
                      .train = &g->doc.train,
                      .tiles = session_tiled(&g->doc),
                      .status = g->xjob.busy || recomputing ? busy
                                : g->flash[0]               ? g->flash
                                : g->status[0]              ? g->status
                                                            : NULL,
                      .question = gui_shown_question(g)};
    const char *banner = g->banner[0] ? g->banner : g->edit_error[0] ? g->edit_error : NULL;
    SceneRequest rq = {.st = &g->st,
                       .lesson = &shown,
                       .trace = &g->doc.trace,
                       .ex = &ex,
                       .w = w,
                       .h = h,
                       .tm = &g->tm,
                       .banner = banner};
    scene_build_ex(&g->scene, &rq);
    char confirm[600];
    if (gui_asking(g) != GUI_ASK_NONE)
        scene_add_confirm(&g->scene, &g->st, &shown, &g->doc.trace, &g->tm,
                          gui_confirm_text(g, confirm, sizeof confirm));
    view_set_parts(&g->st, g->scene.substeps, g->scene.substep,
                   g->scene.part_result); // the keys step through what was shown
    view_set_notes_more(&g->st, g->scene.notes_more);
    view_set_pan_span(&g->st, g->scene.pan_span_x,
                      g->scene.pan_span_y); // a drag moves a zoomed board with it
    view_set_pan_used(&g->st, g->scene.pan_x, g->scene.pan_y); // ... from where it was seen
    if (g->st.panel == PANEL_TILES)
        view_set_tiles(&g->st, g->scene.tile_count); // the arrows stop at the last tile
    if (g->st.panel == PANEL_DECODE)
        view_set_decode_parts(&g->st, g->scene.decode_parts); // q·K, then A·V
    if (g->st.panel == PANEL_COMPARE || g->st.panel == PANEL_SHUFFLE)
        view_set_pair_parts(&g->st, g->scene.pair_parts); // the patterns, then the outputs
}

// Builds the scene and presents it: one frame per change.
static void redraw(Gui *g)
{
    int w, h;
    SDL_GetRendererOutputSize(g->ren, &w, &h);
    g->st.width = w;
    g->st.height = h;
    SessionError err;
    // (not while the worker exports: it reads the session; they are computed once it has finished)
    if (!g->xjob.busy && g->st.panel == PANEL_COMPARE && !session_compare(&g->doc, &err))
        gui_show_error(g, "%s", err.message);
    if (!g->xjob.busy && g->st.panel == PANEL_SHUFFLE
        && !session_shuffle(&g->doc, g->st.shuffle, &err))
        gui_show_error(g, "%s", err.message);
    // The tiles panel is made once per step; the frame and the page's text view read it.
    if (!g->xjob.busy && g->st.panel == PANEL_TILES
        && !session_tiles(&g->doc, g->st.head, g->st.tiles_block, g->st.tile))
        gui_show_error(g, "%s", "out of memory");
    Uint64 t0 = SDL_GetPerformanceCounter();
    build_scene(g, w, h);
    // A stage just reached asks the question due on its first part, once the scene has said what
    // its parts are: built again before anything is presented.
    ViewState before = g->st;
    if (view_walk_settle(&g->st)) {
        gui_follow_question_head(g, &before);
        build_scene(g, w, h);
    }
    // The layout may have moved under a still pointer: what it points at now is the hover. The
    // scene is built again before anything is presented, so no frame shows the stale hover.
    ViewEvent hover = {.kind = VIEW_EV_HOVER, .head = -1};
    int head;
    if (g->mouse_in && !scene_hit(&g->scene, g->mouse_x, g->mouse_y, &hover.cell, &head))
        hover.cell.mat = MAT_NONE;
    if (view_handle(&g->st, &hover)) {
        scene_keep_measures(&g->scene); // the same lesson and trace: only the hover moved
        build_scene(g, w, h);
    }
    // A character that no font on this computer shows is said once, in the status line, instead of
    // boxes.
    const char *missing = draw_sdl_missing(g->draw);
    if (missing[0] && !g->font_told) {
        g->font_told = true;
        snprintf(g->status, sizeof g->status, "%s", missing);
        scene_keep_measures(&g->scene); // the same lesson and trace: only the status line changed
        build_scene(g, w, h);
    }
    Uint64 t1 = SDL_GetPerformanceCounter();
    Rgba bg = g->scene.background;
    SDL_SetRenderDrawColor(g->ren, bg.r, bg.g, bg.b, 255);
    SDL_RenderClear(g->ren);
    draw_sdl_scene(g->draw, &g->scene);
    Uint64 t2 = SDL_GetPerformanceCounter();
    SDL_RenderPresent(g->ren);
    Uint64 t3 = SDL_GetPerformanceCounter();
    g->frames++;
    if (g->frames == 1 || (long)w * h < (long)g->small_w * g->small_h)
        g->small_w = w, g->small_h = h;
    if ((long)w * h > (long)g->big_w * g->big_h) g->big_w = w, g->big_h = h;
    gui_report_frame(g, w, h);
    if (g->stats) {
        double f = 1000.0 / (double)SDL_GetPerformanceFrequency();
        fprintf(stderr,
                "frame %dx%d stage=%s view=%s: scene %.2f ms, draw %.2f ms, present %.2f ms, total "
                "%.2f ms, "
                "%zu commands, %zu cached texts\n",
                w, h, stage_key(view_stage(&g->st)), g->st.view == VIEW_ALL_HEADS ? "all" : "one",
                (double)(t1 - t0) * f, (double)(t2 - t1) * f, (double)(t3 - t2) * f,
                (double)(t3 - t0) * f, g->scene.count, draw_sdl_cached(g->draw));
    }
}

// The worker's export has ended: the header says what it wrote, the banner why not.
void gui_export_done(Gui *g)
{
    GuiExportJob *j = &g->xjob;
    if (!j->ok) {
        gui_show_error(g, TR("Not exported: %s"), j->msg);
        g->flash[0] = '\0';
        export_result_free(&j->res);
        return;
    }
    g->flash_until = SDL_GetTicks() + FLASH_MS;
    g->edit_error[0] = '\0';
    if (j->kind == GUI_EXPORT_TRAIN) {
        GuiTrainExport *out = &j->train;
        snprintf(g->flash, sizeof g->flash,
                 TR("Exported %d checkpoints' heatmaps as %s-train-NN-step-S.png and .svg, and a "
                    "strip of them, to %s"),
                 out->written, out->base, out->dir);
#ifdef __EMSCRIPTEN__
        const char *strip =
            out->strip_path; // the page downloads the strip (the checkpoints stay in its memory)
        gui_download_files(&strip, 1);
        snprintf(g->flash, sizeof g->flash,
                 TR("Downloaded a strip of %d checkpoints' heatmaps as %s"), out->written,
                 strrchr(out->strip_path, '/') ? strrchr(out->strip_path, '/') + 1
                                               : out->strip_path);
#endif
        return;
    }
    // "Exported NAME.png and .svg to DIR": the file name first, so it survives if the line must be
    // cut.
    ExportResult *res = &j->res;
    const char *first = res->count > 0 ? res->paths[0] : "";
    const char *slash = strrchr(first, '/');
    const char *file = slash ? slash + 1 : first;
    char where[1800], cwd[600];
    if (platform_path_absolute(j->dir)) snprintf(where, sizeof where, "%s", j->dir);
    else
        snprintf(where, sizeof where, "%s/%s", platform_realpath(".", cwd, sizeof cwd) ? cwd : ".",
                 j->dir);
    size_t stem = strlen(file) > 4 ? strlen(file) - 4 : strlen(file); // without ".png"
    // The handout (Ctrl+E alone; Shift+E after the board's slides): a PDF, named whole.
    const char *last = res->count > 0 ? res->paths[res->count - 1] : "";
    size_t ln = strlen(last);
    const char *pdf = ln > 4 && strcmp(last + ln - 4, ".pdf") == 0
                          ? (strrchr(last, '/') ? strrchr(last, '/') + 1 : last)
                          : NULL;
    if (pdf && res->count == 1)
        snprintf(g->flash, sizeof g->flash, TR("Exported %s to %s"), pdf, where);
    else if (pdf)
        snprintf(g->flash, sizeof g->flash, TR("Exported %.*s.png, .svg and the handout %s to %s"),
                 (int)stem, file, pdf, where);
    else
        snprintf(g->flash, sizeof g->flash, TR("Exported %.*s.png%s to %s"), (int)stem, file,
                 res->count > 1 ? TR(" and .svg") : "", where);
#ifdef __EMSCRIPTEN__
    gui_download_files((const char *const *)res->paths, res->count);
    snprintf(g->flash, sizeof g->flash, TR("Downloaded %.*s.png%s"), (int)stem, file,
             res->count > 1 ? TR(" and .svg") : "");
#endif
    export_result_free(res);
}

// Each turn while the worker exports: its end shown (and a quit asked meanwhile carried out), or a
// new count of files made. Returns true when the screen changes.
static bool export_poll(Gui *g)
{
    if (gui_export_poll(&g->xjob)) {
        gui_export_done(g);
        if (g->quit_after_export) {
            g->quit_after_export = false;
            gui_ask_quit(g);
        }
        return true;
    }
    int done = g->xjob.busy ? atomic_load(&g->xjob.progress) : -1;
    if (done == g->xjob_shown) return false;
    g->xjob_shown = done;
    return g->xjob.busy;
}

#ifndef __EMSCRIPTEN__ // the page has the text view for this (gui_web.inc)
// Ctrl+C: the stage on screen as tab-separated text on the clipboard (stage_text_tsv: its title,
// formula and explanation, each matrix with its token headers, cells hidden by a question as "?"),
// for a spreadsheet or a screen reader's document; the header says so. Returns true (the header
// changed).
static bool copy_stage(Gui *g)
{
    Lesson shown = session_shown(&g->doc);
    StageTextSrc src = {&g->st, &shown, &g->doc.trace};
    StrBuf b = {0};
    if (!stage_text_tsv(&b, &src) || !b.p || SDL_SetClipboardText(b.p) != 0)
        gui_show_error(g, TR("Not copied: %s"), b.p ? SDL_GetError() : "out of memory");
    else {
        snprintf(g->flash, sizeof g->flash, "%s",
                 TR("Copied the stage as text (tab-separated, with the tokens) to the clipboard"));
        g->flash_until = SDL_GetTicks() + FLASH_MS;
    }
    free(b.p);
    return true;
}
#endif

// One SDL event: translated (gui_input.c), then carried out here.
static bool handle_event(Gui *g, const SDL_Event *e)
{
#ifndef __EMSCRIPTEN__
    if (gui_input_is_copy(e)) return copy_stage(g);
#endif
    GuiInput in;
    bool dirty = gui_input_translate(g, e, &in);
    if (in.has_event) dirty |= gui_dispatch(g, &in.event);
    if (in.quit) gui_quit_asked(g);
    if (in.drop_file && g->xjob.busy) {
        snprintf(g->flash, sizeof g->flash, "%s",
                 TR("Still exporting: edits, training and loads wait until it has finished"));
        g->flash_until = SDL_GetTicks() + FLASH_MS;
        SDL_free(in.drop_file);
        dirty = true;
    } else if (in.drop_file) {
        SessionError
            err; // an edit still being traced counts as unsaved: it is shown (or undone) first
        if (session_settle(&g->doc, &err) == SESSION_RETRACE_FAILED)
            gui_show_error(g, TR("Edit undone: %s"), err.message);
        if (gui_ask_open(g, in.drop_file))
            gui_load_lesson(g, in.drop_file); // unsaved edits: the question first
        SDL_free(in.drop_file);
    }
    return dirty;
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

static double ms_since(Uint64 t0)
{
    return (double)(SDL_GetPerformanceCounter() - t0) * 1e3 / (double)SDL_GetPerformanceFrequency();
}

static void gui_free(Gui *g)
{
    g->t_quit = SDL_GetPerformanceCounter();
    if (g->stats)
        fprintf(stderr, "longest_turn_ms=%.1f frames=%ld\n", g->longest_turn_ms, g->frames);
    // No SDL_HideWindow first: under Wine it alone took 2.0 s of the 2.1 s from Q to the process's
    // end (Wine waits for the X server to confirm the unmap), while freeing the
    // cached texts and the renderer took 14 ms (MHA_TRACER_STATS=1 prints teardown_ms).
    if (g->xjob.busy) { // an export still running ends first: its files are written whole or not at
                        // all
        gui_export_wait(&g->xjob);
        export_result_free(&g->xjob.res);
    }
    scene_free(&g->scene);
    draw_sdl_destroy(g->draw);
    if (g->ren) SDL_DestroyRenderer(g->ren);
#ifndef _WIN32
    if (g->win) SDL_DestroyWindow(g->win);
#endif
    session_free(&g->doc);
    lesson_question_free(&g->auto_q);
    free(g->confirm_open);
    if (g->frame_file) fclose(g->frame_file);
    TTF_Quit();
#ifndef _WIN32
    SDL_Quit();
#endif
    // On Windows the window goes with the process: SDL_DestroyWindow (and SDL_Quit, which destroys
    // it) took 2.0 s under Wine, waiting for the X server to confirm the unmap.
    // Everything written is written by now: the exports waited for, the frame file closed.
    if (g->stats) fprintf(stderr, "teardown_ms=%.1f\n", ms_since(g->t_quit));
}

// Milliseconds since t0 on the monotonic clock (for MHA_TRACER_STATS).

SDL_Window *gui_window(Gui *g) { return g->win; }
SDL_Renderer *gui_renderer(Gui *g) { return g->ren; }
const Scene *gui_scene(const Gui *g) { return &g->scene; }

void gui_counts(const Gui *g, GuiCounts *out)
{
    out->loads = g->doc.loads;
    out->errors = g->errors;
    out->watch_changes = g->doc.watch_changes;
    out->frames = g->frames;
    out->small_w = g->small_w;
    out->small_h = g->small_h;
    out->big_w = g->big_w;
    out->big_h = g->big_h;
    out->title = g->doc.loaded && g->doc.lesson.title ? g->doc.lesson.title : "";
    out->watched = g->doc.path;
    out->train_step = session_train_shown_step(&g->doc);
    out->last_turn_ms = g->last_turn_ms;
    out->last_turn_drew = g->last_turn_drew;
}

// What to do instead when no window can be opened (after the reason, on its own line).
static const char NO_DISPLAY_HINT[] =
    "mha-tracer: without a display, use --export DIR to write the slides as images or --trace to "
    "print every "
    "stage (see --help); set DISPLAY or WAYLAND_DISPLAY to open the window.\n";

// False when SDL chose a video driver that shows nothing ("offscreen", "dummy") without being asked
// to by SDL_VIDEODRIVER: SDL falls back on them when no X server or Wayland compositor answers.
static bool display_is_usable(void)
{
    const char *driver = SDL_GetCurrentVideoDriver();
    if (!driver) return false;
    if (strcmp(driver, "offscreen") != 0 && strcmp(driver, "dummy") != 0) return true;
    const char *asked = getenv("SDL_VIDEODRIVER");
    return asked && strstr(asked, driver) != NULL;
}

// F / F11: full screen, or back to the window's own place and size. The window is first made as
// large as the screen, so that without a window manager to honour the request (a bare X server, a
// kiosk) it still covers the screen and SDL's size (the screen's) is the window's: the board is
// laid out for the pixels there are.
static void apply_fullscreen(Gui *g)
{
    bool full = g->st.fullscreen;
    if (full) {
        SDL_GetWindowPosition(g->win, &g->windowed.x, &g->windowed.y);
        SDL_GetWindowSize(g->win, &g->windowed.w, &g->windowed.h);
        int display = SDL_GetWindowDisplayIndex(g->win);
        SDL_Rect screen;
        if (SDL_GetDisplayBounds(display > 0 ? display : 0, &screen) == 0) {
            SDL_SetWindowPosition(g->win, screen.x, screen.y);
            SDL_SetWindowSize(g->win, screen.w, screen.h);
        }
    }
    SDL_SetWindowFullscreen(g->win, full ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
    if (!full && g->windowed.w > 0) {
        SDL_SetWindowSize(g->win, g->windowed.w, g->windowed.h);
        SDL_SetWindowPosition(g->win, g->windowed.x, g->windowed.y);
    }
    g->fullscreen_applied = full;
}

// A turn's first step: full screen applied when F asked for it, and the frame drawn when something
// changed (MHA_TRACER_STATS: the time to the first frame).
static void turn_redraw(Gui *g)
{
    if (g->st.fullscreen != g->fullscreen_applied) {
        apply_fullscreen(g);
        g->dirty = true;
    }
    if (g->dirty) {
        redraw(g);
        g->dirty = false;
        if (g->first_frame && g->stats)
            fprintf(stderr,
                    "first_frame_ms=%.1f lesson_ms=%.1f sdl_init_ms=%.1f window_ms=%.1f (from "
                    "gui_run)\n",
                    ms_since(g->t_entry), g->lesson_ms, g->sdl_ms, g->window_ms);
        g->first_frame = false;
    }
}

// The driver's step (the event storm of a test), when one runs: how long it may wait (ms); its end
// redraws.
static int turn_driver(Gui *g)
{
    int driver_wait = g->driver ? g->driver->step(g->driver->ctx, g) : 0;
    if (g->driver && driver_wait == GUI_DRIVER_DONE) {
        g->driver = NULL;
        g->dirty = true;
    }
    return driver_wait;
}

// What the workers made taken: an edit's trace, an export's progress or end, training's steps (the
// next frame's started when due). *exporting: whether an export ran before its poll. Returns
// whether training's steps run on the worker now.
static bool turn_poll_workers(Gui *g, bool *exporting)
{
    // An edit's trace on the worker: shown when done (or the edits undone when it fails).
    if (session_retrace_busy(&g->doc)) {
        SessionError err;
        SessionRetracePoll r = session_retrace_poll(&g->doc, &err);
        if (r == SESSION_RETRACE_FAILED) gui_show_error(g, TR("Edit undone: %s"), err.message);
        if (r != SESSION_RETRACE_IDLE) g->dirty = true;
    }
    // An export on the worker: its progress or its end shown. Training waits for it (the export
    // reads the session).
    *exporting = g->xjob.busy;
    if (*exporting && export_poll(g)) g->dirty = true;
    // Training: what the worker made shown (a redraw), the steps of the next frame started when
    // they are due.
    if (!*exporting && gui_train_poll(g)) g->dirty = true;
    bool training = session_train_busy(&g->doc);
    if (!*exporting && g->doc.train.running && !training
        && SDL_TICKS_PASSED(SDL_GetTicks(), g->train_next)) {
        g->train_next = SDL_GetTicks() + GUI_TRAIN_FRAME_MS;
        gui_train_tick(g);
        training = true;
    }
    return training;
}

// How long the turn may wait for an event (ms): until the file watch, training's next steps, a
// worker's poll or the end of the header's note is due; 0 when there is something to draw or the
// loop must not block (the browser's).
static int turn_wait_ms(Gui *g, bool training, bool exporting, int driver_wait, bool block)
{
    // Idle means idle: block until an event arrives, the file watch is due or the export note
    // expires.
    Uint32 now = SDL_GetTicks(), wake = g->next_watch;
    // The next steps' start is a reason to wake only when they could start: while the worker runs a
    // step (or an export holds training back) its due time has passed, and waking for it spun the
    // loop, a core taken from the worker (8 s of CPU in 15 s of T at the weight limit; the worker
    // had 3).
    if (g->doc.train.running && !training && !exporting && SDL_TICKS_PASSED(wake, g->train_next))
        wake = g->train_next;
    if (training && SDL_TICKS_PASSED(wake, now + GUI_TRAIN_POLL_MS)) wake = now + GUI_TRAIN_POLL_MS;
    if (g->xjob.busy && SDL_TICKS_PASSED(wake, now + GUI_EXPORT_POLL_MS))
        wake = now + GUI_EXPORT_POLL_MS;
    if (session_retrace_busy(&g->doc) && SDL_TICKS_PASSED(wake, now + GUI_TRAIN_POLL_MS))
        wake = now + GUI_TRAIN_POLL_MS;
    if (g->flash[0] && SDL_TICKS_PASSED(wake, g->flash_until)) wake = g->flash_until;
    int wait = SDL_TICKS_PASSED(now, wake) ? 0 : (int)(wake - now);
    // What a worker made is drawn by the next turn's one redraw, with the events that came
    // meanwhile (a turn redrew twice when a key and a worker's result came together: 648 + 379 ms
    // at the weight limit).
    if (g->dirty) wait = 0;
    if (g->driver && wait > driver_wait) wait = driver_wait;
    if (!block) wait = 0;
    return wait;
}

// Waits up to wait ms for an event, then carries out every event that came. Returns the first
// one's type (0: none); *wait_start and *events_start: when the wait and the events began.
static Uint32 turn_events(Gui *g, int wait, Uint64 *wait_start, Uint64 *events_start)
{
    SDL_Event e;
    *wait_start = SDL_GetPerformanceCounter();
    bool got = SDL_WaitEventTimeout(&e, wait);
    *events_start = SDL_GetPerformanceCounter();
    Uint32 first_type = got ? e.type : 0;
    if (got) {
        g->dirty |= handle_event(g, &e);
        while (!g->quit && SDL_PollEvent(&e)) g->dirty |= handle_event(g, &e);
    }
    return first_type;
}

// After the events: the header's note goes when its time is up, the watched file is looked at when
// it is due.
static void turn_expire(Gui *g)
{
    if (g->flash[0] && SDL_TICKS_PASSED(SDL_GetTicks(), g->flash_until)) {
        g->flash[0] = '\0';
        g->dirty = true;
    }
    if (!g->xjob.busy
        && SDL_TICKS_PASSED(SDL_GetTicks(), g->next_watch)) { // (a reload waits for an export)
        g->dirty |= gui_poll_watch(g);
        g->next_watch = SDL_GetTicks() + WATCH_MS;
    }
}

// The turn's own work (its wait for an event left out), for a driver and MHA_TRACER_STATS: a frame
// should not wait on it long.
static void turn_measure(Gui *g, Uint64 turn_start, Uint64 wait_start, Uint64 events_start,
                         long frames_before, Uint32 first_type)
{
    double f = 1000.0 / (double)SDL_GetPerformanceFrequency();
    double before = (double)(wait_start - turn_start) * f,
           after = (double)(SDL_GetPerformanceCounter() - events_start) * f;
    g->last_turn_ms = before + after;
    g->last_turn_drew = g->frames != frames_before;
    if (g->stats) {
        if (before + after > g->longest_turn_ms) g->longest_turn_ms = before + after;
        if (before + after > 20.0)
            fprintf(
                stderr,
                "slow turn: %.1f ms (redraw and polls %.1f ms, events %.1f ms, first event 0x%x)\n",
                before + after, before, after, (unsigned)first_type);
    }
}

// One turn of the loop, shared by the desktop (block: wait for the next event, the file watch or
// the end of the export note) and the browser (never block: one turn per animation frame). Redraws
// only when something changed.
static void gui_turn(Gui *g, bool block)
{
    Uint64 turn_start = SDL_GetPerformanceCounter();
    long frames_before = g->frames;
    turn_redraw(g);
    int driver_wait = turn_driver(g);
    bool exporting;
    bool training = turn_poll_workers(g, &exporting);
    int wait = turn_wait_ms(g, training, exporting, driver_wait, block);
    Uint64 wait_start, events_start;
    Uint32 first_type = turn_events(g, wait, &wait_start, &events_start);
    turn_expire(g);
    turn_measure(g, turn_start, wait_start, events_start, frames_before, first_type);
}

// The window's settings before anything opens: its first size, the environment's switches
// (MHA_TRACER_STATS, MHA_TRACER_FRAME_TITLE, MHA_TRACER_EXPORT_GATE) and --lang.
static void read_settings(Gui *g, const GuiOptions *opt)
{
    scene_init(&g->scene);
    g->st.width = 1280;
    g->st.height = 720;
    const char *stats = getenv("MHA_TRACER_STATS");
    g->stats = stats && stats[0] == '1';
    const char *frame_title = getenv("MHA_TRACER_FRAME_TITLE");
    g->frame_title = frame_title && frame_title[0] == '1';
    g->lang = opt->lang;
    g->export_gate = getenv("MHA_TRACER_EXPORT_GATE");
}

// The first lesson (it must be valid: there is no last good lesson to fall back on), the head
// --head asks for, the assets and MHA_TRACER_FRAME_FILE. Returns 0, or the exit status after saying
// why (what it took freed; g itself is the caller's to free).
static int open_first_lesson(Gui *g, const GuiOptions *opt)
{
    session_init(&g->doc);
    g->doc.train.async = true; // training on the worker thread: no frame waits for a step
    g->doc.retrace_async =
        true; // an edit's trace too: the frame shows the last one, marked, until it is done
    SessionError first_err;
    bool first_ok = opt->lesson
                        ? session_take_lesson(&g->doc, opt->lesson, opt->lesson->title, &first_err)
                        : session_load(&g->doc, opt->lesson_path, &first_err);
    if (!first_ok) {
        cli_line(stderr, "mha-tracer: %s\n", first_err.message);
        return 2;
    }
    if (opt->beside && !session_beside_load(&g->doc, opt->beside, &first_err)) {
        cli_line(stderr, "mha-tracer: %s\n", first_err.message);
        session_free(&g->doc);
        return 2;
    }
    gui_lesson_loaded(g, true);
    if (opt->head > 0 && opt->head < g->doc.lesson.params.heads) g->st.head = opt->head;
    if (!gui_find_assets(g->assets, sizeof g->assets)) {
        fprintf(stderr, "mha-tracer: cannot find the assets directory (fonts)\n");
        session_free(&g->doc);
        return 1;
    }
    const char *frame_path = getenv("MHA_TRACER_FRAME_FILE");
    if (frame_path && frame_path[0] && !(g->frame_file = platform_fopen(frame_path, "ab"))) {
        cli_line(stderr, "mha-tracer: cannot open MHA_TRACER_FRAME_FILE %s: %s\n", frame_path,
                 strerror(errno));
        gui_free(g);
        return 1;
    }
    return 0;
}

// SDL's video and fonts started, on a display that someone sees. Returns 0, or 1 after saying why
// (everything freed but g).
static int start_sdl(Gui *g)
{
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0 || TTF_Init() != 0) {
        fprintf(stderr, "mha-tracer: error: cannot open a window: %s.\n%s", SDL_GetError(),
                NO_DISPLAY_HINT);
        gui_free(g);
        return 1;
    }
    // With no display SDL falls back on a driver that draws nowhere: the window would run unseen
    // for ever.
    if (!display_is_usable()) {
        fprintf(
            stderr,
            "mha-tracer: error: there is no display to open the window on: no X server or Wayland "
            "compositor answered (SDL would draw to its '%s' driver, which nobody sees).\n%s",
            SDL_GetCurrentVideoDriver(), NO_DISPLAY_HINT);
        gui_free(g);
        return 1;
    }
    return 0;
}

// The window (the screen's size with --fullscreen), its renderer and the drawing backend with the
// assets' fonts, its title and icon. Returns 0, or 1 after saying why (everything freed but g).
static int open_window(Gui *g, const GuiOptions *opt)
{
    Uint32 flags = SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI;
    if (opt->fullscreen) flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
    // Full screen from the start: made as large as the screen (see apply_fullscreen); F goes back
    // to 1280x720.
    g->windowed = (SDL_Rect){SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, 1280, 720};
    SDL_Rect at = g->windowed, screen;
    if (opt->fullscreen && SDL_GetDisplayBounds(0, &screen) == 0) at = screen;
    g->win = SDL_CreateWindow("mha-tracer", at.x, at.y, at.w, at.h, flags);
    if (g->win) g->ren = SDL_CreateRenderer(g->win, -1, SDL_RENDERER_ACCELERATED);
    if (g->win && !g->ren) g->ren = SDL_CreateRenderer(g->win, -1, SDL_RENDERER_SOFTWARE);
    char err[512] = "", font_dir[1100];
    snprintf(font_dir, sizeof font_dir, "%s/fonts", g->assets);
    if (g->ren) g->draw = draw_sdl_create(g->ren, font_dir, err, sizeof err);
    if (!g->win || !g->ren || !g->draw) {
        cli_line(stderr, "mha-tracer: cannot open the window: %s\n",
                 g->draw || !g->ren ? SDL_GetError() : err);
        gui_free(g);
        return 1;
    }
    SDL_SetWindowMinimumSize(g->win, GUI_MIN_W, GUI_MIN_H);
    g->tm = draw_sdl_metrics(g->draw);
    g->st.fullscreen = opt->fullscreen;
    g->fullscreen_applied = opt->fullscreen;
    gui_set_title(g);
    set_icon(g);
    SDL_EventState(SDL_DROPFILE, SDL_ENABLE);
    return 0;
}

int gui_run(const GuiOptions *opt)
{
    Uint64 t_entry = SDL_GetPerformanceCounter(); // start to first frame, from here (main's work
                                                  // before is the CLI's)
    Gui *g = calloc(1, sizeof *g);
    if (!g) return 1;
    read_settings(g, opt);
    int status = open_first_lesson(g, opt);
    if (status != 0) {
        free(g);
        return status;
    }
    SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0");
    double lesson_ms = ms_since(t_entry);
    status = start_sdl(g);
    double sdl_ms = ms_since(t_entry) - lesson_ms;
    if (status == 0) status = open_window(g, opt);
    if (status != 0) {
        free(g);
        return status;
    }
    g->window_ms = ms_since(t_entry) - lesson_ms - sdl_ms;
    g->lesson_ms = lesson_ms;
    g->sdl_ms = sdl_ms;
    g->t_entry = t_entry;
    g->first_frame = true;
    g->driver = opt->driver && opt->driver->start(opt->driver->ctx, g) ? opt->driver : NULL;
    g->dirty = true;
    g->next_watch = SDL_GetTicks() + WATCH_MS;
#ifdef __EMSCRIPTEN__
    // The browser owns the loop: one turn per animation frame, never blocking; a turn with nothing
    // new handles no event and draws nothing. gui_run returns at once and the page keeps running.
    web_started(g);
    emscripten_set_main_loop_arg(web_turn, g, 0, 0);
    return 0;
#else
    while (!g->quit) gui_turn(g, true);
    gui_free(g);
    free(g);
    return 0;
#endif
}
