// What the view asks of the window (ViewState.request: VIEW_REQ_*), carried out on the session: an
// edit, revert, the scale, a head switched off, a question judged or asked, and gui_dispatch, which
// passes one event to the view and then does what it asked (gui.c and the page call it).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app/gui_private.h"
#include "model/i18n.h"

// Adds delta to the pinned cell (rounded to 4 decimals, as shown) and re-traces; an edit that makes
// the trace fail is undone and the reason shown in the banner.
static void apply_edit(Gui *g, double delta)
{
    SessionError err;
    if (!session_edit(&g->doc, g->st.pinned, delta, &err)) {
        if (err.message[0]) gui_show_error(g, TR("Edit undone: %s"), err.message);
        return;
    }
    g->edit_error[0] = '\0';
    g->status[0] = '\0';
}

// O: the current head off (its Z zeros in the concat) or on again; the header says which are off.
static void toggle_head(Gui *g)
{
    SessionError err;
    int h = g->st.head;
    if (!session_toggle_head(&g->doc, h, &err)) {
        if (err.message[0]) gui_show_error(g, TR("Head %d not switched: %s"), h, err.message);
        return;
    }
    g->edit_error[0] = '\0';
    snprintf(g->flash, sizeof g->flash,
             params_ablated(&g->doc.edit, h)
                 ? TR("Head %d switched off: its Z enters the concat as zeros (O: on again)")
                 : TR("Head %d switched on again"),
             h);
    g->flash_until = SDL_GetTicks() + FLASH_MS;
}

// [ and ]: the softmax scale a step down or up the slider; every later stage is traced again.
static void move_scale(Gui *g, double dir, bool fine)
{
    SessionError err;
    double now = session_scale(&g->doc), next = view_scale_step(now, g->doc.edit.d_k, dir, fine);
    if (next == now) return;
    if (!session_set_scale(&g->doc, next, &err)) {
        gui_show_error(g, TR("Scale not changed: %s"), err.message);
        return;
    }
    g->edit_error[0] = '\0';
}

// A press or a drag on the slider: the scale under the pointer.
static void set_scale(Gui *g, double scale)
{
    SessionError err;
    if (scale == session_scale(&g->doc)) return;
    if (!session_set_scale(&g->doc, scale, &err)) {
        gui_show_error(g, TR("Scale not changed: %s"), err.message);
        return;
    }
    g->edit_error[0] = '\0';
}

// Y, Shift+Y, or the walk past a layer's end: the layer request_delta away on the board; the walk
// goes on at its first stage (back: its last), Y keeps the stage.
static void show_layer(Gui *g)
{
    SessionError err;
    int dir = g->st.request_delta > 0 ? 1 : -1;
    if (!session_circuit_layer(&g->doc, session_circuit_shown(&g->doc) + dir, &err)) {
        if (err.message[0]) gui_show_error(g, TR("Layer not shown: %s"), err.message);
        return;
    }
    ViewDims dims = gui_lesson_dims(g);
    view_enter_layer(&g->st, &dims, g->st.request_walk ? dir : 0);
    g->edit_error[0] = '\0';
}

static void revert(Gui *g)
{
    SessionError err;
    int n = session_revert(&g->doc, &err);
    if (n < 0) {
        gui_show_error(g, TR("Not reverted: %s"), err.message);
        return;
    }
    g->edit_error[0] = '\0';
    snprintf(
        g->status, sizeof g->status,
        n ? TRN("Reverted %d edited value to the file", "Reverted %d edited values to the file", n)
          : TR("Nothing to revert: no value is edited"),
        n);
}

// VIEW_REQ_ANSWER: the response against the trace on screen (edits included), then the reveal.
static void judge_answer(Gui *g)
{
    const LessonQuestion *q = gui_shown_question(g);
    Lesson shown = session_shown(&g->doc);
    QuestionAnswer a;
    LessonError err;
    if (!q
        || !question_answer(&shown, &g->doc.trace, q, g->st.quiz < 0 ? 0 : g->st.quiz, &a, &err)) {
        if (q) gui_show_error(g, "This question does not fit the lesson: %s", err.message);
        g->st.quiz_phase = QUIZ_NONE;
        g->st.reveal = -1;
        return;
    }
    QuestionResponse r = {g->st.quiz_cell, g->st.quiz_value, g->st.quiz_choice};
    CellRef answer, through;
    question_reveal_cells(q, &a, &shown.params, &answer, &through);
    view_quiz_judged(&g->st, question_judge(q, &a, &shown.params, &g->doc.trace, &r), answer,
                     through);
}

// VIEW_REQ_AUTO_QUESTION: which key one row of the current head's weights attends to most.
static void ask_automatic(Gui *g)
{
    Lesson shown = session_shown(&g->doc);
    lesson_question_free(&g->auto_q);
    QuestionAnswer a;
    LessonError err;
    if (!question_auto(&g->auto_q, &shown, &g->doc.trace, g->st.head, g->st.quiz_auto_count - 1)
        || !question_answer(&shown, &g->doc.trace, &g->auto_q, 0, &a, &err)) {
        gui_show_error(g, "No automatic question: out of memory");
        return;
    }
    ViewQuestion vq = question_view(&g->auto_q, &a);
    view_quiz_ask(&g->st, &vq, VIEW_QUIZ_AUTO);
}

// Passes one event to the state machine and carries out what it asks for. Returns true to redraw.
bool gui_dispatch(Gui *g, const ViewEvent *ev)
{
    if (gui_asking(g) != GUI_ASK_NONE) {
        bool quitting = g->confirm_quit;
        GuiConfirm answer = gui_confirm_answer(g, ev);
        if (answer == GUI_CONFIRM_SAVE) {
            gui_save(g);
            if (quitting) g->quit = !session_unsaved(&g->doc);
            else if (!session_unsaved(&g->doc) && g->confirm_open)
                gui_load_lesson(g, g->confirm_open); // saved: open it
            free(g->confirm_open);
            g->confirm_open = NULL;
        }
        if (answer == GUI_CONFIRM_OPEN) { // Enter on the dropped lesson's question: opened, the
                                          // edits dropped
            gui_load_lesson(g, g->confirm_open);
            free(g->confirm_open);
            g->confirm_open = NULL;
        }
        return answer != GUI_CONFIRM_NONE;
    }
    ViewState before = g->st;
    bool changed = view_handle(&g->st, ev);
    gui_follow_notes(g, before.stage_index, ev->kind == VIEW_EV_KEY && ev->key == VIEW_KEY_N);
    gui_follow_question_head(g, &before);
    if (g->xjob.busy && gui_export_blocks(g->st.request)) {
        snprintf(g->flash, sizeof g->flash, "%s",
                 TR("Still exporting: edits, training and loads wait until it has finished"));
        g->flash_until = SDL_GetTicks() + FLASH_MS;
        g->st.request = VIEW_REQ_NONE;
        changed = true;
    }
    switch (g->st.request) {
    case VIEW_REQ_EDIT: apply_edit(g, g->st.request_delta); break;
    case VIEW_REQ_REVERT: revert(g); break;
    case VIEW_REQ_SAVE: gui_save(g); break;
    case VIEW_REQ_EXPORT: gui_export_view(g, false); break;
    case VIEW_REQ_EXPORT_BOARD: gui_export_view(g, true); break;
    case VIEW_REQ_EXPORT_HANDOUT: gui_export_begin(g, GUI_EXPORT_HANDOUT); break;
    case VIEW_REQ_ANSWER: judge_answer(g); break;
    case VIEW_REQ_AUTO_QUESTION: ask_automatic(g); break;
    case VIEW_REQ_ABLATE: toggle_head(g); break;
    case VIEW_REQ_SCALE:
        move_scale(g, g->st.request_delta > 0 ? 1.0 : -1.0, fabs(g->st.request_delta) < 1.0);
        break;
    case VIEW_REQ_SCALE_SET: set_scale(g, g->st.request_delta); break;
    case VIEW_REQ_TRAIN: gui_train_toggle(g); break;
    case VIEW_REQ_TRAIN_SHOW: gui_train_show(g, g->st.request_delta > 0 ? 1 : -1); break;
    case VIEW_REQ_TRAIN_RESET: gui_train_restart(g); break;
    case VIEW_REQ_TRAIN_EXPORT: gui_train_export(g); break;
    case VIEW_REQ_QUIT_HINT: gui_quit_hint(g); break;
    case VIEW_REQ_LAYER: show_layer(g); break;
    case VIEW_REQ_ROPE_SHIFT: {
        SessionError err;
        if (!session_rope_shift(&g->doc, g->st.request_delta > 0 ? 1 : -1, &err) && err.message[0])
            gui_show_error(g, "%s", err.message);
        break;
    }
    case VIEW_REQ_TRAIN_SEEK: {
        SessionError err;
        if (!session_train_seek(&g->doc, (int)g->st.request_delta, &err) && err.message[0])
            gui_show_error(g, "%s", err.message);
        break;
    }
    default: break;
    }
    g->st.request = VIEW_REQ_NONE;
    if (g->st.quit) { // Q: the view asks, the window decides
        g->st.quit = false;
        gui_quit_asked(g);
        changed = true;
    }
    return changed;
}
