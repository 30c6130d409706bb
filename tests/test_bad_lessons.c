// Every tests/bad/NAME.json must fail to load with exactly the one line in tests/bad/NAME.expected,
// and
// --check's report of it (lesson_load_report) must start with that line.
// Also: a missing file and a directory fail as I/O errors that name the file.
#define _POSIX_C_SOURCE 200809L // opendir, chdir
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lesson/lesson.h"

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// The first line of path without its line break, into buf. False when the file cannot be read.
static bool read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    bool ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\r\n")] = '\0';
    return ok;
}

// Loads one bad lesson; returns true when it fails with the expected line.
static bool check_case(const char *name)
{
    char json_path[600], expected_path[600], expected[1200], got[1200];
    snprintf(json_path, sizeof json_path, "bad/%s.json", name);
    snprintf(expected_path, sizeof expected_path, "bad/%s.expected", name);
    if (!read_line(expected_path, expected, sizeof expected)) {
        printf("FAIL %s: cannot read %s\n", name, expected_path);
        return false;
    }
    Lesson l;
    LessonError err;
    if (lesson_load(&l, json_path, &err)) {
        printf("FAIL %s: loaded without an error\n      expected: %s\n", name, expected);
        lesson_free(&l);
        return false;
    }
    // A failed load leaves the lesson empty.
    static const Lesson empty;
    if (memcmp(&l, &empty, sizeof l) != 0) {
        printf("FAIL %s: the lesson is not left empty after the error\n", name);
        return false;
    }
    lesson_error_format(&err, got, sizeof got);
    if (err.io) {
        printf("FAIL %s: reported as an I/O error: %s\n", name, got);
        return false;
    }
    if (strcmp(got, expected) != 0) {
        printf("FAIL %s\n      expected: %s\n      got:      %s\n", name, expected, got);
        return false;
    }
    // --check's report: the lesson still fails, and its first error is the same line.
    LessonReport rep;
    char first[1200] = "";
    bool loaded = lesson_load_report(&l, json_path, &rep);
    if (rep.count > 0) lesson_error_format(&rep.items[0], first, sizeof first);
    // (A lesson whose only errors are its questions' form is still built, for the questions' other
    // checks.)
    bool same =
        rep.errors >= 1 && rep.count >= 1 && !rep.items[0].warning && strcmp(first, expected) == 0;
    if (!same) printf("FAIL %s: the report (%d errors) starts with: %s\n", name, rep.errors, first);
    if (loaded) lesson_free(&l);
    lesson_report_free(&rep);
    return same;
}

static int check_io_errors(void)
{
    int failures = 0;
    Lesson l;
    LessonError err;
    char got[1200];
    const char *paths[] = {"bad/no-such-lesson.json", "bad"};
    const char *words[] = {"No such file or directory", "Is a directory"};
    for (int i = 0; i < 2; i++) {
        bool loaded = lesson_load(&l, paths[i], &err);
        lesson_error_format(&err, got, sizeof got);
        if (loaded || !err.io || strncmp(got, paths[i], strlen(paths[i])) != 0
            || !strstr(got, words[i])) {
            printf("FAIL I/O error for %s: io=%d, got: %s\n", paths[i], err.io, got);
            failures++;
        } else {
            printf("ok   %s\n", got);
        }
        if (loaded) lesson_free(&l);
    }
    return failures;
}

int main(void)
{
    if (chdir(MHA_TEST_DATA) != 0) {
        perror(MHA_TEST_DATA);
        return 1;
    }
    DIR *dir = opendir("bad");
    if (!dir) {
        perror("bad");
        return 1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n <= 5 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) return 1;
            names = grown;
        }
        names[count] = malloc(n - 4);
        if (!names[count]) return 1;
        memcpy(names[count], e->d_name, n - 5);
        names[count][n - 5] = '\0';
        count++;
    }
    closedir(dir);
    qsort(names, count, sizeof *names, cmp_names);

    size_t passed = 0;
    for (size_t i = 0; i < count; i++) {
        if (check_case(names[i])) passed++;
        free(names[i]);
    }
    free(names);
    int failures = (int)(count - passed);
    if (count < 40) {
        printf("FAIL only %zu bad lessons in %s/bad (expected at least 40)\n", count,
               MHA_TEST_DATA);
        failures++;
    }
    int io_failures = check_io_errors();
    failures += io_failures;
    printf("%zu bad lessons: %zu give their expected error, %zu do not; I/O cases: %d failure(s)\n",
           count, passed, count - passed, io_failures);
    return failures ? 1 : 0;
}
