// What the window's files share (gui.c, gui_input.c): the Gui struct and the calls between them.
// Not for use outside src/app/gui*.c: a driver sees the window through gui.h.
#ifndef MHA_GUI_PRIVATE_H
#define MHA_GUI_PRIVATE_H

#include <SDL.h>
#include <stdio.h>

#include "app/gui.h"
#include "app/gui_export.h"
#include "model/questions.h"
#include "model/session.h"
#include "model/view.h"
#include "render/draw_sdl.h"
#include "render/scene.h"

// Everything the window owns; one per gui_run, passed around instead of globals.
struct Gui {
    SDL_Window *win;
    SDL_Renderer *ren;
    DrawSdl *draw;
    TextMetrics tm;
    Scene scene;
    ViewState st;
    Session doc; // the lesson, its edits and the watch on its file
    char status[2000]; // what the last save or revert did, shown on screen ("" when none)
    char edit_error[1300]; // why the last edit, save or export failed ("" when none)
    char flash[2200]; // what the last export wrote, shown until flash_until ("" when none)
    Uint32 flash_until;
    bool dragging, dragged; // the left button is held on the pinned editable cell
    bool panning; // the left button is held on no cell of a zoomed board: it moves the board
    bool sliding; // the left button was pressed on the scale slider: the scale follows the pointer
    bool seeking; // ... on the training strip: the checkpoint follows the pointer
    int pan_x, pan_y; // where the pointer was at the last pan step
    bool press_was_pinned; // the press was on the cell already pinned
    int drag_y;
    char banner[1300]; // error of the last failed load ("" when none)
    bool fullscreen_applied;
    SDL_Rect windowed; // where the window was before full screen (F goes back there)
    bool stats; // MHA_TRACER_STATS=1: frame times on stderr
    char assets[1024];
    int mouse_x, mouse_y; // last pointer position in pixels
    bool mouse_in;
    long errors; // errors put in a banner (for a driver's report)
    long frames;
    FILE *frame_file; // MHA_TRACER_FRAME_FILE: one line per frame presented (NULL: off)
    bool frame_title; // MHA_TRACER_FRAME_TITLE=1: "[frame N]" at the end of the title
    int small_w, small_h, big_w, big_h; // the smallest and largest frames drawn (by area)
    LessonQuestion auto_q; // the automatic question (key P), while it is on screen
    Uint32 train_next; // while training runs: when the next frame's steps are due (SDL ticks)
    double train_step_ms; // how long the last frame's steps took, per step
    Uint64 train_started; // when the steps on the worker were started (performance counter)
    int train_asked; // how many (0: none running)
    long train_steps_total; // steps taken in the window (MHA_TRACER_STATS)
    bool font_told; // the status line said which character no font shows (said once)
    const char *lang; // --lang, or NULL: each lesson's "language", else LANG
    bool confirm_quit; // Q or the close button with unsaved edits: the question on top waits for
                       // Ctrl+S, Q or Esc
    char *confirm_open; // a lesson dropped on unsaved edits (malloc'd path): the question waits for
                        // Ctrl+S, Enter or Esc
    bool notes_auto; // the notes are shown because the first stage is (README: "shown on the first
                     // stage")
    bool quit; // the loop ends (Q, the close button, or the confirmation's answer)
    GuiExportJob
        xjob; // E, Shift+E, V on the worker thread (xjob.busy: the session must not change)
    bool quit_after_export; // Q while exporting: quit (asking first when edits would be lost) once
                            // it has ended
    int xjob_shown; // the progress the last frame showed (a new count redraws)
    const char *export_gate; // MHA_TRACER_EXPORT_GATE (tests): exports wait until this file exists
    // The loop's own state (gui_turn), kept here so a browser's frame callback can carry it between
    // turns.
    bool dirty, first_frame;
    Uint32 next_watch;
    const GuiDriver *driver;
    Uint64 t_entry;
    Uint64 t_quit; // when the window began to close (MHA_TRACER_STATS: the teardown's time)
    double lesson_ms, sdl_ms, window_ms;
    double longest_turn_ms; // MHA_TRACER_STATS: the longest turn's own work (printed at the end)
    double last_turn_ms; // the last turn's own work (its wait for an event left out), for a driver
    bool last_turn_drew; // whether it presented a frame
};

// Passes one event to the state machine and carries out what it asks for (gui_requests.c). Returns
// true to redraw.
bool gui_dispatch(Gui *g, const ViewEvent *ev);

// The lesson in the window (gui_lesson.c). Loads path (first or again) into the window; false with
// the banner set when it fails.
bool gui_load_lesson(Gui *g, const char *path);
// The lesson held by the session is new (first: the window's first): the view follows its sizes and
// questions, the messages of the last one go.
void gui_lesson_loaded(Gui *g, bool first);
// The view's sizes of the lesson on the board (a lesson of layers: its layers and the one shown).
ViewDims gui_lesson_dims(const Gui *g);
// Polls the watched file; reloads it when its time stamp or size changed. Returns true when the
// screen changes.
bool gui_poll_watch(Gui *g);
// Ctrl+S: the edited lesson saved beside its file; the header says where, the banner why not.
void gui_save(Gui *g);
#ifdef __EMSCRIPTEN__
// The page's downloads: each file a save or an export wrote into the page's memory
// (Module.mhaDownload).
void gui_download_files(const char *const *paths, int n);
#endif

// A note in the header for a few seconds (gui.c).
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
#define FLASH_MS 4000 // how long "Exported ..." stays in the header
void gui_flash(Gui *g, const char *fmt, ...);

// Around the board, for the class (gui_class.c). Q or the close button: quit, or first the question
// on top when edits would be lost (a second close quits); never in the page.
void gui_ask_quit(Gui *g);
// That question's text: a title line, then its answers (Ctrl+S, Q, Esc), one a line.
const char *gui_confirm_text(const Gui *g, char *buf, size_t cap);
// An event while the question is up: Q quits, Esc stays, Ctrl+S asks the caller to save (then
// quit); anything else NONE (ignored, the board does not see it either). REDRAW or SAVE: the
// question closed.
typedef enum {
    GUI_CONFIRM_NONE = 0,
    GUI_CONFIRM_REDRAW,
    GUI_CONFIRM_SAVE,
    GUI_CONFIRM_OPEN
} GuiConfirm;
GuiConfirm gui_confirm_answer(Gui *g, const ViewEvent *ev);
// What the question on top asks (none, before quitting, before opening a dropped lesson), and what
// a key answers: nothing (ignored), stay (the question closes, nothing lost), go (quit / open, the
// edits lost), save then go. A pure decision, tested without a window (tests/test_gui_class.c).
typedef enum { GUI_ASK_NONE = 0, GUI_ASK_QUIT, GUI_ASK_OPEN } GuiAsk;
typedef enum { GUI_ANSWER_NONE = 0, GUI_ANSWER_STAY, GUI_ANSWER_GO, GUI_ANSWER_SAVE_GO } GuiAnswer;
GuiAnswer gui_confirm_decide(GuiAsk ask, const ViewEvent *ev);
// Whether a dropped lesson is opened at once (true) or first asked about (false): unsaved edits
// would be lost.
bool gui_drop_opens(bool unsaved);
// A lesson dropped on the window: true when the caller opens it now; false when (unsaved edits) the
// question comes first (the drop's path copied into g->confirm_open) or there was no memory for it.
bool gui_ask_open(Gui *g, const char *path);
// The question on top now (GUI_ASK_NONE: none).
GuiAsk gui_asking(const Gui *g);
// Esc with nothing open: the header says that Q quits.
void gui_quit_hint(Gui *g);
bool gui_has_notes(const Gui *g);
// The notes follow the first stage (stage_before: the stage index before the event, -1 after a
// load); N (n_pressed) shows or hides them, and says so when the lesson has none.
void gui_follow_notes(Gui *g, int stage_before, bool n_pressed);
// After an event (before: the state before it): a question on another head is said, and its end
// brings the board back to the class's head.
void gui_follow_question_head(Gui *g, const ViewState *before);

// gui_class.c: an error in the banner; the question on screen (one of the lesson's, the automatic
// one, or NULL). gui.c: what an export of the worker wrote, in the header (the page downloads it).
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void gui_show_error(Gui *g, const char *fmt, ...);

// Training in the window (gui_train.c): T; a frame's worth of steps started on the worker (every
// GUI_TRAIN_FRAME_MS while it runs); the worker's job taken when done (true: redraw); J / L; Z.
#define GUI_TRAIN_FRAME_MS 33 // a frame every 33 ms while training: 30 redraws a second
void gui_train_toggle(Gui *g);
void gui_train_tick(Gui *g);
bool gui_train_poll(Gui *g);
void gui_train_show(Gui *g, int dir);
void gui_train_restart(Gui *g);
const LessonQuestion *gui_shown_question(const Gui *g);
void gui_export_done(Gui *g);

// The export worker seen from the window (gui_exporting.c): E / Shift+E (board), V (the training's
// checkpoints), the header's line while it writes, what must wait meanwhile (true: the request
// waits), and Q or the close button while it writes.
void gui_export_begin(Gui *g, GuiExportKind kind);
void gui_export_view(Gui *g, bool board);
void gui_train_export(Gui *g);
void gui_export_progress_line(const Gui *g, char *buf, size_t cap);
bool gui_export_blocks(ViewRequest r);
void gui_quit_asked(Gui *g);

// gui_report.c: the window's title; the frame line of MHA_TRACER_FRAME_FILE after each frame
// presented (w, h: the drawable's size); a question phase's key in it ("asking").
void gui_set_title(Gui *g);
void gui_report_frame(Gui *g, int w, int h);
const char *gui_quiz_key(QuizPhase q);

// What one SDL event asks of the window (gui_input.c fills it, gui.c carries it out).
typedef struct {
    bool has_event; // event is for gui_dispatch
    ViewEvent event;
    char *drop_file; // a lesson dropped on the window, to load; SDL's string, freed with SDL_free
    bool quit; // the window's close button (SDL_QUIT): quit, asking first when edits would be lost
} GuiInput;
// Translates one SDL event into *out (the window's drags and pointer are followed in g); returns
// true when the screen must be redrawn whatever *out holds.
bool gui_input_translate(Gui *g, const SDL_Event *e, GuiInput *out);
// Whether e is Ctrl+C (the stage copied to the clipboard), from the same key table.
bool gui_input_is_copy(const SDL_Event *e);

#endif
