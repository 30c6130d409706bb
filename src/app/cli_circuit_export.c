// --export of a lesson of layers (cli_circuit_export.h): the lesson is opened as the window opens
// it (a session: the layer shown over the stream that enters it, the heads switched off per
// layer), the layer asked for shown, and for --what circuit trained to its last step, with the
// lesson --beside names trained on the same sequences; then the slides as the window shows them.
#include "app/cli_circuit_export.h"

#include <stdio.h>
#include <stdlib.h>

#include "app/cli.h"
#include "app/cli_circuit_train.h"
#include "model/i18n.h"
#include "model/panel_circuit.h"
#include "model/session.h"

int cli_layer_option(const Args *a, int *layer)
{
    double v = -1;
    if (a->value[OPT_LAYER] && !options_number(OPT_LAYER, a->value[OPT_LAYER], &v))
        return EXIT_USAGE;
    *layer = (int)v;
    return EXIT_OK;
}

// The options that need a lesson of layers, or --what circuit, refused: EXIT_OK when none is.
static int refused(const Args *a, const char *name, bool layers, bool circuit)
{
    const char *opt = a->value[OPT_LAYER]    ? "--layer"
                      : a->value[OPT_BESIDE] ? "--beside"
                      : a->value[OPT_STEPS]  ? "--steps"
                                             : NULL;
    if (!layers && opt) {
        cli_line(stderr,
                 "%s: error: %s: the lesson has one layer (a lesson of layers has a "
                 "\"vocabulary\", e.g. lessons/induction-heads.json)\n",
                 name, opt);
        return EXIT_USAGE;
    }
    if (!circuit && (a->value[OPT_BESIDE] || a->value[OPT_STEPS])) {
        cli_line(stderr, "mha-tracer: error: %s goes with --what circuit (the training's panel)\n",
                 a->value[OPT_BESIDE] ? "--beside" : "--steps");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

// --ablate L:H,... switched off in doc, then layer `layer` shown. EXIT_OK or the status.
static int show(Session *doc, const char *name, const char *ablate, int layer)
{
    const Circuit *m = &doc->lesson.circuit->model;
    uint64_t off[CIRCUIT_MAX_LAYERS] = {0};
    char msg[300];
    SessionError err = {""};
    if (layer >= m->layers) {
        cli_line(stderr, "%s: error: --layer %d: the lesson has %d layer%s (0 to %d)\n", name,
                 layer, m->layers, m->layers == 1 ? "" : "s", m->layers - 1);
        return EXIT_USAGE;
    }
    if (ablate && !cli_circuit_ablation(ablate, m->layers, m->shape.heads, off, msg, sizeof msg)) {
        cli_line(stderr, "mha-tracer: error: --ablate %s\n", msg);
        return EXIT_USAGE;
    }
    for (int l = 0; l < m->layers; l++)
        for (int h = 0; h < m->shape.heads; h++) {
            if (!((off[l] >> h) & 1u)) continue;
            session_circuit_layer(doc, l, &err);
            if (err.message[0] || !session_toggle_head(doc, h, &err)) break;
        }
    if (!err.message[0]) session_circuit_layer(doc, layer < 0 ? 0 : layer, &err);
    if (err.message[0]) {
        cli_line(stderr, "%s: error: %s\n", name, err.message);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

// T, every step of the lesson's training (--steps N: N), then paused and measured, the lesson
// --beside names beside it. EXIT_OK or the status.
static int train(Session *doc, const Args *a, const char *name)
{
    SessionError err = {""};
    LessonCircuit *lc = doc->lesson.circuit;
    double steps = lc->train.steps;
    if (a->value[OPT_STEPS] && !options_number(OPT_STEPS, a->value[OPT_STEPS], &steps))
        return EXIT_USAGE;
    if (a->value[OPT_BESIDE] && !session_beside_load(doc, a->value[OPT_BESIDE], &err)) {
        cli_line(stderr, "%s\n", err.message);
        return EXIT_USAGE;
    }
    if (!lc->trains) {
        if (!a->value[OPT_BESIDE] && !a->value[OPT_STEPS]) return EXIT_OK; // the panel untrained
        cli_line(stderr, "%s: error: --what circuit: the lesson has no \"train\" section\n", name);
        return EXIT_USAGE;
    }
    lc->train.steps = (int)steps;
    bool ok = session_train_toggle(doc, &err) && session_train_steps(doc, (int)steps, &err);
    if (ok && doc->beside.why[0]) {
        cli_line(stderr, "mha-tracer: error: --beside %s\n", doc->beside.why);
        return EXIT_USAGE;
    }
    if (!ok) {
        cli_line(stderr, "%s: error: %s\n", name, err.message);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

bool cli_circuit_export_wanted(const Args *a, const ExportRequest *req, const Lesson *lesson)
{
    return lesson->circuit || a->value[OPT_LAYER] || a->value[OPT_BESIDE] || a->value[OPT_STEPS]
           || req->what == EXPORT_WHAT_CIRCUIT;
}

int cli_circuit_export(const Args *a, const char *path, bool layers, ExportRequest *req,
                       CliExportRun run)
{
    const char *name = path ? path : "<built-in>";
    bool circuit = req->what == EXPORT_WHAT_CIRCUIT;
    int status = refused(a, name, layers, circuit), layer = -1;
    if (status == EXIT_OK) status = cli_layer_option(a, &layer);
    if (status != EXIT_OK) return status;
    Session *doc = calloc(1, sizeof *doc);
    if (!doc) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    session_init(doc);
    SessionError err;
    if (!session_load(doc, path, &err)) {
        cli_line(stderr, "%s\n", err.message);
        status = EXIT_USAGE;
    } else i18n_use(i18n_choose(a->value[OPT_LANG], doc->lesson.language));
    if (status == EXIT_OK && !doc->lesson.circuit) { // --what circuit of a lesson of one layer
        CircuitPanel none = {0};
        SceneExtras ex = {.original = &doc->lesson.params, .circuit = &none};
        req->view = circuit ? &ex : NULL;
        status = run(req, &doc->lesson, path, &doc->trace);
    } else if (status == EXIT_OK) {
        status = show(doc, name, a->value[OPT_ABLATE], layer);
        if (status == EXIT_OK && circuit) status = train(doc, a, name);
        CircuitPanel cp;
        panel_circuit_make(&cp, doc);
        SceneExtras ex = {.original = &doc->lesson.params, .circuit = &cp};
        req->view = &ex;
        if (status == EXIT_OK) status = run(req, &doc->lesson, path, &doc->trace);
    }
    session_free(doc);
    free(doc);
    return status;
}
