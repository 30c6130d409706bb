// The window's side of the export worker (gui_export.c): starting an export of the view, the board
// or the training's checkpoints (E, Shift+E, V), its progress in the header, what waits while it
// writes, and Q while it writes (the files end whole first). What the worker wrote is shown by
// gui_export_done (gui.c, beside the page's downloads).
#include "app/gui_private.h"
#include "model/i18n.h"
#include "model/session.h"

#include <SDL.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

// The header while the worker exports: "Exporting 3 of 14 images…", then the last note (a key that
// must wait).
void gui_export_progress_line(const Gui *g, char *buf, size_t cap)
{
    int done = atomic_load(&g->xjob.progress), total = atomic_load(&g->xjob.total);
    if (total <= 0) snprintf(buf, cap, "%s", TR("Exporting\xe2\x80\xa6 (laying out the images)"));
    else
        snprintf(buf, cap,
                 TRN("Exporting %d of %d image\xe2\x80\xa6",
                     "Exporting %d of %d images\xe2\x80\xa6", total),
                 done < total ? done + 1 : total, total);
    if (g->flash[0]) {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, "   %s", g->flash);
    }
}

// E and Shift+E: the heatmap of the view, or the whole board of the stage, as PNG and SVG in
// exports/ beside the lesson (the working directory for the built-in one), as the window shows it
// (edits included), written on the worker thread (export_start); the header shows its progress,
// then names the file for FLASH_MS (export_done); a failure goes to the banner.
void gui_export_begin(Gui *g, GuiExportKind kind)
{
    if (g->xjob.busy) {
        snprintf(g->flash, sizeof g->flash, "%s",
                 TR("Still exporting: the next export when this one has finished"));
        g->flash_until = SDL_GetTicks() + FLASH_MS;
        return;
    }
    SessionError err;
    if (session_settle(&g->doc, &err) == SESSION_RETRACE_FAILED)
        gui_show_error(g, TR("Edit undone: %s"), err.message);
    GuiExportJob *j = &g->xjob;
    j->kind = kind;
    j->doc = &g->doc;
    j->st = g->st;
    j->question = gui_shown_question(g);
    j->gate = g->export_gate;
    snprintf(j->fonts, sizeof j->fonts, "%s/fonts", g->assets);
    g->flash[0] = '\0';
    g->xjob_shown = -1;
    gui_export_start(j);
}

void gui_export_view(Gui *g, bool board)
{
    gui_export_begin(g, board ? GUI_EXPORT_BOARD : GUI_EXPORT_VIEW);
}

// Q or the close button while exporting: the export ends first (its files are written whole), then
// the window quits as usual; a second one stops it before it writes anything.
void gui_quit_asked(Gui *g)
{
    SessionError err; // an edit still being traced counts as unsaved: it is shown (or undone) first
    if (session_settle(&g->doc, &err) == SESSION_RETRACE_FAILED)
        gui_show_error(g, TR("Edit undone: %s"), err.message);
    if (!g->xjob.busy) {
        gui_ask_quit(g);
        return;
    }
    if (g->quit_after_export) atomic_store(&g->xjob.stop, true);
    g->quit_after_export = true;
    snprintf(g->flash, sizeof g->flash, "%s",
             atomic_load(&g->xjob.stop)
                 ? TR("Stopping the export (nothing of it is written), then quitting")
                 : TR("Quitting when the export has finished (Q again: stop it and quit)"));
    g->flash_until = SDL_GetTicks() + FLASH_MS;
}

// V: the attention heatmap of the current head at every saved checkpoint, a numbered series
// NAME-train-NN-step-S.png/.svg in exports/ (NN in order, so a file browser shows them as a film
// strip), and a strip. A lesson of layers: the circuit panel, its loss curves and the heads'
// scores over the checkpoints, as NAME-circuit.png/.svg.
void gui_train_export(Gui *g)
{
    if (!g->doc.train.active) {
        gui_show_error(g, "%s", TR("Nothing to export: start training first (T)"));
        return;
    }
    if (g->xjob.busy) {
        gui_export_begin(g, GUI_EXPORT_TRAIN); // says it must wait
        return;
    }
    SessionError err;
    if (session_train_wait(&g->doc, &err) == SESSION_TRAIN_FAILED && err.message[0])
        gui_show_error(g, "%s", err.message);
    g->train_asked = 0;
    if (g->doc.circuit.on) { // a lesson of layers: the training's slide is the circuit panel (U)
        // Its steps run on this thread between frames: paused, so the worker reads still weights.
        if (g->doc.train.running && !session_train_toggle(&g->doc, &err))
            gui_show_error(g, "%s", err.message);
        ViewPanel was = g->st.panel;
        g->st.panel = PANEL_CIRCUIT; // (the job takes a copy of the view)
        gui_export_begin(g, GUI_EXPORT_BOARD);
        g->st.panel = was;
        return;
    }
    gui_export_begin(g, GUI_EXPORT_TRAIN);
}

// While the worker exports, the session it reads must not change: what a request would change waits
// (the exports themselves say they must wait; answering a question, saving and the quit hint read
// only).
bool gui_export_blocks(ViewRequest r)
{
    static const ViewRequest reads_only[] = {
        VIEW_REQ_NONE,         VIEW_REQ_EXPORT, VIEW_REQ_EXPORT_BOARD, VIEW_REQ_EXPORT_HANDOUT,
        VIEW_REQ_TRAIN_EXPORT, VIEW_REQ_ANSWER, VIEW_REQ_QUIT_HINT,    VIEW_REQ_SAVE};
    for (size_t i = 0; i < sizeof reads_only / sizeof reads_only[0]; i++)
        if (r == reads_only[i]) return false;
    return true;
}
