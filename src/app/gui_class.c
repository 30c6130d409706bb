// What the window does for the class around the board: quitting and opening a dropped lesson (Esc
// never quits; Q, the close button and a drop ask before unsaved edits are lost), the lesson's
// notes on the first stage, and a question on another head than the class's (said, and the board
// back on the class's head after it). Declared in gui_private.h.
#include <SDL.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/gui_private.h"
#include "model/i18n.h"

// Q or the window's close button: quits, unless edits would be lost; then a question on top asks
// first (a second close quits). The page never quits: it stays open until its tab is closed.
void gui_ask_quit(Gui *g)
{
#ifdef __EMSCRIPTEN__
    (void)g;
#else
    if (g->confirm_quit || !session_unsaved(&g->doc)) g->quit = true;
    else g->confirm_quit = true;
    free(g->confirm_open); // quitting is asked now: the dropped lesson waits no more
    g->confirm_open = NULL;
#endif
}

bool gui_drop_opens(bool unsaved) { return !unsaved; }

bool gui_ask_open(Gui *g, const char *path)
{
#ifdef __EMSCRIPTEN__
    // The page opens what its menu, picker, drop or address asks for at once, as it never asks
    // before quitting: the question is drawn on the canvas, out of a screen reader's reach, and its
    // address must be the screen.
    (void)g;
    (void)path;
    return true;
#else
    if (gui_drop_opens(session_unsaved(&g->doc))) return true;
    char *copy = malloc(strlen(path) + 1);
    if (!copy) return false; // no memory: the drop is left, the edits kept
    strcpy(copy, path);
    free(g->confirm_open); // a second drop while asking: the newest one is asked about
    g->confirm_open = copy;
    g->confirm_quit = false;
    return false;
#endif
}

GuiAsk gui_asking(const Gui *g)
{
    return g->confirm_quit ? GUI_ASK_QUIT : g->confirm_open ? GUI_ASK_OPEN : GUI_ASK_NONE;
}

GuiAnswer gui_confirm_decide(GuiAsk ask, const ViewEvent *ev)
{
    if (ask == GUI_ASK_NONE || ev->kind != VIEW_EV_KEY) return GUI_ANSWER_NONE;
    if (ev->key == VIEW_KEY_S && (ev->mods & VIEW_MOD_CTRL)) return GUI_ANSWER_SAVE_GO;
    if (ev->key == VIEW_KEY_ESCAPE) return GUI_ANSWER_STAY;
    if (ev->key == (ask == GUI_ASK_QUIT ? VIEW_KEY_Q : VIEW_KEY_ENTER)) return GUI_ANSWER_GO;
    return GUI_ANSWER_NONE;
}

// The question before quitting (scene_add_confirm): a title line, then the answers, one a line.
const char *gui_confirm_text(const Gui *g, char *buf, size_t cap)
{
    int n = session_edit_count(&g->doc);
    char title[400];
    if (g->confirm_open && !g->confirm_quit) {
        const char *name = strrchr(g->confirm_open, '/');
#ifdef _WIN32
        if (strrchr(g->confirm_open, '\\') > name) name = strrchr(g->confirm_open, '\\');
#endif
        name = name ? name + 1 : g->confirm_open;
        snprintf(title, sizeof title,
                 // TRANSLATORS: a lesson file dropped on the window while edits are not saved; %s
                 // is the file's name.
                 TRN("Open %s? %d edited value is not saved.",
                     "Open %s? %d edited values are not saved.", n),
                 name, n);
        snprintf(buf, cap, "%s\n%s\n%s\n%s", title,
                 TR("Ctrl+S: save the edits (NAME-edited.json beside the lesson), then open it"),
                 TR("Enter: open it without saving"),
                 TR("Esc: keep the edits (the dropped file is not opened)"));
        return buf;
    }
    snprintf(title, sizeof title,
             TRN("Quit? %d edited value is not saved.", "Quit? %d edited values are not saved.", n),
             n);
    snprintf(buf, cap, "%s\n%s\n%s\n%s", title,
             TR("Ctrl+S: save the edits (NAME-edited.json beside the lesson) and quit"),
             TR("Q: quit without saving"), TR("Esc: stay"));
    return buf;
}

// While the question before quitting is up: Ctrl+S saves and quits (the caller saves, then quits
// when the save succeeded: a failed one stays, with its reason in the banner), Q quits without
// saving, Esc stays; the board takes no other key or click until then. The same for a dropped
// lesson: Ctrl+S saves and opens it, Enter opens it without saving, Esc keeps the edits (the caller
// opens the lesson after a save, or at OPEN; g->confirm_open is then the caller's to free).
GuiConfirm gui_confirm_answer(Gui *g, const ViewEvent *ev)
{
    GuiAsk ask = gui_asking(g);
    GuiAnswer a = gui_confirm_decide(ask, ev);
    if (a == GUI_ANSWER_NONE) return GUI_CONFIRM_NONE;
    g->confirm_quit = false;
    if (a == GUI_ANSWER_SAVE_GO) return GUI_CONFIRM_SAVE;
    if (a == GUI_ANSWER_GO && ask == GUI_ASK_QUIT) g->quit = true;
    if (a == GUI_ANSWER_GO && ask == GUI_ASK_OPEN)
        return GUI_CONFIRM_OPEN; // the caller opens g->confirm_open
    free(g->confirm_open);
    g->confirm_open = NULL;
    return GUI_CONFIRM_REDRAW;
}

// A note in the header for FLASH_MS (gui_private.h).
void gui_flash(Gui *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->flash, sizeof g->flash, fmt, ap);
    va_end(ap);
    g->flash_until = SDL_GetTicks() + FLASH_MS;
}

// Esc with nothing open to close: the header says how to quit instead (the page has nothing to
// say).
void gui_quit_hint(Gui *g)
{
#ifdef __EMSCRIPTEN__
    (void)g;
#else
    gui_flash(g, "%s", TR("Nothing is open to close (Esc never quits the program): Q quits"));
#endif
}

bool gui_has_notes(const Gui *g) { return g->doc.lesson.notes && g->doc.lesson.notes[0]; }

// The lesson's notes are shown on the first stage, and go with it; N shows or hides them on any
// stage (then they stay as N left them), and says so when the lesson has none. stage_before: the
// stage index before the event (-1: a lesson was loaded).
void gui_follow_notes(Gui *g, int stage_before, bool n_pressed)
{
    ViewState *st = &g->st;
    if (n_pressed) {
        g->notes_auto = false;
        if (!gui_has_notes(g)) {
            st->notes = false;
            gui_flash(g, "%s", TR("This lesson has no notes (its file has no \"notes\")"));
        }
        return;
    }
    if (st->stage_index == stage_before) return;
    if (st->stage_index == 0 && gui_has_notes(g) && !st->notes) st->notes = g->notes_auto = true;
    else if (st->stage_index != 0 && g->notes_auto) st->notes = g->notes_auto = false;
}

// A question is asked on its own head (the walk of model/view_walk.c): when that is not the head
// the class was on, the header says so, and again when the next → brings the board back there.
// before: the state before the event.
void gui_follow_question_head(Gui *g, const ViewState *before)
{
    const ViewState *st = &g->st;
    bool asked = st->quiz_phase == QUIZ_ASKING
                 && (before->quiz_phase != QUIZ_ASKING || st->quiz != before->quiz
                     || st->head != before->head);
    if (asked && st->walk_head >= 0 && st->head != st->walk_head)
        gui_flash(g,
                  TR("This question is on head %d: the board moved here from head %d, and goes "
                     "back after it"),
                  st->head, st->walk_head);
    else if (before->walk_head >= 0 && st->walk_head < 0 && st->head == before->walk_head
             && before->head != st->head)
        gui_flash(g, TR("Back on head %d, where the class was before the question"), st->head);
}

// The red banner for a failed edit, save or export (counted for a driver's report).
void gui_show_error(Gui *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->edit_error, sizeof g->edit_error, fmt, ap);
    va_end(ap);
    g->errors++;
}

// The question on screen: one of the lesson's, the automatic one, or NULL.
const LessonQuestion *gui_shown_question(const Gui *g)
{
    if (g->st.quiz == VIEW_QUIZ_AUTO) return g->auto_q.text ? &g->auto_q : NULL;
    if (g->st.quiz >= 0 && g->st.quiz < g->doc.lesson.question_count)
        return &g->doc.lesson.questions[g->st.quiz];
    return NULL;
}
