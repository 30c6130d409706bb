// The interactive window: opens a lesson and lets a teacher step through multi-head attention.
// A test program may drive the window from inside its loop (GuiDriver); mha-tracer itself passes
// none.
#ifndef MHA_GUI_H
#define MHA_GUI_H

#include <stdbool.h>
#include "render/scene.h"

struct SDL_Window;
struct SDL_Renderer;

typedef struct Gui Gui; // the open window, valid while gui_run runs

#define GUI_MIN_W 640 // the smallest window the user may make (pixels)
#define GUI_MIN_H 400

#define GUI_DRIVER_DONE (-1)

// A test driver run inside the window's loop (the event storm in tests/gui_storm.c). It pushes its
// own SDL events, which the window handles like any other.
typedef struct {
    void *ctx;
    // Once the window is open and the first lesson loaded. Returns false to drive nothing.
    bool (*start)(void *ctx, Gui *g);
    // On every turn of the loop, after any redraw and before the loop waits for events. Returns how
    // many milliseconds the loop may wait at most (0: do not block), or GUI_DRIVER_DONE when the
    // driver has finished: it is not called again and the window is redrawn.
    int (*step)(void *ctx, Gui *g);
} GuiDriver;

typedef struct {
    const char *lesson_path; // NULL: the built-in "The cat sat"
    bool fullscreen;
    const GuiDriver *driver; // NULL: none (the product)
    const char *lang; // --lang (one of i18n's codes), or NULL: each lesson's "language", else LANG
    Lesson *lesson; // a lesson made elsewhere (--model: a checkpoint's layer), taken over; NULL:
                    // lesson_path
    int head; // the head the window opens on (-1 or 0: the first)
    const char *beside; // --beside: a lesson of layers trained beside the one shown, or NULL
} GuiOptions;

// The assets folder (fonts, icon): next to the program (../share/mha-tracer/assets, as installed),
// then the source tree it was built from, then the install prefix. The one lookup of the program
// (the window and
// --export). False when none has the fonts.
bool gui_find_assets(char *out, size_t cap);

// Runs the window until the user quits. Returns the process exit status
// (0 normally; 1 when no window could be opened; 2 when the first lesson is invalid).
int gui_run(const GuiOptions *opt);

// What a driver may see of the window.
struct SDL_Window *gui_window(Gui *g);
struct SDL_Renderer *gui_renderer(Gui *g);
const Scene *gui_scene(
    const Gui *g); // the last frame built: its hit regions say where the cells are

typedef struct {
    long loads; // lessons loaded, the first one included
    long errors; // errors shown in the banner: failed loads, edits, saves and exports
    long watch_changes; // changes of the watched file seen
    long frames; // frames presented
    int small_w, small_h, big_w, big_h; // the smallest and the largest frame presented (by area)
    const char *title; // the title of the lesson shown
    const char *watched; // the file watched ("" for the built-in lesson)
    int train_step; // the training step whose weights are shown (-1: not training)
    double last_turn_ms; // the last finished turn of the loop: its own work in ms (its wait for
                         // events left out)
    bool last_turn_drew; // and whether it presented a frame
} GuiCounts;
void gui_counts(const Gui *g, GuiCounts *out);

#endif
