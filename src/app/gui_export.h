// The window's exports as files: the request for a slide as the window shows it (E), and the
// heatmaps of the training's checkpoints with their strip (V), re-traced from each checkpoint's
// weights; both on a worker thread (GuiExportJob), so that the window keeps drawing, with the
// progress, while they are written.
#ifndef MHA_GUI_EXPORT_H
#define MHA_GUI_EXPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "model/session.h"
#include "model/view.h"
#include "render/export.h"

#define GUI_STRIP_FRAMES 8 // checkpoints in the exported strip (V)

// A request for PNG and SVG slides of the window into dir (made when missing), named name, with the
// window's fonts, its dark theme when dark, and what the window adds to the lesson (ex).
void gui_export_request(ExportRequest *req, const char *dir, const char *fonts, const char *name,
                        bool dark, const SceneExtras *ex);

// What V wrote: where, the lesson's name the files start with, the strip's path.
typedef struct {
    char dir[1100], base[128], strip_path[1400];
    int written; // checkpoints written
} GuiTrainExport;

// V: the attention heatmap of st's head at each of doc's training checkpoints,
// NAME-train-NN-step-S.png/.svg, then a strip of up to GUI_STRIP_FRAMES of them spread over the
// run, NAME-train-strip-headH. doc's training must be active. False with the reason in msg (cap
// bytes) at the first failure.
bool gui_export_training(const Session *doc, const ViewState *st, const char *fonts,
                         GuiTrainExport *out, char *msg, size_t cap);

// --- the worker (a large lesson's export froze the window for seconds) ---

typedef enum {
    GUI_EXPORT_VIEW = 0,
    GUI_EXPORT_BOARD,
    GUI_EXPORT_TRAIN,
    GUI_EXPORT_HANDOUT // Ctrl+E: the handout of the lesson shown, for the head shown
} GuiExportKind;

// One export on the worker thread. The window fills it and starts it (gui_export_start); the worker
// then reads the session it was given, which must not change until gui_export_poll says the job has
// ended (the window refuses edits, loads, the file watch and training steps meanwhile), and fills
// what is below `made`. The main thread reads only done, progress and total while it runs.
typedef struct {
    struct PlatformThread
        *thread; // NULL: none, or the job ran on the calling thread (no thread could start)
    bool busy; // started and not yet taken by gui_export_poll
    atomic_bool done; // set by the worker when it has finished
    atomic_bool stop; // set by the window: stop before anything is written (a second Q)
    atomic_int progress, total; // files made, of how many (0 of 0: not yet counted)
    // asked:
    GuiExportKind kind;
    const Session *doc;
    ViewState st;
    const LessonQuestion *question; // the question on screen, for a board (NULL: none)
    char fonts[1100];
    const char *gate; // MHA_TRACER_EXPORT_GATE (tests): the worker waits until this file exists
    // made:
    bool ok;
    char msg[1300]; // why not, when !ok
    char dir[1100]; // where the files went
    ExportResult res; // VIEW, BOARD: the files written (free with gui_export_poll's caller)
    GuiTrainExport train; // TRAIN
} GuiExportJob;

// gui_export_training with its progress in job (files made of 2 per checkpoint and the strip) and
// stopped when the job is asked to stop; job NULL: none.
bool gui_export_training_job(const Session *doc, const ViewState *st, const char *fonts,
                             GuiTrainExport *out, char *msg, size_t cap, GuiExportJob *job);

// Starts job j (kind, doc, st, question, fonts and gate filled by the caller) on a worker thread,
// or runs it here when no thread starts (then it has ended when this returns).
void gui_export_start(GuiExportJob *j);
// True once the job has ended; it is then joined and no longer busy (its results are the caller's:
// export_result_free(&j->res) for VIEW and BOARD). False while it runs or when none was started.
bool gui_export_poll(GuiExportJob *j);
// Waits for the job (a job that has been asked to stop ends before it writes), as gui_export_poll.
void gui_export_wait(GuiExportJob *j);

#endif
