// The window's exports as files: a slide's request as the window shows it, and the training's checkpoints (V)
// re-traced and exported one by one, then as a strip.
#include "gui_export.h"

#include <math.h>
#include <stdio.h>

#include "../model/i18n.h"

void gui_export_request(ExportRequest *req, const char *dir, const char *fonts, const char *name, bool dark,
                        const SceneExtras *ex)
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

// The strip: the head's heatmap at up to GUI_STRIP_FRAMES checkpoints spread over the run, side by side.
static bool export_strip(const Session *doc, const ViewState *st, const Lesson *shown, const char *fonts,
                         GuiTrainExport *out, char *msg, size_t cap)
{
    const Trainer *tr = &doc->train.tr;
    int k = tr->checkpoint_count < GUI_STRIP_FRAMES ? tr->checkpoint_count : GUI_STRIP_FRAMES;
    AttnParams ps[GUI_STRIP_FRAMES];
    Trace ts[GUI_STRIP_FRAMES];
    Lesson ls[GUI_STRIP_FRAMES];
    StripFrame fr[GUI_STRIP_FRAMES];
    char caps[GUI_STRIP_FRAMES][64], name[200];
    int made = 0;
    bool traced = true; // (a checkpoint that does not trace, or no memory, leaves the strip out: not an error)
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
    HeatmapSpec spec = {MAT_WEIGHTS, st->head, 1.0, st->colormap, st->dark ? EXPORT_BG_DARK : EXPORT_BG_WHITE};
    snprintf(name, sizeof name, "%s-train-strip-head%d", out->base, st->head);
    bool ok = true;
    if (traced && !export_heatmap_strip(out->dir, true, fonts, name, &spec, fr, (size_t)made, out->strip_path,
                                    sizeof out->strip_path, &err)) {
        snprintf(msg, cap, "%s", err.message);
        ok = false;
    }
    for (int i = 0; i < made; i++) {
        trace_free(&ts[i]);
        params_free(&ps[i]);
    }
    return ok;
}

bool gui_export_training(const Session *doc, const ViewState *view, const char *fonts, GuiTrainExport *out, char *msg,
                         size_t cap)
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
    return ok && export_strip(doc, view, &what.shown, fonts, out, msg, cap);
}
