// The window's exports as files: a slide's request as the window shows it, and the training's
// checkpoints (V) re-traced and exported one by one, then as a strip; both on a worker thread with
// their progress.
#include "app/gui_export.h"

#include <SDL.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/i18n.h"
#include "model/panel_circuit.h"
#include "platform/platform.h"

// The progress of the files of one export call, counted from `base` of the job's whole: the
// worker's job is stopped (before anything is written) once the window asks.
typedef struct {
    GuiExportJob *job;
    int base, total; // total: of the whole job (0: the export's own count)
} Progress;

static bool progress_note(void *ctx, size_t done, size_t total)
{
    Progress *p = ctx;
    if (!p->job) return true;
    atomic_store(&p->job->total, p->total > 0 ? p->total : (int)total);
    atomic_store(&p->job->progress, p->base + (int)done);
    return !atomic_load(&p->job->stop);
}

void gui_export_request(ExportRequest *req, const char *dir, const char *fonts, const char *name,
                        bool dark, const SceneExtras *ex)
{
    export_request_defaults(req);
    req->dir = dir;
    req->create_dir = true;
    req->font_dir = fonts;
    req->name = name;
    req->formats = EXPORT_PNG | EXPORT_SVG;
    if (dark) req->background = EXPORT_BG_DARK; // slides as the board is shown
    req->view = ex;
}

// The strip: the head's heatmap at up to GUI_STRIP_FRAMES checkpoints spread over the run, side by
// side.
static bool export_strip(const Session *doc, const ViewState *st, const Lesson *shown,
                         const char *fonts, GuiTrainExport *out, char *msg, size_t cap)
{
    const Trainer *tr = &doc->train.tr;
    int k = tr->checkpoint_count < GUI_STRIP_FRAMES ? tr->checkpoint_count : GUI_STRIP_FRAMES;
    AttnParams ps[GUI_STRIP_FRAMES];
    Trace ts[GUI_STRIP_FRAMES];
    Lesson ls[GUI_STRIP_FRAMES];
    StripFrame fr[GUI_STRIP_FRAMES];
    char caps[GUI_STRIP_FRAMES][64], name[200];
    int made = 0;
    bool traced = true; // (a checkpoint that does not trace, or no memory, leaves the strip out:
                        // not an error)
    for (int i = 0; traced && i < k; i++) {
        int c = k > 1 ? (int)lround((double)i * (tr->checkpoint_count - 1) / (k - 1)) : 0;
        TraceError terr;
        traced = params_copy(&ps[i], &doc->edit);
        if (!traced) break;
        params_copy_weights(&ps[i], &tr->checkpoints[c].p);
        if (!(traced = trace_run(&ts[i], &ps[i], &terr))) {
            params_free(&ps[i]);
            break;
        }
        ls[i] = *shown;
        ls[i].params = ps[i];
        snprintf(caps[i], sizeof caps[i], TR("step %d"), tr->checkpoints[c].step);
        fr[i] = (StripFrame){&ls[i], &ts[i], caps[i]};
        made++;
    }
    ExportError err;
    snprintf(name, sizeof name, "%s-train-strip-head%d", out->base, st->head);
    StripRequest rq = {.dir = out->dir,
                       .create_dir = true,
                       .font_dir = fonts,
                       .name = name,
                       .spec = {MAT_WEIGHTS, st->head, 1.0, st->colormap,
                                st->dark ? EXPORT_BG_DARK : EXPORT_BG_WHITE},
                       .frames = fr,
                       .count = (size_t)made};
    bool ok = true;
    if (traced && !export_heatmap_strip(&rq, out->strip_path, sizeof out->strip_path, &err)) {
        snprintf(msg, cap, "%s", err.message);
        ok = false;
    }
    for (int i = 0; i < made; i++) {
        trace_free(&ts[i]);
        params_free(&ps[i]);
    }
    return ok;
}

bool gui_export_training(const Session *doc, const ViewState *view, const char *fonts,
                         GuiTrainExport *out, char *msg, size_t cap)
{
    return gui_export_training_job(doc, view, fonts, out, msg, cap, NULL);
}

bool gui_export_training_job(const Session *doc, const ViewState *view, const char *fonts,
                             GuiTrainExport *out, char *msg, size_t cap, GuiExportJob *job)
{
    const Trainer *t = &doc->train.tr;
    SessionExport what;
    session_export(doc, false, &what);
    ViewState st = *view;
    for (int i = 0; i < st.stage_count; i++)
        if (st.stages[i] == STAGE_SOFTMAX) st.stage_index = i; // the attention weights
    st.substep = 0;
    st.reveal = -1;
    st.view = VIEW_ONE_HEAD;
    out->written = 0;
    out->strip_path[0] = '\0';
    export_default_dir(what.lesson_path, out->dir, sizeof out->dir);
    export_name_for(what.lesson_path, &what.shown, out->base, sizeof out->base);
    Lesson shown = what.shown;
    AttnParams p;
    if (!params_copy(&p, &doc->edit)) {
        snprintf(msg, cap, "out of memory");
        return false;
    }
    bool ok = true;
    for (int i = 0; ok && i < t->checkpoint_count; i++) {
        params_copy_weights(&p, &t->checkpoints[i].p);
        Trace tr;
        TraceError terr;
        if (!trace_run(&tr, &p, &terr)) {
            snprintf(msg, cap, "%s", terr.message);
            ok = false;
            break;
        }
        shown.params = p;
        char name[200];
        snprintf(name, sizeof name, "%s-train-%02d-step-%d", out->base, i, t->checkpoints[i].step);
        SceneExtras ex = {0};
        ExportRequest req;
        gui_export_request(&req, out->dir, fonts, name, view->dark, &ex);
        Progress prog = {job, 2 * i,
                         2 * t->checkpoint_count + 1}; // a PNG and an SVG each, then the strip
        req.progress = progress_note;
        req.progress_ctx = &prog;
        ExportResult res;
        ExportError err;
        ok = export_from_view(&req, false, &st, &shown, &tr, &res, &err);
        trace_free(&tr);
        if (!ok) snprintf(msg, cap, "%s", err.message);
        else {
            export_result_free(&res);
            out->written++;
        }
    }
    params_free(&p);
    ok = ok && export_strip(doc, view, &what.shown, fonts, out, msg, cap);
    if (ok && job) atomic_store(&job->progress, 2 * t->checkpoint_count + 1);
    return ok;
}

// The worker: waits for the test's gate when one is set, then exports what was asked.
static int job_run(void *arg)
{
    GuiExportJob *j = arg;
    PlatformStat st;
    while (j->gate && j->gate[0] && !atomic_load(&j->stop) && !platform_stat(j->gate, true, &st))
        SDL_Delay(10);
    j->ok = true;
    j->msg[0] = '\0';
    memset(&j->res, 0, sizeof j->res);
    if (atomic_load(&j->stop)) {
        j->ok = false;
        snprintf(j->msg, sizeof j->msg, "stopped before anything was written");
    } else if (j->kind == GUI_EXPORT_TRAIN) {
        j->ok =
            gui_export_training_job(j->doc, &j->st, j->fonts, &j->train, j->msg, sizeof j->msg, j);
        snprintf(j->dir, sizeof j->dir, "%s", j->train.dir);
    } else {
        SessionExport what;
        session_export(j->doc, j->kind == GUI_EXPORT_BOARD, &what);
        char name[128];
        export_default_dir(what.lesson_path, j->dir, sizeof j->dir);
        // The question on screen goes on the board's slide too (its answer, once revealed: E waits
        // till then).
        CircuitPanel circuit; // the circuit panel's slide (Shift+E on U)
        panel_circuit_make(&circuit, j->doc);
        SceneExtras ex = {.original = what.original,
                          .compare = what.compare,
                          .question = j->kind == GUI_EXPORT_HANDOUT ? NULL : j->question,
                          .shuffle = session_shuffled(j->doc), // the shuffle panel's (Shift+E on X)
                          .circuit = &circuit};
        ExportRequest req;
        gui_export_request(&req, j->dir, j->fonts,
                           export_name_for(what.lesson_path, &what.shown, name, sizeof name),
                           j->st.dark, &ex);
        Progress prog = {j, 0, 0};
        req.progress = progress_note;
        req.progress_ctx = &prog;
        ExportError err;
        if (j->kind == GUI_EXPORT_HANDOUT) // every stage of the head shown, beside the slides
            req.what = EXPORT_WHAT_HANDOUT, req.stage = EXPORT_ALL_STAGES,
            req.head = j->st.head > 0 ? j->st.head : 0;
        req.with_handout = j->kind == GUI_EXPORT_BOARD; // Shift+E: the board and the handout
        if (j->kind == GUI_EXPORT_HANDOUT)
            j->ok = export_run(&req, &what.shown, what.trace, &j->res, &err);
        else
            j->ok =
                export_from_view(&req, what.board, &j->st, &what.shown, what.trace, &j->res, &err);
        if (!j->ok) snprintf(j->msg, sizeof j->msg, "%s", err.message);
    }
    atomic_store(&j->done, true);
    return 0;
}

void gui_export_start(GuiExportJob *j)
{
    atomic_store(&j->done, false);
    atomic_store(&j->stop, false);
    atomic_store(&j->progress, 0);
    atomic_store(&j->total, 0);
    j->busy = true;
    j->thread = platform_thread_start(job_run, j);
    if (!j->thread) job_run(j); // no thread: done here, as before (the page)
}

bool gui_export_poll(GuiExportJob *j)
{
    if (!j->busy || !atomic_load(&j->done)) return false;
    platform_thread_join(j->thread);
    j->thread = NULL;
    j->busy = false;
    return true;
}

void gui_export_wait(GuiExportJob *j)
{
    if (!j->busy) return;
    platform_thread_join(j->thread);
    j->thread = NULL;
    j->busy = false;
}
