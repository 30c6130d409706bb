// The lesson in the window: opened (the first, a dropped one, one from the page), taken again when
// its file changes (the watch), and saved with its edits (Ctrl+S; on the page a download). Below
// the window's loop (gui.c) and what the view asks of it (gui_requests.c), which both call it.
#include "app/gui_private.h"
#include "model/i18n.h"

#include <SDL.h>
#include <stdio.h>
#include <string.h>

#include "model/questions.h"
#include "model/session.h"
#include "platform/platform.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>

EM_JS(void, web_js_download, (const char *path), {
    if (Module.mhaDownload) Module.mhaDownload(UTF8ToString(path));
});

void gui_download_files(const char *const *paths, int n)
{
    for (int i = 0; i < n; i++) web_js_download(paths[i]);
}
#endif

// The lesson's questions for the state machine; one that does not fit the lesson (--check says why)
// keeps its place but is never asked.
static void set_questions(Gui *g)
{
    ViewQuestion vq[VIEW_MAX_QUESTIONS];
    Lesson shown = session_shown(&g->doc);
    int n = shown.question_count < VIEW_MAX_QUESTIONS ? shown.question_count : VIEW_MAX_QUESTIONS;
    for (int i = 0; i < n; i++) {
        QuestionAnswer a;
        LessonError err;
        if (question_answer(&shown, &g->doc.trace, &shown.questions[i], i, &a, &err))
            vq[i] = question_view(&shown.questions[i], &a);
        else vq[i] = (ViewQuestion){.stage = STAGE_COUNT};
    }
    view_set_questions(&g->st, vq, n);
}

// The lesson held by the session is new: the view follows its sizes and the messages of the last
// one go.
ViewDims gui_lesson_dims(const Gui *g)
{
    ViewDims dims = view_dims_from_params(&g->doc.lesson.params);
    dims.layers = session_circuit_layers(&g->doc);
    dims.layer = session_circuit_shown(&g->doc);
    return dims;
}

void gui_lesson_loaded(Gui *g, bool first)
{
    ViewDims dims = gui_lesson_dims(g);
    if (!first) {
        view_set_dims(&g->st, &dims);
    } else {
        int w = g->st.width, h = g->st.height;
        view_init(&g->st, &dims);
        g->st.width = w;
        g->st.height = h;
    }
    set_questions(g); // none asked yet (a reloaded lesson asks its questions again)
    if (!gui_has_notes(g)) g->st.notes = g->notes_auto = false;
    gui_follow_notes(g, -1, false);
    g->status[0] = '\0';
    g->edit_error[0] = '\0';
    g->banner[0] = '\0';
    i18n_use(i18n_choose(g->lang, g->doc.lesson.language)); // the words of this class
    gui_set_title(g);
}

// Loads a lesson (path NULL: the built-in one), which becomes the watched file. On success it
// replaces the one shown (the view keeps its stage, head and zoom where they still fit); on failure
// the last good one stays and the banner says why. Returns true on success.
bool gui_load_lesson(Gui *g, const char *path)
{
    bool first = !g->doc.loaded;
    SessionError err;
    if (!session_load(&g->doc, path, &err)) {
        snprintf(g->banner, sizeof g->banner, TR("%s   (still showing the last good lesson)"),
                 err.message);
        g->errors++;
        return false;
    }
    gui_lesson_loaded(g, first);
    // Another lesson opened (a drop, the page's menu or picker) starts on its board: a panel of the
    // last one would not be this lesson's. A reload on save keeps it (gui_poll_watch).
    g->st.panel = PANEL_NONE;
    return true;
}

// Polls the watched file; reloads it when its time stamp or size changed. Returns true when the
// screen changes.
bool gui_poll_watch(Gui *g)
{
    SessionError err;
    switch (session_poll(&g->doc, &err)) {
    case SESSION_RELOADED: gui_lesson_loaded(g, false); return true;
    case SESSION_RELOAD_FAILED:
        snprintf(g->banner, sizeof g->banner, "%s   (still showing the last good lesson)",
                 err.message);
        g->errors++;
        return true;
    default: return false;
    }
}

void gui_save(Gui *g)
{
    char out[1100], shown[1800];
    SessionError err;
    int n = session_edit_count(&g->doc);
    if (n == 0
        && !g->doc.saved[0]) { // a copy of the file would teach nothing and is not what was asked
        snprintf(g->status, sizeof g->status, "%s",
                 TR("Nothing to save: no value is edited (click an embedding or a weight, then "
                    "\xe2\x86\x91 \xe2\x86\x93 or the wheel)"));
        return;
    }
    if (!session_save(&g->doc, out, sizeof out, &err)) {
        gui_show_error(g, TR("Not saved: %s"), err.message);
        return;
    }
    // "Saved as NAME-edited.json in DIR": the file name first, so it survives if the line must be
    // cut.
    char cwd[600] = ".";
    const char *slash = strrchr(out, '/');
    if (slash) snprintf(shown, sizeof shown, "%s in %.*s", slash + 1, (int)(slash - out), out);
    else
        snprintf(shown, sizeof shown, "%s in %s", out,
                 platform_realpath(".", cwd, sizeof cwd) ? cwd : ".");
    if (n
        == 0) // edited and saved before, then reverted: the saved file gets the file's values back
        snprintf(g->status, sizeof g->status,
                 TR("Saved the file's values (no value is edited now) as %s"), shown);
    else
        snprintf(g->status, sizeof g->status, TRN("Saved %d edit as %s", "Saved %d edits as %s", n),
                 n, shown);
    g->edit_error[0] = '\0';
#ifdef __EMSCRIPTEN__
    const char *saved = out;
    gui_download_files(&saved,
                       1); // the page's memory is no place to keep it: the browser downloads it
    const char *saved_name = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;
    if (n == 0)
        snprintf(g->status, sizeof g->status,
                 TR("Downloaded %s with the file's values (no value is edited now)"), saved_name);
    else
        snprintf(g->status, sizeof g->status,
                 TRN("Downloaded %s with %d edit", "Downloaded %s with %d edits", n), saved_name,
                 n);
#endif
}
