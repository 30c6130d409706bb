// mha-tracer's entry point: the command line (--trace, --json, --compare, --check, --export, --help, --version)
// and the window.
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h> // clock: how long --train took

#include "cli.h"
#include "../model/i18n.h"
#include "../lesson/lesson_write.h"
#include "../model/questions.h"
#include "../model/saturation.h"
#include "platform/platform.h"
#ifndef MHA_NO_GUI
#include <SDL.h>
#include <SDL_image.h>
#include "../render/export.h"
#include "gui.h"
#endif

#ifndef MHA_VERSION
#define MHA_VERSION "dev"
#endif

enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_USAGE = 2 };
enum { PATH_CAP = 4096 }; // the longest path this program builds or resolves

static const char USAGE[] =
    "Usage: mha-tracer [OPTIONS] [LESSON.json]\n"
    "Steps through multi-head attention one stage at a time, in a window or on the command line.\n"
    "With no LESSON the built-in lesson \"The cat sat\" is used.\n"
    "\n"
    "  (no option)        open the window on LESSON\n"
    "  --fullscreen       open the window full screen\n"
    "  --lang CODE        the window's and the exports' words in en, es, fr or zh (default: the lesson's\n"
    "                     \"language\", else LANG); numbers, tokens and --trace/--json never change\n"
    "  --trace [LESSON]   print every stage of every head, rounded to 4 decimals\n"
    "  --json [LESSON]    print the whole trace as JSON (17 significant digits)\n"
    "  --compare [LESSON] print one head of d_k = h*d_k next to the h heads: patterns, outputs, cost\n"
    "  --check LESSON...  validate lesson files: 'FILE: ok' (and any warnings) or every error and their count\n"
    "                     (each question's stated answer is checked against the trace)\n"
    "  --questions [LESSON]  print each question with its answer computed from the trace (teacher's notes)\n"
    "  --new FILE         write a starter lesson into FILE (never over an existing file), then edit it\n"
    "      --tokens \"a b c\"  its tokens (default \"The cat sat\")\n"
    "      --heads H          its heads (default 2)\n"
    "      --d-model D        its d_model, a multiple of H up to 64 (default 4)\n"
    "  --export DIR [LESSON]  write slide images into DIR and print their paths (no display needed;\n"
    "                         DIR is made when missing)\n"
    "      --what heatmaps|board|all    heatmaps (default): one image per head and one of all heads;\n"
    "                                   board: the whole screen of a stage, as the window shows it\n"
    "      --stage NAME|all             heatmaps: scores, scaled, mask or weights (default);\n"
    "                                   board: input, positions, projections, scores, scaled, mask,\n"
    "                                   softmax (default), weighted-sum, concat or output\n"
    "      --format png|svg|both        default png\n"
    "      --scale K                    pixel size from 0.25 to 8 (default 2: crisp on a 1080p slide)\n"
    "      --background white|transparent|dark   default white\n"
    "      --head N                     board: the head it shows (default 0)\n"
    "      --cell ROW,COL               board: the result cell whose arithmetic it shows (default the first;\n"
    "                                   the file name then carries it)\n"
    "      --parts first|all            board: a stage shown in parts (Q, then K, then V; the output, then\n"
    "                                   the difference without switched-off heads): its first part (default)\n"
    "                                   or one slide per part, NAME-part1, NAME-part2, ...\n"
    "  --ablate H[,H...]  with --trace, --json or --export: those heads' Z enter the concat as zeros (their own\n"
    "                     stages are still computed); the output with every head is shown beside\n"
    "  --shuffle PERM     with --trace, --json or --export: the lesson with its tokens reordered, e.g. 2,0,1\n"
    "                     (token i is the token at position PERM[i]; positions stay in place), compared\n"
    "                     with the original output\n"
    "  --grad LESSON      print the loss mean((output - targets)^2) and its gradient for every embedding and\n"
    "                     weight (explicit per-head form) as JSON; the targets are the lesson's \"targets\", or\n"
    "                     its \"train\" task's for its own tokens\n"
    "  --train LESSON --out FILE   train the weights of a lesson with a \"train\" section (Adam) and write\n"
    "                     the trained lesson, explicit weights, into FILE (never over LESSON); the last line\n"
    "                     says steps=N loss_start=A loss_end=B seconds=S\n"
    "      --steps N      train N steps instead of the lesson's \"steps\"\n"
    "  --help             show this help\n"
    "  --version          show the version\n"
    "\n"
    "Exit status: 0 success, 1 I/O failure, 2 bad usage or an invalid lesson.\n";

typedef enum { MODE_WINDOW, MODE_TRACE, MODE_JSON, MODE_COMPARE, MODE_CHECK, MODE_EXPORT, MODE_NEW, MODE_GRAD, MODE_TRAIN,
               MODE_QUESTIONS } Mode;

// The options of --new, as given.
typedef struct {
    const char *file, *tokens, *heads, *d_model;
} NewArgs;

// The options of --export, as given (checked by parse_export).
typedef struct {
    const char *dir, *format, *scale, *what, *stage, *background, *head, *cell, *parts;
} ExportArgs;

// Loads path (or the built-in lesson when NULL); prints the error and returns the exit status on failure.
static int load_lesson(Lesson *l, const char *path)
{
    LessonError err;
    bool ok = path ? lesson_load(l, path, &err) : lesson_load_builtin(l, &err);
    if (ok) return EXIT_OK;
    char buf[1400]; // file (512), place, field path (256) and message (512) all fit
    cli_line(stderr, "%s\n", lesson_error_format(&err, buf, sizeof buf));
    return err.io ? EXIT_IO : EXIT_USAGE;
}

static int run_trace(const Lesson *l, const char *path, Trace *t)
{
    TraceError terr;
    if (trace_run(t, &l->params, &terr)) return EXIT_OK;
    cli_line(stderr, "%s: error: %s\n", path ? path : "<built-in>", terr.message);
    return EXIT_USAGE;
}

static int finish_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_line(stderr, "mha-tracer: error: cannot write to standard output: %s\n", strerror(errno));
        return EXIT_IO;
    }
    return EXIT_OK;
}

// lessons/lesson.schema.json sits beside the lessons (for editors), so `--check lessons/*.json` names it too.
static bool is_schema_file(const char *path)
{
    static const char suffix[] = ".schema.json";
    size_t n = strlen(path), k = sizeof suffix - 1;
    return n >= k && strcmp(path + n - k, suffix) == 0;
}

// Prints a report's errors and warnings (stderr), then "FILE: ok" (stdout) or the count of errors (stderr).
// Returns the exit status of the file.
static int print_report(const char *path, const LessonReport *rep, bool io)
{
    char buf[1400];
    for (int i = 0; i < rep->count; i++) cli_line(stderr, "%s\n", lesson_error_format(&rep->items[i], buf, sizeof buf));
    int unlisted = rep->errors + rep->warnings - rep->count;
    if (unlisted > 0) cli_line(stderr, "%s: ... and %d more not listed\n", path, unlisted);
    char warnings[64] = "";
    if (rep->warnings)
        snprintf(warnings, sizeof warnings, ", %d warning%s", rep->warnings, rep->warnings == 1 ? "" : "s");
    if (rep->errors == 0) {
        cli_line(stdout, "%s: ok%s\n", path, warnings);
        return EXIT_OK;
    }
    cli_line(stderr, "%s: %d error%s%s\n", path, rep->errors, rep->errors == 1 ? "" : "s", warnings);
    return io ? EXIT_IO : EXIT_USAGE;
}

// --check: every independent error of each file with its line:column and field, then the count; warnings
// (which leave the file valid) from the lesson and from its numbers.
static int check_files(char **paths, int count)
{
    int status = EXIT_OK;
    for (int i = 0; i < count; i++) {
        if (is_schema_file(paths[i])) {
            cli_line(stdout, "%s: skipped (a JSON Schema, not a lesson)\n", paths[i]);
            continue;
        }
        Lesson l;
        LessonReport rep;
        bool io = false;
        if (lesson_load_report(&l, paths[i], &rep)) {
            Trace t;
            TraceError terr;
            if (trace_run(&t, &l.params, &terr)) {
                saturation_warn(&l, &t, paths[i], &rep);
                questions_check(&l, &t, paths[i], &rep);
                trace_free(&t);
            } else { // valid JSON whose numbers overflow: an error of the file
                LessonError e;
                memset(&e, 0, sizeof e);
                lesson_error_set_file(&e, paths[i]);
                snprintf(e.message, sizeof e.message, "%s", terr.message);
                lesson_report_add(&rep, &e);
            }
            lesson_free(&l);
        } else
            io = rep.count > 0 && rep.items[0].io;
        int s = print_report(paths[i], &rep, io);
        lesson_report_free(&rep);
        if (s == EXIT_USAGE || (s == EXIT_IO && status == EXIT_OK)) status = s;
    }
    int out = finish_stdout();
    return status != EXIT_OK ? status : out;
}

// "--name VALUE" or "--name=VALUE": the value (advancing *i past it), or NULL when a is another option.
// *missing is set when the option is there without its value.
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    *missing = false;
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

#ifndef MHA_NO_GUI
// The fonts, where the window finds them (gui_find_assets).
static bool find_font_dir(char *out, size_t cap)
{
    char assets[1024];
    if (!gui_find_assets(assets, sizeof assets)) return false;
    snprintf(out, cap, "%s/fonts", assets);
    return true;
}

// Turns the --export options into a request; prints what was expected and returns false when one is wrong.
static bool parse_export(const ExportArgs *a, ExportRequest *r)
{
    export_request_defaults(r);
    r->dir = a->dir;
    r->create_dir = true; // one level, like mkdir: a missing parent is still an error
    if (a->format) {
        if (strcmp(a->format, "png") == 0) r->formats = EXPORT_PNG;
        else if (strcmp(a->format, "svg") == 0) r->formats = EXPORT_SVG;
        else if (strcmp(a->format, "both") == 0) r->formats = EXPORT_PNG | EXPORT_SVG;
        else {
            cli_line(stderr, "mha-tracer: error: --format expects png, svg or both, got '%s'\n", a->format);
            return false;
        }
    }
    if (a->scale) {
        char *end;
        errno = 0;
        double k = strtod(a->scale, &end);
        if (end == a->scale || *end || errno || !(k >= EXPORT_SCALE_MIN && k <= EXPORT_SCALE_MAX)) {
            cli_line(stderr, "mha-tracer: error: --scale expects a number from %g to %g, got '%s'\n", EXPORT_SCALE_MIN,
                    EXPORT_SCALE_MAX, a->scale);
            return false;
        }
        r->scale = k;
    }
    if (a->what) {
        if (strcmp(a->what, "heatmaps") == 0) r->what = EXPORT_WHAT_HEATMAPS;
        else if (strcmp(a->what, "board") == 0) r->what = EXPORT_WHAT_BOARD;
        else if (strcmp(a->what, "all") == 0) r->what = EXPORT_WHAT_ALL;
        else {
            cli_line(stderr, "mha-tracer: error: --what expects heatmaps, board or all, got '%s'\n", a->what);
            return false;
        }
    }
    if (a->stage) {
        r->stage = -2;
        if (strcmp(a->stage, "all") == 0) r->stage = EXPORT_ALL_STAGES;
        else if (strcmp(a->stage, "weights") == 0) r->stage = STAGE_SOFTMAX;
        else if (strcmp(a->stage, "masked") == 0) r->stage = STAGE_MASK;
        Stage keyed;
        if (r->stage == -2 && model_stage_from_key(a->stage, &keyed)) r->stage = keyed;
        if (r->stage == -2) {
            cli_line(stderr,
                    "mha-tracer: error: --stage expects all, scores, scaled, mask, weights (heatmaps) or input, "
                    "positions, projections, scores, scaled, mask, softmax, weighted-sum, concat, output (board), got '%s'\n",
                    a->stage);
            return false;
        }
    }
    if (a->head) {
        char *end;
        errno = 0;
        long h = strtol(a->head, &end, 10);
        if (end == a->head || *end || errno || h < 0 || h > 1000000) {
            cli_line(stderr, "mha-tracer: error: --head expects a head number from 0, got '%s'\n", a->head);
            return false;
        }
        r->head = (int)h; // the lesson's own count is checked by export_run
    }
    if (a->cell) {
        int row = -1, col = -1, used = 0;
        if (sscanf(a->cell, "%d,%d%n", &row, &col, &used) != 2 || a->cell[used] || row < 0 || col < 0 ||
            !(a->cell[0] >= '0' && a->cell[0] <= '9')) {
            cli_line(stderr, "mha-tracer: error: --cell expects ROW,COL (numbers from 0, e.g. 1,2), got '%s'\n", a->cell);
            return false;
        }
        if (!(r->what & EXPORT_WHAT_BOARD)) {
            cli_line(stderr, "mha-tracer: error: --cell pins a cell on boards: add --what board (or all)\n");
            return false;
        }
        r->cell_row = row;
        r->cell_col = col;
    }
    if (a->parts) {
        if (strcmp(a->parts, "all") == 0) r->parts = true;
        else if (strcmp(a->parts, "first") != 0) {
            cli_line(stderr, "mha-tracer: error: --parts expects first or all, got '%s'\n", a->parts);
            return false;
        }
        if (r->parts && !(r->what & EXPORT_WHAT_BOARD)) {
            cli_line(stderr, "mha-tracer: error: --parts all writes the parts of boards: add --what board (or all)\n");
            return false;
        }
    }
    if (a->background) {
        if (strcmp(a->background, "white") == 0) r->background = EXPORT_BG_WHITE;
        else if (strcmp(a->background, "transparent") == 0) r->background = EXPORT_BG_TRANSPARENT;
        else if (strcmp(a->background, "dark") == 0) r->background = EXPORT_BG_DARK;
        else {
            cli_line(stderr, "mha-tracer: error: --background expects white, transparent or dark, got '%s'\n",
                    a->background);
            return false;
        }
    }
    return true;
}

// Writes the images and prints each path.
static int run_export(ExportRequest *req, const Lesson *l, const char *path, const Trace *t)
{
    char font_dir[1200], name[128];
    if (!find_font_dir(font_dir, sizeof font_dir)) {
        cli_line(stderr, "mha-tracer: error: cannot find the fonts (assets/fonts/DejaVuSans.ttf)\n");
        return EXIT_IO;
    }
    req->font_dir = font_dir;
    req->name = export_name_for(path, l, name, sizeof name);
    ExportResult res;
    ExportError err;
    bool ok = export_run(req, l, t, &res, &err);
    IMG_Quit();
    SDL_Quit();
    if (!ok) {
        cli_line(stderr, "mha-tracer: error: %s\n", err.message);
        return err.io ? EXIT_IO : EXIT_USAGE;
    }
    for (size_t i = 0; i < res.count; i++) cli_line(stdout, "%s\n", res.paths[i]);
    if (res.missing[0]) cli_line(stderr, "mha-tracer: warning: %s\n", res.missing);
    export_result_free(&res);
    return finish_stdout();
}
#endif

// The folder of this program (from the platform layer, else argv0 when it has a slash), or false.
static bool program_dir(const char *argv0, char *out, size_t cap)
{
    char buf[PATH_CAP];
    if (!platform_exe_path(buf, sizeof buf) && !(argv0 && strchr(argv0, '/') && platform_realpath(argv0, buf, sizeof buf)))
        return false;
    char *slash = strrchr(buf, '/');
    if (!slash) return false;
    *slash = '\0';
    snprintf(out, cap, "%s", buf[0] ? buf : "/");
    return true;
}

// lesson.schema.json where it is installed (beside the program: ../share/mha-tracer/lessons), else in the
// source tree built from, else under the install prefix: its real path, or false.
static bool find_schema(const char *argv0, char *out, size_t cap)
{
    char dir[PATH_CAP], probe[PATH_CAP + 64];
    const char *fixed[] = {MHA_SOURCE_LESSONS, MHA_INSTALL_LESSONS};
    for (int i = -2; i < 2; i++) {
        if (i < 0) { // installed (../share/...), or unzipped on Windows (lessons/ beside the program)
            if (!program_dir(argv0, dir, sizeof dir)) continue;
            snprintf(probe, sizeof probe, i == -2 ? "%s/../share/mha-tracer/lessons/lesson.schema.json"
                                                  : "%s/lessons/lesson.schema.json", dir);
        } else
            snprintf(probe, sizeof probe, "%s/lesson.schema.json", fixed[i]);
        char real[PATH_CAP];
        if (platform_realpath(probe, real, sizeof real)) {
            snprintf(out, cap, "%s", real);
            return true;
        }
    }
    return false;
}

// to (an absolute real path) relative to the folder of the file `from` (which need not exist yet), as an
// editor resolves "$schema": "./x.json", "../lessons/x.json". Falls back on `to` itself.
static void relative_to(const char *from, const char *to, char *out, size_t cap)
{
    char dir[PATH_CAP], real[PATH_CAP];
    const char *slash = strrchr(from, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == from) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - from), from);
    if (!platform_realpath(dir, real, sizeof real)) {
        snprintf(out, cap, "%s", to);
        return;
    }
    // The common leading folders (real + "/" against to), then one ".." for each folder of real left.
    size_t n = strlen(real);
    if (n + 2 > sizeof real) {
        snprintf(out, cap, "%s", to);
        return;
    }
    if (real[n - 1] != '/') memcpy(real + n++, "/", 2);
    size_t common = 0;
    for (size_t i = 0; real[i] && real[i] == to[i]; i++)
        if (real[i] == '/') common = i + 1;
    int ups = 0;
    for (size_t i = common; real[i]; i++) ups += real[i] == '/';
    size_t used = (size_t)snprintf(out, cap, "%s", ups ? "" : "./");
    for (int i = 0; i < ups && used < cap; i++) used += (size_t)snprintf(out + used, cap - used, "../");
    if (used < cap) snprintf(out + used, cap - used, "%s", to + common);
}

// --new: a starter lesson, checked in memory, written to a file that did not exist.
static int run_new(const NewArgs *a, const char *argv0)
{
    long heads = 2, d_model = 4;
    const char *names[2] = {"--heads", "--d-model"};
    const char *given[2] = {a->heads, a->d_model};
    long *vals[2] = {&heads, &d_model};
    long maxs[2] = {LESSON_MAX_HEADS, 64};
    for (int i = 0; i < 2; i++) {
        if (!given[i]) continue;
        char *end;
        errno = 0;
        long v = strtol(given[i], &end, 10);
        if (end == given[i] || *end || errno || v < 1 || v > maxs[i]) {
            cli_line(stderr, "mha-tracer: error: %s expects a whole number from 1 to %ld, got '%s'\n", names[i], maxs[i],
                    given[i]);
            return EXIT_USAGE;
        }
        *vals[i] = v;
    }
    if (a->heads && !a->d_model && d_model % heads != 0) d_model = heads * 2; // two dimensions per head
    if (d_model % heads != 0) {
        cli_line(stderr, "mha-tracer: error: --heads %ld does not divide --d-model %ld: each head gets d_model / heads "
                        "dimensions\n", heads, d_model);
        return EXIT_USAGE;
    }
    // The tokens: split on white space (as "sentence" is).
    const char *text = a->tokens ? a->tokens : "The cat sat";
    char *copy = malloc(strlen(text) + 1);
    const char **toks = malloc(sizeof *toks * (strlen(text) / 2 + 1));
    if (!copy || !toks) {
        free(copy);
        free(toks);
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    strcpy(copy, text);
    int n = 0;
    for (char *t = strtok(copy, " \t\n\r\f\v"); t; t = strtok(NULL, " \t\n\r\f\v")) toks[n++] = t;
    int status = EXIT_OK;
    if (n < 1 || n > LESSON_MAX_TOKENS) {
        cli_line(stderr, "mha-tracer: error: --tokens expects 1 to %d words, got %d\n", LESSON_MAX_TOKENS, n);
        status = EXIT_USAGE;
    }
    char schema[PATH_CAP], rel[PATH_CAP];
    bool have_schema = status == EXIT_OK && find_schema(argv0, schema, sizeof schema);
    if (have_schema) relative_to(a->file, schema, rel, sizeof rel);
    size_t len = 0;
    char *json = status == EXIT_OK
                     ? lesson_write_starter(toks, n, (int)heads, (int)d_model, have_schema ? rel : NULL, &len)
                     : NULL;
    if (status == EXIT_OK && !json) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        status = EXIT_IO;
    }
    if (status == EXIT_OK) { // what is written must load: checked before the file exists
        Lesson l;
        LessonError err;
        if (!lesson_parse(&l, json, len, a->file, &err)) {
            char buf[1400];
            cli_line(stderr, "mha-tracer: internal error: the starter lesson does not load: %s\n",
                    lesson_error_format(&err, buf, sizeof buf));
            status = EXIT_USAGE;
        } else
            lesson_free(&l);
    }
    if (status == EXIT_OK) {
        LessonError err;
        if (!lesson_write_new_file(a->file, json, len, &err)) {
            char buf[1400];
            cli_line(stderr, "%s\n", lesson_error_format(&err, buf, sizeof buf));
            status = EXIT_IO;
        } else {
            cli_line(stdout, "%s: a starter lesson: %d token%s, d_model %ld, %ld head%s\n", a->file, n, n == 1 ? "" : "s",
                   d_model, heads, heads == 1 ? "" : "s");
            if (!have_schema)
                cli_line(stderr, "mha-tracer: note: lesson.schema.json was not found, so the lesson has no \"$schema\"\n");
            status = finish_stdout();
        }
    }
    free(json);
    free(copy);
    free(toks);
    return status;
}

// --ablate and --shuffle on a loaded lesson: the heads switched off; the lesson replaced by its shuffled
// copy (*perm, malloc'd, and extra say how; the output's change is measured against the original's trace).
static int apply_teaching_options(Lesson *l, const char *path, const char *ablate, const char *shuffle, int **perm,
                                  CliExtra *extra)
{
    char msg[300];
    if (ablate) {
        uint64_t set;
        if (!lesson_parse_heads(ablate, l->params.heads, &set, msg, sizeof msg)) {
            cli_line(stderr, "mha-tracer: error: --ablate %s\n", msg);
            return EXIT_USAGE;
        }
        l->params.ablated = set;
    }
    if (!shuffle) return EXIT_OK;
    *perm = malloc(sizeof **perm * (size_t)l->params.n);
    if (!*perm) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    if (!lesson_parse_permutation(shuffle, l->params.n, *perm, msg, sizeof msg)) {
        cli_line(stderr, "mha-tracer: error: --shuffle %s\n", msg);
        free(*perm);
        *perm = NULL;
        return EXIT_USAGE;
    }
    Lesson shuffled;
    Trace before, after;
    int status = run_trace(l, path, &before);
    if (status != EXIT_OK) {
        free(*perm);
        *perm = NULL;
        return status;
    }
    if (!lesson_shuffle(&shuffled, l, *perm)) {
        trace_free(&before);
        free(*perm);
        *perm = NULL;
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    status = run_trace(&shuffled, path, &after);
    if (status == EXIT_OK) {
        extra->shuffle = *perm;
        extra->shuffle_difference = trace_shuffle_difference(&before, &after, *perm);
        extra->shuffle_same = trace_shuffle_same(&before, extra->shuffle_difference);
        trace_free(&after);
    }
    trace_free(&before);
    lesson_free(l);
    *l = shuffled;
    if (status != EXIT_OK) {
        free(*perm);
        *perm = NULL;
    }
    return status;
}

// --grad: the loss of the lesson's output against its targets and the gradient of every parameter.
static int run_grad(const Lesson *l, const char *path, const Trace *t)
{
    Matrix targets;
    bool missing;
    if (!lesson_targets(l, &targets, &missing)) {
        cli_line(stderr, missing ? "%s: error: --grad needs \"targets\" (n rows of d_model numbers) or a \"train\" section\n"
                                 : "%s: error: out of memory\n", path ? path : "<built-in>");
        return missing ? EXIT_USAGE : EXIT_IO;
    }
    AttnParams g;
    int status = EXIT_IO;
    if (grads_init(&g, &l->params)) {
        if (attn_backward(&g, &l->params, t, &targets, 1.0)) {
            cli_print_grad(stdout, attn_loss(t, &targets), &g);
            status = finish_stdout();
        } else
            cli_line(stderr, "mha-tracer: error: out of memory\n");
        params_free(&g);
    } else
        cli_line(stderr, "mha-tracer: error: out of memory\n");
    mat_free(&targets);
    return status;
}

// The processor time used so far, in seconds (training runs on this one thread, so it is the time it took).
static double seconds_now(void) { return (double)clock() / CLOCKS_PER_SEC; }

// --train: Adam on the lesson's task, progress every tenth of the run, the trained lesson into out.
static int run_train(Lesson *l, const char *path, const char *steps_arg, const char *out)
{
    if (!l->trains) {
        cli_line(stderr, "%s: error: --train needs a lesson with a \"train\" section (see the README)\n",
                 path ? path : "<built-in>");
        return EXIT_USAGE;
    }
    if (!out) {
        cli_line(stderr, "mha-tracer: error: --train needs --out FILE for the trained lesson\n");
        return EXIT_USAGE;
    }
    if (steps_arg) {
        char *end;
        errno = 0;
        long v = strtol(steps_arg, &end, 10);
        if (errno || *end || end == steps_arg || v < 1 || v > TRAIN_MAX_STEPS) {
            cli_line(stderr, "mha-tracer: error: --steps expects a whole number from 1 to %d, got '%s'\n",
                     TRAIN_MAX_STEPS, steps_arg);
            return EXIT_USAGE;
        }
        l->train.steps = (int)v;
    }
    // The lesson itself, by any name or through a link, is refused (a hard link's other name would be replaced by
    // a new file, as every write here renames a fresh one into place, and the lesson keep its bytes).
    char in_real[4096], out_real[4096];
    if (path && platform_realpath(path, in_real, sizeof in_real) && platform_realpath(out, out_real, sizeof out_real)
        && strcmp(in_real, out_real) == 0) {
        cli_line(stderr, "mha-tracer: error: --out %s is the lesson itself; write the trained lesson to another file\n", out);
        return EXIT_USAGE;
    }
    Matrix vocab;
    int *ids = malloc((size_t)l->params.n * sizeof(int));
    if (!ids || !lesson_train_vocabulary(l, &vocab, ids)) {
        free(ids);
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    free(ids);
    double t0 = seconds_now();
    Trainer tr;
    TraceError terr;
    bool ok = train_init(&tr, &l->params, &l->train, &vocab, &terr);
    mat_free(&vocab);
    if (!ok) {
        cli_line(stderr, "%s: error: %s\n", path ? path : "<built-in>", terr.message);
        return EXIT_USAGE;
    }
    int steps = l->train.steps, every = steps >= 10 ? steps / 10 : 1;
    cli_line(stdout, "training %s: task %s, %d sequences of %d tokens from %d distinct, %d steps, learning rate %g\n",
             path ? path : "<built-in>", train_task_key(l->train.task), l->train.sequences, l->params.n,
             tr.vocab.rows, steps, l->train.learning_rate);
    cli_line(stdout, "step %d/%d loss %.9g\n", 0, steps, tr.loss[0]);
    while (ok && tr.step < steps) {
        ok = train_step(&tr, &terr);
        if (ok && (tr.step % every == 0 || tr.step == steps))
            cli_line(stdout, "step %d/%d loss %.9g\n", tr.step, steps, tr.loss[tr.step == steps ? steps : tr.step - 1]);
    }
    if (!ok) {
        cli_line(stderr, "%s: error: step %d: %s\n", path ? path : "<built-in>", tr.step + 1, terr.message);
        train_free(&tr);
        return EXIT_USAGE;
    }
    double seconds = seconds_now() - t0;
    size_t len;
    char *json = lesson_write_json(l, &tr.p, " (trained)", &len);
    int status = EXIT_OK;
    LessonError err;
    if (!json) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        status = EXIT_IO;
    } else if (!lesson_write_file(out, json, len, &err)) {
        char buf[1400];
        cli_line(stderr, "%s\n", lesson_error_format(&err, buf, sizeof buf));
        status = EXIT_IO;
    } else {
        cli_line(stdout, "wrote %s\n", out);
        cli_line(stdout, "steps=%d loss_start=%.9g loss_end=%.9g seconds=%.3f\n", steps, tr.loss[0], tr.loss[steps],
                 seconds);
        status = finish_stdout();
    }
    free(json);
    train_free(&tr);
    return status;
}

int main(int argc, char **argv)
{
    platform_console_attach();
    argv = platform_utf8_argv(argc, argv);
    Mode mode = MODE_WINDOW;
    bool fullscreen = false;
    const char *lang = NULL; // --lang: the window's and the exports' words (never --trace's, --json's or --check's)
    char **files = malloc(sizeof(char *) * (size_t)(argc > 0 ? argc : 1));
    int nfiles = 0;
    if (!files) return EXIT_IO;
    bool options_done = false;
    ExportArgs xargs = {0};
    NewArgs nargs = {0};
    const char *new_opt = NULL; // the first --tokens, --heads or --d-model seen (they need --new)
    const char *export_opt = NULL; // the first --format, --scale ... seen (they need --export)
    const char *ablate_arg = NULL, *shuffle_arg = NULL; // --ablate, --shuffle (with --trace, --json, --export)
    const char *teach_opt = NULL; // the first of them seen
    const char *steps_arg = NULL, *out_arg = NULL, *train_opt = NULL; // --steps, --out (with --train)
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && a[0] == '-' && a[1] != '\0') {
            static const char *const NOPTS[] = {"--new", "--tokens", "--heads", "--d-model"};
            const char **nslots[] = {&nargs.file, &nargs.tokens, &nargs.heads, &nargs.d_model};
            int nx = -1;
            const char *nvalue = NULL;
            for (int k = 0; k < 4 && nx < 0; k++) {
                bool missing;
                nvalue = option_value(argc, argv, &i, NOPTS[k], &missing);
                if (missing) {
                    cli_line(stderr, "mha-tracer: error: %s needs a value (see --help)\n", NOPTS[k]);
                    free(files);
                    return EXIT_USAGE;
                }
                if (nvalue) nx = k;
            }
            if (nx >= 0) {
                if (!nvalue[0] || (nx == 0 && mode != MODE_WINDOW)) {
                    cli_line(stderr, nvalue[0] ? "mha-tracer: error: %s cannot be combined with another mode\n"
                                              : "mha-tracer: error: %s needs a value (see --help)\n",
                            NOPTS[nx]);
                    free(files);
                    return EXIT_USAGE;
                }
                *nslots[nx] = nvalue;
                if (nx == 0) mode = MODE_NEW;
                else if (!new_opt) new_opt = NOPTS[nx];
                continue;
            }
            static const char *const RTOPTS[] = {"--steps", "--out"};
            const char **rslots[] = {&steps_arg, &out_arg};
            int rx = -1;
            for (int k = 0; k < 2 && rx < 0; k++) {
                bool missing;
                const char *rvalue = option_value(argc, argv, &i, RTOPTS[k], &missing);
                if (missing || (rvalue && !rvalue[0])) {
                    cli_line(stderr, "mha-tracer: error: %s needs a value (see --help)\n", RTOPTS[k]);
                    free(files);
                    return EXIT_USAGE;
                }
                if (rvalue) {
                    rx = k;
                    *rslots[k] = rvalue;
                    if (!train_opt) train_opt = RTOPTS[k];
                }
            }
            if (rx >= 0) continue;
            static const char *const TOPTS[] = {"--ablate", "--shuffle"};
            const char **tslots[] = {&ablate_arg, &shuffle_arg};
            int tx = -1;
            for (int k = 0; k < 2 && tx < 0; k++) {
                bool missing;
                const char *tvalue = option_value(argc, argv, &i, TOPTS[k], &missing);
                if (missing || (tvalue && !tvalue[0])) {
                    cli_line(stderr, "mha-tracer: error: %s needs a value (see --help)\n", TOPTS[k]);
                    free(files);
                    return EXIT_USAGE;
                }
                if (tvalue) {
                    tx = k;
                    *tslots[k] = tvalue;
                    if (!teach_opt) teach_opt = TOPTS[k];
                }
            }
            if (tx >= 0) continue;
            static const char *const XOPTS[] = {"--export", "--format", "--scale", "--what", "--stage", "--background",
                                                "--head",   "--cell",   "--parts"};
            const char **slots[] = {&xargs.dir,   &xargs.format,     &xargs.scale, &xargs.what, &xargs.stage,
                                    &xargs.background, &xargs.head,  &xargs.cell,  &xargs.parts};
            int x = -1;
            const char *value = NULL;
            for (int k = 0; k < (int)(sizeof XOPTS / sizeof XOPTS[0]) && x < 0; k++) {
                bool missing;
                value = option_value(argc, argv, &i, XOPTS[k], &missing);
                if (missing) {
                    cli_line(stderr, "mha-tracer: error: %s needs a value (see --help)\n", XOPTS[k]);
                    free(files);
                    return EXIT_USAGE;
                }
                if (value) x = k;
            }
            if (x == 0 && mode != MODE_WINDOW && mode != MODE_EXPORT) {
                cli_line(stderr, "mha-tracer: error: --export cannot be combined with another mode\n");
                free(files);
                return EXIT_USAGE;
            }
            if (x >= 0) {
                if (!value[0]) {
                    cli_line(stderr, "mha-tracer: error: %s needs a value (see --help)\n", XOPTS[x]);
                    free(files);
                    return EXIT_USAGE;
                }
                *slots[x] = value;
                if (x == 0) mode = MODE_EXPORT;
                else if (!export_opt) export_opt = XOPTS[x];
            } else if (strcmp(a, "--") == 0)
                options_done = true;
            else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
                fputs(USAGE, stdout);
                free(files);
                return finish_stdout();
            } else if (strcmp(a, "--version") == 0) {
                cli_line(stdout, "mha-tracer %s\n", MHA_VERSION);
                free(files);
                return finish_stdout();
            } else if (strcmp(a, "--trace") == 0 || strcmp(a, "--json") == 0 || strcmp(a, "--check") == 0
                       || strcmp(a, "--compare") == 0 || strcmp(a, "--grad") == 0 || strcmp(a, "--train") == 0
                       || strcmp(a, "--questions") == 0) {
                Mode m = strcmp(a, "--trace") == 0     ? MODE_TRACE
                       : strcmp(a, "--json") == 0      ? MODE_JSON
                       : strcmp(a, "--check") == 0     ? MODE_CHECK
                       : strcmp(a, "--grad") == 0      ? MODE_GRAD
                       : strcmp(a, "--train") == 0     ? MODE_TRAIN
                       : strcmp(a, "--questions") == 0 ? MODE_QUESTIONS
                                                       : MODE_COMPARE;
                if (mode != MODE_WINDOW && mode != m) { // (--new and --export included)
                    cli_line(stderr, "mha-tracer: error: %s cannot be combined with another mode\n", a);
                    free(files);
                    return EXIT_USAGE;
                }
                mode = m;
            } else if (strcmp(a, "--fullscreen") == 0)
                fullscreen = true;
            else if (strcmp(a, "--lang") == 0 || strncmp(a, "--lang=", 7) == 0) {
                bool missing = false;
                lang = option_value(argc, argv, &i, "--lang", &missing);
                Lang l;
                if (missing || !lang || !i18n_parse(lang, &l)) {
                    cli_line(stderr, "mha-tracer: error: --lang expects one of %s, got '%s'\n", i18n_codes(),
                             lang ? lang : "");
                    free(files);
                    return EXIT_USAGE;
                }
            } else {
                cli_line(stderr, "mha-tracer: error: unknown option '%s' (see --help)\n", a);
                free(files);
                return EXIT_USAGE;
            }
        } else {
            platform_path_normalize(argv[i]); // Windows: a backslash becomes '/', where the program splits paths
            files[nfiles++] = argv[i];
        }
    }

    if (new_opt && mode != MODE_NEW) {
        cli_line(stderr, "mha-tracer: error: %s only works with --new FILE (see --help)\n", new_opt);
        free(files);
        return EXIT_USAGE;
    }
    if (mode == MODE_NEW) {
        int status = EXIT_USAGE;
        char file[PATH_CAP]; // Windows: '/' for '\\', so "$schema" is made relative to the right folder
        if (nargs.file && strlen(nargs.file) < sizeof file) {
            snprintf(file, sizeof file, "%s", nargs.file);
            platform_path_normalize(file);
            nargs.file = file;
        }
        if (nfiles > 0) cli_line(stderr, "mha-tracer: error: --new takes its FILE only, got also '%s'\n", files[0]);
        else status = run_new(&nargs, argv[0]);
        free(files);
        return status;
    }
    if (teach_opt && mode != MODE_TRACE && mode != MODE_JSON && mode != MODE_EXPORT) {
        cli_line(stderr, "mha-tracer: error: %s only works with --trace, --json or --export (see --help)\n", teach_opt);
        free(files);
        return EXIT_USAGE;
    }
    if (train_opt && mode != MODE_TRAIN) {
        cli_line(stderr, "mha-tracer: error: %s only works with --train LESSON (see --help)\n", train_opt);
        free(files);
        return EXIT_USAGE;
    }
    if (export_opt && mode != MODE_EXPORT) {
        cli_line(stderr, "mha-tracer: error: %s only works with --export DIR (see --help)\n", export_opt);
        free(files);
        return EXIT_USAGE;
    }
#ifdef MHA_NO_GUI
    if (mode == MODE_EXPORT) {
        cli_line(stderr, "mha-tracer: error: this build has no exporter (built with -DMHA_GUI=OFF)\n");
        free(files);
        return EXIT_USAGE;
    }
#else
    ExportRequest xreq;
    if (mode == MODE_EXPORT && !parse_export(&xargs, &xreq)) {
        free(files);
        return EXIT_USAGE;
    }
#endif

    int status;
    if (mode == MODE_CHECK) {
        if (nfiles == 0) {
            cli_line(stderr, "mha-tracer: error: --check needs at least one lesson file\n");
            status = EXIT_USAGE;
        } else
            status = check_files(files, nfiles);
        free(files);
        return status;
    }
    if (nfiles > 1) {
        cli_line(stderr, "mha-tracer: error: expected one lesson file, got %d (see --help)\n", nfiles);
        free(files);
        return EXIT_USAGE;
    }
    const char *path = nfiles ? files[0] : NULL;
    free(files);

    Lesson lesson;
    status = load_lesson(&lesson, path);
    if (status != EXIT_OK) return status;
    CliExtra extra = {0};
    int *perm = NULL;
    if (ablate_arg || shuffle_arg) {
        status = apply_teaching_options(&lesson, path, ablate_arg, shuffle_arg, &perm, &extra);
        if (status != EXIT_OK) {
            lesson_free(&lesson);
            return status;
        }
    }
    if (mode == MODE_TRAIN) {
        status = run_train(&lesson, path, steps_arg, out_arg);
        lesson_free(&lesson);
        free(perm);
        return status;
    }
    Trace trace;
    status = run_trace(&lesson, path, &trace);
    if (status != EXIT_OK) {
        lesson_free(&lesson);
        free(perm);
        return status;
    }
    if (mode == MODE_TRACE || mode == MODE_JSON) {
        if (mode == MODE_TRACE)
            cli_print_trace_ex(stdout, &lesson, &trace, &extra);
        else
            cli_print_json_ex(stdout, &lesson, &trace, &extra);
        status = finish_stdout();
    } else if (mode == MODE_QUESTIONS) {
        int errors = cli_print_questions(stdout, stderr, &lesson, &trace, path ? path : "<built-in>");
        status = finish_stdout();
        if (errors > 0 && status == EXIT_OK) status = EXIT_USAGE;
    } else if (mode == MODE_GRAD) {
        status = run_grad(&lesson, path, &trace);
    } else if (mode == MODE_COMPARE) {
        Comparison cmp;
        TraceError terr;
        if (compare_run(&cmp, &lesson.params, &terr)) {
            cli_print_compare(stdout, &lesson, &trace, &cmp);
            compare_free(&cmp);
            status = finish_stdout();
        } else {
            cli_line(stderr, "%s: error: %s\n", path ? path : "<built-in>", terr.message);
            status = EXIT_USAGE;
        }
    }
#ifndef MHA_NO_GUI
    else if (mode == MODE_EXPORT) {
        i18n_use(i18n_choose(lang, lesson.language));
        status = run_export(&xreq, &lesson, path, &trace);
    }
#endif
    trace_free(&trace);
    lesson_free(&lesson);
    free(perm);
    if (mode != MODE_WINDOW) return status;
#ifdef MHA_NO_GUI
    (void)fullscreen;
    cli_line(stderr, "mha-tracer: error: this build has no window (built with -DMHA_GUI=OFF); use --trace or --json\n");
    return EXIT_USAGE;
#else
    GuiOptions opt = {.lesson_path = path, .fullscreen = fullscreen, .lang = lang};
    return gui_run(&opt);
#endif
}
