// mha-tracer's entry point: what the command line asks for (--trace, --json, --compare, --check,
// --export, --new,
// --grad, --train, --help, --version) and the window. The options are read from their table
// (options.c).
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/cli_check.h"
#include "app/cli_layout.h"
#include "app/cli_model.h"
#include "app/cli_train.h"
#include "app/cli_circuit.h"
#include "app/cli_circuit_export.h"
#include "core/decode.h"
#include "app/indexlist.h"
#include "core/utf8.h"
#include "app/options.h"
#include "model/i18n.h"
#include "lesson/lesson_write.h"
#include "platform/platform.h"
#include "render/export.h" // ExportRequest (also where this build has no exporter)
#ifndef MHA_NO_GUI
#include <SDL.h>
#include <SDL_image.h>
#include "app/gui.h"
#endif

#ifndef MHA_VERSION
#define MHA_VERSION "dev"
#endif

enum { PATH_CAP = 4096 }; // the longest path this program builds or resolves

// Loads path (or the built-in lesson when NULL); prints the error and returns the exit status on
// failure.
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

#ifndef MHA_NO_GUI
// The fonts, where the window finds them (gui_find_assets).
static bool find_font_dir(char *out, size_t cap)
{
    char assets[1024];
    if (!gui_find_assets(assets, sizeof assets)) return false;
    snprintf(out, cap, "%s/fonts", assets);
    return true;
}
#endif

#ifndef MHA_NO_GUI
// Turns the --export options into a request; prints what was expected and returns false when one is
// wrong.
static bool parse_export(const Args *a, ExportRequest *r)
{
    export_request_defaults(r);
    r->dir = a->value[OPT_EXPORT];
    r->create_dir = true; // one level, like mkdir: a missing parent is still an error
    const char *const *v = a->value;
    int format = r->formats, what = r->what, parts = r->parts, background = r->background;
    double scale = r->scale, head = r->head;
    if ((v[OPT_FORMAT] && !options_choice(OPT_FORMAT, v[OPT_FORMAT], &format))
        || (v[OPT_SCALE] && !options_number(OPT_SCALE, v[OPT_SCALE], &scale))
        || (v[OPT_WHAT] && !options_choice(OPT_WHAT, v[OPT_WHAT], &what)))
        return false;
    r->formats = (unsigned)format;
    r->scale = scale;
    r->what = (ExportWhat)what;
    if (r->what == EXPORT_WHAT_OVERVIEW && !v[OPT_MODEL]) {
        cli_line(stderr, "mha-tracer: error: --what overview shows every layer of a checkpoint: "
                         "add --model DIR (a "
                         "lesson has one layer)\n");
        return false;
    }
    if (r->what == EXPORT_WHAT_HANDOUT) r->stage = EXPORT_ALL_STAGES; // unless --stage says one
    if (v[OPT_STAGE] && !options_stage(v[OPT_STAGE], &r->stage)) return false;
    if (v[OPT_HEAD] && !options_number(OPT_HEAD, v[OPT_HEAD], &head)) return false;
    r->head = (int)head; // the lesson's own count is checked by export_run
    if (v[OPT_BLOCK]) {
        double block = 0;
        if (!options_number(OPT_BLOCK, v[OPT_BLOCK], &block)) return false;
        if (r->what != EXPORT_WHAT_TILES) {
            cli_line(stderr, "mha-tracer: error: --block sizes the tiles: add --what tiles\n");
            return false;
        }
        r->block = (int)block; // the lesson's tokens are checked by export_run
    }
    if (r->what == EXPORT_WHAT_SHUFFLE && v[OPT_SHUFFLE]) {
        cli_line(
            stderr,
            "mha-tracer: error: --what shuffle reorders the lesson itself: leave out --shuffle\n");
        return false;
    }
    const char *cell = v[OPT_CELL];
    if (cell) {
        int row = -1, col = -1;
        if (!indexlist_parse_pair(cell, &row, &col)) {
            cli_line(
                stderr,
                "mha-tracer: error: --cell expects ROW,COL (numbers from 0, e.g. 1,2), got '%s'\n",
                cell);
            return false;
        }
        if (!(r->what & EXPORT_WHAT_BOARD)) {
            cli_line(
                stderr,
                "mha-tracer: error: --cell pins a cell on boards: add --what board (or all)\n");
            return false;
        }
        r->cell_row = row;
        r->cell_col = col;
    }
    if (v[OPT_PARTS]) {
        if (!options_choice(OPT_PARTS, v[OPT_PARTS], &parts)) return false;
        r->parts = parts != 0;
        if (r->parts && !(r->what & EXPORT_WHAT_BOARD)) {
            cli_line(stderr, "mha-tracer: error: --parts all writes the parts of boards: add "
                             "--what board (or all)\n");
            return false;
        }
    }
    int style = 0; // --handout-style: the handout's alone
    if (v[OPT_HANDOUT_STYLE] && !options_handout_style(v[OPT_HANDOUT_STYLE], r->what, &style))
        return false;
    r->handout_style = (ExportHandoutStyle)style;
    // The whole deck (--stage all) is every part of every stage unless --parts first says
    // otherwise.
    if (!v[OPT_PARTS] && r->stage == EXPORT_ALL_STAGES && v[OPT_STAGE]
        && (r->what & EXPORT_WHAT_BOARD))
        r->parts = true;
    if (v[OPT_BACKGROUND] && !options_choice(OPT_BACKGROUND, v[OPT_BACKGROUND], &background))
        return false;
    r->background = (ExportBackground)background;
    return true;
}

// Writes the images and prints each path.
static int run_export(ExportRequest *req, const Lesson *l, const char *path, const Trace *t)
{
    char font_dir[1200], name[128];
    if (!find_font_dir(font_dir, sizeof font_dir)) {
        cli_line(stderr,
                 "mha-tracer: error: cannot find the fonts (assets/fonts/DejaVuSans.ttf)\n");
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
    return cli_finish_stdout();
}
#endif

// The folder of this program (from the platform layer, else argv0 when it has a slash), or false.
static bool program_dir(const char *argv0, char *out, size_t cap)
{
    char buf[PATH_CAP];
    if (!platform_exe_path(buf, sizeof buf)
        && !(argv0 && strchr(argv0, '/') && platform_realpath(argv0, buf, sizeof buf)))
        return false;
    char *slash = strrchr(buf, '/');
    if (!slash) return false;
    *slash = '\0';
    snprintf(out, cap, "%s", buf[0] ? buf : "/");
    return true;
}

// lesson.schema.json where it is installed (beside the program: ../share/mha-tracer/lessons), else
// in the source tree built from, else under the install prefix: its real path, or false.
static bool find_schema(const char *argv0, char *out, size_t cap)
{
    char dir[PATH_CAP], probe[PATH_CAP + 64];
    const char *fixed[] = {MHA_SOURCE_LESSONS, MHA_INSTALL_LESSONS};
    for (int i = -2; i < 2; i++) {
        if (i
            < 0) { // installed (../share/...), or unzipped on Windows (lessons/ beside the program)
            if (!program_dir(argv0, dir, sizeof dir)) continue;
            snprintf(probe, sizeof probe,
                     i == -2 ? "%s/../share/mha-tracer/lessons/lesson.schema.json"
                             : "%s/lessons/lesson.schema.json",
                     dir);
        } else snprintf(probe, sizeof probe, "%s/lesson.schema.json", fixed[i]);
        char real[PATH_CAP];
        if (platform_realpath(probe, real, sizeof real)) {
            snprintf(out, cap, "%s", real);
            return true;
        }
    }
    return false;
}

// to (an absolute real path) relative to the folder of the file `from` (which need not exist yet),
// as an editor resolves "$schema": "./x.json", "../lessons/x.json". Falls back on `to` itself.
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
    // The common leading folders (real + "/" against to), then one ".." for each folder of real
    // left.
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
    for (int i = 0; i < ups && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "../");
    if (used < cap) snprintf(out + used, cap - used, "%s", to + common);
}

// What --new writes: where, the tokens (pointing into one copy of --tokens) and the sizes.
typedef struct {
    const char *path;
    const char **toks;
    int n;
    long heads, d_model;
} Starter;

// --new's --heads and --d-model (2 and 4; --heads alone: two dimensions per head) into s. Returns
// EXIT_OK, or EXIT_USAGE after saying why.
static int new_sizes(const Args *a, Starter *s)
{
    double given_heads = 2, given_d_model = 4;
    if ((a->value[OPT_HEADS] && !options_number(OPT_HEADS, a->value[OPT_HEADS], &given_heads))
        || (a->value[OPT_D_MODEL]
            && !options_number(OPT_D_MODEL, a->value[OPT_D_MODEL], &given_d_model)))
        return EXIT_USAGE;
    long heads = (long)given_heads, d_model = (long)given_d_model;
    if (a->value[OPT_HEADS] && !a->value[OPT_D_MODEL] && d_model % heads != 0)
        d_model = heads * 2; // two per head
    if (d_model % heads != 0) {
        cli_line(stderr,
                 "mha-tracer: error: --heads %ld does not divide --d-model %ld: each head gets "
                 "d_model / heads "
                 "dimensions\n",
                 heads, d_model);
        return EXIT_USAGE;
    }
    s->heads = heads;
    s->d_model = d_model;
    return EXIT_OK;
}

// --new's tokens: --tokens (UTF-8 text, as a lesson is) split on white space (as "sentence" is)
// into s->toks, which point into *copy (both malloc'd, the caller's to free whatever the result).
// Returns EXIT_OK, or the exit status after saying why.
static int new_tokens(const Args *a, Starter *s, char **copy)
{
    const char *text = a->value[OPT_TOKENS] ? a->value[OPT_TOKENS] : "The cat sat";
    for (size_t i = 0, len = strlen(text), at = 0; i < len; at = i)
        if (utf8_decode(text, len, &i) == 0xFFFD
            && !(i - at == 3 && memcmp(text + at, "\xef\xbf\xbd", 3) == 0)) {
            cli_line(stderr,
                     "mha-tracer: error: --tokens is not UTF-8 text (byte 0x%02X at byte %zu of "
                     "it); give the "
                     "tokens as UTF-8\n",
                     (unsigned)(unsigned char)text[at], at + 1);
            return EXIT_USAGE;
        }
    *copy = malloc(strlen(text) + 1);
    s->toks = malloc(sizeof *s->toks * (strlen(text) / 2 + 1));
    if (!*copy || !s->toks) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    strcpy(*copy, text);
    s->n = 0;
    for (char *t = strtok(*copy, " \t\n\r\f\v"); t; t = strtok(NULL, " \t\n\r\f\v"))
        s->toks[s->n++] = t;
    if (s->n < 1 || s->n > LESSON_MAX_TOKENS) {
        cli_line(stderr, "mha-tracer: error: --tokens expects 1 to %d words, got %d\n",
                 LESSON_MAX_TOKENS, s->n);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

// The starter lesson's JSON (*len bytes, malloc'd), with "$schema" relative to its file when
// lesson.schema.json is found (*have_schema), checked to load before the file exists. NULL with
// *status after saying why.
static char *new_json(const Starter *s, const char *argv0, size_t *len, bool *have_schema,
                      int *status)
{
    char schema[PATH_CAP], rel[PATH_CAP];
    *have_schema = find_schema(argv0, schema, sizeof schema);
    if (*have_schema) relative_to(s->path, schema, rel, sizeof rel);
    char *json = lesson_write_starter(s->toks, s->n, (int)s->heads, (int)s->d_model,
                                      *have_schema ? rel : NULL, len);
    if (!json) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        *status = EXIT_IO;
        return NULL;
    }
    Lesson l; // what is written must load
    LessonError err;
    if (!lesson_parse(&l, json, *len, s->path, &err)) {
        char buf[1400];
        cli_line(stderr, "mha-tracer: internal error: the starter lesson does not load: %s\n",
                 lesson_error_format(&err, buf, sizeof buf));
        *status = EXIT_USAGE;
        free(json);
        return NULL;
    }
    lesson_free(&l);
    return json;
}

// The starter written to a file that did not exist, and said on standard output. Returns the exit
// status.
static int new_write(const Starter *s, const char *json, size_t len, bool have_schema)
{
    LessonError err;
    if (!lesson_write_new_file(s->path, json, len, &err)) {
        char buf[1400];
        cli_line(stderr, "%s\n", lesson_error_format(&err, buf, sizeof buf));
        return EXIT_IO;
    }
    cli_line(stdout, "%s: a starter lesson: %d token%s, d_model %ld, %ld head%s\n", s->path, s->n,
             s->n == 1 ? "" : "s", s->d_model, s->heads, s->heads == 1 ? "" : "s");
    if (!have_schema)
        cli_line(stderr, "mha-tracer: note: lesson.schema.json was not found, so the "
                         "lesson has no \"$schema\"\n");
    return cli_finish_stdout();
}

// --new: a starter lesson, checked in memory, written to a file that did not exist.
static int run_new(const Args *a, const char *argv0)
{
    if (a->nfiles > 0) {
        cli_line(stderr, "mha-tracer: error: --new takes its FILE only, got also '%s'\n",
                 a->files[0]);
        return EXIT_USAGE;
    }
    char file[PATH_CAP]; // Windows: '/' for '\\', so "$schema" is made relative to the right folder
    Starter s = {.path = a->value[OPT_NEW]};
    if (strlen(s.path) < sizeof file) {
        snprintf(file, sizeof file, "%s", s.path);
        platform_path_normalize(file);
        s.path = file;
    }
    int status = new_sizes(a, &s);
    if (status != EXIT_OK) return status;
    char *copy = NULL;
    status = new_tokens(a, &s, &copy);
    size_t len = 0;
    bool have_schema = false;
    char *json = status == EXIT_OK ? new_json(&s, argv0, &len, &have_schema, &status) : NULL;
    if (json) status = new_write(&s, json, len, have_schema);
    free(json);
    free(copy);
    free(s.toks);
    return status;
}

// --ablate and --shuffle on a loaded lesson: the heads switched off; the lesson replaced by its
// shuffled copy (*perm, malloc'd and the caller's to free whatever the result, and extra say how;
// the output's change is measured against the original's trace).
static int apply_teaching_options(Lesson *l, const char *path, const char *ablate,
                                  const char *shuffle, int **perm, CliExtra *extra)
{
    char msg[300];
    if (ablate) {
        uint64_t set;
        if (!indexlist_parse_heads(ablate, l->params.heads, &set, msg, sizeof msg)) {
            cli_line(stderr, "mha-tracer: error: --ablate %s\n", msg);
            return EXIT_USAGE;
        }
        l->params.ablated = set;
    }
    if (!shuffle) return EXIT_OK;
    if (!(*perm = malloc(sizeof **perm * (size_t)l->params.n))) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    if (!indexlist_parse_permutation(shuffle, l->params.n, *perm, msg, sizeof msg)) {
        cli_line(stderr, "mha-tracer: error: --shuffle %s\n", msg);
        return EXIT_USAGE;
    }
    Lesson shuffled;
    Trace before, after;
    int status = run_trace(l, path, &before);
    if (status != EXIT_OK) return status;
    if (!lesson_shuffle(&shuffled, l, *perm)) {
        trace_free(&before);
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    status = run_trace(&shuffled, path, &after);
    if (status == EXIT_OK) {
        extra->shuffle = *perm;
        extra->shuffle_difference = trace_shuffle_difference(&before, &after, *perm);
        extra->shuffle_same = trace_shuffle_same(&before, extra->shuffle_difference);
        trace_free(&after);
        // The original output beside the shuffled one, its rows in the new order (as --ablate shows
        // both).
        Matrix *o = &extra->shuffle_original;
        if (mat_init(o, before.output.rows, before.output.cols))
            for (int i = 0; i < o->rows; i++)
                memcpy(mat_row(o, i), mat_row(&before.output, (*perm)[i]),
                       sizeof(double) * (size_t)o->cols);
    }
    trace_free(&before);
    lesson_free(l);
    *l = shuffled;
    return status;
}

// --grad: the loss of the lesson's output against its targets and the gradient of every parameter.
static int run_grad(const Lesson *l, const char *path, const Trace *t)
{
    Matrix targets;
    bool missing;
    if (!lesson_targets(l, &targets, &missing)) {
        cli_line(stderr,
                 missing ? "%s: error: --grad needs \"targets\" (n rows of d_model numbers) or a "
                           "\"train\" section\n"
                         : "%s: error: out of memory\n",
                 path ? path : "<built-in>");
        return missing ? EXIT_USAGE : EXIT_IO;
    }
    AttnParams g;
    int status = EXIT_IO;
    if (grads_init(&g, &l->params)) {
        char why[400];
        double loss = attn_loss(t, &targets);
        if (!attn_backward(&g, &l->params, t, &targets, 1.0)) {
            cli_line(stderr, "mha-tracer: error: out of memory\n");
        } else if (!cli_grad_check(loss, &g, &targets, why, sizeof why)) {
            cli_line(stderr, "%s: error: %s\n", path ? path : "<built-in>", why);
            status = EXIT_USAGE; // like --json of a lesson whose numbers overflow: an error of the
                                 // lesson
        } else {
            cli_print_grad(stdout, loss, &g);
            status = cli_finish_stdout();
        }
        params_free(&g);
    } else cli_line(stderr, "mha-tracer: error: out of memory\n");
    mat_free(&targets);
    return status;
}

// --json --decode (the lesson generated with a KV cache, after the full trace it must agree with)
// and
// --json --tiles B (the trace's JSON with each head's tiles).
static int run_decode_tiles(const Args *a, const Lesson *l, const char *path, const Trace *t,
                            const CliExtra *extra)
{
    const char *name = path ? path : "<built-in>";
    if (a->value[OPT_DECODE] && a->value[OPT_TILES]) {
        cli_line(stderr,
                 "mha-tracer: error: --decode and --tiles are two views: give one of them\n");
        return EXIT_USAGE;
    }
    if (a->value[OPT_DECODE]) {
        const char *why = decode_refusal(&l->params);
        if (why) {
            cli_line(stderr, "%s: error: --decode: %s\n", name, why);
            return EXIT_USAGE;
        }
        char msg[640];
        bool usage = true;
        if (!cli_print_decode(stdout, l, msg, sizeof msg, &usage)) {
            cli_line(stderr, "%s: error: %s\n", usage ? name : "mha-tracer", msg);
            return usage ? EXIT_USAGE : EXIT_IO;
        }
        return cli_finish_stdout();
    }
    double block = 0;
    if (!options_number(OPT_TILES, a->value[OPT_TILES], &block)) return EXIT_USAGE;
    char msg[640];
    bool usage = true;
    if (!cli_tiles_check(l, t, (int)block, msg, sizeof msg, &usage)) {
        cli_line(stderr, "%s: error: %s\n", usage ? name : "mha-tracer", msg);
        return usage ? EXIT_USAGE : EXIT_IO;
    }
    CliExtra x = *extra;
    x.tiles = (int)block;
    x.head_json = cli_json_tiles;
    cli_print_json_ex(stdout, l, t, &x);
    return cli_finish_stdout();
}

// --trace --stage NAME|all [--head N]: only that stage (or each), as the board shows it
// (cli_print_stage).
static int run_trace_stage(const Args *a, const Lesson *l, const char *path, const Trace *t)
{
    int stage = EXPORT_ALL_STAGES;
    double head = 0;
    if (!a->value[OPT_STAGE]) {
        cli_line(
            stderr,
            "mha-tracer: error: --head with --trace prints one stage: add --stage NAME (or all)\n");
        return EXIT_USAGE;
    }
    if (!options_stage(a->value[OPT_STAGE], &stage)) return EXIT_USAGE;
    if (a->value[OPT_HEAD] && !options_number(OPT_HEAD, a->value[OPT_HEAD], &head))
        return EXIT_USAGE;
    if ((int)head >= l->params.heads) {
        cli_line(stderr, "%s: error: --head %d: the lesson has %d head%s (0 to %d)\n",
                 path ? path : "<built-in>", (int)head, l->params.heads,
                 l->params.heads == 1 ? "" : "s", l->params.heads - 1);
        return EXIT_USAGE;
    }
    int n = cli_print_stage(stdout, l, t, stage, (int)head);
    if (n < 0) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    if (n == 0) {
        cli_line(stderr, "%s: error: --stage %s: this lesson has no such stage\n",
                 path ? path : "<built-in>", a->value[OPT_STAGE]);
        return EXIT_USAGE;
    }
    return cli_finish_stdout();
}

// The modes that run on a loaded, traced lesson: one function each, found in LESSON_MODES by the
// mode.
typedef int (*LessonModeRun)(const Args *a, const Lesson *l, const char *path, const Trace *t,
                             const CliExtra *extra, ExportRequest *xreq);

// --trace: the whole trace as text, or with --stage / --head one stage as the board shows it.
static int mode_trace(const Args *a, const Lesson *l, const char *path, const Trace *t,
                      const CliExtra *extra, ExportRequest *xreq)
{
    (void)xreq;
    if (a->value[OPT_STAGE] || a->value[OPT_HEAD]) return run_trace_stage(a, l, path, t);
    cli_print_trace_ex(stdout, l, t, extra);
    return cli_finish_stdout();
}

// --json: the whole trace, or with --decode / --tiles the generated tokens or the tiles.
static int mode_json(const Args *a, const Lesson *l, const char *path, const Trace *t,
                     const CliExtra *extra, ExportRequest *xreq)
{
    (void)xreq;
    if (a->value[OPT_DECODE] || a->value[OPT_TILES]) return run_decode_tiles(a, l, path, t, extra);
    cli_print_json_ex(stdout, l, t, extra);
    return cli_finish_stdout();
}

// --questions: each question with its answer from the trace; a question that does not hold is
// exit 2.
static int mode_questions(const Args *a, const Lesson *l, const char *path, const Trace *t,
                          const CliExtra *extra, ExportRequest *xreq)
{
    (void)a, (void)extra, (void)xreq;
    int errors = cli_print_questions(stdout, stderr, l, t, path ? path : "<built-in>");
    int status = cli_finish_stdout();
    return errors > 0 && status == EXIT_OK ? EXIT_USAGE : status;
}

static int mode_grad(const Args *a, const Lesson *l, const char *path, const Trace *t,
                     const CliExtra *extra, ExportRequest *xreq)
{
    (void)a, (void)extra, (void)xreq;
    return run_grad(l, path, t);
}

// --compare: one head of h·d_k beside the h heads.
static int mode_compare(const Args *a, const Lesson *l, const char *path, const Trace *t,
                        const CliExtra *extra, ExportRequest *xreq)
{
    (void)a, (void)extra, (void)xreq;
    Comparison cmp;
    TraceError terr;
    if (!compare_run(&cmp, &l->params, &terr)) {
        cli_line(stderr, "%s: error: %s\n", path ? path : "<built-in>", terr.message);
        return EXIT_USAGE;
    }
    cli_print_compare(stdout, l, t, &cmp);
    compare_free(&cmp);
    return cli_finish_stdout();
}

#ifndef MHA_NO_GUI
static int mode_export(const Args *a, const Lesson *l, const char *path, const Trace *t,
                       const CliExtra *extra, ExportRequest *xreq)
{
    (void)extra;
    i18n_use(i18n_choose(a->value[OPT_LANG], l->language));
    return run_export(xreq, l, path, t);
}
#endif

static const struct {
    Mode mode;
    LessonModeRun run;
} LESSON_MODES[] = {
    {MODE_TRACE, mode_trace},   {MODE_JSON, mode_json},       {MODE_QUESTIONS, mode_questions},
    {MODE_GRAD, mode_grad},     {MODE_COMPARE, mode_compare},
#ifndef MHA_NO_GUI
    {MODE_EXPORT, mode_export},
#endif
};

// The mode a->mode on the lesson; EXIT_OK for a mode with nothing to run here (the window,
// --train).
static int run_mode(const Args *a, const Lesson *l, const char *path, const Trace *t,
                    const CliExtra *extra, ExportRequest *xreq)
{
    for (size_t i = 0; i < sizeof LESSON_MODES / sizeof LESSON_MODES[0]; i++)
        if (LESSON_MODES[i].mode == a->mode) return LESSON_MODES[i].run(a, l, path, t, extra, xreq);
    return EXIT_OK;
}

// --rope-shift K: the trace also turns every query and key at position p + K (RoPE lessons only).
static int apply_rope_shift(Lesson *l, const char *path, const char *value)
{
    double k = 0;
    if (!options_number(OPT_ROPE_SHIFT, value, &k)) return EXIT_USAGE;
    if (l->params.rope == ROPE_NONE) {
        cli_line(stderr,
                 "%s: error: --rope-shift: the lesson has no \"rope\": no position turns its "
                 "queries and keys\n",
                 path ? path : "<built-in>");
        return EXIT_USAGE;
    }
    l->params.rope_shift = (int)k;
    return EXIT_OK;
}

// The modes on one lesson (path, or the built-in one): loaded, changed by --ablate and --shuffle,
// traced, then printed, exported, trained or shown in the window.
static int run_lesson(const Args *a, const char *path, ExportRequest *xreq)
{
    Lesson lesson;
    int status = load_lesson(&lesson, path);
    if (status != EXIT_OK) return status;
#ifndef MHA_NO_GUI
    if (a->mode == MODE_EXPORT && cli_circuit_export_wanted(a, xreq, &lesson)) {
        bool layers = lesson.circuit != NULL;
        lesson_free(&lesson);
        return cli_circuit_export(a, path, layers, xreq, run_export);
    }
#endif
    if (lesson.circuit && cli_circuit_mode(a->mode)) { // a lesson of layers: cli_circuit.c
        status = cli_circuit_run(a->mode, &lesson, path, a->value[OPT_ABLATE], a->value[OPT_STEPS],
                                 a->value[OPT_OUT]);
        lesson_free(&lesson);
        return status;
    }
    CliExtra extra = {0};
    int *perm = NULL;
    const char *ablate = a->value[OPT_ABLATE], *shuffle = a->value[OPT_SHUFFLE];
    if (ablate || shuffle)
        status = apply_teaching_options(&lesson, path, ablate, shuffle, &perm, &extra);
    if (status == EXIT_OK && a->value[OPT_ROPE_SHIFT])
        status = apply_rope_shift(&lesson, path, a->value[OPT_ROPE_SHIFT]);
    if (status == EXIT_OK && a->mode == MODE_TRAIN)
        status = cli_run_train(&lesson, path, a->value[OPT_STEPS], a->value[OPT_OUT]);
    else if (status == EXIT_OK) {
        Trace trace;
        status = run_trace(&lesson, path, &trace);
        if (status == EXIT_OK) {
            status = run_mode(a, &lesson, path, &trace, &extra, xreq);
            trace_free(&trace);
        }
    }
    lesson_free(&lesson);
    free(perm);
    mat_free(&extra.shuffle_original);
    if (status != EXIT_OK || a->mode != MODE_WINDOW) return status;
#ifdef MHA_NO_GUI
    cli_line(stderr, "mha-tracer: error: this build has no window (built with -DMHA_GUI=OFF); use "
                     "--trace or --json\n");
    return EXIT_USAGE;
#else
    GuiOptions opt = {.lesson_path = path,
                      .fullscreen = a->value[OPT_FULLSCREEN] != NULL,
                      .lang = a->value[OPT_LANG],
                      .beside = a->value[OPT_BESIDE]};
    return gui_run(&opt);
#endif
}

#ifndef MHA_NO_GUI
// --layout's window size (--size WxH, default 1280x720) and fonts: EXIT_OK, else the status after
// saying why.
static int layout_setup(const Args *a, int *w, int *h, char *fonts, size_t cap)
{
    *w = 1280, *h = 720;
    const char *size = a->value[OPT_SIZE];
    if (size) {
        char *end;
        long pw = strtol(size, &end, 10), ph = *end == 'x' ? strtol(end + 1, &end, 10) : 0;
        if (*end || pw < 320 || ph < 320 || pw > 8192 || ph > 8192) {
            cli_line(
                stderr,
                "mha-tracer: error: --size expects WIDTHxHEIGHT, each from 320 to 8192, got '%s'\n",
                size);
            return EXIT_USAGE;
        }
        *w = (int)pw, *h = (int)ph;
    }
    if (!find_font_dir(fonts, cap)) {
        cli_line(stderr, "mha-tracer: error: --layout: the fonts (assets/fonts) were not found\n");
        return EXIT_IO;
    }
    return EXIT_OK;
}
#endif

// --layout [LESSON] [--size WxH] [--head N]: the layout audit (cli_layout.c).
static int run_layout(const Args *a)
{
#ifdef MHA_NO_GUI
    (void)a;
    cli_line(stderr, "mha-tracer: error: this build has no scene (built with -DMHA_GUI=OFF)\n");
    return EXIT_USAGE;
#else
    double head = -1;
    if (a->value[OPT_HEAD] && !options_number(OPT_HEAD, a->value[OPT_HEAD], &head))
        return EXIT_USAGE;
    if (a->nfiles > 1) {
        cli_line(stderr, "mha-tracer: error: expected one lesson file, got %d (see --help)\n",
                 a->nfiles);
        return EXIT_USAGE;
    }
    char fonts[1100], err[1300] = "";
    int w, h, status = layout_setup(a, &w, &h, fonts, sizeof fonts);
    if (status != EXIT_OK) return status;
    const char *path = a->nfiles ? a->files[0] : NULL;
    Lesson probe;
    status = load_lesson(&probe, path); // the lesson's own errors, as every mode prints them
    if (status != EXIT_OK) return status;
    i18n_use(i18n_choose(a->value[OPT_LANG], probe.language));
    if ((int)head >= probe.params.heads) {
        cli_line(stderr, "%s: error: --head %d: the lesson has %d head%s (0 to %d)\n",
                 path ? path : "<built-in>", (int)head, probe.params.heads,
                 probe.params.heads == 1 ? "" : "s", probe.params.heads - 1);
        lesson_free(&probe);
        return EXIT_USAGE;
    }
    lesson_free(&probe);
    LayoutRequest rq = {.w = w, .h = h, .only_head = (int)head, .font_dir = fonts};
    if ((status = cli_layer_option(a, &rq.only_layer)) != EXIT_OK) return status;
    status = cli_layout(stdout, path, &rq, err, sizeof err);
    if (status != 0) {
        cli_line(stderr, "%s: error: %s\n", path ? path : "mha-tracer", err);
        return status;
    }
    return cli_finish_stdout();
#endif
}

#if !defined MHA_NO_GUI                                                                            \
    && !defined __EMSCRIPTEN__ // the page reads no checkpoint (--model is not built there)
// --layout --model DIR: the layout audit of the checkpoint's layer (its own stages and the
// overview too), taken over; head -1: every head.
static int model_layout(const Args *a, Lesson *lesson, int head)
{
    char fonts[1100], err[1300] = "";
    int w, h, status = layout_setup(a, &w, &h, fonts, sizeof fonts);
    if (status != EXIT_OK) {
        lesson_free(lesson);
        return status;
    }
    i18n_use(i18n_choose(a->value[OPT_LANG], lesson->language));
    LayoutRequest rq = {.w = w, .h = h, .only_head = head, .only_layer = -1, .font_dir = fonts};
    status = cli_layout_lesson(stdout, lesson, a->value[OPT_MODEL], &rq, err, sizeof err);
    if (status != 0) {
        cli_line(stderr, "%s: error: %s\n", a->value[OPT_MODEL], err);
        return status;
    }
    return cli_finish_stdout();
}

// --model's window: the checkpoint's layer, taken over, opened on head `head` (or, with --layout,
// its layout audit).
static int model_window(const Args *a, Lesson *lesson, int head)
{
    if (a->mode == MODE_LAYOUT) return model_layout(a, lesson, head);
    GuiOptions opt = {.lesson = lesson,
                      .head = head,
                      .fullscreen = a->value[OPT_FULLSCREEN] != NULL,
                      .lang = a->value[OPT_LANG]};
    return gui_run(&opt);
}
// --model DIR --export OUTDIR --what overview: the layer's slides, named after the checkpoint's
// folder.
static int model_export(const Args *a, const Lesson *lesson, const Trace *t)
{
    ExportRequest req;
    if (!parse_export(a, &req)) return EXIT_USAGE;
    i18n_use(i18n_choose(a->value[OPT_LANG], lesson->language));
    char dir[PATH_CAP]; // the files are named after the checkpoint's folder ("tiny-gpt2/" ->
                        // tiny-gpt2-overview)
    snprintf(dir, sizeof dir, "%s", a->value[OPT_MODEL]);
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = '\0';
    return run_export(&req, lesson, dir, t);
}
#else
#define model_window NULL
#define model_export NULL
#endif

// The command line as parsed: what it asks for.
static int run(const Args *a, const char *argv0)
{
    if (a->mode == MODE_HELP) {
        options_print_help(stdout);
        return cli_finish_stdout();
    }
    if (a->mode == MODE_VERSION) {
        cli_line(stdout, "mha-tracer %s\n", MHA_VERSION);
        return cli_finish_stdout();
    }
    if (a->mode == MODE_NEW) return run_new(a, argv0);
    if (a->mode == MODE_LAYOUT && !a->value[OPT_MODEL]) return run_layout(a);
#ifdef MHA_NO_GUI
    ExportRequest *xreq = NULL;
    if (a->mode == MODE_EXPORT) {
        cli_line(stderr,
                 "mha-tracer: error: this build has no exporter (built with -DMHA_GUI=OFF)\n");
        return EXIT_USAGE;
    }
#else
    ExportRequest request, *xreq = &request;
    if (a->mode == MODE_EXPORT && !parse_export(a, xreq)) return EXIT_USAGE;
#endif
    if (a->mode == MODE_CHECK) {
        if (a->nfiles > 0) return cli_check_files(a->files, a->nfiles);
        cli_line(stderr, "mha-tracer: error: --check needs at least one lesson file\n");
        return EXIT_USAGE;
    }
#ifndef __EMSCRIPTEN__
    if (a->value[OPT_MODEL]) return cli_run_model(a, model_window, model_export);
#else
    if (a->value[OPT_MODEL]) { // the page has no checkpoint files; its readers stay out of the 5 MB
                               // it may weigh
        cli_line(stderr, "mha-tracer: error: --model: real models are read by the desktop program, "
                         "not the page\n");
        return 2;
    }
#endif
    if (a->nfiles > 1) {
        cli_line(stderr, "mha-tracer: error: expected one lesson file, got %d (see --help)\n",
                 a->nfiles);
        return EXIT_USAGE;
    }
    return run_lesson(a, a->nfiles ? a->files[0] : NULL, xreq);
}

int main(int argc, char **argv)
{
    platform_tune_allocator();
    platform_console_attach();
    argv = platform_utf8_argv(argc, argv);
    Args args;
    int status = options_parse(&args, argc, argv);
    if (status == EXIT_OK) status = run(&args, argv[0]);
    options_free(&args);
    return status;
}
