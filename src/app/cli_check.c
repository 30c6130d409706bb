// --check: each lesson file's report (lesson_load_report: every independent error with its
// line:column and field, the warnings), then its trace's warnings, printed file by file.
#include "app/cli_check.h"

#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/options.h"
#include "model/questions.h"
#include "model/saturation.h"

// lessons/lesson.schema.json sits beside the lessons (for editors), so `--check lessons/*.json`
// names it too.
static bool is_schema_file(const char *path)
{
    static const char suffix[] = ".schema.json";
    size_t n = strlen(path), k = sizeof suffix - 1;
    return n >= k && strcmp(path + n - k, suffix) == 0;
}

// Prints a report's errors and warnings (stderr), then "FILE: ok" (stdout) or the count of errors
// (stderr). Returns the exit status of the file.
static int print_report(const char *path, const LessonReport *rep, bool io)
{
    char buf[1400];
    for (int i = 0; i < rep->count; i++)
        cli_line(stderr, "%s\n", lesson_error_format(&rep->items[i], buf, sizeof buf));
    int unlisted = rep->errors + rep->warnings - rep->count;
    if (unlisted > 0) cli_line(stderr, "%s: ... and %d more not listed\n", path, unlisted);
    char warnings[64] = "";
    if (rep->warnings)
        snprintf(warnings, sizeof warnings, ", %d warning%s", rep->warnings,
                 rep->warnings == 1 ? "" : "s");
    if (rep->errors == 0) {
        cli_line(stdout, "%s: ok%s\n", path, warnings);
        return EXIT_OK;
    }
    cli_line(stderr, "%s: %d error%s%s\n", path, rep->errors, rep->errors == 1 ? "" : "s",
             warnings);
    return io ? EXIT_IO : EXIT_USAGE;
}

// One lesson's report for --check: the file's errors and warnings, then its trace's (an overflow,
// the saturated softmax rows, the questions' stated answers). Free *rep with lesson_report_free.
static void check_lesson(const char *path, LessonReport *rep)
{
    Lesson l;
    if (!lesson_load_report(&l, path, rep)) return;
    Trace t;
    TraceError terr;
    if (trace_run(&t, &l.params, &terr)) {
        saturation_warn(&l, &t, path, rep);
        questions_check(&l, &t, path, rep);
        trace_free(&t);
    } else { // valid JSON whose numbers overflow: an error of the file
        LessonError e;
        memset(&e, 0, sizeof e);
        lesson_error_set_file(&e, path);
        snprintf(e.message, sizeof e.message, "%s", terr.message);
        lesson_report_add(rep, &e);
    }
    lesson_free(&l);
}

// --check: every independent error of each file with its line:column and field, then the count;
// warnings (which leave the file valid) from the lesson and from its numbers.
int cli_check_files(char **paths, int count)
{
    int status = EXIT_OK;
    for (int i = 0; i < count; i++) {
        LessonReport rep;
        // A file named like the schema is skipped when it is a JSON Schema; a broken one is an
        // error (its I/O or syntax error), any other JSON under that name is checked as the lesson
        // it claims to be.
        if (is_schema_file(paths[i])) {
            bool schema = lesson_load_schema(paths[i], &rep);
            if (schema) cli_line(stdout, "%s: skipped (a JSON Schema, not a lesson)\n", paths[i]);
            if (schema || rep.count == 0) lesson_report_free(&rep);
            if (schema) continue;
            if (rep.count == 0) check_lesson(paths[i], &rep);
        } else check_lesson(paths[i], &rep);
        bool io = rep.count > 0 && rep.items[0].io;
        int s = print_report(paths[i], &rep, io);
        lesson_report_free(&rep);
        if (s == EXIT_USAGE || (s == EXIT_IO && status == EXIT_OK)) status = s;
    }
    int out = cli_finish_stdout();
    return status != EXIT_OK ? status : out;
}
