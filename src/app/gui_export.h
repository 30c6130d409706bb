// The window's exports as files: the request for a slide as the window shows it (E), and the heatmaps of
// the training's checkpoints with their strip (V), re-traced from each checkpoint's weights.
#ifndef MHA_GUI_EXPORT_H
#define MHA_GUI_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "../model/session.h"
#include "../model/view.h"
#include "../render/export.h"

#define GUI_STRIP_FRAMES 8 // checkpoints in the exported strip (V)

// A request for PNG and SVG slides of the window into dir (made when missing), named name, with the window's
// fonts, its dark theme when dark, and what the window adds to the lesson (ex).
void gui_export_request(ExportRequest *req, const char *dir, const char *fonts, const char *name, bool dark,
                        const SceneExtras *ex);

// What V wrote: where, the lesson's name the files start with, the strip's path.
typedef struct {
    char dir[1100], base[128], strip_path[1400];
    int written; // checkpoints written
} GuiTrainExport;

// V: the attention heatmap of st's head at each of doc's training checkpoints, NAME-train-NN-step-S.png/.svg,
// then a strip of up to GUI_STRIP_FRAMES of them spread over the run, NAME-train-strip-headH. doc's training
// must be active. False with the reason in msg (cap bytes) at the first failure.
bool gui_export_training(const Session *doc, const ViewState *st, const char *fonts, GuiTrainExport *out, char *msg,
                         size_t cap);

#endif
