// --model DIR [--text T] [--layer L] --json|--trace: the checkpoint opened, the forward pass run,
// layer L's attention printed as a lesson's trace is, with the text's token ids and the next
// token's top 5.
#include "app/cli_model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/cli_head_scores.h"
#include "app/cli_train.h"
#include "lesson/lesson_write.h"
#include "hf/hf_model.h"

// "token_ids": [...], "next_token": [{"id", "token", "p"}, ...] or null for an encoder (--json's
// top-level keys after the tokens).
static void model_json(FILE *out, const void *ctx)
{
    const HfRun *r = ctx;
    fputs("  \"token_ids\": [", out);
    for (int i = 0; i < r->n; i++) fprintf(out, "%s%d", i ? ", " : "", r->ids[i]);
    if (!r->next[0].token) { // an encoder (BERT): no next token
        fputs("],\n  \"next_token\": null,\n", out);
        return;
    }
    fputs("],\n  \"next_token\": [", out);
    for (int k = 0; k < HF_TOP && r->next[k].token; k++) {
        fprintf(out, "%s\n    {\"id\": %d, \"token\": ", k ? "," : "", r->next[k].id);
        cli_json_string(out, r->next[k].token);
        fputs(", \"p\": ", out);
        cli_json_number(out, r->next[k].p);
        fputc('}', out);
    }
    fputs("\n  ],\n", out);
}

// --trace's last lines: the token ids and the next token's top 5 with their probabilities.
static void model_trace_tail(FILE *out, const HfRun *r)
{
    fputs("\n==== The model ====\n\ntoken ids:", out);
    for (int i = 0; i < r->n; i++) fprintf(out, " %d", r->ids[i]);
    if (!r->next[0].token) {
        fputs("\nno next token: the model is an encoder (BERT)\n", out);
        return;
    }
    fputs("\nnext token after the last position:\n", out);
    for (int k = 0; k < HF_TOP && r->next[k].token; k++)
        cli_line(out, "  %-12s id %-7d p = %.6f\n", r->next[k].token, r->next[k].id, r->next[k].p);
}

// The options that change a lesson's trace, which a model's run does not take (yet); --head only in
// the window (where it picks the head the window opens on).
static const OptionId NOT_WITH_MODEL[] = {OPT_ABLATE, OPT_SHUFFLE, OPT_ROPE_SHIFT,
                                          OPT_DECODE, OPT_TILES,   OPT_STAGE};

static int print_error(const LessonError *e)
{
    char buf[1400];
    cli_line(stderr, "%s\n", lesson_error_format(e, buf, sizeof buf));
    return e->io ? EXIT_IO : EXIT_USAGE; // a file absent or unreadable: 1; what it says: 2
}

// --save-lesson FILE: layer L as an ordinary lesson, refused (exit 2) when it would be more than a
// lesson may hold.
static int save_lesson(const Lesson *l, const char *path)
{
    size_t len = 0;
    char *json = lesson_write_json(l, &l->params, NULL, &len);
    LessonError err;
    if (json && !lesson_write_readable(json, len, &err)) {
        cli_line(
            stderr,
            "mha-tracer: error: --save-lesson %s: the layer as a lesson: %s; nothing was written "
            "(--export OUTDIR --what board, or any --what, writes the layer's slides without "
            "saving it)\n",
            path, err.message);
        free(json);
        return EXIT_USAGE;
    }
    return cli_write_lesson(path, json, len);
}

// --export with --model: the layer's slides directly, as for a lesson (--what board, heatmaps,
// ...), or every layer's heads (--what overview); no lesson file is saved first.
static bool export_refused(const Args *a, CliModelExport export_fn)
{
    if (a->mode != MODE_EXPORT || export_fn) return false;
    cli_line(stderr, "mha-tracer: error: this build has no exporter (built with -DMHA_GUI=OFF)\n");
    return true;
}

// The options a model's run refuses or reads: EXIT_OK with *head (-1: none) and *layer, else
// EXIT_USAGE after saying why.
static int model_options(const Args *a, CliModelExport export_fn, double *head, double *layer)
{
    for (size_t i = 0; i < sizeof NOT_WITH_MODEL / sizeof NOT_WITH_MODEL[0]; i++)
        if (a->value[NOT_WITH_MODEL[i]]) {
            cli_line(stderr, "mha-tracer: error: %s does not work with --model yet\n",
                     OPTIONS[NOT_WITH_MODEL[i]].name);
            return EXIT_USAGE;
        }
    if (export_refused(a, export_fn)) return EXIT_USAGE;
    const char *what = a->value[OPT_WHAT];
    bool handout = a->mode == MODE_EXPORT && what && strcmp(what, "handout") == 0;
    if (a->value[OPT_HEAD] && a->mode != MODE_WINDOW && a->mode != MODE_LAYOUT && !handout) {
        cli_line(stderr,
                 "mha-tracer: error: --head with --model picks the head the window opens on: it "
                 "does not "
                 "work with --json, --trace, --save-lesson or --export (every head is shown)\n");
        return EXIT_USAGE;
    }
    if (a->value[OPT_HEAD] && !options_number(OPT_HEAD, a->value[OPT_HEAD], head))
        return EXIT_USAGE;
    if (a->nfiles > 0) {
        cli_line(stderr, "mha-tracer: error: --model DIR takes no lesson file, got '%s'\n",
                 a->files[0]);
        return EXIT_USAGE;
    }
    if (a->value[OPT_LAYER] && !options_number(OPT_LAYER, a->value[OPT_LAYER], layer))
        return EXIT_USAGE;
    return EXIT_OK;
}

// The window on the layer's lesson: the checkpoint is closed first (the window keeps only what the
// layer's stages show), the run freed after.
static int model_open_window(const Args *a, HfModel *m, HfRun *r, int head,
                             CliModelWindow window_fn)
{
    hf_model_close(m);
    int status = EXIT_USAGE;
    if (window_fn) status = window_fn(a, &r->lesson, head);
    else
        cli_line(stderr, "mha-tracer: error: this build has no window (built with "
                         "-DMHA_GUI=OFF); use --trace or "
                         "--json\n");
    hf_run_free(r);
    return status;
}

// --save-lesson, --export, --json or --trace of the layer's lesson (layer: its number, for an
// error); the exit status.
static int model_output(const Args *a, HfRun *r, int layer, CliModelExport export_fn)
{
    Trace t;
    TraceError terr;
    int status = EXIT_OK;
    if (a->mode == MODE_SAVE_LESSON) {
        status = save_lesson(&r->lesson, a->value[OPT_SAVE_LESSON]);
        if (status == EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) status = EXIT_IO;
    } else if (!trace_run(&t, &r->lesson.params, &terr)) {
        cli_line(stderr, "%s: error: layer %d: %s\n", a->value[OPT_MODEL], layer, terr.message);
        status = EXIT_USAGE;
    } else if (a->mode == MODE_EXPORT) {
        status = export_fn(a, &r->lesson, &t);
        trace_free(&t);
    } else {
        CliExtra x = {.top_json = model_json, .top_ctx = r};
        if (a->mode == MODE_JSON) cli_print_json_ex(stdout, &r->lesson, &t, &x);
        else {
            cli_print_trace(stdout, &r->lesson, &t);
            model_trace_tail(stdout, r);
        }
        trace_free(&t);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            cli_line(stderr, "mha-tracer: error: cannot write to standard output: %s\n",
                     strerror(errno));
            status = EXIT_IO;
        }
    }
    return status;
}

// --ids I,J,...: the token ids (*n of them, malloc'd into *ids). false after saying why.
static bool parse_ids(const char *arg, int **ids, int *n)
{
    *n = 0;
    *ids = malloc((strlen(arg) / 2 + 1) * sizeof **ids);
    for (const char *p = arg; *ids && *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 0x7fffffff || (*end && *end != ',')) {
            cli_line(stderr,
                     "mha-tracer: error: --ids '%s': expected token ids I,J,... (whole "
                     "numbers from 0)\n",
                     arg);
            free(*ids);
            return false;
        }
        (*ids)[(*n)++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (*ids && *n > 0) return true;
    cli_line(stderr, "mha-tracer: error: --ids '%s': expected at least one token id\n", arg);
    free(*ids);
    return false;
}

// --head-scores and --ids: which modes and options they go with. EXIT_OK, else after saying why.
static int probe_options(const Args *a)
{
    bool scores = a->value[OPT_HEAD_SCORES] != NULL, ids = a->value[OPT_IDS] != NULL;
    bool printed = a->mode == MODE_JSON || a->mode == MODE_TRACE;
    if (scores
        && (a->value[OPT_TEXT] || ids || a->value[OPT_LAYER]
            || !(printed || a->mode == MODE_WINDOW))) {
        cli_line(stderr,
                 "mha-tracer: error: --head-scores runs its own probe on every layer: "
                 "alone, or with --json (not with --text, --ids, --layer or another mode)\n");
        return EXIT_USAGE;
    }
    if (ids && (a->value[OPT_TEXT] || !(printed || a->mode == MODE_SAVE_LESSON))) {
        cli_line(stderr, "mha-tracer: error: --ids is instead of --text, with --json, --trace or "
                         "--save-lesson\n");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

// --head-scores: the checkpoint opened and scored.
static int model_head_scores(const Args *a)
{
    HfModel m;
    LessonError err;
    if (!hf_model_open(&m, a->value[OPT_MODEL], &err)) return print_error(&err);
    int status = cli_head_scores(&m, a->mode == MODE_JSON);
    hf_model_close(&m);
    return status;
}

int cli_run_model(const Args *a, CliModelWindow window_fn, CliModelExport export_fn)
{
    double head = -1, layer = 0;
    int status = model_options(a, export_fn, &head, &layer);
    if (status == EXIT_OK) status = probe_options(a);
    if (status != EXIT_OK) return status;
    if (a->value[OPT_HEAD_SCORES]) return model_head_scores(a);
    // The window, or its layout audit (--layout): the layer with its stream and the overview.
    bool window = a->mode == MODE_WINDOW || a->mode == MODE_LAYOUT,
         exporting = a->mode == MODE_EXPORT;
    const char *text = a->value[OPT_TEXT] ? a->value[OPT_TEXT] : "The cat sat on the mat";
    HfModel m;
    LessonError err;
    if (!hf_model_open(&m, a->value[OPT_MODEL], &err)) return print_error(&err);
    HfRun r;
    HfRunWant want = {.stream = true, .top = HF_TOP_WINDOW, .overview = true};
    int *ids = NULL, n = 0;
    if (a->value[OPT_IDS] && !parse_ids(a->value[OPT_IDS], &ids, &n)) {
        hf_model_close(&m);
        return EXIT_USAGE;
    }
    bool ran =
        ids ? hf_model_run_ids(&r, &m, ids, n, (int)layer, &err)
            : hf_model_run_ex(&r, &m, text, (int)layer, window || exporting ? &want : NULL, &err);
    free(ids);
    if (!ran) {
        hf_model_close(&m);
        return print_error(&err);
    }
    if (window && (int)head >= r.lesson.params.heads) {
        cli_line(stderr, "%s/config.json: error: --head %d: the model has %d heads (0 to %d)\n",
                 m.dir, (int)head, r.lesson.params.heads, r.lesson.params.heads - 1);
        hf_run_free(&r);
        hf_model_close(&m);
        return EXIT_USAGE;
    }
    if (window) return model_open_window(a, &m, &r, (int)head, window_fn);
    status = model_output(a, &r, (int)layer, export_fn);
    hf_run_free(&r);
    hf_model_close(&m);
    return status;
}
