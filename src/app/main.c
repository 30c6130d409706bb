// mha-tracer's entry point: the command line (--trace, --json, --compare, --check, --help, --version) and the window.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#ifndef MHA_NO_GUI
#include "gui.h"
#endif

#ifndef MHA_VERSION
#define MHA_VERSION "dev"
#endif

enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_USAGE = 2 };

static const char USAGE[] =
    "Usage: mha-tracer [OPTIONS] [LESSON.json]\n"
    "Steps through multi-head attention one stage at a time, in a window or on the command line.\n"
    "With no LESSON the built-in lesson \"The cat sat\" is used.\n"
    "\n"
    "  (no option)        open the window on LESSON\n"
    "  --fullscreen       open the window full screen\n"
    "  --trace [LESSON]   print every stage of every head, rounded to 4 decimals\n"
    "  --json [LESSON]    print the whole trace as JSON (17 significant digits)\n"
    "  --compare [LESSON] print one head of d_k = h*d_k next to the h heads: patterns, outputs, cost\n"
    "  --check LESSON...  validate lesson files: 'FILE: ok' or the errors\n"
    "  --help             show this help\n"
    "  --version          show the version\n"
    "\n"
    "Exit status: 0 success, 1 I/O failure, 2 bad usage or an invalid lesson.\n";

typedef enum { MODE_WINDOW, MODE_TRACE, MODE_JSON, MODE_COMPARE, MODE_CHECK } Mode;

// Loads path (or the built-in lesson when NULL); prints the error and returns the exit status on failure.
static int load_lesson(Lesson *l, const char *path)
{
    LessonError err;
    bool ok = path ? lesson_load(l, path, &err) : lesson_load_builtin(l, &err);
    if (ok) return EXIT_OK;
    char buf[1024];
    fprintf(stderr, "%s\n", lesson_error_format(&err, buf, sizeof buf));
    return err.io ? EXIT_IO : EXIT_USAGE;
}

static int run_trace(const Lesson *l, const char *path, Trace *t)
{
    TraceError terr;
    if (trace_run(t, &l->params, &terr)) return EXIT_OK;
    fprintf(stderr, "%s: error: %s\n", path ? path : "<built-in>", terr.message);
    return EXIT_USAGE;
}

static int finish_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mha-tracer: error: cannot write to standard output: %s\n", strerror(errno));
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

static int check_files(char **paths, int count)
{
    int status = EXIT_OK;
    for (int i = 0; i < count; i++) {
        if (is_schema_file(paths[i])) {
            printf("%s: skipped (a JSON Schema, not a lesson)\n", paths[i]);
            continue;
        }
        Lesson l;
        Trace t;
        int s = load_lesson(&l, paths[i]);
        if (s == EXIT_OK) {
            s = run_trace(&l, paths[i], &t);
            if (s == EXIT_OK) {
                printf("%s: ok\n", paths[i]);
                trace_free(&t);
            }
            lesson_free(&l);
        }
        if (s == EXIT_USAGE || (s == EXIT_IO && status == EXIT_OK)) status = s;
    }
    int out = finish_stdout();
    return status != EXIT_OK ? status : out;
}

int main(int argc, char **argv)
{
    Mode mode = MODE_WINDOW;
    bool fullscreen = false;
    char **files = malloc(sizeof(char *) * (size_t)(argc > 0 ? argc : 1));
    int nfiles = 0;
    if (!files) return EXIT_IO;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && a[0] == '-' && a[1] != '\0') {
            if (strcmp(a, "--") == 0)
                options_done = true;
            else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
                fputs(USAGE, stdout);
                free(files);
                return finish_stdout();
            } else if (strcmp(a, "--version") == 0) {
                printf("mha-tracer %s\n", MHA_VERSION);
                free(files);
                return finish_stdout();
            } else if (strcmp(a, "--trace") == 0 || strcmp(a, "--json") == 0 || strcmp(a, "--check") == 0
                       || strcmp(a, "--compare") == 0) {
                Mode m = strcmp(a, "--trace") == 0  ? MODE_TRACE
                       : strcmp(a, "--json") == 0   ? MODE_JSON
                       : strcmp(a, "--check") == 0  ? MODE_CHECK
                                                    : MODE_COMPARE;
                if (mode != MODE_WINDOW && mode != m) {
                    fprintf(stderr, "mha-tracer: error: %s cannot be combined with another mode\n", a);
                    free(files);
                    return EXIT_USAGE;
                }
                mode = m;
            } else if (strcmp(a, "--fullscreen") == 0)
                fullscreen = true;
            else {
                fprintf(stderr, "mha-tracer: error: unknown option '%s' (see --help)\n", a);
                free(files);
                return EXIT_USAGE;
            }
        } else
            files[nfiles++] = argv[i];
    }

    int status;
    if (mode == MODE_CHECK) {
        if (nfiles == 0) {
            fprintf(stderr, "mha-tracer: error: --check needs at least one lesson file\n");
            status = EXIT_USAGE;
        } else
            status = check_files(files, nfiles);
        free(files);
        return status;
    }
    if (nfiles > 1) {
        fprintf(stderr, "mha-tracer: error: expected one lesson file, got %d (see --help)\n", nfiles);
        free(files);
        return EXIT_USAGE;
    }
    const char *path = nfiles ? files[0] : NULL;
    free(files);

    Lesson lesson;
    status = load_lesson(&lesson, path);
    if (status != EXIT_OK) return status;
    Trace trace;
    status = run_trace(&lesson, path, &trace);
    if (status != EXIT_OK) {
        lesson_free(&lesson);
        return status;
    }
    if (mode == MODE_TRACE || mode == MODE_JSON) {
        if (mode == MODE_TRACE)
            cli_print_trace(stdout, &lesson, &trace);
        else
            cli_print_json(stdout, &lesson, &trace);
        status = finish_stdout();
    } else if (mode == MODE_COMPARE) {
        Comparison cmp;
        TraceError terr;
        if (compare_run(&cmp, &lesson.params, &terr)) {
            cli_print_compare(stdout, &lesson, &trace, &cmp);
            compare_free(&cmp);
            status = finish_stdout();
        } else {
            fprintf(stderr, "%s: error: %s\n", path ? path : "<built-in>", terr.message);
            status = EXIT_USAGE;
        }
    }
    trace_free(&trace);
    lesson_free(&lesson);
    if (mode != MODE_WINDOW) return status;
#ifdef MHA_NO_GUI
    (void)fullscreen;
    fprintf(stderr, "mha-tracer: error: this build has no window (built with -DMHA_GUI=OFF); use --trace or --json\n");
    return EXIT_USAGE;
#else
    GuiOptions opt = {.lesson_path = path, .fullscreen = fullscreen};
    return gui_run(&opt);
#endif
}
